/* SPDX-License-Identifier: MIT */
/*
 * The status as a pure function (controller/run/status.c): from a plan, what
 * apply and report came to, and the previous status, to the new status.
 */
#include "tests/unit/harness.h"

#include "controller/run/status.h"

#include <jansson.h>

#define NOW 1796000000 /* 2026-11-30T00:53:20Z */

static struct br_plan plan;

static void base(struct br_status_in *in)
{
	memset(&plan, 0, sizeof(plan));
	plan.phase = BR_RUN_RUNNING;
	snprintf(plan.reason, sizeof(plan.reason), "Running");
	snprintf(plan.message, sizeof(plan.message), "1 of 2 classes running");
	plan.done = 1;
	plan.total = 4;
	plan.classes[0].phase = BR_CLASS_RUNNING;
	plan.classes[0].attempts = 1;
	snprintf(plan.classes[0].pod, sizeof(plan.classes[0].pod), "r-fast-1");
	memset(in, 0, sizeof(*in));
	in->run = "r";
	in->plan = &plan;
	in->nclasses = 2;
	in->classes[0] = (struct br_status_class){"fast", 1, 1, "io_uring", "", ""};
	in->classes[1] = (struct br_status_class){"slow", 0, 0, "", "", ""};
	in->pods = 1;
	in->report_name = "";
	in->report_err = "";
	in->gen = 3;
	in->now = NOW;
}

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static const json_t *cls(const json_t *st, size_t i)
{
	return json_array_get(json_object_get(st, "classes"), i);
}

static const json_t *cond(const json_t *st)
{
	return json_array_get(json_object_get(st, "conditions"), 0);
}

static int test_running(void)
{
	struct br_status_in in;
	base(&in);
	json_t *st = br_status_compute(&in);
	CHECK(st);
	CHECK_STR(str(st, "phase"), "Running");
	CHECK_STR(str(st, "progress"), "1/4");
	CHECK_STR(str(st, "classList"), "fast,slow");
	CHECK_INT(json_integer_value(json_object_get(st, "observedGeneration")), 3);
	CHECK_STR(str(st, "startTime"), "2026-11-30T00:53:20Z");
	CHECK(!json_object_get(st, "completionTime"));
	CHECK_STR(str(cond(st), "status"), "Unknown");
	CHECK_STR(str(cond(st), "reason"), "Running");
	CHECK_STR(str(cls(st, 0), "pvc"), "r-fast");
	CHECK_STR(str(cls(st, 0), "pod"), "r-fast-1");
	CHECK_STR(str(cls(st, 0), "engine"), "io_uring");
	CHECK_INT(json_integer_value(json_object_get(cls(st, 0), "iterationsDone")), 1);
	/* empty strings are left out; a Pending class has no PVC */
	CHECK(!json_object_get(cls(st, 1), "pvc"));
	CHECK(!json_object_get(cls(st, 1), "pod"));
	CHECK(!json_object_get(cls(st, 1), "engine"));
	CHECK(!json_object_get(cls(st, 1), "reason"));
	CHECK(!json_object_get(cls(st, 0), "pods"));
	json_decref(st);
	return T_PASS;
}

static int test_apply_error_overrides(void)
{
	struct br_status_in in;
	base(&in);
	in.classes[1].apply_reason = "Forbidden";
	in.classes[1].apply_err = "cannot create the runner pod: forbidden";
	json_t *st = br_status_compute(&in);
	CHECK(st);
	CHECK_STR(str(st, "message"), "slow: cannot create the runner pod: forbidden (retrying)");
	CHECK_STR(str(cond(st), "reason"), "Forbidden");
	CHECK_STR(str(cls(st, 1), "reason"), "Forbidden");
	CHECK_STR(str(cls(st, 1), "message"), "cannot create the runner pod: forbidden");
	json_decref(st);
	return T_PASS;
}

