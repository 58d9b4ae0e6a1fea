/* SPDX-License-Identifier: MIT */
/*
 * The one condition builder and the one status writer of the three
 * reconcilers (controller/core/status.h), against the fake operations table
 * (tests/unit/fakeops.h): lastTransitionTime kept unless the status flips,
 * a condition replaced by type, the write conditioned on the
 * resourceVersion (409: 1, nothing written), vanished keys set to null, no
 * write of what the object already says, and the ring of writes that makes
 * a pass from a cache behind this process's write wait.
 */
#include "tests/unit/harness.h"
#include "tests/unit/fakeops.h"

#include "controller/core/controller.h"
#include "controller/core/status.h"
#include "time/rfc3339.h"

#define NS   "ns"
#define NAME "r"
#define UID  "0c0c0c0c-1111-4222-8333-444455556666"

struct env {
	struct fakeops fo;
	struct br_controller c;
	struct br_metrics *m;
};

static struct env E;

/* A run at resourceVersion 1 on the server and in the cache, its status status_text. */
static int setup(const char *status_text)
{
	struct br_controller_opts opts = {0};
	memset(&E, 0, sizeof(E));
	fo_init(&E.fo);
	E.fo.rv = 1;
	E.m = br_metrics_new();
	if (!E.m || br_controller_init_ops(&E.c, &E.fo.ops, &opts, E.m))
		return -1;
	json_t *run = json_pack("{s:{s:s,s:s,s:s,s:s}}", "metadata", "name", NAME, "namespace", NS,
				"uid", UID, "resourceVersion", "1");
	if (!run)
		return -1;
	if (status_text)
		json_object_set_new(run, "status", json_loads(status_text, 0, NULL));
	fo_put(E.fo.server, "benchmarkruns", run);
	fo_put(E.fo.cache, "benchmarkruns", run);
	json_decref(run);
	return 0;
}

static void teardown(void)
{
	br_controller_release(&E.c);
	br_metrics_free(E.m);
	fo_release(&E.fo);
}

/* The run as the cache has it (a new reference). */
static json_t *cached(void)
{
	return E.fo.ops.cache_get(E.fo.ops.arg, BR_CACHE_RUNS, NS, NAME);
}

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

#define PREV                                                                                      \
	"{\"conditions\":[{\"type\":\"Succeeded\",\"status\":\"Unknown\",\"reason\":\"Running\"," \
	"\"message\":\"m\",\"lastTransitionTime\":\"2026-01-01T00:00:00Z\","                      \
	"\"observedGeneration\":1}]}"

/* lastTransitionTime stays while the status does not flip; a flip takes now. */
static int test_transition_time(void)
{
	json_t *prev = json_loads(PREV, 0, NULL);
	char now_s[SB_RFC3339_LEN];
	time_t now = 1796000000;
	sb_rfc3339_format(now, now_s, sizeof(now_s));
	struct br_condition same = {"Succeeded", "Unknown", "Progressing", "other message", 3};
	json_t *c = br_condition_new(prev, &same, now);
	CHECK(c);
	CHECK_STR(str(c, "lastTransitionTime"), "2026-01-01T00:00:00Z");
	CHECK_STR(str(c, "reason"), "Progressing");
	CHECK_STR(str(c, "message"), "other message");
	CHECK_INT(json_integer_value(json_object_get(c, "observedGeneration")), 3);
	json_decref(c);
	struct br_condition flip = {"Succeeded", "True", "Succeeded", "done", 3};
	c = br_condition_new(prev, &flip, now);
	CHECK_STR(str(c, "lastTransitionTime"), now_s);
	json_decref(c);
	/* another type has no transition yet: now */
	struct br_condition other = {"Regressed", "Unknown", "Compared", "x", 3};
	c = br_condition_new(prev, &other, now);
	CHECK_STR(str(c, "lastTransitionTime"), now_s);
	json_decref(c);
	/* no previous status at all */
	c = br_condition_new(NULL, &same, now);
	CHECK_STR(str(c, "lastTransitionTime"), now_s);
	json_decref(c);
	json_decref(prev);
	return T_PASS;
}

/* br_condition_set replaces the condition of its type and appends another. */
static int test_condition_set(void)
{
	json_t *prev = json_loads(PREV, 0, NULL);
	json_t *st = json_object();
	struct br_condition a = {"Succeeded", "Unknown", "Running", "1", 1};
	struct br_condition b = {"Regressed", "False", "NotSlowerThanBaseline", "2", 1};
	struct br_condition a2 = {"Succeeded", "True", "Succeeded", "3", 1};
	CHECK_INT(br_condition_set(st, prev, &a, 1796000000), 0);
	CHECK_INT(br_condition_set(st, prev, &b, 1796000000), 0);
	CHECK_INT(br_condition_set(st, prev, &a2, 1796000000), 0);
	json_t *conds = json_object_get(st, "conditions");
	CHECK_INT(json_array_size(conds), 2);
	CHECK_STR(str(json_array_get(conds, 0), "type"), "Succeeded");
	CHECK_STR(str(json_array_get(conds, 0), "message"), "3");
	CHECK_STR(str(json_array_get(conds, 1), "type"), "Regressed");
	CHECK(br_condition_find(st, "Regressed") == json_array_get(conds, 1));
	CHECK(br_condition_find(st, "InvalidSpec") == NULL);
	CHECK(br_condition_find(NULL, "Succeeded") == NULL);
	json_decref(st);
	json_decref(prev);
	return T_PASS;
}

