/* SPDX-License-Identifier: MIT */
/*
 * lib/stats/changepoint.c (E-divisive means), lib/stats/multitest.c (Holm,
 * Benjamini-Hochberg) and lib/stats/fingerprint.c (workload fingerprints).
 * Reference values: a direct evaluation of each definition in Python (the
 * energy statistic summed pair by pair; the permutation p-value of the
 * 8-point drift by enumerating all 40,320 orders; the adjusted p-values by
 * their min/max formulas), written down here.
 */
#include "tests/unit/harness.h"
#include "stats/changepoint.h"
#include "stats/fingerprint.h"
#include "stats/multitest.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>

/* Q by its definition, pair by pair (no running sums) */
static double q_direct(const double *y, size_t len, size_t tau)
{
	double n = (double)tau, m = (double)(len - tau), cross = 0, wa = 0, wb = 0;
	for (size_t i = 0; i < len; i++)
		for (size_t k = i + 1; k < len; k++) {
			double d = fabs(y[i] - y[k]);
			if (k < tau)
				wa += d;
			else if (i >= tau)
				wb += d;
			else
				cross += d;
		}
	return n * m / (n + m) *
	       (2 * cross / (n * m) - wa / (n * (n - 1) / 2) - wb / (m * (m - 1) / 2));
}

static int test_statistic_matches_definition(void)
{
	const double z[] = {5, 1, 4, 2, 8, 7, 3, 6, 9, 0};
	size_t tau;
	double q;
	CHECK_INT(sb_edivisive_best(z, 0, 10, 2, &tau, &q), 0);
	CHECK_INT(tau, 4);
	CHECK_NEAR(q, 2.64, 1e-12); /* the Python evaluation */
	CHECK_NEAR(q, q_direct(z, 10, 4), 1e-12);
	/* a sub-segment: the same as the segment on its own */
	size_t t2;
	double q2;
	CHECK_INT(sb_edivisive_best(z, 3, 10, 2, &tau, &q), 0);
	CHECK_INT(sb_edivisive_best(z + 3, 0, 7, 2, &t2, &q2), 0);
	CHECK_INT(tau, t2 + 3);
	CHECK_NEAR(q, q2, 1e-12);
	const double step[] = {10, 11, 9, 10, 30, 31, 29, 30, 30};
	CHECK_INT(sb_edivisive_best(step, 0, 9, 2, &tau, &q), 0);
	CHECK_INT(tau, 4);
	CHECK_NEAR(q, 84.8888888888889, 1e-9);
	CHECK_INT(sb_edivisive_best(step, 0, 3, 2, &tau, &q), -EINVAL);
	return T_PASS;
}

/* 3% slower every run over 8 runs: one change, in the middle, p near the exact 0.0286 */
static int test_drift_is_a_change_point(void)
{
	double x[8];
	for (int k = 0; k < 8; k++)
		x[k] = 1000 * pow(0.97, k);
	struct sb_changepoint cp[4];
	size_t n = 0;
	CHECK_INT(sb_changepoints(x, 8, NULL, cp, 4, &n), 0);
	CHECK_INT(n, 1);
	CHECK_INT(cp[0].index, 4);
	/* exact: 1152 of the 8! orders give the same Q; 9,999 draws: 3 sd is 0.005 */
	CHECK(fabs(cp[0].p - 1152.0 / 40320) < 0.005);
	CHECK(cp[0].p < 0.05);
	CHECK_NEAR(cp[0].before_mean, (1000 + 970 + 940.9 + 912.673) / 4, 1e-9);
	CHECK(cp[0].change_pct < -10 && cp[0].change_pct > -13);
	/* deterministic */
	struct sb_changepoint again[4];
	size_t n2;
	CHECK_INT(sb_changepoints(x, 8, NULL, again, 4, &n2), 0);
	CHECK_INT(n2, 1);
	CHECK(again[0].p == cp[0].p);
	return T_PASS;
}

