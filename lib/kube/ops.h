/* SPDX-License-Identifier: MIT */
/*
 * The operations on objects of any resource type: get, list (all pages),
 * create, update, patch, delete, their status subresource, raw and
 * streamed answers (lib/kube, conventions in kube/kube.h).
 */
#ifndef SB_LIB_KUBE_OPS_H
#define SB_LIB_KUBE_OPS_H

#include "kube/client.h"
#include "kube/error.h"
#include "kube/resource.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * In every operation below, ns is the namespace for namespaced resources
 * (NULL: the client's context namespace) and is ignored for cluster-scoped
 * ones; name is the object's name.
 */

/* GET one object into *out (new reference). */
int kube_get(struct kube_client *c, const struct kube_resource *r, const char *ns, const char *name,
	     json_t **out, struct kube_error *err);
/* GET the status subresource. */
int kube_get_status(struct kube_client *c, const struct kube_resource *r, const char *ns,
		    const char *name, json_t **out, struct kube_error *err);

struct kube_list_opts {
	const char *label_selector;   /* NULL: none */
	const char *field_selector;   /* NULL: none */
	long limit;		      /* page size; 0: one unpaged request */
	const char *resource_version; /* NULL: most recent */
};

/*
 * LIST objects (ns NULL for namespaced resources means all namespaces, not
 * the context namespace; pass kube_client_namespace(c) for that). All pages
 * (limit/continue) are fetched and their items concatenated: *out is the
 * List object of the first page with "items" holding every item and
 * metadata.resourceVersion the list's version (the one to watch from);
 * metadata.continue is removed. opts may be NULL.
 */
int kube_list(struct kube_client *c, const struct kube_resource *r, const char *ns,
	      const struct kube_list_opts *opts, json_t **out, struct kube_error *err);

/*
 * POST obj (borrowed). The namespace is ns, else obj's metadata.namespace,
 * else the context namespace. Retried on 5xx and transport errors only when
 * obj has metadata.name (a repeat then answers AlreadyExists: -EEXIST).
 */
int kube_create(struct kube_client *c, const struct kube_resource *r, const char *ns,
		const json_t *obj, json_t **out, struct kube_error *err);

/*
 * POST obj (borrowed) to a subresource of the object name, e.g.
 * serviceaccounts/<name>/token (a TokenRequest) or pods/<name>/eviction.
 * Not retried on 5xx or transport errors (a POST may have had effects).
 */
int kube_create_subresource(struct kube_client *c, const struct kube_resource *r, const char *ns,
			    const char *name, const char *subresource, const json_t *obj,
			    json_t **out, struct kube_error *err);

/*
 * PUT obj (borrowed) to its metadata.name. With metadata.resourceVersion set
 * the update is conditional: a stale version answers -EAGAIN (Conflict).
 */
int kube_update(struct kube_client *c, const struct kube_resource *r, const char *ns,
		const json_t *obj, json_t **out, struct kube_error *err);
/* PUT obj to the status subresource. */
int kube_update_status(struct kube_client *c, const struct kube_resource *r, const char *ns,
		       const json_t *obj, json_t **out, struct kube_error *err);

enum kube_patch_type {
	KUBE_PATCH_MERGE = 0, /* application/merge-patch+json (RFC 7386) */
	KUBE_PATCH_JSON,      /* application/json-patch+json (RFC 6902), not retried */
	KUBE_PATCH_STRATEGIC, /* application/strategic-merge-patch+json (built-in types) */
	KUBE_PATCH_APPLY,     /* server-side apply, application/apply-patch+yaml */
};

struct kube_patch_opts {
	enum kube_patch_type type;
	const char *field_manager; /* required for APPLY; optional otherwise */
	bool force;		   /* APPLY: take ownership of conflicting fields */
};

/*
 * GET an answer that is not JSON, such as pods/<name>/log: the object
 * name's subresource (may be NULL) with query parameters q[0..nq) (values
 * NULL are left out), retried like every idempotent request. On success
 * *body is the answer (NUL-terminated, *len bytes; caller frees), an empty
 * answer an empty string. An answer over max_bytes is -EFBIG (0: 256 MiB).
 */
int kube_get_raw(struct kube_client *c, const struct kube_resource *r, const char *ns,
		 const char *name, const char *subresource, const struct kube_query *q, size_t nq,
		 size_t max_bytes, char **body, size_t *len, struct kube_error *err);

/*
 * Like kube_get_raw, for an answer that lasts (pods/<name>/log with
 * follow=true): the 2xx answer is passed to sink(arg, data, len) as it
 * arrives, with no total timeout, and nothing is kept. Returns 0 when the
 * server ended the answer; the sink's nonzero return, which stops the
 * transfer; the errors of kube_get_raw before any data arrived (retried as
 * usual); -EIO when the connection broke after data reached the sink (not
 * retried: the data would be passed twice).
 */
int kube_stream_raw(struct kube_client *c, const struct kube_resource *r, const char *ns,
		    const char *name, const char *subresource, const struct kube_query *q,
		    size_t nq, int (*sink)(void *arg, const char *data, size_t len), void *arg,
		    struct kube_error *err);

/* PATCH name with patch (borrowed). opts NULL means a merge patch. */
int kube_patch(struct kube_client *c, const struct kube_resource *r, const char *ns,
	       const char *name, const json_t *patch, const struct kube_patch_opts *opts,
	       json_t **out, struct kube_error *err);
/* PATCH the status subresource. */
int kube_patch_status(struct kube_client *c, const struct kube_resource *r, const char *ns,
		      const char *name, const json_t *patch, const struct kube_patch_opts *opts,
		      json_t **out, struct kube_error *err);

struct kube_delete_opts {
	const char *propagation_policy; /* "Foreground", "Background", "Orphan" or NULL */
	const char *precondition_uid;	/* delete only this incarnation, or NULL */
	const char *precondition_resource_version; /* or NULL */
	long grace_period_seconds;		   /* <0: not set (use KUBE_DELETE_OPTS_INIT) */
};
#define KUBE_DELETE_OPTS_INIT        \
	{                            \
		NULL, NULL, NULL, -1 \
	}

/*
 * DELETE name. *out receives the answer (the object being deleted, or a
 * Status). A failed precondition is -EAGAIN (Conflict). opts may be NULL.
 * Retried like other idempotent requests: a retry of a delete that did
 * happen answers -ENOENT.
 */
int kube_delete(struct kube_client *c, const struct kube_resource *r, const char *ns,
		const char *name, const struct kube_delete_opts *opts, json_t **out,
		struct kube_error *err);

#endif