/* A status equal to the object's (numbers by value) is not sent; another is, in full. */
static int test_write_only_changes(void)
{
	CHECK_INT(setup("{\"phase\":\"Running\",\"n\":1234,\"old\":\"gone soon\"}"), 0);
	json_t *run = cached();
	json_t *st =
		json_pack("{s:s,s:f,s:s}", "phase", "Running", "n", 1234.0, "old", "gone soon");
	CHECK_INT(br_status_write(&E.c, &br_res_benchmarkruns, run, st), 0);
	CHECK_INT(fo_calls(&E.fo, "patch", "benchmarkruns", NULL), 0);
	json_decref(st);
	st = json_pack("{s:s}", "phase", "Succeeded");
	CHECK_INT(br_status_write(&E.c, &br_res_benchmarkruns, run, st), 0);
	CHECK_INT(fo_calls(&E.fo, "patch", "benchmarkruns", NAME), 1);
	/* the whole status replaced: "old" and "n" went (set to null in the patch) */
	json_t *now = json_object_get(fo_obj(&E.fo, "benchmarkruns", NS, NAME), "status");
	CHECK(json_equal(now, st));
	/* the caller's status is not changed by the write */
	CHECK_INT(json_object_size(st), 1);
	json_decref(st);
	json_decref(run);
	teardown();
	return T_PASS;
}

/* The write is conditioned on the resourceVersion read: a stale object answers 1. */
static int test_write_conflict(void)
{
	CHECK_INT(setup("{\"phase\":\"Running\"}"), 0);
	json_t *run = cached();
	/* someone else wrote meanwhile: the server is at a newer resourceVersion */
	E.fo.cache_lags = true;
	json_t *o = json_deep_copy(fo_obj(&E.fo, "benchmarkruns", NS, NAME));
	fo_store(&E.fo, "benchmarkruns", o);
	json_decref(o);
	json_t *st = json_pack("{s:s}", "phase", "Failed");
	CHECK_INT(br_status_write(&E.c, &br_res_benchmarkruns, run, st), 1);
	CHECK_STR(str(json_object_get(fo_obj(&E.fo, "benchmarkruns", NS, NAME), "status"), "phase"),
		  "Running");
	/* a conflict is not an API error, and not remembered */
	CHECK(!br_status_behind(&E.c, run));
	/* any other failure is returned */
	fo_fail(&E.fo, "patch", "benchmarkruns", -EIO, 500, 1);
	json_decref(run);
	fo_sync(&E.fo);
	run = cached();
	CHECK_INT(br_status_write(&E.c, &br_res_benchmarkruns, run, st), -EIO);
	/* a run gone meanwhile: nothing to write */
	json_array_clear(fo_arr(E.fo.server, "benchmarkruns"));
	CHECK_INT(br_status_write(&E.c, &br_res_benchmarkruns, run, st), 0);
	json_decref(st);
	json_decref(run);
	teardown();
	return T_PASS;
}

/*
 * After a write, the object at the resourceVersion it replaced is behind
 * (for BR_WRITTEN_WAIT_S); once the cache has the new one, or the wait is
 * over, it is not. A write the server answered without a change (pruned)
 * is not sent again at that resourceVersion.
 */
static int test_written_ring(void)
{
	CHECK_INT(setup("{\"phase\":\"Pending\"}"), 0);
	E.fo.cache_lags = true;
	json_t *run = cached();
	json_t *st = json_pack("{s:s}", "phase", "Running");
	CHECK(!br_status_behind(&E.c, run));
	CHECK_INT(br_status_write(&E.c, &br_res_benchmarkruns, run, st), 0);
	CHECK(br_status_behind(&E.c, run));
	E.fo.now += BR_WRITTEN_WAIT_S + 1;
	CHECK(!br_status_behind(&E.c, run));
	fo_sync(&E.fo);
	json_decref(run);
	run = cached();
	CHECK(!br_status_behind(&E.c, run));
	/* a server that prunes the status: the same write at the same version is sent once */
	E.fo.status_pruned = true;
	json_t *st2 = json_pack("{s:s}", "phase", "Succeeded");
	CHECK_INT(br_status_write(&E.c, &br_res_benchmarkruns, run, st2), 0);
	CHECK_INT(br_status_write(&E.c, &br_res_benchmarkruns, run, st2), 0);
	CHECK_INT(fo_calls(&E.fo, "patch", "benchmarkruns", NAME), 2);
	CHECK(!br_status_behind(&E.c, run));
	json_decref(st2);
	json_decref(st);
	json_decref(run);
	teardown();
	return T_PASS;
}

static const struct test_case cases[] = {
	{"status/lastTransitionTime kept unless the status flips", test_transition_time},
	{"status/a condition is replaced by its type", test_condition_set},
	{"status/only a changed status is written, in full", test_write_only_changes},
	{"status/a write from a stale object answers 1 (409)", test_write_conflict},
	{"status/the ring of writes: behind, then caught up; a no-op once", test_written_ring},
};

TEST_MAIN(cases)