static int test_steps_and_no_change(void)
{
	/* two steps: 100 -> 60 at 6, 60 -> 90 at 12 */
	double x[18];
	const double wiggle[] = {0.5, -0.4, 0.2, -0.1, 0.3, -0.5};
	for (int i = 0; i < 18; i++)
		x[i] = (i < 6 ? 100 : i < 12 ? 60 : 90) + wiggle[i % 6];
	struct sb_changepoint cp[8];
	size_t n = 0;
	CHECK_INT(sb_changepoints(x, 18, NULL, cp, 8, &n), 0);
	CHECK_INT(n, 2);
	CHECK_INT(cp[0].index, 6);
	CHECK_INT(cp[1].index, 12);
	CHECK(cp[0].p < 0.05 && cp[1].p < 0.05);
	CHECK_NEAR(cp[0].change_pct, -40, 1);
	CHECK_NEAR(cp[1].change_pct, 50, 2);
	/* noise without a change: none */
	const double flat[] = {100, 101, 99, 100.5, 99.5, 100.2, 99.8, 100.1, 99.9, 100.4};
	CHECK_INT(sb_changepoints(flat, 10, NULL, cp, 8, &n), 0);
	CHECK_INT(n, 0);
	/* too short to split, bad values, bad options */
	CHECK_INT(sb_changepoints(flat, 3, NULL, cp, 8, &n), 0);
	CHECK_INT(n, 0);
	const double bad[] = {1, 2, NAN, 4};
	CHECK_INT(sb_changepoints(bad, 4, NULL, cp, 8, &n), -EINVAL);
	struct sb_cp_opts o = SB_CP_OPTS_DEFAULT;
	o.sig = 1.5;
	CHECK_INT(sb_changepoints(flat, 10, &o, cp, 8, &n), -EINVAL);
	return T_PASS;
}

static int test_holm_and_bh_reference(void)
{
	const double p[] = {0.04, 0.001, 0.2, 0.03, 0.03, 0.7, 0.012, 0.5};
	const double holm[] = {0.18, 0.008, 0.6, 0.18, 0.18, 1, 0.084, 1};
	const double bh[] = {0.064, 0.008, 0.26666666666666666, 0.06, 0.06,
			     0.7,   0.048, 0.5714285714285714};
	double a[8];
	CHECK_INT(sb_p_adjust(p, 8, SB_PADJ_HOLM, a), 0);
	for (int i = 0; i < 8; i++)
		CHECK_NEAR(a[i], holm[i], 1e-12);
	CHECK_INT(sb_p_adjust(p, 8, SB_PADJ_BH, a), 0);
	for (int i = 0; i < 8; i++)
		CHECK_NEAR(a[i], bh[i], 1e-12);
	/* NaN is not in the family: m stays 2 */
	const double q[] = {0.01, NAN, 0.04};
	double b[3];
	CHECK_INT(sb_p_adjust(q, 3, SB_PADJ_HOLM, b), 0);
	CHECK_NEAR(b[0], 0.02, 1e-15);
	CHECK(isnan(b[1]));
	CHECK_NEAR(b[2], 0.04, 1e-15);
	/* in place, and no correction */
	double c[3] = {0.01, 0.02, 0.5};
	CHECK_INT(sb_p_adjust(c, 3, SB_PADJ_NONE, c), 0);
	CHECK_NEAR(c[1], 0.02, 0);
	const double out[] = {0.5, 1.5};
	CHECK_INT(sb_p_adjust(out, 2, SB_PADJ_HOLM, b), -EINVAL);
	CHECK_INT(sb_padjust_parse("holm"), SB_PADJ_HOLM);
	CHECK_INT(sb_padjust_parse("benjamini-hochberg"), SB_PADJ_BH);
	CHECK_INT(sb_padjust_parse("sidak"), -1);
	return T_PASS;
}

