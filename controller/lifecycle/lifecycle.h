/* SPDX-License-Identifier: MIT */
/*
 * Volume lifecycle timings per storage class (spec.lifecycle): how long a
 * class takes to provision a volume, attach and mount it, expand it and
 * delete it, measured from watch events (receipt times on the
 * controller's monotonic clock), never by polling:
 *
 *   provision  PVC created -> Bound (WaitForFirstConsumer: from the
 *              scheduler's pick, the claim's selected-node annotation)
 *   attach     consumer pod bound to its node -> its container running
 *              (the volume attached and mounted)
 *   resize     requested size doubled -> new capacity in the claim's status
 *              (only when the class has allowVolumeExpansion; else skipped
 *              with the reason)
 *   delete     PVC deleted (its pod gone) -> PV gone (reclaim Delete only;
 *              without the right to read PVs, which the chart does not
 *              grant, -> the claim gone, and the result says so)
 *   snapshot   VolumeSnapshot of the claim created -> readyToUse (after the
 *              resize; only with snapshot.storage.k8s.io and a
 *              VolumeSnapshotClass for the class's provisioner, see
 *              snapshot.h; else skipped with the reason, and so are the
 *              three phases below)
 *   restore    a claim whose dataSource is that snapshot: timed as provision
 *              (created, or the scheduler's pick, -> Bound), its consumer pod
 *              then running
 *   snapshot_delete  VolumeSnapshot deleted -> gone (its finalizer released)
 *   restore_delete   the restored claim deleted -> its PV gone, as delete
 *
 * Each iteration of each class is one measurement (br_lifecycle_measure):
 * spec.lifecycle.volumes volumes one after the other, then, with
 * concurrent K, K at once. Its result is the ConfigMap
 * <run>-<class>-lc-<iteration> (key lifecycle.json), so a restarted
 * controller measures only what is missing; the report aggregates the
 * samples (mean, stddev, p50/p95/p99, min, max) into its "lifecycle"
 * section and the status summary (workload "lifecycle").
 */
#ifndef SB_CONTROLLER_LIFECYCLE_LIFECYCLE_H
#define SB_CONTROLLER_LIFECYCLE_LIFECYCLE_H

#include "controller/lifecycle/spec.h"
#include "controller/run/manifests.h"
#include "kube/kube.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define BR_LC_COMPONENT "lifecycle"
#define BR_LC_KEY	"lifecycle.json"

/* The phases measured, in report order. */
enum br_lc_phase {
	BR_LC_PROVISION,
	BR_LC_ATTACH,
	BR_LC_RESIZE,
	BR_LC_DELETE,
	BR_LC_SNAPSHOT,
	BR_LC_RESTORE,
	BR_LC_SNAPSHOT_DELETE,
	BR_LC_RESTORE_DELETE,
	BR_LC_NPHASES
};

/* "provision", "attach", "resize", "delete", "snapshot", "restore", "snapshot_delete",
 * "restore_delete". */
const char *br_lc_phase_name(enum br_lc_phase p);

/* ------------------------------------------------ event bookkeeping (pure) */

/*
 * One claim's moments (seconds on the caller's clock; 0: not yet). A
 * restored claim (source set) is measured as any other: its provision
 * and delete are the phases restore and restore_delete.
 */
struct br_lc_volume {
	char pvc[64], pod[64], pv[256];
	char source[64]; /* the VolumeSnapshot it is restored from ("": a new volume) */
	unsigned long long request_bytes; /* the size it asks for (0: spec.lifecycle.size) */
	bool wffc;			  /* the class waits for the first consumer */
	double created;			  /* PVC create call returned */
	double seen;			  /* the first event of the claim: its watch is live */
	double selected, bound, on_node, running;
	double pod_created; /* its consumer pod's create call returned */
	double resize_asked, resized;
	unsigned long long resize_bytes; /* the capacity asked for */
	double deleted, pod_gone, pv_gone, pvc_gone;
	bool no_pv;	  /* PVs cannot be read (RBAC): delete ends when the claim is gone */
	char failed[256]; /* why the consumer pod cannot run ("" when fine) */
	/* its VolumeSnapshot (named snap; "" none) */
	char snap[64];
	double snap_created, snap_ready, snap_deleted, snap_gone;
	unsigned long long snap_bytes; /* its status.restoreSize (0: not told) */
	char snap_error[256];	       /* its status.error.message, the latest */
};

