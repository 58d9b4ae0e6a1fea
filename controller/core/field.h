/* SPDX-License-Identifier: MIT */
/*
 * Readers of the fields of a resource's spec, one for every kind (runs,
 * sweeps, schedules, spec.lifecycle), so that every refusal has one
 * wording: "<path>.<key>: must be <what>", e.g.
 * "spec.runner.pods: must be an integer from 1 to 64". path names the
 * object the field is in ("spec", "spec.runner", "spec.workloads[2]").
 *
 * Each reader looks at o[key] (o may be NULL or not an object: no field):
 * absent, it returns 0 and leaves *out as it is (the caller's default);
 * present and valid, it sets *out and returns 0; else it returns -EINVAL
 * with err (errlen bytes) naming the field.
 */
#ifndef SB_CONTROLLER_CORE_FIELD_H
#define SB_CONTROLLER_CORE_FIELD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* A string shorter than len ("must be a string", "must be at most N characters"), into out. */
int br_field_string(const json_t *o, const char *key, const char *path, char *out, size_t len,
		    char *err, size_t errlen);

/* An integer from min to max ("must be an integer from MIN to MAX"). */
int br_field_uint(const json_t *o, const char *key, const char *path, unsigned min, unsigned max,
		  unsigned *out, char *err, size_t errlen);

/* true or false ("must be true or false"). */
int br_field_bool(const json_t *o, const char *key, const char *path, bool *out, char *err,
		  size_t errlen);

/* A finite number from min to max ("must be a number from MIN to MAX"). */
int br_field_number(const json_t *o, const char *key, const char *path, double min, double max,
		    double *out, char *err, size_t errlen);

/* An object (*out borrowed from o; "must be an object"). */
int br_field_object(const json_t *o, const char *key, const char *path, const json_t **out,
		    char *err, size_t errlen);

/*
 * Every key of o is one of known[0..n): else -EINVAL with
 * "<path>.<key>: unknown field (<known, comma-separated>)".
 */
int br_field_known(const json_t *o, const char *path, const char *const *known, size_t n, char *err,
		   size_t errlen);

#endif
