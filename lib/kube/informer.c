/* SPDX-License-Identifier: MIT */
/*
 * Informer: list + watch of one resource into a cache keyed by
 * "namespace/name" (a jansson object used as the hash table), with events,
 * relist on 410 Gone, in a thread of its own.
 *
 * Locking: inf->lock guards cache, synced, watch and rv. Callbacks run on
 * the informer thread with no lock held. Cached objects are never modified
 * once stored (jansson's reference counts are atomic), so references handed
 * out by get/list stay valid after the lock is released.
 */
#include "kube/informer.h"
#include "kube/ops.h"
#include "kube/watch.h"
#include "kube/client_internal.h"
#include "kube/error_internal.h"
#include "kube/backoff.h"
#include "kube/util.h"
#include "kube/clock.h"
#include "core/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct kube_informer {
	struct kube_client *c;
	struct kube_resource res;
	char *ns, *label, *field;
	long page_size, idle_ms;
	bool strip, compact;
	const char *dict; /* compact: deflated against it (borrowed) */
	z_stream z;	  /* the informer thread's deflate stream (dict) */
	bool zready;
	kube_informer_transform_fn transform;
	void *transform_arg;
	kube_informer_cb cb;
	void *arg;
	char *ixlabel; /* index_label, or NULL: no index */

	pthread_mutex_t lock;
	pthread_cond_t cond; /* synced changes, stop requested */
	json_t *cache;
	json_t *ix;   /* with ixlabel: label value -> {key: null} of the cached objects */
	json_t *ixof; /* with ixlabel: key -> its label value (a json string) */
	bool synced, started;
	char *rv;
	struct kube_watch *watch;
	pthread_t thread;
	atomic_bool stop;
	atomic_ulong lists, dropped;
};

struct pending {
	enum kube_informer_event ev;
	json_t *obj, *old; /* owned references */
};

static int dup_opt(char **dst, const char *s)
{
	*dst = NULL;
	if (!s)
		return 0;
	*dst = strdup(s);
	return *dst ? 0 : -ENOMEM;
}

/* "ns/name" (ns empty for cluster-scoped objects). 0 or -EINVAL. */
static int key_of(const json_t *obj, char *buf, size_t size)
{
	json_t *meta = json_object_get(obj, "metadata");
	const char *name = json_string_value(json_object_get(meta, "name"));
	const char *ns = json_string_value(json_object_get(meta, "namespace"));
	if (!name)
		return -EINVAL;
	int n = snprintf(buf, size, "%s/%s", ns ? ns : "", name);
	return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

static const char *rv_of(const json_t *obj)
{
	return json_string_value(
		json_object_get(json_object_get(obj, "metadata"), "resourceVersion"));
}

struct kube_informer *kube_informer_new(struct kube_client *c,
					const struct kube_informer_opts *opts,
					struct kube_error *err)
{
	kube_error_clear(err);
	if (!opts || !opts->resource || !opts->resource->version || !opts->resource->resource) {
		kube_errorf(err, -EINVAL, "informer: no resource");
		return NULL;
	}
	struct kube_informer *inf = calloc(1, sizeof(*inf));
	if (!inf)
		goto nomem;
	inf->c = c;
	inf->res = *opts->resource;
	inf->page_size = opts->page_size > 0 ? opts->page_size : 500;
	inf->idle_ms = opts->idle_timeout_ms > 0 ? opts->idle_timeout_ms : 5 * 60 * 1000;
	inf->strip = opts->strip_managed_fields;
	inf->transform = opts->transform;
	inf->compact = opts->compact;
	inf->dict = opts->compact ? opts->compact_dict : NULL;
	inf->transform_arg = opts->transform_arg;
	inf->cb = opts->cb;
	inf->arg = opts->arg;
	if (pthread_mutex_init(&inf->lock, NULL)) {
		free(inf);
		goto nomem;
	}
	if (pthread_cond_init(&inf->cond, NULL)) {
		pthread_mutex_destroy(&inf->lock);
		free(inf);
		goto nomem;
	}
	inf->cache = json_object();
	inf->ix = json_object();
	inf->ixof = json_object();
	if (!inf->cache || !inf->ix || !inf->ixof || dup_opt(&inf->ixlabel, opts->index_label) ||
	    dup_opt(&inf->ns, opts->resource->namespaced ? opts->ns : NULL) ||
	    dup_opt(&inf->label, opts->label_selector) ||
	    dup_opt(&inf->field, opts->field_selector)) {
		kube_informer_free(inf);
		goto nomem;
	}
	return inf;
nomem:
	kube_errorf(err, -ENOMEM, "informer: out of memory");
	return NULL;
}

static void run_pending(struct kube_informer *inf, struct pending *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (inf->cb)
			inf->cb(p[i].ev, p[i].obj, p[i].old, inf->arg);
		json_decref(p[i].obj);
		json_decref(p[i].old);
	}
}

