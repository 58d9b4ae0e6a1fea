/* SPDX-License-Identifier: MIT */
#include "tests/unit/harness.h"
#include "tests/unit/job_fixture.h"
#include "stats/aggregate.h"
#include "stats/hist.h"
#include "stats/merge.h"

#include <errno.h>
#include <jansson.h>

/* sb_merge_jobs of two jobs (consumed). */
static int merge2(json_t *ja, json_t *jb, json_t **m, char *err, size_t errlen)
{
	const json_t *jobs[] = {ja, jb};
	int r = sb_merge_jobs(jobs, 2, m, err, errlen);
	json_decref(ja);
	json_decref(jb);
	return r;
}

static double num(const json_t *o, const char *a, const char *b)
{
	return json_number_value(json_object_get(json_object_get(o, a), b));
}

/* IOPS: the sum of the series over the common seconds, not the sum of the averages. */
static int test_common_window(void)
{
	static const json_int_t a[] = {100, 100, 100, 100}; /* 4 s at 100/s */
	static const json_int_t b[] = {50, 50, 300};	    /* 3 s, one fast second */
	json_t *ja = fx_job("w", a, 4, 4096, 100, 100.0), *jb = fx_job("w", b, 3, 4096, 200, 133.3);
	json_t *m = NULL;
	char err[256] = "";
	int r = merge2(ja, jb, &m, err, sizeof(err));
	if (r)
		fprintf(stderr, "    %s\n", err);
	CHECK_INT(r, 0);
	/* seconds 0..2: (100+50) + (100+50) + (100+300) = 700 I/O in 3 s */
	double iops = num(m, "read", "iops");
	double bw = num(m, "read", "bw_bytes");
	double total = num(m, "read", "total_ios");
	const json_t *ser = json_object_get(
		json_object_get(json_object_get(m, "storagebench"), "read"), "ios_series");
	json_int_t s0 = json_integer_value(json_array_get(ser, 0));
	json_int_t s2 = json_integer_value(json_array_get(ser, 2));
	size_t sn = json_array_size(ser);
	const json_t *info = json_object_get(
		json_object_get(json_object_get(m, "storagebench"), "merge"), "read");
	double secs = json_number_value(json_object_get(info, "seconds"));
	const char *win = json_string_value(json_object_get(info, "window"));
	const char *al = json_string_value(json_object_get(
		json_object_get(json_object_get(m, "storagebench"), "merge"), "alignment"));
	char winb[16], alb[16];
	snprintf(winb, sizeof(winb), "%s", win ? win : "");
	snprintf(alb, sizeof(alb), "%s", al ? al : "");
	json_decref(m);
	CHECK(fabs(iops - 700.0 / 3.0) < 1e-6);
	CHECK(fabs(bw - 700.0 * 4096 / 3.0) < 1.0);
	CHECK(fabs(total - 700) < 1e-9); /* counts: those of the window, as the rates */
	CHECK_INT(sn, 3);
	CHECK_INT(s0, 150);
	CHECK_INT(s2, 400);
	CHECK(fabs(secs - 3) < 1e-9);
	CHECK_STR(winb, "series");
	CHECK_STR(alb, "index"); /* no series_start_ns: an older runner's results, by position */
	return T_PASS;
}

/* Latency percentiles from the merged histogram; the mean weighted by I/O count. */
static int test_histograms_merge(void)
{
	static const json_int_t a[] = {300}; /* 300 I/Os at bucket 100 */
	static const json_int_t b[] = {100}; /* 100 I/Os at bucket 120 */
	json_t *ja = fx_job("w", a, 1, 512, 100, 300), *jb = fx_job("w", b, 1, 512, 120, 100);
	json_object_set_new(json_object_get(json_object_get(jb, "read"), "lat_ns"), "mean",
			    json_real(3000.0));
	json_t *m = NULL;
	char err[256] = "";
	int r = merge2(ja, jb, &m, err, sizeof(err));
	CHECK_INT(r, 0);
	const json_t *pc = json_object_get(json_object_get(json_object_get(m, "read"), "clat_ns"),
					   "percentile");
	json_int_t p50 = json_integer_value(json_object_get(pc, "50.000000"));
	json_int_t p99 = json_integer_value(json_object_get(pc, "99.000000"));
	double mean = num(json_object_get(m, "read"), "lat_ns", "mean");
	json_int_t n = (json_int_t)num(json_object_get(m, "read"), "lat_ns", "N");
	const json_t *h = json_object_get(
		json_object_get(json_object_get(m, "storagebench"), "read"), "clat_hist");
	size_t hn = json_array_size(h);
	json_decref(m);
	CHECK_INT(p50, (json_int_t)sb_hist_bucket_value(100)); /* 75% of I/O there */
	CHECK_INT(p99, (json_int_t)sb_hist_bucket_value(120));
	CHECK(fabs(mean - (300 * 1000.0 + 100 * 3000.0) / 400) < 1e-9);
	CHECK_INT(n, 400);
	CHECK_INT(hn, 2);
	return T_PASS;
}

