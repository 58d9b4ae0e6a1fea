/* SPDX-License-Identifier: MIT */
/*
 * Random numbers for offsets, directions, block sizes and data:
 * xoshiro256** (Blackman and Vigna) seeded through splitmix64, and a keyed
 * permutation of [0, n) so a random pass touches every block exactly once
 * without a bitmap (fio's "random map", in constant memory).
 */
#ifndef SB_RUNNER_RAND_H
#define SB_RUNNER_RAND_H

#include <stddef.h>
#include <stdint.h>

struct sb_rand {
	uint64_t s[4];
};

void sb_rand_seed(struct sb_rand *r, uint64_t seed);

static inline uint64_t sb_rand_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t sb_rand_next(struct sb_rand *r)
{
	uint64_t *s = r->s;
	uint64_t result = sb_rand_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = sb_rand_rotl(s[3], 45);
	return result;
}

/* Uniform in [0, n) (n > 0), by multiply-shift (Lemire); bias < n / 2^64. */
static inline uint64_t sb_rand_below(struct sb_rand *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)sb_rand_next(r) * n) >> 64);
}

/* Fills buf with random bytes. */
void sb_rand_fill(struct sb_rand *r, void *buf, size_t len);

/*
 * A permutation of [0, n): sb_perm_at(p, i) for i in [0, n) yields every
 * value in [0, n) exactly once, in an order fixed by the key. A balanced
 * Feistel network on an even number of bits >= log2(n), cycle-walking
 * values outside [0, n) (fewer than 4 steps on average).
 */
struct sb_perm {
	uint64_t n;
	unsigned half_bits;
	uint64_t half_mask;
	uint64_t keys[4];
};

void sb_perm_init(struct sb_perm *p, uint64_t n, uint64_t key);
uint64_t sb_perm_at(const struct sb_perm *p, uint64_t i);

#endif
