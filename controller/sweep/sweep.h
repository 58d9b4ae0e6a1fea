/* SPDX-License-Identifier: MIT */
/*
 * A saturation sweep (spec.sweep.pods, docs/distributed.md "Saturation
 * sweep"): the same run repeated with 1, 2, 4... runner pods per class,
 * one step after another, and the curve of aggregate IOPS against clients
 * in the report (lib/report/sweep.h).
 *
 * Design: each step is an ordinary BenchmarkRun of its own, "<run>-p<N>",
 * owned by the sweeping run, whose spec is the sweep's without
 * spec.sweep and with spec.runner.pods: N (br_sweep_child_spec). So a
 * step is measured, retried, timed out, reported and cleaned up exactly as
 * any distributed run, and its own report stays readable. The sweeping run
 * creates the next step when the one before it ended (steps compete for
 * the same storage: never at once), and when every step ended writes its
 * report: the last successful step's report with the sweep section built
 * from every step's report (sb_sweep_section).
 *
 * Here: the spec and the plan, pure functions; controller/sweep/reconcile.c
 * applies them.
 */
#ifndef SB_CONTROLLER_SWEEP_SWEEP_H
#define SB_CONTROLLER_SWEEP_SWEEP_H

#include "controller/run/plan.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define BR_SWEEP_MAX_STEPS 8

struct br_sweep {
	unsigned pods[BR_SWEEP_MAX_STEPS]; /* strictly increasing, 1..SB_SPEC_MAX_PODS */
	size_t n;			   /* 0: no sweep */
};

/*
 * Parses spec.sweep of spec (borrowed): {"pods": [1, 2, 4]}, 2 to
 * BR_SWEEP_MAX_STEPS steps. Not with spec.runner.pods other than 1 (the sweep
 * sets it; 1 is the CRD's default).
 * Each step's spec (br_sweep_child_spec) is validated as a run of its own
 * with br_spec_parse (default_image, default_sa as there): an error there
 * is named "spec.sweep.pods[k]: with N runner pods: <error>". Returns 0
 * (sw->n 0 when spec has no sweep), -EINVAL with err naming the field,
 * -ENOMEM.
 */
int br_sweep_parse(const json_t *spec, const char *default_image, const char *default_sa,
		   struct br_sweep *sw, char *err, size_t errlen);

/* The spec of the step with pods runner pods per class (new reference; NULL on ENOMEM). */
json_t *br_sweep_child_spec(const json_t *spec, unsigned pods);

/* The step's run name "<run>-p<pods>": 0, or -ENAMETOOLONG when it is not a name of at
 * most 63 characters (the run names its pods and PVCs after it). */
int br_sweep_child_name(char *buf, size_t len, const char *run, unsigned pods);

/* What the sweeping run sees of one step's run. */
enum br_step_state {
	BR_STEP_ABSENT = 0, /* not created yet */
	BR_STEP_ACTIVE,	    /* created, not ended */
	BR_STEP_SUCCEEDED,
	BR_STEP_FAILED,
};

struct br_sweep_plan {
	int create;	   /* the step whose run to create now, -1: none */
	bool write_report; /* every step ended, one succeeded, the report is missing */
	enum br_run_phase phase;
	char reason[64];
	char message[512];
	unsigned ended; /* steps that ended */
};

/*
 * The sweeping run's plan from its steps' states (n = sw->n entries):
 * steps run one after another in spec order; a failed step does not stop
 * the sweep (its point is missing from the curve); the run succeeds when
 * every step did, else fails naming the failed steps (reason
 * SweepStepFailed). Pure.
 */
void br_sweep_plan_compute(const struct br_sweep *sw, const enum br_step_state *steps,
			   bool report_exists, struct br_sweep_plan *p);

#endif