/*
 * Strips and transforms *obj (an owned reference, maybe replaced). Returns
 * true to cache it, false when the transform leaves it out.
 */
static bool prepare(struct kube_informer *inf, json_t **obj)
{
	if (inf->strip)
		json_object_del(json_object_get(*obj, "metadata"), "managedFields");
	if (!inf->transform)
		return true;
	int r = inf->transform(obj, inf->transform_arg);
	if (r == 1) {
		atomic_fetch_add(&inf->dropped, 1);
		return false;
	}
	if (r < 0)
		sb_warn("Transform failed; caching the object as it came", "resource=%s errno=%d",
			inf->res.resource, -r);
	return true;
}

/* Deflated text as the cache keeps it: the text's length (4 bytes, little
 * endian), then a raw deflate stream of it against the dictionary. */
#define ZWBITS 12 /* a 4 KiB window: the dictionary and an object's start */
#define ZHDR   4

/* text (n bytes) deflated into a new malloc'd buffer (*out, *outlen). 0 or
 * -ENOMEM. Runs on the informer's thread only (its one stream). */
static int deflated(struct kube_informer *inf, const char *text, size_t n, char **out,
		    size_t *outlen)
{
	z_stream *z = &inf->z;
	if (!inf->zready) {
		if (deflateInit2(z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -ZWBITS, 4,
				 Z_DEFAULT_STRATEGY) != Z_OK)
			return -ENOMEM;
		inf->zready = true;
	} else if (deflateReset(z) != Z_OK) {
		return -ENOMEM;
	}
	if (n > UINT32_MAX ||
	    deflateSetDictionary(z, (const Bytef *)inf->dict, (uInt)strlen(inf->dict)) != Z_OK)
		return -ENOMEM;
	size_t cap = ZHDR + deflateBound(z, (uLong)n);
	unsigned char *buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (int i = 0; i < ZHDR; i++)
		buf[i] = (unsigned char)(n >> (8 * i));
	z->next_in = (Bytef *)text;
	z->avail_in = (uInt)n;
	z->next_out = buf + ZHDR;
	z->avail_out = (uInt)(cap - ZHDR);
	if (deflate(z, Z_FINISH) != Z_STREAM_END) {
		free(buf);
		return -ENOMEM;
	}
	*out = (char *)buf;
	*outlen = cap - z->avail_out;
	return 0;
}

/* The text a deflated cache value stands for: a malloc'd buffer of *n
 * bytes, or NULL. Any thread (a stream of its own). */
static char *inflated(const struct kube_informer *inf, const json_t *v, size_t *n)
{
	const unsigned char *in = (const unsigned char *)json_string_value(v);
	size_t len = json_string_length(v), want = 0;
	if (len < ZHDR)
		return NULL;
	for (int i = 0; i < ZHDR; i++)
		want |= (size_t)in[i] << (8 * i);
	char *text = malloc(want ? want : 1);
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (!text || inflateInit2(&z, -ZWBITS) != Z_OK) {
		free(text);
		return NULL;
	}
	z.next_in = (Bytef *)(in + ZHDR);
	z.avail_in = (uInt)(len - ZHDR);
	z.next_out = (Bytef *)text;
	z.avail_out = (uInt)want;
	int r = inflateSetDictionary(&z, (const Bytef *)inf->dict, (uInt)strlen(inf->dict));
	if (r == Z_OK)
		r = inflate(&z, Z_FINISH);
	inflateEnd(&z);
	if (r != Z_STREAM_END || z.avail_out) {
		free(text);
		return NULL;
	}
	*n = want;
	return text;
}

