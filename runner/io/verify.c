/* SPDX-License-Identifier: MIT */
#include "runner/io/verify.h"
#include "runner/io/crc32c.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#define VERIFY_MAGIC 0x46564253u /* "SBVF" little-endian */

struct verify_hdr {
	uint32_t magic;
	uint32_t len;
	uint64_t offset;
	uint32_t type;
	uint32_t csum_len;
	uint8_t csum[32];
	uint8_t pad[8];
};

_Static_assert(sizeof(struct verify_hdr) == SB_VERIFY_HDR_LEN, "verify header is 64 bytes");

/* Checksum of the header (csum zeroed) and the payload. */
static int digest(const uint8_t *buf, uint32_t len, enum sb_verify type, uint8_t out[32],
		  uint32_t *outlen)
{
	struct verify_hdr h;
	memcpy(&h, buf, sizeof(h));
	memset(h.csum, 0, sizeof(h.csum));

	if (type == SB_VERIFY_CRC32C) {
		/* crc of header then payload, chained by hashing the pair of crcs */
		uint32_t c[2] = {sb_crc32c(&h, sizeof(h)),
				 sb_crc32c(buf + sizeof(h), len - sizeof(h))};
		uint32_t all = sb_crc32c(c, sizeof(c));
		memcpy(out, &all, 4);
		*outlen = 4;
		return 0;
	}
	const EVP_MD *md = type == SB_VERIFY_MD5 ? EVP_md5() : EVP_sha256();
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned n = 0;
	int ok = ctx && EVP_DigestInit_ex(ctx, md, NULL) == 1 &&
		 EVP_DigestUpdate(ctx, &h, sizeof(h)) == 1 &&
		 EVP_DigestUpdate(ctx, buf + sizeof(h), len - sizeof(h)) == 1 &&
		 EVP_DigestFinal_ex(ctx, out, &n) == 1;
	EVP_MD_CTX_free(ctx);
	if (!ok)
		return -EIO;
	*outlen = n;
	return 0;
}

int sb_verify_stamp(void *buf, uint32_t len, uint64_t offset, enum sb_verify type)
{
	struct verify_hdr h;
	uint8_t sum[32];
	uint32_t n = 0;

	memset(&h, 0, sizeof(h));
	h.magic = VERIFY_MAGIC;
	h.len = len;
	h.offset = offset;
	h.type = (uint32_t)type;
	h.csum_len = type == SB_VERIFY_CRC32C ? 4 : type == SB_VERIFY_MD5 ? 16 : 32;
	memcpy(buf, &h, sizeof(h));
	if (digest(buf, len, type, sum, &n) || n != h.csum_len)
		return -EIO;
	memcpy(h.csum, sum, n);
	memcpy(buf, &h, sizeof(h));
	return 0;
}

int sb_verify_check(const void *buf, uint32_t len, uint64_t offset, enum sb_verify type, char *why,
		    size_t whylen)
{
	struct verify_hdr h;
	uint8_t sum[32];
	uint32_t n = 0;

	memcpy(&h, buf, sizeof(h));
	if (h.magic != VERIFY_MAGIC) {
		snprintf(why, whylen,
			 "bad header magic 0x%08x (block never written or overwritten)", h.magic);
		return -EILSEQ;
	}
	if (h.offset != offset) {
		snprintf(why, whylen, "header says offset %llu", (unsigned long long)h.offset);
		return -EILSEQ;
	}
	if (h.len != len) {
		snprintf(why, whylen, "header says length %u, read %u", h.len, len);
		return -EILSEQ;
	}
	if (h.type != (uint32_t)type) {
		snprintf(why, whylen, "written with verify=%s",
			 sb_verify_name((enum sb_verify)h.type));
		return -EILSEQ;
	}
	if (digest(buf, len, type, sum, &n))
		return -EIO;
	/* the stored checksum is part of h; digest() hashed h with csum zeroed */
	if (n != h.csum_len || memcmp(sum, h.csum, n) != 0) {
		snprintf(why, whylen, "%s checksum mismatch", sb_verify_name(type));
		return -EILSEQ;
	}
	return 0;
}
