/* SPDX-License-Identifier: MIT */
/*
 * The Regressed condition of a finished run that was compared with a
 * baseline (its own spec.baseline or, for a schedule's run, the previous
 * successful run): computed from the report ConfigMap's compare.json with
 * lib/stats/verdict.h and the run's threshold (annotation
 * storagebench.io/regression-threshold-percent, default 10). No I/O.
 */
#ifndef SB_CONTROLLER_REGRESSION_H
#define SB_CONTROLLER_REGRESSION_H

#include "controller/run/plan.h"

#include <jansson.h>
#include <time.h>

/*
 * Appends the condition {type: Regressed, status: True|False, reason:
 * SlowerThanBaseline|NotSlowerThanBaseline, message: the verdict summary}
 * to status.conditions (status is the one being built; run, report_cm
 * borrowed; report_cm NULL or without compare.json: nothing added).
 * lastTransitionTime is kept from the run's previous status unless the
 * status flips. Returns 1 when the verdict is new or changed (then *ev is
 * the event to record: Warning Regressed, or Normal Improved / Compared),
 * 0 when nothing changed or nothing was added, -ENOMEM.
 */
int br_regression_condition(const json_t *report_cm, const json_t *run, json_t *status,
			    json_int_t gen, time_t now, struct br_event *ev);

#endif
