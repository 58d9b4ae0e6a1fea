/* SPDX-License-Identifier: MIT */
/* Aggregation of iterations into a report, against hand-computed values. */
#include "tests/unit/harness.h"
#include "stats/aggregate.h"
#include "report/report.h"

#include <errno.h>
#include <jansson.h>

/* A minimal runner job object: one direction with the given figures. */
static json_t *job(const char *name, double iops, double bw, double lat, const char *hist)
{
	char text[2048];
	snprintf(text, sizeof(text),
		 "{\"jobname\":\"%s\",\"job options\":{\"rw\":\"randread\",\"bs\":\"4k\","
		 "\"iodepth\":\"32\"},"
		 "\"read\":{\"total_ios\":100,\"iops\":%g,\"bw_bytes\":%g,\"lat_ns\":{\"mean\":%g,"
		 "\"N\":100}},"
		 "\"write\":{\"total_ios\":0},\"sync\":{\"total_ios\":0},"
		 "\"engine\":{\"ran\":\"io_uring\"},"
		 "\"storagebench\":{\"interval_ms\":1000,\"read\":{\"clat_hist\":%s,"
		 "\"ios_series\":[10,20,30]}}}",
		 name, iops, bw, lat, hist);
	return json_loads(text, 0, NULL);
}

static const json_t *metric(const json_t *rep, const char *target, const char *wl, const char *m)
{
	size_t i;
	const json_t *r;
	json_array_foreach(json_object_get(rep, "results"), i, r)
	{
		if (!strcmp(json_string_value(json_object_get(r, "target")), target) &&
		    !strcmp(json_string_value(json_object_get(r, "workload")), wl))
			return json_object_get(json_object_get(r, "metrics"), m);
	}
	return NULL;
}

static int test_mean_stddev_hand_computed(void)
{
	struct sb_agg *a = sb_agg_new();
	char err[256];
	/* iops 100, 200, 300, 400: mean 250, ss = 22500+2500+2500+22500 = 50000,
	 * sample variance 50000/3, stddev 129.0994..., median 250 */
	const double iops[] = {100, 200, 300, 400};
	for (unsigned it = 0; it < 4; it++) {
		json_t *j = job("rr", iops[it], iops[it] * 4096, 1000.0 * (it + 1),
				"[[100,50],[200,50]]");
		CHECK(j != NULL);
		CHECK_INT(sb_agg_add(a, "fast", it + 1, j, err, sizeof(err)), 0);
		/* the same iteration twice is refused, not counted twice */
		CHECK_INT(sb_agg_add(a, "fast", it + 1, j, err, sizeof(err)), -EEXIST);
		json_decref(j);
	}
	json_t *rep = sb_agg_report(a, "t");
	const json_t *m = metric(rep, "fast", "rr", "read-iops");
	CHECK(m != NULL);
	CHECK_NEAR(json_number_value(json_object_get(m, "mean")), 250.0, 1e-9);
	CHECK_NEAR(json_number_value(json_object_get(m, "stddev")), sqrt(50000.0 / 3.0), 1e-9);
	CHECK_NEAR(json_number_value(json_object_get(m, "median")), 250.0, 1e-9);
	CHECK_NEAR(json_number_value(json_object_get(m, "min")), 100.0, 0);
	CHECK_NEAR(json_number_value(json_object_get(m, "max")), 400.0, 0);
	CHECK_NEAR(json_number_value(json_object_get(m, "cv")), sqrt(50000.0 / 3.0) / 250.0, 1e-12);
	CHECK_INT(json_integer_value(json_object_get(m, "n")), 4);
	const json_t *bw = metric(rep, "fast", "rr", "read-bw");
	CHECK_NEAR(json_number_value(json_object_get(bw, "mean")), 250.0 * 4096, 1e-6);
	/*
	 * merged histogram: 400 samples in buckets 100 and 200 (indices). Bucket
	 * 100 is the value 100 (exact below 128); bucket 200 is in the group
	 * [256, 512) of 64 buckets 4 wide: its 8th, [288, 292), midpoint 290.
	 */
	const json_t *mg = json_object_get(
		json_object_get(json_array_get(json_object_get(rep, "results"), 0), "merged"),
		"read");
	CHECK_INT(json_integer_value(json_object_get(mg, "p50")), 100);
	CHECK_INT(json_integer_value(json_object_get(mg, "p99")), 290);
	CHECK_INT(json_integer_value(json_object_get(mg, "n")), 400);
	/* per-second throughput over all iterations: 10, 20, 30 x 4 */
	const json_t *sec = json_object_get(
		json_object_get(json_array_get(json_object_get(rep, "results"), 0), "seconds"),
		"read");
	CHECK_NEAR(json_number_value(json_object_get(sec, "fastest")), 30, 0);
	CHECK_NEAR(json_number_value(json_object_get(sec, "median")), 20, 0);
	CHECK_NEAR(json_number_value(json_object_get(sec, "slowest")), 10, 0);
	/* the sentence of the text report */
	char *txt = sb_report_render(rep, "txt", err, sizeof(err));
	CHECK(txt != NULL);
	CHECK(strstr(txt,
		     "fast: rr: 250 read IOPS on average with a standard deviation of 129 IOPS "
		     "over 4 iterations") != NULL);
	free(txt);
	json_decref(rep);
	sb_agg_free(a);
	return T_PASS;
}

