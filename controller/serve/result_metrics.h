/* SPDX-License-Identifier: MIT */
/*
 * Benchmark results as Prometheus gauges (docs/schedules.md, "Metrics"),
 * rendered at scrape time from what the informer caches hold, so they
 * survive controller restarts and need no state of their own:
 *
 *   storagebench_schedule_result_mean / _stddev / _samples
 *       {namespace, schedule, class, workload, metric, unit}
 *       the newest successful run of each schedule (by activation)
 *   storagebench_schedule_last_success_timestamp_seconds{namespace, schedule}
 *   storagebench_schedule_regressed{namespace, schedule}            0 or 1
 *   storagebench_schedule_change_percent
 *       {namespace, schedule, class, workload, metric, verdict}  (regression|improvement)
 *   storagebench_run_result_mean / _stddev / _samples
 *       {namespace, run, class, workload, metric, unit}
 *       every successful run that is not a schedule's
 *   storagebench_run_regressed{namespace, run}, storagebench_run_change_percent{...}
 *
 * Bounded labels: a schedule's series keep their labels from run to run (no
 * run name); metrics are the headline set SB_RESULT_METRICS (IOPS,
 * bandwidth, mean and p99 latency), so a schedule has at most classes x
 * workloads x 9 series per gauge. Runs outside schedules are exported
 * while they exist (delete them, or use a schedule, to bound them).
 */
#ifndef SB_CONTROLLER_SERVE_RESULT_METRICS_H
#define SB_CONTROLLER_SERVE_RESULT_METRICS_H

#include <jansson.h>
#include <stdio.h>

/* Returns a report ConfigMap (new reference) or NULL. */
typedef json_t *(*br_cm_lookup)(void *arg, const char *ns, const char *name);

/*
 * Writes the gauges for runs (an array of BenchmarkRun objects, borrowed)
 * to f; get_cm finds a run's report ConfigMap (for the verdicts). Pure but
 * for get_cm. Returns 0 or -ENOMEM.
 */
int br_result_metrics_write(FILE *f, const json_t *runs, br_cm_lookup get_cm, void *arg);

struct br_controller;
/* The gauges of every run in the controller's caches; a malloc'd string or NULL (ENOMEM). */
char *br_result_metrics_render(struct br_controller *c);

#endif
