/* SPDX-License-Identifier: MIT */
/*
 * What a PUT sends: each object's own content, and its size.
 *
 * Content: AES-128 in counter mode (OpenSSL) of zero bytes, keyed once per
 * run, with the object id and the part number as the IV. Every object and
 * every multipart part gets a keystream of its own (no two share bytes; a
 * store that deduplicates or compresses gains nothing), and regenerating
 * one is deterministic within the run. With AES-NI it costs a fraction of
 * the SHA-256 the request signs, and it runs before the request's timer.
 *
 * Sizes: warp's generator's distribution for --obj.randsize (exponential
 * on a log2 scale, mean about 0.179 x the maximum), written here from its
 * description; the MIN-MAX form without --obj.randsize is ours (uniform).
 */
#include "runner/s3/s3.h"

#include <errno.h>
#include <math.h>
#include <openssl/evp.h>
#include <string.h>

/* zeros to encrypt: the keystream is the ciphertext of zero bytes */
static const unsigned char zeros[64 << 10];

int sb_s3_content_fill(EVP_CIPHER_CTX *ctx, const unsigned char key[SB_S3_CONTENT_KEY], uint64_t id,
		       uint32_t part, void *buf, size_t len)
{
	/* IV: id (8 bytes, big-endian), part (4), block counter (4, from 0) */
	unsigned char iv[16] = {0};
	for (int i = 0; i < 8; i++)
		iv[i] = (unsigned char)(id >> (56 - 8 * i));
	for (int i = 0; i < 4; i++)
		iv[8 + i] = (unsigned char)(part >> (24 - 8 * i));
	if (EVP_EncryptInit_ex(ctx, EVP_aes_128_ctr(), NULL, key, iv) != 1)
		return -EIO;
	unsigned char *p = buf;
	for (size_t off = 0; off < len;) {
		size_t n = len - off < sizeof(zeros) ? len - off : sizeof(zeros);
		int outl = 0;
		if (EVP_EncryptUpdate(ctx, p + off, &outl, zeros, (int)n) != 1 || (size_t)outl != n)
			return -EIO;
		off += n;
	}
	return 0;
}

/* A uniform double in [0, 1) from the worker's generator. */
static double unit_draw(uint64_t *rng)
{
	return (double)(sb_s3_rand(rng) >> 11) * 0x1.0p-53;
}

/*
 * warp's random size between lo (0: none given) and hi: log2 of the size
 * uniform between log2(lo - 1) (without lo: the larger of 7 and log2(hi - 1)
 * - 8, so sizes span 256 times) and log2(hi - 1); the lowest doubling
 * (the draw's log2 offset below 1) is filled linearly from lo instead. A
 * range under 10 bytes is uniform. The result is kept within [max(lo, 1), hi].
 */
static uint64_t warp_size(uint64_t lo, uint64_t hi, uint64_t *rng)
{
	uint64_t floor_ = lo ? lo : 1, v;
	if (hi <= floor_)
		return hi;
	if (hi - lo < 10)
		return lo + 1 + sb_s3_rand(rng) % (hi - lo);
	double lmax = log2((double)(hi - 1));
	double lmin = lo > 1 ? log2((double)(lo - 1)) : fmax(7.0, lmax - 8.0);
	double u = unit_draw(rng);
	double ls = u * (lmax - lmin);
	if (ls > 1.0)
		v = 1 + (uint64_t)exp2(ls + lmin);
	else
		v = 1 + lo + (uint64_t)(u * exp2(lmin + 1.0));
	return v < floor_ ? floor_ : v > hi ? hi : v;
}

uint64_t sb_s3_pick_size(const struct sb_s3_opts *o, uint64_t *rng)
{
	if (o->randsize)
		return warp_size(o->size_range ? o->obj_size_min : 0, o->obj_size, rng);
	if (o->size_range) {
		uint64_t lo = o->obj_size_min ? o->obj_size_min : 1;
		return lo + sb_s3_rand(rng) % (o->obj_size - lo + 1);
	}
	return o->obj_size;
}

uint64_t sb_s3_rand(uint64_t *s)
{
	/* xorshift64* */
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}