static int test_bad_results_name_the_field(void)
{
	static const struct {
		const char *text;
		const char *needle;
	} bad[] = {
		{"{\"read\":{}}", "jobname: missing"},
		{"{\"jobname\":\"x\",\"write\":{\"total_ios\":0}}", "read: missing"},
		{"{\"jobname\":\"x\",\"read\":{\"total_ios\":\"lots\"},\"write\":{\"total_ios\":0}"
		 "}",
		 "read.total_ios: not a number"},
		{"{\"jobname\":\"x\",\"read\":{\"total_ios\":5,\"iops\":1,\"bw_bytes\":1},"
		 "\"write\":{\"total_ios\":0}}",
		 "read.lat_ns: missing"},
		{"{\"jobname\":\"x\",\"read\":{\"total_ios\":5,\"iops\":-3,\"bw_bytes\":1,\"lat_"
		 "ns\":{\"mean\":1}},"
		 "\"write\":{\"total_ios\":0}}",
		 "read.iops: -3 is not a non-negative number"},
		{"{\"jobname\":\"x\",\"read\":{\"total_ios\":5,\"iops\":1,\"bw_bytes\":1,\"lat_"
		 "ns\":{\"mean\":1}},"
		 "\"write\":{\"total_ios\":0},\"storagebench\":{\"read\":{\"clat_hist\":[[99999,1]]"
		 "}}}",
		 "storagebench.read.clat_hist[0]: bucket 99999"},
	};
	struct sb_agg *a = sb_agg_new();
	char err[256];
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *j = json_loads(bad[i].text, 0, NULL);
		CHECK(j != NULL);
		err[0] = '\0';
		int r = sb_agg_add(a, "t", 1, j, err, sizeof(err));
		json_decref(j);
		if (r != -EINVAL || !strstr(err, bad[i].needle)) {
			fprintf(stderr, "    %s: got %d '%s'\n", bad[i].text, r, err);
			sb_agg_free(a);
			return T_FAIL;
		}
	}
	/* nothing bad was kept */
	json_t *rep = sb_agg_report(a, "t");
	CHECK_INT(json_array_size(json_object_get(rep, "results")), 0);
	json_decref(rep);
	sb_agg_free(a);
	return T_PASS;
}

