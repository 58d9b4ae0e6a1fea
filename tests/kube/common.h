/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the lib/kube tests against the real test cluster
 * (tests/cluster). Each tests/kube/test_*.c is one program run inside the
 * cluster's network namespace with build/cluster/env sourced:
 *   KUBECONFIG          admin token + CA
 *   KUBECONFIG_CERT     client certificate/key as -data
 *   KUBECONFIG_PROXY    through the fault proxy (same CA)
 *   CA_CERT             the cluster CA file
 *   PROXY_CONTROL_URL   the proxy's control endpoint (or SB_PROXY_CONTROL)
 * A case skips only when that environment is absent.
 */
#ifndef SB_TESTS_KUBE_COMMON_H
#define SB_TESTS_KUBE_COMMON_H

#include "tests/unit/harness.h"
#include "kube/kube.h"
#include "core/log.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#define KT_NO_CLUSTER "no test cluster: build/cluster/env not sourced (make cluster-up)"

static inline int64_t kt_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline const char *kt_env(const char *name)
{
	const char *v = getenv(name);
	return v && *v && access(v, R_OK) == 0 ? v : NULL;
}

static inline const char *kt_kubeconfig(void)
{
	return kt_env("KUBECONFIG");
}

static inline const char *kt_proxy_kubeconfig(void)
{
	const char *p = kt_env("SB_PROXY_KUBECONFIG");
	return p ? p : kt_env("KUBECONFIG_PROXY");
}

static inline const char *kt_proxy_control(void)
{
	const char *p = getenv("SB_PROXY_CONTROL");
	if (p && *p)
		return p;
	p = getenv("PROXY_CONTROL_URL");
	return p && *p ? p : NULL;
}

/* A client for the kubeconfig at path; NULL with a message on failure. */
static inline struct kube_client *kt_client_opts(const char *path,
						 const struct kube_client_opts *opts)
{
	struct kube_config cfg;
	struct kube_error err;
	char buf[800];
	if (kube_config_load_file(&cfg, path, &err)) {
		fprintf(stderr, "    %s\n", kube_error_str(&err, buf, sizeof(buf)));
		return NULL;
	}
	struct kube_client *c = kube_client_new(&cfg, opts, &err);
	kube_config_release(&cfg);
	if (!c)
		fprintf(stderr, "    %s\n", kube_error_str(&err, buf, sizeof(buf)));
	return c;
}

static inline struct kube_client *kt_client(const char *path)
{
	return kt_client_opts(path, NULL);
}

/*
 * The per-program fixture: one client with the admin kubeconfig and one
 * fresh namespace (prefix-<n>), made on first use. Defines C, NS, setup()
 * (0; -1 no cluster: skip; -2 failed); KT_SETUP() starts a test case.
 */
#define KT_FIXTURE(prefix)                                               \
	static struct kube_client *C;                                    \
	static char NS[64];                                              \
	static int setup(void)                                           \
	{                                                                \
		if (C)                                                   \
			return 0;                                        \
		if (!kt_kubeconfig())                                    \
			return -1;                                       \
		C = kt_client(kt_kubeconfig());                          \
		if (!C)                                                  \
			return -2;                                       \
		return kt_namespace(C, prefix, NS, sizeof(NS)) ? -2 : 0; \
	}

#define KT_SETUP()                           \
	do {                                 \
		int s_ = setup();            \
		if (s_ == -1)                \
			SKIP(KT_NO_CLUSTER); \
		CHECK(s_ == 0);              \
	} while (0)

/* Prints err when ret is not want (helps reading failures). */
static inline int kt_expect(int ret, int want, const struct kube_error *err, int line)
{
	if (ret != want) {
		char buf[800];
		fprintf(stderr, "    line %d: got %d (%s), want %d (%s): %s\n", line, ret,
			strerror(-ret), want, strerror(-want),
			kube_error_str(err, buf, sizeof(buf)));
	}
	return ret == want;
}
#define EXPECT(call, want, errp) CHECK(kt_expect((call), (want), (errp), __LINE__))

