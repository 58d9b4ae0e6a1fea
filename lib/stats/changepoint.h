/* SPDX-License-Identifier: MIT */
/*
 * Change points of a series (a schedule's history of one figure, oldest
 * first): E-divisive means, after Matteson and James, "A Nonparametric
 * Approach for Multiple Change Point Analysis of Multivariate Data" (JASA
 * 2014), the method MongoDB's performance CI uses on its nightly results.
 *
 * For a segment x[a..b) split at tau into A = x[a..tau), B = x[tau..b)
 * (sizes n, m), the energy distance with exponent 1 is
 *   E = 2/(n m) sum |A_i - B_j| - 1/C(n,2) sum_{i<k} |A_i - A_k|
 *                                - 1/C(m,2) sum_{j<k} |B_j - B_k|
 * and the statistic Q = n m / (n + m) E. The change is where Q is largest.
 * Its significance is a permutation test: the values are shuffled within
 * the segments found so far, R times, and p = (1 + #{shuffles whose largest
 * Q >= the one observed}) / (R + 1). While p < sig the segment is split and
 * the search goes on in every segment (divisive, binary segmentation).
 *
 * R is 9,999 for a history of up to 20 points and falls as 4e6 / n^2 (at
 * least 199) beyond, so a test costs about 4e6 distance sums whatever n.
 * Deterministic: the shuffles come from a fixed-seed generator, so the same
 * series always gives the same answer (a status that does not flap).
 * Segments are at least min_size long (2: the within-segment term needs a
 * pair). O(n^2) per scan (the sums are updated as tau moves), O(R n^2)
 * per change point found.
 */
#ifndef SB_LIB_STATS_CHANGEPOINT_H
#define SB_LIB_STATS_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

struct sb_cp_opts {
	double sig;	   /* significance level, default 0.05 */
	unsigned perms;	   /* permutations R; 0: 4e6 / n^2 within [199, 9999] */
	size_t min_size;   /* shortest segment, default 2 */
	uint64_t seed;	   /* default a fixed constant */
	size_t max_points; /* stop after this many, default 8 */
};

#define SB_CP_OPTS_DEFAULT       \
	{                        \
		0.05, 0, 2, 0, 8 \
	}

struct sb_changepoint {
	size_t index;	    /* the first point after the change */
	double q;	    /* the statistic Q where it was found */
	double p;	    /* the permutation test's p-value */
	double before_mean; /* mean of the segment before (from the previous change) */
	double after_mean;  /* mean of the segment after (to the next change) */
	double change_pct;  /* 100 (after - before) / before; NaN when before is 0 */
};

/*
 * Finds the change points of x[0..n) (finite values), at most max of them
 * (and at most o->max_points), written to cps sorted by index; *ncps their
 * number. o NULL: the defaults. Returns 0, -EINVAL (a value is not finite,
 * an option out of range), -ENOMEM.
 */
int sb_changepoints(const double *x, size_t n, const struct sb_cp_opts *o,
		    struct sb_changepoint *cps, size_t max, size_t *ncps);

/*
 * The statistic Q of splitting x[a..b) at every tau in [a + min_size,
 * b - min_size]: *best_tau and *best_q of the largest (first on ties).
 * Returns 0, or -EINVAL when the segment is shorter than 2 min_size.
 * (Exposed for the tests, which check it against a direct evaluation.)
 */
int sb_edivisive_best(const double *x, size_t a, size_t b, size_t min_size, size_t *best_tau,
		      double *best_q);

#endif
