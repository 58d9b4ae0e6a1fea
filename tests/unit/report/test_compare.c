/* SPDX-License-Identifier: MIT */
/*
 * Comparison of two reports: percent change, Welch's t-test against values
 * computed by hand, verdicts and directions, results on one side only,
 * malformed input, and the text rendering (one golden file from fixture
 * reports; SB_UPDATE_GOLDEN=1 rewrites it).
 */
#include "tests/unit/harness.h"
#include "report/compare.h"
#include "stats/stats.h"

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>

#define FIXTURES "tests/fixtures/reports/"

/* A one-result report; samples give mean and stddev (n - 1). */
static json_t *report1(const char *name, const char *target, const char *workload,
		       const char *metric, const char *unit, const double *s, size_t n)
{
	struct sb_summary sum;
	json_t *samples = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(samples, json_real(s[i]));
	if (sb_summary_compute(s, n, &sum))
		memset(&sum, 0, sizeof(sum));
	return json_pack("{s:s,s:[{s:s,s:s,s:[s],s:{s:{s:s,s:f,s:f,s:I,s:o}}}]}", "name", name,
			 "results", "target", target, "workload", workload, "headline", metric,
			 "metrics", metric, "unit", unit, "mean", sum.mean, "stddev", sum.stddev,
			 "n", (json_int_t)n, "samples", samples);
}

/* The comparison of one metric of the first result. */
static const json_t *first_metric(const json_t *cmp, const char *metric)
{
	return json_object_get(
		json_object_get(json_array_get(json_object_get(cmp, "results"), 0), "metrics"),
		metric);
}

static double num(const json_t *m, const char *key)
{
	return json_number_value(json_object_get(m, key));
}

static const char *str(const json_t *m, const char *key)
{
	return json_string_value(json_object_get(m, key));
}

/* Compares two one-result reports of read-iops (or unit ns: read-lat-mean). */
static json_t *compare2(const double *a, size_t na, const double *b, size_t nb, bool latency)
{
	const char *metric = latency ? "read-lat-mean" : "read-iops";
	const char *unit = latency ? "ns" : "IOPS";
	json_t *base = report1("before", "fast", "read-iops", metric, unit, a, na);
	json_t *cur = report1("after", "fast", "read-iops", metric, unit, b, nb);
	json_t *cmp = NULL;
	char err[256] = "";
	if (sb_compare(base, cur, &cmp, err, sizeof(err)))
		fprintf(stderr, "    sb_compare: %s\n", err);
	json_decref(base);
	json_decref(cur);
	return cmp;
}

static int test_welch_df2_not_significant(void)
{
	/*
	 * baseline {10, 14}: mean 12, variance (4 + 4) / 1 = 8
	 * current  {18, 22}: mean 20, variance 8
	 * se^2 = 8/2 + 8/2 = 8, t = (20 - 12) / sqrt(8) = 2*sqrt(2) = 2.8284271
	 * df = (4 + 4)^2 / (4^2/1 + 4^2/1) = 64 / 32 = 2
	 * Student t with 2 df: P(|T| >= t) = 1 - t / sqrt(2 + t^2)
	 *   = 1 - 2.8284271 / sqrt(10) = 1 - 0.8944272 = 0.1055728
	 * change: (20 - 12) / 12 = +66.667%
	 */
	const double a[] = {10, 14}, b[] = {18, 22};
	json_t *cmp = compare2(a, 2, b, 2, false);
	CHECK(cmp);
	const json_t *m = first_metric(cmp, "read-iops");
	CHECK(m);
	CHECK_NEAR(num(m, "change_pct"), 200.0 / 3.0, 1e-9);
	CHECK_NEAR(num(m, "t"), 2 * sqrt(2.0), 1e-12);
	CHECK_NEAR(num(m, "df"), 2.0, 1e-12);
	CHECK_NEAR(num(m, "p"), 1 - 2 * sqrt(2.0) / sqrt(10.0), 1e-9);
	CHECK_STR(str(m, "verdict"), "not significant");
	CHECK_STR(str(m, "direction"), "faster");
	CHECK_NEAR(num(json_object_get(m, "baseline"), "mean"), 12, 1e-12);
	CHECK_INT(json_integer_value(json_object_get(json_object_get(m, "current"), "n")), 2);
	json_decref(cmp);
	return T_PASS;
}

