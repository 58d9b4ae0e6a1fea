/* SPDX-License-Identifier: MIT */
/* The controller's pure decision function: observed state in, plan out. */
#include "tests/unit/harness.h"
#include "controller/run/plan.h"
#include "controller/run/spec.h"
#include "core/labels.h"

#include <signal.h>

static struct br_obs obs;
static struct br_plan plan;

static void base(size_t nclasses)
{
	static const char *const names[] = {"fast", "disk", "slow", "other"};
	memset(&obs, 0, sizeof(obs));
	obs.now = 10000;
	obs.start = 10000;
	obs.iterations = 3;
	obs.parallelism = 1;
	obs.max_attempts = 3;
	obs.pvc_bind_s = 300;
	obs.iteration_s = 600;
	obs.run_s = 86400;
	obs.cleanup = BR_CLEANUP_ALWAYS;
	obs.nclasses = nclasses;
	obs.cleaned_up = true;
	for (size_t i = 0; i < nclasses; i++) {
		obs.classes[i].name = names[i];
		obs.classes[i].sc_exists = true;
	}
}

static size_t count(enum br_action_kind k)
{
	size_t n = 0;
	for (size_t i = 0; i < plan.nactions; i++)
		n += plan.actions[i].kind == k;
	return n;
}

static const struct br_action *find(enum br_action_kind k)
{
	for (size_t i = 0; i < plan.nactions; i++)
		if (plan.actions[i].kind == k)
			return &plan.actions[i];
	return NULL;
}

static bool has_event(const char *reason)
{
	for (size_t i = 0; i < plan.nevents; i++)
		if (!strcmp(plan.events[i].reason, reason))
			return true;
	return false;
}

static void add_pod(size_t cls, unsigned attempt, enum br_pod_phase ph, int exit_code,
		    const char *msg)
{
	struct br_class_obs *c = &obs.classes[cls];
	struct br_pod_obs *p = &c->pods[c->npods++];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "run-%s-%u", c->name, attempt);
	p->attempt = attempt;
	p->phase = ph;
	p->exit_code = exit_code;
	snprintf(p->message, sizeof(p->message), "%s", msg ? msg : "");
	p->created = obs.now - 10;
	c->prev_attempts = attempt;
	c->prev_phase = BR_CLASS_RUNNING;
	obs.cleaned_up = false;
}

static void bound(size_t cls)
{
	obs.classes[cls].pvc_exists = true;
	obs.classes[cls].pvc_bound = true;
	obs.classes[cls].pvc_created = obs.now - 20;
	obs.cleaned_up = false;
}

static int test_new_run_starts_first_class_only(void)
{
	base(2);
	br_plan_compute(&obs, &plan);
	CHECK_INT(plan.phase, BR_RUN_RUNNING);
	CHECK_INT(count(BR_ACT_CREATE_PVC), 1);
	CHECK_INT(count(BR_ACT_CREATE_POD), 1);
	CHECK_INT(find(BR_ACT_CREATE_POD)->cls, 0);
	CHECK_INT(find(BR_ACT_CREATE_POD)->attempt, 1);
	CHECK_INT(plan.classes[0].phase, BR_CLASS_BINDING);
	CHECK_INT(plan.classes[1].phase, BR_CLASS_PENDING);
	CHECK_INT(plan.total, 6);
	CHECK(has_event("StartedClass"));
	/* parallelism 2 starts both */
	obs.parallelism = 2;
	br_plan_compute(&obs, &plan);
	CHECK_INT(count(BR_ACT_CREATE_POD), 2);
	return T_PASS;
}

static int test_missing_storage_class_fails_only_that_class(void)
{
	base(2);
	obs.classes[0].sc_exists = false;
	br_plan_compute(&obs, &plan);
	CHECK_INT(plan.classes[0].phase, BR_CLASS_FAILED);
	CHECK_STR(plan.classes[0].reason, "StorageClassNotFound");
	CHECK(strstr(plan.classes[0].message, "'fast' does not exist") != NULL);
	/* the other class takes the free slot */
	CHECK_INT(plan.classes[1].phase, BR_CLASS_BINDING);
	CHECK_INT(find(BR_ACT_CREATE_POD)->cls, 1);
	CHECK(has_event("StorageClassNotFound"));
	return T_PASS;
}

