/* SPDX-License-Identifier: MIT */
/*
 * A schedule's history: the change points of its kept successful runs, per
 * class, workload and headline metric, found by E-divisive means
 * (lib/stats/changepoint.h) over the runs' means, oldest first. Only runs
 * of the newest run's workload (its fingerprint) are in a series: a changed
 * template starts a new one. Pure.
 */
#ifndef SB_CONTROLLER_SCHEDULE_HISTORY_H
#define SB_CONTROLLER_SCHEDULE_HISTORY_H

#include <jansson.h>
#include <stddef.h>

/* at least this many runs in a series before it is searched */
#define BR_HISTORY_MIN_RUNS 4

/*
 * reps[0..n): the report documents of the runs names[0..n), oldest first
 * (borrowed; a NULL report is skipped). Returns a new array of
 *   {"class", "workload", "metric", "run" (the first run after the change),
 *    "changePercent", "confidence" (1 - the permutation test's p),
 *    "message": "changed at run X by -11.5% (confidence 97%)"}
 * in the order of the newest report's results and metrics; NULL on ENOMEM.
 */
json_t *br_history_change_points(const json_t *const *reps, const char *const *names, size_t n);

#endif
