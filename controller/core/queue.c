/* SPDX-License-Identifier: MIT */
#include "controller/core/queue.h"
#include "core/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct item {
	char *key;
	uint64_t due_ms; /* the queue's clock */
	bool queued;	 /* waiting to be handed out */
	bool busy;	 /* handed out, not done */
	bool again;	 /* added while busy */
	uint64_t again_ms;
	enum br_queue_lane lane, again_lane;
	unsigned failures; /* since forgotten: the backoff's exponent */
};

struct br_queue {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct item *items;
	size_t n, cap;
	bool shutdown;
	bool fake_clock; /* waits do not time out: br_queue_wake */
	struct br_queue_clock clock;
	long base_ms, max_ms;
	size_t waiters;
	unsigned high_run; /* high keys handed out in a row while a low one was due */
};

static uint64_t mono_ms(void *arg)
{
	struct timespec ts;
	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t now_ms(const struct br_queue *q)
{
	return q->clock.now_ms(q->clock.arg);
}

struct br_queue *br_queue_new_clock(const struct br_queue_clock *clock)
{
	struct br_queue *q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, &ca);
	pthread_condattr_destroy(&ca);
	q->fake_clock = clock != NULL;
	q->clock = clock ? *clock : (struct br_queue_clock){mono_ms, NULL};
	q->base_ms = BR_QUEUE_BACKOFF_BASE_MS;
	q->max_ms = BR_QUEUE_BACKOFF_MAX_MS;
	return q;
}

struct br_queue *br_queue_new(void)
{
	return br_queue_new_clock(NULL);
}

void br_queue_free(struct br_queue *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->n; i++)
		free(q->items[i].key);
	free(q->items);
	pthread_cond_destroy(&q->cv);
	pthread_mutex_destroy(&q->mu);
	free(q);
}

void br_queue_set_backoff(struct br_queue *q, long base_ms, long max_ms)
{
	pthread_mutex_lock(&q->mu);
	q->base_ms = base_ms > 0 ? base_ms : 1;
	q->max_ms = max_ms > q->base_ms ? max_ms : q->base_ms;
	pthread_mutex_unlock(&q->mu);
}

static struct item *find(struct br_queue *q, const char *key)
{
	for (size_t i = 0; i < q->n; i++)
		if (!strcmp(q->items[i].key, key))
			return &q->items[i];
	return NULL;
}

/* Drops it when nothing is left of it: not queued, not busy, no failures. */
static void maybe_drop(struct br_queue *q, struct item *it)
{
	if (it->queued || it->busy || it->failures)
		return;
	free(it->key);
	*it = q->items[--q->n];
}

/* key's item, made when missing (NULL on ENOMEM). Under mu. */
static struct item *get_item(struct br_queue *q, const char *key)
{
	struct item *it = find(q, key);
	if (it)
		return it;
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 16;
		struct item *n = realloc(q->items, cap * sizeof(*n));
		if (!n)
			return NULL;
		q->items = n;
		q->cap = cap;
	}
	it = &q->items[q->n];
	memset(it, 0, sizeof(*it));
	if (!(it->key = strdup(key)))
		return NULL;
	q->n++;
	return it;
}

static enum br_queue_lane higher(enum br_queue_lane a, enum br_queue_lane b)
{
	return a == BR_QUEUE_HIGH || b == BR_QUEUE_HIGH ? BR_QUEUE_HIGH : BR_QUEUE_LOW;
}

/* Queues it for due in lane (an earlier pending time, a higher lane win). Under mu. */
static void schedule(struct br_queue *q, struct item *it, uint64_t due, enum br_queue_lane lane)
{
	if (it->busy) {
		if (!it->again || due < it->again_ms)
			it->again_ms = due;
		it->again_lane = it->again ? higher(it->again_lane, lane) : lane;
		it->again = true;
	} else {
		if (!it->queued || due < it->due_ms)
			it->due_ms = due;
		it->lane = it->queued ? higher(it->lane, lane) : lane;
		it->queued = true;
	}
	pthread_cond_broadcast(&q->cv);
}