static int test_not_terminal_until_report(void)
{
	struct br_status_in in;
	base(&in);
	plan.phase = BR_RUN_SUCCEEDED;
	in.report_err = "cannot create the report configmap: boom";
	json_t *st = br_status_compute(&in);
	CHECK(st);
	/* the plan says Succeeded, the report is not written: still Running */
	CHECK_STR(str(st, "phase"), "Running");
	CHECK_STR(str(cond(st), "reason"), "ReportFailed");
	CHECK_STR(str(st, "message"),
		  "every class has ended; cannot create the report configmap: boom (retrying)");
	CHECK(!json_object_get(st, "completionTime"));
	json_decref(st);
	return T_PASS;
}

static int test_terminal_with_report(void)
{
	struct br_status_in in;
	base(&in);
	plan.phase = BR_RUN_SUCCEEDED;
	snprintf(plan.reason, sizeof(plan.reason), "Succeeded");
	json_t *rep = json_loads(
		"{\"results\":[{\"target\":\"fast\",\"workload\":\"randread\",\"metrics\":{"
		"\"iops\":"
		"{\"unit\":\"IO/"
		"s\",\"mean\":1000,\"stddev\":10,\"min\":990,\"max\":1010,\"n\":2}}}],"
		"\"warnings\":[{\"check\":\"cv\",\"target\":\"fast\",\"workload\":\"randread\","
		"\"message\":\"noisy\"}]}",
		0, NULL);
	json_t *prev = json_loads("{\"startTime\":\"2026-11-28T00:00:00Z\",\"conditions\":[{"
				  "\"type\":\"Succeeded\",\"status\":\"True\","
				  "\"lastTransitionTime\":\"2026-11-28T01:00:00Z\"}],"
				  "\"completionTime\":\"2026-11-28T01:00:00Z\"}",
				  0, NULL);
	CHECK(rep && prev);
	in.terminal = true;
	in.report = rep;
	in.report_name = "r-report";
	in.prev = prev;
	json_t *st = br_status_compute(&in);
	CHECK(st);
	CHECK_STR(str(st, "phase"), "Succeeded");
	CHECK_STR(str(cond(st), "status"), "True");
	/* kept from the previous status: the start, the end, the transition */
	CHECK_STR(str(st, "startTime"), "2026-11-28T00:00:00Z");
	CHECK_STR(str(st, "completionTime"), "2026-11-28T01:00:00Z");
	CHECK_STR(str(cond(st), "lastTransitionTime"), "2026-11-28T01:00:00Z");
	CHECK_STR(str(st, "report"), "r-report");
	const json_t *sum = json_array_get(json_object_get(st, "summary"), 0);
	CHECK_STR(str(sum, "class"), "fast");
	CHECK_STR(str(sum, "metric"), "iops");
	CHECK_INT(json_integer_value(json_object_get(sum, "n")), 2);
	const json_t *w = json_array_get(json_object_get(st, "warnings"), 0);
	CHECK_STR(str(w, "class"), "fast");
	CHECK_STR(str(w, "message"), "noisy");
	/* a condition that flips gets a new transition time */
	plan.phase = BR_RUN_FAILED;
	json_t *st2 = br_status_compute(&in);
	json_decref(prev);
	json_decref(rep);
	CHECK(st2);
	CHECK_STR(str(cond(st2), "status"), "False");
	CHECK_STR(str(cond(st2), "lastTransitionTime"), "2026-11-30T00:53:20Z");
	json_decref(st);
	json_decref(st2);
	return T_PASS;
}

static int test_invalid(void)
{
	json_t *st = br_status_invalid(NULL, "spec.iterations: 0 is below 1", 2, NOW);
	CHECK(st);
	CHECK_STR(str(st, "phase"), "Failed");
	CHECK_STR(str(st, "message"), "spec.iterations: 0 is below 1");
	CHECK_STR(str(cond(st), "reason"), "InvalidSpec");
	CHECK_STR(str(cond(st), "status"), "False");
	CHECK(!json_object_get(st, "startTime"));
	json_decref(st);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"status/running", test_running},
	{"status/an apply error overrides the plan's reason", test_apply_error_overrides},
	{"status/not terminal until the report is written", test_not_terminal_until_report},
	{"status/terminal with its report", test_terminal_with_report},
	{"status/invalid spec", test_invalid},
};

TEST_MAIN(cases)