static int test_waits_for_created_pod_to_appear(void)
{
	/* status says attempt 1 was created, the cache has no pod yet */
	base(1);
	obs.classes[0].prev_phase = BR_CLASS_BINDING;
	obs.classes[0].prev_attempts = 1;
	br_plan_compute(&obs, &plan);
	CHECK_INT(count(BR_ACT_CREATE_POD), 0);
	CHECK(plan.requeue_s > 0 && plan.requeue_s <= 5);
	return T_PASS;
}

static int test_bind_timeout(void)
{
	base(1);
	obs.classes[0].pvc_exists = true;
	obs.classes[0].pvc_created = obs.now - 299;
	add_pod(0, 1, BR_POD_PENDING, -1, NULL);
	br_plan_compute(&obs, &plan);
	CHECK_INT(plan.classes[0].phase, BR_CLASS_BINDING);
	CHECK_INT(plan.requeue_s, 1);
	obs.classes[0].pvc_created = obs.now - 300;
	br_plan_compute(&obs, &plan);
	CHECK_INT(plan.classes[0].phase, BR_CLASS_FAILED);
	CHECK_STR(plan.classes[0].reason, "VolumeBindTimeout");
	CHECK_INT(count(BR_ACT_DELETE_POD), 1); /* the waiting pod is stopped */
	CHECK_INT(plan.phase, BR_RUN_FAILED);
	CHECK_STR(plan.reason, "VolumeBindTimeout");
	CHECK_INT(count(BR_ACT_WRITE_REPORT), 0); /* nothing measured */
	/* the waiting pod is stopped at once (the timeout does not depend on it);
	 * cleanup Always, once the failure is in the stored status */
	CHECK_INT(count(BR_ACT_DELETE_POD), 1);
	CHECK_INT(count(BR_ACT_DELETE_PVC), 0);
	obs.terminal_recorded = true;
	br_plan_compute(&obs, &plan);
	CHECK_INT(count(BR_ACT_DELETE_PVC), 1);
	return T_PASS;
}

static int test_failed_pod_restarts_for_remaining(void)
{
	base(1);
	bound(0);
	obs.classes[0].done = 1;
	add_pod(0, 1, BR_POD_FAILED, 1, "iteration 2: write failed: EIO");
	br_plan_compute(&obs, &plan);
	CHECK_INT(count(BR_ACT_CREATE_POD), 1);
	CHECK_INT(find(BR_ACT_CREATE_POD)->attempt, 2);
	CHECK(has_event("RunnerRestarted"));
	CHECK_INT(plan.classes[0].attempts, 2);
	CHECK_INT(plan.classes[0].phase, BR_CLASS_RUNNING);
	/* the failed pod is kept for its logs */
	CHECK_INT(count(BR_ACT_DELETE_POD), 0);
	return T_PASS;
}

static int test_killed_pod_is_replaced(void)
{
	/* the pod was deleted: gone from the cache, attempts remembered in status */
	base(1);
	bound(0);
	obs.classes[0].done = 2;
	obs.classes[0].prev_phase = BR_CLASS_RUNNING;
	obs.classes[0].prev_attempts = 1;
	obs.classes[0].npods = 0;
	br_plan_compute(&obs, &plan);
	/* the cache has no pod of attempt 1: the controller waits a moment... */
	CHECK_INT(count(BR_ACT_CREATE_POD), 0);
	/* ...until the API confirms it is gone: then attempt 2 runs the rest */
	obs.classes[0].last_pod_gone = true;
	br_plan_compute(&obs, &plan);
	CHECK_INT(count(BR_ACT_CREATE_POD), 1);
	CHECK_INT(find(BR_ACT_CREATE_POD)->attempt, 2);
	CHECK(has_event("RunnerLost"));
	obs.classes[0].last_pod_gone = false;
	/* ...and a pod that is seen gone (deleting, then absent) is replaced */
	add_pod(0, 1, BR_POD_RUNNING, -1, NULL);
	obs.classes[0].pods[0].deleting = true;
	br_plan_compute(&obs, &plan);
	CHECK_INT(count(BR_ACT_CREATE_POD), 0);
	obs.classes[0].pods[0].deleting = false;
	obs.classes[0].pods[0].phase = BR_POD_FAILED;
	obs.classes[0].pods[0].exit_code = 137;
	br_plan_compute(&obs, &plan);
	CHECK_INT(count(BR_ACT_CREATE_POD), 1);
	CHECK_INT(find(BR_ACT_CREATE_POD)->attempt, 2);
	return T_PASS;
}