/* Issue 15 bug 8: statistics that overflow name the result and metric, not -ENOMEM. */
static int test_overflow_names_the_metric(void)
{
	struct sb_agg *a = sb_agg_new();
	char err[512] = "";
	json_t *rep = (json_t *)1;
	CHECK(a != NULL);
	for (unsigned it = 1; it <= 2; it++) {
		json_t *j = job("big", 1e308, 1, 1, "[]");
		CHECK(j != NULL);
		CHECK_INT(sb_agg_add(a, "cls", it, j, err, sizeof(err)), 0);
		json_decref(j);
	}
	/* two iterations of 1e308: the median does not overflow, the report is written */
	CHECK_INT(sb_agg_report_checked(a, "r", &rep, err, sizeof(err)), 0);
	CHECK_NEAR(json_number_value(
			   json_object_get(metric(rep, "cls", "big", "read-iops"), "median")),
		   1e308, 1e295);
	json_decref(rep);
	rep = (json_t *)1;
	sb_agg_free(a);

	/* an interval of 1e-300 ms makes every per-second rate infinite: refused at add */
	a = sb_agg_new();
	CHECK(a != NULL);
	json_t *j =
		json_loads("{\"jobname\":\"x\",\"read\":{\"total_ios\":5,\"iops\":1,\"bw_bytes\":1,"
			   "\"lat_ns\":{\"mean\":1}},\"write\":{\"total_ios\":0},\"storagebench\":{"
			   "\"interval_ms\":1e-300,\"read\":{\"ios_series\":[1000000]}}}",
			   0, NULL);
	CHECK(j != NULL);
	int r = sb_agg_add(a, "cls", 1, j, err, sizeof(err));
	json_decref(j);
	CHECK_INT(r, -EINVAL);
	CHECK(strstr(
		err,
		"storagebench.read.ios_series[0]: 1000000 per 1e-300 ms is not a finite rate"));
	/* 1.7e308 and 0: the deviation overflows */
	for (unsigned it = 1; it <= 2; it++) {
		j = job("w", it == 1 ? 1.7e308 : 0, 1, 1, "[]");
		CHECK(j != NULL);
		CHECK_INT(sb_agg_add(a, "cls", it, j, err, sizeof(err)), 0);
		json_decref(j);
	}
	CHECK_INT(sb_agg_report_checked(a, "r", &rep, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "cls/w: read-iops: the stddev is inf") != NULL);
	sb_agg_free(a);
	return T_PASS;
}

/* Issue 15 bug 9: many workloads aggregate in about linear time, and are capped. */
static int test_many_workloads_capped(void)
{
	struct sb_agg *a = sb_agg_new();
	char err[256] = "", name[32];
	int r = 0;
	CHECK(a != NULL);
	json_t *j = job("w", 10, 1, 1, "[]");
	CHECK(j != NULL);
	for (int i = 0; i < SB_AGG_MAX_CELLS + 1 && !r; i++) {
		snprintf(name, sizeof(name), "w%d", i);
		CHECK_INT(json_object_set_new(j, "jobname", json_string(name)), 0);
		r = sb_agg_add(a, "cls", 1, j, err, sizeof(err));
		if (r && i != SB_AGG_MAX_CELLS)
			fprintf(stderr, "    workload %d: %d %s\n", i, r, err);
	}
	json_decref(j);
	CHECK_INT(r, -E2BIG);
	CHECK(strstr(err, "more than 4096 target x workload results"));
	json_t *rep = NULL;
	CHECK_INT(sb_agg_report_checked(a, "r", &rep, err, sizeof(err)), 0);
	CHECK_INT(json_array_size(json_object_get(rep, "results")), SB_AGG_MAX_CELLS);
	/* the report keeps first-seen order */
	CHECK_STR(json_string_value(json_object_get(
			  json_array_get(json_object_get(rep, "results"), 4095), "workload")),
		  "w4095");
	json_decref(rep);
	sb_agg_free(a);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"aggregate/mean-stddev-hand-computed", test_mean_stddev_hand_computed},
	{"aggregate/bad-results-name-the-field", test_bad_results_name_the_field},
	{"aggregate/overflow-names-the-metric", test_overflow_names_the_metric},
	{"aggregate/many-workloads-capped", test_many_workloads_capped},
};
TEST_MAIN(cases)
