/* SPDX-License-Identifier: MIT */
/* lib/kube authentication and TLS against the real API server: kubeconfig
 * variants (token, client certificate -data, CA file, tokenFile), a wrong CA
 * refused, a rotated ServiceAccount token recovered after a 401. */
#include "tests/kube/common.h"

#include <openssl/pem.h>
#include <openssl/x509.h>

static struct kube_client *C;
static char NS[64], DIR_[64];

static int setup(void)
{
	if (C)
		return 0;
	if (!kt_kubeconfig())
		return -1;
	C = kt_client(kt_kubeconfig());
	if (!C)
		return -2;
	snprintf(DIR_, sizeof(DIR_), "/tmp/kt-authXXXXXX");
	if (!mkdtemp(DIR_))
		return -2;
	return kt_namespace(C, "kt-auth", NS, sizeof(NS)) ? -2 : 0;
}

/* GET namespace default with a client of the kubeconfig at path. */
static int get_with(const char *path, int want, struct kube_error *err)
{
	struct kube_config cfg;
	int r = kube_config_load_file(&cfg, path, err);
	if (r)
		return r == want ? 0 : r;
	struct kube_client_opts o = {.max_retries = -1};
	struct kube_client *c = kube_client_new(&cfg, &o, err);
	kube_config_release(&cfg);
	if (!c)
		return -ENOMEM;
	r = kube_get(c, &kube_res_namespaces, NULL, "default", NULL, err);
	kube_client_free(c);
	return kt_expect(r, want, err, __LINE__) ? 0 : (r ? r : -1);
}

/* The admin token from $KUBECONFIG (new string). */
static char *admin_token(void)
{
	struct kube_config cfg;
	if (kube_config_load_file(&cfg, kt_kubeconfig(), NULL))
		return NULL;
	char *t = cfg.token ? strdup(cfg.token) : NULL;
	kube_config_release(&cfg);
	return t;
}

static int write_kc_server(const char *name, const char *server, const char *cluster_extra,
			   const char *user, char *path, size_t size)
{
	char text[8192];
	snprintf(path, size, "%s/%s", DIR_, name);
	snprintf(text, sizeof(text),
		 "apiVersion: v1\nkind: Config\ncurrent-context: t\n"
		 "clusters:\n- name: c\n  cluster:\n    server: %s\n%s"
		 "contexts:\n- name: t\n  context:\n    cluster: c\n    user: u\n"
		 "users:\n- name: u\n  user:\n%s",
		 server, cluster_extra, user);
	return kt_write_file(path, text);
}

static int write_kc(const char *name, const char *cluster_extra, const char *user, char *path,
		    size_t size)
{
	const char *server = getenv("API_URL") ? getenv("API_URL") : "https://127.0.2.1:443";
	return write_kc_server(name, server, cluster_extra, user, path, size);
}

static int test_token_kubeconfig(void)
{
	struct kube_error err;
	KT_SETUP();
	CHECK_INT(get_with(kt_kubeconfig(), 0, &err), 0);
	return T_PASS;
}

static int test_client_cert_data(void)
{
	struct kube_error err;
	struct kube_config cfg;
	KT_SETUP();
	const char *kc = kt_env("KUBECONFIG_CERT");
	CHECK(kc != NULL);
	CHECK_INT(kube_config_load_file(&cfg, kc, &err), 0);
	CHECK(cfg.cert_pem && cfg.key_pem && !cfg.token); /* really certificate auth */
	kube_config_release(&cfg);
	CHECK_INT(get_with(kc, 0, &err), 0);
	return T_PASS;
}

static int test_ca_file_and_token_file(void)
{
	struct kube_error err;
	char path[256], tokpath[256], cl[512], user[512];
	KT_SETUP();
	const char *ca = kt_env("CA_CERT");
	CHECK(ca != NULL);
	char *tok = admin_token();
	CHECK(tok);
	snprintf(tokpath, sizeof(tokpath), "%s/admin-token", DIR_);
	CHECK_INT(kt_write_file(tokpath, tok), 0);
	free(tok);
	snprintf(cl, sizeof(cl), "    certificate-authority: %s\n", ca);
	snprintf(user, sizeof(user), "    tokenFile: admin-token\n"); /* relative */
	CHECK_INT(write_kc("kc-cafile", cl, user, path, sizeof(path)), 0);
	CHECK_INT(get_with(path, 0, &err), 0);
	return T_PASS;
}

