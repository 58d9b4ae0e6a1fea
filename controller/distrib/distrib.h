/* SPDX-License-Identifier: MIT */
/*
 * Distributed runs (spec.runner.pods > 1, docs/distributed.md): several
 * runner pods ("members") per storage class, started together at a
 * barrier, their results merged.
 *
 * The plan (plan.c) stays the plan of one runner per class: observe here
 * folds the member pods of one attempt into one pod observation (failed
 * when one failed, succeeded when all did), the member PVCs into one
 * volume observation, and counts an iteration as done when every member
 * of one attempt recorded it. Applying a plan's action on a distributed
 * class acts on every member (br_dist_apply_action).
 *
 * The barrier: a member that has laid out its files creates its "ready"
 * ConfigMap for (iteration, attempt); when all members of the attempt are
 * ready, the controller creates the "start" ConfigMap with a start time
 * BR_DIST_START_DELAY_MS in the future; every member waits for it and
 * starts measuring then. A barrier not complete within spec.timeouts.barrier
 * of its first member fails the class (BarrierTimeout), naming the pod
 * that is missing and its node; recorded iterations are kept.
 */
#ifndef SB_CONTROLLER_DISTRIB_DISTRIB_H
#define SB_CONTROLLER_DISTRIB_DISTRIB_H

#include "controller/core/controller.h"
#include "controller/run/manifests.h"
#include "controller/run/plan.h"
#include "controller/run/spec.h"
#include "kube/kube.h"

#include <jansson.h>
#include <stdint.h>

#define BR_DIST_START_DELAY_MS 2000
#define BR_DIST_MAX_STARTS     8
#define BR_DIST_MAX_STOP       64

/* What observe found of one distributed class, for the apply and report steps. */
struct br_dist_obs {
	/* barriers complete and not started yet: create their start ConfigMaps */
	struct {
		unsigned iteration, attempt, group;
	} starts[BR_DIST_MAX_STARTS];
	size_t nstarts;
	char done[4096]; /* "1,2,3": iterations with a complete attempt (SB_DONE_ITERATIONS) */
	/* live members of a failed attempt: stopped before the next attempt starts */
	char stop[BR_DIST_MAX_STOP][64];
	size_t nstop;
};

/* The PVC of member (perPod), or the class's shared PVC (shared, sharedFile). */
json_t *br_member_pvc_manifest(const struct br_ref *run, const struct br_spec *s, const char *cls,
			       unsigned member);

/*
 * The runner pod of member of attempt: the single-pod manifest with the
 * member's name, labels, volume, directory (shared: /data/m<member>), the
 * barrier environment (done: SB_DONE_ITERATIONS) and the spread constraint.
 */
json_t *br_member_pod_manifest(const struct br_ref *run, const struct br_spec *s, const char *cls,
			       unsigned attempt, unsigned member, const char *done);

/*
 * The start ConfigMap of (iteration, attempt, workload group), start_ns
 * nanoseconds since the epoch.
 */
json_t *br_start_cm_manifest(const struct br_ref *run, const char *cls, unsigned iteration,
			     unsigned attempt, unsigned group, int64_t start_ns);

/*
 * Observes distributed class co (its name set, the single-pod observation
 * already made, overridden here) from the pod and ConfigMap lists
 * (borrowed) and the PVC cache, through ops (controller/core/ops.h); asks the API whether the last attempt's
 * first pod is gone when the cache lacks it. Fills d; *left becomes true
 * when a member PVC exists. Returns 0 or -errno.
 */
int br_dist_observe(const struct br_ops *ops, const struct br_ref *run, const struct br_spec *s,
		    const json_t *podlist, const json_t *cmlist, time_t now,
		    struct br_class_obs *co, struct br_dist_obs *d, bool *left);

/*
 * Applies action a of the plan on distributed class cls: every member's PVC
 * or pod. co is the class's observation (to find the attempt of a pod to
 * delete). Returns 0, 1 (something was created) or -errno with why.
 */
int br_dist_apply_action(const struct br_ops *ops, const struct br_ref *run,
			 const struct br_spec *s, const struct br_action *a,
			 const struct br_class_obs *co, const struct br_dist_obs *d, char *why,
			 size_t whylen);

/*
 * Creates the start ConfigMaps d asks for and deletes the live members of
 * failed attempts. Returns how many starts were created, or -errno.
 */
int br_dist_start(const struct br_ops *ops, const struct br_ref *run, const char *cls,
		  const struct br_dist_obs *d);

/*
 * The results of distributed classes for the report: for each complete
 * iteration the members' results merged (lib/stats/merge.h) and added to agg;
 * per-pod rows, nodes, stragglers and start skew into *extra (a new
 * object, {"pods": [...], "nodes": [...], "skew": [...]}) . Malformed
 * results are reported in warn (called per problem). Returns 0 or -ENOMEM.
 */
struct sb_agg;
int br_dist_report(struct sb_agg *agg, const struct br_ref *run, const struct br_spec *s,
		   const json_t *cmlist, json_t **extra, void (*warn)(void *ctx, const char *msg),
		   void *warn_ctx);

#endif