static int test_welch_df2_significant(void)
{
	/*
	 * baseline {10, 12}: mean 11, variance 2; current {20, 22}: mean 21, variance 2
	 * se^2 = 1 + 1 = 2, t = 10 / sqrt(2) = 7.0710678, df = 2^2 / (1 + 1) = 2
	 * p = 1 - t / sqrt(2 + t^2) = 1 - sqrt(50 / 52) = 1 - 0.9805807 = 0.0194193
	 * change: 10 / 11 = +90.909%
	 */
	const double a[] = {10, 12}, b[] = {20, 22};
	json_t *cmp = compare2(a, 2, b, 2, false);
	CHECK(cmp);
	const json_t *m = first_metric(cmp, "read-iops");
	CHECK_NEAR(num(m, "t"), 10 / sqrt(2.0), 1e-12);
	CHECK_NEAR(num(m, "p"), 1 - sqrt(50.0 / 52.0), 1e-9);
	CHECK_NEAR(num(m, "change_pct"), 1000.0 / 11.0, 1e-9);
	CHECK_STR(str(m, "verdict"), "significant");
	CHECK_STR(str(m, "direction"), "faster");
	/* and the other way round: slower, t negative, same p */
	json_decref(cmp);
	cmp = compare2(b, 2, a, 2, false);
	m = first_metric(cmp, "read-iops");
	CHECK_NEAR(num(m, "t"), -10 / sqrt(2.0), 1e-12);
	CHECK_NEAR(num(m, "p"), 1 - sqrt(50.0 / 52.0), 1e-9);
	CHECK_NEAR(num(m, "change_pct"), -1000.0 / 21.0, 1e-9);
	CHECK_STR(str(m, "direction"), "slower");
	json_decref(cmp);
	return T_PASS;
}

static int test_welch_unequal(void)
{
	/*
	 * baseline {10, 12, 14}: mean 12, variance (4 + 0 + 4) / 2 = 4
	 * current  {15, 16, 17}: mean 16, variance (1 + 0 + 1) / 2 = 1
	 * se^2 = 4/3 + 1/3 = 5/3, t = 4 / sqrt(5/3) = 3.0983867
	 * df = (5/3)^2 / ((4/3)^2 / 2 + (1/3)^2 / 2) = (25/9) / (17/18) = 50/17 = 2.9411765
	 * p = 0.0547868 by Simpson's rule on Student's t density with df 50/17
	 * (200000 intervals over [0, t]): not significant although t > 3.
	 */
	const double a[] = {10, 12, 14}, b[] = {15, 16, 17};
	json_t *cmp = compare2(a, 3, b, 3, false);
	CHECK(cmp);
	const json_t *m = first_metric(cmp, "read-iops");
	CHECK_NEAR(num(m, "t"), 4 / sqrt(5.0 / 3.0), 1e-12);
	CHECK_NEAR(num(m, "df"), 50.0 / 17.0, 1e-12);
	CHECK_NEAR(num(m, "p"), 0.05478676604, 1e-8);
	CHECK_STR(str(m, "verdict"), "not significant");
	CHECK_NEAR(num(m, "change_pct"), 100.0 / 3.0, 1e-9);
	json_decref(cmp);
	return T_PASS;
}

