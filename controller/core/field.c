/* SPDX-License-Identifier: MIT */
/* The readers of spec fields, one wording (controller/core/field.h). */
#include "controller/core/field.h"

#include "core/errfmt.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int br_field_string(const json_t *o, const char *key, const char *path, char *out, size_t len,
		    char *err, size_t errlen)
{
	const json_t *v = json_object_get(o, key);
	if (!v)
		return 0;
	if (!json_is_string(v))
		return sb_errf(err, errlen, -EINVAL, "%s.%s: must be a string", path, key);
	if (json_string_length(v) >= len)
		return sb_errf(err, errlen, -EINVAL, "%s.%s: must be at most %zu characters", path,
			       key, len - 1);
	snprintf(out, len, "%s", json_string_value(v));
	return 0;
}

int br_field_uint(const json_t *o, const char *key, const char *path, unsigned min, unsigned max,
		  unsigned *out, char *err, size_t errlen)
{
	const json_t *v = json_object_get(o, key);
	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < (json_int_t)min ||
	    json_integer_value(v) > (json_int_t)max)
		return sb_errf(err, errlen, -EINVAL, "%s.%s: must be an integer from %u to %u",
			       path, key, min, max);
	*out = (unsigned)json_integer_value(v);
	return 0;
}

int br_field_bool(const json_t *o, const char *key, const char *path, bool *out, char *err,
		  size_t errlen)
{
	const json_t *v = json_object_get(o, key);
	if (!v)
		return 0;
	if (!json_is_boolean(v))
		return sb_errf(err, errlen, -EINVAL, "%s.%s: must be true or false", path, key);
	*out = json_is_true(v);
	return 0;
}

int br_field_number(const json_t *o, const char *key, const char *path, double min, double max,
		    double *out, char *err, size_t errlen)
{
	const json_t *v = json_object_get(o, key);
	if (!v)
		return 0;
	double x = json_number_value(v);
	if (!json_is_number(v) || !isfinite(x) || x < min || x > max)
		return sb_errf(err, errlen, -EINVAL, "%s.%s: must be a number from %.15g to %.15g",
			       path, key, min, max);
	*out = x;
	return 0;
}

int br_field_object(const json_t *o, const char *key, const char *path, const json_t **out,
		    char *err, size_t errlen)
{
	const json_t *v = json_object_get(o, key);
	if (!v)
		return 0;
	if (!json_is_object(v))
		return sb_errf(err, errlen, -EINVAL, "%s.%s: must be an object", path, key);
	*out = v;
	return 0;
}

int br_field_known(const json_t *o, const char *path, const char *const *known, size_t n, char *err,
		   size_t errlen)
{
	const char *key;
	const json_t *v;
	json_object_foreach((json_t *)o, key, v)
	{
		size_t i = 0;
		while (i < n && strcmp(key, known[i]))
			i++;
		if (i < n)
			continue;
		char list[512] = "";
		size_t l = 0;
		for (i = 0; i < n && l < sizeof(list); i++)
			l += (size_t)snprintf(list + l, sizeof(list) - l, "%s%s", i ? ", " : "",
					      known[i]);
		return sb_errf(err, errlen, -EINVAL, "%s.%s: unknown field (%s)", path, key, list);
	}
	return 0;
}
