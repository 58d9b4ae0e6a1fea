/* SPDX-License-Identifier: MIT */
/*
 * Runner job objects for the merge tests (lib/stats/merge.c) and the
 * distributed report (controller/distrib/distrib.c), in the shape
 * runner/out/json.c writes them: a read direction with a per-second
 * series, one latency bucket, and, for fx_timed_job, the series' start and
 * per-interval latency (lib/result/resultdoc.h).
 */
#ifndef SB_TEST_JOB_FIXTURE_H
#define SB_TEST_JOB_FIXTURE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define FX_T0 INT64_C(1700000000000000000) /* a series start, ns since the epoch */

/*
 * A job: read I/O with a per-second series (ios[i] I/Os of bs bytes in
 * second i), its whole-run latency histogram all in lat_bucket, and the
 * rate it reports (reported_iops). A new reference.
 */
static inline json_t *fx_job(const char *name, const json_int_t *ios, size_t n, json_int_t bs,
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

/*
 * A member's job "w" with its place in time: a read series starting at
 * start_ns, interval i with ios[i] I/Os all in latency bucket bucket[i],
 * each of clat[i] ns (lat 100 ns more), as the per-interval series say.
 */
static inline json_t *fx_timed_job(int64_t start_ns, const json_int_t *ios, const unsigned *bucket,
				   const double *clat, size_t n)
{
	json_t *j = fx_job("w", ios, n, 4096, bucket[n - 1], 0);
	json_t *sb = json_object_get(j, "storagebench");
	json_t *rd = json_object_get(sb, "read");
	json_t *hs = json_array(), *cs = json_array(), *ls = json_array(), *whole = json_array();
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(hs, json_pack("[I,I]", (json_int_t)bucket[i], ios[i]));
		json_array_append_new(cs, json_integer((json_int_t)((double)ios[i] * clat[i])));
		json_array_append_new(ls,
				      json_integer((json_int_t)((double)ios[i] * (clat[i] + 100))));
		json_array_append_new(whole, json_pack("[I,I]", (json_int_t)bucket[i], ios[i]));
	}
	json_object_set_new(sb, "series_start_ns", json_integer(start_ns));
	json_object_set_new(rd, "clat_hist_series", hs);
	json_object_set_new(rd, "clat_sum_series", cs);
	json_object_set_new(rd, "lat_sum_series", ls);
	json_object_set_new(rd, "clat_hist", whole); /* the whole run's (buckets may repeat) */
	return j;
}

#endif
