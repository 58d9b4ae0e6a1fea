/* SPDX-License-Identifier: MIT */
#include "runner/io/rand.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void sb_rand_seed(struct sb_rand *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

void sb_rand_fill(struct sb_rand *r, void *buf, size_t len)
{
	unsigned char *p = buf;
	while (len >= 8) {
		uint64_t v = sb_rand_next(r);
		memcpy(p, &v, 8);
		p += 8;
		len -= 8;
	}
	if (len) {
		uint64_t v = sb_rand_next(r);
		memcpy(p, &v, len);
	}
}

void sb_perm_init(struct sb_perm *p, uint64_t n, uint64_t key)
{
	unsigned bits = 2;
	while (bits < 64 && (1ull << bits) < n)
		bits++;
	if (bits % 2)
		bits++;
	p->n = n;
	p->half_bits = bits / 2;
	p->half_mask = (1ull << p->half_bits) - 1;
	uint64_t k = key;
	for (int i = 0; i < 4; i++)
		p->keys[i] = splitmix64(&k);
}

/* Round function: a multiply-xorshift hash of the half block and key. */
static inline uint64_t round_fn(uint64_t x, uint64_t key)
{
	x ^= key;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 29;
	return x;
}

static inline uint64_t feistel(const struct sb_perm *p, uint64_t v)
{
	uint64_t l = v >> p->half_bits, r = v & p->half_mask;
	for (int i = 0; i < 4; i++) {
		uint64_t t = l ^ (round_fn(r, p->keys[i]) & p->half_mask);
		l = r;
		r = t;
	}
	return (l << p->half_bits) | r;
}

uint64_t sb_perm_at(const struct sb_perm *p, uint64_t i)
{
	uint64_t v = i;
	do {
		v = feistel(p, v);
	} while (v >= p->n);
	return v;
}

#define ZETA_EXACT 10000000ull

double sb_zeta(uint64_t n, double theta)
{
	double sum = 0;
	uint64_t m = n < ZETA_EXACT ? n : ZETA_EXACT;
	for (uint64_t k = m; k >= 1; k--) /* smallest terms first */
		sum += pow((double)k, -theta);
	if (n > m) /* the rest by the midpoint integral of x^-theta */
		sum += (pow((double)n + 0.5, 1.0 - theta) - pow((double)m + 0.5, 1.0 - theta)) /
		       (1.0 - theta);
	return sum;
}

int sb_dist_init(struct sb_dist *d, const struct sb_dist_opts *o, uint64_t n, uint64_t slot_bytes,
		 uint64_t key)
{
	memset(d, 0, sizeof(*d));
	if (n == 0 || o->type == SB_DIST_RANDOM)
		return -EINVAL;
	d->type = o->type;
	d->n = n;
	uint64_t k = key;
	uint64_t rnd = splitmix64(&k);
	sb_perm_init(&d->perm, n, splitmix64(&k));
	d->perm0 = sb_perm_at(&d->perm, 0);
	switch (o->type) {
	case SB_DIST_ZIPF:
		d->theta = o->param;
		d->zetan = sb_zeta(n, d->theta);
		d->zeta2 = 1.0 + pow(0.5, d->theta);
		d->alpha = 1.0 / (1.0 - d->theta);
		d->eta = (1.0 - pow(2.0 / (double)n, 1.0 - d->theta)) / (1.0 - d->zeta2 / d->zetan);
		d->rot = o->center >= 0 ? (uint64_t)(o->center * (double)n) % n : rnd % n;
		break;
	case SB_DIST_PARETO:
		d->pareto_pow = log(o->param) / log(1.0 - o->param);
		d->rot = o->center >= 0 ? (uint64_t)(o->center * (double)n) % n : rnd % n;
		break;
	case SB_DIST_NORMAL: {
		double w = ceil((double)n * o->param / 100.0);
		d->dev_width = (uint64_t)w;
		if (d->dev_width > n / 2)
			d->dev_width = n / 2;
		/* the construction centres on n/2: rotate to the asked centre */
		double c = o->center >= 0 ? o->center : 0.5;
		double shift = (c - 0.5) * (double)n;
		d->rot = shift >= 0 ? (uint64_t)shift % n : n - ((uint64_t)(-shift) % n);
		if (d->rot == n)
			d->rot = 0;
		break;
	}
	case SB_DIST_ZONED:
	case SB_DIST_ZONED_ABS: {
		uint32_t acc = 0;
		uint64_t at = 0;
		d->nzones = o->nzones;
		for (unsigned i = 0; i < o->nzones; i++) {
			uint64_t len;
			if (o->type == SB_DIST_ZONED)
				len = (uint64_t)((double)n * (double)o->zones[i].range / 100.0 +
						 0.5);
			else
				len = slot_bytes ? o->zones[i].range / slot_bytes : 0;
			if (len == 0)
				len = 1;
			if (at >= n)
				at = n - 1;
			if (at + len > n)
				len = n - at;
			acc += o->zones[i].access;
			d->cum[i] = acc;
			d->zstart[i] = at;
			d->zlen[i] = len;
			at += len;
		}
		break;
	}
	case SB_DIST_RANDOM:
		break;
	}
	return 0;
}

uint64_t sb_dist_rank(const struct sb_dist *d, struct sb_rand *r)
{
	uint64_t n = d->n, v = 0;
	switch (d->type) {
	case SB_DIST_ZIPF: {
		double u = sb_rand_unit(r), uz = u * d->zetan;
		if (uz < 1.0)
			v = 0;
		else if (uz < d->zeta2)
			v = 1;
		else
			v = (uint64_t)((double)n * pow(d->eta * u - d->eta + 1.0, d->alpha));
		break;
	}
	case SB_DIST_PARETO:
		v = (uint64_t)((double)(n - 1) * pow(sb_rand_unit(r), d->pareto_pow));
		break;
	case SB_DIST_NORMAL: {
		uint64_t sum = 0;
		for (int i = 0; i < 12; i++)
			sum += sb_rand_below(r, n + 1);
		v = (sum + 11) / 12;
		if (d->dev_width) {
			int64_t dev = (int64_t)sb_rand_below(r, d->dev_width) -
				      (int64_t)(d->dev_width / 2);
			while (dev && ((int64_t)v + dev < 0 || (uint64_t)((int64_t)v + dev) >= n))
				dev /= 2;
			v = (uint64_t)((int64_t)v + dev);
		}
		/* the mean of draws over [0, n] can reach n itself */
		break;
	}
	default:
		break;
	}
	return v < n ? v : n - 1;
}

uint64_t sb_dist_next(const struct sb_dist *d, struct sb_rand *r)
{
	uint64_t n = d->n;
	if (d->type == SB_DIST_ZONED || d->type == SB_DIST_ZONED_ABS) {
		uint64_t p = sb_rand_below(r, 100);
		unsigned i = 0;
		while (i + 1 < d->nzones && p >= d->cum[i])
			i++;
		return d->zstart[i] + sb_rand_below(r, d->zlen[i]);
	}
	/* spread the ranks as fio hashes them, but one to one, rank 0 at the rotation */
	uint64_t v = (sb_perm_at(&d->perm, sb_dist_rank(d, r)) + n - d->perm0) % n;
	return (v + d->rot) % n;
}

double sb_rand_exp(struct sb_rand *r, double mean)
{
	/* 1 - u is in (0, 1]: the logarithm is finite */
	return -mean * log(1.0 - sb_rand_unit(r));
}
