/* SPDX-License-Identifier: MIT */
/*
 * The hub: one curl multi handle per client, driven by one thread, that
 * every watch's transfer joins, so that over HTTP/2 all the watches share
 * one connection (one TLS session, one set of buffers) as separate streams,
 * as client-go does. Over HTTP/1.1 the multi handle opens one connection per
 * transfer. The client starts its hub on first use (kube_client_hub); the
 * hub knows nothing else of the client.
 *
 * The hub thread only moves bytes: its write callback appends them to the
 * transfer's buffer and signals the owner, which decodes them and runs the
 * watch's callback on its own thread (a slow callback delays only its own
 * watch: past KUBE_XFER_MAX buffered bytes that transfer is paused, the
 * others go on). Adding, removing and unpausing a transfer are requests
 * the owner posts (under the hub's lock) and the hub thread carries out, so
 * the multi handle is used by the hub thread alone.
 */
#include "kube/hub.h"
#include "kube/clock.h"
#include "core/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Bytes buffered for a transfer before it is paused. */
#define KUBE_XFER_MAX (256 * 1024)
/* A buffer is allocated at this size and grows for a burst of events; once
 * taken and read, a larger one is freed rather than kept for the next
 * burst (a watch's two buffers would otherwise stay at their largest). */
#define KUBE_XFER_KEEP (16 * 1024)

struct kube_hub {
	pthread_mutex_t lock; /* guards every field below and those of the xfers */
	pthread_t thread;
	CURLM *multi;
	bool quit;
	atomic_bool *h2;	   /* the client's "the last answer came over HTTP/2" */
	struct kube_xfer *pending; /* transfers with a request for the thread */
};

/* Posts x's requests to the thread (lock held). */
static void post(struct kube_hub *h, struct kube_xfer *x)
{
	if (!x->pending) {
		x->pending = true;
		x->next = h->pending;
		h->pending = x;
	}
	(void)curl_multi_wakeup(h->multi);
}

static void finish(struct kube_xfer *x, CURLcode result)
{
	x->done = true;
	x->result = result;
	x->in_multi = false;
	pthread_cond_broadcast(&x->cond);
}

/* Carries out the posted requests (called by the hub thread, lock not held:
 * curl_easy_pause may call the write callback, which takes it). */
static void run_requests(struct kube_hub *h)
{
	/* An owner waits for acked && done && !pending, so x stays valid
	 * until acked is set below; x may be posted again meanwhile. */
	for (;;) {
		pthread_mutex_lock(&h->lock);
		struct kube_xfer *x = h->pending;
		if (!x) {
			pthread_mutex_unlock(&h->lock);
			break;
		}
		h->pending = x->next;
		x->pending = false;
		bool add = x->want_add, remove = x->want_remove, cont = x->want_cont;
		x->want_add = x->want_cont = false;
		pthread_mutex_unlock(&h->lock);
		CURLMcode mc = CURLM_OK;
		if (add && !remove)
			mc = curl_multi_add_handle(h->multi, x->easy);
		if (cont && !remove && !add)
			(void)curl_easy_pause(x->easy, CURLPAUSE_CONT);
		/* in_multi is only changed by this thread: read without the lock */
		if (remove && !add && x->in_multi)
			(void)curl_multi_remove_handle(h->multi, x->easy);
		pthread_mutex_lock(&h->lock);
		if (add && !remove && mc == CURLM_OK)
			x->in_multi = true;
		else if (add)
			finish(x, remove ? CURLE_OK : CURLE_FAILED_INIT);
		else if (remove && !x->done)
			finish(x, CURLE_OK); /* stopped by the owner */
		x->acked = true;
		pthread_cond_broadcast(&x->cond);
		pthread_mutex_unlock(&h->lock);
	}
}

/* Ended transfers: out of the multi handle, their owners told. */
static void reap(struct kube_hub *h)
{
	CURLMsg *m;
	int left;
	while ((m = curl_multi_info_read(h->multi, &left))) {
		if (m->msg != CURLMSG_DONE)
			continue;
		CURL *e = m->easy_handle;
		CURLcode result = m->data.result;
		struct kube_xfer *x = NULL;
		(void)curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&x);
		(void)curl_multi_remove_handle(h->multi, e);
		if (!x)
			continue;
		pthread_mutex_lock(&h->lock);
		finish(x, result);
		pthread_mutex_unlock(&h->lock);
	}
}

