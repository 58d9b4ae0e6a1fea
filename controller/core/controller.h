/* SPDX-License-Identifier: MIT */
/*
 * The controller: informers on BenchmarkRuns, BenchmarkSchedules, the
 * objects it owns (PVCs, runner pods, ConfigMaps) and StorageClasses; a
 * work queue and workers per kind (enum br_kind); and the reconcilers the
 * workers call (registered by main.c). It watches, never polls: informer
 * events queue a key; deadlines (timeouts) queue it again at the right time.
 */
#ifndef SB_CONTROLLER_CORE_CONTROLLER_H
#define SB_CONTROLLER_CORE_CONTROLLER_H

#include "controller/serve/metrics.h"
#include "controller/core/ops.h"
#include "controller/run/policy.h"
#include "controller/core/queue.h"
#include "controller/core/resources.h"
#include "kube/kube.h"

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#define BR_MAX_NAMESPACES 16

struct br_controller_opts {
	const char *namespaces[BR_MAX_NAMESPACES]; /* watched; none: all namespaces */
	size_t nnamespaces;
	const char *runner_image; /* default runner image */
	const char *
		runner_service_account; /* default runner ServiceAccount; NULL: storagebench-runner */
	unsigned max_attempts;		/* runner pods per class; default 3 */
	unsigned workers;		/* reconcile threads; default 2 */
	/* what runs may ask of runner pods (borrowed); NULL: the default
	 * policy. Its runner_image and runner_sa are taken from the two above. */
	const struct br_policy *policy;
};

/* One watched namespace (or all) and its informers. */
struct br_watch {
	const char *ns; /* NULL: all */
	struct kube_informer *runs, *pvcs, *pods, *cms;
	struct kube_informer *schedules; /* BenchmarkSchedules (schedule/reconcile.c) */
};

/* Runner pods this process created that its pod informer has not shown yet. */
#define BR_INFLIGHT 64
struct br_inflight {
	char key[320]; /* "ns/name"; "" free */
	time_t since;
};

/*
 * The kinds the controller reconciles, each with its own work queue of
 * "<namespace>/<name>" keys and its own workers, as controller-runtime
 * gives each controller its own (a burst of runs never delays a schedule,
 * and each kind's backoff counts its own keys).
 */
enum br_kind { BR_KIND_RUN = 0, BR_KIND_SCHEDULE = 1, BR_KIND_N };

/* Workers of the schedules' queue (runs have opts.workers). */
#define BR_SCHEDULE_WORKERS 1
#define BR_MAX_WORKERS	    16

struct br_controller;

/*
 * The reconcilers the workers call, one per kind: main.c registers them
 * (br_controller_set_reconcilers), so that the controller's frame calls
 * the reconcilers without depending on them. Each reconciles ns/name once:
 * 0 or -errno (the queue retries the key with backoff), *requeue_ms when
 * to look again (0: on the next change). A NULL entry: keys of that kind
 * are dropped.
 */
struct br_reconcilers {
	int (*run)(struct br_controller *c, const char *ns, const char *name, long *requeue_ms);
	int (*schedule)(struct br_controller *c, const char *ns, const char *name,
			long *requeue_ms);
};

struct br_controller {
	struct kube_client *kc; /* borrowed; NULL with a fake ops table */
	struct br_ops ops;	/* every call of the reconcile goes through it (ops.h) */
	struct br_controller_opts opts;
	struct br_policy policy; /* a shallow copy of opts.policy: its strings are borrowed */
	struct br_watch watches[BR_MAX_NAMESPACES];
	size_t nwatches;
	struct kube_informer *scs;	    /* storage classes (cluster-scoped) */
	struct br_queue *queues[BR_KIND_N]; /* one per kind (enum br_kind) */
	struct br_metrics *metrics;	    /* borrowed */
	struct br_reconcilers reconcilers;  /* br_controller_set_reconcilers */
	struct br_worker {
		struct br_controller *c;
		enum br_kind kind;
		pthread_t thread;
	} workers[BR_MAX_WORKERS + BR_SCHEDULE_WORKERS];
	unsigned nworkers;
	bool running;
	unsigned event_seq;
	pthread_mutex_t mu;
	/* runs whose end this process announced (a ring of uid/phase) */
#define BR_ANNOUNCED 256
	char announced[BR_ANNOUNCED][128];
	size_t nannounced;
	struct br_inflight inflight[BR_INFLIGHT]; /* under mu */
	/* the status writes this process made (controller/core/status.c): a ring, under mu */
#define BR_WRITTEN 256
	struct br_written {
		char uid[64];	    /* the run's */
		char rv[32];	    /* the resourceVersion the write was conditioned on */
		char rv_after[32];  /* the server's answer ("" unknown; rv: no change) */
		unsigned long hash; /* of the status written */
		time_t at;
	} written[BR_WRITTEN];
	size_t nwritten;
};

/*
 * Creates the informers (not started) on kc; every reconcile call goes
 * through ops (copied: br_ops_kube's table over c, controller/core/kubeops.h).
 * Returns 0 or -errno with err filled. c must be zeroed before the call;
 * release with br_controller_release.
 */
int br_controller_init(struct br_controller *c, struct kube_client *kc, const struct br_ops *ops,
		       const struct br_controller_opts *opts, struct br_metrics *m,
		       struct kube_error *err);

/*
 * Sets c up to reconcile through ops (copied) without a client or
 * informers: the unit tests' fake (tests/unit/fakeops.h). c must be zeroed;
 * release with br_controller_release.
 */
int br_controller_init_ops(struct br_controller *c, const struct br_ops *ops,
			   const struct br_controller_opts *opts, struct br_metrics *m);

/*
 * Runner pods in flight: created by this process, not yet seen by its pod
 * informer. A pod the cache lacks is one not seen yet while in flight, and
 * gone (deleted, evicted) otherwise: the informer lists every pod before the
 * workers start, and sees every change after. An entry older than
 * BR_INFLIGHT_MAX_S is dropped (the informer missed it: take it as gone).
 */
#define BR_INFLIGHT_MAX_S 60
void br_inflight_add(struct br_controller *c, const char *ns, const char *name, time_t now);
void br_inflight_drop(struct br_controller *c, const char *ns, const char *name);
bool br_inflight_has(struct br_controller *c, const char *ns, const char *name, time_t now);

/* The reconcilers the workers call (copied); set before br_controller_start_workers. */
void br_controller_set_reconcilers(struct br_controller *c, const struct br_reconcilers *r);

/* Starts the informers and waits up to timeout_ms for their first lists. */
int br_controller_start_informers(struct br_controller *c, long timeout_ms);

/* True when every informer has synced. */
bool br_controller_ready(struct br_controller *c);

/* Starts the reconcile workers (when leading). Queues every known run. */
int br_controller_start_workers(struct br_controller *c);

/* Stops workers and informers. */
void br_controller_stop(struct br_controller *c);
void br_controller_release(struct br_controller *c);

/* Counts cached runs by status.phase, for metrics. */
size_t br_controller_phase_counts(struct br_controller *c, struct br_phase_count *out, size_t max);

#endif