static int test_attempts_are_bounded(void)
{
	base(1);
	bound(0);
	add_pod(0, 1, BR_POD_FAILED, 1, "boom 1");
	add_pod(0, 2, BR_POD_FAILED, 1, "boom 2");
	add_pod(0, 3, BR_POD_FAILED, 1, "boom 3");
	br_plan_compute(&obs, &plan);
	CHECK_INT(count(BR_ACT_CREATE_POD), 0);
	CHECK_INT(plan.classes[0].phase, BR_CLASS_FAILED);
	CHECK_STR(plan.classes[0].reason, "RunnerFailed");
	CHECK(strstr(plan.classes[0].message, "after 3 attempts") != NULL);
	CHECK(strstr(plan.classes[0].message, "boom 3") != NULL);
	/* the pod that says why stays until the status holding its message is
	 * stored; a pass on a cache that has not seen that status yet (the pod
	 * gone, the old status) would otherwise record a failure without it */
	CHECK_INT(count(BR_ACT_DELETE_POD), 0);
	obs.terminal_recorded = true;
	obs.classes[0].prev_phase = BR_CLASS_FAILED;
	snprintf(obs.classes[0].prev_reason, sizeof(obs.classes[0].prev_reason), "%s",
		 plan.classes[0].reason);
	snprintf(obs.classes[0].prev_message, sizeof(obs.classes[0].prev_message), "%s",
		 plan.classes[0].message);
	br_plan_compute(&obs, &plan);
	CHECK_INT(count(BR_ACT_DELETE_POD), 3);
	CHECK(strstr(plan.classes[0].message, "boom 3") != NULL);
	return T_PASS;
}

static int test_pod_on_a_lost_node_fails_the_class(void)
{
	base(1);
	bound(0);
	obs.classes[0].done = 1;
	add_pod(0, 1, BR_POD_RUNNING, -1, NULL);
	struct br_pod_obs *pod = &obs.classes[0].pods[0];
	snprintf(pod->node, sizeof(pod->node), "storagebench-b");
	pod->deleting = true;
	pod->delete_by = obs.now - BR_POD_GONE_SLACK_S + 1;
	/* within the slack: waited for, nothing else */
	br_plan_compute(&obs, &plan);
	CHECK_INT(plan.classes[0].phase, BR_CLASS_RUNNING);
	CHECK_INT(count(BR_ACT_CREATE_POD), 0);
	CHECK_INT(count(BR_ACT_DELETE_POD), 0);
	CHECK(plan.requeue_s > 0 && plan.requeue_s <= 2);
	/* past it: the kubelet never confirmed, its node is lost; no new pod */
	pod->delete_by = obs.now - BR_POD_GONE_SLACK_S - 5;
	br_plan_compute(&obs, &plan);
	CHECK_INT(plan.classes[0].phase, BR_CLASS_FAILED);
	CHECK_STR(plan.classes[0].reason, "RunnerLost");
	CHECK_STR(plan.classes[0].message,
		  "runner pod run-fast-1 on node storagebench-b has not stopped 35s after its "
		  "deletion was due: its node does not answer (1 of 3 iterations done, recorded "
		  "iterations are kept)");
	CHECK_INT(count(BR_ACT_CREATE_POD), 0);
	CHECK(has_event("RunnerLost"));
	return T_PASS;
}

static int test_oom_killed_is_not_retried(void)
{
	base(1);
	bound(0);
	obs.classes[0].done = 1;
	add_pod(0, 1, BR_POD_FAILED, 137,
		"OOMKilled: the runner container went over its memory limit "
		"(spec.runner.resources.limits.memory)");
	obs.classes[0].pods[0].oom_killed = true;
	br_plan_compute(&obs, &plan);
	/* max_attempts is 3: still no second pod, the same job would be killed again */
	CHECK_INT(count(BR_ACT_CREATE_POD), 0);
	CHECK_INT(plan.classes[0].phase, BR_CLASS_FAILED);
	CHECK_STR(plan.classes[0].reason, "RunnerFailed");
	CHECK_STR(plan.classes[0].message,
		  "runner pod run-fast-1, not retried (1 of 3 iterations done): OOMKilled: the "
		  "runner container went over its memory limit "
		  "(spec.runner.resources.limits.memory)");
	CHECK(has_event("RunnerFailed"));
	CHECK(!has_event("RunnerRestarted"));
	/* killed with the same exit status but not by the memory limit: retried */
	base(1);
	bound(0);
	add_pod(0, 1, BR_POD_FAILED, 137, "Error: killed");
	br_plan_compute(&obs, &plan);
	CHECK_INT(count(BR_ACT_CREATE_POD), 1);
	CHECK(has_event("RunnerRestarted"));
	return T_PASS;
}