/* What the cache holds for obj: a new reference to obj, or with compact its
 * compact JSON text (deflated with a dictionary) as a json string. NULL on
 * ENOMEM. */
static json_t *stored(struct kube_informer *inf, json_t *obj)
{
	if (!inf->compact)
		return json_incref(obj);
	size_t n = json_dumpb(obj, NULL, 0, JSON_COMPACT);
	char *text = n ? malloc(n) : NULL, *z = NULL;
	size_t zn = 0;
	json_t *v = NULL;
	if (text && json_dumpb(obj, text, n, JSON_COMPACT) == n) {
		if (!inf->dict)
			v = json_stringn_nocheck(text, n);
		else if (deflated(inf, text, n, &z, &zn) == 0)
			v = json_stringn_nocheck(z, zn);
	}
	free(z);
	free(text);
	return v;
}

/* A new reference to the object a cache value stands for (parsed again with
 * compact), or NULL. */
static json_t *loaded(const struct kube_informer *inf, json_t *v)
{
	if (!v || !inf->compact)
		return json_incref(v);
	if (!inf->dict)
		return json_loadb(json_string_value(v), json_string_length(v), 0, NULL);
	size_t n = 0;
	char *text = inflated(inf, v, &n);
	json_t *obj = text ? json_loadb(text, n, 0, NULL) : NULL;
	free(text);
	return obj;
}

/* ------------------------------------------------------------ the index */

/* obj's value of the index label (borrowed), or NULL. */
static const char *ix_value(const struct kube_informer *inf, const json_t *obj)
{
	const json_t *labels = json_object_get(json_object_get(obj, "metadata"), "labels");
	return inf->ixlabel ? json_string_value(json_object_get(labels, inf->ixlabel)) : NULL;
}

/* Takes key out of the index (ix, ixof). Caller holds the lock or owns both. */
static void ix_del(json_t *ix, json_t *ixof, const char *key)
{
	const char *v = json_string_value(json_object_get(ixof, key));
	json_t *set = v ? json_object_get(ix, v) : NULL;
	if (set) {
		json_object_del(set, key);
		if (json_object_size(set) == 0)
			json_object_del(ix, v);
	}
	json_object_del(ixof, key);
}

/* Indexes key under obj's label value (none: not indexed). 0 or -ENOMEM.
 * Caller holds the lock or owns ix and ixof. */
static int ix_put(const struct kube_informer *inf, json_t *ix, json_t *ixof, const char *key,
		  const json_t *obj)
{
	const char *v = ix_value(inf, obj);
	if (!v)
		return 0;
	json_t *set = json_object_get(ix, v);
	if (!set && json_object_set_new(ix, v, set = json_object()))
		return -ENOMEM;
	if (json_object_set_new(ixof, key, json_string(v)) == 0 &&
	    json_object_set_new(set, key, json_null()) == 0)
		return 0;
	json_object_del(ixof, key);
	if (json_object_size(set) == 0)
		json_object_del(ix, v);
	return -ENOMEM;
}

/* A cache and its index, as a list makes them. */
struct cache_parts {
	json_t *store;	   /* key -> the cache's value (compact: the text) */
	json_t *ix, *ixof; /* the index (struct kube_informer) */
};

static void cache_parts_free(struct cache_parts *p)
{
	json_decref(p->store);
	json_decref(p->ix);
	json_decref(p->ixof);
	memset(p, 0, sizeof(*p));
}

/* The cache and index for a list's objects (fresh: key -> object), made
 * outside the lock. 0, or -ENOMEM with nothing left allocated. */
