/* SPDX-License-Identifier: MIT */
/*
 * The clock of lib/kube's timers, which a test may replace, and the
 * readings and waits those timers make on it (clock.c; conventions in
 * kube/kube.h).
 */
#ifndef SB_LIB_KUBE_CLOCK_H
#define SB_LIB_KUBE_CLOCK_H

#include <stdint.h>
#include <time.h>

/*
 * The clock lib/kube times itself by: retry backoff and Retry-After pauses,
 * token file re-checks, watch idling and reconnect delays, leader election
 * (lease expiry as observed locally, renew deadline, retry period). By
 * default CLOCK_MONOTONIC and real waits. A test installs its own so that
 * these timers run on a time it advances, without real sleeps.
 *
 * now_ms: monotonic milliseconds.
 * wait_until: blocks until now_ms() >= deadline_ms; may return earlier (the
 *   callers look at the time and their stop flags again and wait anew).
 * wake: makes current wait_until calls return (kube_watch_stop and
 *   kube_leader_stop call it, so a stop is seen at once); may be NULL.
 * The functions are called from any thread. Informer sync waits
 * (kube_informer_wait_synced) and libcurl's own timeouts stay on the real
 * clock.
 */
struct kube_clock {
	int64_t (*now_ms)(void *arg);
	void (*wait_until)(void *arg, int64_t deadline_ms);
	void (*wake)(void *arg);
	void *arg;
};
/*
 * Installs c for the whole process (NULL: back to the real clock). c is
 * borrowed: it must stay valid until replaced. Install it while no client
 * thread, watch or elector is running.
 */
void kube_clock_set(const struct kube_clock *c);

/* ---- what lib/kube's timers read and wait with ---- */

/* Monotonic milliseconds (the installed kube_clock's, if any). */
int64_t kube_now_ms(void);
/* *ts set to the real-time clock ms milliseconds from now: the absolute
 * deadline pthread_cond_timedwait takes. */
void kube_deadline_in(struct timespec *ts, long ms);
/* Sleeps ms milliseconds (restarts on EINTR; on the installed clock, if any). */
void kube_sleep_ms(long ms);
/* The installed clock, or NULL for the real one. */
const struct kube_clock *kube_clock_get(void);
/* Wakes the installed clock's waits (kube_clock.wake); nothing without one. */
void kube_clock_wake(void);

#endif
