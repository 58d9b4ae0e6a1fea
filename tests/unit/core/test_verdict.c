/* SPDX-License-Identifier: MIT */
/*
 * lib/stats/verdict.c (regressions and improvements beyond a threshold, from real
 * comparisons made by lib/report/compare.c) and controller/run/regression.c (the
 * Regressed condition and its event).
 */
#include "tests/unit/harness.h"
#include "report/compare.h"
#include "controller/run/regression.h"
#include "core/labels.h"
#include "stats/stats.h"
#include "stats/verdict.h"

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>

static char err[256];

/* a report of one target with two workloads; metric values from samples */
static json_t *report(const char *name, const double *iops, const double *lat, size_t n)
{
	struct sb_summary si, sl;
	json_t *s1 = json_array(), *s2 = json_array();
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(s1, json_real(iops[i]));
		json_array_append_new(s2, json_real(lat[i]));
	}
	if (sb_summary_compute(iops, n, &si) || sb_summary_compute(lat, n, &sl))
		return NULL;
	return json_pack("{s:s,s:[{s:s,s:s,s:[s],s:{s:{s:s,s:f,s:f,s:I,s:o}}},"
			 "{s:s,s:s,s:[s],s:{s:{s:s,s:f,s:f,s:I,s:o}}}]}",
			 "name", name, "results", "target", "fast", "workload", "rr", "headline",
			 "read-iops", "metrics", "read-iops", "unit", "IOPS", "mean", si.mean,
			 "stddev", si.stddev, "n", (json_int_t)n, "samples", s1, "target", "fast",
			 "workload", "lat", "headline", "read-lat-mean", "metrics", "read-lat-mean",
			 "unit", "ns", "mean", sl.mean, "stddev", sl.stddev, "n", (json_int_t)n,
			 "samples", s2);
}

static json_t *compare_reports(const double *bi, const double *bl, const double *ci,
			       const double *cl, size_t n)
{
	json_t *b = report("before", bi, bl, n), *c = report("after", ci, cl, n), *cmp = NULL;
	if (b && c && sb_compare(b, c, &cmp, err, sizeof(err)))
		fprintf(stderr, "    compare: %s\n", err);
	json_decref(b);
	json_decref(c);
	if (cmp) {
		json_object_set_new(cmp, "baseline", json_string("nightly-1"));
		json_object_set_new(cmp, "current", json_string("nightly-2"));
	}
	return cmp;
}

static const double base_iops[] = {1000, 1010, 990, 1005, 995};
static const double base_lat[] = {100000, 101000, 99000, 100500, 99500};

static int test_regression_and_improvement(void)
{
	/* IOPS down 30% (a regression), latency down 20% (an improvement) */
	static const double cur_iops[] = {700, 707, 693, 703, 697};
	static const double cur_lat[] = {80000, 80800, 79200, 80400, 79600};
	json_t *cmp = compare_reports(base_iops, base_lat, cur_iops, cur_lat, 5);
	CHECK(cmp);
	json_t *v = NULL;
	int r = sb_verdict(cmp, 10, &v, err, sizeof(err));
	json_decref(cmp);
	CHECK_INT(r, 0);
	const json_t *reg = json_object_get(v, "regressions");
	const json_t *imp = json_object_get(v, "improvements");
	int ok = json_array_size(reg) == 1 && json_array_size(imp) == 1;
	const json_t *e = json_array_get(reg, 0), *f = json_array_get(imp, 0);
	ok = ok && !strcmp(json_string_value(json_object_get(e, "metric")), "read-iops") &&
	     !strcmp(json_string_value(json_object_get(e, "workload")), "rr") &&
	     fabs(json_number_value(json_object_get(e, "change_pct")) + 30) < 0.01 &&
	     json_number_value(json_object_get(e, "p")) < 0.05 &&
	     !strcmp(json_string_value(json_object_get(f, "metric")), "read-lat-mean") &&
	     fabs(json_number_value(json_object_get(f, "change_pct")) + 20) < 0.01;
	char buf[512];
	sb_verdict_summary(v, buf, sizeof(buf));
	json_decref(v);
	CHECK(ok);
	CHECK(strncmp(buf, "1 regression beyond 10%: fast/rr read-iops -30.0% (p=", 53) == 0);
	CHECK(strstr(buf, "; 1 improvement beyond 10%: fast/lat read-lat-mean -20.0% (p="));

	/* the same changes under a 35% threshold: nothing */
	cmp = compare_reports(base_iops, base_lat, cur_iops, cur_lat, 5);
	CHECK(cmp);
	r = sb_verdict(cmp, 35, &v, err, sizeof(err));
	json_decref(cmp);
	CHECK_INT(r, 0);
	sb_verdict_summary(v, buf, sizeof(buf));
	size_t n = json_array_size(json_object_get(v, "regressions")) +
		   json_array_size(json_object_get(v, "improvements"));
	json_decref(v);
	CHECK_INT(n, 0);
	CHECK_STR(buf, "no significant change beyond 35%");
	return T_PASS;
}

