/* SPDX-License-Identifier: MIT */
/*
 * Statistics: running mean/variance (Welford) with min/max, merged exactly
 * across threads, iterations or pods (Chan et al.), and summaries of a set
 * of samples (the per-iteration figures a report shows).
 *
 * Standard deviations are sample standard deviations (divisor n - 1), as
 * fio reports and as the reference pages mean it; with n < 2 they are 0.
 */
#ifndef SB_LIB_STATS_STATS_H
#define SB_LIB_STATS_STATS_H

#include <stddef.h>
#include <stdint.h>

struct sb_stat {
	uint64_t n;
	double mean;
	double m2; /* sum of squared deviations from the mean */
	double min;
	double max;
};

#define SB_STAT_INIT \
	{            \
		0    \
	}

void sb_stat_add(struct sb_stat *s, double v);
/* dst becomes the statistics of both sample sets. */
void sb_stat_merge(struct sb_stat *dst, const struct sb_stat *src);
double sb_stat_stddev(const struct sb_stat *s);
double sb_stat_variance(const struct sb_stat *s);

/* Summary of a sample set. */
struct sb_summary {
	size_t n;
	double mean;
	double stddev; /* sample (n - 1) */
	double min;
	double max;
	double median;
	double cv; /* stddev / mean; 0 when mean is 0 */
};

/*
 * Computes the summary of v[0..n). v is not modified. Returns 0, or
 * -ENODATA when n is 0 (s is zeroed), -ENOMEM.
 */
int sb_summary_compute(const double *v, size_t n, struct sb_summary *s);

/* Median of v[0..n) (sorts a copy). Returns 0 for n == 0. */
double sb_median(const double *v, size_t n);

/*
 * Welch's unequal-variances t-test of two sample sets, two-sided.
 * Writes t, the Welch–Satterthwaite degrees of freedom and the p-value.
 * Returns 0, or -EINVAL when either set has fewer than 2 samples, and
 * -EDOM when both variances are 0 (p is then 1 if the means are equal,
 * else 0, and t is +-inf or 0).
 */
int sb_welch_t(const double *a, size_t na, const double *b, size_t nb, double *t, double *df,
	       double *p);

/*
 * Two-sided p-value of Student's t distribution: P(|T| >= |t|) with df
 * degrees of freedom (any real df > 0), I_x(df/2, 1/2) at x = df / (df +
 * t^2). t = 0 gives 1, t = +-inf gives 0; df = +inf (and df above 1e30,
 * where the two agree to double precision) gives the normal tail
 * erfc(|t| / sqrt 2). NAN when t or df is NaN or df <= 0.
 */
double sb_student_t_p2(double t, double df);

/*
 * Regularized incomplete beta function I_x(a, b) = B(x; a, b) / B(a, b)
 * (derivation and method in stats.c). x <= 0 gives 0 and x >= 1 gives 1
 * (the limits); NAN when a or b is NaN, not > 0 or infinite (or a + b
 * overflows), when x is NaN, or when the continued fraction does not
 * converge (only for a and b both beyond ~1e15 with x near a / (a + b)).
 */
double sb_betainc(double a, double b, double x);

#endif
