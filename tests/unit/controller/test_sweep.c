/* SPDX-License-Identifier: MIT */
/*
 * A saturation sweep's spec and plan (controller/sweep/sweep.h): spec.sweep.pods
 * parsed, every refusal naming its field (a step's own refusal named with
 * the step), the step's spec and name, and the plan running the steps one
 * after another, going on past a failed step and writing the report once.
 */
#include "tests/unit/harness.h"
#include "controller/sweep/sweep.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>

#define BASE "\"storageClasses\":[\"fast\"],\"profile\":\"quick\",\"iterations\":2"

static int sweep_parse(const char *text, struct br_sweep *sw, char *err, size_t len)
{
	json_t *spec = json_loads(text, 0, NULL);
	if (!spec) {
		snprintf(err, len, "test JSON");
		return -100;
	}
	int r = br_sweep_parse(spec, "localhost/storagebench:test", NULL, sw, err, len);
	json_decref(spec);
	return r;
}

static int test_parsed(void)
{
	struct br_sweep sw;
	char err[512] = "";
	int r = sweep_parse("{" BASE ",\"sweep\":{\"pods\":[1,2,4]}}", &sw, err, sizeof(err));
	if (r)
		fprintf(stderr, "    %s\n", err);
	CHECK_INT(r, 0);
	CHECK_INT(sw.n, 3);
	CHECK(sw.pods[0] == 1 && sw.pods[1] == 2 && sw.pods[2] == 4);
	r = sweep_parse("{" BASE "}", &sw, err, sizeof(err));
	CHECK_INT(r, 0);
	CHECK_INT(sw.n, 0); /* no sweep */
	/* runner.pods 1 is the CRD's default: the API server sets it on every run */
	r = sweep_parse("{" BASE ",\"sweep\":{\"pods\":[2,3]},\"runner\":{\"pods\":1}}", &sw, err,
			sizeof(err));
	CHECK_INT(r, 0);
	CHECK_INT(sw.n, 2);
	return T_PASS;
}

static int test_refusals_name_the_field(void)
{
	static const struct {
		const char *spec, *needle;
	} cases[] = {
		{"{" BASE ",\"sweep\":[1,2]}", "spec.sweep: must be an object"},
		{"{" BASE ",\"sweep\":{\"iodepth\":[1,2]}}", "spec.sweep.iodepth: unknown field"},
		{"{" BASE ",\"sweep\":{}}", "spec.sweep.pods: must be a list of 2 to 8"},
		{"{" BASE ",\"sweep\":{\"pods\":[3]}}",
		 "spec.sweep.pods: must be a list of 2 to 8"},
		{"{" BASE ",\"sweep\":{\"pods\":[1,2,3,4,5,6,7,8,9]}}",
		 "spec.sweep.pods: must be a list of 2 to 8"},
		{"{" BASE ",\"sweep\":{\"pods\":[0,2]}}",
		 "spec.sweep.pods[0]: must be an integer from 1 to 64"},
		{"{" BASE ",\"sweep\":{\"pods\":[1,65]}}",
		 "spec.sweep.pods[1]: must be an integer from 1 to 64"},
		{"{" BASE ",\"sweep\":{\"pods\":[1,\"2\"]}}",
		 "spec.sweep.pods[1]: must be an integer from 1 to 64"},
		{"{" BASE ",\"sweep\":{\"pods\":[1,4,4]}}",
		 "spec.sweep.pods[2]: 4 is not above the step before it (4)"},
		{"{" BASE ",\"sweep\":{\"pods\":[1,2]},\"runner\":{\"pods\":2}}",
		 "spec.runner.pods: not with spec.sweep.pods"},
		{"{" BASE ",\"sweep\":{\"pods\":[1,2]},\"runner\":{\"pods\":\"1\"}}",
		 "spec.runner.pods: not with spec.sweep.pods"},
		/* a step's own refusal, named with the step: one shared RWO volume is fine
		 * for one pod, not for two */
		{"{" BASE ",\"sweep\":{\"pods\":[1,2]},\"runner\":{\"volume\":\"shared\"}}",
		 "spec.sweep.pods[1]: with 2 runner pods: spec.runner.volume: 'shared' with 2 pods "
		 "needs spec.volume.accessMode ReadWriteMany"},
		/* and a refusal of the run itself, the same for every step */
		{"{" BASE ",\"sweep\":{\"pods\":[1,2]},\"iterations\":0}",
		 "spec.sweep.pods[0]: with 1 runner pod: spec.iterations"},
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct br_sweep sw;
		char err[1024] = "";
		int r = sweep_parse(cases[i].spec, &sw, err, sizeof(err));
		if (r != -EINVAL || !strstr(err, cases[i].needle) || sw.n != 0) {
			fprintf(stderr, "    %s\n      -> %d '%s'\n      want '%s'\n",
				cases[i].spec, r, err, cases[i].needle);
			bad++;
		}
	}
	CHECK_INT(bad, 0);
	return T_PASS;
}

