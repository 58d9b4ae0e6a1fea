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

static int write_kc(const char *name, const char *cluster_extra, const char *user, char *path,
		    size_t size)
{
	char text[8192];
	const char *server = getenv("API_URL") ? getenv("API_URL") : "https://127.0.2.1:443";
	snprintf(path, size, "%s/%s", DIR_, name);
	snprintf(text, sizeof(text),
		 "apiVersion: v1\nkind: Config\ncurrent-context: t\n"
		 "clusters:\n- name: c\n  cluster:\n    server: %s\n%s"
		 "contexts:\n- name: t\n  context:\n    cluster: c\n    user: u\n"
		 "users:\n- name: u\n  user:\n%s",
		 server, cluster_extra, user);
	return kt_write_file(path, text);
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

static int test_rotated_token_401(void)
{
	struct kube_error err;
	char tokpath[256], kcpath[256], *t1 = NULL, *t2 = NULL, cl[512], user[512];
	KT_SETUP();
	CHECK_INT(kt_service_account(C, NS, "rotor", true), 0);
	/* Token 1 is bound to a Secret: deleting it revokes the token. */
	json_t *sec = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "v1", "kind", "Secret",
				"metadata", "name", "binder");
	EXPECT(kube_create(C, &kube_res_secrets, NS, sec, NULL, &err), 0, &err);
	json_decref(sec);
	CHECK_INT(kt_sa_token(C, NS, "rotor", "binder", &t1), 0);
	CHECK_INT(kt_sa_token(C, NS, "rotor", NULL, &t2), 0);
	snprintf(tokpath, sizeof(tokpath), "%s/sa-token", DIR_);
	CHECK_INT(kt_write_file(tokpath, t1), 0);
	snprintf(cl, sizeof(cl), "    certificate-authority: %s\n", kt_env("CA_CERT"));
	snprintf(user, sizeof(user), "    tokenFile: %s\n", tokpath);
	CHECK_INT(write_kc("kc-sa", cl, user, kcpath, sizeof(kcpath)), 0);

	struct kube_config cfg;
	CHECK_INT(kube_config_load_file(&cfg, kcpath, &err), 0);
	/* The file is looked at at most once a minute: a rotation within that
	 * window can only be noticed through the 401. */
	struct kube_client_opts o = {.token_recheck_ms = 60000};
	struct kube_client *c = kube_client_new(&cfg, &o, &err);
	kube_config_release(&cfg);
	CHECK(c);
	struct kube_client_stats st;
	EXPECT(kube_get(c, &kube_res_configmaps, NS, "kube-root-ca.crt", NULL, &err), 0, &err);

	/* Rotate: the file gets token 2, token 1 is revoked. */
	CHECK_INT(kt_write_file(tokpath, t2), 0);
	EXPECT(kube_delete(C, &kube_res_secrets, NS, "binder", NULL, NULL, &err), 0, &err);
	/* Revocation of a bound token is seen by the authenticator at once (it
	 * checks the bound object); retry a little in case of cache lag. */
	int r = -1;
	for (int i = 0; i < 50; i++) {
		r = kube_get(c, &kube_res_configmaps, NS, "kube-root-ca.crt", NULL, &err);
		kube_client_stats(c, &st);
		if (st.reauths > 0)
			break;
		usleep(200000);
	}
	EXPECT(r, 0, &err); /* recovered with the re-read token */
	CHECK_INT(st.reauths, 1);

	/* Revoke token 2 too (delete the ServiceAccount) and put garbage in the
	 * file: the 401 re-reads it, the garbage is refused as well: -EPERM. */
	CHECK_INT(kt_write_file(tokpath, "garbage-token"), 0);
	EXPECT(kube_delete(C, &kube_res_serviceaccounts, NS, "rotor", NULL, NULL, &err), 0, &err);
	for (int i = 0; i < 50; i++) {
		r = kube_get(c, &kube_res_configmaps, NS, "kube-root-ca.crt", NULL, &err);
		if (r != 0)
			break;
		usleep(200000);
	}
	EXPECT(r, -EPERM, &err);
	CHECK_INT(err.http_code, 401);
	kube_client_stats(c, &st);
	CHECK_INT(st.reauths, 2);
	kube_client_free(c);
	free(t1);
	free(t2);
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
