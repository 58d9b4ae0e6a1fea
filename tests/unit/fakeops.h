/* SPDX-License-Identifier: MIT */
/*
 * A fake of the reconcile's operations table (controller/core/ops.h): an API
 * server and the informer caches held in memory. Every call is recorded
 * (verb, resource, name); objects are kept per resource, on the "server"
 * and in the "cache" (ConfigMaps read from it as the controller's
 * transform keeps them: a result's verdict, not its data). By default a write reaches both at once; with
 * fo.cache_lags, only the server, until fo_sync() (an informer that has not
 * seen the change yet). A status patch stores numbers as the API server
 * gives them back (a whole real as an integer); with fo.status_pruned, it
 * changes nothing (as a server that prunes what the patch set). Faults: fo_fail(verb, resource, errno, http, n)
 * makes the next n such calls fail. The clock is fo.now. The lifecycle
 * measurement (ops.lifecycle_measure) answers a document of its own.
 *
 *	static struct fakeops fo;
 *	fo_init(&fo); ... br_controller_init_ops(&c, &fo.ops, &opts, m); ...
 *	fo_release(&fo);
 */
#ifndef SB_TEST_FAKEOPS_H
#define SB_TEST_FAKEOPS_H

#include "controller/run/manifests.h"
#include "controller/core/ops.h"
#include "controller/core/resultcache.h"
#include "core/labels.h"
#include "time/rfc3339.h"

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define FO_MAX_CALLS  512
#define FO_MAX_FAULTS 8

struct fo_call {
	char verb[16]; /* create get delete patch list */
	char resource[40];
	char name[254];
};

struct fo_fault {
	char verb[16], resource[40];
	int err, http;
	unsigned times;
};

struct fakeops {
	struct br_ops ops;
	json_t *server, *cache; /* {resource: [objects]} */
	bool cache_lags;
	bool status_pruned; /* status patches change nothing */
	time_t now;
	long long measure_ns; /* what fo_lifecycle_measure reports (0: 1 ms) */
	unsigned long rv, uid;
	struct fo_call calls[FO_MAX_CALLS];
	size_t ncalls;
	struct fo_fault faults[FO_MAX_FAULTS];
	size_t nfaults;
};

static const char *const fo_kind_res[] = {"benchmarkruns",  "persistentvolumeclaims",
					  "pods",	    "configmaps",
					  "storageclasses", "benchmarkschedules"};

static inline json_t *fo_arr(json_t *store, const char *res)
{
	json_t *a = json_object_get(store, res);
	if (!a) {
		a = json_array();
		json_object_set_new(store, res, a);
	}
	return a;
}

static inline const char *fo_meta(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(json_object_get(o, "metadata"), k));
}

/* A whole real as an integer, through v (the API server's JSON round trip); a new reference. */
static inline json_t *fo_numbers(const json_t *v)
{
	if (json_is_real(v) && json_real_value(v) == (double)(json_int_t)json_real_value(v))
		return json_integer((json_int_t)json_real_value(v));
	json_t *out = json_is_object(v) ? json_object() : json_is_array(v) ? json_array() : NULL;
	const char *k;
	json_t *x;
	size_t i;
	if (!out)
		return json_deep_copy(v);
	if (json_is_object(v)) {
		json_object_foreach((json_t *)v, k, x) json_object_set_new(out, k, fo_numbers(x));
	} else {
		json_array_foreach(v, i, x) json_array_append_new(out, fo_numbers(x));
	}
	return out;
}

/* Index of ns/name in store[res], or -1. */
static inline long fo_find(json_t *store, const char *res, const char *ns, const char *name)
{
	size_t i;
	json_t *o;
	json_array_foreach(fo_arr(store, res), i, o)
	{
		const char *ons = fo_meta(o, "namespace");
		if (!strcmp(fo_meta(o, "name"), name) && (!ns || !*ns || (ons && !strcmp(ons, ns))))
			return (long)i;
	}
	return -1;
}

/* Puts a copy of obj (borrowed) as ns/name in store[res], replacing one of its name. */
static inline void fo_put(json_t *store, const char *res, const json_t *obj)
{
	long i = fo_find(store, res, fo_meta(obj, "namespace"), fo_meta(obj, "name"));
	json_t *copy = json_deep_copy(obj);
	if (i >= 0)
		json_array_set_new(fo_arr(store, res), (size_t)i, copy);
	else
		json_array_append_new(fo_arr(store, res), copy);
}