static int test_latency_lower_is_better(void)
{
	/*
	 * latency (ns) baseline {100, 100}: mean 100, variance 0
	 * current {80, 100}: mean 90, variance 200
	 * se^2 = 0 + 200/2 = 100, t = -10 / 10 = -1, df = 100^2 / (100^2 / 1) = 1
	 * Student t with 1 df is Cauchy: p = 1 - (2/pi) atan(1) = 0.5
	 * change -10%: less latency is faster.
	 */
	const double a[] = {100, 100}, b[] = {80, 100};
	json_t *cmp = compare2(a, 2, b, 2, true);
	CHECK(cmp);
	const json_t *m = first_metric(cmp, "read-lat-mean");
	CHECK(json_is_true(json_object_get(m, "lower_is_better")));
	CHECK_NEAR(num(m, "t"), -1, 1e-12);
	CHECK_NEAR(num(m, "df"), 1, 1e-12);
	CHECK_NEAR(num(m, "p"), 0.5, 1e-9);
	CHECK_NEAR(num(m, "change_pct"), -10, 1e-9);
	CHECK_STR(str(m, "direction"), "faster");
	CHECK_STR(str(m, "verdict"), "not significant");
	json_decref(cmp);
	/* the same numbers as IOPS: fewer is slower */
	cmp = compare2(a, 2, b, 2, false);
	CHECK_STR(str(first_metric(cmp, "read-iops"), "direction"), "slower");
	json_decref(cmp);
	return T_PASS;
}

static int test_n_too_small(void)
{
	const double a[] = {5}, b[] = {6, 7};
	json_t *cmp = compare2(a, 1, b, 2, false);
	CHECK(cmp);
	const json_t *m = first_metric(cmp, "read-iops");
	CHECK_STR(str(m, "verdict"), "n too small");
	CHECK(json_is_null(json_object_get(m, "p")));
	CHECK(json_is_null(json_object_get(m, "t")));
	CHECK_NEAR(num(m, "change_pct"), 30, 1e-9); /* 5 -> 6.5 */
	CHECK_INT(json_integer_value(json_object_get(json_object_get(m, "baseline"), "n")), 1);
	json_decref(cmp);
	return T_PASS;
}

static int test_zero_variance(void)
{
	const double a[] = {5, 5}, b[] = {6, 6};
	json_t *cmp = compare2(a, 2, b, 2, false);
	const json_t *m = first_metric(cmp, "read-iops");
	/* both exact: any difference is certain; t is infinite, written as null */
	CHECK_NEAR(num(m, "p"), 0, 0);
	CHECK(json_is_null(json_object_get(m, "t")));
	CHECK_STR(str(m, "verdict"), "significant");
	CHECK_STR(str(m, "direction"), "faster");
	json_decref(cmp);
	cmp = compare2(a, 2, a, 2, false);
	m = first_metric(cmp, "read-iops");
	CHECK_NEAR(num(m, "p"), 1, 0);
	CHECK_NEAR(num(m, "change_pct"), 0, 0);
	CHECK_STR(str(m, "verdict"), "not significant");
	CHECK_STR(str(m, "direction"), "same");
	json_decref(cmp);
	return T_PASS;
}

static int test_baseline_zero(void)
{
	const double a[] = {0, 0, 0}, b[] = {1, 2, 3};
	json_t *cmp = compare2(a, 3, b, 3, false);
	const json_t *m = first_metric(cmp, "read-iops");
	CHECK(json_is_null(json_object_get(m, "change_pct")));
	char err[64];
	char *txt = sb_compare_render(cmp, "txt", err, sizeof(err));
	CHECK(txt);
	CHECK(strstr(txt, "fast: read-iops: n/a ("));
	free(txt);
	json_decref(cmp);
	return T_PASS;
}

