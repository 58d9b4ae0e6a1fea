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

int br_lifecycle_spec_parse(const json_t *lc, unsigned default_iterations, const char *default_size,
			    const char *access_mode, long timeout_s, struct br_lifecycle_spec *out,
			    char *err, size_t errlen)
{
	static const char *const known[] = {"iterations", "volumes", "concurrent", "size",
					    "resize"};
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
	return br_field_bool(lc, "resize", path, &out->resize, err, errlen);
}
