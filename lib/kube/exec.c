/* SPDX-License-Identifier: MIT */
/*
 * Credentials from an exec plugin (kubeconfig users[].user.exec), as
 * client-go runs them: the command with its args and env, plus
 * KUBERNETES_EXEC_INFO, stdin from /dev/null (never interactive), stderr
 * passed through; its stdout is an ExecCredential whose status.token is the
 * bearer token, kept until status.expirationTimestamp (or a 401).
 */
#include "kube/exec.h"
#include "kube/error_internal.h"
#include "kube/util.h"
#include "core/log.h"
#include "time/rfc3339.h"

#include <errno.h>
#include <jansson.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAX_OUTPUT	((size_t)1 << 20)
#define EXEC_TIMEOUT_MS 60000 /* a plugin that hangs is an error, not a hang */
#define EXPIRY_MARGIN_S 10    /* run again this long before the token expires */

/* ------------------------------------------------------------ the input */

/* KUBERNETES_EXEC_INFO: the ExecCredential of the request (a new string). */
static char *exec_info(const struct kube_exec_config *x, const struct kube_config *cfg)
{
	json_t *spec = json_pack("{s:b}", "interactive", 0);
	json_t *doc = json_pack("{s:s,s:s,s:o}", "apiVersion", x->api_version, "kind",
				"ExecCredential", "spec", spec);
	char *out = NULL, *b64 = NULL;
	if (!doc)
		return NULL;
	if (x->provide_cluster_info) {
		json_t *cl = json_pack("{s:s,s:b}", "server", cfg->server ? cfg->server : "",
				       "insecure-skip-tls-verify", cfg->insecure);
		if (cl && cfg->ca_pem) {
			b64 = malloc(4 * ((cfg->ca_pem_len + 2) / 3) + 1);
			if (b64)
				EVP_EncodeBlock((unsigned char *)b64,
						(const unsigned char *)cfg->ca_pem,
						(int)cfg->ca_pem_len);
			if (!b64 || json_object_set_new(cl, "certificate-authority-data",
							json_string(b64))) {
				json_decref(cl);
				cl = NULL;
			}
		}
		if (!cl || json_object_set_new(spec, "cluster", cl))
			goto out;
	}
	out = json_dumps(doc, JSON_COMPACT);
out:
	free(b64);
	json_decref(doc);
	return out;
}

/* environ, then the plugin's env (overriding), then KUBERNETES_EXEC_INFO:
 * a new array of borrowed strings (info and x->env stay alive meanwhile). */
static char **child_env(const struct kube_exec_config *x, char *info_var)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + x->nenv + 2, sizeof(*env));
	size_t k = 0;
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		bool overridden = !strncmp(environ[i], "KUBERNETES_EXEC_INFO=", 21);
		for (size_t j = 0; j < x->nenv && !overridden; j++) {
			size_t nl = strcspn(x->env[j], "=");
			overridden = !strncmp(environ[i], x->env[j], nl + 1);
		}
		if (!overridden)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < x->nenv; j++)
		env[k++] = x->env[j];
	env[k] = info_var;
	return env;
}

