/* SPDX-License-Identifier: MIT */
#include "sign.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Domains of the MAC: a version, so one format never verifies as another (sign.h). */
static const char sign_domain_v1[] = "storagebench result v1";
static const char sign_domain_v2[] = "storagebench result v2";

void sb_hex(const unsigned char *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * n] = '\0';
}

int sb_sha256_hex(const void *data, size_t len, char out[SB_SIGN_HEX_LEN + 1])
{
	unsigned char md[32];
	unsigned int n = 0;
	if (EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) != 1 || n != sizeof(md))
		return -EIO;
	sb_hex(md, sizeof(md), out);
	return 0;
}

int sb_sign_keygen(unsigned char key[SB_SIGN_KEY_BYTES])
{
	return RAND_bytes(key, SB_SIGN_KEY_BYTES) == 1 ? 0 : -EIO;
}

int sb_hmac_sha256(const unsigned char *key, size_t keylen, const void *const *parts,
		   const size_t *lens, size_t n, unsigned char out[32])
{
	if (!key || !keylen)
		return -EINVAL;
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
	char digest[] = "SHA256";
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
		OSSL_PARAM_construct_end(),
	};
	bool ok = ctx && EVP_MAC_init(ctx, key, keylen, params) == 1;
	for (size_t i = 0; ok && i < n; i++)
		ok = !lens[i] || EVP_MAC_update(ctx, parts[i], lens[i]) == 1;
	size_t outl = 0;
	ok = ok && EVP_MAC_final(ctx, out, &outl, 32) == 1 && outl == 32;
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
	return ok ? 0 : -EIO;
}

static int mac_raw(const unsigned char *key, size_t keylen, const struct sb_sign_subject *s,
		   const char *text, size_t len, unsigned char out[32])
{
	char itb[16], mb[16], atb[16];
	if (!key || keylen != SB_SIGN_KEY_BYTES || !s || !s->uid || !s->cls || (!text && len))
		return -EINVAL;
	snprintf(itb, sizeof(itb), "%u", s->iteration);
	snprintf(mb, sizeof(mb), "%u", s->member);
	snprintf(atb, sizeof(atb), "%u", s->attempt);
	bool v2 = s->member || s->attempt;
	/* each part with its NUL: "a" "bc" and "ab" "c" differ; then the text */
	const void *parts[] = {
		v2 ? sign_domain_v2 : sign_domain_v1, s->uid, s->cls, itb, mb, atb, NULL};
	size_t lens[7], nparts = v2 ? 6 : 4;
	for (size_t i = 0; i < nparts; i++)
		lens[i] = strlen(parts[i]) + 1;
	parts[nparts] = text;
	lens[nparts] = len;
	return sb_hmac_sha256(key, keylen, parts, lens, nparts + 1, out);
}

int sb_sign_result(const unsigned char *key, size_t keylen, const struct sb_sign_subject *s,
		   const char *text, size_t len, char out[SB_SIGN_HEX_LEN + 1])
{
	unsigned char m[32];
	int r = mac_raw(key, keylen, s, text, len, m);
	if (r)
		return r;
	sb_hex(m, sizeof(m), out);
	OPENSSL_cleanse(m, sizeof(m));
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int sb_sign_verify(const unsigned char *key, size_t keylen, const struct sb_sign_subject *s,
		   const char *text, size_t len, const char *mac)
{
	unsigned char want[32], got[32];
	if (!mac || strlen(mac) != SB_SIGN_HEX_LEN)
		return -EINVAL;
	for (size_t i = 0; i < 32; i++) {
		int hi = hexval(mac[2 * i]), lo = hexval(mac[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		got[i] = (unsigned char)(hi << 4 | lo);
	}
	int r = mac_raw(key, keylen, s, text, len, want);
	if (r)
		return r;
	r = CRYPTO_memcmp(want, got, sizeof(want)) ? -EBADMSG : 0;
	OPENSSL_cleanse(want, sizeof(want));
	return r;
}

int sb_sign_read_key(const char *path, unsigned char key[SB_SIGN_KEY_BYTES])
{
	unsigned char buf[SB_SIGN_KEY_BYTES + 1];
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r = read(fd, buf + n, sizeof(buf) - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = -errno;
			close(fd);
			return e;
		}
		if (r == 0 || (n += (size_t)r) == sizeof(buf))
			break;
	}
	close(fd);
	if (n != SB_SIGN_KEY_BYTES) {
		OPENSSL_cleanse(buf, sizeof(buf));
		return -EINVAL;
	}
	memcpy(key, buf, SB_SIGN_KEY_BYTES);
	OPENSSL_cleanse(buf, sizeof(buf));
	return 0;
}
