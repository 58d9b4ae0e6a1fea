/* SPDX-License-Identifier: MIT */
/*
 * The reconcile's view of the cluster: a small table of operations, so
 * that the run's reconcile (controller/run/) runs against the API server and the
 * informers (br_ops_kube, controller/core/kubeops.h) in the controller, and against objects held in
 * memory in the unit tests (tests/unit/fakeops.h), as fio's engines are a
 * table of functions.
 *
 * Two kinds of reads: cache_get/cache_list read the informer caches (what
 * the reconcile observes: never a request), get/list ask the API server
 * (after AlreadyExists, and the best-effort events lookup). Every write is
 * a request. The users: controller/run/ (a run's pass), distrib.c (spec.runner.pods
 * > 1), lifecycle.c (spec.lifecycle), sweep/reconcile.c (spec.sweep) and
 * schedule/reconcile.c (BenchmarkSchedules). Each function returns 0 or -errno (kube.h's mapping: -EEXIST
 * AlreadyExists, -ENOENT NotFound, -EAGAIN with err->http_code 409 for a
 * conflict...) with err filled on failure.
 */
#ifndef SB_CONTROLLER_CORE_OPS_H
#define SB_CONTROLLER_CORE_OPS_H

#include "kube/kube.h"

#include <jansson.h>
#include <time.h>

struct br_lifecycle_spec;
struct br_ref;

/* What an informer caches. */
enum br_cache_kind {
	BR_CACHE_RUNS = 0, /* BenchmarkRuns: spec and status kept */
	BR_CACHE_PVCS,	   /* owned PVCs */
	BR_CACHE_PODS,	   /* owned runner pods */
	BR_CACHE_CMS,	   /* owned ConfigMaps (results, reports) */
	BR_CACHE_SCS,	   /* StorageClasses */
	/* BenchmarkSchedules (schedule/reconcile.c) */
	BR_CACHE_SCHEDULES,
};

struct br_ops {
	void *arg; /* passed to each function */
	/* POST obj (borrowed) into ns */
	int (*create)(void *arg, const struct kube_resource *r, const char *ns, const json_t *obj,
		      struct kube_error *err);
	/* GET ns/name into *out (a new reference) */
	int (*get)(void *arg, const struct kube_resource *r, const char *ns, const char *name,
		   json_t **out, struct kube_error *err);
	/* DELETE ns/name, background propagation */
	int (*del)(void *arg, const struct kube_resource *r, const char *ns, const char *name,
		   struct kube_error *err);
	/* merge-patch the status subresource of ns/name with patch (borrowed); the
	 * object's resourceVersion after it into rv (rvlen bytes; rv may be NULL;
	 * "" when the answer had none): the same as before when nothing changed */
	int (*patch_status)(void *arg, const struct kube_resource *r, const char *ns,
			    const char *name, const json_t *patch, char *rv, size_t rvlen,
			    struct kube_error *err);
	/* LIST ns with a field selector (may be NULL) into *out (the list object) */
	int (*list)(void *arg, const struct kube_resource *r, const char *ns,
		    const char *field_selector, json_t **out, struct kube_error *err);
	/* the cached object (a new reference) or NULL; ns NULL for cluster-scoped */
	json_t *(*cache_get)(void *arg, enum br_cache_kind k, const char *ns, const char *name);
	/* a new array of the cached objects of kind k watched for ns, only those
	 * labelled SB_LABEL_RUN=run_label unless run_label is NULL (pods, PVCs and
	 * ConfigMaps: read from the caches' index by that label, so a pass reads
	 * its own run's objects, not the namespace's); NULL on ENOMEM */
	json_t *(*cache_list)(void *arg, enum br_cache_kind k, const char *ns,
			      const char *run_label);
	/* wall-clock seconds */
	time_t (*now)(void *arg);
	/*
	 * One lifecycle measurement (controller/lifecycle/lifecycle.h, br_lifecycle_measure's
	 * contract): it times volumes through watches from a resourceVersion,
	 * stamping each event as it arrives, which no request/response table can
	 * carry; so the whole measurement is one operation, and the fake answers it
	 * with a document of its own. *result a new reference; 0 or -errno.
	 */
	int (*lifecycle_measure)(void *arg, const struct br_ref *ref,
				 const struct br_lifecycle_spec *ls, const char *cls,
				 const json_t *sc, const json_t *pod_template, unsigned iteration,
				 json_t **result, char *err, size_t errlen);
	/* LIST ns with a label selector into *out (the list object): the report's
	 * result data, fetched on demand (controller/core/resultcache.h) */
	int (*list_labeled)(void *arg, const struct kube_resource *r, const char *ns,
			    const char *label_selector, json_t **out, struct kube_error *err);
};

#endif