static inline const char *kt_meta(const json_t *obj, const char *field)
{
	return json_string_value(json_object_get(json_object_get(obj, "metadata"), field));
}

/* A fresh namespace "<prefix>-<pid>-<n>" (name written to buf). */
static inline int kt_namespace(struct kube_client *c, const char *prefix, char *buf, size_t size)
{
	static int n;
	snprintf(buf, size, "%s-%d-%d", prefix, (int)getpid(), n++);
	json_t *ns =
		json_pack("{s:s, s:s, s:{s:s, s:{s:s}}}", "apiVersion", "v1", "kind", "Namespace",
			  "metadata", "name", buf, "labels", "storagebench.io/test", "kube");
	struct kube_error err;
	int r = kube_create(c, &kube_res_namespaces, NULL, ns, NULL, &err);
	json_decref(ns);
	if (r) {
		char e[800];
		fprintf(stderr, "    cannot create namespace %s: %s\n", buf,
			kube_error_str(&err, e, sizeof(e)));
	}
	return r;
}

static inline void kt_namespace_delete(struct kube_client *c, const char *ns)
{
	(void)kube_delete(c, &kube_res_namespaces, NULL, ns, NULL, NULL, NULL);
}

static inline json_t *kt_configmap(const char *name, const char *key, const char *value)
{
	return json_pack("{s:s, s:s, s:{s:s, s:{s:s}}, s:{s:s}}", "apiVersion", "v1", "kind",
			 "ConfigMap", "metadata", "name", name, "labels", "app", "kt", "data", key,
			 value);
}

static const struct kube_resource kt_res_roles = {"rbac.authorization.k8s.io", "v1", "roles", true};
static const struct kube_resource kt_res_rolebindings = {"rbac.authorization.k8s.io", "v1",
							 "rolebindings", true};

/* A ServiceAccount sa in ns allowed to get/list/watch/create/update
 * configmaps there (Role + RoleBinding). */
static inline int kt_service_account(struct kube_client *c, const char *ns, const char *sa,
				     bool with_rbac)
{
	json_t *o = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "v1", "kind", "ServiceAccount",
			      "metadata", "name", sa);
	int r = kube_create(c, &kube_res_serviceaccounts, ns, o, NULL, NULL);
	json_decref(o);
	if (r || !with_rbac)
		return r;
	o = json_pack("{s:s, s:s, s:{s:s}, s:[{s:[s], s:[s], s:[s,s,s,s,s]}]}", "apiVersion",
		      "rbac.authorization.k8s.io/v1", "kind", "Role", "metadata", "name", sa,
		      "rules", "apiGroups", "", "resources", "configmaps", "verbs", "get", "list",
		      "watch", "create", "update");
	r = kube_create(c, &kt_res_roles, ns, o, NULL, NULL);
	json_decref(o);
	if (r)
		return r;
	o = json_pack("{s:s, s:s, s:{s:s}, s:{s:s, s:s, s:s}, s:[{s:s, s:s, s:s}]}", "apiVersion",
		      "rbac.authorization.k8s.io/v1", "kind", "RoleBinding", "metadata", "name", sa,
		      "roleRef", "apiGroup", "rbac.authorization.k8s.io", "kind", "Role", "name",
		      sa, "subjects", "kind", "ServiceAccount", "name", sa, "namespace", ns);
	r = kube_create(c, &kt_res_rolebindings, ns, o, NULL, NULL);
	json_decref(o);
	return r;
}

/*
 * A bound ServiceAccount token from the TokenRequest API (10 minutes), bound
 * to the Secret bound_secret (name) when not NULL, so deleting that Secret
 * revokes the token. *token is a new string the caller frees.
 */