static int test_one_side_only(void)
{
	/* baseline: a/w1, a/w2, b/w1, b/w2; current: b/w1 (one metric more), c/w1 */
	const char *bs = "{\"name\": \"x\", \"results\": ["
			 "{\"target\": \"a\", \"workload\": \"w1\", \"metrics\": {}},"
			 "{\"target\": \"a\", \"workload\": \"w2\", \"metrics\": {}},"
			 "{\"target\": \"b\", \"workload\": \"w1\", \"metrics\": {"
			 "  \"read-iops\": {\"mean\": 10, \"samples\": [9, 11]},"
			 "  \"read-lat-p99\": {\"mean\": 10, \"samples\": [9, 11]}}},"
			 "{\"target\": \"b\", \"workload\": \"w2\", \"metrics\": {}}]}";
	const char *cs = "{\"name\": \"y\", \"results\": ["
			 "{\"target\": \"c\", \"workload\": \"w1\", \"metrics\": {}},"
			 "{\"target\": \"b\", \"workload\": \"w1\", \"metrics\": {"
			 "  \"write-iops\": {\"mean\": 5},"
			 "  \"read-iops\": {\"mean\": 12, \"samples\": [11, 13]}}}]}";
	json_t *b = json_loads(bs, 0, NULL), *c = json_loads(cs, 0, NULL), *cmp = NULL;
	char err[256];
	CHECK(b && c);
	CHECK_INT(sb_compare(b, c, &cmp, err, sizeof(err)), 0);
	const json_t *res = json_object_get(cmp, "results");
	CHECK_INT(json_array_size(res), 1);
	const json_t *r0 = json_array_get(res, 0);
	CHECK_STR(str(r0, "target"), "b");
	CHECK_STR(str(r0, "workload"), "w1");
	CHECK_INT(json_object_size(json_object_get(r0, "metrics")), 1);
	const json_t *um = json_object_get(r0, "unmatched_metrics");
	CHECK_INT(json_array_size(um), 2);
	CHECK_STR(json_string_value(json_array_get(um, 0)), "write-iops");
	CHECK_STR(json_string_value(json_array_get(um, 1)), "read-lat-p99");
	const json_t *ob = json_object_get(cmp, "only_baseline");
	CHECK_INT(json_array_size(ob), 3);
	CHECK_STR(str(json_array_get(ob, 0), "target"), "a");
	CHECK_STR(str(json_array_get(ob, 1), "workload"), "w2");
	CHECK_STR(str(json_array_get(ob, 2), "target"), "b");
	CHECK_STR(str(json_array_get(ob, 2), "workload"), "w2");
	const json_t *oc = json_object_get(cmp, "only_current");
	CHECK_INT(json_array_size(oc), 1);
	CHECK_STR(str(json_array_get(oc, 0), "target"), "c");
	char *txt = sb_compare_render(cmp, "txt", err, sizeof(err));
	CHECK(txt);
	CHECK(strstr(txt, "only in baseline (not compared):\n  a: w1, w2\n  b: w2\n"));
	CHECK(strstr(txt, "only in current (not compared):\n  c: w1\n"));
	free(txt);
	json_decref(b);
	json_decref(c);
	json_decref(cmp);
	return T_PASS;
}

static int test_text_lines(void)
{
	const double a[] = {10, 12}, b[] = {20, 22}, la[] = {100, 100}, lb[] = {80, 100};
	json_t *cmp = compare2(a, 2, b, 2, false);
	char err[64];
	char *txt = sb_compare_render(cmp, "txt", err, sizeof(err));
	CHECK(txt);
	CHECK(strstr(txt, "\nfast: read-iops: +90.9% (p=0.019, significant, faster)\n"));
	/* table: header, rule, row with baseline and current mean ± stddev */
	CHECK(strstr(txt, "target | workload  | metric    | baseline | current  | change | p     "
			  "| verdict\n"));
	CHECK(strstr(txt, "fast   | read-iops | read-iops | 11 \xc2\xb1 1.4 | 21 \xc2\xb1 1.4 | "
			  "+90.9% | 0.019 | significant, faster\n"));
	free(txt);
	char *md = sb_compare_render(cmp, "md", err, sizeof(err));
	CHECK(md);
	CHECK(strstr(md, "- fast: read-iops: +90.9% (p=0.019, significant, faster)\n"));
	CHECK(strstr(md, "| target | workload  |"));
	free(md);
	json_decref(cmp);
	/* a latency: the metric is named so the sign reads right */
	cmp = compare2(la, 2, lb, 2, true);
	txt = sb_compare_render(cmp, "txt", err, sizeof(err));
	CHECK(txt);
	CHECK(strstr(txt,
		     "\nfast: read-iops (mean read latency): -10.0% (p=0.5, not significant)\n"));
	free(txt);
	json_decref(cmp);
	return T_PASS;
}

