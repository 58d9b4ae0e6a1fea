/* SPDX-License-Identifier: MIT */
/* lib/kube configuration: kubeconfig parsing (and its errors, naming the
 * field), in-cluster configuration with a fake root, the loading order. */
#include "tests/unit/harness.h"
#include "time/rfc3339.h"
#include "kube/internal.h"
#include "core/log.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];
static char cert_pem[2048], key_pem[2048], cert_b64[3072], key_b64[3072];

static int write_file(const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void b64(const char *in, char *out, size_t cap)
{
	size_t n = strlen(in);
	if ((n + 2) / 3 * 4 + 1 > cap) {
		out[0] = '\0';
		return;
	}
	EVP_EncodeBlock((unsigned char *)out, (const unsigned char *)in, (int)n);
}

/* A self-signed EC certificate and its key, in PEM, made once. */
static int make_material(void)
{
	if (dir[0])
		return 0;
	snprintf(dir, sizeof(dir), "/tmp/kubecfgXXXXXX");
	if (!mkdtemp(dir))
		return -1;
	EVP_PKEY *k = EVP_EC_gen("P-256");
	X509 *x = X509_new();
	if (!k || !x)
		return -1;
	ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
	X509_gmtime_adj(X509_getm_notBefore(x), 0);
	X509_gmtime_adj(X509_getm_notAfter(x), 3600);
	X509_set_pubkey(x, k);
	X509_NAME *nm = X509_get_subject_name(x);
	X509_NAME_add_entry_by_txt(nm, "CN", MBSTRING_ASC, (const unsigned char *)"test", -1, -1,
				   0);
	X509_set_issuer_name(x, nm);
	if (!X509_sign(x, k, EVP_sha256()))
		return -1;
	BIO *b = BIO_new(BIO_s_mem());
	PEM_write_bio_X509(b, x);
	int n = BIO_read(b, cert_pem, sizeof(cert_pem) - 1);
	cert_pem[n > 0 ? n : 0] = '\0';
	BIO_free(b);
	b = BIO_new(BIO_s_mem());
	PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL);
	n = BIO_read(b, key_pem, sizeof(key_pem) - 1);
	key_pem[n > 0 ? n : 0] = '\0';
	BIO_free(b);
	X509_free(x);
	EVP_PKEY_free(k);
	b64(cert_pem, cert_b64, sizeof(cert_b64));
	b64(key_pem, key_b64, sizeof(key_b64));
	if (write_file("ca.crt", cert_pem) || write_file("client.crt", cert_pem) ||
	    write_file("client.key", key_pem) || write_file("token", "file-token\n"))
		return -1;
	return 0;
}

/* Writes a kubeconfig whose current context uses cluster_body and user_body
 * (YAML fragments indented for their place). */
static int write_kubeconfig(const char *name, const char *cluster_body, const char *user_body,
			    const char *ctx_extra)
{
	char text[32768];
	snprintf(text, sizeof(text),
		 "apiVersion: v1\n"
		 "kind: Config\n"
		 "clusters:\n"
		 "- name: other\n"
		 "  cluster:\n"
		 "    server: https://other:1\n"
		 "- name: c1\n"
		 "  cluster:\n%s"
		 "contexts:\n"
		 "- name: ctx\n"
		 "  context:\n"
		 "    cluster: c1\n"
		 "    user: u1\n%s"
		 "current-context: ctx\n"
		 "users:\n"
		 "- name: u0\n"
		 "  user:\n"
		 "    token: nope\n"
		 "- name: u1\n"
		 "  user:\n%s",
		 cluster_body, ctx_extra ? ctx_extra : "", user_body);
	return write_file(name, text);
}

/* mkdir -p of dir/name. */
static int mkdir_p(const char *name)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (char *p = path + strlen(dir) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(path, 0700) && errno != EEXIST ? -1 : 0;
}

static int path_of(const char *name, char *buf, size_t size)
{
	return snprintf(buf, size, "%s/%s", dir, name);
}

static int test_token_and_ca_data(void)
{
	char cl[8192], path[256];
	struct kube_config cfg;
	struct kube_error err;
	CHECK_INT(make_material(), 0);
	snprintf(cl, sizeof(cl),
		 "    server: https://127.0.2.1:443/\n"
		 "    certificate-authority-data: %s\n",
		 cert_b64);
	CHECK_INT(
		write_kubeconfig("kc-token", cl, "    token: abc.def\n", "    namespace: bench\n"),
		0);
	path_of("kc-token", path, sizeof(path));
	CHECK_INT(kube_config_load_file(&cfg, path, &err), 0);
	CHECK_STR(cfg.server, "https://127.0.2.1:443"); /* trailing '/' dropped */
	CHECK_STR(cfg.token, "abc.def");
	CHECK(cfg.token_file == NULL);
	CHECK_STR(cfg.namespace, "bench");
	CHECK_STR(cfg.source, path);
	CHECK(cfg.ca_pem != NULL);
	CHECK_INT(cfg.ca_pem_len, strlen(cert_pem));
	CHECK(memcmp(cfg.ca_pem, cert_pem, cfg.ca_pem_len) == 0);
	CHECK(!cfg.insecure);
	CHECK(cfg.cert_pem == NULL && cfg.key_pem == NULL);
	kube_config_release(&cfg);
	CHECK(cfg.server == NULL);
	return T_PASS;
}

