/* SPDX-License-Identifier: MIT */
#include "controller/run/runkey.h"

#include "controller/core/proof.h"

#include "core/labels.h"
#include "core/log.h"
#include "core/names.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

static unsigned char master[SB_SIGN_KEY_BYTES];
static bool have_master;

/* The domain of a derived key: never the MAC of a result (lib/result/sign.c has another). */
static const char derive_domain[] = "storagebench run key v1";

void br_runkey_set_master(const unsigned char m[SB_SIGN_KEY_BYTES])
{
	memcpy(master, m, sizeof(master));
	have_master = true;
	if (br_proof_set_master(m))
		sb_warn("Cannot derive the authorship key: nothing the controller writes will "
			"verify",
			"error=%d", -EIO);
}

void br_runkey_clear(void)
{
	memset(master, 0, sizeof(master));
	have_master = false;
	br_proof_clear();
}

int br_runkey_derive(const char *uid, unsigned char key[SB_SIGN_KEY_BYTES])
{
	if (!have_master)
		return -EAGAIN;
	if (!uid || !*uid)
		return -EINVAL;
	/* the domain with its NUL, then the UID */
	const void *parts[] = {derive_domain, uid};
	const size_t lens[] = {sizeof(derive_domain), strlen(uid)};
	return sb_hmac_sha256(master, sizeof(master), parts, lens, 2, key);
}

/* base64 of n bytes into out (at least 4 * ((n + 2) / 3) + 1). */
static void b64(const unsigned char *in, size_t n, char *out)
{
	EVP_EncodeBlock((unsigned char *)out, in, (int)n);
}

static json_t *secret(const char *ns, const char *name, const unsigned char *key, json_t *md_extra)
{
	char enc[64];
	b64(key, SB_SIGN_KEY_BYTES, enc);
	json_t *s = json_pack("{s:s,s:s,s:{s:s,s:s},s:s,s:{s:s}}", "apiVersion", "v1", "kind",
			      "Secret", "metadata", "name", name, "namespace", ns, "type", "Opaque",
			      "data", SB_SIGN_SECRET_KEY, enc);
	OPENSSL_cleanse(enc, sizeof(enc));
	if (s && md_extra && json_object_update(json_object_get(s, "metadata"), md_extra)) {
		json_decref(s);
		s = NULL;
	}
	json_decref(md_extra);
	return s;
}

/* The key in a Secret's data (base64 of 32 bytes). Returns 0 or -EINVAL. */
static int key_of(const json_t *sec, unsigned char key[SB_SIGN_KEY_BYTES])
{
	const json_t *v = json_object_get(json_object_get(sec, "data"), SB_SIGN_SECRET_KEY);
	unsigned char buf[64];
	if (!json_is_string(v) || json_string_length(v) != 44)
		return -EINVAL;
	/* 44 characters with one '=': 33 bytes decoded, the last one padding */
	if (EVP_DecodeBlock(buf, (const unsigned char *)json_string_value(v), 44) != 33 ||
	    json_string_value(v)[43] != '=' || json_string_value(v)[42] == '=')
		return -EINVAL;
	memcpy(key, buf, SB_SIGN_KEY_BYTES);
	OPENSSL_cleanse(buf, sizeof(buf));
	return 0;
}