static void *hub_main(void *arg)
{
	struct kube_hub *h = arg;
	for (;;) {
		run_requests(h);
		int running = 0;
		(void)curl_multi_perform(h->multi, &running);
		reap(h);
		pthread_mutex_lock(&h->lock);
		bool quit = h->quit, more = h->pending != NULL;
		pthread_mutex_unlock(&h->lock);
		if (quit)
			break;
		if (!more)
			(void)curl_multi_poll(h->multi, NULL, 0, 1000, NULL);
	}
	return NULL;
}

struct kube_hub *kube_hub_new(atomic_bool *h2)
{
	struct kube_hub *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->h2 = h2;
	if (pthread_mutex_init(&h->lock, NULL)) {
		free(h);
		return NULL;
	}
	h->multi = curl_multi_init();
	if (!h->multi ||
	    curl_multi_setopt(h->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX) !=
		    CURLM_OK ||
	    pthread_create(&h->thread, NULL, hub_main, h)) {
		curl_multi_cleanup(h->multi);
		pthread_mutex_destroy(&h->lock);
		free(h);
		return NULL;
	}
	return h;
}

void kube_hub_free(struct kube_hub *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	h->quit = true;
	(void)curl_multi_wakeup(h->multi);
	pthread_mutex_unlock(&h->lock);
	(void)pthread_join(h->thread, NULL);
	(void)curl_multi_cleanup(h->multi);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

/* The hub thread's write callback: the bytes go to the owner. */
static size_t on_bytes(char *p, size_t size, size_t nmemb, void *arg)
{
	struct kube_xfer *x = arg;
	struct kube_hub *h = x->hub;
	size_t n = size * nmemb, ret = n;

	pthread_mutex_lock(&h->lock);
	if (!x->code) {
		long v = 0;
		if (curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->code) != CURLE_OK)
			x->code = 0;
		if (curl_easy_getinfo(x->easy, CURLINFO_HTTP_VERSION, &v) == CURLE_OK && v)
			atomic_store(h->h2, v == CURL_HTTP_VERSION_2_0);
	}
	if (x->len >= KUBE_XFER_MAX) {
		x->paused = true; /* the owner asks for more once it has caught up */
		ret = CURL_WRITEFUNC_PAUSE;
	} else if (x->len + n > x->cap) {
		size_t cap = x->cap ? x->cap : KUBE_XFER_KEEP;
		while (cap < x->len + n)
			cap *= 2;
		char *nb = realloc(x->buf, cap);
		if (nb) {
			x->buf = nb;
			x->cap = cap;
		} else {
			x->nomem = true;
			ret = 0; /* ends the transfer with a write error */
		}
	}
	if (ret == n) {
		memcpy(x->buf + x->len, p, n);
		x->len += n;
	}
	pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&h->lock);
	return ret;
}

int kube_xfer_init(struct kube_xfer *x, struct kube_hub *h, CURL *easy)
{
	memset(x, 0, sizeof(*x));
	x->easy = easy;
	x->done = true;
	x->acked = true;
	x->hub = h;
	if (!x->hub || pthread_cond_init(&x->cond, NULL))
		return -ENOMEM;
	x->cond_ok = true;
	return 0;
}

void kube_xfer_release(struct kube_xfer *x)
{
	if (x->cond_ok)
		pthread_cond_destroy(&x->cond);
	free(x->buf);
	free(x->spare);
}

