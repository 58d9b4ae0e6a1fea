/* SPDX-License-Identifier: MIT */
/*
 * Proof of authorship: what makes an object in the cluster the
 * controller's. An ownerReference proves nothing (anyone who can read a run
 * can copy its UID, anyone who can create ConfigMaps can set one), so every
 * object the controller creates for a run carries the annotation
 * SB_ANNOT_PROOF: 64 hex digits of HMAC-SHA256 under the authorship key
 * over
 *
 *   "storagebench object v1", the namespace, the resource (plural:
 *   "configmaps", "pods", ...), the name, the UID of its BenchmarkRun (or,
 *   for a schedule's run, BenchmarkSchedule) ownerReference ("" without
 *   one), and SHA-256 over its data (a
 *   ConfigMap's data keys in byte order, each key and value with its
 *   length; nothing for other kinds),
 *
 * each part with its length, so no two subjects share an input. The
 * authorship key is HMAC-SHA256(master key, "storagebench authorship v1"):
 * derived, never written anywhere, unlike the runs' keys
 * (controller/run/runkey.h), which runner pods hold. The controller
 * believes an object of a run's name only when the proof verifies; an
 * object without it is foreign whatever its labels and owner say
 * (docs/security.md, "Proof of authorship").
 *
 * What the proof binds: for a ConfigMap every data value (a changed
 * report, a planted job file fail); for pods, PVCs and the BenchmarkRuns
 * a schedule or a sweep makes, the name and the owner (their specs are the
 * API server's to default; a pod's cannot change, and a run author could
 * create such a run anyway: the proof keeps a planted one out of a
 * schedule's history and a sweep's steps).
 */
#ifndef SB_CONTROLLER_CORE_PROOF_H
#define SB_CONTROLLER_CORE_PROOF_H

#include "controller/core/ops.h"
#include "kube/kube.h"

#include <jansson.h>
#include <stddef.h>

#define BR_PROOF_KEY_BYTES 32

/* Derives the authorship key from the master key (32 bytes). 0 or -EIO. */
int br_proof_set_master(const unsigned char *master);
/* Forgets it: nothing is signed or believed until br_proof_set_master (unit tests). */
void br_proof_clear(void);

/*
 * Adds the proof of obj (borrowed, changed: metadata.annotations gets
 * SB_ANNOT_PROOF) as an object of resource r in namespace ns. 0, -EAGAIN
 * (no key yet), -EINVAL (no metadata.name, a data value not a string),
 * -ENOMEM, -EIO.
 */
int br_proof_sign(json_t *obj, const struct kube_resource *r, const char *ns);

/*
 * Checks obj's proof as an object of r in its metadata.namespace. 0 when it
 * verifies; -ENOENT (no proof), -EBADMSG (a proof, not of this object:
 * forged, changed or copied), -EAGAIN (no key), -EINVAL, -ENOMEM, -EIO;
 * why (may be NULL) says which, naming the annotation.
 */
int br_proof_check(const json_t *obj, const struct kube_resource *r, char *why, size_t whylen);

/*
 * Signs obj (borrowed; NULL is -ENOMEM) as br_proof_sign does and creates
 * it in ns through ops: a create whose AlreadyExists the caller handles
 * itself. 0, the signing's -errno, or the create's (the API's answer in
 * *err).
 */
int br_proof_create(const struct br_ops *ops, const struct kube_resource *r, const char *ns,
		    json_t *obj, struct kube_error *err);

/*
 * Creates obj (consumed, signed here) in ns for the run (name, uid). An
 * object of that name that exists is the run's only when its ownerReference
 * carries uid and its proof verifies (lib/result/owner.h, above). Returns
 * 1 (created), 0 (exists and is the run's), -EINPROGRESS (being deleted, or
 * left by an earlier run of the name: *stale says which, and the caller may
 * delete the stale one), -EEXIST (foreign: why names it and what it lacks),
 * -errno (the API's answer in *err). what names the object in why ("report
 * configmap").
 */
int br_create_owned(const struct br_ops *ops, const struct kube_resource *r, const char *ns,
		    const char *run, const char *uid, json_t *obj, const char *what, bool *stale,
		    struct kube_error *err, char *why, size_t whylen);

#endif