/* Without series (dropped to fit a ConfigMap): the sum of the rates, said so. */
static int test_no_series_falls_back(void)
{
	static const json_int_t a[] = {10};
	json_t *ja = fx_job("w", a, 1, 4096, 50, 250), *jb = fx_job("w", a, 1, 4096, 50, 150);
	json_object_del(json_object_get(json_object_get(jb, "storagebench"), "read"), "ios_series");
	json_t *m = NULL;
	char err[256] = "";
	int r = merge2(ja, jb, &m, err, sizeof(err));
	CHECK_INT(r, 0);
	double iops = num(m, "read", "iops");
	const json_t *info = json_object_get(
		json_object_get(json_object_get(m, "storagebench"), "merge"), "read");
	int rates = !strcmp(json_string_value(json_object_get(info, "window")), "rates");
	json_decref(m);
	CHECK(fabs(iops - 400) < 1e-9);
	CHECK(rates);
	return T_PASS;
}

/* Different workloads or malformed input: refused naming the pod and field. */
static int test_refuses_mismatch(void)
{
	static const json_int_t a[] = {10};
	json_t *ja = fx_job("w", a, 1, 4096, 50, 10), *jb = fx_job("other", a, 1, 4096, 50, 10);
	const json_t *jobs[] = {ja, jb};
	json_t *m = NULL;
	char err[256] = "";
	int r = sb_merge_jobs(jobs, 2, &m, err, sizeof(err));
	json_object_set_new(json_object_get(jb, "read"), "iops", json_string("fast"));
	json_object_set_new(jb, "jobname", json_string("w"));
	char err2[256] = "";
	json_t *m2 = NULL;
	int r2 = sb_merge_jobs(jobs, 2, &m2, err2, sizeof(err2));
	json_decref(ja);
	json_decref(jb);
	CHECK_INT(r, -EINVAL);
	CHECK(m == NULL);
	CHECK(strstr(err, "pod 1: jobname") != NULL);
	CHECK_INT(r2, -EINVAL);
	CHECK(m2 == NULL);
	CHECK(strstr(err2, "pod 1: read.iops") != NULL);
	return T_PASS;
}

/* The merged job is what the aggregation takes as one iteration. */
static int test_merged_aggregates(void)
{
	static const json_int_t a[] = {100, 100}, b[] = {300, 300};
	json_t *ja = fx_job("w", a, 2, 4096, 50, 100), *jb = fx_job("w", b, 2, 4096, 60, 300);
	const json_t *jobs[] = {ja, jb};
	json_t *m = NULL, *rep = NULL;
	char err[256] = "";
	struct sb_agg *agg = sb_agg_new();
	int r = sb_merge_jobs(jobs, 2, &m, err, sizeof(err));
	int ra = r ? -1 : sb_agg_add(agg, "fast", 1, m, err, sizeof(err));
	if (!ra)
		rep = sb_agg_report(agg, "t");
	json_decref(ja);
	json_decref(jb);
	json_decref(m);
	sb_agg_free(agg);
	const json_t *ri = json_object_get(
		json_object_get(json_array_get(json_object_get(rep, "results"), 0), "metrics"),
		"read-iops");
	double mean = json_number_value(json_object_get(ri, "mean"));
	json_decref(rep);
	if (ra)
		fprintf(stderr, "    %s\n", err);
	CHECK_INT(r, 0);
	CHECK_INT(ra, 0);
	CHECK(fabs(mean - 400) < 1e-9);
	return T_PASS;
}

#define T0 FX_T0

