/* SPDX-License-Identifier: MIT */
/*
 * Watch: a streaming GET (?watch=1) decoded line by line as chunks arrive,
 * resumed from the last resourceVersion after a dropped connection, a
 * server-side timeout or an idle period. The transfer runs on the client's
 * hub (hub.c), shared by all watches (one HTTP/2 connection); the bytes are
 * decoded and the callback run on the thread that called kube_watch_run,
 * which kube_watch_stop() wakes at once.
 */
#include "kube/watch.h"
#include "kube/client_internal.h"
#include "kube/error_internal.h"
#include "kube/hub.h"
#include "kube/lines.h"
#include "kube/url.h"
#include "kube/backoff.h"
#include "kube/util.h"
#include "kube/clock.h"
#include "core/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERRBODY_MAX 65536

/* ---------------------------------------------------------------- events */

static const char *const event_names[] = {"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"};

const char *kube_event_type_name(enum kube_event_type t)
{
	if ((unsigned)t >= sizeof(event_names) / sizeof(event_names[0]))
		return NULL;
	return event_names[t];
}

int kube_watch_parse_event(const char *line, size_t len, enum kube_event_type *type,
			   json_t **object)
{
	*object = NULL;
	json_t *ev = json_loadb(line, len, 0, NULL);
	if (!ev)
		return -EPROTO;
	const char *t = json_string_value(json_object_get(ev, "type"));
	json_t *obj = json_object_get(ev, "object");
	int ret = -EPROTO;
	if (t && json_is_object(obj)) {
		for (size_t i = 0; i < sizeof(event_names) / sizeof(event_names[0]); i++) {
			if (strcmp(t, event_names[i]) == 0) {
				*type = (enum kube_event_type)i;
				*object = json_incref(obj);
				ret = 0;
				break;
			}
		}
	}
	json_decref(ev);
	return ret;
}

struct kube_watch {
	struct kube_client *c;
	struct kube_resource res; /* strings below */
	char *group, *version, *resource, *ns, *label, *field;
	bool bookmarks;
	long idle_ms, server_timeout_s;
	int max_failures;
	kube_watch_cb cb;
	void *arg;

	CURL *easy;
	struct kube_xfer x; /* easy's transfers on the hub */
	char errbuf[CURL_ERROR_SIZE];
	atomic_bool stop;
	atomic_ulong connects;
	pthread_mutex_t lock; /* guards rv */
	char *rv;

	/* State of the current connection. */
	struct kube_line_decoder dec;
	char *errbody;
	size_t errlen;
	long code;
	int cb_ret;    /* non-zero returned by the callback */
	bool stale;    /* 410 seen */
	json_t *error; /* an ERROR event's Status (not 410) */
	unsigned long events;
	int64_t last_event_ms;
	int line_err;	/* -EPROTO, -E2BIG, -ENOMEM from decoding */
	bool clean_end; /* 200, ended without a transport error, or idle */
};

static int dup_opt(char **dst, const char *s)
{
	*dst = NULL;
	if (!s)
		return 0;
	*dst = strdup(s);
	return *dst ? 0 : -ENOMEM;
}

struct kube_watch *kube_watch_new(struct kube_client *c, const struct kube_resource *r,
				  const char *ns, const struct kube_watch_opts *opts,
				  kube_watch_cb cb, void *arg)
{
	static const struct kube_watch_opts none = {0};
	struct kube_watch *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	if (!opts)
		opts = &none;
	w->c = c;
	w->cb = cb;
	w->arg = arg;
	w->bookmarks = opts->bookmarks;
	w->idle_ms = opts->idle_timeout_ms;
	w->server_timeout_s = opts->server_timeout_s;
	w->max_failures = opts->max_failures > 0 ? opts->max_failures : 10;
	w->res.namespaced = r->namespaced;
	kube_line_decoder_init(&w->dec, 0);
	if (pthread_mutex_init(&w->lock, NULL)) {
		free(w);
		return NULL;
	}
	if (dup_opt(&w->group, r->group ? r->group : "") || dup_opt(&w->version, r->version) ||
	    dup_opt(&w->resource, r->resource) || dup_opt(&w->ns, r->namespaced ? ns : NULL) ||
	    dup_opt(&w->label, opts->label_selector) || dup_opt(&w->field, opts->field_selector) ||
	    dup_opt(&w->rv, opts->resource_version))
		goto fail;
	w->res.group = w->group;
	w->res.version = w->version;
	w->res.resource = w->resource;
	w->easy = curl_easy_init();
	if (!w->easy || kube_xfer_init(&w->x, kube_client_hub(c), w->easy))
		goto fail;
	return w;
fail:
	kube_watch_free(w);
	return NULL;
}