int br_queue_add_lane(struct br_queue *q, const char *key, enum br_queue_lane lane, long delay_ms)
{
	pthread_mutex_lock(&q->mu);
	uint64_t due = now_ms(q) + (uint64_t)(delay_ms > 0 ? delay_ms : 0);
	struct item *it = get_item(q, key);
	if (it)
		schedule(q, it, due, lane);
	pthread_mutex_unlock(&q->mu);
	return it ? 0 : -ENOMEM;
}

int br_queue_add_after(struct br_queue *q, const char *key, long delay_ms)
{
	return br_queue_add_lane(q, key, BR_QUEUE_HIGH, delay_ms);
}

int br_queue_add(struct br_queue *q, const char *key)
{
	return br_queue_add_lane(q, key, BR_QUEUE_HIGH, 0);
}

int br_queue_add_rate_limited(struct br_queue *q, const char *key, long *delay_ms)
{
	return br_queue_add_rate_limited_lane(q, key, BR_QUEUE_HIGH, delay_ms);
}

int br_queue_add_rate_limited_lane(struct br_queue *q, const char *key, enum br_queue_lane lane,
				   long *delay_ms)
{
	pthread_mutex_lock(&q->mu);
	struct item *it = get_item(q, key);
	long delay = q->max_ms;
	if (it) {
		/* base << failures, without overflowing */
		if (it->failures < 31 && q->base_ms <= (q->max_ms >> it->failures))
			delay = q->base_ms << it->failures;
		it->failures++;
		schedule(q, it, now_ms(q) + (uint64_t)delay, lane);
	}
	pthread_mutex_unlock(&q->mu);
	if (delay_ms)
		*delay_ms = delay;
	return it ? 0 : -ENOMEM;
}

void br_queue_forget(struct br_queue *q, const char *key)
{
	pthread_mutex_lock(&q->mu);
	struct item *it = find(q, key);
	if (it) {
		it->failures = 0;
		maybe_drop(q, it);
	}
	pthread_mutex_unlock(&q->mu);
}

unsigned br_queue_failures(struct br_queue *q, const char *key)
{
	pthread_mutex_lock(&q->mu);
	struct item *it = find(q, key);
	unsigned f = it ? it->failures : 0;
	pthread_mutex_unlock(&q->mu);
	return f;
}

/*
 * The due key to hand out (NULL: none), and when the next one is due: the
 * high lane's first due, unless a low one is due and BR_QUEUE_LOW_EVERY - 1
 * high ones went before it in a row. Under mu.
 */
static struct item *pick(struct br_queue *q, uint64_t *next)
{
	uint64_t now = now_ms(q);
	struct item *best[2] = {NULL, NULL};
	*next = UINT64_MAX;
	for (size_t i = 0; i < q->n; i++) {
		struct item *it = &q->items[i];
		struct item **b = &best[it->lane];
		if (!it->queued || it->busy)
			continue;
		if (it->due_ms <= now && (!*b || it->due_ms < (*b)->due_ms))
			*b = it;
		else if (it->due_ms > now && it->due_ms < *next)
			*next = it->due_ms;
	}
	if (!best[BR_QUEUE_LOW])
		q->high_run = 0;
	if (best[BR_QUEUE_HIGH] && (!best[BR_QUEUE_LOW] || q->high_run + 1 < BR_QUEUE_LOW_EVERY)) {
		q->high_run += best[BR_QUEUE_LOW] != NULL;
		return best[BR_QUEUE_HIGH];
	}
	q->high_run = 0;
	return best[BR_QUEUE_LOW];
}

static int take(struct item *it, char *key, size_t len, enum br_queue_lane *lane)
{
	it->queued = false;
	it->busy = true;
	snprintf(key, len, "%s", it->key);
	if (lane)
		*lane = it->lane;
	return 0;
}

int br_queue_try_get_lane(struct br_queue *q, char *key, size_t len, enum br_queue_lane *lane)
{
	uint64_t next;
	pthread_mutex_lock(&q->mu);
	struct item *it = q->shutdown ? NULL : pick(q, &next);
	int r = q->shutdown ? -ESHUTDOWN : it ? take(it, key, len, lane) : -EAGAIN;
	pthread_mutex_unlock(&q->mu);
	return r;
}