static int new_cache(struct kube_informer *inf, json_t *fresh, struct cache_parts *out)
{
	const char *key;
	json_t *obj;
	out->ix = json_object();
	out->ixof = json_object();
	out->store = inf->compact ? json_object() : json_incref(fresh);
	if (!out->ix || !out->ixof || !out->store)
		goto nomem;
	json_object_foreach(inf->ixlabel ? fresh : NULL, key, obj)
	{
		if (ix_put(inf, out->ix, out->ixof, key, obj))
			goto nomem;
	}
	json_object_foreach(inf->compact ? fresh : NULL, key, obj)
	{
		if (json_object_set_new(out->store, key, stored(inf, obj)))
			goto nomem;
	}
	return 0;
nomem:
	cache_parts_free(out);
	return -ENOMEM;
}

/* Lists everything and replaces the cache, synthesising the differences. */
static int relist(struct kube_informer *inf, struct kube_error *err)
{
	struct kube_list_opts lo = {.label_selector = inf->label,
				    .field_selector = inf->field,
				    .limit = inf->page_size};
	json_t *list = NULL, *fresh = NULL;
	struct pending *p = NULL;
	size_t np = 0;
	char *rv = NULL;
	int ret;

	ret = kube_list(inf->c, &inf->res, inf->ns, &lo, &list, err);
	atomic_fetch_add(&inf->lists, 1);
	/* the watch has a connection of its own: the list's would stay idle */
	kube_client_thread_release(inf->c);
	if (ret)
		return ret;
	ret = -ENOMEM;
	json_t *items = json_object_get(list, "items");
	fresh = json_object();
	const char *lrv = json_string_value(
		json_object_get(json_object_get(list, "metadata"), "resourceVersion"));
	rv = strdup(lrv ? lrv : "");
	/* At most one event per new item and one per deleted old item. */
	pthread_mutex_lock(&inf->lock);
	size_t cap = json_array_size(items) + json_object_size(inf->cache);
	pthread_mutex_unlock(&inf->lock);
	p = calloc(cap ? cap : 1, sizeof(*p));
	if (!fresh || !rv || !p)
		goto out;

	/* List items carry no kind/apiVersion; watch events do. Make them alike. */
	const char *lkind = json_string_value(json_object_get(list, "kind"));
	const char *api = json_string_value(json_object_get(list, "apiVersion"));
	char kind[128] = "";
	size_t kl = lkind ? strlen(lkind) : 0;
	if (kl > 4 && kl < sizeof(kind) && strcmp(lkind + kl - 4, "List") == 0) {
		memcpy(kind, lkind, kl - 4);
		kind[kl - 4] = '\0';
	}
	size_t i;
	json_t *it;
	json_array_foreach(items, i, it)
	{
		char key[512];
		if (key_of(it, key, sizeof(key)))
			continue;
		if (kind[0] && !json_object_get(it, "kind") &&
		    json_object_set_new(it, "kind", json_string(kind)))
			goto out;
		if (api && !json_object_get(it, "apiVersion") &&
		    json_object_set_new(it, "apiVersion", json_string(api)))
			goto out;
		json_t *mine = json_incref(it);
		if (!prepare(inf, &mine)) {
			json_decref(mine);
			continue;
		}
		if (json_object_set_new(fresh, key, mine))
			goto out;
	}

	const char *key;
	json_t *obj;
	struct cache_parts parts;
	if (new_cache(inf, fresh, &parts))
		goto out;
	pthread_mutex_lock(&inf->lock);
	json_object_foreach(fresh, key, obj)
	{
		json_t *old = loaded(inf, json_object_get(inf->cache, key));
		if (!old) {
			p[np++] = (struct pending){KUBE_INFORMER_ADD, json_incref(obj), NULL};
		} else {
			const char *a = rv_of(old), *b = rv_of(obj);
			if (!a || !b || strcmp(a, b) != 0)
				p[np++] = (struct pending){KUBE_INFORMER_UPDATE, json_incref(obj),
							   json_incref(old)};
			json_decref(old);
		}
	}
	json_object_foreach(inf->cache, key, obj)
	{
		if (!json_object_get(fresh, key) && np < cap) {
			json_t *last = loaded(inf, obj);
			if (last)
				p[np++] = (struct pending){KUBE_INFORMER_DELETE, last, NULL};
		}
	}
	json_decref(inf->cache);
	inf->cache = parts.store;
	json_decref(inf->ix);
	inf->ix = parts.ix;
	json_decref(inf->ixof);
	inf->ixof = parts.ixof;
	free(inf->rv);
	inf->rv = rv;
	rv = NULL;
	inf->synced = true;
	pthread_cond_broadcast(&inf->cond);
	pthread_mutex_unlock(&inf->lock);
	sb_debug("Listed objects", "resource=%s count=%zu events=%zu", inf->res.resource,
		 json_array_size(items), np);
	run_pending(inf, p, np);
	ret = 0;
out:
	if (ret == -ENOMEM)
		kube_errorf(err, ret, "informer %s: out of memory", inf->res.resource);
	free(p);
	free(rv);
	json_decref(fresh);
	json_decref(list);
	return ret;
}