static const json_t *merge_info(const json_t *m)
{
	return json_object_get(json_object_get(m, "storagebench"), "merge");
}

/*
 * Members starting at 0, +0.3 s and +0.8 s: the window starts at the
 * latest start; the others' first second (slow I/Os in bucket 200) is left
 * out by time, where by position it would be in. Hand-computed: the window
 * is A[1..4] + B[1..4] + C[0..3], 4 s; 400 + 400 + 800 I/Os; 400 IOPS;
 * p99 in C's bucket 110 (800 of 1600 I/Os there, none slower), p50 in
 * bucket 100; mean clat (800 x 1000 + 800 x 1100) / 1600 = 1050 ns.
 */
static int test_aligned_by_time(void)
{
	static const json_int_t a[] = {100, 100, 100, 100, 100}, c[] = {200, 200, 200, 200};
	static const unsigned slow_first[] = {200, 100, 100, 100, 100}, cb[] = {110, 110, 110, 110};
	static const double ac[] = {5000, 1000, 1000, 1000, 1000}, cc[] = {1100, 1100, 1100, 1100};
	json_t *ja = fx_timed_job(T0, a, slow_first, ac, 5);
	json_t *jb = fx_timed_job(T0 + 300000000, a, slow_first, ac, 5);
	json_t *jc = fx_timed_job(T0 + 800000000, c, cb, cc, 4);
	const json_t *jobs[] = {ja, jb, jc};
	struct sb_merge_pod pods[3] = {{0}};
	json_t *m = NULL;
	char err[256] = "";
	int r = sb_merge_pods(jobs, pods, 3, &m, err, sizeof(err));
	json_decref(ja);
	json_decref(jb);
	json_decref(jc);
	if (r)
		fprintf(stderr, "    %s\n", err);
	CHECK_INT(r, 0);
	const json_t *rd = json_object_get(m, "read"), *mi = merge_info(m);
	const json_t *pc = json_object_get(json_object_get(rd, "clat_ns"), "percentile");
	double iops = num(m, "read", "iops"), total = num(m, "read", "total_ios");
	double mean = num(rd, "clat_ns", "mean"), lmean = num(rd, "lat_ns", "mean");
	json_int_t p99 = json_integer_value(json_object_get(pc, "99.000000"));
	json_int_t p50 = json_integer_value(json_object_get(pc, "50.000000"));
	json_int_t rt = (json_int_t)num(m, "read", "runtime");
	const json_t *late = json_object_get(mi, "late");
	json_int_t l0 = json_integer_value(json_array_get(late, 0));
	json_int_t l1 = json_integer_value(json_array_get(late, 1));
	size_t nlate = json_array_size(late);
	json_int_t start = json_integer_value(json_object_get(mi, "start_ns"));
	char al[16], lat[16];
	snprintf(al, sizeof(al), "%s", json_string_value(json_object_get(mi, "alignment")));
	snprintf(lat, sizeof(lat), "%s",
		 json_string_value(json_object_get(json_object_get(mi, "read"), "latency")));
	int no_hist_series =
		json_object_get(json_object_get(json_object_get(m, "storagebench"), "read"),
				"clat_hist_series") == NULL;
	json_decref(m);
	CHECK_STR(al, "time");
	CHECK_STR(lat, "window");
	CHECK(fabs(iops - 400) < 1e-9);
	CHECK(fabs(total - 1600) < 1e-9);
	CHECK_INT(rt, 4000);
	CHECK_INT(p99, (json_int_t)sb_hist_bucket_value(110));
	CHECK_INT(p50, (json_int_t)sb_hist_bucket_value(100));
	CHECK(fabs(mean - 1050) < 1e-9);
	CHECK(fabs(lmean - 1150) < 1e-9);
	CHECK_INT(start, T0 + 800000000);
	/* B is 300 ms late, C 800 ms: both beyond the 250 ms bound, named */
	CHECK_INT(nlate, 2);
	CHECK_INT(l0, 1);
	CHECK_INT(l1, 2);
	CHECK(!pods[0].late && pods[1].late && pods[2].late);
	CHECK(fabs(pods[2].late_ms - 800) < 1e-9);
	CHECK_INT(pods[0].first, 1); /* 0.8 s before: its second interval */
	CHECK_INT(pods[1].first, 1); /* 0.5 s: a tie goes to the later interval */
	CHECK_INT(pods[2].first, 0);
	/* each member's own figures over the same window add up to the aggregate */
	CHECK(fabs(pods[0].iops[0] - 100) < 1e-9 && fabs(pods[2].iops[0] - 200) < 1e-9);
	CHECK(fabs(pods[0].iops[0] + pods[1].iops[0] + pods[2].iops[0] - iops) < 1e-9);
	CHECK(no_hist_series);
	return T_PASS;
}

