/* SPDX-License-Identifier: MIT */
/* Conditions and the status write of every reconciler (controller/core/status.h). */
#include "controller/core/status.h"
#include "controller/core/controller.h"

#include "core/jsonobj.h"
#include "core/log.h"
#include "time/rfc3339.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const json_t *br_condition_find(const json_t *status, const char *type)
{
	size_t i;
	const json_t *c;
	json_array_foreach(json_object_get(status, "conditions"), i, c)
	{
		const char *t = jstr(c, "type");
		if (t && !strcmp(t, type))
			return c;
	}
	return NULL;
}

json_t *br_condition_new(const json_t *prev, const struct br_condition *cond, time_t now)
{
	char ts[SB_RFC3339_LEN];
	const json_t *pc = br_condition_find(prev, cond->type);
	const char *lt = NULL;
	/* lastTransitionTime changes only when the status flips */
	if (pc && jstr(pc, "status") && !strcmp(jstr(pc, "status"), cond->status))
		lt = jstr(pc, "lastTransitionTime");
	if (!lt)
		lt = sb_rfc3339_format(now, ts, sizeof(ts));
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:I}", "type", cond->type, "status", cond->status,
			 "reason", cond->reason, "message", cond->message, "lastTransitionTime", lt,
			 "observedGeneration", (json_int_t)cond->gen);
}

int br_condition_set(json_t *status, const json_t *prev, const struct br_condition *cond,
		     time_t now)
{
	json_t *c = br_condition_new(prev, cond, now);
	json_t *conds = json_object_get(status, "conditions");
	if (!c)
		return -ENOMEM;
	if (!json_is_array(conds)) {
		conds = json_array();
		if (!conds || json_object_set_new(status, "conditions", conds)) {
			json_decref(c);
			return -ENOMEM;
		}
	}
	size_t i;
	const json_t *old;
	json_array_foreach(conds, i, old)
	{
		const char *t = jstr(old, "type");
		if (t && !strcmp(t, cond->type))
			return json_array_set_new(conds, i, c) ? -ENOMEM : 0;
	}
	return json_array_append_new(conds, c) ? -ENOMEM : 0;
}

/* ------------------------------------------------ the ring of status writes */

static unsigned long status_hash(const json_t *status)
{
	char *text = json_dumps(status, JSON_COMPACT | JSON_SORT_KEYS);
	unsigned long h = 5381;
	for (const char *p = text; p && *p; p++)
		h = h * 33 + (unsigned char)*p;
	free(text);
	return h;
}

static void remember_write(struct br_controller *c, const char *uid, const char *rv,
			   const char *rv_after, const json_t *status)
{
	if (!uid || !rv)
		return;
	unsigned long h = status_hash(status);
	pthread_mutex_lock(&c->mu);
	struct br_written *w = NULL;
	for (size_t i = 0; i < BR_WRITTEN && !w; i++)
		if (!strcmp(c->written[i].uid, uid))
			w = &c->written[i];
	if (!w)
		w = &c->written[c->nwritten++ % BR_WRITTEN];
	snprintf(w->uid, sizeof(w->uid), "%s", uid);
	snprintf(w->rv, sizeof(w->rv), "%s", rv);
	snprintf(w->rv_after, sizeof(w->rv_after), "%s", rv_after);
	w->hash = h;
	w->at = c->ops.now(c->ops.arg);
	pthread_mutex_unlock(&c->mu);
}

enum written_match { W_NONE, W_BEHIND, W_NOOP };

/*
 * What this process last wrote to object uid, seen from a pass that read it
 * at rv: W_BEHIND (a write that changed it from rv, BR_WRITTEN_WAIT_S ago at
 * most), W_NOOP (status, written at rv, changed nothing), W_NONE.
 */
