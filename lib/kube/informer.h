/* SPDX-License-Identifier: MIT */
/*
 * Informers: an in-memory cache of a resource type's objects, kept
 * current by a list and a watch, with callbacks on every change
 * (lib/kube, conventions in kube/kube.h).
 */
#ifndef SB_LIB_KUBE_INFORMER_H
#define SB_LIB_KUBE_INFORMER_H

#include "kube/client.h"
#include "kube/error.h"
#include "kube/resource.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * An informer keeps an in-memory cache of the objects of one resource
 * (one namespace or all, optionally a label/field selector), filled by a
 * list and kept current by a watch from the list's resourceVersion; on 410
 * Gone it lists again and reconciles the cache (synthesising add, update and
 * delete events). It runs in a thread of its own.
 *
 * Cached objects are shared, read-only jansson values: never modify an
 * object you get from the informer (json_deep_copy it first).
 */
struct kube_informer;

enum kube_informer_event {
	KUBE_INFORMER_ADD = 0,
	KUBE_INFORMER_UPDATE,
	KUBE_INFORMER_DELETE,
};

/*
 * Called from the informer thread after the cache was changed, without any
 * informer lock held (the callback may call kube_informer_get/list). obj is
 * the new object (for DELETE: the last known state), old the previous one for
 * UPDATE (NULL otherwise); both borrowed.
 */
typedef void (*kube_informer_cb)(enum kube_informer_event ev, const json_t *obj, const json_t *old,
				 void *arg);

/*
 * A transform (as client-go's TransformFunc), called on the informer thread
 * for every object from a list or a watch event before it is cached or
 * handed to the callback (after strip_managed_fields and after the list's
 * kind/apiVersion were added). *obj is an owned reference the transform may
 * change in place, or replace (json_decref the old one, store a new
 * reference: a smaller copy of the fields you read). Returns 0 to cache it,
 * 1 to leave it out of the cache (as if the selector had not matched: no
 * ADD; a cached object with the same key is removed with a DELETE event),
 * or -errno: the informer then warns and caches the object as it came, so
 * nothing is lost. For a DELETED event the result only shapes the object the
 * callback sees.
 */
typedef int (*kube_informer_transform_fn)(json_t **obj, void *arg);

struct kube_informer_opts {
	const struct kube_resource *resource; /* required, borrowed for the
						 informer's lifetime */
	const char *ns;			      /* NULL: all namespaces */
	const char *label_selector;
	const char *field_selector;
	long page_size;		   /* list limit; 0: 500 */
	long idle_timeout_ms;	   /* watch idle restart; 0: 5 minutes */
	bool strip_managed_fields; /* drop metadata.managedFields before caching */
	/* keep each object as its compact JSON text (a parsed jansson tree is
	 * about 12 times larger): get and list then parse a fresh copy on each
	 * call (still a new reference, the caller's; never shared), callbacks
	 * still get a parsed object. For large caches read rarely. */
	bool compact;
	/* with compact: the text is stored deflated (zlib, raw, a 4 KiB
	 * window) against this preset dictionary (borrowed for the informer's
	 * lifetime: text like the objects, e.g. a typical one with its field
	 * names and common values); NULL: kept as plain text */
	const char *compact_dict;
	kube_informer_transform_fn transform; /* may be NULL */
	void *transform_arg;
	/* a label key (e.g. the owner's name label): the cache also keeps an
	 * index of the objects by this label's value (after the transform), so
	 * kube_informer_list_by reads only the objects with one value (with
	 * compact: parses only those); NULL: no index */
	const char *index_label;
	kube_informer_cb cb; /* may be NULL */
	void *arg;
};

/* Returns NULL with err filled on failure. opts is copied. */
struct kube_informer *kube_informer_new(struct kube_client *c,
					const struct kube_informer_opts *opts,
					struct kube_error *err);
/* Starts the informer thread. -EALREADY when started. */
int kube_informer_start(struct kube_informer *inf);
/* Stops the thread and waits for it; the cache stays readable. */
void kube_informer_stop(struct kube_informer *inf);
/* True once the first list has been put into the cache. */
bool kube_informer_has_synced(struct kube_informer *inf);
/* Waits for has_synced up to timeout_ms. 0 or -ETIMEDOUT. */
int kube_informer_wait_synced(struct kube_informer *inf, long timeout_ms);
/*
 * The cached object ns/name (ns "" or NULL for cluster-scoped), a new
 * reference the caller must json_decref(), or NULL when not cached.
 */
json_t *kube_informer_get(struct kube_informer *inf, const char *ns, const char *name);
/* A new array (caller decrefs) of references to every cached object. */
json_t *kube_informer_list(struct kube_informer *inf);
/* A new array (caller decrefs) of the cached objects whose index_label has
 * this value (an empty array when none); NULL with errno EINVAL when the
 * informer has no index_label or value is NULL, ENOMEM. */
json_t *kube_informer_list_by(struct kube_informer *inf, const char *value);
/*
 * Calls fn for each cached object (borrowed for the call), outside the
 * informer's lock; with compact, one object is parsed at a time (list would
 * parse them all at once). Stops at fn's first nonzero return and returns
 * it; 0, or -ENOMEM.
 */
int kube_informer_foreach(struct kube_informer *inf, int (*fn)(const json_t *obj, void *arg),
			  void *arg);
/* Number of cached objects. */
size_t kube_informer_count(struct kube_informer *inf);
/* With compact: the bytes of text (deflated with compact_dict) the cached
 * objects take, without the allocator's and the table's overhead; 0
 * otherwise. */
size_t kube_informer_bytes(struct kube_informer *inf);
/* How many times the informer listed (1 + relists), for tests. */
unsigned long kube_informer_lists(struct kube_informer *inf);
/* Objects the transform left out of the cache so far (returned 1). */
unsigned long kube_informer_dropped(struct kube_informer *inf);
/* The informer's resource (borrowed) and namespace (NULL: all), for metrics. */
const struct kube_resource *kube_informer_resource(const struct kube_informer *inf);
const char *kube_informer_ns(const struct kube_informer *inf);
/* Stops it if running, then frees it with its cache. */
void kube_informer_free(struct kube_informer *inf);

#endif
