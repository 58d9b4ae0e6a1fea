/* SPDX-License-Identifier: MIT */
/*
 * Waiting at a distributed run's start barrier for the controller's
 * "start" ConfigMap (docs/distributed.md), by one watch rather than by
 * polling: a watch of the one name (fieldSelector metadata.name) from
 * "now", so an object already there arrives as its first event and one
 * created later as the next. However long the wait, that is one API
 * request, plus one per dropped connection or server-side timeout (the
 * watch resumes from the last resourceVersion seen, lib/kube/watch.h).
 * A thread of its own looks at the stop flag (runner/mode/stop.h) and the
 * deadline every 20 ms and stops the watch; it makes no requests.
 */
#ifndef SB_RUNNER_MODE_STARTWAIT_H
#define SB_RUNNER_MODE_STARTWAIT_H

#include "kube/kube.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * Waits until ConfigMap name exists in ns, or a stop is requested, or
 * CLOCK_MONOTONIC passes give_up_ns. Returns 0 with *cm the ConfigMap (a
 * new reference) and *got_ns the CLOCK_REALTIME at which it arrived,
 * -EINTR (stopped), -ETIMEDOUT, -ENOMEM, or the watch's -errno with err
 * filled.
 */
int sb_start_wait(struct kube_client *kc, const char *ns, const char *name, int64_t give_up_ns,
		  json_t **cm, int64_t *got_ns, struct kube_error *err);

/*
 * This node's clock against the controller's, from the barriers' exchanges
 * (NTP's on-wire arithmetic): the member sends its ready mark at t1 (its
 * clock), the controller first sees it at t2 and makes the start ConfigMap
 * at t3 (its clock), which arrives at t4 (the member's). Then the offset
 * (member minus controller) is ((t1 - t2) + (t4 - t3)) / 2 and the round
 * trip (t4 - t1) - (t3 - t2); the true offset is within half the round trip
 * of the estimate whatever the two one-way delays, which is the
 * uncertainty. The exchange with the least uncertainty so far is kept.
 */
struct sb_clock_est {
	bool have;
	int64_t offset_ns, uncertainty_ns, round_trip_ns;
	unsigned exchanges; /* usable exchanges seen */
};

/*
 * The offset to apply: the estimate when it is beyond its uncertainty (the
 * clock is off for sure), else 0. So clocks that agree (the estimate
 * within its uncertainty of 0) get no correction, which would add only
 * the estimate's noise.
 */
static inline int64_t sb_clock_applied(const struct sb_clock_est *e)
{
	int64_t a = e->offset_ns < 0 ? -e->offset_ns : e->offset_ns;
	return e->have && a > e->uncertainty_ns ? e->offset_ns : 0;
}

/*
 * Folds one exchange into *est: t1 and t4 this member's CLOCK_REALTIME, cm
 * the start ConfigMap (its data.sentUnixNano, t3, and
 * data.readySeenUnixNano[member], t2). 0, or -EINVAL (est unchanged) when cm
 * has no usable times (an older controller) or they make a negative round
 * trip, or t1 is 0 (no ready mark sent by this process).
 */
int sb_clock_exchange(const json_t *cm, unsigned member, int64_t t1, int64_t t4,
		      struct sb_clock_est *est);

#endif
