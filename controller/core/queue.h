/* SPDX-License-Identifier: MIT */
/*
 * A work queue of keys ("namespace/name"), as controller-runtime's
 * rate-limited queue: a key is queued at most once; a key being worked on
 * is not handed to another worker, and if it is added meanwhile it is
 * handed out again after done; keys can be added with a delay (deadlines);
 * and the queue counts each key's failures, whichever worker saw them, for
 * its exponential backoff (base * 2^failures, at most max), until the key
 * is forgotten (a success).
 *
 * Two lanes, as controller-runtime's priority queue: keys of runs in
 * progress (BR_QUEUE_HIGH: their children or their status changed) are
 * handed out before newly created ones (BR_QUEUE_LOW: a bulk of new runs,
 * a terminal run's own status update), without starving either: while
 * both lanes have a due key, at least one in BR_QUEUE_LOW_EVERY keys handed
 * out is the low lane's. A key is in one lane at a time: added to both, it
 * is in the high one. Within a lane, the key due first goes first.
 */
#ifndef SB_CONTROLLER_CORE_QUEUE_H
#define SB_CONTROLLER_CORE_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BR_QUEUE_BACKOFF_BASE_MS 5L
#define BR_QUEUE_BACKOFF_MAX_MS	 60000L
#define BR_QUEUE_KEY_MAX	 600 /* with its terminating NUL */
#define BR_QUEUE_LOW_EVERY	 4   /* the low lane's share when both wait: 1 in 4 */

enum br_queue_lane { BR_QUEUE_HIGH = 0, BR_QUEUE_LOW = 1 };

struct br_queue;

/* A clock in milliseconds (the unit tests' is moved by hand). */
struct br_queue_clock {
	uint64_t (*now_ms)(void *arg);
	void *arg;
};

/* NULL on ENOMEM. The monotonic clock. */
struct br_queue *br_queue_new(void);
/*
 * With clock (copied): br_queue_get then waits for an add, a done or
 * br_queue_wake (the clock moved), never for real time. NULL on ENOMEM.
 */
struct br_queue *br_queue_new_clock(const struct br_queue_clock *clock);
/* Frees the queue; no thread may use it any more. */
void br_queue_free(struct br_queue *q);
/* The backoff's base and cap (defaults BR_QUEUE_BACKOFF_*). */
void br_queue_set_backoff(struct br_queue *q, long base_ms, long max_ms);

/* Adds key now, in the high lane (0 or -ENOMEM). */
int br_queue_add(struct br_queue *q, const char *key);
/* Adds key after delay_ms (an earlier pending time wins), high lane. 0 or -ENOMEM. */
int br_queue_add_after(struct br_queue *q, const char *key, long delay_ms);
/*
 * Adds key after delay_ms in lane: a key already waiting (or busy and
 * added again) moves up to the high lane if lane is, never down; an
 * earlier pending time wins. 0 or -ENOMEM.
 */
int br_queue_add_lane(struct br_queue *q, const char *key, enum br_queue_lane lane, long delay_ms);
/*
 * Adds key after its backoff and counts one more failure of it: the
 * delay is base << failures so far, at most max; into *delay_ms (may be
 * NULL). 0 or -ENOMEM.
 */
int br_queue_add_rate_limited(struct br_queue *q, const char *key, long *delay_ms);
/* As br_queue_add_rate_limited, in lane (br_queue_add_lane's rule). */
int br_queue_add_rate_limited_lane(struct br_queue *q, const char *key, enum br_queue_lane lane,
				   long *delay_ms);
/* Forgets key's failures (it succeeded). */
void br_queue_forget(struct br_queue *q, const char *key);
/* key's failures since it was last forgotten. */
unsigned br_queue_failures(struct br_queue *q, const char *key);

/*
 * Waits for a key that is due and not being worked on; copies it into key
 * and marks it busy. Returns 0, or -ESHUTDOWN once br_queue_shutdown was
 * called. Call br_queue_done(key) when finished.
 */
int br_queue_get(struct br_queue *q, char *key, size_t len);
/* As br_queue_get; *lane (may be NULL) the lane the key was in. */
int br_queue_get_lane(struct br_queue *q, char *key, size_t len, enum br_queue_lane *lane);
/* As br_queue_get without waiting: -EAGAIN when no key is due. */
int br_queue_try_get(struct br_queue *q, char *key, size_t len);
/* As br_queue_try_get; *lane (may be NULL) the lane the key was in. */
int br_queue_try_get_lane(struct br_queue *q, char *key, size_t len, enum br_queue_lane *lane);
void br_queue_done(struct br_queue *q, const char *key);

/* Wakes the waiters to look at the clock again (a test's clock moved). */
void br_queue_wake(struct br_queue *q);
/* Wakes every waiter; br_queue_get returns -ESHUTDOWN from now on. */
void br_queue_shutdown(struct br_queue *q);

/* Keys waiting (due or not), for metrics and tests. */
size_t br_queue_len(struct br_queue *q);
/* Keys due now and not being worked on (0: the workers have caught up). */
size_t br_queue_due(struct br_queue *q);
/* Keys waiting in lane (due or not). */
size_t br_queue_len_lane(struct br_queue *q, enum br_queue_lane lane);
/* Threads waiting in br_queue_get with nothing to take (for tests). */
size_t br_queue_waiters(struct br_queue *q);

/*
 * What a worker does with a key: 0 (done; *requeue_ms > 0: look again
 * then) or -errno (failed: added again after the key's backoff).
 */
typedef int (*br_queue_handler)(void *arg, const char *key, long *requeue_ms);
/*
 * A worker thread's loop: takes keys and runs fn on them until shutdown; a
 * key failed or to look at again is added back in the lane it came from.
 */
void br_queue_work(struct br_queue *q, br_queue_handler fn, void *arg);

#endif
