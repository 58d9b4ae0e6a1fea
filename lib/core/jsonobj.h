/*
 * Reading fields of Kubernetes objects held as jansson trees: one
 * definition for the controller's and lib's readers. Every result is
 * borrowed from obj (valid while obj is) or NULL when the field is absent
 * or not a string.
 */
#ifndef SB_LIB_CORE_JSONOBJ_H
#define SB_LIB_CORE_JSONOBJ_H

#include <jansson.h>
#include <stdbool.h>
#include <string.h>

/*
 * The keys of object o in byte order (strcmp), borrowed from o, in a new
 * array (free it; the keys stay o's) with *n set to their number; NULL on
 * ENOMEM.
 */
const char **sb_json_sorted_keys(const json_t *o, size_t *n);

/* o[k] when it is a string. */
static inline const char *jstr(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* o[k] when it is a number; otherwise 0 and *ok set to false (left alone when it is). */
static inline double jnum(const json_t *o, const char *k, bool *ok)
{
	const json_t *v = json_object_get(o, k);
	if (!json_is_number(v)) {
		*ok = false;
		return 0;
	}
	return json_number_value(v);
}

/* obj.metadata.labels[k] */
static inline const char *label(const json_t *obj, const char *k)
{
	return jstr(json_object_get(json_object_get(obj, "metadata"), "labels"), k);
}

/* obj.metadata[k] */
static inline const char *meta(const json_t *obj, const char *k)
{
	return jstr(json_object_get(obj, "metadata"), k);
}

/* True when one of obj's ownerReferences has uid (false for a NULL uid). */
static inline bool owned_by(const json_t *obj, const char *uid)
{
	size_t i;
	const json_t *r;
	json_array_foreach(json_object_get(json_object_get(obj, "metadata"), "ownerReferences"), i,
			   r)
	{
		const char *u = jstr(r, "uid");
		if (u && uid && !strcmp(u, uid))
			return true;
	}
	return false;
}

#endif
