/* SPDX-License-Identifier: MIT */
/*
 * Watches: the events of a resource type as they happen, resumed after
 * a dropped connection without losing or repeating one (lib/kube,
 * conventions in kube/kube.h).
 */
#ifndef SB_LIB_KUBE_WATCH_H
#define SB_LIB_KUBE_WATCH_H

#include "kube/client.h"
#include "kube/error.h"
#include "kube/resource.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

enum kube_event_type {
	KUBE_EVENT_ADDED = 0,
	KUBE_EVENT_MODIFIED,
	KUBE_EVENT_DELETED,
	KUBE_EVENT_BOOKMARK,
	KUBE_EVENT_ERROR,
};

/* "ADDED", ... ; NULL for an unknown value. */
const char *kube_event_type_name(enum kube_event_type t);

/*
 * Called for each event with the event's object (borrowed: json_incref it to
 * keep it). Bookmarks are passed too (their object carries only
 * metadata.resourceVersion). Return 0 to go on, anything else to end the
 * watch: kube_watch_run() then returns that value.
 */
typedef int (*kube_watch_cb)(enum kube_event_type type, json_t *object, void *arg);

struct kube_watch_opts {
	const char *label_selector;
	const char *field_selector;
	const char *resource_version; /* start after this version; NULL: now, with
					 synthetic ADDED events for what exists */
	bool bookmarks;		      /* allowWatchBookmarks */
	long idle_timeout_ms;	      /* restart when no event (incl. bookmark) came for
					 this long; 0: never */
	long server_timeout_s;	      /* timeoutSeconds per connection; 0: server's */
	int max_failures;	      /* consecutive failed reconnects before giving up
					 with -EIO/-errno; 0: default 10 */
};

struct kube_watch;

/*
 * Prepares a watch of resource r in ns (NULL for namespaced resources: all
 * namespaces). opts may be NULL. cb is called from kube_watch_run()'s thread.
 * Returns NULL on -ENOMEM. Free with kube_watch_free().
 */
struct kube_watch *kube_watch_new(struct kube_client *c, const struct kube_resource *r,
				  const char *ns, const struct kube_watch_opts *opts,
				  kube_watch_cb cb, void *arg);

/*
 * Streams events until the watch is stopped (returns 0), the callback returns
 * non-zero (returns that), the server answers 410 Gone or sends an ERROR
 * event with code 410 (-ESTALE: list again and watch from the new list's
 * resourceVersion), or a non-retryable error (-errno, err filled). A dropped
 * connection, a server-side timeout and an idle watch are resumed from the
 * last resourceVersion seen (no event lost or repeated), with backoff between
 * failing attempts. May be called again after it returns.
 */
int kube_watch_run(struct kube_watch *w, struct kube_error *err);

/*
 * Asks a running kube_watch_run() to return 0 soon (it wakes the transfer
 * at once). Safe from any thread and from the callback. A stop requested
 * before kube_watch_run() starts makes it return at once; kube_watch_run()
 * clears the request when it returns.
 */
void kube_watch_stop(struct kube_watch *w);

/*
 * The last resourceVersion seen (from an event or a bookmark) copied into buf
 * (always NUL-terminated). Returns buf.
 */
const char *kube_watch_resource_version(struct kube_watch *w, char *buf, size_t size);

/* How many times the watch connected (1 + resumes), for tests. */
unsigned long kube_watch_connects(struct kube_watch *w);
/* The bytes the watch's receive buffers hold allocated now (for tests). */
size_t kube_watch_buffer_bytes(struct kube_watch *w);

/* Frees w; it must not be running. */
void kube_watch_free(struct kube_watch *w);

/* Parses one watch event line {"type":..., "object":{...}} into its type and
 * a new reference to its object. 0 or -EPROTO. */
int kube_watch_parse_event(const char *line, size_t len, enum kube_event_type *type,
			   json_t **object);

#endif