/* A watch event: update the cache, then tell the callback. */
static int on_event(enum kube_event_type type, json_t *obj, void *arg)
{
	struct kube_informer *inf = arg;
	struct pending p = {0};
	char key[512];

	if (type != KUBE_EVENT_ADDED && type != KUBE_EVENT_MODIFIED && type != KUBE_EVENT_DELETED)
		return 0;
	if (key_of(obj, key, sizeof(key)))
		return 0;
	/* the watch hands over its only reference: ours to change */
	json_t *mine = json_incref(obj);
	bool keep = prepare(inf, &mine);
	obj = mine;
	json_t *value = keep && type != KUBE_EVENT_DELETED ? stored(inf, obj) : NULL;
	if (keep && type != KUBE_EVENT_DELETED && !value) {
		sb_warn("Out of memory caching an object", "resource=%s key=%s", inf->res.resource,
			key);
		json_decref(mine);
		return 0;
	}
	pthread_mutex_lock(&inf->lock);
	json_t *old = loaded(inf, json_object_get(inf->cache, key));
	ix_del(inf->ix, inf->ixof, key);
	if (type == KUBE_EVENT_DELETED) {
		json_object_del(inf->cache, key);
		p = (struct pending){KUBE_INFORMER_DELETE, json_incref(obj), NULL};
		json_decref(old);
		old = NULL;
	} else if (!keep) {
		/* left out now: a cached one goes, with its last cached state */
		if (old) {
			json_object_del(inf->cache, key);
			p = (struct pending){KUBE_INFORMER_DELETE, old, NULL};
			old = NULL;
		}
	} else if (json_object_set_new(inf->cache, key, value) == 0) {
		value = NULL;
		if (ix_put(inf, inf->ix, inf->ixof, key, obj))
			sb_warn("Out of memory indexing an object; lists by label will miss it",
				"resource=%s key=%s", inf->res.resource, key);
		p = (struct pending){old ? KUBE_INFORMER_UPDATE : KUBE_INFORMER_ADD,
				     json_incref(obj), old};
		old = NULL;
	} else if (old && ix_put(inf, inf->ix, inf->ixof, key, old)) {
		/* out of memory: the old one stays cached, indexed again if it can be */
		sb_warn("Out of memory indexing an object; lists by label will miss it",
			"resource=%s key=%s", inf->res.resource, key);
	}
	pthread_mutex_unlock(&inf->lock);
	json_decref(old);
	json_decref(value);
	json_decref(mine);
	if (p.obj)
		run_pending(inf, &p, 1);
	return 0;
}

