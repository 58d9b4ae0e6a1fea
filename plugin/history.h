/* SPDX-License-Identifier: MIT */
/*
 * The table of `kubectl storagebench history SCHEDULE`: the runs of a
 * BenchmarkSchedule, newest activation first, one row per run, storage
 * class, workload and metric with the mean (+- stddev), the change against
 * the previous successful run of the schedule and its trend (better, worse,
 * same: latencies are better lower), and the run's Regressed condition.
 * Pure.
 */
#ifndef SB_PLUGIN_HISTORY_H
#define SB_PLUGIN_HISTORY_H

#include <jansson.h>
#include <stddef.h>

/*
 * runs: an array of BenchmarkRuns (or a list object with items; borrowed).
 * metric: one metric name of status.summary, or NULL for read-iops and
 * write-iops. A new string (NULL on ENOMEM); *nruns: the number of runs.
 */
char *sbp_history_format(const json_t *runs, const char *metric, size_t *nruns);

#endif