static int test_wrong_ca_refused(void)
{
	struct kube_error err;
	char path[256], cl[4096], pem[2048], capath[256];
	KT_SETUP();
	/* A CA that did not sign the server's certificate. */
	EVP_PKEY *k = EVP_EC_gen("P-256");
	X509 *x = X509_new();
	CHECK(k && x);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 7);
	X509_gmtime_adj(X509_getm_notBefore(x), 0);
	X509_gmtime_adj(X509_getm_notAfter(x), 3600);
	X509_set_pubkey(x, k);
	X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
				   (const unsigned char *)"wrong-ca", -1, -1, 0);
	X509_set_issuer_name(x, X509_get_subject_name(x));
	CHECK(X509_sign(x, k, EVP_sha256()) > 0);
	BIO *b = BIO_new(BIO_s_mem());
	PEM_write_bio_X509(b, x);
	int n = BIO_read(b, pem, sizeof(pem) - 1);
	pem[n > 0 ? n : 0] = '\0';
	BIO_free(b);
	X509_free(x);
	EVP_PKEY_free(k);
	snprintf(capath, sizeof(capath), "%s/wrong-ca.crt", DIR_);
	CHECK_INT(kt_write_file(capath, pem), 0);
	char *tok = admin_token();
	CHECK(tok);
	char user[512];
	snprintf(user, sizeof(user), "    token: %s\n", tok);
	free(tok);
	snprintf(cl, sizeof(cl), "    certificate-authority: %s\n", capath);
	CHECK_INT(write_kc("kc-wrongca", cl, user, path, sizeof(path)), 0);
	CHECK_INT(get_with(path, -EIO, &err), 0);
	CHECK_INT(err.http_code, 0);
	CHECK(strstr(err.curl, "certificate") != NULL || strstr(err.curl, "SSL") != NULL);
	/* And with no CA at all, the system store does not know the cluster CA. */
	CHECK_INT(write_kc("kc-noca", "", user, path, sizeof(path)), 0);
	CHECK_INT(get_with(path, -EIO, &err), 0);
	return T_PASS;
}

/* What the rotation case allocates, kept reachable from here so that a
 * failing CHECK leaves no leak report behind; freed by rotated_cleanup(). */
static struct {
	char *t1, *t2;
	struct kube_client *c;
} rot;

static void rotated_cleanup(void)
{
	kube_client_free(rot.c);
	free(rot.t1);
	free(rot.t2);
	memset(&rot, 0, sizeof(rot));
}

/* Requests the proxy logged for the ConfigMap the case reads, by action. */
static int rot_count(const char *action)
{
	return kt_proxy_count("/configmaps/kube-root-ca.crt", action);
}

/*
 * A token file rotated under a client that looks at the file only once a
 * minute: the API server's 401 must make it re-read the file and retry once
 * with the new token. The 401 is the fault proxy's (as the API server would
 * answer a revoked token), so the case does not depend on how soon the
 * server's token cache notices a revocation; the retry goes through to the
 * real server with the token re-read from the file.
 */
