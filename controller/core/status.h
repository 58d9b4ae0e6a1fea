/* SPDX-License-Identifier: MIT */
/*
 * What every reconciler (runs, sweeps, schedules) writes back, defined once:
 *
 * - status conditions (metav1.Condition: type, status, reason, message,
 *   lastTransitionTime, observedGeneration), their lastTransitionTime kept
 *   from the previous status while the condition's status does not flip;
 * - the status write: the status subresource, conditioned on the
 *   resourceVersion the pass read, the whole status replaced, and
 *   remembered in the controller's ring of writes (struct br_controller's
 *   written) so that a pass from a cache that has not seen this process's
 *   write yet waits for it (br_status_behind) instead of working from what
 *   the write replaced (its plan's events sent twice, its write refused).
 *
 * Times are RFC 3339 from lib/time/rfc3339.h. The ring is keyed by the
 * object's UID, so runs and schedules share it.
 */
#ifndef SB_CONTROLLER_CORE_STATUS_H
#define SB_CONTROLLER_CORE_STATUS_H

#include "kube/kube.h"

#include <jansson.h>
#include <stdbool.h>
#include <time.h>

struct br_controller;

/* One condition to build; every string borrowed. */
struct br_condition {
	const char *type;    /* "Succeeded", "Regressed", "InvalidSpec" */
	const char *status;  /* "True", "False" or "Unknown" */
	const char *reason;  /* CamelCase */
	const char *message; /* for people */
	long long gen;	     /* observedGeneration: the metadata.generation the pass read */
};

/* The condition of type in status.conditions (borrowed from status) or NULL. */
const json_t *br_condition_find(const json_t *status, const char *type);

/*
 * The condition (a new reference; NULL on ENOMEM): lastTransitionTime is
 * the one of prev's (the previous status, may be NULL) condition of the
 * same type while its status is cond->status, else now.
 */
json_t *br_condition_new(const json_t *prev, const struct br_condition *cond, time_t now);

/*
 * Puts the condition (br_condition_new) into status.conditions (status is
 * the one being built), replacing one of the same type, else appending.
 * 0 or -ENOMEM.
 */
int br_condition_set(json_t *status, const json_t *prev, const struct br_condition *cond,
		     time_t now);

/*
 * Whether obj (a run or a schedule read from the cache) is at the very
 * resourceVersion a status write of this process changed, at most
 * BR_WRITTEN_WAIT_S ago: the informer has not brought the object back since,
 * and a pass should wait for the watch (which queues it again).
 */
#define BR_WRITTEN_WAIT_S 10
bool br_status_behind(struct br_controller *c, const json_t *obj);

/*
 * Writes status over obj's (obj borrowed: the object of resource res the
 * pass read from the cache; status borrowed), through c->ops.patch_status:
 * conditioned on obj's resourceVersion (a pass that worked from a cache
 * older than the stored status must not overwrite it), keys of the old
 * status that status lacks set to null (the whole status replaced). Not
 * sent when it equals obj's status (numbers compared by value: the API
 * server gives 1234.0 back as 1234), nor when the same status was written
 * at this resourceVersion and changed nothing. A write that went through
 * is remembered (br_status_behind). Returns 0 (written, not needed, or the
 * object is gone), 1 when obj changed meanwhile (409: nothing written; the
 * newer object is reconciled next), or a negative errno (logged, counted
 * as an API error).
 */
int br_status_write(struct br_controller *c, const struct kube_resource *res, const json_t *obj,
		    const json_t *status);

#endif