/* ------------------------------------------------------------ the run */

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads fd to its end into *out (NUL-terminated) within the deadline. */
static int read_all(int fd, int64_t deadline, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		long left = (long)(deadline - now_ms());
		if (left <= 0) {
			free(buf);
			return -ETIMEDOUT;
		}
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int pr = poll(&p, 1, (int)left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0) {
			int e = errno;
			free(buf);
			return -e;
		}
		if (pr == 0)
			continue;
		if (n + 4096 + 1 > cap) {
			if (cap >= MAX_OUTPUT) {
				free(buf);
				return -EFBIG;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/* Whether cmd names an executable: a path, or a name found in PATH (as
 * posix_spawnp looks it up), so "not found" is told apart from a plugin
 * that fails. */
static bool executable(const char *cmd)
{
	if (strchr(cmd, '/'))
		return access(cmd, X_OK) == 0;
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/bin:/usr/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		char full[4096];
		int w = snprintf(full, sizeof(full), "%.*s/%s", n ? (int)n : 1, n ? path : ".",
				 cmd);
		if (w > 0 && (size_t)w < sizeof(full) && access(full, X_OK) == 0)
			return true;
		path += n;
		if (*path == ':')
			path++;
	}
	return false;
}

/*
 * Runs the plugin; *out is its stdout (caller frees). 0, or -errno with err
 * saying what happened: -ENOENT (not found: the install hint), -EPROTO
 * (exited non-zero or by a signal), -ETIMEDOUT.
 */
static int run_plugin(const struct kube_exec_config *x, const struct kube_config *cfg, char **out,
		      size_t *len, struct kube_error *err)
{
	char *info = exec_info(x, cfg), *info_var = NULL, **env = NULL, **argv = NULL;
	posix_spawn_file_actions_t fa;
	bool fa_ok = false;
	int pipefd[2] = {-1, -1}, ret, status = 0;
	pid_t pid = -1;

	*out = NULL;
	if (!executable(x->command)) {
		free(info);
		return kube_errorf(err, -ENOENT, "exec plugin '%s' not found%s%s", x->command,
				   x->install_hint ? ": " : "",
				   x->install_hint ? x->install_hint : "");
	}
	if (!info || asprintf(&info_var, "KUBERNETES_EXEC_INFO=%s", info) < 0) {
		info_var = NULL;
		ret = -ENOMEM;
		goto out;
	}
	env = child_env(x, info_var);
	argv = calloc(x->nargs + 2, sizeof(*argv));
	if (!env || !argv) {
		ret = -ENOMEM;
		goto out;
	}
	argv[0] = x->command;
	for (size_t i = 0; i < x->nargs; i++)
		argv[i + 1] = x->args[i];
	if (pipe2(pipefd, O_CLOEXEC)) {
		ret = kube_errorf(err, -errno, "exec plugin '%s': pipe: %s", x->command,
				  strerror(errno));
		goto out;
	}
	if ((ret = posix_spawn_file_actions_init(&fa))) {
		ret = -ret;
		goto out;
	}
	fa_ok = true;
	if ((ret = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)) ||
	    (ret = posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1))) {
		ret = -ret;
		goto out;
	}
	ret = posix_spawnp(&pid, x->command, &fa, NULL, argv, env);
	close(pipefd[1]);
	pipefd[1] = -1;
	if (ret) {
		pid = -1;
		if (ret == ENOENT)
			ret = kube_errorf(err, -ENOENT, "exec plugin '%s' not found%s%s",
					  x->command, x->install_hint ? ": " : "",
					  x->install_hint ? x->install_hint : "");
		else
			ret = kube_errorf(err, -ret, "exec plugin '%s': cannot run it: %s",
					  x->command, strerror(ret));
		goto out;
	}
	ret = read_all(pipefd[0], now_ms() + EXEC_TIMEOUT_MS, out, len);
	if (ret == -ETIMEDOUT || ret == -EFBIG)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	pid = -1;
	if (ret == -ETIMEDOUT)
		ret = kube_errorf(err, ret, "exec plugin '%s': no answer within %d s", x->command,
				  EXEC_TIMEOUT_MS / 1000);
	else if (ret == -EFBIG)
		ret = kube_errorf(err, ret, "exec plugin '%s': output over %zu bytes", x->command,
				  MAX_OUTPUT);
	else if (ret)
		ret = kube_errorf(err, ret, "exec plugin '%s': reading its output: %s", x->command,
				  strerror(-ret));
	else if (WIFSIGNALED(status))
		ret = kube_errorf(err, -EPROTO, "exec plugin '%s' was killed by signal %d",
				  x->command, WTERMSIG(status));
	else if (WEXITSTATUS(status))
		ret = kube_errorf(err, -EPROTO, "exec plugin '%s' exited with status %d",
				  x->command, WEXITSTATUS(status));
	if (ret) {
		free(*out);
		*out = NULL;
	}
out:
	if (fa_ok)
		posix_spawn_file_actions_destroy(&fa);
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	free(argv);
	free(env);
	if (info_var)
		kube_free_secret(info_var);
	free(info);
	if (ret == -ENOMEM)
		kube_errorf(err, ret, "exec plugin '%s': out of memory", x->command);
	return ret;
}

