/* SPDX-License-Identifier: MIT */
#include "controller/queue.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct item {
	char *key;
	uint64_t due_ms; /* monotonic */
	bool queued;	 /* waiting to be handed out */
	bool busy;	 /* handed out, not done */
	bool again;	 /* added while busy */
	uint64_t again_ms;
};

struct br_queue {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct item *items;
	size_t n, cap;
	bool shutdown;
};

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

struct br_queue *br_queue_new(void)
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
	return q;
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

static struct item *find(struct br_queue *q, const char *key)
{
	for (size_t i = 0; i < q->n; i++)
		if (!strcmp(q->items[i].key, key))
			return &q->items[i];
	return NULL;
}

int br_queue_add_after(struct br_queue *q, const char *key, long delay_ms)
{
	uint64_t due = now_ms() + (uint64_t)(delay_ms > 0 ? delay_ms : 0);
	int ret = 0;

	pthread_mutex_lock(&q->mu);
	struct item *it = find(q, key);
	if (!it) {
		if (q->n == q->cap) {
			size_t cap = q->cap ? q->cap * 2 : 16;
			struct item *n = realloc(q->items, cap * sizeof(*n));
			if (!n) {
				ret = -ENOMEM;
				goto out;
			}
			q->items = n;
			q->cap = cap;
		}
		it = &q->items[q->n];
		memset(it, 0, sizeof(*it));
		if (!(it->key = strdup(key))) {
			ret = -ENOMEM;
			goto out;
		}
		q->n++;
	}
	if (it->busy) {
		if (!it->again || due < it->again_ms)
			it->again_ms = due;
		it->again = true;
	} else if (!it->queued || due < it->due_ms) {
		it->queued = true;
		it->due_ms = due;
	}
	pthread_cond_broadcast(&q->cv);
out:
	pthread_mutex_unlock(&q->mu);
	return ret;
}

int br_queue_add(struct br_queue *q, const char *key)
{
	return br_queue_add_after(q, key, 0);
}

int br_queue_get(struct br_queue *q, char *key, size_t len)
{
	pthread_mutex_lock(&q->mu);
	for (;;) {
		if (q->shutdown) {
			pthread_mutex_unlock(&q->mu);
			return -ESHUTDOWN;
		}
		uint64_t now = now_ms(), next = UINT64_MAX;
		struct item *pick = NULL;
		for (size_t i = 0; i < q->n; i++) {
			struct item *it = &q->items[i];
			if (!it->queued || it->busy)
				continue;
			if (it->due_ms <= now && (!pick || it->due_ms < pick->due_ms))
				pick = it;
			else if (it->due_ms > now && it->due_ms < next)
				next = it->due_ms;
		}
		if (pick) {
			pick->queued = false;
			pick->busy = true;
			snprintf(key, len, "%s", pick->key);
			pthread_mutex_unlock(&q->mu);
			return 0;
		}
		if (next == UINT64_MAX) {
			pthread_cond_wait(&q->cv, &q->mu);
		} else {
			struct timespec ts = {.tv_sec = (time_t)(next / 1000),
					      .tv_nsec = (long)(next % 1000) * 1000000};
			pthread_cond_timedwait(&q->cv, &q->mu, &ts);
		}
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
			it->queued = true;
		}
		if (!it->queued) {
			/* forget it: keeps the list to the keys in play */
			free(it->key);
			*it = q->items[--q->n];
		}
		pthread_cond_broadcast(&q->cv);
	}
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
	uint64_t now = now_ms();
	pthread_mutex_lock(&q->mu);
	for (size_t i = 0; i < q->n; i++)
		n += q->items[i].queued && !q->items[i].busy && q->items[i].due_ms <= now;
	pthread_mutex_unlock(&q->mu);
	return n;
}