int kube_xfer_start(struct kube_xfer *x)
{
	struct kube_hub *h = x->hub;
	bool h2 = atomic_load(h->h2);
	/* Once the server answered over HTTP/2 (a watch or a request: an
	 * informer lists before it watches), a transfer waits for a
	 * connection being set up (it will multiplex) rather than open
	 * another; over HTTP/1.1 waiting would hold it until another ends. */
	if (curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, on_bytes) != CURLE_OK ||
	    curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, x) != CURLE_OK ||
	    curl_easy_setopt(x->easy, CURLOPT_PRIVATE, x) != CURLE_OK ||
	    curl_easy_setopt(x->easy, CURLOPT_PIPEWAIT, h2 ? 1L : 0L) != CURLE_OK)
		return -ENOMEM;
	pthread_mutex_lock(&h->lock);
	x->len = 0;
	x->code = 0;
	x->done = x->paused = x->nomem = x->kicked = false;
	x->result = CURLE_OK;
	x->want_add = true;
	x->want_remove = x->want_cont = false;
	x->acked = false;
	post(h, x);
	pthread_mutex_unlock(&h->lock);
	return 0;
}

/* Takes the buffered bytes (lock held): they move to *data, the spare
 * buffer takes their place; a paused transfer is resumed. */
static void take(struct kube_xfer *x, char **data, size_t *len)
{
	char *b = x->buf;
	size_t cap = x->cap;
	*data = b;
	*len = x->len;
	x->buf = x->spare;
	x->cap = x->spare_cap;
	x->len = 0;
	x->spare = b;
	x->spare_cap = cap;
	if (x->paused) {
		x->paused = false;
		x->want_cont = true;
		post(x->hub, x);
	}
}

size_t kube_xfer_buffer_bytes(struct kube_xfer *x)
{
	pthread_mutex_lock(&x->hub->lock);
	size_t n = x->cap + x->spare_cap;
	pthread_mutex_unlock(&x->hub->lock);
	return n;
}

int kube_xfer_wait(struct kube_xfer *x, const atomic_bool *stop, long timeout_ms, char **data,
		   size_t *len, long *code)
{
	struct kube_hub *h = x->hub;
	struct timespec ts;

	*data = NULL;
	*len = 0;
	kube_deadline_in(&ts, timeout_ms);
	pthread_mutex_lock(&h->lock);
	if (x->spare_cap > KUBE_XFER_KEEP) {
		/* the bytes last taken were read (this is the next call): a
		 * burst's large buffer goes back */
		free(x->spare);
		x->spare = NULL;
		x->spare_cap = 0;
	}
	int r = 0;
	while (!x->len && !x->done && !x->kicked && !(stop && atomic_load(stop)) && r == 0)
		r = pthread_cond_timedwait(&x->cond, &h->lock, &ts);
	x->kicked = false;
	*code = x->code;
	int ret = 0;
	if (x->len)
		take(x, data, len);
	else if (x->done)
		ret = 1;
	pthread_mutex_unlock(&h->lock);
	return ret;
}

void kube_xfer_sleep(struct kube_xfer *x, const atomic_bool *stop, long ms)
{
	struct kube_hub *h = x->hub;
	struct timespec ts;
	int r = 0;

	kube_deadline_in(&ts, ms);
	pthread_mutex_lock(&h->lock);
	while (!x->kicked && !atomic_load(stop) && r == 0)
		r = pthread_cond_timedwait(&x->cond, &h->lock, &ts);
	x->kicked = false;
	pthread_mutex_unlock(&h->lock);
}

void kube_xfer_kick(struct kube_xfer *x)
{
	struct kube_hub *h = x->hub;
	pthread_mutex_lock(&h->lock);
	x->kicked = true;
	pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&h->lock);
}

CURLcode kube_xfer_end(struct kube_xfer *x, long *code)
{
	struct kube_hub *h = x->hub;
	pthread_mutex_lock(&h->lock);
	if (!x->done) {
		x->want_remove = true;
		post(h, x);
	}
	while (!x->done || !x->acked || x->pending)
		pthread_cond_wait(&x->cond, &h->lock);
	x->want_remove = false;
	CURLcode cc = x->nomem ? CURLE_OUT_OF_MEMORY : x->result;
	*code = x->code;
	pthread_mutex_unlock(&h->lock);
	/* Out of the multi handle: the owner may use the handle again. */
	if (!*code && curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, code) != CURLE_OK)
		*code = 0;
	/* An idle watch keeps no buffers. */
	free(x->spare);
	x->spare = NULL;
	x->spare_cap = 0;
	if (x->cap > 65536) {
		free(x->buf);
		x->buf = NULL;
		x->cap = 0;
	}
	return cc;
}
