/* SPDX-License-Identifier: MIT */
#include "tests/unit/harness.h"
#include "stats/stats.h"

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

/* Relative error of v against a reference r (0 when equal, exact zeros included). */
static double relerr(double v, double r)
{
	return v == r ? 0.0 : fabs(v - r) / fabs(r);
}

static int test_betainc_closed_forms(void)
{
	static const double xs[] = {1e-300, 1e-9, 1e-3, 0.1, 0.25, 0.5, 0.7, 0.99, 1 - 1e-9};
	static const double ps[] = {0.1, 0.5, 1, 2, 3.5, 17, 250, 4000};

	for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
		double x = xs[i];
		/* I_x(1, 1) = x: the uniform law */
		CHECK(relerr(sb_betainc(1, 1, x), x) < 1e-14);
		for (size_t j = 0; j < sizeof(ps) / sizeof(ps[0]); j++) {
			double p = ps[j];
			/* I_x(a, 1) = x^a and I_x(1, b) = 1 - (1-x)^b: integrals of a power */
			double xa = pow(x, p), xb = -expm1(p * log1p(-x));
			if (!(relerr(sb_betainc(p, 1, x), xa) < 1e-12) ||
			    !(relerr(sb_betainc(1, p, x), xb) < 1e-12)) {
				fprintf(stderr, "    x=%g p=%g: %.17g vs %.17g, %.17g vs %.17g\n",
					x, p, sb_betainc(p, 1, x), xa, sb_betainc(1, p, x), xb);
				return T_FAIL;
			}
			/*
			 * the reflection s -> 1 - s of the integral, at a pair
			 * y, 1 - y that sums to 1 exactly (1 - x itself may be
			 * rounded: for x = 1e-9 by a relative 1e-7)
			 */
			double y = 1 - x, xy = 1 - y;
			for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
				double q = ps[k];
				double lo = sb_betainc(p, q, xy), hi = sb_betainc(q, p, y);
				CHECK(lo >= 0 && lo <= 1);
				CHECK_NEAR(lo + hi, 1.0, 4e-15);
			}
		}
	}
	/* I_x(1/2, 1/2) = (2/pi) asin(sqrt x): the arcsine law */
	for (int i = 0; i < 10; i++) {
		double x = 0.05 + 0.1 * i;
		CHECK(relerr(sb_betainc(0.5, 0.5, x), 2 / M_PI * asin(sqrt(x))) < 1e-13);
	}
	/* by hand: I_x(2, 3) = 12 (x^2/2 - 2x^3/3 + x^4/4) = 6x^2 - 8x^3 + 3x^4, 0.5248 at 0.4 */
	CHECK_NEAR(sb_betainc(2, 3, 0.4), 0.5248, 2e-15);
	/* symmetric law: I_1/2(a, a) = 1/2 */
	CHECK_NEAR(sb_betainc(7.25, 7.25, 0.5), 0.5, 4e-15);
	CHECK_NEAR(sb_betainc(1e5, 1e5, 0.5), 0.5, 1e-12);
	return T_PASS;
}

static int test_student_t_closed_forms(void)
{
	static const double ts[] = {1e-8, 0.01, 0.3, 1, 2.5, 7, 40, 1e3, 1e6, 1e150, 1e300};

	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		double t = ts[i];
		/* df = 1 is Cauchy's law: p = 1 - 2 atan|t| / pi = 2 atan(1/|t|) / pi */
		double cauchy = 2 / M_PI * atan(1 / t);
		/*
		 * df = 2: p = 1 - |t| / sqrt(t^2 + 2), written without the
		 * cancellation as 2 / (t^2 s (s + 1)) with s = sqrt(1 + 2 / t^2)
		 */
		double s = sqrt(1 + 2 / t / t);
		double two = 2.0 / t / t / (s * (s + 1.0));
		if (!(relerr(sb_student_t_p2(t, 1), cauchy) < 1e-12) ||
		    !(relerr(sb_student_t_p2(-t, 1), cauchy) < 1e-12) ||
		    !(relerr(sb_student_t_p2(t, 2), two) < 1e-12)) {
			fprintf(stderr, "    t=%g: %.17g vs %.17g, %.17g vs %.17g\n", t,
				sb_student_t_p2(t, 1), cauchy, sb_student_t_p2(t, 2), two);
			return T_FAIL;
		}
	}
	/* large df tends to the normal tail: 2 Q(1.96) = 0.04999579... */
	CHECK(relerr(sb_student_t_p2(1.959963984540054, 1e12), 0.05) < 1e-9);
	CHECK(fabs(sb_student_t_p2(1.959963984540054, 1e3) - 0.05) > 2e-4);
	return T_PASS;
}

