/* SPDX-License-Identifier: MIT */
/* Snapshot planning for spec.lifecycle (see snapshot.h): pure functions of what was listed. */
#include "controller/lifecycle/snapshot.h"
#include "core/jsonobj.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define SNAPSHOT_GROUP	  "snapshot.storage.k8s.io"
#define ANNOT_DEFAULT_VSC "snapshot.storage.kubernetes.io/is-default-class"

const struct kube_resource br_lc_res_snapshots = {SNAPSHOT_GROUP, "v1", "volumesnapshots", true};
const struct kube_resource br_lc_res_snapshot_classes = {SNAPSHOT_GROUP, "v1",
							 "volumesnapshotclasses", false};

/* Why listing resource (its plural) failed with rc, into why; false. */
static bool api_reason(int rc, const char *resource, const char *kind, char *why, size_t len)
{
	if (rc == -ENOENT)
		snprintf(why, len, "the cluster has no " SNAPSHOT_GROUP " API (no %s resource)",
			 kind);
	else if (rc == -EACCES)
		snprintf(why, len,
			 "the controller may not list %s (" SNAPSHOT_GROUP
			 "): its role lacks the rule the chart grants",
			 resource);
	else
		snprintf(why, len, "listing %s (" SNAPSHOT_GROUP ") failed: %s", resource,
			 strerror(-rc));
	return false;
}

static bool is_default(const json_t *vsc)
{
	const char *d = jstr(json_object_get(json_object_get(vsc, "metadata"), "annotations"),
			     ANNOT_DEFAULT_VSC);
	return d && !strcmp(d, "true");
}

/* The VolumeSnapshotClass of driver prov marked default, into vsc; false with why. */
static bool default_class(const json_t *classes, const char *cls, const char *prov, char *vsc,
			  size_t vsclen, char *why, size_t whylen)
{
	size_t i, n = 0, ndef = 0;
	const json_t *c, *pick = NULL;
	json_array_foreach(classes, i, c)
	{
		const char *driver = jstr(c, "driver");
		if (!driver || strcmp(driver, prov))
			continue;
		n++;
		if (is_default(c)) {
			ndef++;
			pick = c;
		}
	}
	if (!n)
		snprintf(why, whylen,
			 "no VolumeSnapshotClass for driver %s (class %s's provisioner)", prov,
			 cls);
	else if (ndef != 1)
		snprintf(why, whylen,
			 "%zu VolumeSnapshotClasses of driver %s, %zu of them marked default ("
			 "annotation " ANNOT_DEFAULT_VSC "): name one in "
			 "spec.lifecycle.volumeSnapshotClass",
			 n, prov, ndef);
	else
		snprintf(vsc, vsclen, "%s", jstr(json_object_get(pick, "metadata"), "name"));
	return n && ndef == 1;
}

/* The named class (spec.lifecycle.volumeSnapshotClass) when it fits prov; false with why. */
static bool named_class(const json_t *classes, const char *name, const char *cls, const char *prov,
			char *vsc, size_t vsclen, char *why, size_t whylen)
{
	size_t i;
	const json_t *c;
	json_array_foreach(classes, i, c)
	{
		const char *n = jstr(json_object_get(c, "metadata"), "name");
		if (!n || strcmp(n, name))
			continue;
		const char *driver = jstr(c, "driver");
		if (!driver || strcmp(driver, prov)) {
			snprintf(why, whylen,
				 "VolumeSnapshotClass %s (spec.lifecycle.volumeSnapshotClass) is "
				 "for "
				 "driver %s, not %s (class %s's provisioner)",
				 name, driver ? driver : "(none)", prov, cls);
			return false;
		}
		snprintf(vsc, vsclen, "%s", name);
		return true;
	}
	snprintf(why, whylen,
		 "VolumeSnapshotClass %s (spec.lifecycle.volumeSnapshotClass) does not exist",
		 name);
	return false;
}

bool br_lc_snapshot_plan(const struct br_lifecycle_spec *ls, const char *cls, const json_t *sc,
			 int classes_rc, const json_t *classes, int snaps_rc, char *vsc,
			 size_t vsclen, char *why, size_t whylen)
{
	vsc[0] = why[0] = '\0';
	if (!ls->snapshot) {
		snprintf(why, whylen, "spec.lifecycle.snapshot is false");
		return false;
	}
	if (classes_rc)
		return api_reason(classes_rc, br_lc_res_snapshot_classes.resource,
				  "VolumeSnapshotClass", why, whylen);
	if (snaps_rc)
		return api_reason(snaps_rc, br_lc_res_snapshots.resource, "VolumeSnapshot", why,
				  whylen);
	const char *prov = jstr(sc, "provisioner");
	if (!prov) {
		snprintf(why, whylen, "class %s has no provisioner", cls);
		return false;
	}
	if (ls->snapshot_class[0])
		return named_class(classes, ls->snapshot_class, cls, prov, vsc, vsclen, why,
				   whylen);
	return default_class(classes, cls, prov, vsc, vsclen, why, whylen);
}

json_t *br_lc_snapshot_manifest(json_t *md, const char *pvc, const char *vsc)
{
	if (!md)
		return NULL;
	return json_pack("{s:s,s:s,s:o,s:{s:s,s:{s:s}}}", "apiVersion", SNAPSHOT_GROUP "/v1",
			 "kind", "VolumeSnapshot", "metadata", md, "spec",
			 "volumeSnapshotClassName", vsc, "source", "persistentVolumeClaimName",
			 pvc);
}

unsigned long long br_lc_restore_bytes(unsigned long long restore_size, unsigned long long src_size)
{
	return restore_size > src_size ? restore_size : src_size;
}