static inline int kt_sa_token(struct kube_client *c, const char *ns, const char *sa,
			      const char *bound_secret, char **token)
{
	json_t *req, *out = NULL, *sec = NULL;
	struct kube_error err;
	int r;
	*token = NULL;
	req = json_pack("{s:s, s:s, s:{s:I}}", "apiVersion", "authentication.k8s.io/v1", "kind",
			"TokenRequest", "spec", "expirationSeconds", (json_int_t)600);
	if (bound_secret) {
		r = kube_get(c, &kube_res_secrets, ns, bound_secret, &sec, &err);
		if (r) {
			json_decref(req);
			return r;
		}
		json_object_set_new(json_object_get(req, "spec"), "boundObjectRef",
				    json_pack("{s:s, s:s, s:s, s:s}", "apiVersion", "v1", "kind",
					      "Secret", "name", bound_secret, "uid",
					      kt_meta(sec, "uid")));
		json_decref(sec);
	}
	r = kube_create_subresource(c, &kube_res_serviceaccounts, ns, sa, "token", req, &out, &err);
	json_decref(req);
	if (r) {
		char buf[800];
		fprintf(stderr, "    TokenRequest failed: %s\n",
			kube_error_str(&err, buf, sizeof(buf)));
		return r;
	}
	const char *t = json_string_value(json_object_get(json_object_get(out, "status"), "token"));
	*token = t ? strdup(t) : NULL;
	json_decref(out);
	return *token ? 0 : -EPROTO;
}

/* Writes s to path atomically (write a temporary file, rename). */
static inline int kt_write_file(const char *path, const char *s)
{
	char tmp[512];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fputs(s, f);
	if (fclose(f))
		return -EIO;
	return rename(tmp, path) ? -errno : 0;
}

/* ------------------------------------------------------- fault proxy control */

struct kt_buf {
	char *p;
	size_t n;
};

static inline size_t kt_write(char *p, size_t s, size_t n, void *arg)
{
	struct kt_buf *b = arg;
	char *np = realloc(b->p, b->n + s * n + 1);
	if (!np)
		return 0;
	memcpy(np + b->n, p, s * n);
	b->p = np;
	b->n += s * n;
	b->p[b->n] = '\0';
	return s * n;
}

/* method path [body] on the proxy control endpoint; answer JSON in *out
 * (may be NULL). Returns the HTTP code or -1. */
static inline long kt_proxy(const char *method, const char *path, const char *body, json_t **out)
{
	const char *base = kt_proxy_control();
	char url[512];
	struct kt_buf b = {0};
	long code = -1;
	if (out)
		*out = NULL;
	if (!base)
		return -1;
	snprintf(url, sizeof(url), "%s%s", base, path);
	CURL *h = curl_easy_init();
	struct curl_slist *hd = curl_slist_append(NULL, "Content-Type: application/json");
	if (!h || !hd)
		goto out;
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 10L);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hd);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, kt_write);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
	if (body)
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	if (curl_easy_perform(h) == CURLE_OK)
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	if (out && b.p)
		*out = json_loads(b.p, 0, NULL);
out:
	curl_slist_free_all(hd);
	curl_easy_cleanup(h);
	free(b.p);
	return code;
}

static inline int kt_proxy_reset(void)
{
	if (kt_proxy("DELETE", "/rules", NULL, NULL) != 200)
		return -1;
	return kt_proxy("DELETE", "/log", NULL, NULL) == 200 ? 0 : -1;
}

static inline int kt_proxy_rule(const char *json)
{
	long code = kt_proxy("POST", "/rules", json, NULL);
	if (code != 200 && code != 201) {
		fprintf(stderr, "    proxy rule refused (%ld): %s\n", code, json);
		return -1;
	}
	return 0;
}

/* Requests in the proxy log whose path contains needle (and, when
 * action is not NULL, with that action). */
static inline int kt_proxy_count(const char *needle, const char *action)
{
	json_t *log = NULL, *e;
	size_t i;
	int n = 0;
	if (kt_proxy("GET", "/log", NULL, &log) != 200)
		return -1;
	json_array_foreach(log, i, e)
	{
		const char *p = json_string_value(json_object_get(e, "path"));
		const char *a = json_string_value(json_object_get(e, "action"));
		if (p && strstr(p, needle) && (!action || (a && strcmp(a, action) == 0)))
			n++;
	}
	json_decref(log);
	return n;
}

#endif
