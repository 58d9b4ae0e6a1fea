/* SPDX-License-Identifier: MIT */
/*
 * The work queue (controller/queue.c) on a clock moved by hand: keys
 * deduplicated, delays, per-key exponential backoff (5 ms doubling up to a
 * minute, reset by forget), and its workers (br_queue_work): two workers
 * never hold the same key at once, and a failing key backs off across
 * workers. Threads wait on the queue's own condition (br_queue_waiters),
 * never on real time.
 */
#include "tests/unit/harness.h"

#include "controller/queue.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>

static uint64_t clock_ms;
static pthread_mutex_t clock_mu = PTHREAD_MUTEX_INITIALIZER;

static uint64_t test_now(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&clock_mu);
	uint64_t t = clock_ms;
	pthread_mutex_unlock(&clock_mu);
	return t;
}

static void advance(struct br_queue *q, uint64_t ms)
{
	pthread_mutex_lock(&clock_mu);
	clock_ms += ms;
	pthread_mutex_unlock(&clock_mu);
	br_queue_wake(q);
}

static struct br_queue *new_queue(void)
{
	static const struct br_queue_clock clk = {test_now, NULL};
	clock_ms = 1000000;
	return br_queue_new_clock(&clk);
}

static int test_dedup(void)
{
	struct br_queue *q = new_queue();
	char key[64];
	CHECK(q);
	CHECK_INT(br_queue_add(q, "ns/a"), 0);
	CHECK_INT(br_queue_add(q, "ns/a"), 0);
	CHECK_INT(br_queue_add(q, "ns/b"), 0);
	CHECK_INT(br_queue_len(q), 2);
	CHECK_INT(br_queue_try_get(q, key, sizeof(key)), 0);
	CHECK_STR(key, "ns/a");
	/* busy: added again, it is not handed out until done */
	CHECK_INT(br_queue_add(q, "ns/a"), 0);
	CHECK_INT(br_queue_try_get(q, key, sizeof(key)), 0);
	CHECK_STR(key, "ns/b");
	CHECK_INT(br_queue_try_get(q, key, sizeof(key)), -EAGAIN);
	br_queue_done(q, "ns/a");
	CHECK_INT(br_queue_try_get(q, key, sizeof(key)), 0);
	CHECK_STR(key, "ns/a");
	br_queue_done(q, "ns/a");
	br_queue_done(q, "ns/b");
	CHECK_INT(br_queue_try_get(q, key, sizeof(key)), -EAGAIN);
	CHECK_INT(br_queue_len(q), 0);
	br_queue_free(q);
	return T_PASS;
}

static int test_delay(void)
{
	struct br_queue *q = new_queue();
	char key[64];
	CHECK(q);
	CHECK_INT(br_queue_add_after(q, "ns/a", 100), 0);
	CHECK_INT(br_queue_add_after(q, "ns/a", 300), 0); /* the earlier time wins */
	CHECK_INT(br_queue_due(q), 0);
	advance(q, 99);
	CHECK_INT(br_queue_try_get(q, key, sizeof(key)), -EAGAIN);
	advance(q, 1);
	CHECK_INT(br_queue_due(q), 1);
	CHECK_INT(br_queue_try_get(q, key, sizeof(key)), 0);
	br_queue_done(q, key);
	/* an immediate add overrides a later one */
	CHECK_INT(br_queue_add_after(q, "ns/b", 5000), 0);
	CHECK_INT(br_queue_add(q, "ns/b"), 0);
	CHECK_INT(br_queue_try_get(q, key, sizeof(key)), 0);
	CHECK_STR(key, "ns/b");
	br_queue_done(q, key);
	br_queue_free(q);
	return T_PASS;
}

/* Fails key once: returns the delay the queue gave it. */
static long fail_once(struct br_queue *q, const char *k)
{
	char key[64];
	long d = -1;
	if (br_queue_try_get(q, key, sizeof(key)) || strcmp(key, k))
		return -1;
	br_queue_done(q, key);
	if (br_queue_add_rate_limited(q, key, &d))
		return -1;
	return d;
}

static int test_backoff(void)
{
	struct br_queue *q = new_queue();
	char key[64];
	CHECK(q);
	CHECK_INT(br_queue_add(q, "ns/a"), 0);
	long want = 5;
	for (unsigned i = 0; i < 20; i++) {
		long d = fail_once(q, "ns/a");
		CHECK_INT(d, want);
		CHECK_INT(br_queue_failures(q, "ns/a"), i + 1);
		/* not a moment before */
		advance(q, (uint64_t)d - 1);
		CHECK_INT(br_queue_try_get(q, key, sizeof(key)), -EAGAIN);
		advance(q, 1);
		want = want * 2 > BR_QUEUE_BACKOFF_MAX_MS ? BR_QUEUE_BACKOFF_MAX_MS : want * 2;
	}
	CHECK_INT(want, 60000); /* capped at a minute */
	/* another key has its own count */
	CHECK_INT(br_queue_add(q, "ns/b"), 0);
	CHECK_INT(br_queue_try_get(q, key, sizeof(key)), 0);
	CHECK_STR(key, "ns/a"); /* due first */
	br_queue_done(q, key);
	CHECK_INT(fail_once(q, "ns/b"), 5);
	/* forget: the next failure starts at the base again */
	br_queue_forget(q, "ns/a");
	CHECK_INT(br_queue_failures(q, "ns/a"), 0);
	CHECK_INT(br_queue_add(q, "ns/a"), 0);
	CHECK_INT(fail_once(q, "ns/a"), 5);
	CHECK_INT(br_queue_failures(q, "ns/b"), 1);
	br_queue_free(q);
	return T_PASS;
}