static int test_client_cert_data(void)
{
	char user[16384], path[256];
	struct kube_config cfg;
	struct kube_error err;
	CHECK_INT(make_material(), 0);
	snprintf(user, sizeof(user),
		 "    client-certificate-data: %s\n"
		 "    client-key-data: %s\n",
		 cert_b64, key_b64);
	CHECK_INT(write_kubeconfig("kc-cert",
				   "    server: https://h:6443\n"
				   "    certificate-authority: ca.crt\n",
				   user, NULL),
		  0);
	path_of("kc-cert", path, sizeof(path));
	CHECK_INT(kube_config_load_file(&cfg, path, &err), 0);
	CHECK(cfg.cert_pem && strcmp(cfg.cert_pem, cert_pem) == 0);
	CHECK(cfg.key_pem && strcmp(cfg.key_pem, key_pem) == 0);
	/* The CA file is relative to the kubeconfig's directory. */
	CHECK(cfg.ca_pem && strcmp(cfg.ca_pem, cert_pem) == 0);
	CHECK(cfg.token == NULL);
	CHECK_STR(cfg.namespace, "default");
	kube_config_release(&cfg);
	return T_PASS;
}

static int test_cert_files_token_file_insecure(void)
{
	char path[256], tok[256];
	struct kube_config cfg;
	struct kube_error err;
	CHECK_INT(make_material(), 0);
	CHECK_INT(write_kubeconfig("kc-files",
				   "    server: https://h:6443\n"
				   "    insecure-skip-tls-verify: true\n",
				   "    client-certificate: client.crt\n"
				   "    client-key: client.key\n"
				   "    tokenFile: token\n",
				   NULL),
		  0);
	path_of("kc-files", path, sizeof(path));
	path_of("token", tok, sizeof(tok));
	sb_log_set_level(SB_LOG_ERROR); /* the insecure warning is expected */
	int r = kube_config_load_file(&cfg, path, &err);
	sb_log_set_level(SB_LOG_INFO);
	CHECK_INT(r, 0);
	CHECK(cfg.insecure);
	CHECK(cfg.ca_pem == NULL);
	CHECK(cfg.cert_pem && cfg.key_pem);
	CHECK_STR(cfg.token_file, tok);
	CHECK(cfg.token == NULL);
	kube_config_release(&cfg);
	return T_PASS;
}

/* Loads a kubeconfig expected to fail; checks errno and the message. */
static int expect_error(const char *cluster, const char *user, int want, const char *msg)
{
	char path[256], full[600];
	struct kube_config cfg;
	struct kube_error err;
	if (write_kubeconfig("kc-bad", cluster, user, NULL))
		return T_FAIL;
	path_of("kc-bad", path, sizeof(path));
	CHECK_INT(kube_config_load_file(&cfg, path, &err), want);
	snprintf(full, sizeof(full), "kubeconfig '%s': %s", path, msg);
	CHECK_STR(err.message, full);
	CHECK(cfg.server == NULL); /* nothing half-filled is left */
	return T_PASS;
}