int br_runkey_load(struct kube_client *kc, const char *ns, const char *name, char *err,
		   size_t errlen)
{
	struct kube_error kerr = KUBE_ERROR_INIT;
	char eb[512];
	json_t *sec = NULL;
	unsigned char k[SB_SIGN_KEY_BYTES];
	int r = 0;

	for (int tries = 0; tries < 2; tries++) {
		r = kube_get(kc, &kube_res_secrets, ns, name, &sec, &kerr);
		if (r != -ENOENT)
			break;
		/* the first start: a new master key; a replica starting at the same
		 * moment gets AlreadyExists and reads the one that won */
		if ((r = sb_sign_keygen(k))) {
			snprintf(err, errlen, "cannot make a random key: OpenSSL RAND failed");
			return r;
		}
		json_t *obj = secret(ns, name, k,
				     json_pack("{s:{s:s,s:s,s:s}}", "labels", SB_LABEL_NAME,
					       SB_APP_NAME, SB_LABEL_COMPONENT, "signing-key",
					       SB_LABEL_MANAGED_BY, SB_MANAGER));
		OPENSSL_cleanse(k, sizeof(k));
		if (!obj)
			return -ENOMEM;
		r = kube_create(kc, &kube_res_secrets, ns, obj, NULL, &kerr);
		json_decref(obj);
		if (r && r != -EEXIST)
			break;
		sb_info("Made the result signing key", "secret=%s/%s created=%d", ns, name, r == 0);
	}
	if (r) {
		snprintf(err, errlen, "the result signing key, secret %s/%s: %s", ns, name,
			 kube_error_str(&kerr, eb, sizeof(eb)));
		return r;
	}
	r = key_of(sec, k);
	json_decref(sec);
	if (r) {
		snprintf(err, errlen,
			 "the result signing key, secret %s/%s: data.%s is not 32 bytes in base64",
			 ns, name, SB_SIGN_SECRET_KEY);
		return r;
	}
	br_runkey_set_master(k);
	OPENSSL_cleanse(k, sizeof(k));
	return 0;
}

int br_runkey_secret_name(const struct br_ref *run, char *out, size_t len)
{
	char u[9];
	if (!run->uid || strlen(run->uid) < 8)
		return -EINVAL;
	snprintf(u, sizeof(u), "%.8s", run->uid);
	const char *p[] = {run->name, "key", u};
	return sb_name_join(out, len, 63, p, 3);
}

json_t *br_runkey_secret_manifest(const struct br_ref *run)
{
	char name[64], run_label[64];
	unsigned char k[SB_SIGN_KEY_BYTES];
	if (br_runkey_secret_name(run, name, sizeof(name)) ||
	    sb_name_label(run_label, sizeof(run_label), run->name) || br_runkey_derive(run->uid, k))
		return NULL;
	json_t *s = secret(run->ns, name, k,
			   json_pack("{s:{s:s,s:s,s:s,s:s},s:[{s:s,s:s,s:s,s:s,s:b,s:b}]}",
				     "labels", SB_LABEL_NAME, SB_APP_NAME, SB_LABEL_COMPONENT,
				     "run-key", SB_LABEL_MANAGED_BY, SB_MANAGER, SB_LABEL_RUN,
				     run_label, "ownerReferences", "apiVersion", SB_API_VERSION,
				     "kind", SB_KIND, "name", run->name, "uid", run->uid,
				     "controller", 1, "blockOwnerDeletion", 1));
	OPENSSL_cleanse(k, sizeof(k));
	return s;
}

int br_runkey_add_to_pod(json_t *pod, const struct br_ref *run)
{
	char name[64];
	json_t *spec = json_object_get(pod, "spec");
	json_t *vols = json_object_get(spec, "volumes");
	json_t *ctr = json_array_get(json_object_get(spec, "containers"), 0);
	json_t *mounts = json_object_get(ctr, "volumeMounts");
	if (br_runkey_secret_name(run, name, sizeof(name)) || !json_is_array(vols) ||
	    !json_is_array(mounts))
		return -EINVAL;
	/* 0444: the runner's user reads it whatever its uid and fsGroup */
	if (json_array_append_new(vols, json_pack("{s:s,s:{s:s,s:i}}", "name", "run-key", "secret",
						  "secretName", name, "defaultMode", 0444)) ||
	    json_array_append_new(mounts, json_pack("{s:s,s:s,s:b}", "name", "run-key", "mountPath",
						    SB_SIGN_DIR, "readOnly", 1)))
		return -ENOMEM;
	return 0;
}