/* ------------------------------------------------------------------ workers */

struct work {
	struct br_queue *q;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned inside[2];  /* per key (a, f): handlers running now */
	unsigned max_inside; /* the most ever at once for one key */
	unsigned handled[2]; /* calls per key */
	bool hold_a;	     /* the handler of a waits until cleared */
	uint64_t f_at[8];    /* the clock at each call for f */
};

static int handler(void *arg, const char *key, long *requeue_ms)
{
	struct work *w = arg;
	int k = !strcmp(key, "ns/f");
	*requeue_ms = 0;
	pthread_mutex_lock(&w->mu);
	if (++w->inside[k] > w->max_inside)
		w->max_inside = w->inside[k];
	if (k && w->handled[1] < 8)
		w->f_at[w->handled[1]] = test_now(NULL);
	pthread_cond_broadcast(&w->cv);
	while (!k && w->hold_a)
		pthread_cond_wait(&w->cv, &w->mu);
	w->inside[k]--;
	w->handled[k]++;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return k ? -EIO : 0; /* f always fails */
}

static void *worker(void *arg)
{
	struct work *w = arg;
	br_queue_work(w->q, handler, w);
	return NULL;
}

/* Waits (on the handler's condition) until handled[k] reaches n. */
static void wait_handled(struct work *w, int k, unsigned n)
{
	pthread_mutex_lock(&w->mu);
	while (w->handled[k] < n)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

/* Both workers wait in the queue with nothing to take. */
static void wait_idle(struct work *w, size_t n)
{
	while (br_queue_waiters(w->q) < n)
		sched_yield();
}

static int test_workers_one_key_at_a_time(void)
{
	struct work w = {.hold_a = true};
	pthread_t t[2];
	w.q = new_queue();
	CHECK(w.q);
	pthread_mutex_init(&w.mu, NULL);
	pthread_cond_init(&w.cv, NULL);
	for (int i = 0; i < 2; i++)
		CHECK(!pthread_create(&t[i], NULL, worker, &w));
	CHECK_INT(br_queue_add(w.q, "ns/a"), 0);
	/* one worker holds a; a is added again: the other worker, idle, must not take it */
	pthread_mutex_lock(&w.mu);
	while (!w.inside[0])
		pthread_cond_wait(&w.cv, &w.mu);
	pthread_mutex_unlock(&w.mu);
	CHECK_INT(br_queue_add(w.q, "ns/a"), 0);
	wait_idle(&w, 1);
	pthread_mutex_lock(&w.mu);
	unsigned inside = w.inside[0], handled = w.handled[0];
	w.hold_a = false;
	pthread_cond_broadcast(&w.cv);
	pthread_mutex_unlock(&w.mu);
	/* then handed out once more, after the first is done */
	wait_handled(&w, 0, 2);
	br_queue_shutdown(w.q);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	br_queue_free(w.q);
	pthread_cond_destroy(&w.cv);
	pthread_mutex_destroy(&w.mu);
	CHECK_INT(inside, 1);
	CHECK_INT(handled, 0);
	CHECK_INT(w.max_inside, 1);
	CHECK_INT(w.handled[0], 2);
	return T_PASS;
}

static int test_workers_backoff_across_workers(void)
{
	struct work w = {0};
	pthread_t t[2];
	w.q = new_queue();
	CHECK(w.q);
	pthread_mutex_init(&w.mu, NULL);
	pthread_cond_init(&w.cv, NULL);
	for (int i = 0; i < 2; i++)
		CHECK(!pthread_create(&t[i], NULL, worker, &w));
	uint64_t t0 = test_now(NULL);
	CHECK_INT(br_queue_add(w.q, "ns/f"), 0);
	/* each failure doubles the delay, whichever worker handled the key */
	uint64_t step = 5;
	for (unsigned n = 1; n <= 6; n++) {
		wait_handled(&w, 1, n);
		wait_idle(&w, 2);
		CHECK_INT(br_queue_failures(w.q, "ns/f"), n);
		advance(w.q, step);
		step *= 2;
	}
	wait_handled(&w, 1, 7);
	br_queue_shutdown(w.q);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	br_queue_free(w.q);
	pthread_cond_destroy(&w.cv);
	pthread_mutex_destroy(&w.mu);
	/* handed out exactly when due: t0, +5, +10, +20, +40, +80, +160 */
	uint64_t at = t0, d = 5;
	for (unsigned n = 0; n < 7; n++) {
		CHECK_INT(w.f_at[n], at);
		at += d;
		d *= 2;
	}
	CHECK_INT(w.max_inside, 1);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"queue/dedup", test_dedup},
	{"queue/delay", test_delay},
	{"queue/backoff per key, capped, forgotten", test_backoff},
	{"queue/workers: one key at a time", test_workers_one_key_at_a_time},
	{"queue/workers: a failing key backs off across workers",
	 test_workers_backoff_across_workers},
};

TEST_MAIN(cases)