static int test_malformed_names_field(void)
{
	CHECK_INT(make_material(), 0);
	const char *srv = "    server: https://h\n";
	int r;
	if ((r = expect_error(srv, "    client-certificate-data: '!!notbase64'\n", -EINVAL,
			      "users[1].user.client-certificate-data: not valid base64")))
		return r;
	if ((r = expect_error(srv, "    client-certificate-data: aGVsbG8=\n", -EINVAL,
			      "users[1].user.client-certificate-data: not a PEM certificate")))
		return r;
	if ((r = expect_error("    certificate-authority-data: aGVsbG8=\n", "    token: t\n",
			      -EINVAL, "clusters[1].cluster.server: missing")))
		return r;
	if ((r = expect_error("    server: ftp://h\n", "    token: t\n", -EINVAL,
			      "clusters[1].cluster.server: 'ftp://h' is not an http(s) URL")))
		return r;
	if ((r = expect_error("    server: https://h\n    insecure-skip-tls-verify: maybe\n",
			      "    token: t\n", -EINVAL,
			      "clusters[1].cluster.insecure-skip-tls-verify: 'maybe' is not a "
			      "boolean")))
		return r;
	if ((r = expect_error(srv, "    token: [a, b]\n", -EINVAL,
			      "users[1].user.token: expected a string")))
		return r;
	if ((r = expect_error(srv, "    auth-provider:\n      name: gcp\n", -ENOTSUP,
			      "users[1].user.auth-provider: not supported (use a token or a "
			      "client certificate)")))
		return r;
	/* exec plugins: each field checked */
	static const struct {
		const char *user;
		int want;
		const char *msg;
	} ex[] = {
		{"    exec:\n      command: aws\n", -EINVAL,
		 "users[1].user.exec.apiVersion: missing"},
		{"    exec:\n      apiVersion: client.authentication.k8s.io/v1\n", -EINVAL,
		 "users[1].user.exec.command: missing"},
		{"    exec:\n      command: aws\n      apiVersion: client.authentication.k8s.io/"
		 "v1alpha1\n",
		 -EINVAL,
		 "users[1].user.exec.apiVersion: 'client.authentication.k8s.io/v1alpha1' is not "
		 "client.authentication.k8s.io/v1 or v1beta1"},
		{"    exec:\n      command: aws\n      apiVersion: "
		 "client.authentication.k8s.io/v1\n"
		 "      interactiveMode: Always\n",
		 -ENOTSUP,
		 "users[1].user.exec.interactiveMode: 'Always' is not supported (plugins run "
		 "without a terminal: Never or IfAvailable)"},
		{"    exec:\n      command: aws\n      apiVersion: "
		 "client.authentication.k8s.io/v1\n"
		 "      args: eks\n",
		 -EINVAL, "users[1].user.exec.args: expected a list"},
		{"    exec:\n      command: aws\n      apiVersion: "
		 "client.authentication.k8s.io/v1\n"
		 "      env:\n      - value: x\n",
		 -EINVAL, "users[1].user.exec.env[0].name: missing or not a variable name"},
		{"    token: t\n    exec:\n      command: aws\n      apiVersion: "
		 "client.authentication.k8s.io/v1\n",
		 -EINVAL, "users[1].user.exec: a token is set too: use one of them"},
	};
	for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++)
		if ((r = expect_error(srv, ex[i].user, ex[i].want, ex[i].msg)))
			return r;
	char user[9000];
	snprintf(user, sizeof(user), "    client-certificate-data: %s\n", cert_b64);
	if ((r = expect_error(srv, user, -EINVAL,
			      "users[1].user.client-key: missing (the client certificate is "
			      "set)")))
		return r;
	return T_PASS;
}

static int test_malformed_structure(void)
{
	char path[256];
	struct kube_config cfg;
	struct kube_error err;
	CHECK_INT(make_material(), 0);
	path_of("kc-struct", path, sizeof(path));

	CHECK_INT(write_file("kc-struct", "clusters: [\n"), 0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), -EINVAL);
	CHECK(strstr(err.message, "line ") != NULL); /* libyaml's position */

	CHECK_INT(write_file("kc-struct", "apiVersion: v1\nclusters: []\n"), 0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), -EINVAL);
	CHECK(strstr(err.message, "': current-context: not set") != NULL);

	CHECK_INT(write_file("kc-struct", "current-context: x\ncontexts:\n- name: y\n"), 0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), -EINVAL);
	CHECK(strstr(err.message, "': contexts: no entry named 'x'") != NULL);

	CHECK_INT(write_file("kc-struct", "current-context: x\ncontexts: {a: b}\n"), 0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), -EINVAL);
	CHECK(strstr(err.message, "': contexts: expected a list") != NULL);

	CHECK_INT(write_file("kc-struct", "current-context: x\ncontexts:\n- name: x\n"
					  "  context: {cluster: c}\nclusters:\n- name: c\n"
					  "  cluster: [1]\n"),
		  0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), -EINVAL);
	CHECK(strstr(err.message, "': clusters[0]: cluster: expected a mapping") != NULL);

	CHECK_INT(write_file("kc-struct", ""), 0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), -EINVAL);
	CHECK(strstr(err.message, "empty file") != NULL);

	char missing[300];
	path_of("does-not-exist", missing, sizeof(missing));
	CHECK_INT(kube_config_load_file(&cfg, missing, &err), -ENOENT);
	CHECK(strstr(err.message, "does-not-exist") != NULL);

	/* A missing CA file names the field and the path. */
	CHECK_INT(write_kubeconfig("kc-struct",
				   "    server: https://h\n"
				   "    certificate-authority: nope.crt\n",
				   "    token: t\n", NULL),
		  0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), -EINVAL);
	CHECK(strstr(err.message, "clusters[1].cluster.certificate-authority: cannot read '") !=
	      NULL);
	CHECK(strstr(err.message, "/nope.crt': No such file or directory") != NULL);
	return T_PASS;
}

/* Sets up <dir>/root/var/run/secrets/kubernetes.io/serviceaccount/. */
static int make_sa_root(char *root, size_t size, bool with_ns)
{
	char p[512];
	snprintf(root, size, "%s/root", dir);
	const char *parts[] = {"",
			       "/var",
			       "/var/run",
			       "/var/run/secrets",
			       "/var/run/secrets/kubernetes.io",
			       "/var/run/secrets/kubernetes.io/serviceaccount"};
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", root, parts[i]);
		if (mkdir(p, 0700) && errno != EEXIST)
			return -1;
	}
	if (write_file("root/var/run/secrets/kubernetes.io/serviceaccount/token", "sa-token\n") ||
	    write_file("root/var/run/secrets/kubernetes.io/serviceaccount/ca.crt", cert_pem))
		return -1;
	snprintf(p, sizeof(p), "%s/var/run/secrets/kubernetes.io/serviceaccount/namespace", root);
	if (with_ns)
		return write_file("root/var/run/secrets/kubernetes.io/serviceaccount/namespace",
				  "team-a\n");
	unlink(p);
	return 0;
}

