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
#include <stdint.h>

/*
 * Waits until ConfigMap name exists in ns, or a stop is requested, or
 * CLOCK_MONOTONIC passes give_up_ns. Returns 0 with *cm the ConfigMap (a
 * new reference), -EINTR (stopped), -ETIMEDOUT, -ENOMEM, or the watch's
 * -errno with err filled.
 */
int sb_start_wait(struct kube_client *kc, const char *ns, const char *name, int64_t give_up_ns,
		  json_t **cm, struct kube_error *err);

#endif
