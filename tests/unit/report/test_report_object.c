/* SPDX-License-Identifier: MIT */
/*
 * The text, Markdown and CSV reports, byte for byte against the golden files
 * in tests/fixtures/report-text/ (SB_UPDATE_GOLDEN=1 rewrites them): every
 * fixture report of tests/fixtures/reports, the block-only ones rendered
 * exactly as before object rows existed, and objects-3 (block and object
 * targets side by side). Then object rows on their own (docs/s3.md): the
 * sentence in object words and units, the object table in the reference
 * page's layout, the block table without the object targets, the field
 * checks, and the aggregation of an S3 job's failed requests (per iteration
 * and per HTTP status) with comparison treating fewer as better.
 */
#include "tests/unit/harness.h"
#include "stats/aggregate.h"
#include "report/compare.h"
#include "report/report.h"
#include "report/object.h"

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>

#define REPORTS "tests/fixtures/reports/"
#define GOLDEN	"tests/fixtures/report-text/"

/* ---- golden files ---- */

static const char *const fixtures[] = {
	"quick-1",	     "quick-2",		  "quick-3",
	"storage-cluster-1", "storage-cluster-2", "storage-cluster-3",
	"lifecycle-2",	     "edge-escape",	  "edge-one-iteration",
	"objects-3",
};
static const char *const formats[] = {"txt", "md", "csv"};

static int test_golden(void)
{
	int bad = 0;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		char path[256], err[256] = "";
		snprintf(path, sizeof(path), REPORTS "%s.json", fixtures[i]);
		json_t *rep = json_load_file(path, 0, NULL);
		if (!rep) {
			fprintf(stderr, "    cannot load %s (run from the repository root)\n",
				path);
			return T_FAIL;
		}
		for (size_t k = 0; k < sizeof(formats) / sizeof(formats[0]); k++) {
			char *got = sb_report_render(rep, formats[k], err, sizeof(err));
			if (!got) {
				fprintf(stderr, "    %s as %s: %s\n", fixtures[i], formats[k], err);
				json_decref(rep);
				return T_FAIL;
			}
			snprintf(path, sizeof(path), GOLDEN "%s.%s", fixtures[i], formats[k]);
			if (getenv("SB_UPDATE_GOLDEN")) {
				FILE *f = fopen(path, "w");
				if (!f || fputs(got, f) < 0 || fclose(f)) {
					fprintf(stderr, "    cannot write %s\n", path);
					bad++;
				}
			}
			char *want = t_slurp(path);
			if (!want || strcmp(want, got)) {
				fprintf(stderr, "    %s differs from the rendering of %s.json:\n%s",
					path, fixtures[i], got);
				bad++;
			}
			free(want);
			free(got);
		}
		json_decref(rep);
	}
	CHECK_INT(bad, 0);
	return T_PASS;
}

/* The side-by-side fixture: the block target keeps its sentences and table,
 * the object target is only in the object table. */
static int test_fixture_side_by_side(void)
{
	json_t *rep = json_load_file(REPORTS "objects-3.json", 0, NULL);
	char err[256];
	CHECK(rep);
	char *txt = sb_report_render(rep, "txt", err, sizeof(err));
	json_decref(rep);
	CHECK(txt);
	const char *obj = strstr(txt, "\n=== object storage\n");
	const char *tab = strstr(txt, "\ntarget | ");
	int ok = obj && tab && tab < obj && strstr(txt, "fast: iops-read: ") &&
		 strstr(txt, "rgw: get-1k: GET 1 KiB x 4: ") && strstr(txt, " ops/s on average") &&
		 strstr(txt, ", TTFB p50 ") && !strstr(txt, "rgw: get-1k: 0") &&
		 strstr(obj, "\nrgw    | get-1k ") && !strstr(obj, "\nfast ");
	/* between the block table's header and the object table: no rgw row */
	for (const char *p = tab; ok && p && p < obj; p = strchr(p + 1, '\n'))
		ok = strncmp(p, "\nrgw ", 5) != 0;
	if (!ok)
		fprintf(stderr, "%s", txt);
	free(txt);
	CHECK(ok);
	return T_PASS;
}

/* ---- object rows, from a report made here ---- */

static json_t *metric(double mean, double sd, int n, const char *unit)
{
	return json_pack("{s:s,s:f,s:f,s:f,s:f,s:f,s:f,s:i}", "unit", unit, "mean", mean, "stddev",
			 sd, "min", mean - sd, "max", mean + sd, "median", mean, "cv",
			 mean ? sd / mean : 0.0, "n", n);
}

