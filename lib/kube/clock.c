/* SPDX-License-Identifier: MIT */
/* The clock lib/kube times itself by: the real one (CLOCK_MONOTONIC, real
 * sleeps) or one a test installed (kube_clock_set). */
#include "kube/clock.h"

#include <errno.h>
#include <stdatomic.h>
#include <time.h>

static _Atomic(const struct kube_clock *) installed_clock;

void kube_clock_set(const struct kube_clock *c)
{
	atomic_store(&installed_clock, c);
}

const struct kube_clock *kube_clock_get(void)
{
	return atomic_load(&installed_clock);
}

void kube_clock_wake(void)
{
	const struct kube_clock *c = kube_clock_get();
	if (c && c->wake)
		c->wake(c->arg);
}

void kube_deadline_in(struct timespec *ts, long ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

int64_t kube_now_ms(void)
{
	const struct kube_clock *c = kube_clock_get();
	if (c)
		return c->now_ms(c->arg);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void kube_sleep_ms(long ms)
{
	if (ms <= 0)
		return;
	const struct kube_clock *c = kube_clock_get();
	if (c) {
		int64_t end = c->now_ms(c->arg) + ms;
		while (c->now_ms(c->arg) < end)
			c->wait_until(c->arg, end);
		return;
	}
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}
