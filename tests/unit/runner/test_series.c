/* SPDX-License-Identifier: MIT */
/*
 * The runner's per-interval series (runner/io/result.h) and how they are
 * written (runner/out/json.c): counts, latency sums and histograms per
 * interval, clones merged interval by interval, the series' start.
 */
#include "tests/unit/harness.h"
#include "runner/io/result.h"
#include "runner/io/run.h"
#include "runner/out/json.h"
#include "stats/hist.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static struct sb_hist hist_buf;

/* Pushes one interval of ios I/Os, half in bucket b1, half in b2, each of clat ns. */
static int push(struct sb_series *s, uint64_t ios, unsigned b1, unsigned b2, uint64_t clat)
{
	memset(&hist_buf, 0, sizeof(hist_buf));
	hist_buf.bucket[b1] += ios / 2;
	hist_buf.bucket[b2] += ios - ios / 2;
	hist_buf.n = ios;
	struct sb_interval iv = {ios, ios * 4096, ios * clat, ios * (clat + 50), &hist_buf};
	return sb_series_push(s, &iv);
}

/* Interval i's buckets of a series as a count per bucket into h. */
static void interval_hist(const struct sb_series *s, size_t i, struct sb_hist *h)
{
	memset(h, 0, sizeof(*h));
	for (size_t k = s->hoff[i]; k < s->hoff[i + 1]; k++)
		h->bucket[SB_SERIES_PAIR_BUCKET(s->hb[k])] += SB_SERIES_PAIR_COUNT(s->hb[k]);
}

static struct sb_hist h_check;

/* Two clones: summed interval by interval over the common prefix, histograms too. */
static int test_clones_merge(void)
{
	struct sb_dir_result a = {0}, b = {0}, m = {0};
	CHECK_INT(push(&a.series, 10, 100, 120, 1000), 0);
	CHECK_INT(push(&a.series, 20, 100, 130, 1000), 0);
	CHECK_INT(push(&a.series, 30, 100, 130, 1000), 0);
	CHECK_INT(push(&b.series, 4, 120, 140, 2000), 0);
	CHECK_INT(push(&b.series, 6, 90, 100, 2000), 0);
	int r1 = sb_dir_result_merge(&m, &a), r2 = sb_dir_result_merge(&m, &b);
	size_t n = m.series.n, nh = m.series.nhist;
	uint64_t ios1 = m.series.ios[1], clat0 = m.series.clat_sum[0], lat1 = m.series.lat_sum[1];
	interval_hist(&m.series, 0, &h_check);
	uint64_t b100 = h_check.bucket[100], b120 = h_check.bucket[120], b140 = h_check.bucket[140];
	interval_hist(&m.series, 1, &h_check);
	uint64_t c90 = h_check.bucket[90], c100 = h_check.bucket[100], c130 = h_check.bucket[130];
	size_t pairs0 = m.series.hoff[1] - m.series.hoff[0];
	sb_series_release(&a.series);
	sb_series_release(&b.series);
	sb_series_release(&m.series);
	CHECK_INT(r1, 0);
	CHECK_INT(r2, 0);
	CHECK_INT(n, 2); /* the common prefix */
	CHECK_INT(nh, 2);
	CHECK_INT(ios1, 26);
	CHECK_INT(clat0, 10 * 1000 + 4 * 2000);
	CHECK_INT(lat1, 20 * 1050 + 6 * 2050);
	CHECK_INT(b100, 5);
	CHECK_INT(b120, 5 + 2); /* one bucket in both: added, one pair */
	CHECK_INT(b140, 2);
	CHECK_INT(pairs0, 3);
	CHECK_INT(c90, 3);
	CHECK_INT(c100, 10 + 3);
	CHECK_INT(c130, 10);
	return T_PASS;
}