static int test_in_cluster(void)
{
	char root[256], tok[400];
	struct kube_config cfg;
	struct kube_error err;
	CHECK_INT(make_material(), 0);
	CHECK_INT(make_sa_root(root, sizeof(root), true), 0);
	setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);
	CHECK_INT(kube_config_load_in_cluster(&cfg, root, &err), 0);
	CHECK_STR(cfg.server, "https://10.96.0.1:443");
	snprintf(tok, sizeof(tok), "%s/var/run/secrets/kubernetes.io/serviceaccount/token", root);
	CHECK_STR(cfg.token_file, tok);
	CHECK_STR(cfg.namespace, "team-a");
	CHECK_STR(cfg.source, "in-cluster");
	CHECK(cfg.ca_pem && strcmp(cfg.ca_pem, cert_pem) == 0);
	kube_config_release(&cfg);

	/* IPv6 host in brackets; no namespace file: "default". */
	CHECK_INT(make_sa_root(root, sizeof(root), false), 0);
	setenv("KUBERNETES_SERVICE_HOST", "fd00:10:96::1", 1);
	setenv("KUBERNETES_SERVICE_PORT", "6443", 1);
	CHECK_INT(kube_config_load_in_cluster(&cfg, root, &err), 0);
	CHECK_STR(cfg.server, "https://[fd00:10:96::1]:6443");
	CHECK_STR(cfg.namespace, "default");
	kube_config_release(&cfg);

	setenv("KUBERNETES_SERVICE_PORT", "https", 1);
	CHECK_INT(kube_config_load_in_cluster(&cfg, root, &err), -EINVAL);
	CHECK(strstr(err.message, "KUBERNETES_SERVICE_PORT") != NULL);

	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
	CHECK_INT(kube_config_load_in_cluster(&cfg, root, &err), -ENOENT);
	return T_PASS;
}

static int test_load_order(void)
{
	char root[256], explicit_path[256], env_path[256], home[256], p[300];
	struct kube_config cfg;
	struct kube_error err;
	CHECK_INT(make_material(), 0);
	CHECK_INT(make_sa_root(root, sizeof(root), true), 0);
	CHECK_INT(write_kubeconfig("kc-explicit", "    server: https://explicit\n",
				   "    token: t\n", NULL),
		  0);
	CHECK_INT(write_kubeconfig("kc-env", "    server: https://env\n", "    token: t\n", NULL),
		  0);
	path_of("kc-explicit", explicit_path, sizeof(explicit_path));
	path_of("kc-env", env_path, sizeof(env_path));
	snprintf(home, sizeof(home), "%s/home", dir);
	mkdir(home, 0700);
	snprintf(p, sizeof(p), "%s/.kube", home);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/home/.kube/config", dir);
	unlink(p);
	char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	setenv("HOME", home, 1);

	char envlist[600];
	snprintf(envlist, sizeof(envlist), "%s:/nonexistent/second", env_path);
	setenv("KUBECONFIG", envlist, 1);
	setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);

	int r = T_FAIL;
	/* 1. the explicit path wins */
	if (kube_config_load(&cfg, explicit_path, root, &err) != 0 ||
	    strcmp(cfg.server, "https://explicit") != 0)
		goto out;
	kube_config_release(&cfg);
	/* 2. then the first file of KUBECONFIG */
	if (kube_config_load(&cfg, NULL, root, &err) != 0 || strcmp(cfg.server, "https://env"))
		goto out;
	kube_config_release(&cfg);
	/* 3. then in-cluster */
	unsetenv("KUBECONFIG");
	if (kube_config_load(&cfg, NULL, root, &err) != 0 ||
	    strcmp(cfg.server, "https://10.0.0.1:443"))
		goto out;
	kube_config_release(&cfg);
	/* 4. then ~/.kube/config */
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
	if (kube_config_load(&cfg, NULL, root, &err) != -ENOENT)
		goto out;
	if (write_kubeconfig("home/.kube/config", "    server: https://home\n", "    token: t\n",
			     NULL))
		goto out;
	if (kube_config_load(&cfg, NULL, root, &err) != 0 || strcmp(cfg.server, "https://home"))
		goto out;
	kube_config_release(&cfg);
	r = T_PASS;
out:
	if (r != T_PASS)
		fprintf(stderr, "    load order failed: %s\n", err.message);
	kube_config_release(&cfg);
	if (old_home)
		setenv("HOME", old_home, 1);
	free(old_home);
	unsetenv("KUBECONFIG");
	return r;
}