static inline int fo_record(struct fakeops *fo, const char *verb, const struct kube_resource *r,
			    const char *name, struct kube_error *err)
{
	if (fo->ncalls < FO_MAX_CALLS) {
		struct fo_call *c = &fo->calls[fo->ncalls++];
		snprintf(c->verb, sizeof(c->verb), "%s", verb);
		snprintf(c->resource, sizeof(c->resource), "%s", r->resource);
		snprintf(c->name, sizeof(c->name), "%s", name ? name : "");
	}
	for (size_t i = 0; i < fo->nfaults; i++) {
		struct fo_fault *f = &fo->faults[i];
		if (f->times && !strcmp(f->verb, verb) && !strcmp(f->resource, r->resource)) {
			f->times--;
			if (err) {
				err->http_code = f->http;
				snprintf(err->message, sizeof(err->message), "injected %s %s", verb,
					 r->resource);
			}
			return f->err;
		}
	}
	return 0;
}

/* A server-side write: a new resourceVersion; into the cache too unless it lags. */
static inline void fo_store(struct fakeops *fo, const char *res, json_t *obj)
{
	char rv[32];
	snprintf(rv, sizeof(rv), "%lu", ++fo->rv);
	json_object_set_new(json_object_get(obj, "metadata"), "resourceVersion", json_string(rv));
	fo_put(fo->server, res, obj);
	if (!fo->cache_lags)
		fo_put(fo->cache, res, obj);
}

static inline int fo_create(void *arg, const struct kube_resource *r, const char *ns,
			    const json_t *obj, struct kube_error *err)
{
	struct fakeops *fo = arg;
	int f = fo_record(fo, "create", r, fo_meta(obj, "name"), err);
	if (f)
		return f;
	if (!strcmp(r->resource, "events")) {
		json_array_append(fo_arr(fo->server, "events"), (json_t *)obj);
		return 0;
	}
	if (fo_find(fo->server, r->resource, ns, fo_meta(obj, "name")) >= 0)
		return -EEXIST;
	json_t *o = json_deep_copy(obj);
	char uid[64], ts[40];
	json_t *md = json_object_get(o, "metadata");
	snprintf(uid, sizeof(uid), "uid-%lu", ++fo->uid);
	json_object_set_new(md, "namespace", json_string(ns));
	json_object_set_new(md, "uid", json_string(uid));
	json_object_set_new(md, "creationTimestamp",
			    json_string(sb_rfc3339_format(fo->now, ts, sizeof(ts))));
	fo_store(fo, r->resource, o);
	json_decref(o);
	return 0;
}

static inline int fo_get(void *arg, const struct kube_resource *r, const char *ns, const char *name,
			 json_t **out, struct kube_error *err)
{
	struct fakeops *fo = arg;
	int f = fo_record(fo, "get", r, name, err);
	if (f)
		return f;
	long i = fo_find(fo->server, r->resource, ns, name);
	if (i < 0)
		return -ENOENT;
	if (out)
		*out = json_deep_copy(json_array_get(fo_arr(fo->server, r->resource), (size_t)i));
	return 0;
}

static inline int fo_del(void *arg, const struct kube_resource *r, const char *ns, const char *name,
			 struct kube_error *err)
{
	struct fakeops *fo = arg;
	int f = fo_record(fo, "delete", r, name, err);
	if (f)
		return f;
	long i = fo_find(fo->server, r->resource, ns, name);
	if (i < 0)
		return -ENOENT;
	json_array_remove(fo_arr(fo->server, r->resource), (size_t)i);
	if (!fo->cache_lags && (i = fo_find(fo->cache, r->resource, ns, name)) >= 0)
		json_array_remove(fo_arr(fo->cache, r->resource), (size_t)i);
	return 0;
}

/*
 * A merge patch of the status, refused with 409 when metadata.resourceVersion
 * is not current; one that changes nothing keeps the resourceVersion (and
 * reaches no cache), as the API server's. The resourceVersion after it into rv.
 */
