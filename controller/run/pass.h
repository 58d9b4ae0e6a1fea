/* SPDX-License-Identifier: MIT */
/*
 * One reconcile pass of one BenchmarkRun, as the files that carry it out
 * share it: reconcile.c the skeleton (load, spec, lifecycle, then the
 * steps below in order), observe.c (what the informer caches say),
 * apply.c (the plan's creates and deletes), report.c (the report once
 * every class has ended), record.c (the new status, written once) and
 * events.c (the run's events, each said once). Internal to
 * controller/run/: nothing outside it includes this header.
 */
#ifndef SB_CONTROLLER_RUN_PASS_H
#define SB_CONTROLLER_RUN_PASS_H

#include "controller/core/controller.h"
#include "controller/distrib/distrib.h"
#include "controller/run/manifests.h"
#include "controller/run/plan.h"
#include "controller/run/spec.h"

#include <jansson.h>
#include <stdbool.h>

/* What the informer caches said of the run (observe.c). */
struct br_observed {
	struct br_obs obs;
	const json_t *pods[BR_MAX_CLASSES][BR_MAX_PODS]; /* borrowed from podlist */
	const json_t *newest_result[BR_MAX_CLASSES];	 /* borrowed from cmlist */
	json_t *podlist, *cmlist;			 /* owned */
	char engine[BR_MAX_CLASSES][64];
	unsigned prev_done[BR_MAX_CLASSES];
	struct br_dist_obs dist[BR_MAX_CLASSES]; /* distributed classes (spec.runner.pods > 1) */
};

/* What the apply step came to (the plan itself is not changed). */
struct br_applied {
	unsigned attempts[BR_MAX_CLASSES]; /* the plan's, less a create that did not happen */
	char err[BR_MAX_CLASSES][640];	   /* why an action of the class failed; "" none */
	char reason[BR_MAX_CLASSES][32];
	int failures;
	bool waiting; /* an old object of a name goes away: look again soon */
};

/* One reconcile pass of one run: observe -> plan -> apply -> report -> status -> events. */
struct br_pass {
	struct br_controller *c;
	json_t *run;	    /* owned */
	const json_t *prev; /* the run's status (borrowed from run) */
	struct br_ref ref;
	json_int_t gen;
	struct br_spec s;
	struct br_observed *ob;
	struct br_plan *plan;
	struct br_applied ap;
	/* the report step */
	bool terminal; /* ended, and the report (if any) written */
	json_t *report;
	char report_name[64], report_err[640];
	bool report_final; /* report_err will not go away by retrying */
};

/* ------------------------------------------------------------- observe.c */

/* What the informer caches say of the run, into ob (zeroed here). Reads no
 * API but a silent Pending pod's events and an overdue pod. 0 or -errno. */
int br_pass_observe(struct br_controller *c, const json_t *run, const struct br_spec *s,
		    struct br_observed *ob);

/* --------------------------------------------------------------- apply.c */

/*
 * Creates obj (consumed) for the run ref; what is the object's kind for
 * messages. Returns 1 (created), 0 (exists and is the run's), -EINPROGRESS
 * (an old object of the name goes away: look again; why says what for),
 * -EEXIST (a foreign object has the name; why names it), -errno with the
 * API's answer in why (why may be NULL).
 */
int br_pass_create(struct br_controller *c, const struct kube_resource *r, const struct br_ref *ref,
		   json_t *obj, const char *what, char *why, size_t whylen);

/* The plan's actions into p->ap; a create that fails is not an attempt. */
void br_pass_apply(struct br_pass *p);

/* The apply step's warnings (one per new problem), then the plan's events. */
void br_pass_apply_events(struct br_pass *p);

/* -------------------------------------------------------------- report.c */

/* The report, once every class has ended: built from the results, written
 * once. 0, -EAGAIN (the results could not be fetched), -ENOMEM. */
int br_pass_report_step(struct br_pass *p);

/* -------------------------------------------------------------- record.c */

/* A refused spec: the InvalidSpec event (once) and the Failed status
 * written. 0 or -errno. */
int br_pass_fail_invalid(struct br_controller *c, const struct br_ref *ref, const json_t *run,
			 const char *msg, json_int_t gen);

/* The new status (a new reference) with the Regressed condition; NULL on ENOMEM. */
json_t *br_pass_status(struct br_pass *p);

/* The run's end announced, status (borrowed) written, new iterations
 * counted. Returns br_status_write's answer (0, 1, -errno). */
int br_pass_record(struct br_pass *p, json_t *status);

/* -------------------------------------------------------------- events.c */

/* Records the event e about the run ref (an Event object and a log line). */
void br_pass_emit(struct br_controller *c, const struct br_ref *ref, const struct br_event *e);

/* br_pass_emit of a Normal (warning false) or Warning event, its message from fmt. */
void br_pass_emitf(struct br_controller *c, const struct br_ref *ref, bool warning,
		   const char *reason, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* True when the previous status' message already says msg (so the event was sent). */
bool br_pass_prev_message(const json_t *prev, const char *msg);

/* True when the previous status of class cls has message msg. */
bool br_pass_prev_class_message(const json_t *prev, const char *cls, const char *msg);

/* Whether this process says what about run uid for the first time (a ring of
 * hashes under c->mu): the cache can still show the old state for a moment
 * after the status write, and an event must not be sent twice. */
bool br_pass_first_announcement(struct br_controller *c, const char *uid, const char *what);

#endif