/* fast/randread (block) and rgw/get-1m (GET of 1 MiB objects, 16 concurrent, 3 iterations) */
static json_t *two_targets(bool with_block)
{
	json_t *block = json_pack("{s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:s,s:i,s:[s],s:{s:o},s:{},s:{}}",
				  "target", "fast", "workload", "randread", "rw", "randread", "bs",
				  "4k", "iodepth", 32, "numjobs", 1, "fsync", 0, "engine",
				  "io_uring", "iterations", 3, "headline", "read-iops", "metrics",
				  "read-iops", metric(22748, 1558, 3, "IOPS"), "merged", "seconds");
	json_t *obj =
		json_pack("{s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:s,s:i,s:[s],"
			  "s:{s:o,s:o,s:o,s:o,s:o,s:o},s:{s:{s:i,s:i,s:i}},"
			  "s:{s:{s:f,s:f,s:f,s:i,s:s,s:f,s:f,s:f}},s:{s:i,s:i}}",
			  "target", "rgw", "workload", "get-1m", "rw", "s3-get", "bs", "1048576",
			  "iodepth", 16, "numjobs", 1, "fsync", 0, "engine", "", "iterations", 3,
			  "headline", "read-bw", "metrics", "read-iops", metric(412, 12, 3, "IOPS"),
			  "read-bw", metric(412.0 * 1048576, 12.0 * 1048576, 3, "B/s"),
			  "read-lat-p50", metric(38e6, 1e6, 3, "ns"), "read-lat-p99",
			  metric(95e6, 4e6, 3, "ns"), SB_METRIC_TTFB_P50, metric(3e6, 1e5, 3, "ns"),
			  SB_METRIC_ERRORS, metric(1, 1, 3, "requests"), "merged", "read", "p50",
			  39000000, "p99", 96000000, "n", 3700, "seconds", "read", "fastest", 430.0,
			  "median", 410.0, "slowest", 380.0, "n", 30, "unit", "IOPS", "bw_fastest",
			  430.0 * 1048576, "bw_median", 410.0 * 1048576, "bw_slowest",
			  380.0 * 1048576, "errors_by_status", "0", 1, "503", 2);
	json_t *results = json_array();
	if (with_block)
		json_array_append_new(results, block);
	else
		json_decref(block);
	json_array_append_new(results, obj);
	json_t *rep =
		json_pack("{s:s,s:i,s:s,s:[],s:[],s:o}", "kind", "StoragebenchReport", "version", 1,
			  "name", "mixed", "targets", "workloads", "results", results);
	if (with_block) {
		json_array_append_new(json_object_get(rep, "targets"), json_string("fast"));
		json_array_append_new(json_object_get(rep, "workloads"), json_string("randread"));
	}
	json_array_append_new(json_object_get(rep, "targets"), json_string("rgw"));
	json_array_append_new(json_object_get(rep, "workloads"), json_string("get-1m"));
	return rep;
}

/* rep rendered as text and Markdown (both malloc'd; rep released). 0, or -1
 * when either could not be rendered (the error printed). */
static int render_txt_md(json_t *rep, char **txt, char **md)
{
	char err[256] = "";
	*txt = rep ? sb_report_render(rep, "txt", err, sizeof(err)) : NULL;
	*md = *txt ? sb_report_render(rep, "md", err, sizeof(err)) : NULL;
	json_decref(rep);
	if (*txt && *md)
		return 0;
	fprintf(stderr, "    render: %s\n", err);
	free(*txt);
	free(*md);
	*txt = *md = NULL;
	return -1;
}

static int test_object_sentence(void)
{
	char *txt, *md;
	CHECK(render_txt_md(two_targets(true), &txt, &md) == 0);
	static const char want[] =
		"rgw: get-1m: GET 1 MiB x 16: 412 ops/s on average with a standard deviation of "
		"12 ops/s, 412 MiB/s, p50 38.0ms, p99 95.0ms, TTFB p50 3.00ms, 3 failed requests "
		"(HTTP 503: 2, no response: 1), over 3 iterations.\n"
		"  per second over 30 seconds: fastest 430 ops/s, median 410 ops/s, slowest "
		"380 ops/s; throughput fastest 430 MiB/s, median 410 MiB/s, slowest 380 MiB/s\n";
	int ok = strstr(txt, want) != NULL &&
		 /* the block row keeps its sentence */
		 strstr(txt, "fast: randread: 22748 read IOPS on average with a standard "
			     "deviation of 1558 IOPS over 3 iterations.\n") &&
		 strstr(md, "- rgw: get-1m: GET 1 MiB x 16: 412 ops/s") &&
		 strstr(md, "\n    per second over 30 seconds: fastest 430 ops/s") &&
		 !strstr(txt, "read IOPS on average with a standard deviation of 12");
	if (!ok)
		fprintf(stderr, "%s\n%s", txt, md);
	free(txt);
	free(md);
	CHECK(ok);
	return T_PASS;
}