void kube_watch_free(struct kube_watch *w)
{
	if (!w)
		return;
	kube_xfer_release(&w->x);
	curl_easy_cleanup(w->easy);
	kube_line_decoder_release(&w->dec);
	pthread_mutex_destroy(&w->lock);
	free(w->group);
	free(w->version);
	free(w->resource);
	free(w->ns);
	free(w->label);
	free(w->field);
	free(w->rv);
	free(w->errbody);
	json_decref(w->error);
	free(w);
}

void kube_watch_stop(struct kube_watch *w)
{
	atomic_store(&w->stop, true);
	kube_xfer_kick(&w->x);
	kube_clock_wake();
}

const char *kube_watch_resource_version(struct kube_watch *w, char *buf, size_t size)
{
	pthread_mutex_lock(&w->lock);
	(void)snprintf(buf, size, "%s", w->rv ? w->rv : "");
	pthread_mutex_unlock(&w->lock);
	return buf;
}

size_t kube_watch_buffer_bytes(struct kube_watch *w)
{
	return kube_xfer_buffer_bytes(&w->x);
}

unsigned long kube_watch_connects(struct kube_watch *w)
{
	return atomic_load(&w->connects);
}

static void set_rv(struct kube_watch *w, const char *rv)
{
	if (!rv || !*rv)
		return;
	char *copy = strdup(rv);
	if (!copy)
		return; /* keep the older one: a resume repeats a few events at worst */
	pthread_mutex_lock(&w->lock);
	free(w->rv);
	w->rv = copy;
	pthread_mutex_unlock(&w->lock);
}

/* One decoded line: an event. Returns non-zero to abort the transfer. */
static int on_line(char *line, size_t len, void *arg)
{
	struct kube_watch *w = arg;
	enum kube_event_type type;
	json_t *obj;

	if (kube_watch_parse_event(line, len, &type, &obj)) {
		w->line_err = -EPROTO;
		return 1;
	}
	w->last_event_ms = kube_now_ms();
	if (type == KUBE_EVENT_ERROR) {
		json_int_t code = json_integer_value(json_object_get(obj, "code"));
		if (code == 410) {
			w->stale = true;
			json_decref(obj);
		} else {
			json_decref(w->error);
			w->error = obj;
		}
		return 1;
	}
	w->events++;
	set_rv(w, json_string_value(
			  json_object_get(json_object_get(obj, "metadata"), "resourceVersion")));
	int r = w->cb ? w->cb(type, obj, w->arg) : 0;
	json_decref(obj);
	if (r) {
		w->cb_ret = r;
		return 1;
	}
	return atomic_load(&w->stop) ? 1 : 0;
}

/* Bytes of the answer (status code w->code). Non-zero aborts the transfer. */
static int on_data(struct kube_watch *w, const char *p, size_t n)
{
	if (w->code != 200) {
		/* An error answer: keep (the start of) the Status body. */
		size_t take = w->errlen + n > ERRBODY_MAX ? ERRBODY_MAX - w->errlen : n;
		if (take) {
			char *nb = realloc(w->errbody, w->errlen + take + 1);
			if (!nb)
				return 1;
			memcpy(nb + w->errlen, p, take);
			w->errbody = nb;
			w->errlen += take;
			nb[w->errlen] = '\0';
		}
		return 0;
	}
	int r = kube_line_decoder_feed(&w->dec, p, n, on_line, w);
	if (r < 0)
		w->line_err = r;
	return r;
}

#define SETOPT(h, opt, val)                                          \
	do {                                                         \
		if (curl_easy_setopt((h), (opt), (val)) != CURLE_OK) \
			goto setopt_fail;                            \
	} while (0)

/* Waits ms or until stopped. */
static void wait_ms(struct kube_watch *w, long ms)
{
	int64_t end = kube_now_ms() + ms;
	const struct kube_clock *clk = kube_clock_get();
	while (clk && !atomic_load(&w->stop) && clk->now_ms(clk->arg) < end)
		clk->wait_until(clk->arg, end);
	while (!clk && !atomic_load(&w->stop)) {
		int64_t left = end - kube_now_ms();
		if (left <= 0)
			break;
		kube_xfer_sleep(&w->x, &w->stop, left > 1000 ? 1000 : (long)left);
	}
}