static int test_p_formatting(void)
{
	/* a comparison document made by hand: p just under alpha must not print as 0.05 */
	const char *doc =
		"{\"alpha\": 0.05, \"results\": [{\"target\": \"t\", \"workload\": "
		"\"w\", \"headline\": [\"read-iops\"], \"metrics\": {"
		"\"read-iops\": {\"unit\": \"IOPS\", \"change_pct\": 1.25, \"p\": 0.049996,"
		" \"verdict\": \"significant\", \"direction\": \"faster\"}}},"
		"{\"target\": \"t\", \"workload\": \"v\", \"headline\": [\"read-iops\"], "
		"\"metrics\": {\"read-iops\": {\"unit\": \"IOPS\", \"change_pct\": -0.01, "
		"\"p\": 0.0004, \"verdict\": \"significant\", \"direction\": \"slower\"}}}]}";
	json_t *cmp = json_loads(doc, 0, NULL);
	char err[64];
	CHECK(cmp);
	char *txt = sb_compare_render(cmp, "txt", err, sizeof(err));
	CHECK(txt);
	CHECK(strstr(txt, "t: w: +1.2% (p=0.049996, significant, faster)") ||
	      strstr(txt, "t: w: +1.3% (p=0.049996, significant, faster)"));
	CHECK(strstr(txt, "| - "));
	CHECK(strstr(txt, "t: v: +0.0% (p<0.001, significant, slower)"));
	free(txt);
	json_decref(cmp);
	return T_PASS;
}

static json_t *load(const char *name)
{
	char path[256];
	snprintf(path, sizeof(path), FIXTURES "%s", name);
	json_t *j = json_load_file(path, 0, NULL);
	if (!j)
		fprintf(stderr, "    cannot load %s (run from the repository root)\n", path);
	return j;
}

static int test_fixture_golden(void)
{
	json_t *b = load("compare-baseline.json"), *c = load("compare-current.json"), *cmp = NULL;
	char err[256];
	CHECK(b && c);
	CHECK_INT(sb_compare(b, c, &cmp, err, sizeof(err)), 0);
	/* disk on both sides, fast only before, bulk only after; 6 workloads each */
	CHECK_INT(json_array_size(json_object_get(cmp, "results")), 6);
	CHECK_INT(json_array_size(json_object_get(cmp, "only_baseline")), 6);
	CHECK_INT(json_array_size(json_object_get(cmp, "only_current")), 6);
	char *txt = sb_compare_render(cmp, "txt", err, sizeof(err));
	CHECK(txt);
	const char *gpath = FIXTURES "compare.txt";
	if (getenv("SB_UPDATE_GOLDEN")) {
		FILE *f = fopen(gpath, "w");
		CHECK(f);
		CHECK(fputs(txt, f) >= 0);
		CHECK(fclose(f) == 0);
	}
	FILE *f = fopen(gpath, "r");
	CHECK(f);
	char want[16384];
	size_t n = fread(want, 1, sizeof(want) - 1, f);
	fclose(f);
	want[n] = '\0';
	if (strcmp(txt, want)) {
		fprintf(stderr, "    %s differs from the rendering:\n%s", gpath, txt);
		free(txt);
		return T_FAIL;
	}
	/* the JSON rendering parses back to the same document */
	char *js = sb_compare_render(cmp, "json", err, sizeof(err));
	CHECK(js);
	json_t *back = json_loads(js, 0, NULL);
	CHECK(back && json_equal(back, cmp));
	json_decref(back);
	free(js);
	free(txt);
	json_decref(b);
	json_decref(c);
	json_decref(cmp);
	return T_PASS;
}