static int test_object_table(void)
{
	char *txt, *md;
	CHECK(render_txt_md(two_targets(true), &txt, &md) == 0);
	static const char want_txt[] =
		"\n=== object storage\n"
		"target | workload | operation | object size | concurrency | ops/s (mean ± sd) "
		"| throughput | p50    | p99    | TTFB p50 | errors\n"
		"-------+----------+-----------+-------------+-------------+------------------"
		"-+------------+--------+--------+----------+-------\n"
		"rgw    | get-1m   | GET       | 1 MiB       | 16          | 412 ± 12          "
		"| 412 MiB/s  | 38.0ms | 95.0ms | 3.00ms   | 3\n";
	static const char want_md[] =
		"\n## Object storage\n\n"
		"| target | workload | operation | object size | concurrency | ops/s (mean ± sd) "
		"| throughput | p50    | p99    | TTFB p50 | errors |\n"
		"|--------|----------|-----------|-------------|-------------|------------------"
		"-|------------|--------|--------|----------|--------|\n"
		"| rgw    | get-1m   | GET       | 1 MiB       | 16          | 412 ± 12          "
		"| 412 MiB/s  | 38.0ms | 95.0ms | 3.00ms   | 3      |\n";
	/* the block table has fast and its column, not rgw nor get-1m */
	const char *obj = strstr(txt, "\n=== object storage\n");
	int ok = strstr(txt, want_txt) && strstr(md, want_md) && obj &&
		 strstr(txt, "\ntarget | randread (IOPS)\n") && strstr(txt, "\nfast   | 22.7k") &&
		 !strstr(txt, "get-1m (");
	for (const char *p = txt; ok && p && p < obj; p = strchr(p + 1, '\n'))
		ok = strncmp(p, "\nrgw ", 5) != 0;
	if (!ok)
		fprintf(stderr, "%s\n%s", txt, md);
	free(txt);
	free(md);
	CHECK(ok);
	return T_PASS;
}

/* A report of object rows only: no block table at all, the object table after the sentences. */
static int test_objects_only(void)
{
	json_t *rep = two_targets(false);
	char err[256];
	CHECK(rep);
	char *txt = sb_report_render(rep, "txt", err, sizeof(err));
	json_decref(rep);
	CHECK(txt);
	const char *obj = strstr(txt, "over 3 iterations.\n");
	const char *next = obj ? strchr(obj, '\n') : NULL;
	int ok = obj && strstr(txt, "\n\n=== object storage\ntarget | workload |") &&
		 strstr(txt, "\ntarget | ") == strstr(txt, "\ntarget | workload | operation") &&
		 next && strstr(next, "\n=== object storage") &&
		 !strstr(txt, "\n\n\n=== object storage");
	if (!ok)
		fprintf(stderr, "%s", txt);
	free(txt);
	CHECK(ok);
	return T_PASS;
}

/* Every failed and no successful request: said so, no figures. */
static int test_all_failed(void)
{
	json_t *rep = two_targets(false);
	char err[256];
	CHECK(rep);
	json_t *m = json_object_get(json_array_get(json_object_get(rep, "results"), 0), "metrics");
	json_object_del(m, "read-iops");
	json_object_del(m, "read-bw");
	char *txt = sb_report_render(rep, "txt", err, sizeof(err));
	json_decref(rep);
	CHECK(txt);
	int ok = strstr(txt, "rgw: get-1m: GET 1 MiB x 16: no request succeeded, 3 failed "
			     "requests (HTTP 503: 2, no response: 1), over 3 iterations.\n") &&
		 strstr(txt, "| GET       | 1 MiB       | 16          | -                 | -   ");
	if (!ok)
		fprintf(stderr, "%s", txt);
	free(txt);
	CHECK(ok);
	return T_PASS;
}

static int test_object_csv(void)
{
	json_t *rep = two_targets(true);
	char err[256];
	CHECK(rep);
	char *csv = sb_report_render(rep, "csv", err, sizeof(err));
	json_decref(rep);
	CHECK(csv);
	int ok = strstr(csv, "\nrgw,get-1m,read-iops,IOPS,3,412,12,") &&
		 strstr(csv, "\nrgw,get-1m,ttfb-p50,ns,3,3e+06,") &&
		 strstr(csv, "\nrgw,get-1m,errors,requests,3,1,1,") &&
		 strstr(csv, "\nfast,randread,read-iops,IOPS,3,22748,1558,");
	if (!ok)
		fprintf(stderr, "%s", csv);
	free(csv);
	CHECK(ok);
	return T_PASS;
}