/* Waits ms or until stop. */
static void pause_ms(struct kube_informer *inf, long ms)
{
	struct timespec ts;
	kube_deadline_in(&ts, ms);
	pthread_mutex_lock(&inf->lock);
	while (!atomic_load(&inf->stop))
		if (pthread_cond_timedwait(&inf->cond, &inf->lock, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&inf->lock);
}

static void *informer_main(void *arg)
{
	struct kube_informer *inf = arg;
	struct kube_error err;
	unsigned failures = 0;
	bool need_list = true;
	char buf[800];

	while (!atomic_load(&inf->stop)) {
		if (need_list) {
			int ret = relist(inf, &err);
			if (ret) {
				long d = kube_backoff_ms(failures++, 500, 30000, kube_random());
				sb_warn("Failed to list",
					"resource=%s errno=%d error=\"%s\" delay_ms=%ld",
					inf->res.resource, -ret,
					kube_error_str(&err, buf, sizeof(buf)), d);
				pause_ms(inf, d);
				continue;
			}
			need_list = false;
		}
		pthread_mutex_lock(&inf->lock);
		struct kube_watch_opts wo = {.label_selector = inf->label,
					     .field_selector = inf->field,
					     .resource_version = inf->rv,
					     .bookmarks = true,
					     .idle_timeout_ms = inf->idle_ms};
		struct kube_watch *w =
			kube_watch_new(inf->c, &inf->res, inf->ns, &wo, on_event, inf);
		inf->watch = w;
		bool stop = atomic_load(&inf->stop);
		pthread_mutex_unlock(&inf->lock);
		if (!w) {
			pause_ms(inf, 1000);
			continue;
		}
		int ret = stop ? 0 : kube_watch_run(w, &err);
		pthread_mutex_lock(&inf->lock);
		inf->watch = NULL;
		/* Watch from where the stream got to if it fails for another reason. */
		char rv[256];
		kube_watch_resource_version(w, rv, sizeof(rv));
		char *copy = strdup(rv);
		if (copy) {
			free(inf->rv);
			inf->rv = copy;
		}
		pthread_mutex_unlock(&inf->lock);
		kube_watch_free(w);
		if (ret == 0)
			continue; /* stopped: the loop condition ends it */
		if (ret == -ESTALE) {
			sb_info("Relisting after 410 Gone", "resource=%s", inf->res.resource);
			need_list = true;
			failures = 0;
			continue;
		}
		long d = kube_backoff_ms(failures++, 500, 30000, kube_random());
		sb_warn("Watch failed", "resource=%s errno=%d error=\"%s\" delay_ms=%ld",
			inf->res.resource, -ret, kube_error_str(&err, buf, sizeof(buf)), d);
		pause_ms(inf, d);
		need_list = true;
	}
	return NULL;
}

int kube_informer_start(struct kube_informer *inf)
{
	if (inf->started)
		return -EALREADY;
	atomic_store(&inf->stop, false);
	int r = pthread_create(&inf->thread, NULL, informer_main, inf);
	if (r)
		return -r;
	inf->started = true;
	return 0;
}

void kube_informer_stop(struct kube_informer *inf)
{
	if (!inf || !inf->started)
		return;
	pthread_mutex_lock(&inf->lock);
	atomic_store(&inf->stop, true);
	if (inf->watch)
		kube_watch_stop(inf->watch);
	pthread_cond_broadcast(&inf->cond);
	pthread_mutex_unlock(&inf->lock);
	pthread_join(inf->thread, NULL);
	inf->started = false;
}

bool kube_informer_has_synced(struct kube_informer *inf)
{
	pthread_mutex_lock(&inf->lock);
	bool s = inf->synced;
	pthread_mutex_unlock(&inf->lock);
	return s;
}

int kube_informer_wait_synced(struct kube_informer *inf, long timeout_ms)
{
	struct timespec ts;
	kube_deadline_in(&ts, timeout_ms);
	int ret = 0;
	pthread_mutex_lock(&inf->lock);
	while (!inf->synced && ret == 0)
		ret = pthread_cond_timedwait(&inf->cond, &inf->lock, &ts);
	bool s = inf->synced;
	pthread_mutex_unlock(&inf->lock);
	return s ? 0 : -ETIMEDOUT;
}

json_t *kube_informer_get(struct kube_informer *inf, const char *ns, const char *name)
{
	char key[512];
	int n = snprintf(key, sizeof(key), "%s/%s", ns && inf->res.namespaced ? ns : "",
			 name ? name : "");
	if (n < 0 || (size_t)n >= sizeof(key) || !name)
		return NULL;
	pthread_mutex_lock(&inf->lock);
	json_t *v = json_incref(json_object_get(inf->cache, key));
	pthread_mutex_unlock(&inf->lock);
	json_t *obj = loaded(inf, v); /* parsed outside the lock */
	json_decref(v);
	return obj;
}

/* Replaces each cache value in arr by the object it stands for (compact:
 * parsed). Outside the lock. arr, or NULL (arr released) on ENOMEM. */
static json_t *load_all(const struct kube_informer *inf, json_t *arr)
{
	if (!arr || !inf->compact)
		return arr;
	for (size_t i = 0; i < json_array_size(arr); i++) {
		json_t *o = loaded(inf, json_array_get(arr, i));
		if (!o || json_array_set_new(arr, i, o)) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

json_t *kube_informer_list_by(struct kube_informer *inf, const char *value)
{
	if (!inf->ixlabel || !value) {
		errno = EINVAL;
		return NULL;
	}
	json_t *arr = json_array();
	if (!arr)
		return NULL;
	pthread_mutex_lock(&inf->lock);
	const char *key;
	json_t *one;
	json_object_foreach(json_object_get(inf->ix, value), key, one)
	{
		json_t *v = json_object_get(inf->cache, key);
		if (v && json_array_append(arr, v)) {
			json_decref(arr);
			arr = NULL;
			break;
		}
	}
	pthread_mutex_unlock(&inf->lock);
	return load_all(inf, arr);
}

json_t *kube_informer_list(struct kube_informer *inf)
{
	json_t *arr = json_array();
	if (!arr)
		return NULL;
	pthread_mutex_lock(&inf->lock);
	const char *key;
	json_t *obj;
	json_object_foreach(inf->cache, key, obj)
	{
		if (json_array_append(arr, obj)) {
			json_decref(arr);
			arr = NULL;
			break;
		}
	}
	pthread_mutex_unlock(&inf->lock);
	return load_all(inf, arr); /* compact: parsed outside the lock */
}

int kube_informer_foreach(struct kube_informer *inf, int (*fn)(const json_t *obj, void *arg),
			  void *arg)
{
	/* references to the cache's values, then each parsed (compact) and
	 * visited outside the lock: one parsed object at a time */
	json_t *vals = json_array();
	if (!vals)
		return -ENOMEM;
	pthread_mutex_lock(&inf->lock);
	const char *key;
	json_t *v;
	int ret = 0;
	json_object_foreach(inf->cache, key, v)
	{
		if (json_array_append(vals, v)) {
			ret = -ENOMEM;
			break;
		}
	}
	pthread_mutex_unlock(&inf->lock);
	size_t i;
	json_array_foreach(ret ? NULL : vals, i, v)
	{
		json_t *obj = loaded(inf, v);
		if (!obj) {
			ret = -ENOMEM;
			break;
		}
		ret = fn(obj, arg);
		json_decref(obj);
		if (ret)
			break;
	}
	json_decref(vals);
	return ret;
}

size_t kube_informer_bytes(struct kube_informer *inf)
{
	size_t n = 0;
	const char *key;
	json_t *v;
	if (!inf->compact)
		return 0;
	pthread_mutex_lock(&inf->lock);
	json_object_foreach(inf->cache, key, v)
	{
		n += json_string_length(v);
	}
	pthread_mutex_unlock(&inf->lock);
	return n;
}

size_t kube_informer_count(struct kube_informer *inf)
{
	pthread_mutex_lock(&inf->lock);
	size_t n = json_object_size(inf->cache);
	pthread_mutex_unlock(&inf->lock);
	return n;
}

unsigned long kube_informer_lists(struct kube_informer *inf)
{
	return atomic_load(&inf->lists);
}

unsigned long kube_informer_dropped(struct kube_informer *inf)
{
	return atomic_load(&inf->dropped);
}

const struct kube_resource *kube_informer_resource(const struct kube_informer *inf)
{
	return &inf->res;
}

const char *kube_informer_ns(const struct kube_informer *inf)
{
	return inf->ns;
}

void kube_informer_free(struct kube_informer *inf)
{
	if (!inf)
		return;
	kube_informer_stop(inf);
	pthread_cond_destroy(&inf->cond);
	pthread_mutex_destroy(&inf->lock);
	json_decref(inf->cache);
	json_decref(inf->ix);
	json_decref(inf->ixof);
	free(inf->ixlabel);
	if (inf->zready)
		deflateEnd(&inf->z);
	free(inf->ns);
	free(inf->label);
	free(inf->field);
	free(inf->rv);
	free(inf);
}