static enum written_match written_at(struct br_controller *c, const char *uid, const char *rv,
				     const json_t *status)
{
	enum written_match m = W_NONE;
	if (!uid || !rv)
		return W_NONE;
	time_t now = c->ops.now(c->ops.arg);
	unsigned long h = status ? status_hash(status) : 0;
	pthread_mutex_lock(&c->mu);
	for (size_t i = 0; i < BR_WRITTEN; i++) {
		const struct br_written *w = &c->written[i];
		if (strcmp(w->uid, uid))
			continue;
		if (strcmp(w->rv, rv))
			break;
		if (!strcmp(w->rv_after, rv))
			m = status && w->hash == h ? W_NOOP : W_NONE;
		else if (w->rv_after[0] && now - w->at <= BR_WRITTEN_WAIT_S)
			m = W_BEHIND;
		break;
	}
	pthread_mutex_unlock(&c->mu);
	return m;
}

bool br_status_behind(struct br_controller *c, const json_t *obj)
{
	return written_at(c, meta(obj, "uid"), meta(obj, "resourceVersion"), NULL) == W_BEHIND;
}

/* ------------------------------------------------------- the status write */

/*
 * json_equal, but a real and an integer of the same value are equal: the
 * API server gives back 1234.0 as 1234 (a status read back is not
 * byte-for-byte what was written).
 */
static bool status_equal(const json_t *a, const json_t *b)
{
	if (json_is_number(a) && json_is_number(b))
		return json_number_value(a) == json_number_value(b);
	if (json_is_object(a) && json_is_object(b)) {
		const char *k;
		const json_t *v;
		if (json_object_size(a) != json_object_size(b))
			return false;
		json_object_foreach((json_t *)a, k, v)
		{
			if (!status_equal(v, json_object_get(b, k)))
				return false;
		}
		return true;
	}
	if (json_is_array(a) && json_is_array(b)) {
		if (json_array_size(a) != json_array_size(b))
			return false;
		for (size_t i = 0; i < json_array_size(a); i++)
			if (!status_equal(json_array_get(a, i), json_array_get(b, i)))
				return false;
		return true;
	}
	return json_equal(a, b);
}

/* {metadata: {resourceVersion}, status} with null for the keys status dropped; NULL on ENOMEM. */
static json_t *status_patch(const json_t *prev, const char *rv, const json_t *status)
{
	json_t *st = json_deep_copy(status);
	json_t *patch = st && rv ? json_pack("{s:{s:s},s:o}", "metadata", "resourceVersion", rv,
					     "status", st)
			: st	 ? json_pack("{s:o}", "status", st)
				 : NULL;
	const char *key;
	const json_t *v;
	json_object_foreach((json_t *)prev, key, v)
	{
		if (patch && !json_object_get(status, key) &&
		    json_object_set_new(st, key, json_null())) {
			json_decref(patch);
			return NULL;
		}
	}
	return patch;
}

int br_status_write(struct br_controller *c, const struct kube_resource *res, const json_t *obj,
		    const json_t *status)
{
	const json_t *prev = json_object_get(obj, "status");
	const char *rv = meta(obj, "resourceVersion"), *uid = meta(obj, "uid");
	const char *ns = meta(obj, "namespace"), *name = meta(obj, "name");
	if ((prev && status_equal(prev, status)) || written_at(c, uid, rv, status) == W_NOOP)
		return 0;
	json_t *patch = status_patch(prev, rv, status);
	struct kube_error err = KUBE_ERROR_INIT;
	char eb[512], rv_after[sizeof(c->written[0].rv)] = "";
	int ret = patch ? c->ops.patch_status(c->ops.arg, res, ns, name, patch, rv_after,
					      sizeof(rv_after), &err)
			: -ENOMEM;
	json_decref(patch);
	if (ret == -EAGAIN && err.http_code == 409) {
		sb_debug("Status not written: the object changed since it was read",
			 "object=%s/%s resource=%s", ns, name, res->resource);
		return 1;
	}
	if (ret && ret != -ENOENT) {
		br_metrics_api_error(c->metrics);
		sb_warn("Failed to update status", "object=%s/%s resource=%s error=\"%s\"", ns,
			name, res->resource, kube_error_str(&err, eb, sizeof(eb)));
		return ret;
	}
	if (!ret)
		remember_write(c, uid, rv, rv_after, status);
	return 0;
}