static int test_noise_is_not_a_regression(void)
{
	/* 15% lower on average but so noisy the t-test does not call it */
	static const double cur_iops[] = {400, 1300, 700, 1200, 650};
	static const double cur_lat[] = {100000, 101000, 99000, 100500, 99500};
	json_t *cmp = compare_reports(base_iops, base_lat, cur_iops, cur_lat, 5);
	CHECK(cmp);
	json_t *v = NULL;
	int r = sb_verdict(cmp, 10, &v, err, sizeof(err));
	json_decref(cmp);
	CHECK_INT(r, 0);
	size_t n = json_array_size(json_object_get(v, "regressions"));
	json_decref(v);
	CHECK_INT(n, 0);
	/* one sample a side: "n too small", never a verdict */
	static const double one[] = {500};
	json_t *b = report("b", base_iops, base_lat, 1), *c = report("c", one, base_lat, 1);
	cmp = NULL;
	r = sb_compare(b, c, &cmp, err, sizeof(err));
	json_decref(b);
	json_decref(c);
	CHECK_INT(r, 0);
	r = sb_verdict(cmp, 0, &v, err, sizeof(err));
	json_decref(cmp);
	n = json_array_size(json_object_get(v, "regressions"));
	json_decref(v);
	CHECK_INT(r, 0);
	CHECK_INT(n, 0);
	return T_PASS;
}

/* raw p 0.0397 (scipy's Welch test) is a regression alone; Holm over the verdict's two
 * tests makes it 0.0795: not one. The same with the schedule regressed before: held. */
static int test_holm_and_hysteresis(void)
{
	static const double cur_iops[] = {800, 1000, 700, 900, 850};
	json_t *cmp = compare_reports(base_iops, base_lat, cur_iops, base_lat, 5);
	CHECK(cmp);
	json_t *v = NULL, *w = NULL, *h = NULL;
	struct sb_verdict_opts o = {10, SB_PADJ_NONE, false};
	CHECK_INT(sb_verdict_ex(cmp, &o, &w, err, sizeof(err)), 0);
	CHECK_INT(sb_verdict(cmp, 10, &v, err, sizeof(err)), 0);
	o.correction = SB_PADJ_HOLM;
	o.was_regressed = true;
	CHECK_INT(sb_verdict_ex(cmp, &o, &h, err, sizeof(err)), 0);
	json_decref(cmp);
	const json_t *e = json_array_get(json_object_get(w, "regressions"), 0);
	bool ok = json_array_size(json_object_get(w, "regressions")) == 1 &&
		  fabs(json_number_value(json_object_get(e, "p")) - 0.039731852769801845) < 1e-9 &&
		  json_array_size(json_object_get(v, "regressions")) == 0 &&
		  !strcmp(json_string_value(json_object_get(v, "correction")), "holm") &&
		  json_integer_value(json_object_get(v, "tests")) == 2;
	e = json_array_get(json_object_get(h, "regressions"), 0);
	ok = ok && json_array_size(json_object_get(h, "regressions")) == 1 &&
	     json_is_true(json_object_get(e, "held")) &&
	     fabs(json_number_value(json_object_get(e, "p_adjusted")) - 2 * 0.039731852769801845) <
		     1e-9;
	char buf[256];
	sb_verdict_summary(h, buf, sizeof(buf));
	json_decref(v);
	json_decref(w);
	json_decref(h);
	CHECK(ok);
	CHECK(strstr(buf, "fast/rr read-iops -15.0% (p=0.0795, not back within)"));
	/* back within the threshold: the hysteresis lets go */
	static const double back[] = {960, 950, 945, 955, 950};
	cmp = compare_reports(base_iops, base_lat, back, base_lat, 5);
	CHECK(cmp);
	CHECK_INT(sb_verdict_ex(cmp, &o, &h, err, sizeof(err)), 0);
	json_decref(cmp);
	size_t n = json_array_size(json_object_get(h, "regressions"));
	json_decref(h);
	CHECK_INT(n, 0);
	return T_PASS;
}

