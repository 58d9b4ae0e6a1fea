/* SPDX-License-Identifier: MIT */
/*
 * The work queue (controller/core/queue.c) on a clock moved by hand: keys
 * deduplicated, delays, per-key exponential backoff (5 ms doubling up to a
 * minute, reset by forget), and its workers (br_queue_work): two workers
 * never hold the same key at once, and a failing key backs off across
 * workers. Threads wait on the queue's own condition (br_queue_waiters),
 * never on real time. The two lanes: high keys first, the low lane served
 * at least one in BR_QUEUE_LOW_EVERY, one lane per key (the higher wins),
 * re-adds in the key's lane.
 */
#include "tests/unit/harness.h"

#include "controller/core/queue.h"

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

/* Takes n keys (doing each at once), their lanes into lanes[]; -EAGAIN-terminated early. */
static size_t take_n(struct br_queue *q, size_t n, char keys[][16], enum br_queue_lane *lanes)
{
	size_t i = 0;
	for (; i < n; i++) {
		if (br_queue_try_get_lane(q, keys[i], sizeof(keys[i]), &lanes[i]))
			break;
		br_queue_done(q, keys[i]);
	}
	return i;
}

static int test_lanes_order(void)
{
	struct br_queue *q = new_queue();
	char keys[8][16];
	enum br_queue_lane lanes[8];
	CHECK(q);
	/* the low key is due first, the high one later: the high one goes first */
	CHECK_INT(br_queue_add_lane(q, "ns/new", BR_QUEUE_LOW, 0), 0);
	advance(q, 10);
	CHECK_INT(br_queue_add_lane(q, "ns/running", BR_QUEUE_HIGH, 0), 0);
	CHECK_INT(br_queue_len_lane(q, BR_QUEUE_LOW), 1);
	CHECK_INT(br_queue_len_lane(q, BR_QUEUE_HIGH), 1);
	CHECK_INT(take_n(q, 3, keys, lanes), 2);
	CHECK_STR(keys[0], "ns/running");
	CHECK_INT(lanes[0], BR_QUEUE_HIGH);
	CHECK_STR(keys[1], "ns/new");
	CHECK_INT(lanes[1], BR_QUEUE_LOW);
	/* a high key not due yet does not hold back a due low one */
	CHECK_INT(br_queue_add_lane(q, "ns/running", BR_QUEUE_HIGH, 50), 0);
	CHECK_INT(br_queue_add_lane(q, "ns/new", BR_QUEUE_LOW, 0), 0);
	CHECK_INT(take_n(q, 1, keys, lanes), 1);
	CHECK_STR(keys[0], "ns/new");
	/* within a lane, the key due first goes first */
	CHECK_INT(br_queue_add_lane(q, "ns/h2", BR_QUEUE_HIGH, 5), 0);
	advance(q, 100);
	CHECK_INT(take_n(q, 3, keys, lanes), 2);
	CHECK_STR(keys[0], "ns/h2");
	CHECK_STR(keys[1], "ns/running");
	br_queue_free(q);
	return T_PASS;
}

static int test_lanes_no_starvation(void)
{
	struct br_queue *q = new_queue();
	char keys[64][16], k[16];
	enum br_queue_lane lanes[64];
	CHECK(q);
	for (int i = 0; i < 10; i++) {
		snprintf(k, sizeof(k), "ns/low%d", i);
		CHECK_INT(br_queue_add_lane(q, k, BR_QUEUE_LOW, 0), 0);
	}
	for (int i = 0; i < 30; i++) {
		snprintf(k, sizeof(k), "ns/high%d", i);
		CHECK_INT(br_queue_add_lane(q, k, BR_QUEUE_HIGH, 0), 0);
	}
	CHECK_INT(take_n(q, 64, keys, lanes), 40);
	/* while both wait: every BR_QUEUE_LOW_EVERY-th key is a low one */
	size_t low = 0, run = 0;
	for (size_t i = 0; i < 40; i++) {
		CHECK_INT(lanes[i], strncmp(keys[i], "ns/low", 6) ? BR_QUEUE_HIGH : BR_QUEUE_LOW);
		if (lanes[i] == BR_QUEUE_LOW) {
			low++;
			run = 0;
		} else if (low < 10) {
			run++;
			CHECK(run < BR_QUEUE_LOW_EVERY);
		}
		if (i == 4 * BR_QUEUE_LOW_EVERY - 1)
			CHECK_INT(low, 4); /* exactly one in N while both lanes have keys */
	}
	CHECK_INT(low, 10);
	/* the high lane alone: all of it, no low turn owed from before */
	CHECK_INT(br_queue_add_lane(q, "ns/h", BR_QUEUE_HIGH, 0), 0);
	CHECK_INT(br_queue_add_lane(q, "ns/l", BR_QUEUE_LOW, 0), 0);
	CHECK_INT(take_n(q, 2, keys, lanes), 2);
	CHECK_STR(keys[0], "ns/h");
	br_queue_free(q);
	return T_PASS;
}

