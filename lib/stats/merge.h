/* SPDX-License-Identifier: MIT */
/*
 * Merging what several runner pods measured of one workload at the same
 * time (a distributed run, docs/distributed.md) into one job object of the
 * runner's JSON output, which lib/stats/aggregate.c then treats as one
 * iteration.
 *
 * IOPS and bandwidth are the sum over pods of the per-second series over
 * the seconds every pod measured (the common window: the shortest
 * series), not the sum of averages over differently long runs. Latency
 * percentiles come from the histograms added bucket by bucket, mean
 * latencies are weighted by I/O count, counts are added. A job without
 * per-second series (they are dropped when a result is too large) falls
 * back to the sum of the pods' rates, and the merged job says so
 * (storagebench.merge.read.window "rates").
 */
#ifndef SB_LIB_STATS_MERGE_H
#define SB_LIB_STATS_MERGE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* A pod below this fraction of its class's median is flagged a straggler. */
#define SB_MERGE_STRAGGLER_RATIO 0.5

/*
 * Merges jobs[0..n) (borrowed runner job objects of one workload, n >= 1)
 * into *out (new reference): fields as the runner writes them, plus
 * storagebench.merge = {"pods": n, "read"/"write": {"window": "series"|"rates",
 * "seconds": the common window in seconds (series only)}}. Returns 0, -EINVAL with err naming
 * the pod index and field (a job that is malformed or whose jobname differs),
 * -ENOMEM.
 */
int sb_merge_jobs(const json_t *const *jobs, size_t n, json_t **out, char *err, size_t errlen);

/* The median of v[0..n) (sorted in place); 0 when n is 0. */
double sb_merge_median(double *v, size_t n);

/* Whether value is a straggler against its class's median (positive median only). */
bool sb_merge_straggler(double value, double median);

#endif