static int test_rotated_token_401(void)
{
	struct kube_error err;
	char tokpath[256], kcpath[256], cl[512], user[512];
	const char *proxy = getenv("PROXY_URL");
	KT_SETUP();
	if (!kt_proxy_control())
		SKIP("no fault proxy (PROXY_CONTROL_URL not set)");
	rotated_cleanup();
	CHECK_INT(kt_proxy_reset(), 0);
	CHECK_INT(kt_service_account(C, NS, "rotor", true), 0);
	/* two tokens requested in the same second are the same JWT unless their
	 * claims differ: token 2 is bound to a Secret (kept) */
	json_t *sec = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "v1", "kind", "Secret",
				"metadata", "name", "binder");
	int cr = kube_create(C, &kube_res_secrets, NS, sec, NULL, &err);
	json_decref(sec);
	EXPECT(cr, 0, &err);
	CHECK_INT(kt_sa_token(C, NS, "rotor", NULL, &rot.t1), 0);
	CHECK_INT(kt_sa_token(C, NS, "rotor", "binder", &rot.t2), 0);
	CHECK(strcmp(rot.t1, rot.t2) != 0);
	snprintf(tokpath, sizeof(tokpath), "%s/sa-token", DIR_);
	CHECK_INT(kt_write_file(tokpath, rot.t1), 0);
	snprintf(cl, sizeof(cl), "    certificate-authority: %s\n", kt_env("CA_CERT"));
	snprintf(user, sizeof(user), "    tokenFile: %s\n", tokpath);
	CHECK_INT(write_kc_server("kc-sa", proxy && *proxy ? proxy : "https://127.0.0.1:16444", cl,
				  user, kcpath, sizeof(kcpath)),
		  0);

	struct kube_config cfg;
	CHECK_INT(kube_config_load_file(&cfg, kcpath, &err), 0);
	/* The file is looked at at most once a minute: a rotation within that
	 * window can only be noticed through the 401. No other retries. */
	struct kube_client_opts o = {.token_recheck_ms = 60000, .max_retries = -1};
	rot.c = kube_client_new(&cfg, &o, &err);
	kube_config_release(&cfg);
	CHECK(rot.c);
	struct kube_client_stats st;
	EXPECT(kube_get(rot.c, &kube_res_configmaps, NS, "kube-root-ca.crt", NULL, &err), 0, &err);
	kube_client_stats(rot.c, &st);
	CHECK_INT(st.reauths, 0);

	/* Rotate: the file gets token 2; the next answer is a 401. */
	CHECK_INT(kt_write_file(tokpath, rot.t2), 0);
	CHECK_INT(kt_proxy("DELETE", "/log", NULL, NULL), 200);
	CHECK_INT(kt_proxy_rule("{\"method\":\"GET\",\"path\":\"/configmaps/kube-root-ca.crt\","
				"\"action\":\"status\",\"status\":401}"),
		  0);
	EXPECT(kube_get(rot.c, &kube_res_configmaps, NS, "kube-root-ca.crt", NULL, &err), 0, &err);
	kube_client_stats(rot.c, &st);
	CHECK_INT(st.reauths, 1);
	CHECK_INT(rot_count("status"), 1);  /* the 401 */
	CHECK_INT(rot_count("forward"), 1); /* then once, to the real server */

	/* Garbage in the file and a 401 again: re-read, retried once, and the
	 * real server refuses the garbage: -EPERM with its 401, no third try. */
	CHECK_INT(kt_write_file(tokpath, "garbage-token"), 0);
	CHECK_INT(kt_proxy("DELETE", "/log", NULL, NULL), 200);
	CHECK_INT(kt_proxy_rule("{\"method\":\"GET\",\"path\":\"/configmaps/kube-root-ca.crt\","
				"\"action\":\"status\",\"status\":401}"),
		  0);
	int r = kube_get(rot.c, &kube_res_configmaps, NS, "kube-root-ca.crt", NULL, &err);
	EXPECT(r, -EPERM, &err);
	CHECK_INT(err.http_code, 401);
	kube_client_stats(rot.c, &st);
	CHECK_INT(st.reauths, 2);
	CHECK_INT(rot_count("status"), 1);
	CHECK_INT(rot_count("forward"), 1);
	rotated_cleanup();
	CHECK_INT(kt_proxy_reset(), 0);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"kube-auth/token-kubeconfig", test_token_kubeconfig},
	{"kube-auth/client-cert-data", test_client_cert_data},
	{"kube-auth/ca-file-and-token-file", test_ca_file_and_token_file},
	{"kube-auth/wrong-ca-refused", test_wrong_ca_refused},
	{"kube-auth/rotated-token-401", test_rotated_token_401},
};

int main(void)
{
	int r = test_run_all(cases, sizeof(cases) / sizeof(cases[0]));
	rotated_cleanup();
	(void)kt_proxy_reset();
	if (C) {
		kt_namespace_delete(C, NS);
		kube_client_free(C);
	}
	if (DIR_[0]) {
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", DIR_);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", DIR_);
	}
	return r;
}
