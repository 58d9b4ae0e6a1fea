/* SPDX-License-Identifier: MIT */
/*
 * spec.lifecycle, parsed (controller/lifecycle/spec.h): apart from the
 * measurement (lifecycle.c), so that the run's spec parser (run/spec.c)
 * does not depend on the code that drives the API.
 */
#include "controller/lifecycle/spec.h"

#include "controller/core/field.h"
#include "core/errfmt.h"
#include "core/units.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A Kubernetes object name (DNS-1123 subdomain): [a-z0-9.-], alphanumeric at both ends. */
static bool object_name(const char *s)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	size_t n = strlen(s);
	return n > 0 && n <= 253 && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-.") == n &&
	       strchr(alnum, s[0]) && strchr(alnum, s[n - 1]);
}

/* spec.lifecycle.volumeSnapshotClass into out->snapshot_class (after .snapshot). */
static int parse_snapshot_class(const json_t *lc, struct br_lifecycle_spec *out, char *err,
				size_t errlen)
{
	const json_t *v = json_object_get(lc, "volumeSnapshotClass");
	if (!v)
		return 0;
	if (!json_is_string(v) || !object_name(json_string_value(v)))
		return sb_errf(err, errlen, -EINVAL,
			       "spec.lifecycle.volumeSnapshotClass: must be a VolumeSnapshotClass "
			       "name (lowercase letters, digits, '-' and '.', at most 253)");
	if (!out->snapshot)
		return sb_errf(
			err, errlen, -EINVAL,
			"spec.lifecycle.volumeSnapshotClass: set, but spec.lifecycle.snapshot "
			"is false");
	snprintf(out->snapshot_class, sizeof(out->snapshot_class), "%s", json_string_value(v));
	return 0;
}

int br_lifecycle_spec_parse(const json_t *lc, unsigned default_iterations, const char *default_size,
			    const char *access_mode, long timeout_s, struct br_lifecycle_spec *out,
			    char *err, size_t errlen)
{
	static const char *const known[] = {"iterations", "volumes",  "concurrent",	    "size",
					    "resize",	  "snapshot", "volumeSnapshotClass"};
	static const char *const path = "spec.lifecycle";
	int r;
	memset(out, 0, sizeof(*out));
	if (!lc || json_is_null(lc))
		return 0;
	if (!json_is_object(lc))
		return sb_errf(err, errlen, -EINVAL, "spec.lifecycle: must be an object");
	if ((r = br_field_known(lc, path, known, sizeof(known) / sizeof(known[0]), err, errlen)))
		return r;
	out->enabled = true;
	out->iterations = default_iterations ? default_iterations : 1;
	if (out->iterations > 100)
		out->iterations = 100;
	out->volumes = 3;
	out->resize = true;
	out->snapshot = true;
	out->timeout_s = timeout_s > 0 ? timeout_s : 300;
	snprintf(out->size, sizeof(out->size), "%s", default_size ? default_size : "1Gi");
	snprintf(out->access_mode, sizeof(out->access_mode), "%s",
		 access_mode && *access_mode ? access_mode : "ReadWriteOnce");
	if ((r = br_field_uint(lc, "iterations", path, 1, 100, &out->iterations, err, errlen)) ||
	    (r = br_field_uint(lc, "volumes", path, 0, BR_LC_MAX_VOLUMES, &out->volumes, err,
			       errlen)) ||
	    (r = br_field_uint(lc, "concurrent", path, 0, BR_LC_MAX_VOLUMES, &out->concurrent, err,
			       errlen)))
		return r;
	if (!out->volumes && !out->concurrent)
		return sb_errf(
			err, errlen, -EINVAL,
			"spec.lifecycle: volumes and concurrent are both 0: nothing to measure");
	const json_t *v = json_object_get(lc, "size");
	if (v) {
		uint64_t b;
		if (!json_is_string(v) || strlen(json_string_value(v)) >= sizeof(out->size) ||
		    sb_parse_quantity(json_string_value(v), &b) || b == 0)
			return sb_errf(err, errlen, -EINVAL,
				       "spec.lifecycle.size: must be a quantity such as 1Gi");
		snprintf(out->size, sizeof(out->size), "%s", json_string_value(v));
	}
	if ((r = br_field_bool(lc, "resize", path, &out->resize, err, errlen)) ||
	    (r = br_field_bool(lc, "snapshot", path, &out->snapshot, err, errlen)))
		return r;
	return parse_snapshot_class(lc, out, err, errlen);
}
