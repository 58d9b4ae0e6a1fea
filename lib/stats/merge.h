/* SPDX-License-Identifier: MIT */
/*
 * Merging what several runner pods measured of one workload at the same
 * time (a distributed run, docs/distributed.md) into one job object of the
 * runner's JSON output, which lib/stats/aggregate.c then treats as one
 * iteration.
 *
 * The window. Each pod's per-second series carries its absolute start
 * (storagebench.series_start_ns, lib/result/resultdoc.h), which the caller
 * may correct by the pod's measured clock offset. The window starts at the
 * latest pod's start, t0; each pod contributes the run of its intervals
 * that starts with the one nearest in time to t0 (at half an interval or
 * more, the later one), all pods the same number W of intervals: as many
 * as every pod has from there. So a pod's interval is summed with the
 * others' that overlap it by at least half an interval; the seconds before
 * the latest start (when not every pod measured) are not in the window.
 * Results without the start (older runners) are lined up by position
 * (interval i of every pod), and the merge says so ("alignment": "index").
 *
 * Over the window: IOPS and bandwidth are the sum of the pods' series
 * divided by W intervals; counts (total_ios, io_bytes, latency N) are the
 * sums over the window; completion-latency percentiles come from the pods'
 * per-interval histograms of the window added bucket by bucket
 * (storagebench.<dir>.clat_hist_series), mean latencies from the
 * per-interval latency sums over the window's count. Min and max latency
 * are over each pod's whole run. A pod without per-interval latency (older
 * runner, or dropped to fit a ConfigMap) makes latency come from the whole
 * runs: the histograms added, means weighted by I/O count ("latency":
 * "run"). Without series (dropped when a result is too large) IOPS fall
 * back to the sum of the pods' rates ("window": "rates"). The sync
 * direction has no series: counts and latency of the whole runs.
 */
#ifndef SB_LIB_STATS_MERGE_H
#define SB_LIB_STATS_MERGE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A pod below this fraction of its class's median is flagged a straggler. */
#define SB_MERGE_STRAGGLER_RATIO 0.5

/* A pod whose series starts later than the earliest pod's by more is named late. */
#define SB_MERGE_LATE_MS 250

/* Bounds of a series start and a clock offset, in ns (beyond: malformed). */
#define SB_MERGE_MAX_START_NS  (INT64_C(1) << 62)
#define SB_MERGE_MAX_OFFSET_NS (INT64_C(1) << 50)

/*
 * One pod of a merge: clock_offset_ns in (the pod's clock minus the
 * reference clock, subtracted from its series start; 0 when not measured),
 * the rest out: the pod's own figures over the window (they add up to the
 * merged job's; with "window": "rates" its own rates), where its series
 * starts in the reference time base (0: unknown), how much later than the
 * earliest pod's (ms), whether that is beyond SB_MERGE_LATE_MS, and the
 * first of its intervals in the window.
 */
struct sb_merge_pod {
	int64_t clock_offset_ns;
	double iops[2], bw_bytes[2]; /* read, write */
	int64_t start_ns;
	double late_ms;
	bool late;
	size_t first;
};

/*
 * Merges jobs[0..n) (borrowed runner job objects of one workload, n >= 1)
 * into *out (new reference): fields as the runner writes them (the
 * per-interval latency series left out), plus storagebench.merge =
 * {"pods": n, "alignment": "time"|"index", "start_ns": t0 (time only),
 * "late_ms_bound": SB_MERGE_LATE_MS, "late": [pod index, ...], "members":
 * [{"start_ns", "late_ms", "first"}, ...] (time only), "read"/"write":
 * {"window": "series"|"rates", "seconds": W intervals in seconds (series
 * only), "latency": "window"|"run"}}. pods (n of them, may be NULL: no
 * offsets, no figures out) is read and filled as its type says. Returns 0,
 * -EINVAL with err naming the pod index and field (a job that is malformed
 * or whose jobname differs, a start or offset out of range), -ENOMEM.
 */
int sb_merge_pods(const json_t *const *jobs, struct sb_merge_pod *pods, size_t n, json_t **out,
		  char *err, size_t errlen);

/* sb_merge_pods without offsets or figures out. */
int sb_merge_jobs(const json_t *const *jobs, size_t n, json_t **out, char *err, size_t errlen);

/* The median of v[0..n) (sorted in place); 0 when n is 0. */
double sb_merge_median(double *v, size_t n);

/* Whether value is a straggler against its class's median (positive median only). */
bool sb_merge_straggler(double value, double median);

#endif