static inline int fo_patch_status(void *arg, const struct kube_resource *r, const char *ns,
				  const char *name, const json_t *patch, char *rv, size_t rvlen,
				  struct kube_error *err)
{
	struct fakeops *fo = arg;
	int f = fo_record(fo, "patch", r, name, err);
	if (f)
		return f;
	long i = fo_find(fo->server, r->resource, ns, name);
	if (i < 0)
		return -ENOENT;
	json_t *o = json_deep_copy(json_array_get(fo_arr(fo->server, r->resource), (size_t)i));
	const char *want = fo_meta(patch, "resourceVersion");
	if (want && strcmp(want, fo_meta(o, "resourceVersion"))) {
		json_decref(o);
		if (err)
			err->http_code = 409;
		return -EAGAIN;
	}
	json_t *st = json_object_get(o, "status");
	if (!st) {
		st = json_object();
		json_object_set_new(o, "status", st);
	}
	const char *k;
	json_t *v;
	json_t *before = json_deep_copy(st);
	json_object_foreach(json_object_get(patch, "status"), k, v)
	{
		if (fo->status_pruned)
			break;
		if (json_is_null(v))
			json_object_del(st, k);
		else
			json_object_set_new(st, k, fo_numbers(v));
	}
	if (!json_equal(before, st))
		fo_store(fo, r->resource, o);
	if (rv && rvlen)
		snprintf(rv, rvlen, "%s", fo_meta(o, "resourceVersion"));
	json_decref(before);
	json_decref(o);
	return 0;
}

static inline int fo_list(void *arg, const struct kube_resource *r, const char *ns,
			  const char *field_selector, json_t **out, struct kube_error *err)
{
	struct fakeops *fo = arg;
	(void)ns;
	(void)field_selector;
	int f = fo_record(fo, "list", r, "", err);
	if (f)
		return f;
	*out = json_pack("{s:[]}", "items");
	return 0;
}

/* Whether obj carries every label of sel ("k=v,k=v"). */
static inline bool fo_selected(const json_t *obj, const char *sel)
{
	char buf[512], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", sel ? sel : "");
	for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		if (!eq)
			return false;
		*eq = '\0';
		const char *v = json_string_value(json_object_get(
			json_object_get(json_object_get(obj, "metadata"), "labels"), kv));
		if (!v || strcmp(v, eq + 1))
			return false;
	}
	return true;
}

/* LIST by labels: the server's objects of r in ns that sel selects. */
static inline int fo_list_labeled(void *arg, const struct kube_resource *r, const char *ns,
				  const char *sel, json_t **out, struct kube_error *err)
{
	struct fakeops *fo = arg;
	int f = fo_record(fo, "list", r, sel, err);
	if (f)
		return f;
	json_t *items = json_array();
	size_t i;
	json_t *o;
	json_array_foreach(fo_arr(fo->server, r->resource), i, o)
	{
		const char *ons = fo_meta(o, "namespace");
		if ((!ns || (ons && !strcmp(ons, ns))) && fo_selected(o, sel))
			json_array_append_new(items, json_deep_copy(o));
	}
	*out = json_pack("{s:o}", "items", items);
	return 0;
}

/* What the controller's ConfigMap informer keeps: a result's verdict instead of its data. */
static inline json_t *fo_cached(enum br_cache_kind k, json_t *copy)
{
	if (k == BR_CACHE_CMS && copy && br_result_verdict_set(copy)) {
		json_decref(copy);
		return NULL;
	}
	return copy;
}

static inline json_t *fo_cache_get(void *arg, enum br_cache_kind k, const char *ns,
				   const char *name)
{
	struct fakeops *fo = arg;
	long i = fo_find(fo->cache, fo_kind_res[k], ns, name);
	return i < 0 ? NULL
		     : fo_cached(k, json_deep_copy(json_array_get(fo_arr(fo->cache, fo_kind_res[k]),
								  (size_t)i)));
}