/* a changed workload is listed as not comparable, never judged; a pool of baselines */
static int test_not_comparable_and_pool(void)
{
	static const double slow[] = {100, 101, 99, 100, 100};
	json_t *b = report("b", base_iops, base_lat, 5), *c = report("c", slow, base_lat, 5);
	CHECK(b && c);
	json_t *rb = json_array_get(json_object_get(b, "results"), 0);
	json_t *rc = json_array_get(json_object_get(c, "results"), 0);
	json_object_set_new(rb, "fingerprint", json_string("aaaa"));
	json_object_set_new(rb, "params", json_pack("{s:s}", "iodepth", "8"));
	json_object_set_new(rc, "fingerprint", json_string("bbbb"));
	json_object_set_new(rc, "params", json_pack("{s:s}", "iodepth", "16"));
	json_t *cmp = NULL, *v = NULL;
	CHECK_INT(sb_compare(b, c, &cmp, err, sizeof(err)), 0);
	CHECK_INT(sb_verdict(cmp, 10, &v, err, sizeof(err)), 0);
	char buf[256];
	sb_verdict_summary(v, buf, sizeof(buf));
	size_t nr = json_array_size(json_object_get(v, "regressions"));
	size_t nres = json_array_size(json_object_get(cmp, "results"));
	json_decref(cmp);
	json_decref(v);
	CHECK_INT(nr, 0);
	CHECK_INT(nres, 1); /* the other workload (lat) is still compared */
	CHECK_STR(buf, "no significant change beyond 10%; 1 not comparable (another workload): "
		       "fast/rr (iodepth 8 -> 16)");
	/* pooled: two baselines of 5 iterations are 10 samples; a third of another
	 * workload is left out */
	json_object_set_new(rc, "fingerprint", json_string("aaaa"));
	json_t *d = report("d", slow, base_lat, 5);
	json_object_set_new(json_array_get(json_object_get(d, "results"), 0), "fingerprint",
			    json_string("cccc"));
	const json_t *reps[] = {b, c, d};
	json_t *pool = NULL;
	CHECK_INT(sb_report_pool(reps, 3, &pool, err, sizeof(err)), 0);
	json_t *m = json_object_get(
		json_object_get(json_array_get(json_object_get(pool, "results"), 0), "metrics"),
		"read-iops");
	bool ok = json_array_size(json_object_get(m, "samples")) == 10 &&
		  fabs(json_number_value(json_object_get(m, "mean")) - 550) < 1e-9 &&
		  json_array_size(json_object_get(pool, "pooled")) == 3;
	json_decref(pool);
	json_decref(b);
	json_decref(c);
	json_decref(d);
	CHECK(ok);
	return T_PASS;
}