static int fp_of(const char *opts_json, const char *engine, char fp[SB_FINGERPRINT_LEN + 1],
		 json_t **params)
{
	json_t *o = json_loads(opts_json, 0, NULL);
	int r = o ? sb_workload_fingerprint(o, engine, params, fp) : -EINVAL;
	json_decref(o);
	return r;
}

static int test_fingerprint_normalises(void)
{
	char a[SB_FINGERPRINT_LEN + 1], b[SB_FINGERPRINT_LEN + 1];
	json_t *pa = NULL, *pb = NULL;
	/* spellings, units, defaults and naming do not change it */
	CHECK_INT(fp_of("{\"name\":\"x\",\"rw\":\"randread\",\"bs\":\"4k\",\"iodepth\":\"8\","
			"\"runtime\":\"1m\",\"directory\":\"/a\",\"numjobs\":\"1\"}",
			"io_uring", a, &pa),
		  0);
	CHECK_INT(fp_of("{\"name\":\"y\",\"readwrite\":\"RandRead\",\"blocksize\":\"4096\","
			"\"iodepth\":\"8\",\"runtime\":\"60\",\"filename\":\"/b/f\","
			"\"ioengine\":\"io_uring\",\"group_reporting\":\"1\"}",
			NULL, b, &pb),
		  0);
	CHECK_INT(strlen(a), SB_FINGERPRINT_LEN);
	CHECK_STR(a, b);
	CHECK(json_equal(pa, pb));
	CHECK_STR(json_string_value(json_object_get(pa, "runtime")), "60000000");
	CHECK(!json_object_get(pa, "bs")); /* 4096 is the default */
	json_decref(pb);
	/* iodepth changed: another workload, and the difference says what */
	CHECK_INT(fp_of("{\"rw\":\"randread\",\"iodepth\":\"16\",\"runtime\":\"60s\"}", "io_uring",
			b, &pb),
		  0);
	CHECK(strcmp(a, b) != 0);
	char d[128];
	CHECK_STR(sb_params_diff(pa, pb, d, sizeof(d)), "iodepth 8 -> 16");
	json_decref(pb);
	/* the engine that ran counts: a fallback to psync is another workload */
	CHECK_INT(fp_of("{\"rw\":\"randread\",\"bs\":\"4k\",\"iodepth\":\"8\",\"runtime\":\"1m\"}",
			"psync", b, &pb),
		  0);
	CHECK(strcmp(a, b) != 0);
	CHECK_STR(sb_params_diff(pa, pb, d, sizeof(d)), "engine io_uring -> psync");
	json_decref(pb);
	/* buffered=0 is direct=1; rwmixwrite=30 is rwmixread=70; a rate appears */
	CHECK_INT(
		fp_of("{\"rw\":\"randrw\",\"buffered\":\"0\",\"rwmixwrite\":\"30\"}", NULL, a, &pb),
		0);
	json_t *pc = NULL;
	CHECK_INT(fp_of("{\"rw\":\"randrw\",\"direct\":\"1\",\"rwmixread\":\"70\"}", NULL, b, &pc),
		  0);
	CHECK_STR(a, b);
	json_decref(pc);
	CHECK_INT(fp_of("{\"rw\":\"randrw\",\"direct\":\"1\",\"rwmixread\":\"70\","
			"\"rate_iops\":\"1k\"}",
			NULL, b, &pc),
		  0);
	CHECK_STR(sb_params_diff(pb, pc, d, sizeof(d)), "rate_iops (none) -> 1000");
	json_decref(pa);
	json_decref(pb);
	json_decref(pc);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"changepoint/statistic-matches-definition", test_statistic_matches_definition},
	{"changepoint/drift-is-a-change-point", test_drift_is_a_change_point},
	{"changepoint/steps-and-no-change", test_steps_and_no_change},
	{"multitest/holm-and-bh-reference", test_holm_and_bh_reference},
	{"fingerprint/normalises", test_fingerprint_normalises},
};
TEST_MAIN(cases)
