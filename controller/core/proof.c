/* SPDX-License-Identifier: MIT */
#include "controller/core/proof.h"

#include "core/jsonobj.h"
#include "core/labels.h"
#include "result/owner.h"
#include "result/sign.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Domains: the authorship key's derivation and the proof (proof.h). */
static const char key_domain[] = "storagebench authorship v1";
static const char proof_domain[] = "storagebench object v1";

static unsigned char auth_key[BR_PROOF_KEY_BYTES];
static bool have_key;

/* At most this many parts in a proof's HMAC. */
#define PROOF_PARTS 6

/* n as 8 bytes, big-endian: the length before each part the proof hashes. */
static void put_len(unsigned char lb[8], size_t n)
{
	for (int b = 0; b < 8; b++)
		lb[b] = (unsigned char)((uint64_t)n >> (56 - 8 * b));
}

/* HMAC-SHA256 under key of n parts, each preceded by its length (put_len). */
static int hmac_parts(const unsigned char *key, size_t keylen, const void *const *parts,
		      const size_t *lens, size_t n, unsigned char out[32])
{
	unsigned char lb[PROOF_PARTS][8];
	const void *all[2 * PROOF_PARTS];
	size_t alens[2 * PROOF_PARTS];
	if (n > PROOF_PARTS)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		put_len(lb[i], lens[i]);
		all[2 * i] = lb[i];
		alens[2 * i] = 8;
		all[2 * i + 1] = parts[i];
		alens[2 * i + 1] = lens[i];
	}
	return sb_hmac_sha256(key, keylen, all, alens, 2 * n, out);
}

int br_proof_set_master(const unsigned char *master)
{
	const void *parts[] = {key_domain};
	const size_t lens[] = {sizeof(key_domain) - 1};
	unsigned char k[32];
	if (!master || hmac_parts(master, BR_PROOF_KEY_BYTES, parts, lens, 1, k))
		return -EIO;
	memcpy(auth_key, k, sizeof(auth_key));
	OPENSSL_cleanse(k, sizeof(k));
	have_key = true;
	return 0;
}

void br_proof_clear(void)
{
	OPENSSL_cleanse(auth_key, sizeof(auth_key));
	have_key = false;
}

/* SHA-256 over data's keys in byte order, each key and value with its length. */
static int data_hash(const json_t *data, unsigned char out[32])
{
	size_t n = 0;
	const char **keys = sb_json_sorted_keys(json_is_object(data) ? data : NULL, &n);
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	int ret = -ENOMEM;
	if (!keys || !md)
		goto out;
	ret = -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!json_is_string(json_object_get(data, keys[i])))
			goto out;
	ret = -EIO;
	if (EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const json_t *s = json_object_get(data, keys[i]);
		const char *bufs[] = {keys[i], json_string_value(s)};
		size_t lens[] = {strlen(keys[i]), json_string_length(s)};
		for (int p = 0; p < 2; p++) {
			unsigned char lb[8];
			put_len(lb, lens[p]);
			if (EVP_DigestUpdate(md, lb, sizeof(lb)) != 1 ||
			    (lens[p] && EVP_DigestUpdate(md, bufs[p], lens[p]) != 1))
				goto out;
		}
	}
	unsigned int outl = 0;
	if (EVP_DigestFinal_ex(md, out, &outl) == 1 && outl == 32)
		ret = 0;
out:
	EVP_MD_CTX_free(md);
	free(keys);
	return ret;
}

/* The UID of obj's BenchmarkRun (or BenchmarkSchedule: a schedule's runs) ownerReference, "". */
static const char *owner_uid(const json_t *obj)
{
	const json_t *refs = json_object_get(json_object_get(obj, "metadata"), "ownerReferences");
	size_t i;
	const json_t *r;
	json_array_foreach(refs, i, r)
	{
		const char *k = jstr(r, "kind"), *u = jstr(r, "uid");
		if (k && (!strcmp(k, SB_KIND) || !strcmp(k, SB_KIND_SCHEDULE)) && u)
			return u;
	}
	return "";
}

/* The proof of obj as an object of r in ns, hex into out. 0 or -errno. */
static int proof_of(const json_t *obj, const struct kube_resource *r, const char *ns,
		    char out[SB_SIGN_HEX_LEN + 1])
{
	if (!have_key)
		return -EAGAIN;
	const char *name = jstr(json_object_get(obj, "metadata"), "name");
	if (!name || !ns || !r)
		return -EINVAL;
	unsigned char dh[32], m[32];
	int ret = data_hash(r == &kube_res_configmaps ? json_object_get(obj, "data") : NULL, dh);
	if (ret)
		return ret;
	const char *uid = owner_uid(obj);
	const void *parts[] = {proof_domain, ns, r->resource, name, uid, dh};
	const size_t lens[] = {sizeof(proof_domain) - 1,
			       strlen(ns),
			       strlen(r->resource),
			       strlen(name),
			       strlen(uid),
			       sizeof(dh)};
	ret = hmac_parts(auth_key, sizeof(auth_key), parts, lens, 6, m);
	if (ret)
		return ret;
	sb_hex(m, sizeof(m), out);
	OPENSSL_cleanse(m, sizeof(m));
	return 0;
}