static int test_usage_error_is_not_retried(void)
{
	base(1);
	bound(0);
	add_pod(0, 1, BR_POD_FAILED, 2, "bs: 1000 is not a multiple of 512");
	br_plan_compute(&obs, &plan);
	CHECK_INT(count(BR_ACT_CREATE_POD), 0);
	CHECK_INT(plan.classes[0].phase, BR_CLASS_FAILED);
	CHECK(strstr(plan.classes[0].message, "multiple of 512") != NULL);
	return T_PASS;
}

/* A runner stopped by SIGTERM (evicted, drained: SB_EXIT_INTERRUPTED) is retried, not refused. */
static int test_interrupted_runner_is_retried(void)
{
	base(1);
	bound(0);
	obs.classes[0].done = 1;
	add_pod(0, 1, BR_POD_FAILED, SB_EXIT_INTERRUPTED(SIGTERM),
		"iteration 2 interrupted by SIGTERM: not recorded; 1 iterations recorded");
	br_plan_compute(&obs, &plan);
	CHECK_INT(SB_EXIT_INTERRUPTED(SIGTERM), 143);
	CHECK_INT(count(BR_ACT_CREATE_POD), 1);
	CHECK_INT(find(BR_ACT_CREATE_POD)->attempt, 2);
	CHECK(has_event("RunnerRestarted"));
	CHECK_INT(plan.classes[0].phase, BR_CLASS_RUNNING);
	return T_PASS;
}

static int test_iteration_timeout_stops_pod(void)
{
	base(1);
	bound(0);
	obs.iteration_s = 60;
	add_pod(0, 1, BR_POD_RUNNING, -1, NULL);
	obs.classes[0].pods[0].created = obs.now - 61;
	br_plan_compute(&obs, &plan);
	CHECK_INT(count(BR_ACT_DELETE_POD), 1);
	CHECK(has_event("IterationTimeout"));
	/* a recent result resets the clock */
	obs.classes[0].last_result = obs.now - 5;
	obs.classes[0].done = 1;
	br_plan_compute(&obs, &plan);
	CHECK_INT(count(BR_ACT_DELETE_POD), 0);
	CHECK_INT(plan.requeue_s, 55);
	return T_PASS;
}

static int test_all_done_writes_report_and_cleans(void)
{
	base(2);
	bound(0);
	bound(1);
	obs.classes[0].done = 3;
	obs.classes[1].done = 3;
	add_pod(0, 1, BR_POD_SUCCEEDED, 0, NULL);
	add_pod(1, 1, BR_POD_SUCCEEDED, 0, NULL);
	br_plan_compute(&obs, &plan);
	CHECK_INT(plan.phase, BR_RUN_SUCCEEDED);
	CHECK_STR(plan.reason, "Completed");
	CHECK_INT(plan.done, 6);
	CHECK_INT(count(BR_ACT_WRITE_REPORT), 1);
	/* nothing is deleted before the stored status says the run ended */
	CHECK_INT(count(BR_ACT_DELETE_PVC), 0);
	CHECK_INT(count(BR_ACT_DELETE_POD), 0);
	CHECK(plan.requeue_s > 0 && plan.requeue_s <= 2);
	obs.terminal_recorded = true;
	br_plan_compute(&obs, &plan);
	CHECK_INT(count(BR_ACT_DELETE_PVC), 2);
	CHECK_INT(count(BR_ACT_DELETE_POD), 2);
	/* cleanup Never keeps them; OnSuccess too on success */
	obs.cleanup = BR_CLEANUP_NEVER;
	br_plan_compute(&obs, &plan);
	CHECK_INT(count(BR_ACT_DELETE_PVC), 0);
	obs.cleanup = BR_CLEANUP_ON_SUCCESS;
	br_plan_compute(&obs, &plan);
	CHECK_INT(count(BR_ACT_DELETE_PVC), 2);
	/* a report that exists is not written again */
	obs.report_exists = true;
	br_plan_compute(&obs, &plan);
	CHECK_INT(count(BR_ACT_WRITE_REPORT), 0);
	return T_PASS;
}

