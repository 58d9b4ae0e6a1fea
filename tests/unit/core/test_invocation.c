/* SPDX-License-Identifier: MIT */
/*
 * The runner's invocation (lib/core/invocation.h) written as a container's
 * environment and read back from the process environment: what the
 * controller writes is what the runner reads, and a bad value is named.
 */
#include "tests/unit/harness.h"
#include "core/invocation.h"
#include "core/labels.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const all_names[] = {
	SB_ENV_RUN,	 SB_ENV_RUN_UID,   SB_ENV_CLASS,    SB_ENV_ITERATIONS,
	SB_ENV_ATTEMPT,	 SB_ENV_NAMESPACE, SB_ENV_POD_NAME, SB_ENV_JOBFILE_SHA256,
	SB_ENV_MEMBER,	 SB_ENV_MEMBERS,   SB_ENV_DONE,	    SB_ENV_BARRIER_TIMEOUT,
	SB_ENV_NODE_NAME};

/* Sets the process environment from env entries; the downward API's as a kubelet would. */
static int export_env(const json_t *env)
{
	for (size_t i = 0; i < sizeof(all_names) / sizeof(all_names[0]); i++)
		unsetenv(all_names[i]);
	size_t i;
	const json_t *e;
	json_array_foreach(env, i, e)
	{
		const char *n = json_string_value(json_object_get(e, "name"));
		const char *v = json_string_value(json_object_get(e, "value"));
		const char *path = json_string_value(json_object_get(
			json_object_get(json_object_get(e, "valueFrom"), "fieldRef"), "fieldPath"));
		if (!v && path)
			v = !strcmp(path, "metadata.namespace") ? "bench"
			    : !strcmp(path, "metadata.name")	? "demo-fast-1-m2"
			    : !strcmp(path, "spec.nodeName")	? "node-b"
								: NULL;
		if (!n || !v || setenv(n, v, 1))
			return -1;
	}
	return 0;
}

static int test_round_trip(void)
{
	char err[256];
	struct sb_invocation w = {.run = "demo",
				  .uid = "1234-uid",
				  .cls = "fast",
				  .iterations = 3,
				  .attempt = 2,
				  .jobfile_sha256 = "ab12",
				  .member = 2,
				  .members = 3,
				  .done = "1",
				  .barrier_s = 45},
			     r;
	json_t *env = json_array();
	CHECK(env);
	CHECK_INT(sb_invocation_env(&w, env), 0);
	CHECK_INT(export_env(env), 0);
	json_decref(env);
	CHECK_INT(sb_invocation_from_env(&r, err, sizeof(err)), 0);
	CHECK_STR(r.run, "demo");
	CHECK_STR(r.uid, "1234-uid");
	CHECK_STR(r.cls, "fast");
	CHECK_STR(r.ns, "bench");
	CHECK_STR(r.pod, "demo-fast-1-m2");
	CHECK_INT(r.iterations, 3);
	CHECK_INT(r.attempt, 2);
	CHECK_STR(r.jobfile_sha256, "ab12");
	CHECK_INT(r.member, 2);
	CHECK_INT(r.members, 3);
	CHECK_STR(r.done, "1");
	CHECK_INT(r.barrier_s, 45);
	CHECK_STR(r.node, "node-b");
	/* not distributed, no job file: none of those variables */
	struct sb_invocation one = {
		.run = "demo", .uid = "u", .cls = "s3", .iterations = 1, .attempt = 1};
	env = json_array();
	CHECK(env);
	CHECK_INT(sb_invocation_env(&one, env), 0);
	char *text = json_dumps(env, JSON_COMPACT);
	json_decref(env);
	CHECK(text);
	bool clean = !strstr(text, SB_ENV_MEMBER) && !strstr(text, SB_ENV_JOBFILE_SHA256) &&
		     !strstr(text, SB_ENV_NODE_NAME);
	free(text);
	CHECK(clean);
	return T_PASS;
}

static int test_bad_values_named(void)
{
	char err[256];
	struct sb_invocation r;
	struct sb_invocation w = {
		.run = "demo", .uid = "u", .cls = "fast", .iterations = 1, .attempt = 1};
	json_t *env = json_array();
	CHECK(env && sb_invocation_env(&w, env) == 0 && export_env(env) == 0);
	json_decref(env);
	setenv(SB_ENV_ITERATIONS, "0", 1);
	CHECK_INT(sb_invocation_from_env(&r, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "SB_ITERATIONS: '0' is not a count from 1 to 100000");
	setenv(SB_ENV_ITERATIONS, "2", 1);
	setenv(SB_ENV_MEMBERS, "3", 1);
	setenv(SB_ENV_MEMBER, "4", 1);
	CHECK_INT(sb_invocation_from_env(&r, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "SB_MEMBER/SB_MEMBERS: '4' of '3' is not a member of 1 to 64");
	unsetenv(SB_ENV_MEMBERS);
	unsetenv(SB_ENV_MEMBER);
	unsetenv(SB_ENV_RUN_UID);
	CHECK_INT(sb_invocation_from_env(&r, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "environment variable SB_RUN_UID is not set"));
	/* the controller side: the run's names are required */
	struct sb_invocation none = {0};
	env = json_array();
	CHECK(env);
	int er = sb_invocation_env(&none, env);
	json_decref(env);
	CHECK_INT(er, -EINVAL);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"invocation/round-trip", test_round_trip},
	{"invocation/bad-values-named", test_bad_values_named},
};

TEST_MAIN(cases)