enum outcome { OUT_STOP, OUT_CB, OUT_STALE, OUT_RETRY, OUT_FAIL };

/* Forgets what the previous connection saw. */
static void reset_connection(struct kube_watch *w)
{
	kube_line_decoder_reset(&w->dec);
	w->errlen = 0;
	w->code = 0;
	w->stale = false;
	w->line_err = 0;
	w->events = 0;
	w->clean_end = false;
	json_decref(w->error);
	w->error = NULL;
	w->last_event_ms = kube_now_ms();
}

/*
 * Streams the connection until it ends, the watch is stopped or it stays
 * idle (*idle); the transfer's result.
 */
static CURLcode stream(struct kube_watch *w, bool *idle)
{
	bool aborted = false;
	for (;;) {
		/* at most until the idle deadline (on the real clock: an installed
		 * one moves on its own, a second of waiting at most notices it) */
		int64_t wait = 1000;
		if (w->idle_ms > 0 && !kube_clock_get()) {
			int64_t to_idle = w->last_event_ms + w->idle_ms - kube_now_ms();
			wait = to_idle < 1 ? 1 : (to_idle < 1000 ? to_idle : 1000);
		}
		char *data;
		size_t len;
		long code;
		int ended = kube_xfer_wait(&w->x, &w->stop, (long)wait, &data, &len, &code);
		if (len) {
			w->code = code;
			if (on_data(w, data, len)) {
				aborted = true;
				break;
			}
		}
		if (ended || atomic_load(&w->stop))
			break;
		if (w->idle_ms > 0 && kube_now_ms() - w->last_event_ms >= w->idle_ms) {
			*idle = true;
			break;
		}
	}
	long code = 0;
	CURLcode cc = kube_xfer_end(&w->x, &code);
	if (!w->code)
		w->code = code;
	/* stopped here: as when a write callback refuses the bytes */
	return aborted && cc == CURLE_OK ? CURLE_WRITE_ERROR : cc;
}

/*
 * What an ended connection (from rv, started at started ms, transfer
 * result cc) means for the watch; *ret and err say why.
 */
static enum outcome connection_outcome(struct kube_watch *w, const char *rv, CURLcode cc, bool idle,
				       int64_t started, int *ret, struct kube_error *err)
{
	*ret = 0;
	if (atomic_load(&w->stop))
		return OUT_STOP;
	if (w->cb_ret) {
		*ret = w->cb_ret;
		return OUT_CB;
	}
	if (w->stale || w->code == 410) {
		*ret = kube_errorf(err, -ESTALE,
				   "watch %s: resourceVersion %s is too old (410 "
				   "Gone): list again",
				   w->resource, rv[0] ? rv : "(none)");
		if (err)
			err->http_code = 410;
		return OUT_STALE;
	}
	if (w->code && w->code != 200) {
		*ret = kube_error_from_status(err, w->code, w->errbody, w->errlen);
		return OUT_RETRY; /* the caller decides by code */
	}
	if (w->line_err && w->line_err != -EPROTO) {
		*ret = kube_errorf(err, w->line_err, "watch %s: cannot decode the stream: %s",
				   w->resource, strerror(-w->line_err));
		return OUT_FAIL;
	}
	if (w->error) {
		char *s = json_dumps(w->error, JSON_COMPACT);
		*ret = kube_error_from_status(
			err, (long)json_integer_value(json_object_get(w->error, "code")), s,
			s ? strlen(s) : 0);
		free(s);
		return OUT_RETRY;
	}
	/* Dropped, ended by the server, idle, or a garbled line: resume. */
	/* A clean end that came at once counts as a failure (no busy loop). */
	w->clean_end = idle || (cc == CURLE_OK && w->code == 200 && !w->line_err &&
				kube_now_ms() - started >= 1000);
	if (cc != CURLE_OK && cc != CURLE_WRITE_ERROR)
		kube_error_set_curl(err, cc, w->errbuf);
	*ret = -EIO;
	sb_debug("Ended watch connection", "resource=%s curl=%d idle=%d events=%lu", w->resource,
		 (int)cc, idle, w->events);
	return OUT_RETRY;
}

/* One connection: connect, stream until it ends, say what happened. */
static enum outcome connect_once(struct kube_watch *w, bool force_token, int *ret,
				 struct kube_error *err)
{
	char *url = NULL, *token = NULL, tos[32];
	struct curl_slist *headers = NULL;
	char rv[256];
	bool idle = false;
	enum outcome o = OUT_FAIL;

