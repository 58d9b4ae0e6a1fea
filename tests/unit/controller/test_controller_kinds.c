/* SPDX-License-Identifier: MIT */
/*
 * One work queue and its own workers per kind (controller/core/controller.h,
 * enum br_kind): with every run worker busy, a schedule's key is still
 * reconciled; each kind's reconciler gets the plain "namespace/name" of its
 * own keys. The reconcilers block on a condition variable the test
 * releases: nothing here waits for real time, except a bound on a failing
 * wait (so a broken controller fails the test instead of hanging it).
 */
#include "tests/unit/harness.h"
#include "tests/unit/fakeops.h"

#include "controller/core/controller.h"

#include <pthread.h>
#include <time.h>

#define FAIL_AFTER_S 60 /* only a failing test waits this long */

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned runs_in, schedules_in;
	bool release;
	char run_key[128], schedule_key[128];
} S = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, false, "", ""};

static int run_rec(struct br_controller *c, const char *ns, const char *name, long *requeue_ms)
{
	(void)c;
	*requeue_ms = 0;
	pthread_mutex_lock(&S.mu);
	S.runs_in++;
	snprintf(S.run_key, sizeof(S.run_key), "%s/%s", ns, name);
	pthread_cond_broadcast(&S.cv);
	while (!S.release) /* every run worker stays busy until the test says */
		pthread_cond_wait(&S.cv, &S.mu);
	pthread_mutex_unlock(&S.mu);
	return 0;
}

static int schedule_rec(struct br_controller *c, const char *ns, const char *name, long *requeue_ms)
{
	(void)c;
	*requeue_ms = 0;
	pthread_mutex_lock(&S.mu);
	S.schedules_in++;
	snprintf(S.schedule_key, sizeof(S.schedule_key), "%s/%s", ns, name);
	pthread_cond_broadcast(&S.cv);
	pthread_mutex_unlock(&S.mu);
	return 0;
}

/* Waits until *counter >= want; false after FAIL_AFTER_S. */
static bool wait_for(const unsigned *counter, unsigned want)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += FAIL_AFTER_S;
	bool ok = true;
	pthread_mutex_lock(&S.mu);
	while (*counter < want && ok)
		ok = pthread_cond_timedwait(&S.cv, &S.mu, &until) == 0 || *counter >= want;
	pthread_mutex_unlock(&S.mu);
	return *counter >= want;
}

static int test_schedule_not_behind_busy_runs(void)
{
	static struct fakeops fo;
	struct br_controller c;
	struct br_controller_opts opts = {0};
	opts.workers = 2;
	memset(&c, 0, sizeof(c));
	fo_init(&fo);
	struct br_metrics *m = br_metrics_new();
	CHECK(m);
	CHECK_INT(br_controller_init_ops(&c, &fo.ops, &opts, m), 0);
	struct br_reconcilers r = {.run = run_rec, .schedule = schedule_rec};
	br_controller_set_reconcilers(&c, &r);
	CHECK_INT(br_controller_start_workers(&c), 0);
	CHECK_INT((int)c.nworkers, 2 + BR_SCHEDULE_WORKERS);
	/* three runs: both run workers take one and stay busy, one waits */
	CHECK_INT(br_queue_add(c.queues[BR_KIND_RUN], "ns/r1"), 0);
	CHECK_INT(br_queue_add(c.queues[BR_KIND_RUN], "ns/r2"), 0);
	CHECK_INT(br_queue_add(c.queues[BR_KIND_RUN], "ns/r3"), 0);
	CHECK(wait_for(&S.runs_in, 2));
	/* a schedule is reconciled meanwhile, under its own name */
	CHECK_INT(br_queue_add(c.queues[BR_KIND_SCHEDULE], "ns/nightly"), 0);
	CHECK(wait_for(&S.schedules_in, 1));
	pthread_mutex_lock(&S.mu);
	CHECK_STR(S.schedule_key, "ns/nightly");
	CHECK_INT((int)S.runs_in, 2); /* the third run still waits its turn */
	S.release = true;
	pthread_cond_broadcast(&S.cv);
	pthread_mutex_unlock(&S.mu);
	CHECK(wait_for(&S.runs_in, 3));
	CHECK(!strncmp(S.run_key, "ns/r", 4));
	CHECK_INT((int)S.schedules_in, 1); /* a run key never reached the schedules' reconciler */
	br_controller_release(&c);
	br_metrics_free(m);
	fo_release(&fo);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"kinds/a schedule is reconciled while every run worker is busy",
	 test_schedule_not_behind_busy_runs},
};

TEST_MAIN(cases)