static int test_malformed(void)
{
	static const struct {
		const char *base, *cur, *want;
	} cases[] = {
		{"[]", "{\"results\": []}", "baseline: not an object"},
		{"{}", "{\"results\": []}", "baseline: results: missing or not an array"},
		{"{\"results\": []}", "{\"results\": [1]}", "current: results[0]: not an object"},
		{"{\"results\": []}", "{\"results\": [{\"workload\": \"w\", \"metrics\": {}}]}",
		 "current: results[0].target: missing or not a string"},
		{"{\"results\": []}",
		 "{\"results\": [{\"target\": \"t\", \"workload\": \"w\", \"metrics\": []}]}",
		 "current: results[0].metrics: missing or not an object"},
		{"{\"results\": []}",
		 "{\"results\": [{\"target\": \"t\", \"workload\": \"w\", \"metrics\": "
		 "{\"read-iops\": {\"mean\": 1, \"samples\": [1, \"2\"]}}}]}",
		 "current: results[0].metrics.read-iops.samples[1]: not a number"},
		{"{\"results\": [{\"target\": \"t\", \"workload\": \"w\", \"metrics\": "
		 "{\"read-iops\": {\"stddev\": 1}}}]}",
		 "{\"results\": []}", "baseline: results[0].metrics.read-iops.mean: missing"},
		{"{\"results\": [{\"target\": \"t\", \"workload\": \"w\", \"metrics\": "
		 "{\"read-iops\": {\"mean\": 1, \"stddev\": -1}}}]}",
		 "{\"results\": []}",
		 "baseline: results[0].metrics.read-iops.stddev: not a non-negative"},
		{"{\"results\": [{\"target\": \"t\", \"workload\": \"w\", \"metrics\": {}},"
		 "{\"target\": \"t\", \"workload\": \"w\", \"metrics\": {}}]}",
		 "{\"results\": []}",
		 "baseline: results[1]: a second result for target 't' workload 'w'"},
		{"{\"results\": [], \"name\": 3}", "{\"results\": []}",
		 "baseline: name: not a string"},
		{"{\"results\": []}",
		 "{\"results\": [{\"target\": \"t\", \"workload\": \"w\", \"metrics\": {}, "
		 "\"headline\": [1]}]}",
		 "current: results[0].headline[0]: not a string"},
		/* issue 15 bug 8: finite samples whose statistics overflow */
		{"{\"results\": [{\"target\": \"t\", \"workload\": \"w\", \"metrics\": "
		 "{\"read-iops\": {\"samples\": [1.7e308, 0]}}}]}",
		 "{\"results\": []}",
		 "baseline: results[0].metrics.read-iops.samples: their standard deviation is inf"},
		{"{\"results\": []}",
		 "{\"results\": [{\"target\": \"t\", \"workload\": \"w\", \"metrics\": "
		 "{\"read-iops\": {\"samples\": [1.7e308, -1.7e308]}}}]}",
		 "current: results[0].metrics.read-iops.samples: their mean is -inf"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *b = json_loads(cases[i].base, 0, NULL),
		       *c = json_loads(cases[i].cur, 0, NULL);
		json_t *cmp = (json_t *)1;
		char err[256] = "";
		CHECK(b && c);
		CHECK_INT(sb_compare(b, c, &cmp, err, sizeof(err)), -EINVAL);
		CHECK(cmp == NULL);
		if (strncmp(err, cases[i].want, strlen(cases[i].want))) {
			fprintf(stderr, "    case %zu: error \"%s\", expected \"%s\"\n", i, err,
				cases[i].want);
			return T_FAIL;
		}
		json_decref(b);
		json_decref(c);
	}
	char err[64];
	json_t *ok = json_loads("{\"results\": []}", 0, NULL);
	CHECK(sb_compare_render(ok, "pdf", err, sizeof(err)) == NULL);
	CHECK_STR(err, "format 'pdf' is not one of txt, md, json");
	json_t *arr = json_array();
	CHECK(sb_compare_render(arr, "txt", err, sizeof(err)) == NULL);
	CHECK_STR(err, "comparison: not an object");
	json_decref(arr);
	json_decref(ok);
	return T_PASS;
}

static int test_empty_text(void)
{
	json_t *e = json_loads("{\"name\": \"a\", \"results\": []}", 0, NULL), *cmp = NULL;
	char err[64];
	CHECK_INT(sb_compare(e, e, &cmp, err, sizeof(err)), 0);
	char *txt = sb_compare_render(cmp, "txt", err, sizeof(err));
	CHECK(txt);
	CHECK(strstr(txt, "no target and workload in both reports\n"));
	CHECK(!strstr(txt, "verdict"));
	free(txt);
	json_decref(cmp);
	json_decref(e);
	return T_PASS;
}

/* Every field of the fixture replaced by wrong types: an error or a document, no crash. */
static int test_mutations(void)
{
	json_t *orig = load("compare-current.json"), *base = load("compare-baseline.json");
	json_t *bad[4] = {json_null(), json_string("x"), json_integer(-1), json_array()};
	size_t tried = 0, rejected = 0;
	CHECK(orig && base);
	json_t *results = json_object_get(orig, "results");
	for (size_t i = 0; i < json_array_size(results); i += 3) {
		const char *key;
		json_t *v;
		json_object_foreach(json_array_get(results, i), key, v)
		{
			const char *mk;
			json_t *mv;
			for (int k = 0; k < 4; k++) {
				json_t *doc = json_deep_copy(orig), *cmp = NULL;
				char err[256] = "";
				json_object_set(json_array_get(json_object_get(doc, "results"), i),
						key, bad[k]);
				int r = sb_compare(base, doc, &cmp, err, sizeof(err));
				CHECK(r == 0 || (r == -EINVAL && err[0]));
				rejected += r != 0;
				tried++;
				if (cmp) {
					char *txt = sb_compare_render(cmp, "txt", err, sizeof(err));
					CHECK(txt);
					free(txt);
				}
				json_decref(cmp);
				json_decref(doc);
			}
			if (strcmp(key, "metrics"))
				continue;
			json_object_foreach(v, mk, mv)
			{
				const char *fk;
				json_t *fv;
				json_object_foreach(mv, fk, fv)
				{
					for (int k = 0; k < 4; k++) {
						json_t *doc = json_deep_copy(orig), *cmp = NULL;
						char err[256] = "";
						json_t *m = json_object_get(
							json_object_get(
								json_array_get(
									json_object_get(doc,
											"results"),
									i),
								"metrics"),
							mk);
						json_object_set(m, fk, bad[k]);
						int r = sb_compare(base, doc, &cmp, err,
								   sizeof(err));
						CHECK(r == 0 || (r == -EINVAL && err[0]));
						rejected += r != 0;
						tried++;
						json_decref(cmp);
						json_decref(doc);
					}
				}
			}
		}
	}
	CHECK(tried > 100);
	CHECK(rejected > 10);
	for (int k = 0; k < 4; k++)
		json_decref(bad[k]);
	json_decref(orig);
	json_decref(base);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"compare/welch-df2-not-significant", test_welch_df2_not_significant},
	{"compare/welch-df2-significant", test_welch_df2_significant},
	{"compare/welch-unequal-variances", test_welch_unequal},
	{"compare/latency-lower-is-better", test_latency_lower_is_better},
	{"compare/n-too-small", test_n_too_small},
	{"compare/zero-variance", test_zero_variance},
	{"compare/baseline-zero", test_baseline_zero},
	{"compare/one-side-only", test_one_side_only},
	{"compare/text-lines", test_text_lines},
	{"compare/p-formatting", test_p_formatting},
	{"compare/fixture-golden", test_fixture_golden},
	{"compare/malformed", test_malformed},
	{"compare/empty", test_empty_text},
	{"compare/mutations", test_mutations},
};

TEST_MAIN(cases)
