/* SPDX-License-Identifier: MIT */
/* Generic operations on any group/version/resource: get, list (all pages),
 * create, update, patch, delete, and the status subresource. */
#include "kube/ops.h"
#include "kube/request.h"
#include "kube/url.h"
#include "kube/client_internal.h"
#include "kube/error_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *obj_str(const json_t *obj, const char *field)
{
	return json_string_value(json_object_get(json_object_get(obj, "metadata"), field));
}

/* Builds the URL or reports why not. */
static int url_for(struct kube_client *c, const struct kube_resource *r, const char *ns,
		   const char *name, const char *sub, const struct kube_query *q, size_t nq,
		   char **url, struct kube_error *err)
{
	int ret = kube_url_build(c->cfg.server, r, ns, name, sub, q, nq, url);
	if (ret)
		return kube_errorf(err, ret, "cannot build the URL of %s '%s': %s",
				   r && r->resource ? r->resource : "(none)", name ? name : "",
				   strerror(-ret));
	return 0;
}

static int do_get(struct kube_client *c, const struct kube_resource *r, const char *ns,
		  const char *name, const char *sub, json_t **out, struct kube_error *err)
{
	char *url = NULL;
	kube_error_clear(err);
	if (out)
		*out = NULL;
	if (!name || !*name)
		return kube_errorf(err, -EINVAL, "get %s: no name", r->resource);
	int ret = url_for(c, r, kube_client_ns(c, ns), name, sub, NULL, 0, &url, err);
	if (ret)
		return ret;
	struct kube_request req = {.method = "GET", .url = url, .idempotent = true};
	ret = kube_request_do(c, &req, out, err);
	free(url);
	return ret;
}

int kube_get(struct kube_client *c, const struct kube_resource *r, const char *ns, const char *name,
	     json_t **out, struct kube_error *err)
{
	return do_get(c, r, ns, name, NULL, out, err);
}

int kube_get_status(struct kube_client *c, const struct kube_resource *r, const char *ns,
		    const char *name, json_t **out, struct kube_error *err)
{
	return do_get(c, r, ns, name, "status", out, err);
}

int kube_list(struct kube_client *c, const struct kube_resource *r, const char *ns,
	      const struct kube_list_opts *opts, json_t **out, struct kube_error *err)
{
	static const struct kube_list_opts none = {0};
	json_t *result = NULL, *page = NULL;
	char *cont = NULL, limit[32];
	int ret = 0;

	kube_error_clear(err);
	if (out)
		*out = NULL;
	if (!opts)
		opts = &none;
	(void)snprintf(limit, sizeof(limit), "%ld", opts->limit);
	for (;;) {
		char *url = NULL;
		struct kube_query q[] = {
			{"labelSelector", opts->label_selector},
			{"fieldSelector", opts->field_selector},
			{"limit", opts->limit > 0 ? limit : NULL},
			{"continue", cont},
			/* resourceVersion goes with the first page only. */
			{"resourceVersion", cont ? NULL : opts->resource_version},
		};
		ret = url_for(c, r, r->namespaced ? ns : NULL, NULL, NULL, q,
			      sizeof(q) / sizeof(q[0]), &url, err);
		if (ret)
			goto out;
		struct kube_request req = {
			.method = "GET", .list = true, .url = url, .idempotent = true};
		ret = kube_request_do(c, &req, &page, err);
		free(url);
		if (ret)
			goto out;
		json_t *items = json_object_get(page, "items");
		if (!json_is_array(items) && !json_is_null(items) && items) {
			ret = kube_errorf(err, -EPROTO, "list %s: items is not an array",
					  r->resource);
			goto out;
		}
		if (!result) {
			result = page;
			page = NULL;
			if (!json_is_array(json_object_get(result, "items")) &&
			    json_object_set_new(result, "items", json_array())) {
				ret = -ENOMEM;
				goto out;
			}
		} else {
			if (items && json_array_extend(json_object_get(result, "items"), items)) {
				ret = -ENOMEM;
				goto out;
			}
		}
		json_t *meta = json_object_get(page ? page : result, "metadata");
		const char *next = json_string_value(json_object_get(meta, "continue"));
		free(cont);
		cont = next && *next ? strdup(next) : NULL;
		if (next && *next && !cont) {
			ret = -ENOMEM;
			goto out;
		}
		json_decref(page);
		page = NULL;
		if (!cont)
			break;
	}
	json_t *meta = json_object_get(result, "metadata");
	if (json_is_object(meta)) {
		json_object_del(meta, "continue");
		json_object_del(meta, "remainingItemCount");
	}
	if (out) {
		*out = result;
		result = NULL;
	}
out:
	free(cont);
	json_decref(page);
	json_decref(result);
	return ret;
}

/*
 * Sends body (serialised compactly) with method to url as content type
 * ctype: the request every write operation makes. Same return and *out as
 * kube_request_do.
 */