static inline json_t *fo_cache_list(void *arg, enum br_cache_kind k, const char *ns,
				    const char *run_label)
{
	struct fakeops *fo = arg;
	(void)ns;
	json_t *a = json_deep_copy(fo_arr(fo->cache, fo_kind_res[k]));
	size_t i;
	json_t *o;
	json_array_foreach(k == BR_CACHE_CMS ? a : NULL, i, o)
	{
		if (br_result_verdict_set(o)) {
			json_decref(a);
			return NULL;
		}
	}
	/* as the informers' index: only the run's own objects */
	for (i = json_array_size(a); run_label && i-- > 0;) {
		const json_t *md = json_object_get(json_array_get(a, i), "metadata");
		const char *r = json_string_value(
			json_object_get(json_object_get(md, "labels"), SB_LABEL_RUN));
		if ((!r || strcmp(r, run_label)) && json_array_remove(a, i)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static inline time_t fo_now(void *arg)
{
	return ((struct fakeops *)arg)->now;
}

/*
 * The lifecycle measurement: recorded as ("measure", "lifecycle", class),
 * answered with one sequential volume provisioned in fo.measure_ns (1 ms
 * unless set) named <class>-lc<iteration>; fo_fail("measure", "lifecycle",
 * ...) makes it fail with nothing measured.
 */
static inline int fo_lifecycle_measure(void *arg, const struct br_ref *ref,
				       const struct br_lifecycle_spec *ls, const char *cls,
				       const json_t *sc, const json_t *pod_template,
				       unsigned iteration, json_t **result, char *err,
				       size_t errlen)
{
	static const struct kube_resource lc = {"", "v1", "lifecycle", true};
	struct fakeops *fo = arg;
	char vol[128];
	(void)ref;
	(void)ls;
	(void)sc;
	(void)pod_template;
	*result = NULL;
	int f = fo_record(fo, "measure", &lc, cls, NULL);
	if (f) {
		snprintf(err, errlen, "injected measure failure");
		return f;
	}
	snprintf(vol, sizeof(vol), "%s-lc%u", cls, iteration);
	*result = json_pack("{s:s,s:I,s:s,s:s,s:[{s:s,s:s,s:I}],s:{}}", "class", cls, "iteration",
			    (json_int_t)iteration, "bindingMode", "Immediate", "deleteEnds",
			    "PV gone", "volumes", "name", vol, "mode", "sequential", "provision_ns",
			    (json_int_t)(fo->measure_ns ? fo->measure_ns : 1000000), "skipped");
	return *result ? 0 : -ENOMEM;
}

static inline void fo_init(struct fakeops *fo)
{
	memset(fo, 0, sizeof(*fo));
	fo->server = json_object();
	fo->cache = json_object();
	fo->now = 1796000000; /* 2026-11-30 */
	fo->ops =
		(struct br_ops){fo,	 fo_create,    fo_get,	      fo_del, fo_patch_status,
				fo_list, fo_cache_get, fo_cache_list, fo_now, fo_lifecycle_measure};
	fo->ops.list_labeled = fo_list_labeled;
}

static inline void fo_release(struct fakeops *fo)
{
	json_decref(fo->server);
	json_decref(fo->cache);
	memset(fo, 0, sizeof(*fo));
}

/* The informers catch up: the cache becomes what the server holds. */
static inline void fo_sync(struct fakeops *fo)
{
	json_decref(fo->cache);
	fo->cache = json_deep_copy(fo->server);
}

static inline void fo_fail(struct fakeops *fo, const char *verb, const char *resource, int err,
			   int http, unsigned times)
{
	if (fo->nfaults == FO_MAX_FAULTS)
		return;
	struct fo_fault *f = &fo->faults[fo->nfaults++];
	snprintf(f->verb, sizeof(f->verb), "%s", verb);
	snprintf(f->resource, sizeof(f->resource), "%s", resource);
	f->err = err;
	f->http = http;
	f->times = times;
}

/* Calls of verb on resource (name NULL: any) so far. */
static inline size_t fo_calls(const struct fakeops *fo, const char *verb, const char *resource,
			      const char *name)
{
	size_t n = 0;
	for (size_t i = 0; i < fo->ncalls; i++)
		n += !strcmp(fo->calls[i].verb, verb) && !strcmp(fo->calls[i].resource, resource) &&
		     (!name || !strcmp(fo->calls[i].name, name));
	return n;
}

/* Events recorded with reason. */
static inline size_t fo_events(const struct fakeops *fo, const char *reason)
{
	size_t i, n = 0;
	json_t *e;
	json_array_foreach(json_object_get(fo->server, "events"), i, e)
	{
		const char *r = json_string_value(json_object_get(e, "reason"));
		n += r && !strcmp(r, reason);
	}
	return n;
}

/* The server's object ns/name of resource (borrowed), or NULL. */
static inline json_t *fo_obj(struct fakeops *fo, const char *res, const char *ns, const char *name)
{
	long i = fo_find(fo->server, res, ns, name);
	return i < 0 ? NULL : json_array_get(fo_arr(fo->server, res), (size_t)i);
}

#endif