int br_queue_try_get(struct br_queue *q, char *key, size_t len)
{
	return br_queue_try_get_lane(q, key, len, NULL);
}

int br_queue_get(struct br_queue *q, char *key, size_t len)
{
	return br_queue_get_lane(q, key, len, NULL);
}

int br_queue_get_lane(struct br_queue *q, char *key, size_t len, enum br_queue_lane *lane)
{
	pthread_mutex_lock(&q->mu);
	for (;;) {
		if (q->shutdown) {
			pthread_mutex_unlock(&q->mu);
			return -ESHUTDOWN;
		}
		uint64_t next;
		struct item *it = pick(q, &next);
		if (it) {
			take(it, key, len, lane);
			pthread_mutex_unlock(&q->mu);
			return 0;
		}
		q->waiters++;
		if (next == UINT64_MAX || q->fake_clock) {
			pthread_cond_wait(&q->cv, &q->mu);
		} else {
			struct timespec ts = {.tv_sec = (time_t)(next / 1000),
					      .tv_nsec = (long)(next % 1000) * 1000000};
			pthread_cond_timedwait(&q->cv, &q->mu, &ts);
		}
		q->waiters--;
	}
}

void br_queue_done(struct br_queue *q, const char *key)
{
	pthread_mutex_lock(&q->mu);
	struct item *it = find(q, key);
	if (it) {
		it->busy = false;
		if (it->again) {
			it->again = false;
			if (!it->queued || it->again_ms < it->due_ms)
				it->due_ms = it->again_ms;
			it->lane = it->queued ? higher(it->lane, it->again_lane) : it->again_lane;
			it->queued = true;
		}
		maybe_drop(q, it); /* keeps the list to the keys in play */
		pthread_cond_broadcast(&q->cv);
	}
	pthread_mutex_unlock(&q->mu);
}

void br_queue_wake(struct br_queue *q)
{
	pthread_mutex_lock(&q->mu);
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

void br_queue_shutdown(struct br_queue *q)
{
	pthread_mutex_lock(&q->mu);
	q->shutdown = true;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

size_t br_queue_len(struct br_queue *q)
{
	size_t n = 0;
	pthread_mutex_lock(&q->mu);
	for (size_t i = 0; i < q->n; i++)
		n += q->items[i].queued;
	pthread_mutex_unlock(&q->mu);
	return n;
}

size_t br_queue_due(struct br_queue *q)
{
	size_t n = 0;
	pthread_mutex_lock(&q->mu);
	uint64_t now = now_ms(q);
	for (size_t i = 0; i < q->n; i++)
		n += q->items[i].queued && !q->items[i].busy && q->items[i].due_ms <= now;
	pthread_mutex_unlock(&q->mu);
	return n;
}

size_t br_queue_len_lane(struct br_queue *q, enum br_queue_lane lane)
{
	size_t n = 0;
	pthread_mutex_lock(&q->mu);
	for (size_t i = 0; i < q->n; i++)
		n += q->items[i].queued && q->items[i].lane == lane;
	pthread_mutex_unlock(&q->mu);
	return n;
}

size_t br_queue_waiters(struct br_queue *q)
{
	pthread_mutex_lock(&q->mu);
	size_t n = q->waiters;
	pthread_mutex_unlock(&q->mu);
	return n;
}

void br_queue_work(struct br_queue *q, br_queue_handler fn, void *arg)
{
	char key[BR_QUEUE_KEY_MAX];
	enum br_queue_lane lane;
	while (br_queue_get_lane(q, key, sizeof(key), &lane) == 0) {
		long requeue = 0, delay = 0;
		int r = fn(arg, key, &requeue);
		br_queue_done(q, key);
		if (r) {
			if (br_queue_add_rate_limited_lane(q, key, lane, &delay))
				sb_error("Could not queue a run", "key=%s", key);
			else
				sb_warn("Reconcile failed, retrying",
					"run=%s error=\"%s\" retry_ms=%ld failures=%u", key,
					strerror(-r), delay, br_queue_failures(q, key));
			continue;
		}
		br_queue_forget(q, key);
		if (requeue > 0 && br_queue_add_lane(q, key, lane, requeue))
			sb_error("Could not queue a run", "key=%s", key);
	}
}