/* An exec user: the plugin's command, args, env and the rest, as written. */
static int test_exec_user(void)
{
	char path[256];
	struct kube_config cfg;
	struct kube_error err;
	CHECK_INT(make_material(), 0);
	CHECK_INT(write_kubeconfig("kc-exec", "    server: https://eks.example:443\n",
				   "    exec:\n"
				   "      apiVersion: client.authentication.k8s.io/v1beta1\n"
				   "      command: aws\n"
				   "      args: [eks, get-token, --cluster-name, prod]\n"
				   "      env:\n"
				   "      - {name: AWS_PROFILE, value: platform}\n"
				   "      - {name: EMPTY}\n"
				   "      installHint: install the AWS CLI\n"
				   "      provideClusterInfo: true\n"
				   "      interactiveMode: IfAvailable\n",
				   NULL),
		  0);
	path_of("kc-exec", path, sizeof(path));
	CHECK_INT(kube_config_load_file(&cfg, path, &err), 0);
	CHECK(cfg.exec != NULL && cfg.token == NULL);
	CHECK_STR(cfg.exec->command, "aws");
	CHECK_INT(cfg.exec->nargs, 4);
	CHECK_STR(cfg.exec->args[1], "get-token");
	CHECK_STR(cfg.exec->args[3], "prod");
	CHECK_INT(cfg.exec->nenv, 2);
	CHECK_STR(cfg.exec->env[0], "AWS_PROFILE=platform");
	CHECK_STR(cfg.exec->env[1], "EMPTY=");
	CHECK_STR(cfg.exec->api_version, "client.authentication.k8s.io/v1beta1");
	CHECK_STR(cfg.exec->install_hint, "install the AWS CLI");
	CHECK(cfg.exec->provide_cluster_info);
	/* the client keeps its own copy */
	struct kube_client *c = kube_client_new(&cfg, NULL, &err);
	kube_config_release(&cfg);
	CHECK(c != NULL);
	kube_client_free(c);
	return T_PASS;
}

/* ExecCredential output and RFC 3339 times. */
static int test_exec_credential_parse(void)
{
	const char *v1 = "client.authentication.k8s.io/v1";
	char *tok = NULL, why[256];
	time_t exp, t;
	const char *ok = "{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":"
			 "\"ExecCredential\",\"status\":{\"token\":\"k8s-aws-v1.x\","
			 "\"expirationTimestamp\":\"2026-11-30T22:15:00Z\"}}";
	CHECK_INT(kube_exec_credential_parse(ok, strlen(ok), v1, &tok, &exp, why, sizeof(why)), 0);
	CHECK_STR(tok, "k8s-aws-v1.x");
	CHECK_INT(exp, 1796076900);
	kube_free_secret(tok);
	CHECK_INT(kube_exec_credential_parse(ok, strlen(ok), "client.authentication.k8s.io/v1beta1",
					     &tok, &exp, why, sizeof(why)),
		  -EINVAL);
	CHECK(strstr(why, "apiVersion: 'client.authentication.k8s.io/v1' is not the") != NULL);
	const char *cert = "{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":"
			   "\"ExecCredential\",\"status\":{\"clientCertificateData\":\"x\"}}";
	CHECK_INT(kube_exec_credential_parse(cert, strlen(cert), v1, &tok, &exp, why, sizeof(why)),
		  -EINVAL);
	CHECK(strstr(why, "client certificates from exec plugins are not supported") != NULL);
	CHECK_INT(kube_exec_credential_parse("nope", 4, v1, &tok, &exp, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "not JSON") != NULL);
	CHECK_INT(tok == NULL, 1);
	CHECK_INT(sb_rfc3339_parse("2026-11-30T23:15:00.123456+01:00", &t, NULL, 0), 0);
	CHECK_INT(t, 1796076900);
	CHECK_INT(sb_rfc3339_parse("2026-11-30T22:15:00", &t, NULL, 0), -EINVAL);
	CHECK_INT(sb_rfc3339_parse("2026-11-30T22:15:00Zjunk", &t, NULL, 0), -EINVAL);
	return T_PASS;
}

