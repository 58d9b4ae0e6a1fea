/* SPDX-License-Identifier: MIT */
#include "core/jsonobj.h"

#include <stdlib.h>

static int by_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char **sb_json_sorted_keys(const json_t *o, size_t *n)
{
	size_t i = 0;
	const char *k;
	const json_t *v;
	*n = json_object_size(o);
	const char **keys = calloc(*n ? *n : 1, sizeof(*keys));
	if (!keys)
		return NULL;
	json_object_foreach((json_t *)o, k, v)
	{
		if (i < *n)
			keys[i++] = k;
	}
	if (*n)
		qsort(keys, *n, sizeof(*keys), by_str);
	return keys;
}