static int test_stats_special_edges(void)
{
	/* x outside (0, 1): the limits */
	CHECK(sb_betainc(2, 3, 0) == 0.0);
	CHECK(sb_betainc(2, 3, -1) == 0.0);
	CHECK(sb_betainc(2, 3, -INFINITY) == 0.0);
	CHECK(sb_betainc(2, 3, 1) == 1.0);
	CHECK(sb_betainc(2, 3, 7) == 1.0);
	/* a, b not in (0, inf), NaN anywhere: NAN */
	CHECK(isnan(sb_betainc(0, 3, 0.5)));
	CHECK(isnan(sb_betainc(2, -1, 0.5)));
	CHECK(isnan(sb_betainc(INFINITY, 3, 0.5)));
	CHECK(isnan(sb_betainc(1e308, 1e308, 0.5))); /* a + b overflows */
	CHECK(sb_betainc(2, 1e308, 0.5) == 1.0);
	CHECK(isnan(sb_betainc(NAN, 3, 0.5)));
	CHECK(isnan(sb_betainc(2, NAN, 0.5)));
	CHECK(isnan(sb_betainc(2, 3, NAN)));
	/* tiny parameters: I_x(a, b) -> b / (a + b) as both go to 0, at any x */
	CHECK_NEAR(sb_betainc(1e-10, 3e-10, 0.3), 0.75, 1e-9);

	/* t = 0: p = 1 for every df; t = +-inf: p = 0 */
	CHECK(sb_student_t_p2(0, 3) == 1.0);
	CHECK(sb_student_t_p2(-0.0, INFINITY) == 1.0);
	CHECK(sb_student_t_p2(INFINITY, 3) == 0.0);
	CHECK(sb_student_t_p2(-INFINITY, 1e6) == 0.0);
	CHECK(sb_student_t_p2(INFINITY, INFINITY) == 0.0);
	/* df infinite: the normal tail, 2 Q(t) = erfc(t / sqrt 2) */
	CHECK(relerr(sb_student_t_p2(1, INFINITY), erfc(M_SQRT1_2)) < 1e-15);
	CHECK(relerr(sb_student_t_p2(-30, INFINITY), erfc(30 / M_SQRT2)) < 1e-15);
	/* bad df, NaN t: NAN */
	CHECK(isnan(sb_student_t_p2(1, 0)));
	CHECK(isnan(sb_student_t_p2(1, -2)));
	CHECK(isnan(sb_student_t_p2(1, NAN)));
	CHECK(isnan(sb_student_t_p2(NAN, 5)));
	CHECK(isnan(sb_student_t_p2(NAN, INFINITY)));
	/* a tiny t is a p of 1 (not a NaN from 0 * log 0) */
	CHECK(sb_student_t_p2(1e-200, 4) == 1.0);
	/* monotone in |t|, and in df at a fixed t beyond the centre */
	double prev = 1.0;
	for (int i = -3; i < 6; i++) {
		double p = sb_student_t_p2(ldexp(1.0, i), 3.7);
		CHECK(p < prev && p > 0);
		prev = p;
	}
	CHECK(sb_student_t_p2(3, 5) > sb_student_t_p2(3, 50));
	CHECK(sb_student_t_p2(3, 50) > sb_student_t_p2(3, 5e9));
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
	{"stats/betainc-closed-forms", test_betainc_closed_forms},
	{"stats/student-t-closed-forms", test_student_t_closed_forms},
	{"stats/special-edges", test_stats_special_edges},
};
TEST_MAIN(cases)
