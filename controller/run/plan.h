/* SPDX-License-Identifier: MIT */
/*
 * The controller's decisions, as a pure function: from what was observed
 * of one BenchmarkRun (its spec, the previous status, the PVCs, runner
 * pods and result ConfigMaps of each class, the clock) to the state of
 * each class and of the run, and the actions that move the world towards
 * it. No I/O here: reconcile.c observes and applies; this file decides.
 *
 * Level-triggered: the same observation always gives the same plan, so a
 * restarted controller continues where the cluster says the run is.
 */
#ifndef SB_CONTROLLER_RUN_PLAN_H
#define SB_CONTROLLER_RUN_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define BR_MAX_CLASSES 32
#define BR_MAX_PODS    16
/* a deleted runner pod still there this long after its deletionTimestamp
 * (the end of its grace period): its node is lost, the class fails */
#define BR_POD_GONE_SLACK_S 30

enum br_class_phase {
	BR_CLASS_PENDING = 0, /* not started */
	BR_CLASS_BINDING,     /* volume requested, not bound yet */
	BR_CLASS_RUNNING,     /* a runner pod exists */
	BR_CLASS_SUCCEEDED,   /* every iteration has a result */
	BR_CLASS_FAILED,
};

enum br_pod_phase { BR_POD_PENDING = 0, BR_POD_RUNNING, BR_POD_SUCCEEDED, BR_POD_FAILED };

struct br_pod_obs {
	char name[64];
	unsigned attempt;
	enum br_pod_phase phase;
	bool deleting;	   /* metadata.deletionTimestamp is set */
	int exit_code;	   /* runner container's, when terminated */
	char message[512]; /* termination message or reason */
	time_t created;
	bool oom_killed;  /* the runner container ended OOMKilled: not retried */
	char node[64];	  /* spec.nodeName, "" before it is scheduled */
	time_t delete_by; /* metadata.deletionTimestamp: gone by then (0: not deleted) */
};

struct br_class_obs {
	const char *name; /* storage class (borrowed) */
	bool sc_exists;	  /* the StorageClass object exists */
	bool pvc_exists;
	bool pvc_bound;
	bool pvc_lost;
	bool no_volume; /* an object store (controller/run/objstore.h): no PVC */
	bool pvc_deleting;
	time_t pvc_created;
	struct br_pod_obs pods[BR_MAX_PODS];
	size_t npods;
	unsigned done;	    /* iterations with a result */
	time_t last_result; /* creation of the newest result, 0 if none */
	/* from the previous status (the controller's memory of terminal decisions) */
	enum br_class_phase prev_phase;
	char prev_reason[64];
	char prev_message[512];
	unsigned prev_attempts;
	/* the pod of attempt prev_attempts is not in the cache and the API says it is gone */
	bool last_pod_gone;
	/* distributed runs (controller/distrib/distrib.c): a start barrier missed its time, and
	 * when the pending one times out (0: none) */
	char barrier_failure[512];
	time_t barrier_deadline;
};

struct br_obs {
	time_t now;
	time_t start; /* status.startTime, or now when the run is new */
	unsigned iterations;
	unsigned parallelism;
	unsigned max_attempts;
	long pvc_bind_s, iteration_s, run_s;
	long start_s; /* a runner pod still Pending this long after its creation fails the
		       * class with the pod's own reason (0: no limit) */
	int cleanup;  /* enum br_cleanup */
	struct br_class_obs classes[BR_MAX_CLASSES];
	size_t nclasses;
	bool report_exists;
	bool cleaned_up; /* no PVC or runner pod of the run is left */
	/* the stored status already says Succeeded or Failed: cleanup waits for
	 * it, so that deleting pods never races the record of why the run ended */
	bool terminal_recorded;
};

enum br_action_kind {
	BR_ACT_CREATE_PVC,
	BR_ACT_CREATE_POD,
	BR_ACT_DELETE_POD,
	BR_ACT_DELETE_PVC,
	BR_ACT_WRITE_REPORT,
};

struct br_action {
	enum br_action_kind kind;
	size_t cls;	  /* class index */
	unsigned attempt; /* CREATE_POD */
	char name[64];	  /* DELETE_POD */
};

/* An event for kubectl describe: type Normal or Warning, reason, message. */
struct br_event {
	bool warning;
	char reason[48];
	char message[512];
};

struct br_class_plan {
	enum br_class_phase phase;
	char reason[64];
	char message[512];
	unsigned attempts; /* highest attempt used */
	char pod[64];	   /* current pod, "" if none */
};

enum br_run_phase { BR_RUN_PENDING = 0, BR_RUN_RUNNING, BR_RUN_SUCCEEDED, BR_RUN_FAILED };

#define BR_MAX_ACTIONS (BR_MAX_CLASSES * 4 + 8)
#define BR_MAX_EVENTS  (BR_MAX_CLASSES * 2 + 4)

struct br_plan {
	struct br_class_plan classes[BR_MAX_CLASSES];
	enum br_run_phase phase;
	char reason[64];   /* of the Succeeded condition */
	char message[512]; /* human summary */
	unsigned done, total;
	struct br_action actions[BR_MAX_ACTIONS];
	size_t nactions;
	struct br_event events[BR_MAX_EVENTS];
	size_t nevents;
	long requeue_s; /* look again after this many seconds (a deadline); 0: no need */
};

/* Computes the plan. Pure: depends only on obs. */
void br_plan_compute(const struct br_obs *obs, struct br_plan *plan);

const char *br_class_phase_name(enum br_class_phase p);
const char *br_run_phase_name(enum br_run_phase p);
/* Parses a class phase name; BR_CLASS_PENDING for anything unknown. */
enum br_class_phase br_class_phase_parse(const char *s);

#endif