/* A KUBECONFIG list is merged as client-go merges it. */
static int test_kubeconfig_list_merged(void)
{
	struct kube_config cfg = KUBE_CONFIG_INIT;
	struct kube_error err;
	char a[256], b[256], c[256], bad[256], list[1200], want[300];
	CHECK_INT(make_material(), 0);
	CHECK_INT(mkdir_p("merge/sub"), 0);
	/* a: names the current context and holds cluster c1 (the first wins) */
	CHECK_INT(write_file("merge/a", "current-context: ctx-b\n"
					"clusters:\n"
					"- name: c1\n"
					"  cluster:\n"
					"    server: https://from-a\n"
					"contexts:\n"
					"- name: ctx-a\n"
					"  context: {cluster: c1, user: ua}\n"),
		  0);
	/* b: its own current-context loses to a's; defines ctx-b and c1 again */
	CHECK_INT(write_file("merge/b", "current-context: ctx-a\n"
					"clusters:\n"
					"- name: c1\n"
					"  cluster:\n"
					"    server: https://from-b\n"
					"contexts:\n"
					"- name: ctx-b\n"
					"  context: {cluster: c1, user: uc, namespace: team-b}\n"),
		  0);
	/* c, in another directory: the user, with a token file relative to c */
	CHECK_INT(write_file("merge/sub/c", "users:\n"
					    "- name: uc\n"
					    "  user:\n"
					    "    tokenFile: tok\n"),
		  0);
	CHECK_INT(write_file("merge/sub/tok", "merged-token\n"), 0);
	CHECK_INT(write_file("merge/bad", "clusters: [\n"), 0);
	path_of("merge/a", a, sizeof(a));
	path_of("merge/b", b, sizeof(b));
	path_of("merge/sub/c", c, sizeof(c));
	path_of("merge/bad", bad, sizeof(bad));

	/* a file that does not exist is passed over, empty entries too */
	snprintf(list, sizeof(list), "%s::%s/merge/none:%s:%s", a, dir, b, c);
	setenv("KUBECONFIG", list, 1);
	int r = kube_config_load(&cfg, NULL, "/nonexistent-root", &err);
	unsetenv("KUBECONFIG");
	CHECK_INT(r, 0);
	CHECK_STR(cfg.server, "https://from-a");
	CHECK_STR(cfg.namespace, "team-b");
	snprintf(want, sizeof(want), "%s/merge/sub/tok", dir);
	CHECK_STR(cfg.token_file, want);
	CHECK_STR(cfg.source, list);
	kube_config_release(&cfg);

	/* --context: another context than current-context, from any file */
	snprintf(list, sizeof(list), "%s:%s", b, c);
	setenv("KUBECONFIG", list, 1);
	r = kube_config_load(&cfg, NULL, "/nonexistent-root", &err);
	CHECK_INT(r, -EINVAL); /* b's current-context ctx-a is nowhere */
	r = kube_config_load_context(&cfg, NULL, "ctx-b", "/nonexistent-root", &err);
	unsetenv("KUBECONFIG");
	CHECK_INT(r, 0);
	CHECK_STR(cfg.server, "https://from-b");
	CHECK_STR(cfg.namespace, "team-b");
	kube_config_release(&cfg);
	snprintf(list, sizeof(list), "%s:%s:%s", a, b, c);
	setenv("KUBECONFIG", list, 1);
	r = kube_config_load_context(&cfg, NULL, "ctx-a", "/nonexistent-root", &err);
	unsetenv("KUBECONFIG");
	CHECK_INT(r, -EINVAL); /* ctx-a's user ua is nowhere */
	CHECK(strstr(err.message, "users: no entry named 'ua' in any file of KUBECONFIG"));
	r = kube_config_load_context(&cfg, a, "ctx-a", "/nonexistent-root", &err);
	CHECK_INT(r, -EINVAL);
	CHECK(strstr(err.message, "users: missing (looking for 'ua')"));
	r = kube_config_load_context(&cfg, b, "ctx-b", "/nonexistent-root", &err);
	CHECK_INT(r, -EINVAL);
	CHECK(strstr(err.message, "users: missing (looking for 'uc')"));
	r = kube_config_load_context(&cfg, b, "nope", "/nonexistent-root", &err);
	CHECK_INT(r, -EINVAL);
	CHECK(strstr(err.message, "contexts: no entry named 'nope'"));

	/* a name no file defines: the error says so */
	snprintf(list, sizeof(list), "%s:%s", a, c);
	setenv("KUBECONFIG", list, 1);
	r = kube_config_load(&cfg, NULL, "/nonexistent-root", &err);
	CHECK_INT(r, -EINVAL);
	CHECK(strstr(err.message, "contexts: no entry named 'ctx-b' in any file of KUBECONFIG"));

	/* a malformed file is named, even when another has everything */
	snprintf(list, sizeof(list), "%s:%s:%s:%s", a, b, bad, c);
	setenv("KUBECONFIG", list, 1);
	r = kube_config_load(&cfg, NULL, "/nonexistent-root", &err);
	CHECK_INT(r, -EINVAL);
	CHECK(strstr(err.message, bad) != NULL);
	CHECK(strstr(err.message, "line ") != NULL);

	/* none of the files exists */
	snprintf(list, sizeof(list), "%s/merge/x:%s/merge/y", dir, dir);
	setenv("KUBECONFIG", list, 1);
	r = kube_config_load(&cfg, NULL, "/nonexistent-root", &err);
	unsetenv("KUBECONFIG");
	CHECK_INT(r, -ENOENT);
	CHECK(strstr(err.message, "none of its files exists") != NULL);
	return T_PASS;
}

static int test_client_new(void)
{
	struct kube_config cfg = KUBE_CONFIG_INIT;
	struct kube_error err;
	CHECK(kube_client_new(&cfg, NULL, &err) == NULL);
	CHECK(strstr(err.message, "no server") != NULL);
	cfg.server = strdup("https://h:1");
	struct kube_client *c = kube_client_new(&cfg, NULL, &err);
	kube_config_release(&cfg);
	CHECK(c != NULL);
	CHECK_STR(kube_client_namespace(c), "default");
	struct kube_client_stats st;
	kube_client_stats(c, &st);
	CHECK_INT(st.requests, 0);
	kube_client_free(c);
	kube_client_free(NULL);
	return T_PASS;
}