enum br_lc_kind { BR_LC_PVC, BR_LC_POD, BR_LC_PV, BR_LC_VS };

/*
 * Records what a watch event of kind says about the volumes v[0..n) at
 * time now (type: KUBE_EVENT_*; obj borrowed). Returns true when a moment
 * was recorded.
 */
bool br_lc_observe(struct br_lc_volume *v, size_t n, enum br_lc_kind kind, int type,
		   const json_t *obj, double now);

/*
 * The phase's duration in seconds for a volume, or -1 when not measured
 * (restore and restore_delete only for a restored claim, which has no
 * other phase).
 */
double br_lc_duration(const struct br_lc_volume *v, enum br_lc_phase p);

/* --------------------------------------------------------- measurement */

/*
 * Measures iteration `iteration` of class cls (sc: its StorageClass,
 * borrowed; NULL if unknown): creates the volumes and their consumer pods
 * (pod_template: the run's runner pod manifest, borrowed, whose security
 * settings, image and scheduling the consumer keeps), watches them, resizes
 * and deletes them. Blocks until done (each step bounded by
 * ls->timeout_s). *result: the lifecycle.json document (new reference), also
 * on a failed step (then with "error"). Returns 0, or -errno when nothing
 * could be measured (err says why).
 */
int br_lifecycle_measure(struct kube_client *kc, const struct br_ref *ref,
			 const struct br_lifecycle_spec *ls, const char *cls, const json_t *sc,
			 const json_t *pod_template, unsigned iteration, json_t **result, char *err,
			 size_t errlen);

/* The result ConfigMap <run>-<class>-lc-<iteration> holding doc (borrowed); NULL on ENOMEM. */
json_t *br_lifecycle_cm_manifest(const struct br_ref *ref, const char *cls, unsigned iteration,
				 const json_t *doc);
/* Its name into out. 0 or -ENAMETOOLONG. */
int br_lifecycle_cm_name(char *out, size_t len, const char *run, const char *cls,
			 unsigned iteration);

/* ------------------------------------------------------------- report */

/*
 * The report's "lifecycle" section from the lifecycle.json documents
 * docs[0..n) (borrowed), a new reference:
 *   [{"target", "phase", "unit": "ns", "mean", "stddev", "min", "max",
 *     "p50", "p95", "p99", "n", "samples": [...]}
 *    | {"target", "phase", "skipped": reason}
 *    | {"target", "phase": "error", "message"}, ...]
 * NULL on ENOMEM.
 */
json_t *br_lifecycle_report(const json_t *const *docs, size_t n);

/* Percentile p (0..100) of v[0..n) by nearest rank on a sorted copy; 0 for n == 0. */
double br_lc_percentile(const double *v, size_t n, double p);

/* ------------------------------------------------------- reconcile hook */

struct br_ops;
struct br_spec;

/*
 * The lifecycle step of a reconcile pass, before the I/O workloads, through
 * ops (controller/core/ops.h; the measurement is ops->lifecycle_measure): when a
 * class x iteration of spec.lifecycle has no result ConfigMap yet, measures
 * it (blocking this worker for the measurement), records the result and
 * returns 1 (the caller requeues the run at once and ends the pass); 0 when
 * every result exists or the run asks for none. event receives a line for
 * an Event on the run (may stay ""). Returns -errno when the result could
 * not be recorded (err says why; retried with backoff).
 */
int br_lifecycle_step(const struct br_ops *ops, const struct br_ref *ref, const struct br_spec *s,
		      const json_t *run, char *event, size_t eventlen, char *err, size_t errlen);

/*
 * The lifecycle.json documents of the run's result ConfigMaps in cms (a
 * list, borrowed), parsed: a new JSON array (NULL on ENOMEM).
 */
json_t *br_lifecycle_docs(const struct br_ref *ref, const json_t *cms);

/*
 * Adds report["lifecycle"] (br_lifecycle_report of docs) when docs is not
 * empty. 0 or -ENOMEM.
 */
int br_lifecycle_annotate(json_t *report, const json_t *docs);
#endif