static int test_bad_input(void)
{
	json_t *v = (json_t *)1;
	CHECK_INT(sb_verdict(NULL, 10, &v, err, sizeof(err)), -EINVAL);
	CHECK(v == NULL);
	CHECK_STR(err, "comparison: not an object");
	json_t *x = json_pack("{s:i}", "results", 3);
	CHECK_INT(sb_verdict(x, 10, &v, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "comparison: results: not an array");
	json_decref(x);
	x = json_pack("{s:[i]}", "results", 3);
	CHECK_INT(sb_verdict(x, 10, &v, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "comparison: results[0]: not an object");
	CHECK_INT(sb_verdict(x, -1, &v, err, sizeof(err)), -EINVAL);
	json_decref(x);
	/* a long list is cut with "..." */
	json_t *doc =
		json_pack("{s:f,s:[],s:[]}", "threshold_pct", 10.0, "regressions", "improvements");
	for (int i = 0; i < 50; i++)
		json_array_append_new(json_object_get(doc, "regressions"),
				      json_pack("{s:s,s:s,s:s,s:f,s:f}", "target", "fast",
						"workload", "w", "metric", "read-iops",
						"change_pct", -50.0, "p", 0.001));
	char buf[200];
	sb_verdict_summary(doc, buf, sizeof(buf));
	json_decref(doc);
	CHECK_INT(strlen(buf), sizeof(buf) - 1);
	CHECK(!strcmp(buf + sizeof(buf) - 4, "..."));
	return T_PASS;
}

/* controller/run/regression.c: the condition on a run and when it is announced */
static int test_run_condition(void)
{
	static const double cur_iops[] = {700, 707, 693, 703, 697};
	json_t *cmp = compare_reports(base_iops, base_lat, cur_iops, base_lat, 5);
	CHECK(cmp);
	char *text = json_dumps(cmp, 0);
	json_decref(cmp);
	CHECK(text);
	json_t *cm = json_pack("{s:{s:s}}", "data", "compare.json", text);
	free(text);
	/* threshold 25% from the schedule's annotation */
	json_t *run = json_pack("{s:{s:{s:s}}}", "metadata", "annotations",
				SB_ANNOT_REGRESSION_THRESHOLD, "25");
	json_t *status = json_pack("{s:[{s:s}]}", "conditions", "type", "Succeeded");
	struct br_event ev;
	int r = br_regression_condition(cm, run, status, 3, 1800000000, &ev);
	const json_t *c = json_array_get(json_object_get(status, "conditions"), 1);
	int ok = r == 1 && c &&
		 !strcmp(json_string_value(json_object_get(c, "type")), "Regressed") &&
		 !strcmp(json_string_value(json_object_get(c, "status")), "True") &&
		 !strcmp(json_string_value(json_object_get(c, "reason")), "SlowerThanBaseline") &&
		 ev.warning && !strcmp(ev.reason, "Regressed") &&
		 strstr(ev.message, "compared with 'nightly-1': 1 regression beyond 25%: fast/rr "
				    "read-iops -30.0%");
	/* the next pass, with that status stored: same verdict, no new event */
	json_object_set(run, "status", status);
	json_t *status2 = json_pack("{s:[{s:s}]}", "conditions", "type", "Succeeded");
	int r2 = br_regression_condition(cm, run, status2, 3, 1800000100, &ev);
	int same = json_equal(json_object_get(status, "conditions"),
			      json_object_get(status2, "conditions"));
	/* a 40% threshold: not regressed, and that is a change */
	json_object_set_new(json_object_get(json_object_get(run, "metadata"), "annotations"),
			    SB_ANNOT_REGRESSION_THRESHOLD, json_string("40"));
	json_t *status3 = json_object();
	int r3 = br_regression_condition(cm, run, status3, 3, 1800000200, &ev);
	const json_t *c3 = json_array_get(json_object_get(status3, "conditions"), 0);
	int ok3 = r3 == 1 && c3 &&
		  !strcmp(json_string_value(json_object_get(c3, "status")), "False") &&
		  !ev.warning && !strcmp(ev.reason, "NotRegressed");
	/* no comparison in the report: no condition */
	json_t *status4 = json_object();
	json_t *plain = json_pack("{s:{s:s}}", "data", "report.json", "{}");
	int r4 = br_regression_condition(plain, run, status4, 3, 1800000300, &ev);
	int none = json_object_get(status4, "conditions") == NULL;
	json_decref(plain);
	json_decref(status4);
	json_decref(status3);
	json_decref(status2);
	json_decref(status);
	json_decref(run);
	json_decref(cm);
	CHECK(ok);
	CHECK_INT(r2, 0);
	CHECK(same);
	CHECK(ok3);
	CHECK_INT(r4, 0);
	CHECK(none);
	return T_PASS;
}

/* two baseline runs' reports by name, for br_baseline_report */
static json_t *cms[2];
static json_t *cm_by_name(void *arg, const char *ns, const char *name)
{
	(void)arg;
	(void)ns;
	for (int i = 0; i < 2; i++)
		if (cms[i] && !strcmp(json_string_value(json_object_get(
					      json_object_get(cms[i], "metadata"), "name")),
				      name))
			return json_incref(cms[i]);
	return NULL;
}

/* A schedule's run made while it was Regressed: the condition holds a
 * not-significant -15% and says since when; its baseline is its pool. */
static int test_run_condition_hysteresis_and_pool(void)
{
	static const double cur_iops[] = {800, 1000, 700, 900, 850};
	json_t *cmp = compare_reports(base_iops, base_lat, cur_iops, base_lat, 5);
	CHECK(cmp);
	char *text = json_dumps(cmp, 0);
	json_decref(cmp);
	json_t *cm = json_pack("{s:{s:s}}", "data", "compare.json", text);
	free(text);
	json_t *run = json_pack("{s:{s:s,s:{s:s,s:s,s:s}}}", "metadata", "namespace", "team-a",
				"annotations", SB_ANNOT_REGRESSED_SINCE_RUN, "nightly-6",
				SB_ANNOT_REGRESSED_SINCE, "2026-12-01T06:00:00Z",
				SB_ANNOT_BASELINE_RUNS, "nightly-5,nightly-4");
	json_t *status = json_object();
	struct br_event ev;
	int r = br_regression_condition(cm, run, status, 1, 1800000000, &ev);
	const json_t *c = json_array_get(json_object_get(status, "conditions"), 0);
	bool ok = r == 1 && c && !strcmp(json_string_value(json_object_get(c, "status")), "True") &&
		  strstr(json_string_value(json_object_get(c, "message")),
			 "fast/rr read-iops -15.0% (p=0.0795, not back within); regressed since "
			 "run nightly-6 (2026-12-01T06:00:00Z)");
	json_decref(status);
	/* the pool: both runs' iterations */
	json_t *b1 = report("nightly-5", base_iops, base_lat, 5),
	       *b2 = report("nightly-4", base_iops, base_lat, 5);
	char *t1 = json_dumps(b1, 0), *t2 = json_dumps(b2, 0);
	cms[0] = json_pack("{s:{s:s},s:{s:s}}", "metadata", "name", "nightly-5-report", "data",
			   "report.json", t1);
	cms[1] = json_pack("{s:{s:s},s:{s:s}}", "metadata", "name", "nightly-4-report", "data",
			   "report.json", t2);
	free(t1);
	free(t2);
	json_decref(b1);
	json_decref(b2);
	json_t *pool = NULL;
	int rp = br_baseline_report(run, "nightly-5", cm_by_name, NULL, &pool, err, sizeof(err));
	size_t n = json_array_size(json_object_get(
		json_object_get(json_object_get(json_array_get(json_object_get(pool, "results"), 0),
						"metrics"),
				"read-iops"),
		"samples"));
	json_decref(pool);
	/* a run of the pool without a report is named */
	json_decref(cms[1]);
	cms[1] = NULL;
	int rm = br_baseline_report(run, "nightly-5", cm_by_name, NULL, &pool, err, sizeof(err));
	json_decref(cms[0]);
	cms[0] = NULL;
	json_decref(run);
	json_decref(cm);
	CHECK(ok);
	CHECK_INT(rp, 0);
	CHECK_INT(n, 10);
	CHECK_INT(rm, -ENOENT);
	CHECK_STR(err, "baseline run 'nightly-4' has no report (configmap nightly-4-report)");
	return T_PASS;
}

static const struct test_case cases[] = {
	{"verdict/regression and improvement beyond the threshold",
	 test_regression_and_improvement},
	{"verdict/noise and small n are not regressions", test_noise_is_not_a_regression},
	{"verdict/bad input", test_bad_input},
	{"verdict/holm correction and hysteresis", test_holm_and_hysteresis},
	{"verdict/not comparable and pooled baselines", test_not_comparable_and_pool},
	{"verdict/the Regressed condition of a run", test_run_condition},
	{"verdict/a held condition and a pooled baseline", test_run_condition_hysteresis_and_pool},
};

TEST_MAIN(cases)
