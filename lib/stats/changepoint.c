/* SPDX-License-Identifier: MIT */
/* E-divisive means change points. See changepoint.h. */
#include "changepoint.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_SEED 0x5b5eed5b5eed5b5eULL

/* Two values of Q that differ by less than this (relative) are equal: a
 * shuffle that puts the same values on each side gives the same Q but for
 * rounding, and must count as "at least as large". */
#define Q_TIES 1e-9

static double pair_sum(const double *y, size_t from, size_t to)
{
	double s = 0;
	for (size_t i = from; i < to; i++)
		for (size_t k = i + 1; k < to; k++)
			s += fabs(y[i] - y[k]);
	return s;
}

int sb_edivisive_best(const double *x, size_t a, size_t b, size_t min_size, size_t *best_tau,
		      double *best_q)
{
	if (min_size < 2)
		min_size = 2;
	if (b < a || b - a < 2 * min_size)
		return -EINVAL;
	const double *y = x + a;
	size_t len = b - a;
	double total = pair_sum(y, 0, len);
	double wa = pair_sum(y, 0, min_size), wb = pair_sum(y, min_size, len);
	*best_tau = a + min_size;
	*best_q = -INFINITY;
	for (size_t tau = min_size;; tau++) {
		double n = (double)tau, m = (double)(len - tau);
		double cross = total - wa - wb;
		double e = 2 * cross / (n * m) - wa / (n * (n - 1) / 2) - wb / (m * (m - 1) / 2);
		double q = n * m / (n + m) * e;
		if (q > *best_q) {
			*best_q = q;
			*best_tau = a + tau;
		}
		if (tau + 1 > len - min_size)
			break;
		/* y[tau] moves from B to A */
		double v = y[tau], da = 0, db = 0;
		for (size_t i = 0; i < tau; i++)
			da += fabs(v - y[i]);
		for (size_t j = tau + 1; j < len; j++)
			db += fabs(v - y[j]);
		wa += da;
		wb -= db;
	}
	return 0;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* segment boundaries 0 = cut[0] < cut[1] < ... < cut[k] = n */
struct cuts {
	size_t *at;
	size_t k;
};

/* The largest best-Q over the segments of x that can be split; *seg its segment, *tau the split. */
static double scan(const double *x, const struct cuts *c, size_t min_size, size_t *seg, size_t *tau)
{
	double best = -INFINITY;
	for (size_t s = 0; s < c->k; s++) {
		size_t t;
		double q;
		if (sb_edivisive_best(x, c->at[s], c->at[s + 1], min_size, &t, &q))
			continue;
		if (q > best) {
			best = q;
			*seg = s;
			*tau = t;
		}
	}
	return best;
}

/* The permutation test's p-value of the largest Q observed (q_obs) given the cuts. */
static double perm_p(const double *x, size_t n, const struct cuts *c, double q_obs,
		     const struct sb_cp_opts *o, uint64_t *rng, double *work)
{
	unsigned ge = 0;
	for (unsigned r = 0; r < o->perms; r++) {
		memcpy(work, x, n * sizeof(*work));
		for (size_t s = 0; s < c->k; s++) {
			size_t from = c->at[s], len = c->at[s + 1] - from;
			for (size_t i = len; i > 1; i--) { /* Fisher-Yates within the segment */
				size_t j = (size_t)(splitmix(rng) % i);
				double t = work[from + i - 1];
				work[from + i - 1] = work[from + j];
				work[from + j] = t;
			}
		}
		size_t seg, tau;
		double q = scan(work, c, o->min_size, &seg, &tau);
		if (q >= q_obs - Q_TIES * fabs(q_obs))
			ge++;
	}
	return (1.0 + ge) / (1.0 + o->perms);
}

static int check_opts(const struct sb_cp_opts *in, struct sb_cp_opts *o)
{
	const struct sb_cp_opts def = SB_CP_OPTS_DEFAULT;
	*o = in ? *in : def;
	(void)def;
	if (o->min_size < 2)
		o->min_size = 2;
	if (!o->seed)
		o->seed = DEFAULT_SEED;
	if (!o->max_points)
		o->max_points = def.max_points;
	if (!(o->sig > 0 && o->sig < 1) || o->perms > 1000000)
		return -EINVAL;
	return 0;
}

static double mean_of(const double *x, size_t a, size_t b)
{
	double s = 0;
	for (size_t i = a; i < b; i++)
		s += x[i];
	return b > a ? s / (double)(b - a) : NAN;
}

/* The cuts found (beyond 0 and n) as change points with their segments' means. */
static size_t fill(const double *x, const struct cuts *c, const double *qs, const double *ps,
		   struct sb_changepoint *cps, size_t max)
{
	size_t k = 0;
	for (size_t s = 1; s < c->k && k < max; s++, k++) {
		struct sb_changepoint *cp = &cps[k];
		cp->index = c->at[s];
		cp->q = qs[s];
		cp->p = ps[s];
		cp->before_mean = mean_of(x, c->at[s - 1], c->at[s]);
		cp->after_mean = mean_of(x, c->at[s], c->at[s + 1]);
		cp->change_pct = cp->before_mean != 0 ? 100.0 * (cp->after_mean - cp->before_mean) /
								fabs(cp->before_mean)
						      : NAN;
	}
	return k;
}

/* Inserts tau into the sorted cuts after segment seg, with its q and p beside it. */
static void insert_cut(struct cuts *c, double *qs, double *ps, size_t seg, size_t tau, double q,
		       double p)
{
	size_t at = seg + 1;
	memmove(c->at + at + 1, c->at + at, (c->k + 1 - at) * sizeof(*c->at));
	memmove(qs + at + 1, qs + at, (c->k + 1 - at) * sizeof(*qs));
	memmove(ps + at + 1, ps + at, (c->k + 1 - at) * sizeof(*ps));
	c->at[at] = tau;
	qs[at] = q;
	ps[at] = p;
	c->k++;
}

int sb_changepoints(const double *x, size_t n, const struct sb_cp_opts *opts,
		    struct sb_changepoint *cps, size_t max, size_t *ncps)
{
	struct sb_cp_opts o;
	*ncps = 0;
	if (check_opts(opts, &o))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return -EINVAL;
	if (n < 2 * o.min_size || !max)
		return 0;
	size_t cap = (o.max_points < max ? o.max_points : max) + 2;
	struct cuts c = {calloc(cap, sizeof(size_t)), 1};
	double *qs = calloc(cap, sizeof(double)), *ps = calloc(cap, sizeof(double));
	double *work = malloc(n * sizeof(double));
	int ret = -ENOMEM;
	if (!c.at || !qs || !ps || !work)
		goto out;
	c.at[0] = 0;
	c.at[1] = n;
	if (!o.perms) {
		/* as many as about 4e6 pair distances allow: 9,999 for a short
		 * history (the p-value within +-0.005 of the exact one near 0.03),
		 * 400 for 100 runs */
		double r = 4e6 / ((double)n * (double)n);
		o.perms = r > 9999 ? 9999 : r < 199 ? 199 : (unsigned)r;
	}
	uint64_t rng = o.seed;
	while (c.k + 1 < cap) {
		size_t seg = 0, tau = 0;
		double q = scan(x, &c, o.min_size, &seg, &tau);
		if (!isfinite(q) || q <= 0)
			break;
		double p = perm_p(x, n, &c, q, &o, &rng, work);
		if (p >= o.sig)
			break;
		insert_cut(&c, qs, ps, seg, tau, q, p);
	}
	*ncps = fill(x, &c, qs, ps, cps, max);
	ret = 0;
out:
	free(c.at);
	free(qs);
	free(ps);
	free(work);
	return ret;
}