/* Object fields of the wrong type are named; the same values in a block row are not read. */
static int test_object_validate(void)
{
	static const struct {
		const char *key;
		const char *json;
		const char *want;
	} cases[] = {
		{"bs", "5", "results[1].bs: not a string"},
		{"iodepth", "\"16\"", "results[1].iodepth: not an integer"},
		{"errors_by_status", "[1]", "results[1].errors_by_status: not an object"},
		{"errors_by_status", "{\"503\": \"x\"}",
		 "results[1].errors_by_status.503: not a count"},
		{"errors_by_status", "{\"503\": -1}",
		 "results[1].errors_by_status.503: not a count"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *rep = two_targets(true);
		char err[256] = "";
		CHECK(rep);
		json_t *r = json_array_get(json_object_get(rep, "results"), 1);
		json_object_set_new(r, cases[i].key,
				    json_loads(cases[i].json, JSON_DECODE_ANY, NULL));
		char *txt = sb_report_render(rep, "txt", err, sizeof(err));
		/* the same in the block row: accepted as before */
		json_t *b = json_array_get(json_object_get(rep, "results"), 0);
		json_object_set_new(b, cases[i].key,
				    json_loads(cases[i].json, JSON_DECODE_ANY, NULL));
		json_object_del(r, cases[i].key);
		char err2[256] = "";
		char *txt2 = sb_report_render(rep, "txt", err2, sizeof(err2));
		json_decref(rep);
		int ok = !txt && !strcmp(err, cases[i].want) && txt2;
		if (!ok)
			fprintf(stderr, "    %s: err '%s', block row: %s\n", cases[i].key, err,
				txt2 ? "accepted" : err2);
		free(txt);
		free(txt2);
		CHECK(ok);
	}
	return T_PASS;
}

static int test_object_size(void)
{
	static const struct {
		const char *bs, *want;
	} cases[] = {
		{"1048576", "1 MiB"},
		{"1000", "1 KB"},
		{"1024", "1 KiB"},
		{"102400", "100 KiB"},
		{"100000000", "100 MB"},
		{"4194304", "4 MiB"},
		{"1500", "1500 B"},
		{"1-1048576", "1 B-1 MiB"},
		{"0", "0 B"},
		{"", "-"},
		{"big", "big"},
		{"2-x", "2-x"},
		{"4294967296", "4 GiB"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[64];
		sb_report_object_size(cases[i].bs, buf, sizeof(buf));
		CHECK_STR(buf, cases[i].want);
	}
	return T_PASS;
}

/* ---- aggregation of an S3 job's failed requests ---- */

static json_t *s3_job(int errors, const char *by_status)
{
	json_t *job = json_pack(
		"{s:s,s:{s:s,s:s,s:s,s:s},s:{s:i,s:f,s:i,s:{s:f,s:i}},s:{s:i},s:{s:{s:i}}}",
		"jobname", "s3-get", "job options", "rw", "s3-get", "bs", "1024", "iodepth", "2",
		"numjobs", "1", "read", "total_ios", 10, "iops", 10.0, "bw_bytes", 10240, "lat_ns",
		"mean", 1000.0, "N", 10, "write", "total_ios", 0, "storagebench", "s3", "errors",
		errors);
	if (job && by_status)
		json_object_set_new(json_object_get(json_object_get(job, "storagebench"), "s3"),
				    "errors_by_status",
				    json_loads(by_status, JSON_DECODE_ANY, NULL));
	return job;
}

static int test_aggregate_errors(void)
{
	struct sb_agg *a = sb_agg_new();
	char err[256] = "";
	json_t *j1 = s3_job(2, "{\"503\": 2}"), *j2 = s3_job(0, "{}"),
	       *j3 = s3_job(5, "{\"0\": 4, \"503\": 1}");
	CHECK(a && j1 && j2 && j3);
	int r1 = sb_agg_add(a, "rgw", 1, j1, err, sizeof(err));
	int r2 = sb_agg_add(a, "rgw", 2, j2, err, sizeof(err));
	int r3 = sb_agg_add(a, "rgw", 3, j3, err, sizeof(err));
	json_decref(j1);
	json_decref(j2);
	json_decref(j3);
	json_t *rep = sb_agg_report(a, "x");
	sb_agg_free(a);
	CHECK(rep);
	json_t *r = json_array_get(json_object_get(rep, "results"), 0);
	json_t *e = json_object_get(json_object_get(r, "metrics"), SB_METRIC_ERRORS);
	json_t *by = json_object_get(r, "errors_by_status");
	if (r1 || r2 || r3 || !e)
		fprintf(stderr, "    %d %d %d: %s\n", r1, r2, r3, err);
	int ok = r1 == 0 && r2 == 0 && r3 == 0 && e &&
		 json_integer_value(json_object_get(e, "n")) == 3 &&
		 fabs(json_real_value(json_object_get(e, "mean")) - 7.0 / 3) < 1e-12 &&
		 !strcmp(json_string_value(json_object_get(e, "unit")), "requests") && by &&
		 json_object_size(by) == 2 && json_integer_value(json_object_get(by, "503")) == 3 &&
		 json_integer_value(json_object_get(by, "0")) == 4 &&
		 !strcmp(json_string_value(json_object_get(r, "rw")), "s3-get");
	json_decref(rep);
	CHECK(ok);

	/* a block job: no errors metric, no errors_by_status */
	a = sb_agg_new();
	json_t *blk = s3_job(0, NULL);
	CHECK(a && blk);
	json_object_del(blk, "storagebench");
	json_object_set_new(json_object_get(blk, "job options"), "rw", json_string("randread"));
	CHECK_INT(sb_agg_add(a, "fast", 1, blk, err, sizeof(err)), 0);
	json_decref(blk);
	rep = sb_agg_report(a, "x");
	sb_agg_free(a);
	CHECK(rep);
	r = json_array_get(json_object_get(rep, "results"), 0);
	ok = !json_object_get(json_object_get(r, "metrics"), SB_METRIC_ERRORS) &&
	     !json_object_get(r, "errors_by_status");
	json_decref(rep);
	CHECK(ok);
	return T_PASS;
}

static int test_aggregate_errors_malformed(void)
{
	static const struct {
		int errors;
		const char *by, *want;
	} cases[] = {
		{-1, NULL, "storagebench.s3.errors: not a count"},
		{1, "[1]", "storagebench.s3.errors_by_status: not an object"},
		{1, "{\"abc\": 1}", "storagebench.s3.errors_by_status.abc: not an HTTP status"},
		{1, "{\"503\": \"1\"}", "storagebench.s3.errors_by_status.503: not an HTTP status"},
		{1, "{\"1000\": 1}", "storagebench.s3.errors_by_status.1000: not an HTTP status"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_agg *a = sb_agg_new();
		json_t *j = s3_job(cases[i].errors, cases[i].by);
		char err[256] = "";
		CHECK(a && j);
		int r = sb_agg_add(a, "rgw", 1, j, err, sizeof(err));
		json_decref(j);
		sb_agg_free(a);
		if (r != -EINVAL || !strstr(err, cases[i].want))
			fprintf(stderr, "    case %zu: %d '%s'\n", i, r, err);
		CHECK_INT(r, -EINVAL);
		CHECK(strstr(err, cases[i].want) != NULL);
	}
	return T_PASS;
}

/* More failed requests is worse: a comparison calls the change slower. */
static int test_compare_errors_lower_is_better(void)
{
	json_t *b = two_targets(false), *c = two_targets(false), *cmp = NULL;
	char err[256];
	CHECK(b && c);
	json_t *m = json_object_get(json_array_get(json_object_get(c, "results"), 0), "metrics");
	json_object_set_new(m, SB_METRIC_ERRORS, metric(9, 1, 3, "requests"));
	int r = sb_compare(b, c, &cmp, err, sizeof(err));
	json_decref(b);
	json_decref(c);
	CHECK_INT(r, 0);
	json_t *e = json_object_get(
		json_object_get(json_array_get(json_object_get(cmp, "results"), 0), "metrics"),
		SB_METRIC_ERRORS);
	int ok = e && json_is_true(json_object_get(e, "lower_is_better")) &&
		 !strcmp(json_string_value(json_object_get(e, "direction")), "slower");
	json_decref(cmp);
	CHECK(ok);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"report/golden-txt-md-csv", test_golden},
	{"report/objects-side-by-side", test_fixture_side_by_side},
	{"report/object-sentence", test_object_sentence},
	{"report/object-table", test_object_table},
	{"report/objects-only", test_objects_only},
	{"report/object-all-failed", test_all_failed},
	{"report/object-csv", test_object_csv},
	{"report/object-validate", test_object_validate},
	{"report/object-size", test_object_size},
	{"aggregate/s3-errors", test_aggregate_errors},
	{"aggregate/s3-errors-malformed", test_aggregate_errors_malformed},
	{"compare/errors-lower-is-better", test_compare_errors_lower_is_better},
};

TEST_MAIN(cases)