static int send_json(struct kube_client *c, const char *method, const char *url, const char *ctype,
		     const json_t *body, bool idempotent, json_t **out, struct kube_error *err)
{
	char *text = json_dumps(body, JSON_COMPACT | JSON_ENCODE_ANY);
	if (!text)
		return kube_errorf(err, -ENOMEM, "cannot serialise the object");
	struct kube_request req = {.method = method,
				   .url = url,
				   .content_type = ctype,
				   .body = text,
				   .body_len = strlen(text),
				   .idempotent = idempotent};
	int ret = kube_request_do(c, &req, out, err);
	free(text);
	return ret;
}

static int do_create(struct kube_client *c, const struct kube_resource *r, const char *ns,
		     const char *parent, const char *sub, const json_t *obj, json_t **out,
		     struct kube_error *err)
{
	char *url = NULL;
	int ret;

	kube_error_clear(err);
	if (out)
		*out = NULL;
	if (!json_is_object(obj))
		return kube_errorf(err, -EINVAL, "create %s: the object is not a JSON object",
				   r->resource);
	if (sub && (!parent || !*parent))
		return kube_errorf(err, -EINVAL, "create %s/%s: no name", r->resource, sub);
	if (!ns || !*ns)
		ns = obj_str(obj, "namespace");
	/* A fixed name makes a repeat answer AlreadyExists (not for subresources). */
	const char *name = sub ? NULL : obj_str(obj, "name");
	ret = url_for(c, r, kube_client_ns(c, ns), parent, sub, NULL, 0, &url, err);
	if (ret)
		goto out;
	ret = send_json(c, "POST", url, "application/json", obj, name && *name, out, err);
out:
	free(url);
	return ret;
}

int kube_create(struct kube_client *c, const struct kube_resource *r, const char *ns,
		const json_t *obj, json_t **out, struct kube_error *err)
{
	return do_create(c, r, ns, NULL, NULL, obj, out, err);
}

int kube_create_subresource(struct kube_client *c, const struct kube_resource *r, const char *ns,
			    const char *name, const char *subresource, const json_t *obj,
			    json_t **out, struct kube_error *err)
{
	if (!subresource || !*subresource)
		return kube_errorf(err, -EINVAL, "create %s: no subresource", r->resource);
	return do_create(c, r, ns, name, subresource, obj, out, err);
}

static int do_update(struct kube_client *c, const struct kube_resource *r, const char *ns,
		     const json_t *obj, const char *sub, json_t **out, struct kube_error *err)
{
	char *url = NULL;
	int ret;

	kube_error_clear(err);
	if (out)
		*out = NULL;
	const char *name = obj_str(obj, "name");
	if (!json_is_object(obj) || !name || !*name)
		return kube_errorf(err, -EINVAL, "update %s: the object has no metadata.name",
				   r->resource);
	if (!ns || !*ns)
		ns = obj_str(obj, "namespace");
	ret = url_for(c, r, kube_client_ns(c, ns), name, sub, NULL, 0, &url, err);
	if (ret)
		goto out;
	ret = send_json(c, "PUT", url, "application/json", obj, true, out, err);
out:
	free(url);
	return ret;
}

int kube_update(struct kube_client *c, const struct kube_resource *r, const char *ns,
		const json_t *obj, json_t **out, struct kube_error *err)
{
	return do_update(c, r, ns, obj, NULL, out, err);
}

int kube_update_status(struct kube_client *c, const struct kube_resource *r, const char *ns,
		       const json_t *obj, json_t **out, struct kube_error *err)
{
	return do_update(c, r, ns, obj, "status", out, err);
}

static int do_patch(struct kube_client *c, const struct kube_resource *r, const char *ns,
		    const char *name, const char *sub, const json_t *patch,
		    const struct kube_patch_opts *opts, json_t **out, struct kube_error *err)
{
	static const struct kube_patch_opts merge = {KUBE_PATCH_MERGE, NULL, false};
	char *url = NULL;
	const char *ctype;
	bool idempotent = true;
	int ret;

	kube_error_clear(err);
	if (out)
		*out = NULL;
	if (!opts)
		opts = &merge;
	if (!name || !*name)
		return kube_errorf(err, -EINVAL, "patch %s: no name", r->resource);
	switch (opts->type) {
	case KUBE_PATCH_MERGE:
		ctype = "application/merge-patch+json";
		break;
	case KUBE_PATCH_JSON:
		ctype = "application/json-patch+json";
		idempotent = false; /* "add" to a list twice is not the same */
		break;
	case KUBE_PATCH_STRATEGIC:
		ctype = "application/strategic-merge-patch+json";
		break;
	case KUBE_PATCH_APPLY:
		ctype = "application/apply-patch+yaml"; /* JSON is YAML */
		if (!opts->field_manager || !*opts->field_manager)
			return kube_errorf(err, -EINVAL, "apply %s '%s': no field manager",
					   r->resource, name);
		break;
	default:
		return kube_errorf(err, -EINVAL, "patch %s '%s': unknown patch type %d",
				   r->resource, name, (int)opts->type);
	}
	struct kube_query q[] = {
		{"fieldManager", opts->field_manager},
		{"force", opts->type == KUBE_PATCH_APPLY && opts->force ? "true" : NULL},
	};
	ret = url_for(c, r, kube_client_ns(c, ns), name, sub, q, sizeof(q) / sizeof(q[0]), &url,
		      err);
	if (ret)
		goto out;
	ret = send_json(c, "PATCH", url, ctype, patch, idempotent, out, err);
out:
	free(url);
	return ret;
}

