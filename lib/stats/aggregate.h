/* SPDX-License-Identifier: MIT */
/*
 * Aggregation of benchmark iterations into a report.
 *
 * Input: for each target (a storage class, or a directory for a local
 * run), workload and iteration, one job object of the runner's JSON output
 * (fio's field names plus the "storagebench" extras). Output: the report
 * document (report.json), per target x workload x metric the mean, sample
 * standard deviation (n - 1), min, max, median, coefficient of variation,
 * n and the samples; latency percentiles also from the histogram merged
 * over all iterations; fastest/median/slowest second of throughput.
 *
 * Both the runner (--iterations) and the controller feed this module, so a
 * host-only run and a cluster run produce the same report.
 */
#ifndef SB_LIB_STATS_AGGREGATE_H
#define SB_LIB_STATS_AGGREGATE_H

#include <jansson.h>
#include <stddef.h>

struct sb_agg;

/*
 * Metrics of object-storage results (runner/s3/out.c's storagebench.s3):
 * the median time to first byte (ns) and the failed requests of an
 * iteration (unit "requests"; the result then also has "errors_by_status",
 * {"503": 10, "0": 2} summed over the iterations, "0" no response).
 */
#define SB_METRIC_TTFB_P50 "ttfb-p50"
#define SB_METRIC_ERRORS   "errors"

/* A new, empty aggregation; NULL on ENOMEM. Free with sb_agg_free. */
struct sb_agg *sb_agg_new(void);
void sb_agg_free(struct sb_agg *a);

/* At most this many target x workload results in one aggregation (-E2BIG beyond). */
#define SB_AGG_MAX_CELLS 4096

/*
 * Adds one iteration of one workload on one target, from a runner job
 * object (borrowed; not kept). The workload name is the job's "jobname".
 * A second result for the same target, workload and iteration is
 * ignored (returns -EEXIST). Returns 0, -EINVAL with err naming the field
 * that is missing or malformed, -ENOMEM.
 */
int sb_agg_add(struct sb_agg *a, const char *target, unsigned iteration, const json_t *job,
	       char *err, size_t errlen);

/*
 * The report document (new reference; NULL on ENOMEM):
 *   {"kind": "StoragebenchReport", "version": 1, "name": NAME,
 *    "targets": [...], "workloads": [...],
 *    "results": [{"target", "workload", "rw", "bs", "iodepth", "numjobs", "fsync",
 *                 "engine", "iterations", "headline": [metric names],
 *                 "metrics": {"read-iops": {"unit", "mean", "stddev", "min",
 *                             "max", "median", "cv", "n", "samples": [...]},
 *                             ...},
 *                 "merged": {"read": {"p50", "p99", "p99.9"}, ...},
 *                 "seconds": {"read": {"fastest", "median", "slowest",
 *                             "n", "unit": "IOPS"}, ...}}]}
 * Metric names: {read,write}-{iops,bw,lat-mean,lat-p50,lat-p99,lat-p99.9},
 * sync-lat-mean, sync-lat-p99; units "IOPS", "B/s", "ns".
 */
json_t *sb_agg_report(const struct sb_agg *a, const char *name);

/*
 * As sb_agg_report, with a reason: 0 and *out a new reference; -EINVAL when
 * a statistic is not finite (values whose mean or deviation overflow), err
 * naming the target, workload and metric; -ENOMEM.
 */
int sb_agg_report_checked(const struct sb_agg *a, const char *name, json_t **out, char *err,
			  size_t errlen);

#endif