static int test_lanes_dedup(void)
{
	struct br_queue *q = new_queue();
	char keys[4][16];
	enum br_queue_lane lanes[4];
	CHECK(q);
	/* low then high: one key, in the high lane; high then low: stays high */
	CHECK_INT(br_queue_add_lane(q, "ns/a", BR_QUEUE_LOW, 0), 0);
	CHECK_INT(br_queue_add_lane(q, "ns/a", BR_QUEUE_HIGH, 0), 0);
	CHECK_INT(br_queue_add_lane(q, "ns/b", BR_QUEUE_HIGH, 0), 0);
	CHECK_INT(br_queue_add_lane(q, "ns/b", BR_QUEUE_LOW, 0), 0);
	CHECK_INT(br_queue_len(q), 2);
	CHECK_INT(br_queue_len_lane(q, BR_QUEUE_HIGH), 2);
	CHECK_INT(br_queue_len_lane(q, BR_QUEUE_LOW), 0);
	CHECK_INT(take_n(q, 4, keys, lanes), 2);
	CHECK_INT(lanes[0], BR_QUEUE_HIGH);
	CHECK_INT(lanes[1], BR_QUEUE_HIGH);
	/* added while busy, in both lanes: handed out once after done, high */
	CHECK_INT(br_queue_add_lane(q, "ns/c", BR_QUEUE_LOW, 0), 0);
	CHECK_INT(br_queue_try_get_lane(q, keys[0], sizeof(keys[0]), &lanes[0]), 0);
	CHECK_INT(lanes[0], BR_QUEUE_LOW);
	CHECK_INT(br_queue_add_lane(q, "ns/c", BR_QUEUE_HIGH, 0), 0);
	CHECK_INT(br_queue_add_lane(q, "ns/c", BR_QUEUE_LOW, 0), 0);
	CHECK_INT(br_queue_try_get(q, keys[1], sizeof(keys[1])), -EAGAIN);
	br_queue_done(q, "ns/c");
	CHECK_INT(br_queue_len(q), 1);
	CHECK_INT(take_n(q, 4, keys, lanes), 1);
	CHECK_STR(keys[0], "ns/c");
	CHECK_INT(lanes[0], BR_QUEUE_HIGH);
	br_queue_free(q);
	return T_PASS;
}

static int test_lanes_rate_limited(void)
{
	struct br_queue *q = new_queue();
	char keys[4][16];
	enum br_queue_lane lanes[4];
	long d = 0;
	CHECK(q);
	/* a failed low key comes back low after its backoff, behind a high key */
	CHECK_INT(br_queue_add_rate_limited_lane(q, "ns/new", BR_QUEUE_LOW, &d), 0);
	CHECK_INT(d, BR_QUEUE_BACKOFF_BASE_MS);
	CHECK_INT(br_queue_add_rate_limited_lane(q, "ns/new", BR_QUEUE_LOW, &d), 0);
	CHECK_INT(d, 2 * BR_QUEUE_BACKOFF_BASE_MS); /* the backoff counts across lanes' adds */
	CHECK_INT(br_queue_add_lane(q, "ns/run", BR_QUEUE_HIGH, 0), 0);
	CHECK_INT(br_queue_due(q), 1);
	advance(q, (uint64_t)BR_QUEUE_BACKOFF_BASE_MS);
	CHECK_INT(take_n(q, 4, keys, lanes), 2);
	CHECK_STR(keys[0], "ns/run");
	CHECK_STR(keys[1], "ns/new");
	CHECK_INT(lanes[1], BR_QUEUE_LOW);
	CHECK_INT(br_queue_failures(q, "ns/new"), 2);
	/* a failed high key stays high; its failures are its own */
	CHECK_INT(br_queue_add_rate_limited_lane(q, "ns/run", BR_QUEUE_HIGH, &d), 0);
	CHECK_INT(d, BR_QUEUE_BACKOFF_BASE_MS);
	CHECK_INT(br_queue_add_lane(q, "ns/new", BR_QUEUE_LOW, 0), 0);
	advance(q, (uint64_t)BR_QUEUE_BACKOFF_BASE_MS);
	CHECK_INT(take_n(q, 4, keys, lanes), 2);
	CHECK_STR(keys[0], "ns/run");
	CHECK_INT(lanes[0], BR_QUEUE_HIGH);
	br_queue_free(q);
	return T_PASS;
}

/* br_queue_work adds a failed key back in the lane it was taken from. */
struct lane_worker {
	struct br_queue *q;
	int calls;
};

static int fail_first(void *arg, const char *key, long *requeue_ms)
{
	struct lane_worker *w = arg;
	(void)key;
	*requeue_ms = 0;
	return w->calls++ == 0 ? -EIO : 0;
}

static void *lane_work(void *arg)
{
	struct lane_worker *w = arg;
	br_queue_work(w->q, fail_first, w);
	return NULL;
}

static int test_lanes_worker_readds_in_lane(void)
{
	struct lane_worker w = {new_queue(), 0};
	pthread_t t;
	CHECK(w.q);
	CHECK_INT(br_queue_add_lane(w.q, "ns/new", BR_QUEUE_LOW, 0), 0);
	CHECK_INT(pthread_create(&t, NULL, lane_work, &w), 0);
	/* the worker failed it and waits (the key backs off): it is low again */
	while (!(br_queue_len_lane(w.q, BR_QUEUE_LOW) == 1 && br_queue_waiters(w.q) == 1))
		sched_yield();
	CHECK_INT(br_queue_len_lane(w.q, BR_QUEUE_HIGH), 0);
	CHECK_INT(br_queue_failures(w.q, "ns/new"), 1);
	br_queue_shutdown(w.q);
	pthread_join(t, NULL);
	br_queue_free(w.q);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"queue/dedup", test_dedup},
	{"queue/delay", test_delay},
	{"queue/backoff per key, capped, forgotten", test_backoff},
	{"queue/workers: one key at a time", test_workers_one_key_at_a_time},
	{"queue/workers: a failing key backs off across workers",
	 test_workers_backoff_across_workers},
	{"queue/lanes: high before low, due order within a lane", test_lanes_order},
	{"queue/lanes: the low lane served one in N", test_lanes_no_starvation},
	{"queue/lanes: one lane per key, the higher wins", test_lanes_dedup},
	{"queue/lanes: rate-limited re-adds keep their lane", test_lanes_rate_limited},
	{"queue/lanes: a worker re-adds a failed key in its lane",
	 test_lanes_worker_readds_in_lane},
};

TEST_MAIN(cases)