/* An interval without I/O (an empty histogram) merges into an empty result. */
static int test_empty_interval_merges(void)
{
	struct sb_dir_result a = {0}, m = {0};
	memset(&hist_buf, 0, sizeof(hist_buf));
	struct sb_interval iv = {0, 0, 0, 0, &hist_buf};
	int p1 = sb_series_push(&a.series, &iv);
	int p2 = push(&a.series, 6, 100, 101, 1000);
	int r = sb_dir_result_merge(&m, &a);
	size_t n = m.series.n, nh = m.series.nhist, h0 = m.series.hoff[1], h1 = m.series.hoff[2];
	sb_series_release(&a.series);
	sb_series_release(&m.series);
	CHECK_INT(p1, 0);
	CHECK_INT(p2, 0);
	CHECK_INT(r, 0);
	CHECK_INT(n, 2);
	CHECK_INT(nh, 2);
	CHECK_INT(h0, 0);
	CHECK_INT(h1, 2);
	return T_PASS;
}

/* Past SB_SERIES_MAX_PAIRS the intervals keep their counts but no histogram. */
static int test_pairs_capped(void)
{
	struct sb_series s = {0};
	int r = 0;
	size_t per = 2, intervals = SB_SERIES_MAX_PAIRS / per + 3;
	for (size_t i = 0; i < intervals && !r; i++)
		r = push(&s, 8, 100, 200, 500);
	size_t n = s.n, nh = s.nhist, hn = s.hn;
	sb_series_release(&s);
	CHECK_INT(r, 0);
	CHECK_INT(n, intervals);
	CHECK_INT(nh, SB_SERIES_MAX_PAIRS / per);
	CHECK(hn <= SB_SERIES_MAX_PAIRS);
	return T_PASS;
}

/* The JSON: the start, the sums, the histograms gap-coded, none when one interval lacks it. */
static int test_json_fields(void)
{
	struct sb_job_result *r = sb_job_result_new();
	CHECK(r != NULL);
	snprintf(r->name, sizeof(r->name), "w");
	r->interval_us = 1000000;
	r->series_start_ns = INT64_C(1700000000123456789);
	int p1 = push(&r->dir[SB_READ].series, 10, 100, 103, 1000);
	int p2 = push(&r->dir[SB_READ].series, 4, 7, 7, 3000);
	struct sb_job_result *v[] = {r};
	struct sb_results all = {v, 1, 1};
	json_t *j = sb_out_json_job(&all, r, false);
	const json_t *sb = json_object_get(j, "storagebench"), *rd = json_object_get(sb, "read");
	char *hs = json_dumps(json_object_get(rd, "clat_hist_series"), JSON_COMPACT);
	char *cs = json_dumps(json_object_get(rd, "clat_sum_series"), JSON_COMPACT);
	char *ls = json_dumps(json_object_get(rd, "lat_sum_series"), JSON_COMPACT);
	json_int_t start = json_integer_value(json_object_get(sb, "series_start_ns"));
	/* an interval without its histogram: none written */
	struct sb_interval iv = {1, 4096, 10, 20, NULL};
	int p3 = sb_series_push(&r->dir[SB_READ].series, &iv);
	json_t *j2 = sb_out_json_job(&all, r, false);
	int none = json_object_get(json_object_get(json_object_get(j2, "storagebench"), "read"),
				   "clat_hist_series") == NULL;
	json_int_t len2 = (json_int_t)json_array_size(json_object_get(
		json_object_get(json_object_get(j2, "storagebench"), "read"), "lat_sum_series"));
	char hsb[128], csb[64], lsb[64];
	snprintf(hsb, sizeof(hsb), "%s", hs ? hs : "");
	snprintf(csb, sizeof(csb), "%s", cs ? cs : "");
	snprintf(lsb, sizeof(lsb), "%s", ls ? ls : "");
	free(hs);
	free(cs);
	free(ls);
	json_decref(j);
	json_decref(j2);
	sb_job_result_free(r);
	CHECK_INT(p1, 0);
	CHECK_INT(p2, 0);
	CHECK_INT(p3, 0);
	CHECK_STR(hsb, "[[100,5,3,5],[7,4]]");
	CHECK_STR(csb, "[10000,12000]");
	CHECK_STR(lsb, "[10500,12200]");
	CHECK_INT(start, INT64_C(1700000000123456789));
	CHECK(none);
	CHECK_INT(len2, 3);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"series/clones merged interval by interval", test_clones_merge},
	{"series/histograms capped, counts kept", test_pairs_capped},
	{"series/an interval without I/O merges", test_empty_interval_merges},
	{"series/json: start, sums, gap-coded histograms", test_json_fields},
};

TEST_MAIN(cases)
