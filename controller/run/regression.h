/* SPDX-License-Identifier: MIT */
/*
 * The Regressed condition of a finished run that was compared with a
 * baseline (its own spec.baseline or, for a schedule's run, the runs of the
 * schedule's baseline pooled): computed from the report ConfigMap's
 * compare.json with lib/stats/verdict.h (Holm-corrected), the run's
 * threshold (annotation storagebench.io/regression-threshold-percent,
 * default 10) and, for a schedule's run made while the schedule was
 * Regressed (annotations storagebench.io/regressed-since and -since-run),
 * the hysteresis: the run stays Regressed until it is back within the
 * threshold. No I/O but through the lookups given.
 */
#ifndef SB_CONTROLLER_RUN_REGRESSION_H
#define SB_CONTROLLER_RUN_REGRESSION_H

#include "controller/run/plan.h"

#include <jansson.h>
#include <time.h>

/* Returns a ConfigMap (new reference) or NULL. */
typedef json_t *(*br_cm_get)(void *arg, const char *ns, const char *name);

/*
 * The verdict of a finished run (*v, a new reference) from its report
 * ConfigMap (borrowed). 0, -ENOENT (no comparison, or not one that can be
 * judged), -ENOMEM.
 */
int br_regression_verdict(const json_t *report_cm, const json_t *run, json_t **v);

/*
 * Appends the condition {type: Regressed, status: True|False, reason:
 * SlowerThanBaseline|NotSlowerThanBaseline, message: the verdict summary,
 * and for True "; regressed since run X (time)"} to status.conditions
 * (status is the one being built; run, report_cm borrowed; report_cm NULL
 * or without compare.json: nothing added). lastTransitionTime is kept from
 * the run's previous status unless the status flips. Returns 1 when the
 * verdict is new or changed (then *ev is the event to record: Warning
 * Regressed, or Normal Improved / NotRegressed), 0 when nothing changed or
 * nothing was added, -ENOMEM.
 */
int br_regression_condition(const json_t *report_cm, const json_t *run, json_t *status,
			    json_int_t gen, time_t now, struct br_event *ev);

/*
 * The baseline report of run (borrowed): the report of spec_baseline, or,
 * when the run carries storagebench.io/baseline-runs, the reports of those
 * runs pooled (sb_report_pool: the iterations of every run of the same
 * workload). get finds a report ConfigMap by name. *out a new reference.
 * Returns 0; -ENOENT with err naming the run without a report; -EINVAL
 * with err saying which report is not one; -ENOMEM.
 */
int br_baseline_report(const json_t *run, const char *spec_baseline, br_cm_get get, void *arg,
		       json_t **out, char *err, size_t errlen);

#endif