int br_proof_sign(json_t *obj, const struct kube_resource *r, const char *ns)
{
	char hex[SB_SIGN_HEX_LEN + 1];
	json_t *md = json_object_get(obj, "metadata");
	if (!json_is_object(md))
		return -EINVAL;
	int ret = proof_of(obj, r, ns, hex);
	if (ret)
		return ret;
	json_t *an = json_object_get(md, "annotations");
	if (!an) {
		an = json_object();
		if (!an || json_object_set_new(md, "annotations", an))
			return -ENOMEM;
	}
	return json_object_set_new(an, SB_ANNOT_PROOF, json_string(hex)) ? -ENOMEM : 0;
}

int br_proof_check(const json_t *obj, const struct kube_resource *r, char *why, size_t whylen)
{
	char want[SB_SIGN_HEX_LEN + 1];
	const json_t *md = json_object_get(obj, "metadata");
	const char *have = jstr(json_object_get(md, "annotations"), SB_ANNOT_PROOF);
	int ret = have ? proof_of(obj, r, jstr(md, "namespace"), want) : -ENOENT;
	if (!ret && (strlen(have) != SB_SIGN_HEX_LEN || CRYPTO_memcmp(have, want, SB_SIGN_HEX_LEN)))
		ret = -EBADMSG;
	if (ret && why)
		snprintf(why, whylen, "annotation %s: %s", SB_ANNOT_PROOF,
			 ret == -ENOENT	   ? "missing (not written by the controller)"
			 : ret == -EBADMSG ? "does not match the object (forged, copied or changed "
					     "since the controller wrote it)"
			 : ret == -EAGAIN  ? "cannot be checked yet (no signing key loaded)"
			 : ret == -EINVAL  ? "cannot be checked (no name or namespace, or a data "
					     "value that is not a string)"
					   : "cannot be checked");
	return ret;
}

int br_proof_create(const struct br_ops *ops, const struct kube_resource *r, const char *ns,
		    json_t *obj, struct kube_error *err)
{
	int ret = obj ? br_proof_sign(obj, r, ns) : -ENOMEM;
	return ret ? ret : ops->create(ops->arg, r, ns, obj, err);
}

int br_create_owned(const struct br_ops *ops, const struct kube_resource *r, const char *ns,
		    const char *run, const char *uid, json_t *obj, const char *what, bool *stale,
		    struct kube_error *err, char *why, size_t whylen)
{
	char owner[300], proof[200], oname[254];
	json_t *have = NULL;
	*stale = false;
	if (!obj) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	const char *name = meta(obj, "name");
	snprintf(oname, sizeof(oname), "%s", name ? name : "");
	/* the run's key Secret is never read (controller/run/runkey.h): not signed */
	int ret = r == &kube_res_secrets ? 0 : br_proof_sign(obj, r, ns);
	if (ret) {
		json_decref(obj);
		snprintf(why, whylen, "cannot sign the %s %s (error %d)", what, oname, ret);
		return ret;
	}
	ret = ops->create(ops->arg, r, ns, obj, err);
	json_decref(obj);
	if (ret == -EEXIST && r == &kube_res_secrets)
		return 0; /* its name holds the run's UID */
	if (ret == 0)
		return 1;
	char eb[512];
	if (ret != -EEXIST) {
		snprintf(why, whylen, "cannot create the %s: %s", what,
			 kube_error_str(err, eb, sizeof(eb)));
		return ret;
	}
	ret = ops->get(ops->arg, r, ns, oname, &have, err);
	if (ret == -ENOENT) {
		/* gone since: the next pass creates it */
		snprintf(why, whylen, "%s %s was just deleted", what, oname);
		return -EINPROGRESS;
	}
	if (ret) {
		snprintf(why, whylen, "cannot read the %s %s: %s", what, oname,
			 kube_error_str(err, eb, sizeof(eb)));
		return ret;
	}
	enum sb_owner_verdict v = sb_owner_check(have, run, uid, owner, sizeof(owner));
	if (v == SB_OWNER_OURS && br_proof_check(have, r, proof, sizeof(proof))) {
		json_decref(have);
		snprintf(why, whylen,
			 "%s %s exists with this run's ownerReference but is not the "
			 "controller's (%s)",
			 what, oname, proof);
		return -EEXIST;
	}
	json_decref(have);
	if (v == SB_OWNER_OURS)
		return 0;
	*stale = v == SB_OWNER_STALE;
	snprintf(why, whylen, "%s %s exists and is %s (%s)%s", what, oname, sb_owner_verdict_str(v),
		 owner, v == SB_OWNER_FOREIGN ? "" : "; waiting until it is gone");
	return v == SB_OWNER_FOREIGN ? -EEXIST : -EINPROGRESS;
}
