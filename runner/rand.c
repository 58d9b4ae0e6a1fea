/* SPDX-License-Identifier: MIT */
#include "runner/rand.h"

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