int kube_patch(struct kube_client *c, const struct kube_resource *r, const char *ns,
	       const char *name, const json_t *patch, const struct kube_patch_opts *opts,
	       json_t **out, struct kube_error *err)
{
	return do_patch(c, r, ns, name, NULL, patch, opts, out, err);
}

int kube_patch_status(struct kube_client *c, const struct kube_resource *r, const char *ns,
		      const char *name, const json_t *patch, const struct kube_patch_opts *opts,
		      json_t **out, struct kube_error *err)
{
	return do_patch(c, r, ns, name, "status", patch, opts, out, err);
}

int kube_delete(struct kube_client *c, const struct kube_resource *r, const char *ns,
		const char *name, const struct kube_delete_opts *opts, json_t **out,
		struct kube_error *err)
{
	static const struct kube_delete_opts none = KUBE_DELETE_OPTS_INIT;
	char *url = NULL;
	json_t *dopts = NULL;
	int ret = -ENOMEM;

	kube_error_clear(err);
	if (out)
		*out = NULL;
	if (!opts)
		opts = &none;
	if (!name || !*name)
		return kube_errorf(err, -EINVAL, "delete %s: no name", r->resource);
	dopts = json_pack("{s:s, s:s}", "kind", "DeleteOptions", "apiVersion", "v1");
	if (!dopts)
		goto out;
	if (opts->propagation_policy &&
	    json_object_set_new(dopts, "propagationPolicy", json_string(opts->propagation_policy)))
		goto out;
	if (opts->grace_period_seconds >= 0 &&
	    json_object_set_new(dopts, "gracePeriodSeconds",
				json_integer(opts->grace_period_seconds)))
		goto out;
	if (opts->precondition_uid || opts->precondition_resource_version) {
		json_t *pre = json_object();
		if (!pre || json_object_set_new(dopts, "preconditions", pre))
			goto out;
		if (opts->precondition_uid &&
		    json_object_set_new(pre, "uid", json_string(opts->precondition_uid)))
			goto out;
		if (opts->precondition_resource_version &&
		    json_object_set_new(pre, "resourceVersion",
					json_string(opts->precondition_resource_version)))
			goto out;
	}
	ret = url_for(c, r, kube_client_ns(c, ns), name, NULL, NULL, 0, &url, err);
	if (ret)
		goto out;
	ret = send_json(c, "DELETE", url, "application/json", dopts, true, out, err);
out:
	if (ret == -ENOMEM && err && !err->message[0])
		kube_errorf(err, ret, "delete %s '%s': out of memory", r->resource, name);
	json_decref(dopts);
	free(url);
	return ret;
}

int kube_get_raw(struct kube_client *c, const struct kube_resource *r, const char *ns,
		 const char *name, const char *subresource, const struct kube_query *q, size_t nq,
		 size_t max_bytes, char **body, size_t *len, struct kube_error *err)
{
	char *url = NULL;
	int ret;

	kube_error_clear(err);
	*body = NULL;
	if (len)
		*len = 0;
	if (!name || !*name)
		return kube_errorf(err, -EINVAL, "get %s: no name", r->resource);
	ret = url_for(c, r, kube_client_ns(c, ns), name, subresource, q, nq, &url, err);
	if (ret)
		return ret;
	struct kube_request req = {.method = "GET",
				   .url = url,
				   .idempotent = true,
				   .max_body = max_bytes,
				   .raw_out = body,
				   .raw_len = len};
	ret = kube_request_do(c, &req, NULL, err);
	free(url);
	return ret;
}

int kube_stream_raw(struct kube_client *c, const struct kube_resource *r, const char *ns,
		    const char *name, const char *subresource, const struct kube_query *q,
		    size_t nq, int (*sink)(void *arg, const char *data, size_t len), void *arg,
		    struct kube_error *err)
{
	char *url = NULL;
	int ret;

	kube_error_clear(err);
	if (!name || !*name)
		return kube_errorf(err, -EINVAL, "get %s: no name", r->resource);
	if (!sink)
		return kube_errorf(err, -EINVAL, "get %s: no sink", r->resource);
	ret = url_for(c, r, kube_client_ns(c, ns), name, subresource, q, nq, &url, err);
	if (ret)
		return ret;
	struct kube_request req = {
		.method = "GET", .url = url, .idempotent = true, .sink = sink, .sink_arg = arg};
	ret = kube_request_do(c, &req, NULL, err);
	free(url);
	return ret;
}
