/* SPDX-License-Identifier: MIT */
/*
 * Random numbers for offsets, directions, block sizes and data:
 * xoshiro256** (Blackman and Vigna) seeded through splitmix64, and a keyed
 * permutation of [0, n) so a random pass touches every block exactly once
 * without a bitmap (fio's "random map", in constant memory).
 */
#ifndef SB_RUNNER_IO_RAND_H
#define SB_RUNNER_IO_RAND_H

#include "fiojob/opts.h"

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

/* Uniform double in [0, 1) with 53 random bits. */
static inline double sb_rand_unit(struct sb_rand *r)
{
	return (double)(sb_rand_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * An exponentially distributed draw of the given mean (> 0): the gap
 * between arrivals of a Poisson process of rate 1/mean (rate_process=
 * poisson), by inversion, -mean * ln(1 - u); never negative, finite.
 */
double sb_rand_exp(struct sb_rand *r, double mean);

/*
 * A skewed choice of one of n slots (blocks of a file, or files), with
 * fio's random_distribution semantics:
 *  zipf:theta   rank k drawn with probability k^-theta / zeta(n, theta)
 *               (Gray et al.'s method: ranks 1 and 2 exact, the tail by
 *               the closed-form approximation fio also uses);
 *  pareto:h     rank (n-1) * u^(log h / log(1-h)), u uniform;
 *  normal:dev   the mean of 12 uniform draws over [0, n] plus a uniform
 *               deviation dev% of n wide (fio's construction);
 *  zoned / zoned_abs: a zone by its access share, then a uniform slot in
 *               the zone's range (percent of n, or bytes / slot_bytes).
 * Ranks of zipf, pareto and normal are spread over the slots by a keyed
 * bijection that keeps rank 0 in place, then rotated to `center` (zipf and
 * pareto without a center: a rotation from the key): the hottest slot is
 * at center * n, as in fio, and the rest are scattered.
 */
struct sb_dist {
	enum sb_dist_type type;
	uint64_t n;
	double theta, zetan, zeta2, alpha, eta; /* zipf */
	double pareto_pow;
	uint64_t dev_width; /* normal */
	uint64_t rot;
	uint64_t perm0; /* the bijection's image of rank 0 */
	struct sb_perm perm;
	unsigned nzones;
	uint32_t cum[SB_MAX_ZONES]; /* cumulative access percent */
	uint64_t zstart[SB_MAX_ZONES], zlen[SB_MAX_ZONES];
};

/*
 * Prepares d for n slots of slot_bytes each (zoned_abs needs the size).
 * Returns 0, or -EINVAL when o is uniform or n is 0.
 */
int sb_dist_init(struct sb_dist *d, const struct sb_dist_opts *o, uint64_t n, uint64_t slot_bytes,
		 uint64_t key);

/* The next slot in [0, n). */
uint64_t sb_dist_next(const struct sb_dist *d, struct sb_rand *r);

/* The rank drawn before spreading (tests): zipf, pareto, normal only. */
uint64_t sb_dist_rank(const struct sb_dist *d, struct sb_rand *r);

/* zeta(n, theta) = sum of k^-theta for k in 1..n (exact up to 10^7 terms, then an integral). */
double sb_zeta(uint64_t n, double theta);

#endif