static int test_child_spec_and_name(void)
{
	json_t *spec = json_loads("{" BASE ",\"sweep\":{\"pods\":[1,3]},\"runner\":{\"spread\":"
				  "\"None\"},\"volume\":{\"size\":\"1Gi\"}}",
				  0, NULL);
	CHECK(spec != NULL);
	json_t *child = br_sweep_child_spec(spec, 3);
	json_t *bare = json_loads("{" BASE "}", 0, NULL);
	json_t *child2 = bare ? br_sweep_child_spec(bare, 2) : NULL;
	bool ok = child && !json_object_get(child, "sweep") &&
		  json_integer_value(json_object_get(json_object_get(child, "runner"), "pods")) ==
			  3 &&
		  !strcmp(json_string_value(
				  json_object_get(json_object_get(child, "runner"), "spread")),
			  "None") &&
		  json_equal(json_object_get(child, "volume"), json_object_get(spec, "volume")) &&
		  json_object_get(spec, "sweep") && /* the run's own spec is unchanged */
		  !json_object_get(json_object_get(spec, "runner"), "pods");
	bool ok2 = child2 && json_integer_value(json_object_get(json_object_get(child2, "runner"),
								"pods")) == 2;
	json_decref(child);
	json_decref(child2);
	json_decref(bare);
	json_decref(spec);
	CHECK(ok);
	CHECK(ok2);
	char name[80];
	CHECK_INT(br_sweep_child_name(name, sizeof(name), "demo", 16), 0);
	CHECK_STR(name, "demo-p16");
	char longname[64];
	memset(longname, 'a', 60);
	longname[60] = '\0';
	CHECK_INT(br_sweep_child_name(name, sizeof(name), longname, 2), 0); /* 63 */
	CHECK_INT(br_sweep_child_name(name, sizeof(name), longname, 16), -ENAMETOOLONG);
	return T_PASS;
}

static int test_plan_steps_in_order(void)
{
	struct br_sweep sw = {.pods = {1, 2, 3}, .n = 3};
	struct br_sweep_plan p;
	enum br_step_state st[3] = {BR_STEP_ABSENT, BR_STEP_ABSENT, BR_STEP_ABSENT};

	br_sweep_plan_compute(&sw, st, false, &p);
	CHECK_INT(p.create, 0);
	CHECK_INT(p.phase, BR_RUN_RUNNING);
	CHECK(!p.write_report);
	st[0] = BR_STEP_ACTIVE; /* one step at a time */
	br_sweep_plan_compute(&sw, st, false, &p);
	CHECK_INT(p.create, -1);
	CHECK_STR(p.message, "sweep step 1 of 3: 1 runner pod per class");
	st[0] = BR_STEP_SUCCEEDED;
	br_sweep_plan_compute(&sw, st, false, &p);
	CHECK_INT(p.create, 1);
	CHECK_INT(p.ended, 1);
	st[1] = BR_STEP_FAILED; /* the sweep goes on */
	br_sweep_plan_compute(&sw, st, false, &p);
	CHECK_INT(p.create, 2);
	st[2] = BR_STEP_SUCCEEDED;
	br_sweep_plan_compute(&sw, st, false, &p);
	CHECK_INT(p.create, -1);
	CHECK_INT(p.phase, BR_RUN_FAILED);
	CHECK_STR(p.reason, "SweepStepFailed");
	CHECK_STR(p.message, "1 of 3 sweep steps failed (runner pods: 2); the curve has the other "
			     "steps");
	CHECK(p.write_report);
	br_sweep_plan_compute(&sw, st, true, &p); /* written once */
	CHECK(!p.write_report);
	st[1] = BR_STEP_SUCCEEDED;
	br_sweep_plan_compute(&sw, st, false, &p);
	CHECK_INT(p.phase, BR_RUN_SUCCEEDED);
	CHECK_STR(p.reason, "Completed");
	CHECK(p.write_report);
	/* every step failed: no curve to write */
	st[0] = st[1] = st[2] = BR_STEP_FAILED;
	br_sweep_plan_compute(&sw, st, false, &p);
	CHECK_INT(p.phase, BR_RUN_FAILED);
	CHECK(!p.write_report);
	CHECK_STR(p.message, "3 of 3 sweep steps failed (runner pods: 1, 2, 3)");
	return T_PASS;
}

static const struct test_case cases[] = {
	{"sweep/spec.sweep.pods parsed", test_parsed},
	{"sweep/refusals name the field (and the step)", test_refusals_name_the_field},
	{"sweep/a step's spec and name", test_child_spec_and_name},
	{"sweep/plan: steps one after another, past a failure, report once",
	 test_plan_steps_in_order},
};

TEST_MAIN(cases)