/* Writes text of n bytes to name; 0 or -1. */
static int write_big(const char *name, const char *text, size_t n)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	size_t w = fwrite(text, 1, n, f);
	return fclose(f) || w != n ? -1 : 0;
}

/*
 * Issue 15 bugs 9 and 10: hostile kubeconfigs are refused early with a
 * message (deep nesting, alias bombs, NUL in a token); a key given twice is
 * read as kubectl reads it (the last one).
 */
static int test_hostile_kubeconfigs(void)
{
	char path[256];
	struct kube_config cfg;
	struct kube_error err;
	CHECK_INT(make_material(), 0);
	path_of("kc-hostile", path, sizeof(path));

	/* 1 MB of '[': refused at the 65th level, in no time */
	size_t n = 1 << 20;
	char *t = malloc(n);
	CHECK(t != NULL);
	memset(t, '[', n);
	int w = write_big("kc-hostile", t, n);
	free(t);
	CHECK_INT(w, 0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), -EINVAL);
	CHECK(strstr(err.message, "line 1: nested deeper than 64 levels") != NULL);

	/* a billion-laughs style alias bomb: each level doubles the one before */
	char bomb[8192];
	size_t bl = (size_t)snprintf(bomb, sizeof(bomb), "a0: &a0 \"%0200d\"\n", 0);
	for (int i = 1; i < 20; i++)
		bl += (size_t)snprintf(bomb + bl, sizeof(bomb) - bl,
				       "a%d: &a%d [*a%d, *a%d, *a%d, *a%d]\n", i, i, i - 1, i - 1,
				       i - 1, i - 1);
	CHECK_INT(write_big("kc-hostile", bomb, bl), 0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), -EINVAL);
	CHECK(strstr(err.message, "aliases expand to more than 1048576 bytes") != NULL);

	/* a few small aliases are fine (the file then fails for what it lacks) */
	CHECK_INT(write_file("kc-hostile", "x: &s hello\ny: *s\n"), 0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), -EINVAL);
	CHECK(strstr(err.message, "current-context: not set") != NULL);

	/* "\0" in a token: refused, not cut */
	CHECK_INT(write_kubeconfig("kc-hostile", "    server: https://127.0.2.1:443\n",
				   "    token: \"abc\\0def\"\n", NULL),
		  0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), -EINVAL);
	CHECK(strstr(err.message, "token: contains a NUL character") != NULL);

	/* a duplicate key: the last wins, as kubectl */
	CHECK_INT(write_kubeconfig("kc-hostile", "    server: https://127.0.2.1:443\n",
				   "    token: first\n    token: second\n", NULL),
		  0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), 0);
	CHECK_STR(cfg.token, "second");
	kube_config_release(&cfg);
	return T_PASS;
}

/*
 * YAML merge keys, as kubectl reads them: "<<: *anchor" and "<<: [*a, *b]"
 * bring in the keys of those mappings; the mapping's own keys win wherever
 * the "<<" stands; in a list, the first mapping that has the key wins. The
 * alias limits still count the aliases a merge uses; a merge of a scalar and
 * merges nested too deep are refused with the line.
 */