/* A measured clock offset corrects a member's start: 2 s ahead is not 2 s late. */
static int test_offset_corrects_start(void)
{
	static const json_int_t a[] = {100, 100, 100, 100};
	static const unsigned b[] = {100, 100, 100, 100};
	static const double c[] = {1000, 1000, 1000, 1000};
	json_t *ja = fx_timed_job(T0, a, b, c, 4), *jb = fx_timed_job(T0 + 2000000000, a, b, c, 4);
	const json_t *jobs[] = {ja, jb};
	struct sb_merge_pod raw[2] = {{0}}, fixed[2] = {{0}, {.clock_offset_ns = 2000000000}};
	json_t *m1 = NULL, *m2 = NULL;
	char err[256] = "";
	int r1 = sb_merge_pods(jobs, raw, 2, &m1, err, sizeof(err));
	int r2 = sb_merge_pods(jobs, fixed, 2, &m2, err, sizeof(err));
	json_decref(ja);
	json_decref(jb);
	double s1 = json_number_value(
		json_object_get(json_object_get(merge_info(m1), "read"), "seconds"));
	double s2 = json_number_value(
		json_object_get(json_object_get(merge_info(m2), "read"), "seconds"));
	json_decref(m1);
	json_decref(m2);
	CHECK_INT(r1, 0);
	CHECK_INT(r2, 0);
	CHECK(raw[1].late && fabs(raw[1].late_ms - 2000) < 1e-9 && raw[0].first == 2);
	CHECK(fabs(s1 - 2) < 1e-9);
	CHECK(!fixed[1].late && fixed[0].first == 0 && fixed[1].start_ns == T0);
	CHECK(fabs(s2 - 4) < 1e-9);
	return T_PASS;
}

/* One member without per-interval latency (an older runner): latency of the whole runs. */
static int test_mixed_results(void)
{
	static const json_int_t a[] = {100, 100};
	static const unsigned b[] = {100, 100};
	static const double c[] = {1000, 1000};
	json_t *ja = fx_timed_job(T0, a, b, c, 2), *jb = fx_timed_job(T0, a, b, c, 2);
	json_object_del(json_object_get(json_object_get(jb, "storagebench"), "read"),
			"clat_hist_series");
	const json_t *jobs[] = {ja, jb};
	json_t *m = NULL, *m2 = NULL;
	char err[256] = "";
	int r = sb_merge_jobs(jobs, 2, &m, err, sizeof(err));
	json_object_del(json_object_get(jb, "storagebench"), "series_start_ns");
	int r2 = sb_merge_jobs(jobs, 2, &m2, err, sizeof(err));
	json_decref(ja);
	json_decref(jb);
	char lat[16], al[16];
	snprintf(lat, sizeof(lat), "%s",
		 json_string_value(
			 json_object_get(json_object_get(merge_info(m), "read"), "latency")));
	snprintf(al, sizeof(al), "%s",
		 json_string_value(json_object_get(merge_info(m2), "alignment")));
	json_decref(m);
	json_decref(m2);
	CHECK_INT(r, 0);
	CHECK_INT(r2, 0);
	CHECK_STR(lat, "run");
	CHECK_STR(al, "index"); /* one member without its start: all by position */
	return T_PASS;
}

