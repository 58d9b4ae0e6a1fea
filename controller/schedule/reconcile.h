/* SPDX-License-Identifier: MIT */
/*
 * The controller's side of BenchmarkSchedules (schedule/reconcile.c): the
 * reconcile of one schedule (queued under BR_SCHED_KEY_PREFIX,
 * controller/core/controller.h), and its clock.
 */
#ifndef SB_CONTROLLER_SCHEDULE_RECONCILE_H
#define SB_CONTROLLER_SCHEDULE_RECONCILE_H

#include "controller/schedule/schedule.h"
#include "kube/kube.h"

#include <stdint.h>

struct br_controller;

/*
 * Reconciles one schedule: creates and prunes its runs, writes its status.
 * *requeue_ms: when to look again (the next activation). 0 or -errno
 * (retried with backoff).
 */
int br_schedule_reconcile(struct br_controller *c, const char *ns, const char *name,
			  long *requeue_ms);

/*
 * TEST ONLY (controller flag --test-clock-file): a file holding the time
 * the schedules see, in seconds since the epoch; when it is missing or
 * empty, the real clock. Lets the cluster tests move a schedule's time
 * without waiting for the wall clock. NULL (the default): the real clock.
 */
extern const char *br_sched_test_clock_file;

/* The time schedules see (seconds since the epoch). */
int64_t br_sched_now(void);

#endif