	kube_watch_resource_version(w, rv, sizeof(rv));
	(void)snprintf(tos, sizeof(tos), "%ld", w->server_timeout_s);
	struct kube_query q[] = {
		{"watch", "1"},
		{"allowWatchBookmarks", w->bookmarks ? "true" : NULL},
		{"resourceVersion", rv[0] ? rv : NULL},
		{"labelSelector", w->label},
		{"fieldSelector", w->field},
		{"timeoutSeconds", w->server_timeout_s > 0 ? tos : NULL},
	};
	*ret = kube_url_build(w->c->cfg.server, &w->res, w->ns, NULL, NULL, q,
			      sizeof(q) / sizeof(q[0]), &url);
	if (*ret) {
		kube_errorf(err, *ret, "watch %s: cannot build the URL", w->resource);
		return OUT_FAIL;
	}
	*ret = kube_client_token(w->c, force_token, &token, err);
	if (*ret)
		goto out; /* err says why: the token file, the exec plugin */
	curl_easy_reset(w->easy);
	w->errbuf[0] = '\0';
	*ret = kube_client_setup_handle(w->c, w->easy, w->errbuf, token, NULL, &headers);
	if (*ret)
		goto setopt_fail;
	SETOPT(w->easy, CURLOPT_URL, url);
	SETOPT(w->easy, CURLOPT_HTTPGET, 1L);
	/* No CURLOPT_TIMEOUT: a watch lasts; idleness is checked below. */

	reset_connection(w);
	int64_t started = w->last_event_ms;
	if (kube_xfer_start(&w->x))
		goto setopt_fail;
	atomic_fetch_add(&w->connects, 1);
	atomic_fetch_add(&w->c->n_requests, 1);
	atomic_fetch_add(&w->c->n_verb[KUBE_VERB_WATCH], 1);
	sb_debug("Started watch", "url=%s", url);

	CURLcode cc = stream(w, &idle);
	o = connection_outcome(w, rv, cc, idle, started, ret, err);
	goto out;

setopt_fail:
	*ret = kube_errorf(err, -ENOMEM, "watch %s: cannot set up the request", w->resource);
	o = OUT_FAIL;
out:
	curl_slist_free_all(headers);
	kube_free_secret(token);
	free(url);
	return o;
}

int kube_watch_run(struct kube_watch *w, struct kube_error *err)
{
	struct kube_error local;
	int failures = 0, ret = 0;
	bool force_token = false, reauthed = false;

	if (!err)
		err = &local;
	kube_error_clear(err);
	w->cb_ret = 0;
	while (!atomic_load(&w->stop)) {
		kube_error_clear(err);
		enum outcome o = connect_once(w, force_token, &ret, err);
		force_token = false;
		if (o == OUT_STOP) {
			ret = 0;
			break;
		}
		if (o == OUT_CB || o == OUT_STALE || o == OUT_FAIL)
			break;
		/* OUT_RETRY: decide from the answer. */
		long code = err->http_code;
		if (w->code == 401 && kube_client_token_renewable(w->c) && !reauthed) {
			reauthed = true;
			force_token = true;
			atomic_fetch_add(&w->c->n_reauths, 1);
			continue;
		}
		if (w->code && w->code != 200 && w->code != 429 && w->code < 500)
			break; /* 403, 404, 400...: not going to change */
		if (w->error && code != 429 && code < 500 && code != 0)
			break; /* ERROR event with a definite answer */
		if (w->events > 0 || w->clean_end) {
			failures = 0; /* it worked for a while: resume at once */
			reauthed = false;
			continue;
		}
		if (++failures > w->max_failures) {
			if (ret == -EIO && !err->message[0])
				kube_errorf(err, -EIO, "watch %s: %d connections failed in a row",
					    w->resource, failures);
			break;
		}
		long delay = kube_backoff_ms((unsigned)(failures - 1), w->c->opts.backoff_base_ms,
					     w->c->opts.backoff_cap_ms, kube_random());
		sb_warn("Resuming watch", "resource=%s code=%ld failures=%d delay_ms=%ld",
			w->resource, w->code, failures, delay);
		wait_ms(w, delay);
		ret = 0;
	}
	if (atomic_load(&w->stop) && w->cb_ret == 0 && ret != -ESTALE) {
		ret = 0;
		kube_error_clear(err);
	}
	atomic_store(&w->stop, false);
	return ret;
}
