/* SPDX-License-Identifier: MIT */
#include "tests/unit/harness.h"
#include "stats.h"

#include <errno.h>

static int test_welford_matches_two_pass(void)
{
	const double v[] = {22748, 21000, 24001, 20500, 23333, 25010, 19999, 22222};
	const size_t n = sizeof(v) / sizeof(v[0]);
	struct sb_stat s = SB_STAT_INIT;
	double sum = 0, ss = 0;

	for (size_t i = 0; i < n; i++) {
		sb_stat_add(&s, v[i]);
		sum += v[i];
	}
	double mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	CHECK_NEAR(s.mean, mean, 1e-9);
	CHECK_NEAR(sb_stat_stddev(&s), sqrt(ss / (double)(n - 1)), 1e-9);
	CHECK_NEAR(s.min, 19999, 0);
	CHECK_NEAR(s.max, 25010, 0);
	return T_PASS;
}

static int test_merge_equals_whole(void)
{
	struct sb_stat whole = SB_STAT_INIT, a = SB_STAT_INIT, b = SB_STAT_INIT,
		       empty = SB_STAT_INIT;
	for (int i = 0; i < 1000; i++) {
		double v = (double)((i * 7919) % 1013) + 0.25 * i;
		sb_stat_add(&whole, v);
		sb_stat_add(i < 137 ? &a : &b, v);
	}
	sb_stat_merge(&a, &b);
	sb_stat_merge(&a, &empty);
	CHECK_INT(a.n, whole.n);
	CHECK_NEAR(a.mean, whole.mean, 1e-9);
	CHECK_NEAR(sb_stat_stddev(&a), sb_stat_stddev(&whole), 1e-9);
	CHECK_NEAR(a.min, whole.min, 0);
	CHECK_NEAR(a.max, whole.max, 0);
	sb_stat_merge(&empty, &whole);
	CHECK_NEAR(empty.mean, whole.mean, 0);
	return T_PASS;
}

static int test_summary(void)
{
	/* hand-computed: mean 5, deviations -3,-1,1,3 -> ss 20, var 20/3 */
	const double v[] = {8, 2, 6, 4};
	struct sb_summary s;
	CHECK_INT(sb_summary_compute(v, 4, &s), 0);
	CHECK_INT(s.n, 4);
	CHECK_NEAR(s.mean, 5.0, 1e-12);
	CHECK_NEAR(s.stddev, sqrt(20.0 / 3.0), 1e-12);
	CHECK_NEAR(s.median, 5.0, 1e-12);
	CHECK_NEAR(s.cv, sqrt(20.0 / 3.0) / 5.0, 1e-12);
	CHECK_NEAR(s.min, 2, 0);
	CHECK_NEAR(s.max, 8, 0);
	CHECK(v[0] == 8); /* input untouched */
	CHECK_INT(sb_summary_compute(v, 0, &s), -ENODATA);
	const double one[] = {42};
	CHECK_INT(sb_summary_compute(one, 1, &s), 0);
	CHECK_NEAR(s.stddev, 0.0, 0);
	CHECK_NEAR(s.median, 42, 0);
	return T_PASS;
}

static int test_welch_reference(void)
{
	/*
	 * Wikipedia's Welch example 1. Reference t and df from the textbook
	 * formulas, p from a Simpson integration of Student's t density
	 * (independent of the continued fraction used here).
	 */
	const double a[] = {27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1,
			    21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4};
	const double b[] = {27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0,
			    24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4};
	double t, df, p;
	CHECK_INT(sb_welch_t(a, 15, b, 15, &t, &df, &p), 0);
	CHECK_NEAR(t, -2.455356398286006, 1e-9);
	CHECK_NEAR(df, 24.98852929023142, 1e-9);
	CHECK_NEAR(p, 0.02137800146286173, 1e-7);
	/* symmetric */
	double t2, df2, p2;
	CHECK_INT(sb_welch_t(b, 15, a, 15, &t2, &df2, &p2), 0);
	CHECK_NEAR(t2, -t, 1e-12);
	CHECK_NEAR(p2, p, 1e-12);
	return T_PASS;
}

static int test_student_t_known_values(void)
{
	/* t = 2.228 at df = 10 is the two-sided 5% critical value */
	CHECK_NEAR(sb_student_t_p2(2.228138851986, 10), 0.05, 1e-9);
	/* df = 1 is Cauchy: P(|T| >= 1) = 0.5 */
	CHECK_NEAR(sb_student_t_p2(1.0, 1), 0.5, 1e-12);
	CHECK_NEAR(sb_student_t_p2(0.0, 5), 1.0, 1e-12);
	CHECK_NEAR(sb_betainc(2, 3, 0.4), 0.5248, 1e-12);
	return T_PASS;
}

static int test_welch_degenerate(void)
{
	const double a[] = {5, 5, 5}, b[] = {5, 5}, c[] = {7, 7}, one[] = {1};
	double t, df, p;
	CHECK_INT(sb_welch_t(a, 3, b, 2, &t, &df, &p), -EDOM);
	CHECK_NEAR(p, 1.0, 0);
	CHECK_INT(sb_welch_t(a, 3, c, 2, &t, &df, &p), -EDOM);
	CHECK_NEAR(p, 0.0, 0);
	CHECK_INT(sb_welch_t(a, 3, one, 1, &t, &df, &p), -EINVAL);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"stats/welford-matches-two-pass", test_welford_matches_two_pass},
	{"stats/merge-equals-whole", test_merge_equals_whole},
	{"stats/summary-hand-computed", test_summary},
	{"stats/welch-reference", test_welch_reference},
	{"stats/student-t-known-values", test_student_t_known_values},
	{"stats/welch-degenerate", test_welch_degenerate},
};
TEST_MAIN(cases)
