/* SPDX-License-Identifier: MIT */
/*
 * A BenchmarkRun's status as a pure function, next to the pure plan
 * (controller/run/plan.h): from the plan, what the apply step and the report
 * step came to, and the previous status, to the status object the
 * reconcile writes. No I/O, no clock: now is an input.
 */
#ifndef SB_CONTROLLER_RUN_STATUS_H
#define SB_CONTROLLER_RUN_STATUS_H

#include "controller/run/plan.h"

#include <jansson.h>
#include <stdbool.h>
#include <time.h>

struct br_status_class {
	const char *name;		      /* storage class */
	unsigned done;			      /* iterations with a result */
	unsigned attempts;		      /* the plan's, less a create that did not happen */
	const char *engine;		      /* "" unknown */
	const char *apply_reason, *apply_err; /* why an action failed this pass; "" none */
};

struct br_status_in {
	const char *run;	    /* the run's name */
	const struct br_plan *plan; /* the pass' plan (not changed) */
	struct br_status_class classes[BR_MAX_CLASSES];
	size_t nclasses;
	unsigned pods;		 /* runner pods per class (spec.runner.pods) */
	bool terminal;		 /* the run has ended and its report, if any, is written */
	const char *report_name; /* "" none */
	const char *report_err;	 /* "" none */
	bool report_final;	 /* report_err does not go away by retrying */
	const json_t *report;	 /* the report document, NULL none */
	const json_t *prev;	 /* the previous status, NULL none */
	long long gen;		 /* metadata.generation */
	time_t now;
};

/*
 * The new status (a new reference), NULL on ENOMEM: phase, progress,
 * classes, the Succeeded condition (its lastTransitionTime kept while its
 * status does not change), startTime and completionTime kept from prev,
 * and when terminal with a report, report, summary and warnings.
 */
json_t *br_status_compute(const struct br_status_in *in);

/* The status of a run whose spec is refused: Failed, reason InvalidSpec, msg. */
json_t *br_status_invalid(const json_t *prev, const char *msg, long long gen, time_t now);

/* The [Succeeded] conditions array (a new reference) or NULL on ENOMEM. */
json_t *br_status_condition(const json_t *prev, const char *status, const char *reason,
			    const char *message, long long gen, time_t now);

#endif