/* ------------------------------------------------------------ the output */

int kube_exec_credential_parse(const char *text, size_t len, const char *api_version, char **token,
			       time_t *expiry, char *why, size_t whylen)
{
	json_error_t je;
	json_t *doc = json_loadb(text, len, 0, &je);
	int ret = -EINVAL;

	*token = NULL;
	*expiry = 0;
	if (!doc) {
		snprintf(why, whylen, "not JSON: %s", je.text);
		return -EINVAL;
	}
	const char *av = json_string_value(json_object_get(doc, "apiVersion"));
	const char *kind = json_string_value(json_object_get(doc, "kind"));
	const json_t *st = json_object_get(doc, "status");
	const char *tok = json_string_value(json_object_get(st, "token"));
	const char *exp = json_string_value(json_object_get(st, "expirationTimestamp"));
	if (!kind || strcmp(kind, "ExecCredential"))
		snprintf(why, whylen, "kind: '%s' is not ExecCredential", kind ? kind : "");
	else if (!av || strcmp(av, api_version))
		snprintf(why, whylen, "apiVersion: '%s' is not the '%s' the kubeconfig asks for",
			 av ? av : "", api_version);
	else if (!json_is_object(st))
		snprintf(why, whylen, "status: missing");
	else if (!tok && json_object_get(st, "clientCertificateData"))
		snprintf(why, whylen,
			 "status.clientCertificateData: client certificates from exec plugins "
			 "are not supported (only status.token)");
	else if (!tok || !*tok)
		snprintf(why, whylen, "status.token: missing");
	else if (exp && sb_rfc3339_parse(exp, expiry, NULL, 0))
		snprintf(why, whylen, "status.expirationTimestamp: '%s' is not an RFC 3339 time",
			 exp);
	else if (!(*token = strdup(tok)))
		ret = -ENOMEM;
	else
		ret = 0;
	json_decref(doc);
	return ret;
}

/* ------------------------------------------------------------ the cache */

int kube_exec_token_init(struct kube_exec_token *t)
{
	memset(t, 0, sizeof(*t));
	return -pthread_mutex_init(&t->lock, NULL);
}

void kube_exec_token_release(struct kube_exec_token *t)
{
	kube_free_secret(t->token);
	t->token = NULL;
	pthread_mutex_destroy(&t->lock);
}

int kube_exec_token_get(struct kube_exec_token *t, const struct kube_exec_config *x,
			const struct kube_config *cfg, bool force, char **out,
			struct kube_error *err)
{
	int ret = 0;
	*out = NULL;
	pthread_mutex_lock(&t->lock);
	time_t now = time(NULL);
	bool fresh = t->token && !force && (!t->expiry || t->expiry - EXPIRY_MARGIN_S > now);
	if (!fresh) {
		char *text = NULL, *tok = NULL, why[256];
		size_t len = 0;
		time_t expiry = 0;
		ret = run_plugin(x, cfg, &text, &len, err);
		if (!ret) {
			ret = kube_exec_credential_parse(text, len, x->api_version, &tok, &expiry,
							 why, sizeof(why));
			if (ret == -EINVAL)
				kube_errorf(err, ret, "exec plugin '%s': its output: %s",
					    x->command, why);
		}
		if (text)
			kube_free_secret(text);
		if (!ret) {
			kube_free_secret(t->token);
			t->token = tok;
			t->expiry = expiry;
			t->runs++;
			sb_debug("Ran exec credential plugin", "command=%s expires=%lld runs=%lu",
				 x->command, (long long)expiry, t->runs);
		}
	}
	if (!ret && !(*out = strdup(t->token)))
		ret = -ENOMEM;
	pthread_mutex_unlock(&t->lock);
	return ret;
}