static int test_merge_keys(void)
{
	char path[256], big[16384];
	struct kube_config cfg;
	struct kube_error err;
	CHECK_INT(make_material(), 0);
	path_of("kc-merge", path, sizeof(path));

	CHECK_INT(write_file("kc-merge", "apiVersion: v1\n"
					 "kind: Config\n"
					 "base: &base {server: \"https://127.0.2.9:443\", "
					 "insecure-skip-tls-verify: true}\n"
					 "ns: &ns {namespace: merged-ns}\n"
					 "other: &other {namespace: not-this, cluster: nope}\n"
					 "creds: &creds {token: from-anchor}\n"
					 "clusters:\n"
					 "- name: c1\n"
					 "  cluster:\n"
					 "    server: https://127.0.2.1:443\n"
					 "    <<: *base\n" /* the mapping's own server wins */
					 "contexts:\n"
					 "- name: ctx\n"
					 "  context:\n"
					 "    <<: [*ns, *other]\n" /* the first in the list wins */
					 "    user: u1\n"
					 "    cluster: c1\n"
					 "current-context: ctx\n"
					 "users:\n"
					 "- &u1 {name: u1, user: {<<: *creds}}\n"
					 "- {<<: *u1, name: u2}\n"),
		  0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), 0);
	CHECK_STR(cfg.server, "https://127.0.2.1:443");
	CHECK(cfg.insecure); /* from the merged mapping */
	CHECK_STR(cfg.namespace, "merged-ns");
	CHECK_STR(cfg.token, "from-anchor");
	kube_config_release(&cfg);

	/* a merged key overridden by the mapping's own, written after it or before */
	CHECK_INT(write_kubeconfig("kc-merge", "    server: https://127.0.2.1:443\n",
				   "    <<: {token: merged}\n    token: own\n", NULL),
		  0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), 0);
	CHECK_STR(cfg.token, "own");
	kube_config_release(&cfg);
	CHECK_INT(write_kubeconfig("kc-merge", "    <<: {server: https://127.0.2.7:443}\n",
				   "    token: own\n    <<: {token: merged}\n", NULL),
		  0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), 0);
	CHECK_STR(cfg.token, "own");
	CHECK_STR(cfg.server, "https://127.0.2.7:443");
	kube_config_release(&cfg);
	/* a quoted "<<" is an ordinary key, not a merge */
	CHECK_INT(write_kubeconfig("kc-merge", "    \"<<\": {server: https://127.0.2.7:443}\n",
				   "    token: own\n", NULL),
		  0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), -EINVAL);
	CHECK(strstr(err.message, "clusters[1].cluster.server: missing") != NULL);
	/* the merged value is checked like the mapping's own */
	CHECK_INT(write_kubeconfig("kc-merge", "    server: https://127.0.2.1:443\n",
				   "    <<: {token: [1, 2]}\n", NULL),
		  0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), -EINVAL);
	CHECK(strstr(err.message, "users[1].user.token: expected a string") != NULL);

	/* a merge of something that is not a mapping: refused with its line */
	CHECK_INT(write_kubeconfig("kc-merge", "    server: https://127.0.2.1:443\n",
				   "    <<: [{token: a}, oops]\n", NULL),
		  0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), -EINVAL);
	CHECK(strstr(err.message, "line 22: <<: a merge key needs a mapping or a list of "
				  "mappings") != NULL);
	CHECK_INT(write_file("kc-merge", "a: &a x\nb: {<<: *a}\n"), 0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), -EINVAL);
	CHECK(strstr(err.message, "line 1: <<: a merge key needs a mapping") != NULL);

	/* merges of merges: 16 levels are read, 17 refused */
	size_t bl = (size_t)snprintf(big, sizeof(big), "m0: &m0 {token: deep}\n");
	for (int i = 1; i <= 16; i++)
		bl += (size_t)snprintf(big + bl, sizeof(big) - bl, "m%d: &m%d {<<: *m%d}\n", i, i,
				       i - 1);
	(void)snprintf(big + bl, sizeof(big) - bl,
		       "clusters: [{name: c, cluster: {server: \"https://127.0.2.1:443\"}}]\n"
		       "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
		       "current-context: x\n"
		       "users: [{name: u, user: *m16}]\n");
	CHECK_INT(write_file("kc-merge", big), 0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), 0);
	CHECK_STR(cfg.token, "deep");
	kube_config_release(&cfg);
	(void)snprintf(big + bl, sizeof(big) - bl, "m17: &m17 {<<: *m16}\n");
	CHECK_INT(write_file("kc-merge", big), 0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), -EINVAL);
	CHECK(strstr(err.message, "line 18: merge keys (<<) nested deeper than 16 levels") != NULL);

	/* the aliases a merge uses count: the alias bomb through merge keys */
	bl = (size_t)snprintf(big, sizeof(big), "a0: &a0 {k: \"%0200d\"}\n", 0);
	for (int i = 1; i < 20; i++)
		bl += (size_t)snprintf(big + bl, sizeof(big) - bl,
				       "a%d: &a%d {<<: [*a%d, *a%d, *a%d, *a%d]}\n", i, i, i - 1,
				       i - 1, i - 1, i - 1);
	CHECK_INT(write_file("kc-merge", big), 0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), -EINVAL);
	CHECK(strstr(err.message, "aliases expand to more than 1048576 bytes") != NULL);
	/* ... and their number */
	bl = (size_t)snprintf(big, sizeof(big), "a: &a {k: v}\nl:\n");
	for (int i = 0; i < 1025 && bl + 16 < sizeof(big); i++)
		bl += (size_t)snprintf(big + bl, sizeof(big) - bl, "- {<<: *a}\n");
	CHECK_INT(write_file("kc-merge", big), 0);
	CHECK_INT(kube_config_load_file(&cfg, path, &err), -EINVAL);
	CHECK(strstr(err.message, "more than 1024 aliases") != NULL);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"config/hostile-kubeconfigs", test_hostile_kubeconfigs},
	{"config/merge-keys", test_merge_keys},
	{"kube-config/token-and-ca-data", test_token_and_ca_data},
	{"kube-config/client-cert-data", test_client_cert_data},
	{"kube-config/cert-files-token-file-insecure", test_cert_files_token_file_insecure},
	{"kube-config/malformed-names-field", test_malformed_names_field},
	{"kube-config/malformed-structure", test_malformed_structure},
	{"kube-config/in-cluster", test_in_cluster},
	{"kube-config/load-order", test_load_order},
	{"kube-config/kubeconfig-list-merged", test_kubeconfig_list_merged},
	{"kube-config/exec-user", test_exec_user},
	{"kube-config/exec-credential-parse", test_exec_credential_parse},
	{"kube-config/client-new", test_client_new},
};

static void cleanup(void)
{
	if (dir[0]) {
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
	}
}

int main(void)
{
	int r = test_run_all(cases, sizeof(cases) / sizeof(cases[0]));
	cleanup();
	return r;
}
