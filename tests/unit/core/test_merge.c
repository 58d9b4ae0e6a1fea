/* SPDX-License-Identifier: MIT */
#include "tests/unit/harness.h"
#include "stats/aggregate.h"
#include "stats/hist.h"
#include "stats/merge.h"

#include <errno.h>
#include <jansson.h>

/*
 * A runner job object for one pod: read I/O with a per-second series
 * (ios and bytes per second) and a latency histogram of one bucket.
 */
static json_t *job(const char *name, const json_int_t *ios, size_t n, json_int_t bs,
		   unsigned lat_bucket, double reported_iops)
{
	json_t *is = json_array(), *bsr = json_array();
	json_int_t total = 0;
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(is, json_integer(ios[i]));
		json_array_append_new(bsr, json_integer(ios[i] * bs));
		total += ios[i];
	}
	json_t *pc = json_object();
	json_object_set_new(pc, "50.000000", json_integer(1));
	return json_pack(
		"{s:s,s:{s:I,s:I,s:f,s:I,s:I,s:I,s:{s:f,s:I,s:I,s:I},s:{s:f,s:I,s:I,"
		"s:I,s:o}},s:{s:I,s:I,s:I,s:I,s:I,s:I,s:{s:f,s:I,s:I,s:I}},"
		"s:{s:I,s:{s:[[I,I]],s:o,s:o},s:{s:[]}}}",
		"jobname", name, "read", "total_ios", total, "io_bytes", total * bs, "iops",
		reported_iops, "bw_bytes", (json_int_t)(reported_iops * (double)bs), "bw",
		(json_int_t)(reported_iops * (double)bs / 1024), "runtime", (json_int_t)(n * 1000),
		"lat_ns", "mean", 1000.0, "N", total, "min", 10, "max", 5000, "clat_ns", "mean",
		900.0, "N", total, "min", 9, "max", 4000, "percentile", pc, "write", "total_ios", 0,
		"io_bytes", 0, "iops", 0, "bw_bytes", 0, "bw", 0, "runtime", 0, "lat_ns", "mean",
		0.0, "N", 0, "min", 0, "max", 0, "storagebench", "interval_ms", 1000, "read",
		"clat_hist", (json_int_t)lat_bucket, total, "ios_series", is, "bytes_series", bsr,
		"write", "clat_hist");
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
	json_t *ja = job("w", a, 4, 4096, 100, 100.0), *jb = job("w", b, 3, 4096, 200, 133.3);
	const json_t *jobs[] = {ja, jb};
	json_t *m = NULL;
	char err[256] = "";
	int r = sb_merge_jobs(jobs, 2, &m, err, sizeof(err));
	json_decref(ja);
	json_decref(jb);
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
	char winb[16];
	snprintf(winb, sizeof(winb), "%s", win ? win : "");
	json_decref(m);
	CHECK(fabs(iops - 700.0 / 3.0) < 1e-6);
	CHECK(fabs(bw - 700.0 * 4096 / 3.0) < 1.0);
	CHECK(fabs(total - 800) < 1e-9); /* counts: everything each pod did (400 + 400) */
	CHECK_INT(sn, 3);
	CHECK_INT(s0, 150);
	CHECK_INT(s2, 400);
	CHECK(fabs(secs - 3) < 1e-9);
	CHECK_STR(winb, "series");
	return T_PASS;
}

/* Latency percentiles from the merged histogram; the mean weighted by I/O count. */
static int test_histograms_merge(void)
{
	static const json_int_t a[] = {300}; /* 300 I/Os at bucket 100 */
	static const json_int_t b[] = {100}; /* 100 I/Os at bucket 120 */
	json_t *ja = job("w", a, 1, 512, 100, 300), *jb = job("w", b, 1, 512, 120, 100);
	json_object_set_new(json_object_get(json_object_get(jb, "read"), "lat_ns"), "mean",
			    json_real(3000.0));
	const json_t *jobs[] = {ja, jb};
	json_t *m = NULL;
	char err[256] = "";
	int r = sb_merge_jobs(jobs, 2, &m, err, sizeof(err));
	json_decref(ja);
	json_decref(jb);
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
	json_t *ja = job("w", a, 1, 4096, 50, 250), *jb = job("w", a, 1, 4096, 50, 150);
	json_object_del(json_object_get(json_object_get(jb, "storagebench"), "read"), "ios_series");
	const json_t *jobs[] = {ja, jb};
	json_t *m = NULL;
	char err[256] = "";
	int r = sb_merge_jobs(jobs, 2, &m, err, sizeof(err));
	json_decref(ja);
	json_decref(jb);
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
	json_t *ja = job("w", a, 1, 4096, 50, 10), *jb = job("other", a, 1, 4096, 50, 10);
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
	json_t *ja = job("w", a, 2, 4096, 50, 100), *jb = job("w", b, 2, 4096, 60, 300);
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
};

TEST_MAIN(cases)