/* Hostile or broken timing fields: refused naming the pod and the field, never a crash. */
static int test_refuses_bad_timing(void)
{
	static const json_int_t a[] = {100, 100};
	static const unsigned b[] = {100, 100};
	static const double c[] = {1000, 1000};
	static const struct {
		const char *key; /* in storagebench (NULL: in storagebench.read) */
		const char *value;
		const char *want;
	} cases[] = {
		{"series_start_ns", "\"soon\"", "pod 1: storagebench.series_start_ns: not a time"},
		{"series_start_ns", "-5", "pod 1: storagebench.series_start_ns: not a time"},
		{"series_start_ns", "9223372036854775807", "series_start_ns: not a time"},
		{NULL, "[[1, 2, 3], [1, 2]]",
		 "pod 1: storagebench.read.clat_hist_series[0]: not a"},
		{NULL, "[[5000, 2], [1, 2]]", "clat_hist_series[0][0]: not a bucket gap"},
		{NULL, "[[1800, 2, 100, 1], [1, 2]]", "clat_hist_series[0][2]: not a bucket gap"},
		{NULL, "[[1, 2, 0, 1], [1, 2]]", "clat_hist_series[0][2]: not a bucket gap"},
		{NULL, "[[1, -2], [1, 2]]", "clat_hist_series[0][0]: not a bucket gap"},
		{NULL, "[\"x\", [1, 2]]", "clat_hist_series[0]: not a list"},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		json_t *ja = fx_timed_job(T0, a, b, c, 2), *jb = fx_timed_job(T0, a, b, c, 2);
		json_t *v = json_loads(cases[k].value, JSON_DECODE_ANY, NULL);
		json_t *sb = json_object_get(jb, "storagebench");
		json_object_set_new(cases[k].key ? sb : json_object_get(sb, "read"),
				    cases[k].key ? cases[k].key : "clat_hist_series", v);
		json_t *m = NULL;
		char err[256] = "";
		int r = merge2(ja, jb, &m, err, sizeof(err));
		if (r != -EINVAL || !strstr(err, cases[k].want))
			fprintf(stderr, "    case %zu: %d '%s'\n", k, r, err);
		CHECK_INT(r, -EINVAL);
		CHECK(m == NULL);
		CHECK(strstr(err, cases[k].want) != NULL);
	}
	/* an offset beyond any clock's */
	json_t *ja = fx_timed_job(T0, a, b, c, 2);
	const json_t *jobs[] = {ja, ja};
	struct sb_merge_pod pods[2] = {{0}, {.clock_offset_ns = INT64_MAX}};
	json_t *m = NULL;
	char err[256] = "";
	int r = sb_merge_pods(jobs, pods, 2, &m, err, sizeof(err));
	json_decref(ja);
	CHECK_INT(r, -EINVAL);
	CHECK(strstr(err, "pod 1: clock offset") != NULL);
	return T_PASS;
}

/* Members that never measured at the same time: no window, the sum of their rates. */
static int test_no_overlap(void)
{
	static const json_int_t a[] = {100, 100};
	static const unsigned b[] = {100, 100};
	static const double c[] = {1000, 1000};
	json_t *ja = fx_timed_job(T0, a, b, c, 2), *jb = fx_timed_job(T0 + 5000000000, a, b, c, 2);
	json_t *m = NULL;
	char err[256] = "";
	int r = merge2(ja, jb, &m, err, sizeof(err));
	char win[16];
	snprintf(win, sizeof(win), "%s",
		 json_string_value(
			 json_object_get(json_object_get(merge_info(m), "read"), "window")));
	json_decref(m);
	CHECK_INT(r, 0);
	CHECK_STR(win, "rates");
	return T_PASS;
}

static int test_straggler(void)
{
	double v[] = {100, 90, 40, 110};
	double med = sb_merge_median(v, 4);
	CHECK(fabs(med - 95) < 1e-9);
	CHECK(sb_merge_straggler(40, med));
	CHECK(!sb_merge_straggler(48, med));
	CHECK(!sb_merge_straggler(0, 0));
	return T_PASS;
}

static const struct test_case cases[] = {
	{"merge/common window of the series", test_common_window},
	{"merge/histograms added, mean weighted", test_histograms_merge},
	{"merge/no series: sum of rates", test_no_series_falls_back},
	{"merge/mismatch refused naming pod and field", test_refuses_mismatch},
	{"merge/merged job aggregates as one iteration", test_merged_aggregates},
	{"merge/straggler below half the median", test_straggler},
	{"merge/aligned by time: starts 0, +0.3 s, +0.8 s", test_aligned_by_time},
	{"merge/a measured clock offset corrects the start", test_offset_corrects_start},
	{"merge/older members: by position, latency of the runs", test_mixed_results},
	{"merge/hostile timing fields refused naming them", test_refuses_bad_timing},
	{"merge/no overlap: sum of rates", test_no_overlap},
};

TEST_MAIN(cases)
