/* SPDX-License-Identifier: MIT */
/*
 * The snapshot part of spec.lifecycle (lifecycle.h), the pure part: which
 * VolumeSnapshotClass a class's snapshots use, or why they are skipped;
 * the VolumeSnapshot and the size of a claim restored from it.
 *
 * The class is spec.lifecycle.volumeSnapshotClass when set (its driver must
 * be the StorageClass's provisioner), else the one VolumeSnapshotClass of
 * that driver annotated snapshot.storage.kubernetes.io/is-default-class
 * "true", as the snapshot-controller picks a default.
 */
#ifndef SB_CONTROLLER_LIFECYCLE_SNAPSHOT_H
#define SB_CONTROLLER_LIFECYCLE_SNAPSHOT_H

#include "controller/lifecycle/spec.h"
#include "kube/resource.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* snapshot.storage.k8s.io/v1 volumesnapshots (namespaced) and volumesnapshotclasses. */
extern const struct kube_resource br_lc_res_snapshots;
extern const struct kube_resource br_lc_res_snapshot_classes;

/*
 * Whether snapshots of class cls (its StorageClass sc, borrowed; NULL when
 * unknown) are measured. classes_rc: how listing volumesnapshotclasses went
 * (0, -ENOENT: no such API, -EACCES: not allowed, or another -errno);
 * classes: the items listed (an array, borrowed; ignored unless
 * classes_rc is 0); snaps_rc: how listing volumesnapshots in the run's
 * namespace went (the same codes). Returns true with the class to use in
 * vsc, or false with the reason in why (a sentence without a final period).
 */
bool br_lc_snapshot_plan(const struct br_lifecycle_spec *ls, const char *cls, const json_t *sc,
			 int classes_rc, const json_t *classes, int snaps_rc, char *vsc,
			 size_t vsclen, char *why, size_t whylen);

/*
 * The VolumeSnapshot of claim pvc in class vsc; md (its metadata, with its
 * name) is stolen, also on failure. A new reference, or NULL on ENOMEM.
 */
json_t *br_lc_snapshot_manifest(json_t *md, const char *pvc, const char *vsc);

/*
 * The size a claim restored from a snapshot asks for: the snapshot's
 * restoreSize (restore_size; 0: not told), at least the source's size
 * (src_size), since a claim may not ask for less than the snapshot holds.
 */
unsigned long long br_lc_restore_bytes(unsigned long long restore_size,
				       unsigned long long src_size);

#endif