static int test_partial_failure_keeps_results(void)
{
	base(2);
	bound(0);
	obs.classes[0].done = 3;
	obs.classes[1].sc_exists = false;
	add_pod(0, 1, BR_POD_SUCCEEDED, 0, NULL);
	br_plan_compute(&obs, &plan);
	CHECK_INT(plan.phase, BR_RUN_FAILED);
	CHECK_STR(plan.reason, "StorageClassNotFound");
	CHECK_INT(count(BR_ACT_WRITE_REPORT), 1); /* fast's results are reported */
	CHECK(strstr(plan.message, "disk: storage class 'disk' does not exist") != NULL);
	obs.terminal_recorded = true;
	br_plan_compute(&obs, &plan);
	CHECK_INT(count(BR_ACT_DELETE_PVC), 1); /* Always */
	obs.cleanup = BR_CLEANUP_ON_SUCCESS;
	br_plan_compute(&obs, &plan);
	CHECK_INT(count(BR_ACT_DELETE_PVC), 0);
	return T_PASS;
}

static int test_run_timeout(void)
{
	base(2);
	bound(0);
	add_pod(0, 1, BR_POD_RUNNING, -1, NULL);
	obs.run_s = 100;
	obs.start = obs.now - 100;
	br_plan_compute(&obs, &plan);
	CHECK_INT(plan.phase, BR_RUN_FAILED);
	CHECK_STR(plan.classes[0].reason, "RunTimeout");
	CHECK_STR(plan.classes[1].reason, "RunTimeout");
	CHECK_INT(count(BR_ACT_DELETE_POD), 1); /* the running pod, once */
	return T_PASS;
}

static int test_sticky_failure_and_determinism(void)
{
	base(1);
	obs.classes[0].prev_phase = BR_CLASS_FAILED;
	snprintf(obs.classes[0].prev_reason, 64, "VolumeBindTimeout");
	snprintf(obs.classes[0].prev_message, 512, "not bound");
	br_plan_compute(&obs, &plan);
	CHECK_INT(plan.classes[0].phase, BR_CLASS_FAILED);
	CHECK_STR(plan.classes[0].reason, "VolumeBindTimeout");
	CHECK_INT(plan.nevents, 0); /* no repeated event */
	struct br_plan again;
	br_plan_compute(&obs, &again);
	CHECK(memcmp(&again, &plan, sizeof(plan)) == 0);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"plan/new-run-starts-within-parallelism", test_new_run_starts_first_class_only},
	{"plan/missing-storage-class-fails-that-class",
	 test_missing_storage_class_fails_only_that_class},
	{"plan/waits-for-created-pod", test_waits_for_created_pod_to_appear},
	{"plan/pvc-bind-timeout", test_bind_timeout},
	{"plan/failed-pod-restarts-for-remaining", test_failed_pod_restarts_for_remaining},
	{"plan/oom-killed-is-not-retried", test_oom_killed_is_not_retried},
	{"plan/pod-on-a-lost-node-fails-the-class", test_pod_on_a_lost_node_fails_the_class},
	{"plan/killed-pod-replaced", test_killed_pod_is_replaced},
	{"plan/attempts-bounded", test_attempts_are_bounded},
	{"plan/usage-error-not-retried", test_usage_error_is_not_retried},
	{"plan/interrupted-runner-retried", test_interrupted_runner_is_retried},
	{"plan/iteration-timeout", test_iteration_timeout_stops_pod},
	{"plan/done-writes-report-and-cleans", test_all_done_writes_report_and_cleans},
	{"plan/partial-failure-keeps-results", test_partial_failure_keeps_results},
	{"plan/run-timeout", test_run_timeout},
	{"plan/sticky-failure-deterministic", test_sticky_failure_and_determinism},
};
TEST_MAIN(cases)
