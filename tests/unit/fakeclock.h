/* SPDX-License-Identifier: MIT */
/*
 * A fake clock for lib/kube (struct kube_clock, kube_clock_set): time moves
 * only when a test says so, so retries, watch idling and leader election are
 * tested without real sleeps and without racing the machine's speed.
 *
 * Two modes:
 * - auto (fc.autoadvance = true): a wait returns at once, time jumping to
 *   its deadline; every wait is recorded (fc.waits[], fc.nwaits). For
 *   code that runs on one thread (a request's retries).
 * - stepped: a wait blocks until fc_step() moves time past its deadline (or
 *   a wake). fc_quiet(n) waits (real time, bounded) until n threads are
 *   waiting for a time still to come: they have done all they can do now.
 *
 *	static struct fakeclock fc;
 *	fc_install(&fc, false);  ...  fc_step(&fc, 300); fc_quiet(&fc, 2); ...
 *	fc_uninstall(&fc);
 */
#ifndef SB_TEST_FAKECLOCK_H
#define SB_TEST_FAKECLOCK_H

#include "kube/kube.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define FC_MAX_WAITERS 16
#define FC_MAX_WAITS   64

struct fakeclock {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int64_t now;
	bool autoadvance;
	unsigned wake_gen;
	int64_t deadlines[FC_MAX_WAITERS]; /* of the waits in progress; 0: free slot */
	int64_t waits[FC_MAX_WAITS];	   /* auto mode: the length of each wait */
	unsigned nwaits;
	struct kube_clock kc;
};

static inline int64_t fc_now(void *arg)
{
	struct fakeclock *fc = arg;
	pthread_mutex_lock(&fc->lock);
	int64_t t = fc->now;
	pthread_mutex_unlock(&fc->lock);
	return t;
}

static inline void fc_real_deadline(struct timespec *ts, long ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static inline void fc_wait_until(void *arg, int64_t deadline)
{
	struct fakeclock *fc = arg;
	pthread_mutex_lock(&fc->lock);
	if (fc->autoadvance) {
		if (deadline > fc->now) {
			if (fc->nwaits < FC_MAX_WAITS)
				fc->waits[fc->nwaits++] = deadline - fc->now;
			fc->now = deadline;
		}
		pthread_mutex_unlock(&fc->lock);
		return;
	}
	int slot = -1;
	for (int i = 0; i < FC_MAX_WAITERS && slot < 0; i++)
		if (!fc->deadlines[i])
			slot = i;
	if (slot >= 0)
		fc->deadlines[slot] = deadline;
	pthread_cond_broadcast(&fc->cond); /* fc_quiet looks at the slots */
	unsigned gen = fc->wake_gen;
	struct timespec ts;
	/* a bounded real wait: a caller looks at its stop flag again after it */
	fc_real_deadline(&ts, 200);
	while (fc->now < deadline && fc->wake_gen == gen)
		if (pthread_cond_timedwait(&fc->cond, &fc->lock, &ts) == ETIMEDOUT)
			break;
	if (slot >= 0)
		fc->deadlines[slot] = 0;
	pthread_mutex_unlock(&fc->lock);
}

static inline void fc_wake(void *arg)
{
	struct fakeclock *fc = arg;
	pthread_mutex_lock(&fc->lock);
	fc->wake_gen++;
	pthread_cond_broadcast(&fc->cond);
	pthread_mutex_unlock(&fc->lock);
}

/* Installs fc (zeroed here) as lib/kube's clock, at time 1000000 ms. */
static inline void fc_install(struct fakeclock *fc, bool autoadvance)
{
	memset(fc, 0, sizeof(*fc));
	pthread_mutex_init(&fc->lock, NULL);
	pthread_cond_init(&fc->cond, NULL);
	fc->now = 1000000;
	fc->autoadvance = autoadvance;
	fc->kc = (struct kube_clock){fc_now, fc_wait_until, fc_wake, fc};
	kube_clock_set(&fc->kc);
}

static inline void fc_uninstall(struct fakeclock *fc)
{
	kube_clock_set(NULL);
	pthread_cond_destroy(&fc->cond);
	pthread_mutex_destroy(&fc->lock);
}

/* Moves time on by ms (waking the waits that are due). */
static inline void fc_step(struct fakeclock *fc, int64_t ms)
{
	pthread_mutex_lock(&fc->lock);
	fc->now += ms;
	pthread_cond_broadcast(&fc->cond);
	pthread_mutex_unlock(&fc->lock);
}

/*
 * Waits until at least n threads wait for a time after now (each has done
 * what it could before time moves on); 0, or -ETIMEDOUT after real_ms.
 */
static inline int fc_quiet(struct fakeclock *fc, int n, long real_ms)
{
	struct timespec ts;
	fc_real_deadline(&ts, real_ms);
	pthread_mutex_lock(&fc->lock);
	for (;;) {
		int k = 0;
		for (int i = 0; i < FC_MAX_WAITERS; i++)
			k += fc->deadlines[i] > fc->now;
		if (k >= n)
			break;
		if (pthread_cond_timedwait(&fc->cond, &fc->lock, &ts) == ETIMEDOUT) {
			pthread_mutex_unlock(&fc->lock);
			return -ETIMEDOUT;
		}
	}
	pthread_mutex_unlock(&fc->lock);
	return 0;
}

#endif
