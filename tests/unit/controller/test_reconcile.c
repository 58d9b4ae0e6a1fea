/* SPDX-License-Identifier: MIT */
/*
 * br_reconcile (controller/run/reconcile.c) against the fake operations table
 * (tests/unit/fakeops.h): the objects of a new run, results counted once,
 * the report built once, names held by another run, a failed status write,
 * a report whose create landed before the controller stopped, runner pods
 * in flight and lost; a distributed run (spec.runner.pods 2) from empty to
 * Succeeded, spec.lifecycle, a sweep's first step, a schedule's tick. No
 * cluster, no clock: milliseconds.
 */
#include "tests/unit/harness.h"
#include "controller/core/proof.h"
#include "controller/core/resources.h"
#include "tests/unit/fakeops.h"
#include "tests/unit/member_fixture.h"

#include "controller/core/controller.h"
#include "controller/run/reconcile.h"
#include "controller/lifecycle/lifecycle.h"
#include "controller/schedule/schedule.h"
#include "controller/schedule/reconcile.h"
#include "controller/sweep/sweep.h"
#include "controller/run/runkey.h"
#include "core/labels.h"
#include "core/names.h"
#include "time/rfc3339.h"
#include "result/sign.h"

#define NS  "ns"
#define RUN "r"
#define UID "5a1f0c2e-7777-4888-9999-aaaabbbbcccc"

static const unsigned char MASTER[SB_SIGN_KEY_BYTES] = {1, 2, 3, 4, 5, 6, 7, 8, 9};

struct env {
	struct fakeops fo;
	struct br_controller c;
	struct br_metrics *m;
	long requeue_ms;
};

static struct env E;

static void put_both(const char *res, json_t *obj)
{
	fo_put(E.fo.server, res, obj);
	fo_put(E.fo.cache, res, obj);
	json_decref(obj);
}

/* A run named RUN in NS with spec (JSON text), storage classes fast and slow. */
static int setup(const char *spec)
{
	struct br_controller_opts opts = {0};
	memset(&E, 0, sizeof(E));
	fo_init(&E.fo);
	E.fo.rv = 1; /* the run below is at resourceVersion 1: the server's writes go on from 2 */
	br_runkey_set_master(MASTER);
	E.m = br_metrics_new();
	opts.runner_image = "localhost/storagebench:test";
	if (!E.m || br_controller_init_ops(&E.c, &E.fo.ops, &opts, E.m))
		return -1;
	put_both("storageclasses", json_pack("{s:{s:s}}", "metadata", "name", "fast"));
	put_both("storageclasses", json_pack("{s:{s:s}}", "metadata", "name", "slow"));
	json_t *run = json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:i,s:s},s:o}", "apiVersion",
				SB_API_VERSION, "kind", SB_KIND, "metadata", "name", RUN,
				"namespace", NS, "uid", UID, "generation", 1, "resourceVersion",
				"1", "spec", json_loads(spec, 0, NULL));
	put_both("benchmarkruns", run);
	return 0;
}

static void teardown(void)
{
	br_controller_release(&E.c);
	br_metrics_free(E.m);
	fo_release(&E.fo);
}

static int pass(void)
{
	return br_reconcile(&E.c, NS, RUN, &E.requeue_ms);
}

static unsigned long iterations_metric(void)
{
	char *text = br_metrics_render(E.m, NULL, 0);
	const char *p = text ? strstr(text, "\nstoragebench_iterations_completed_total ") : NULL;
	unsigned long n =
		p ? strtoul(p + strlen("\nstoragebench_iterations_completed_total "), NULL, 10)
		  : 999;
	free(text);
	return n;
}

/* The run's status on the server (borrowed). */
static json_t *status(void)
{
	return json_object_get(fo_obj(&E.fo, "benchmarkruns", NS, RUN), "status");
}

static json_t *class_status(const char *cls)
{
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(status(), "classes"), i, c)
	{
		if (!strcmp(json_string_value(json_object_get(c, "name")), cls))
			return c;
	}
	return NULL;
}

static long long class_int(const char *cls, const char *k)
{
	return json_integer_value(json_object_get(class_status(cls), k));
}

static const char *class_str(const char *cls, const char *k)
{
	return json_string_value(json_object_get(class_status(cls), k));
}

/* Sets a field of the server's and the cache's object (what the kubelet or binder does). */
static void set_phase(const char *res, const char *name, const char *phase)
{
	json_t *stores[2] = {E.fo.server, E.fo.cache};
	for (int i = 0; i < 2; i++) {
		long k = fo_find(stores[i], res, NS, name);
		if (k < 0)
			continue;
		json_t *o = json_array_get(fo_arr(stores[i], res), (size_t)k);
		json_object_set_new(o, "status", json_pack("{s:s}", "phase", phase));
	}
}

/* A runner's signed result of iteration it of cls, as the runner writes it. */
static int add_result(const char *cls, unsigned it, double iops)
{
	char name[64], text[1024], itb[16], mac[SB_SIGN_HEX_LEN + 1], cls_label[64];
	unsigned char key[SB_SIGN_KEY_BYTES];
	if (sb_name_result(name, sizeof(name), RUN, cls, it) || br_runkey_derive(UID, key) ||
	    sb_name_label(cls_label, sizeof(cls_label), cls))
		return -1;
	snprintf(
		text, sizeof(text),
		"{\"jobs\":[{\"jobname\":\"randread\",\"job options\":{\"rw\":\"randread\","
		"\"bs\":\"4k\",\"iodepth\":\"32\"},\"read\":{\"total_ios\":100,\"iops\":%g,"
		"\"bw_bytes\":%g,\"lat_ns\":{\"mean\":1000,\"N\":100}},\"write\":{\"total_ios\":0},"
		"\"sync\":{\"total_ios\":0},\"engine\":{\"ran\":\"io_uring\"}}],"
		"\"context\":{\"run\":\"%s\",\"class\":\"%s\",\"iteration\":%u}}",
		iops, iops * 4096, RUN, cls, it);
	if (sb_sign_result(key, sizeof(key), &(struct sb_sign_subject){UID, cls, it, 0, 0}, text,
			   strlen(text), mac))
		return -1;
	snprintf(itb, sizeof(itb), "%u", it);
	json_t *cm = json_pack(
		"{s:{s:s,s:s,s:s,s:{s:s,s:s,s:s,s:s,s:s},s:[{s:s,s:s,s:s,s:s}]},s:{s:s,s:s}}",
		"metadata", "name", name, "namespace", NS, "creationTimestamp",
		"2026-11-30T08:00:00Z", "labels", SB_LABEL_COMPONENT, "result", SB_LABEL_RUN, RUN,
		SB_LABEL_CLASS, cls_label, SB_LABEL_ITERATION, itb, SB_LABEL_MANAGED_BY, SB_MANAGER,
		"ownerReferences", "apiVersion", SB_API_VERSION, "kind", SB_KIND, "name", RUN,
		"uid", UID, "data", SB_RESULT_KEY, text, SB_RESULT_MAC_KEY, mac);
	if (!cm)
		return -1;
	put_both("configmaps", cm);
	return 0;
}

/* Passes until the run is Running with a runner pod of attempt 1 per class. */
static int to_running(const char *cls)
{
	char pvc[64];
	if (pass() || sb_name_pvc(pvc, sizeof(pvc), RUN, cls))
		return -1;
	set_phase("persistentvolumeclaims", pvc, "Bound");
	return pass();
}

/* --------------------------------------------------------------------------- */

static int test_new_run_creates_its_objects(void)
{
	CHECK_INT(setup("{\"storageClasses\":[\"fast\"],\"iterations\":2}"), 0);
	char pvc[64], pod[64];
	CHECK_INT(sb_name_pvc(pvc, sizeof(pvc), RUN, "fast"), 0);
	CHECK_INT(sb_name_pod(pod, sizeof(pod), RUN, "fast", 1), 0);
	CHECK_INT(pass(), 0);
	/* the volume, the key Secret and the runner pod (it waits for the volume) */
	CHECK_INT(fo_calls(&E.fo, "create", "persistentvolumeclaims", pvc), 1);
	json_t *o = fo_obj(&E.fo, "persistentvolumeclaims", NS, pvc);
	CHECK(o);
	CHECK_STR(json_string_value(json_object_get(
			  json_array_get(json_object_get(json_object_get(o, "metadata"),
							 "ownerReferences"),
					 0),
			  "uid")),
		  UID);
	CHECK_INT(fo_calls(&E.fo, "create", "secrets", NULL), 1);
	CHECK_INT(fo_calls(&E.fo, "create", "pods", pod), 1);
	CHECK(fo_obj(&E.fo, "pods", NS, pod));
	CHECK_INT(fo_events(&E.fo, "CreatedVolume"), 1);
	CHECK_INT(fo_events(&E.fo, "CreatedRunner"), 1);
	CHECK_STR(json_string_value(json_object_get(status(), "phase")), "Running");
	CHECK_INT(class_int("fast", "attempts"), 1);
	CHECK_STR(class_str("fast", "pvc"), pvc);
	set_phase("persistentvolumeclaims", pvc, "Bound");
	CHECK_INT(pass(), 0);
	CHECK_STR(class_str("fast", "phase"), "Running");
	CHECK_STR(class_str("fast", "pod"), pod);
	/* observe read the caches only: no GET or LIST was sent */
	CHECK_INT(fo_calls(&E.fo, "get", "pods", NULL), 0);
	CHECK_INT(fo_calls(&E.fo, "list", "events", NULL), 0);
	/* nothing new: no second create, no status write */
	size_t patches = fo_calls(&E.fo, "patch", "benchmarkruns", NULL);
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "pods", NULL), 1);
	CHECK_INT(fo_calls(&E.fo, "patch", "benchmarkruns", NULL), patches);
	teardown();
	return T_PASS;
}

static int test_result_counted_once(void)
{
	CHECK_INT(setup("{\"storageClasses\":[\"fast\"],\"iterations\":2}"), 0);
	CHECK_INT(to_running("fast"), 0);
	CHECK_INT(iterations_metric(), 0);
	CHECK_INT(add_result("fast", 1, 1000), 0);
	CHECK_INT(pass(), 0);
	CHECK_INT(class_int("fast", "iterationsDone"), 1);
	CHECK_STR(json_string_value(json_object_get(status(), "progress")), "1/2");
	CHECK_STR(class_str("fast", "engine"), "io_uring");
	CHECK_INT(iterations_metric(), 1);
	CHECK_INT(fo_events(&E.fo, "IterationsRecorded"), 1);
	/* the next pass reads the written status: not counted twice */
	CHECK_INT(pass(), 0);
	CHECK_INT(iterations_metric(), 1);
	CHECK_INT(fo_events(&E.fo, "IterationsRecorded"), 1);
	teardown();
	return T_PASS;
}

static int test_report_built_once(void)
{
	char rep[64];
	CHECK_INT(sb_name_report(rep, sizeof(rep), RUN), 0);
	CHECK_INT(setup("{\"storageClasses\":[\"fast\",\"slow\"],\"iterations\":1,"
			"\"parallelism\":2}"),
		  0);
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "pods", NULL), 2);
	/* one class done: no report yet */
	CHECK_INT(add_result("fast", 1, 1000), 0);
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "configmaps", rep), 0);
	CHECK_STR(class_str("fast", "phase"), "Succeeded");
	CHECK_STR(json_string_value(json_object_get(status(), "phase")), "Running");
	/* both: the report, once */
	CHECK_INT(add_result("slow", 1, 500), 0);
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "configmaps", rep), 1);
	CHECK(fo_obj(&E.fo, "configmaps", NS, rep));
	CHECK_INT(fo_events(&E.fo, "ReportWritten"), 1);
	CHECK_STR(json_string_value(json_object_get(status(), "phase")), "Succeeded");
	CHECK_STR(json_string_value(json_object_get(status(), "report")), rep);
	CHECK(json_array_size(json_object_get(status(), "summary")) > 0);
	for (int i = 0; i < 3; i++)
		CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "configmaps", rep), 1);
	CHECK_INT(fo_events(&E.fo, "ReportWritten"), 1);
	CHECK_INT(fo_events(&E.fo, "RunSucceeded"), 1);
	teardown();
	return T_PASS;
}

/*
 * Issue 34: a PVC planted with the run's own ownerReference (its UID is
 * readable by anyone who reads the run) is not the run's without the
 * controller's proof: a conflict that names the proof, never adopted; the
 * one the controller writes carries a proof that verifies.
 */
static int test_planted_with_our_owner_not_ours(void)
{
	char pvc[64], why[300];
	CHECK_INT(sb_name_pvc(pvc, sizeof(pvc), RUN, "fast"), 0);
	CHECK_INT(setup("{\"storageClasses\":[\"fast\"],\"iterations\":1}"), 0);
	json_t *planted = json_pack("{s:{s:s,s:s,s:[{s:s,s:s,s:s,s:s}]}}", "metadata", "name", pvc,
				    "namespace", NS, "ownerReferences", "apiVersion",
				    SB_API_VERSION, "kind", SB_KIND, "name", RUN, "uid", UID);
	CHECK(planted);
	fo_put(E.fo.server, "persistentvolumeclaims", planted);
	json_decref(planted);
	CHECK_INT(pass(), -EAGAIN);
	CHECK_STR(class_str("fast", "reason"), "ObjectConflict");
	CHECK(strstr(class_str("fast", "message"), "not the controller's"));
	CHECK(strstr(class_str("fast", "message"), SB_ANNOT_PROOF));
	CHECK_INT(fo_calls(&E.fo, "delete", "persistentvolumeclaims", NULL), 0);
	/* gone: the controller's own PVC, with a proof of it */
	long at = fo_find(E.fo.server, "persistentvolumeclaims", NS, pvc);
	CHECK(at >= 0);
	json_array_remove(fo_arr(E.fo.server, "persistentvolumeclaims"), (size_t)at);
	(void)pass();
	json_t *made = fo_obj(&E.fo, "persistentvolumeclaims", NS, pvc);
	CHECK(made);
	CHECK_INT(br_proof_check(made, &kube_res_pvcs, why, sizeof(why)), 0);
	teardown();
	return T_PASS;
}

static int test_foreign_object_not_ours(void)
{
	char pvc[64];
	CHECK_INT(sb_name_pvc(pvc, sizeof(pvc), RUN, "fast"), 0);
	CHECK_INT(setup("{\"storageClasses\":[\"fast\"],\"iterations\":1}"), 0);
	/* a PVC of the run's PVC name, owned by another run (the informer has
	 * not shown it: the create answers AlreadyExists) */
	json_t *other = json_pack("{s:{s:s,s:s,s:[{s:s,s:s,s:s,s:s}]}}", "metadata", "name", pvc,
				  "namespace", NS, "ownerReferences", "apiVersion", SB_API_VERSION,
				  "kind", SB_KIND, "name", "other", "uid", "other-uid");
	CHECK(other);
	fo_put(E.fo.server, "persistentvolumeclaims", other);
	json_decref(other);
	CHECK_INT(pass(), -EAGAIN);
	CHECK_INT(fo_calls(&E.fo, "get", "persistentvolumeclaims", pvc), 1);
	CHECK_STR(class_str("fast", "reason"), "ObjectConflict");
	CHECK(strstr(class_str("fast", "message"), "not this run's"));
	CHECK_INT(fo_events(&E.fo, "ObjectConflict"), 1);
	/* not taken as ours: the other run's PVC is left alone, the class not Bound */
	CHECK_INT(fo_calls(&E.fo, "delete", "persistentvolumeclaims", NULL), 0);
	CHECK(strcmp(class_str("fast", "phase"), "Running"));
	/* said once */
	CHECK_INT(pass(), -EAGAIN);
	CHECK_INT(fo_events(&E.fo, "ObjectConflict"), 1);
	teardown();
	return T_PASS;
}

/* The server's events (borrowed array). */
static json_t *events(void)
{
	return json_object_get(E.fo.server, "events");
}

/*
 * A run naming a missing storage class: one status write, one Warning event
 * naming it (RunFailed carries the class's message). A class that failed
 * after it started keeps its own event.
 */
static int test_fail_fast_run_requests(void)
{
	CHECK_INT(setup("{\"storageClasses\":[\"missing\"],\"iterations\":2}"), 0);
	CHECK_INT(pass(), 0);
	CHECK_STR(json_string_value(json_object_get(status(), "phase")), "Failed");
	CHECK_STR(class_str("missing", "reason"), "StorageClassNotFound");
	CHECK_INT(fo_calls(&E.fo, "patch", "benchmarkruns", NULL), 1);
	/* one event, not the class's StorageClassNotFound and then RunFailed saying it again */
	CHECK_INT(json_array_size(events()), 1);
	CHECK_INT(fo_events(&E.fo, "RunFailed"), 1);
	json_t *ev = json_array_get(events(), 0);
	CHECK_STR(json_string_value(json_object_get(ev, "type")), "Warning");
	CHECK(strstr(json_string_value(json_object_get(ev, "message")),
		     "missing: storage class 'missing' does not exist"));
	/* its own status back through the watch: nothing more */
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "patch", "benchmarkruns", NULL), 1);
	CHECK_INT(E.fo.ncalls, 2);
	teardown();
	/* one class of two missing: the run goes on, the class's event is sent at once */
	CHECK_INT(setup("{\"storageClasses\":[\"fast\",\"missing\"],\"iterations\":2,"
			"\"parallelism\":2}"),
		  0);
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_events(&E.fo, "StorageClassNotFound"), 1);
	CHECK_INT(fo_events(&E.fo, "RunFailed"), 0);
	teardown();
	/* a class that started and failed (its runner OOMKilled): its own event stays */
	char pod[64];
	CHECK_INT(setup("{\"storageClasses\":[\"fast\"],\"iterations\":2}"), 0);
	CHECK_INT(to_running("fast"), 0);
	CHECK_INT(sb_name_pod(pod, sizeof(pod), RUN, "fast", 1), 0);
	json_t *stores[2] = {E.fo.server, E.fo.cache};
	for (int i = 0; i < 2; i++) {
		long k = fo_find(stores[i], "pods", NS, pod);
		CHECK(k >= 0);
		json_object_set_new(json_array_get(fo_arr(stores[i], "pods"), (size_t)k), "status",
				    json_pack("{s:s,s:[{s:{s:{s:i,s:s}}}]}", "phase", "Failed",
					      "containerStatuses", "state", "terminated",
					      "exitCode", 137, "reason", "OOMKilled"));
	}
	CHECK_INT(pass(), 0);
	CHECK_STR(json_string_value(json_object_get(status(), "phase")), "Failed");
	CHECK_INT(fo_events(&E.fo, "RunnerFailed"), 1);
	CHECK_INT(fo_events(&E.fo, "RunFailed"), 1);
	teardown();
	return T_PASS;
}

/*
 * A pass from a cache that has not seen this process's status write yet (the
 * run at the resourceVersion the write replaced): before, it wrote again
 * (refused, 409) and sent its plan's events a second time; it now waits for
 * the watch, at most BR_WRITTEN_WAIT_S.
 */
static int test_stale_cache_after_own_write(void)
{
	CHECK_INT(setup("{\"storageClasses\":[\"missing\"],\"iterations\":2}"), 0);
	E.fo.cache_lags = true;
	E.fo.now = 1000;
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "patch", "benchmarkruns", NULL), 1);
	size_t calls = E.fo.ncalls;
	/* the run's 2 s deadline, the cache still at the old run */
	E.fo.now += 2;
	CHECK_INT(pass(), 0);
	CHECK_INT(E.fo.ncalls, calls);
	CHECK_INT(E.requeue_ms, 1000);
	/* the watch brings the write: a pass from it writes nothing */
	fo_sync(&E.fo);
	E.fo.cache_lags = false;
	CHECK_INT(pass(), 0);
	CHECK_INT(E.fo.ncalls, calls);
	teardown();

	/* a real run: its second pass from the stale cache sends nothing */
	CHECK_INT(setup("{\"storageClasses\":[\"fast\"],\"iterations\":2}"), 0);
	E.fo.cache_lags = true;
	E.fo.now = 1000;
	CHECK_INT(pass(), 0);
	calls = E.fo.ncalls;
	size_t started = fo_events(&E.fo, "StartedClass");
	CHECK_INT(started, 1);
	CHECK_INT(pass(), 0);
	CHECK_INT(E.fo.ncalls, calls);
	CHECK_INT(fo_events(&E.fo, "StartedClass"), 1);
	/* the watch never brought it: after BR_WRITTEN_WAIT_S the pass goes on (409) */
	E.fo.now += 11;
	CHECK_INT(pass(), 0);
	CHECK(E.fo.ncalls > calls);
	CHECK_INT(E.requeue_ms, 200);
	teardown();
	return T_PASS;
}

/*
 * An ended run's status as the API server gives it back (its summary's
 * whole numbers as integers) is the status a pass computes: not written
 * again on every pass (before: one status patch per pass, each changing
 * nothing on the server).
 */
static int test_status_read_back_not_rewritten(void)
{
	CHECK_INT(setup("{\"storageClasses\":[\"fast\"],\"iterations\":1}"), 0);
	CHECK_INT(to_running("fast"), 0);
	CHECK_INT(add_result("fast", 1, 1000), 0);
	CHECK_INT(pass(), 0);
	CHECK_STR(json_string_value(json_object_get(status(), "phase")), "Succeeded");
	const json_t *sum = json_array_get(json_object_get(status(), "summary"), 0);
	CHECK(json_is_integer(json_object_get(sum, "mean"))); /* 1000, read back */
	size_t patches = fo_calls(&E.fo, "patch", "benchmarkruns", NULL);
	for (int i = 0; i < 3; i++)
		CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "patch", "benchmarkruns", NULL), patches);
	teardown();
	return T_PASS;
}

/*
 * A status patch the server answers without a new resourceVersion changed
 * nothing (it pruned what was sent): the same status is not sent again at
 * that version, and a pass does not wait for a watch event that will not
 * come; at a new version it is written again.
 */
static int test_noop_write_not_repeated(void)
{
	CHECK_INT(setup("{\"storageClasses\":[\"missing\"],\"iterations\":2}"), 0);
	E.fo.status_pruned = true;
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "patch", "benchmarkruns", NULL), 1);
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "patch", "benchmarkruns", NULL), 1);
	CHECK(E.requeue_ms != 1000); /* not waiting for the watch */
	/* someone else changed the run: a new version, written again */
	long k = fo_find(E.fo.cache, "benchmarkruns", NS, RUN);
	CHECK(k >= 0);
	json_object_set_new(
		json_object_get(json_array_get(fo_arr(E.fo.cache, "benchmarkruns"), (size_t)k),
				"metadata"),
		"resourceVersion", json_string("7"));
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "patch", "benchmarkruns", NULL), 2);
	teardown();
	return T_PASS;
}

static int test_status_write_failure_retried(void)
{
	CHECK_INT(setup("{\"storageClasses\":[\"fast\"],\"iterations\":2}"), 0);
	CHECK_INT(to_running("fast"), 0);
	CHECK_INT(add_result("fast", 1, 1000), 0);
	fo_fail(&E.fo, "patch", "benchmarkruns", -EIO, 500, 1);
	CHECK_INT(pass(), -EAGAIN);
	CHECK_INT(iterations_metric(), 0);
	CHECK_INT(class_int("fast", "iterationsDone"), 0);
	CHECK_INT(fo_events(&E.fo, "IterationsRecorded"), 0);
	/* the retry writes it, and counts it */
	CHECK_INT(pass(), 0);
	CHECK_INT(class_int("fast", "iterationsDone"), 1);
	CHECK_INT(iterations_metric(), 1);
	/* a pass from a stale cache: its write is refused (409), nothing counted */
	CHECK_INT(add_result("fast", 2, 1000), 0);
	long k = fo_find(E.fo.cache, "benchmarkruns", NS, RUN);
	CHECK(k >= 0);
	json_object_set_new(
		json_object_get(json_array_get(fo_arr(E.fo.cache, "benchmarkruns"), (size_t)k),
				"metadata"),
		"resourceVersion", json_string("1"));
	CHECK_INT(pass(), 0);
	CHECK_INT(E.requeue_ms, 200);
	CHECK_INT(iterations_metric(), 1);
	teardown();
	return T_PASS;
}

/* The report create reached the server, then the controller stopped before the status said so. */
static int report_landed(bool in_cache)
{
	char rep[64];
	CHECK_INT(sb_name_report(rep, sizeof(rep), RUN), 0);
	CHECK_INT(setup("{\"storageClasses\":[\"fast\"],\"iterations\":1}"), 0);
	CHECK_INT(to_running("fast"), 0);
	CHECK_INT(add_result("fast", 1, 1000), 0);
	/* the previous controller's pass: its report create landed, its status write did not */
	fo_fail(&E.fo, "patch", "benchmarkruns", -EIO, 500, 1);
	CHECK_INT(pass(), -EAGAIN);
	CHECK(fo_obj(&E.fo, "configmaps", NS, rep));
	CHECK(!json_object_get(status(), "report"));
	if (!in_cache) {
		long k = fo_find(E.fo.cache, "configmaps", NS, rep);
		CHECK(k >= 0);
		json_array_remove(fo_arr(E.fo.cache, "configmaps"), (size_t)k);
	}
	/* a new controller: no memory of the event it may or may not have sent */
	memset(E.c.announced, 0, sizeof(E.c.announced));
	E.c.nannounced = 0;
	size_t before = fo_events(&E.fo, "ReportWritten");
	size_t creates = fo_calls(&E.fo, "create", "configmaps", rep);
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "configmaps", rep), creates + !in_cache);
	CHECK_INT(fo_events(&E.fo, "ReportWritten"), before + 1);
	CHECK_STR(json_string_value(json_object_get(status(), "report")), rep);
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_events(&E.fo, "ReportWritten"), before + 1);
	teardown();
	return T_PASS;
}

static int test_report_written_when_create_landed(void)
{
	CHECK_INT(report_landed(true), T_PASS);
	CHECK_INT(report_landed(false), T_PASS);
	return T_PASS;
}

/* A failed runner create is not an attempt (the apply step leaves the plan as it was). */
static int test_failed_create_not_an_attempt(void)
{
	char pvc[64];
	CHECK_INT(sb_name_pvc(pvc, sizeof(pvc), RUN, "fast"), 0);
	CHECK_INT(setup("{\"storageClasses\":[\"fast\"],\"iterations\":1}"), 0);
	fo_fail(&E.fo, "create", "pods", -EACCES, 403, 1);
	CHECK_INT(pass(), -EAGAIN);
	CHECK_INT(class_int("fast", "attempts"), 0);
	CHECK_STR(class_str("fast", "reason"), "Forbidden");
	CHECK(strstr(json_string_value(json_object_get(status(), "message")), "(retrying)"));
	CHECK_INT(fo_events(&E.fo, "Forbidden"), 1);
	CHECK(!br_inflight_has(&E.c, NS, "r-fast-1", E.fo.now));
	CHECK_INT(pass(), 0);
	CHECK_INT(class_int("fast", "attempts"), 1);
	teardown();
	return T_PASS;
}

/* A pod the cache lacks: in flight (wait), or gone (a new attempt). Never a GET. */
static int test_pod_in_flight_or_lost(void)
{
	char pod[64], pod2[64];
	CHECK_INT(sb_name_pod(pod, sizeof(pod), RUN, "fast", 1), 0);
	CHECK_INT(sb_name_pod(pod2, sizeof(pod2), RUN, "fast", 2), 0);
	CHECK_INT(setup("{\"storageClasses\":[\"fast\"],\"iterations\":1}"), 0);
	CHECK_INT(to_running("fast"), 0);
	CHECK(br_inflight_has(&E.c, NS, pod, E.fo.now));
	/* the pod informer has not shown it yet */
	long k = fo_find(E.fo.cache, "pods", NS, pod);
	CHECK(k >= 0);
	json_array_remove(fo_arr(E.fo.cache, "pods"), (size_t)k);
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "pods", NULL), 1);
	CHECK_INT(fo_events(&E.fo, "RunnerLost"), 0);
	CHECK(E.requeue_ms > 0 && E.requeue_ms <= 2000);
	/* the informer saw it go (a DELETE): lost, the rest in a new pod */
	br_inflight_drop(&E.c, NS, pod);
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_events(&E.fo, "RunnerLost"), 1);
	CHECK_INT(fo_calls(&E.fo, "create", "pods", pod2), 1);
	CHECK_INT(fo_calls(&E.fo, "get", "pods", NULL), 0);
	teardown();
	return T_PASS;
}

/* Marks the runner pod deleted with its deletion due at `due`, on the server and in the cache. */
static void set_deleting(const char *pod, time_t due)
{
	char ts[40];
	json_t *stores[2] = {E.fo.server, E.fo.cache};
	for (int i = 0; i < 2; i++) {
		long k = fo_find(stores[i], "pods", NS, pod);
		if (k >= 0)
			json_object_set_new(
				json_object_get(
					json_array_get(fo_arr(stores[i], "pods"), (size_t)k),
					"metadata"),
				"deletionTimestamp",
				json_string(sb_rfc3339_format(due, ts, sizeof(ts))));
	}
}

/* A run of 2 iterations whose runner pod of attempt 1 (pod; pod2 the name of
 * attempt 2's, both 64 bytes) is Running, shown by the informer, and deleted
 * with its deletion due 5 s ago. */
static int deleting_runner(char *pod, char *pod2)
{
	if (sb_name_pod(pod, 64, RUN, "fast", 1) || sb_name_pod(pod2, 64, RUN, "fast", 2) ||
	    setup("{\"storageClasses\":[\"fast\"],\"iterations\":2}") || to_running("fast"))
		return -1;
	set_phase("pods", pod, "Running");
	br_inflight_drop(&E.c, NS, pod); /* the informer has shown it */
	set_deleting(pod, E.fo.now - 5);
	return 0;
}

/*
 * A runner pod still cached BR_POD_GONE_SLACK_S after its deletion was due:
 * read once from the API server. Still there: its node is lost (RunnerLost,
 * the class fails). Gone from the server (the cache's DELETE is late): a new
 * attempt, nothing failed. The read failing: wait, never a failure on a guess.
 */
static int overdue_case(int server_has_it, int get_fault)
{
	char pod[64], pod2[64];
	CHECK_INT(deleting_runner(pod, pod2), 0);
	/* due, within the slack: wait for it, no read */
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "get", "pods", pod), 0);
	CHECK(E.requeue_ms > 0 && E.requeue_ms <= 2000);
	E.fo.now += BR_POD_GONE_SLACK_S;
	if (!server_has_it) {
		long k = fo_find(E.fo.server, "pods", NS, pod);
		CHECK(k >= 0);
		json_array_remove(fo_arr(E.fo.server, "pods"), (size_t)k);
	}
	if (get_fault)
		fo_fail(&E.fo, "get", "pods", -EIO, 500, 1);
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "get", "pods", pod), 1);
	if (get_fault) {
		CHECK_STR(json_string_value(json_object_get(status(), "phase")), "Running");
		CHECK_INT(fo_events(&E.fo, "RunnerLost"), 0);
		CHECK(E.requeue_ms > 0 && E.requeue_ms <= 2000);
	} else if (server_has_it) {
		CHECK_STR(class_str("fast", "phase"), "Failed");
		CHECK_STR(class_str("fast", "reason"), "RunnerLost");
		CHECK_INT(fo_calls(&E.fo, "create", "pods", pod2), 0);
	} else {
		CHECK_STR(json_string_value(json_object_get(status(), "phase")), "Running");
		CHECK_INT(fo_events(&E.fo, "RunnerLost"),
			  1); /* "runner pod of attempt 1 is gone" */
		CHECK_INT(fo_calls(&E.fo, "create", "pods", pod2), 1);
		CHECK_INT(class_int("fast", "attempts"), 2);
	}
	teardown();
	return T_PASS;
}

/* A pod whose kubelet confirmed the deletion (deletionGracePeriodSeconds 0:
 * its containers stopped) is gone for the plan though the object is still
 * there: a new attempt at once, no read, no RunnerLost failure. */
static int test_confirmed_deletion_is_gone(void)
{
	char pod[64], pod2[64];
	CHECK_INT(deleting_runner(pod, pod2), 0);
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "pods", pod2), 0); /* grace period running: wait */
	json_t *stores[2] = {E.fo.server, E.fo.cache};
	for (int i = 0; i < 2; i++)
		json_object_set_new(
			json_object_get(json_array_get(fo_arr(stores[i], "pods"),
						       (size_t)fo_find(stores[i], "pods", NS, pod)),
					"metadata"),
			"deletionGracePeriodSeconds", json_integer(0));
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "get", "pods", pod), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "pods", pod2), 1);
	CHECK_INT(class_int("fast", "attempts"), 2);
	CHECK_STR(json_string_value(json_object_get(status(), "phase")), "Running");
	teardown();
	return T_PASS;
}

static int test_overdue_pod_read_before_lost(void)
{
	CHECK_INT(overdue_case(1, 0), T_PASS);
	CHECK_INT(overdue_case(0, 0), T_PASS);
	CHECK_INT(overdue_case(1, 1), T_PASS);
	return T_PASS;
}

/* ------------------------------------------------ distributed, lifecycle, sweep, schedule */

/* Sets every server and cache object of res whose name starts with prefix to phase. */
static void set_phase_all(const char *res, const char *prefix, const char *phase)
{
	json_t *stores[2] = {E.fo.server, E.fo.cache};
	for (int i = 0; i < 2; i++) {
		size_t k;
		json_t *o;
		json_array_foreach(fo_arr(stores[i], res), k, o)
		{
			if (!strncmp(fo_meta(o, "name"), prefix, strlen(prefix)))
				json_object_set_new(o, "status",
						    json_pack("{s:s}", "phase", phase));
		}
	}
}

/* What member m of attempt 1 of class fast writes for iteration it (the fake plays the runner). */
static int add_member_result(unsigned it, unsigned m, double iops)
{
	const struct fx_member fm = {NS, RUN, UID, "fast", it, 1, m};
	char text[1024];
	snprintf(
		text, sizeof(text),
		"{\"jobs\":[{\"jobname\":\"randread\",\"job options\":{\"rw\":\"randread\","
		"\"bs\":\"4k\",\"iodepth\":\"32\"},\"read\":{\"total_ios\":100,\"iops\":%g,"
		"\"bw_bytes\":%g,\"lat_ns\":{\"mean\":1000,\"N\":100}},\"write\":{\"total_ios\":0},"
		"\"sync\":{\"total_ios\":0},\"engine\":{\"ran\":\"io_uring\"}}],"
		"\"context\":{\"run\":\"%s\",\"class\":\"fast\",\"iteration\":%u,\"pod\":"
		"\"%s-fast-1-m%u\",\"attempt\":1,\"member\":%u}}",
		iops, iops * 4096, RUN, it, RUN, m, m);
	json_t *cm = fx_member_result(&fm, text, true);
	if (!cm)
		return -1;
	put_both("configmaps", cm);
	return 0;
}

/* spec.runner.pods 2 from empty to Succeeded: member volumes, member pods, the start
 * barrier, the members' results merged into the report. */
static int test_distributed_run_to_succeeded(void)
{
	char pvc1[64], pvc2[64], pod1[64], pod2[64], start[64], rep[64];
	CHECK_INT(sb_name_member_pvc(pvc1, sizeof(pvc1), RUN, "fast", 1), 0);
	CHECK_INT(sb_name_member_pvc(pvc2, sizeof(pvc2), RUN, "fast", 2), 0);
	CHECK_INT(sb_name_member_pod(pod1, sizeof(pod1), RUN, "fast", 1, 1), 0);
	CHECK_INT(sb_name_member_pod(pod2, sizeof(pod2), RUN, "fast", 1, 2), 0);
	CHECK_INT(sb_name_start(start, sizeof(start), RUN, "fast", 1, 1, 0), 0);
	CHECK_INT(sb_name_report(rep, sizeof(rep), RUN), 0);
	CHECK_INT(setup("{\"storageClasses\":[\"fast\"],\"iterations\":1,\"runner\":{\"pods\":2}}"),
		  0);
	CHECK_INT(pass(), 0);
	/* a volume per member, then the members' pods */
	CHECK_INT(fo_calls(&E.fo, "create", "persistentvolumeclaims", pvc1), 1);
	CHECK_INT(fo_calls(&E.fo, "create", "persistentvolumeclaims", pvc2), 1);
	set_phase_all("persistentvolumeclaims", RUN "-fast-m", "Bound");
	for (int i = 0; i < 2 && !fo_obj(&E.fo, "pods", NS, pod2); i++)
		CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "pods", pod1), 1);
	CHECK_INT(fo_calls(&E.fo, "create", "pods", pod2), 1);
	CHECK_INT(fo_calls(&E.fo, "create", "secrets", NULL), 1);
	CHECK_INT(fo_events(&E.fo, "CreatedRunner"), 1);
	CHECK_STR(json_string_value(json_object_get(status(), "phase")), "Running");
	/* the barrier: no start until every member is ready */
	set_phase_all("pods", RUN "-fast-1-m", "Running");
	const struct fx_member m1 = {NS, RUN, UID, "fast", 1, 1, 1},
			       m2 = {NS, RUN, UID, "fast", 1, 1, 2};
	json_t *ready = fx_member_ready(&m1);
	CHECK(ready);
	put_both("configmaps", ready);
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "configmaps", start), 0);
	ready = fx_member_ready(&m2);
	CHECK(ready);
	put_both("configmaps", ready);
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "configmaps", start), 1);
	CHECK(fo_obj(&E.fo, "configmaps", NS, start));
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "configmaps", start), 1); /* once */
	/* one member's result is not the iteration */
	CHECK_INT(add_member_result(1, 1, 1000), 0);
	CHECK_INT(pass(), 0);
	CHECK_INT(class_int("fast", "iterationsDone"), 0);
	CHECK_INT(add_member_result(1, 2, 600), 0);
	set_phase_all("pods", RUN "-fast-1-m", "Succeeded");
	for (int i = 0; i < 3 && !fo_obj(&E.fo, "configmaps", NS, rep); i++)
		CHECK_INT(pass(), 0);
	CHECK_INT(pass(), 0);
	CHECK_INT(class_int("fast", "iterationsDone"), 1);
	CHECK_INT(fo_calls(&E.fo, "create", "configmaps", rep), 1);
	CHECK_STR(json_string_value(json_object_get(status(), "phase")), "Succeeded");
	CHECK_STR(json_string_value(json_object_get(status(), "report")), rep);
	/* the report holds the merged iteration: the members' IOPS added */
	json_t *rcm = fo_obj(&E.fo, "configmaps", NS, rep);
	json_t *doc = json_loads(
		json_string_value(json_object_get(json_object_get(rcm, "data"), "report.json")), 0,
		NULL);
	const json_t *dist = json_object_get(doc, "distributed");
	bool ok = dist && json_integer_value(json_object_get(dist, "podsPerClass")) == 2 &&
		  json_array_size(json_object_get(dist, "pods")) == 2;
	json_decref(doc);
	CHECK(ok);
	CHECK_INT(fo_events(&E.fo, "RunSucceeded"), 1);
	teardown();
	return T_PASS;
}

/* spec.lifecycle: each iteration measured once (through ops.lifecycle_measure) and recorded
 * as its ConfigMap before any I/O object; a failed measurement is retried, said once. */
static int test_lifecycle_before_io(void)
{
	char lc1[64], lc2[64], pvc[64];
	CHECK_INT(br_lifecycle_cm_name(lc1, sizeof(lc1), RUN, "fast", 1), 0);
	CHECK_INT(br_lifecycle_cm_name(lc2, sizeof(lc2), RUN, "fast", 2), 0);
	CHECK_INT(sb_name_pvc(pvc, sizeof(pvc), RUN, "fast"), 0);
	CHECK_INT(setup("{\"storageClasses\":[\"fast\"],\"iterations\":1,\"lifecycle\":{"
			"\"iterations\":2,\"volumes\":1}}"),
		  0);
	fo_fail(&E.fo, "measure", "lifecycle", -ETIMEDOUT, 0, 1);
	CHECK_INT(pass(), -EAGAIN);
	CHECK_INT(fo_events(&E.fo, "LifecycleFailed"), 1);
	CHECK_INT(fo_calls(&E.fo, "create", "configmaps", NULL), 0);
	CHECK_INT(pass(), 0);
	CHECK_INT(E.requeue_ms, 1);
	CHECK_INT(fo_calls(&E.fo, "measure", "lifecycle", "fast"), 2);
	CHECK_INT(fo_calls(&E.fo, "create", "configmaps", lc1), 1);
	CHECK_INT(fo_calls(&E.fo, "create", "persistentvolumeclaims", NULL), 0);
	CHECK_INT(fo_events(&E.fo, "LifecycleMeasured"), 1);
	json_t *doc = json_loads(
		json_string_value(json_object_get(
			json_object_get(fo_obj(&E.fo, "configmaps", NS, lc1), "data"), BR_LC_KEY)),
		0, NULL);
	bool ok = doc && json_integer_value(json_object_get(doc, "iteration")) == 1 &&
		  json_array_size(json_object_get(doc, "volumes")) == 1;
	json_decref(doc);
	CHECK(ok);
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "configmaps", lc2), 1);
	/* both measured: the I/O starts, nothing measured again */
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "measure", "lifecycle", NULL), 3);
	CHECK_INT(fo_calls(&E.fo, "create", "persistentvolumeclaims", pvc), 1);
	CHECK_INT(fo_events(&E.fo, "LifecycleMeasured"), 2);
	CHECK_INT(fo_events(&E.fo, "LifecycleFailed"), 1);
	teardown();
	return T_PASS;
}

/* spec.sweep: the first step's run, owned by the sweeping run; the next once it ended. */
/* A sweeping run over 1 and 2 pods per class; its steps' names into step1, step2. 0 or -1. */
static int sweep_setup(char step1[64], char step2[64])
{
	if (br_sweep_child_name(step1, 64, RUN, 1) || br_sweep_child_name(step2, 64, RUN, 2))
		return -1;
	return setup("{\"storageClasses\":[\"fast\"],\"iterations\":1,\"sweep\":{\"pods\":[1,2]}}");
}

static int test_sweep_first_step(void)
{
	char step1[64], step2[64];
	CHECK_INT(sweep_setup(step1, step2), 0);
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "benchmarkruns", step1), 1);
	CHECK_INT(fo_calls(&E.fo, "create", "benchmarkruns", step2), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "persistentvolumeclaims", NULL), 0);
	json_t *st1 = fo_obj(&E.fo, "benchmarkruns", NS, step1);
	CHECK(st1);
	CHECK_STR(json_string_value(json_object_get(
			  json_array_get(json_object_get(json_object_get(st1, "metadata"),
							 "ownerReferences"),
					 0),
			  "uid")),
		  UID);
	CHECK_INT(json_integer_value(json_object_get(
			  json_object_get(json_object_get(st1, "spec"), "runner"), "pods")),
		  1);
	CHECK(!json_object_get(json_object_get(st1, "spec"), "sweep"));
	CHECK_STR(json_string_value(json_object_get(status(), "phase")), "Running");
	CHECK_STR(json_string_value(json_object_get(status(), "progress")), "0/2");
	CHECK_INT(E.requeue_ms, 5000);
	/* the status' time is the injected clock's */
	char ts[40];
	CHECK_STR(json_string_value(json_object_get(status(), "startTime")),
		  sb_rfc3339_format(E.fo.now, ts, sizeof(ts)));
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "benchmarkruns", NULL), 1);
	set_phase("benchmarkruns", step1, "Succeeded");
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "benchmarkruns", step2), 1);
	CHECK_STR(json_string_value(json_object_get(status(), "progress")), "1/2");
	teardown();
	return T_PASS;
}

/*
 * Issue 34: a run of a step's name that the sweep did not make (its owner
 * and name right, no proof) is never the sweep's step: counted as failed,
 * the sweep goes on with its next step instead of waiting on it or reading
 * its report.
 */
static int test_sweep_planted_step(void)
{
	char step1[64], step2[64];
	CHECK_INT(sweep_setup(step1, step2), 0);
	json_t *planted =
		json_pack("{s:s,s:s,s:{s:s,s:s,s:[{s:s,s:s,s:s,s:s}]},s:{s:s}}", "apiVersion",
			  SB_API_VERSION, "kind", SB_KIND, "metadata", "name", step1, "namespace",
			  NS, "ownerReferences", "apiVersion", SB_API_VERSION, "kind", SB_KIND,
			  "name", RUN, "uid", UID, "status", "phase", "Running");
	CHECK(planted);
	put_both("benchmarkruns", planted); /* takes it */
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "benchmarkruns", step1), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "benchmarkruns", step2), 1);
	CHECK_STR(json_string_value(json_object_get(status(), "progress")), "1/2");
	json_t *made = fo_obj(&E.fo, "benchmarkruns", NS, step2);
	CHECK(made && br_proof_check(made, &br_res_benchmarkruns, NULL, 0) == 0);
	teardown();
	return T_PASS;
}

/* The sweep's Succeeded condition as the server has it (borrowed). */
static const json_t *sweep_condition(void)
{
	return json_array_get(json_object_get(status(), "conditions"), 0);
}

/*
 * A sweep's Succeeded condition keeps its lastTransitionTime while its status
 * does not flip: a step that ends (progress 0/2 -> 1/2, the clock an hour on)
 * leaves it Unknown since the first pass; the sweep's end (both steps failed:
 * no report to wait for) flips it to False at that pass' time.
 */
static int test_sweep_condition_transition(void)
{
	char step1[64], step2[64], t0[SB_RFC3339_LEN], t2[SB_RFC3339_LEN];
	CHECK_INT(sweep_setup(step1, step2), 0);
	sb_rfc3339_format(E.fo.now, t0, sizeof(t0));
	CHECK_INT(pass(), 0);
	CHECK_STR(json_string_value(json_object_get(sweep_condition(), "status")), "Unknown");
	CHECK_STR(json_string_value(json_object_get(sweep_condition(), "lastTransitionTime")), t0);
	E.fo.now += 3600;
	set_phase("benchmarkruns", step1, "Failed");
	CHECK_INT(pass(), 0);
	CHECK_STR(json_string_value(json_object_get(status(), "progress")), "1/2");
	CHECK_STR(json_string_value(json_object_get(sweep_condition(), "status")), "Unknown");
	CHECK_STR(json_string_value(json_object_get(sweep_condition(), "lastTransitionTime")), t0);
	/* the last step ends: the condition flips, at this pass' time */
	E.fo.now += 3600;
	sb_rfc3339_format(E.fo.now, t2, sizeof(t2));
	set_phase("benchmarkruns", step2, "Failed");
	CHECK_INT(pass(), 0);
	CHECK_STR(json_string_value(json_object_get(status(), "progress")), "2/2");
	CHECK_STR(json_string_value(json_object_get(sweep_condition(), "status")), "False");
	CHECK_STR(json_string_value(json_object_get(sweep_condition(), "lastTransitionTime")), t2);
	teardown();
	return T_PASS;
}

#define SCHED "nightly"

/* A BenchmarkSchedule every 5 minutes, created an hour before the fake clock. */
static int put_schedule(void)
{
	char created[40];
	json_t *sched = json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:i,s:s,s:s},s:{s:s,s:{s:{s:[s],s:i}}}}",
				  "apiVersion", SB_API_VERSION, "kind", SB_KIND_SCHEDULE,
				  "metadata", "name", SCHED, "namespace", NS, "uid", "sched-uid",
				  "generation", 1, "resourceVersion", "1", "creationTimestamp",
				  sb_rfc3339_format(E.fo.now - 3600, created, sizeof(created)),
				  "spec", "schedule", "*/5 * * * *", "runTemplate", "spec",
				  "storageClasses", "fast", "iterations", 1);
	if (!sched)
		return -1;
	put_both("benchmarkschedules", sched);
	return 0;
}

/*
 * The schedule every 5 minutes, the clock 2 minutes into a slot, and its
 * first tick: run1 made for the slot (run2: the next slot's name). 0, or 1
 * when that did not happen.
 */
static int schedule_first_run(char run1[64], char run2[64], int64_t *slot, long *rq)
{
	if (setup("{\"storageClasses\":[\"fast\"]}"))
		return 1;
	E.fo.now = E.fo.now - E.fo.now % 300 + 120; /* 2 minutes into a 5-minute slot */
	*slot = (int64_t)(E.fo.now - 120);
	if (put_schedule() || br_sched_run_name(run1, 64, SCHED, *slot) ||
	    br_sched_run_name(run2, 64, SCHED, *slot + 300) ||
	    br_schedule_reconcile(&E.c, NS, SCHED, rq) ||
	    fo_calls(&E.fo, "create", "benchmarkruns", run1) != 1)
		return 1;
	return 0;
}

/* A schedule's tick creates the run of the newest activation, by the injected clock
 * (ops.now); the next tick in the same slot creates nothing; a later slot, the next run. */
static int test_schedule_tick_creates_run(void)
{
	char run1[64], run2[64];
	int64_t slot;
	long rq = 0;
	CHECK_INT(schedule_first_run(run1, run2, &slot, &rq), 0);
	json_t *r1 = fo_obj(&E.fo, "benchmarkruns", NS, run1);
	CHECK(r1);
	CHECK_STR(json_string_value(json_object_get(
			  json_object_get(json_object_get(r1, "metadata"), "labels"),
			  SB_LABEL_SCHEDULE)),
		  SCHED);
	/* the next activation is 3 minutes away */
	CHECK_INT(rq, 180000);
	json_t *sst = json_object_get(fo_obj(&E.fo, "benchmarkschedules", NS, SCHED), "status");
	CHECK_STR(json_string_value(json_array_get(json_object_get(sst, "active"), 0)), run1);
	char ts[40];
	CHECK_STR(json_string_value(json_object_get(sst, "lastScheduleTime")),
		  sb_rfc3339_format((time_t)slot, ts, sizeof(ts)));
	/* a minute later: the same slot, nothing new */
	E.fo.now += 60;
	CHECK_INT(br_schedule_reconcile(&E.c, NS, SCHED, &rq), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "benchmarkruns", NULL), 1);
	/* the first run ended; the clock past the next slot: its run */
	set_phase("benchmarkruns", run1, "Succeeded");
	E.fo.now += 180;
	CHECK_INT(br_schedule_reconcile(&E.c, NS, SCHED, &rq), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "benchmarkruns", run2), 1);
	CHECK_INT(fo_calls(&E.fo, "create", "benchmarkruns", NULL), 2);
	teardown();
	return T_PASS;
}

/*
 * Issue 34: a run labelled and owned as the schedule's but not made by the
 * controller (no proof) is not one of its runs: not active, never history
 * or baseline; the schedule's own run carries a proof.
 */
static int test_schedule_planted_run_ignored(void)
{
	char run1[64], run2[64];
	int64_t slot;
	long rq = 0;
	CHECK_INT(schedule_first_run(run1, run2, &slot, &rq), 0);
	CHECK(br_proof_check(fo_obj(&E.fo, "benchmarkruns", NS, run1), &br_res_benchmarkruns, NULL,
			     0) == 0);
	json_t *planted =
		json_pack("{s:s,s:s,s:{s:s,s:s,s:{s:s},s:[{s:s,s:s,s:s,s:s}]},s:{s:s}}",
			  "apiVersion", SB_API_VERSION, "kind", SB_KIND, "metadata", "name",
			  "nightly-planted", "namespace", NS, "labels", SB_LABEL_SCHEDULE, SCHED,
			  "ownerReferences", "apiVersion", SB_API_VERSION, "kind", SB_KIND_SCHEDULE,
			  "name", SCHED, "uid", "sched-uid", "status", "phase", "Running");
	CHECK(planted);
	put_both("benchmarkruns", planted); /* takes it */
	E.fo.now += 60;
	CHECK_INT(br_schedule_reconcile(&E.c, NS, SCHED, &rq), 0);
	json_t *sst = json_object_get(fo_obj(&E.fo, "benchmarkschedules", NS, SCHED), "status");
	const json_t *active = json_object_get(sst, "active");
	CHECK_INT(json_array_size(active), 1);
	CHECK_STR(json_string_value(json_array_get(active, 0)), run1);
	teardown();
	return T_PASS;
}

/*
 * A schedule read from a cache that has not seen this process's own status
 * write waits for the watch, as a run does (controller/core/status.h): no
 * second run, no second write, no event sent again.
 */
static int test_schedule_waits_for_its_own_write(void)
{
	CHECK_INT(setup("{\"storageClasses\":[\"fast\"]}"), 0);
	E.fo.now = E.fo.now - E.fo.now % 300 + 120;
	CHECK_INT(put_schedule(), 0);
	E.fo.cache_lags = true; /* the informers see none of the writes below */
	long rq = 0;
	CHECK_INT(br_schedule_reconcile(&E.c, NS, SCHED, &rq), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "benchmarkruns", NULL), 1);
	CHECK_INT(fo_calls(&E.fo, "patch", "benchmarkschedules", NULL), 1);
	size_t events = fo_calls(&E.fo, "create", "events", NULL);
	CHECK_INT(br_schedule_reconcile(&E.c, NS, SCHED, &rq), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "benchmarkruns", NULL), 1);
	CHECK_INT(fo_calls(&E.fo, "patch", "benchmarkschedules", NULL), 1);
	CHECK_INT(fo_calls(&E.fo, "create", "events", NULL), events);
	CHECK_INT(rq, 1000);
	/* the cache catches up: the schedule is reconciled again */
	fo_sync(&E.fo);
	E.fo.cache_lags = false;
	CHECK_INT(br_schedule_reconcile(&E.c, NS, SCHED, &rq), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "benchmarkruns", NULL), 1);
	CHECK_INT(rq, 180000);
	teardown();
	return T_PASS;
}

/* A run that succeeded with a comparison but has no verdict yet counts as
 * active: the next run waits for it (whether it regressed decides the next
 * run's baseline); once it has its Regressed condition, the next run comes,
 * compared with it when it did not regress. */
static const char *event_with(const char *reason, const char *text);

static int test_schedule_waits_for_the_verdict(void)
{
	char run1[64], run2[64], cm[80];
	int64_t slot;
	long rq = 0;
	CHECK_INT(schedule_first_run(run1, run2, &slot, &rq), 0);
	set_phase("benchmarkruns", run1, "Succeeded");
	snprintf(cm, sizeof(cm), "%s-report", run1);
	put_both("configmaps",
		 json_pack("{s:{s:s,s:s},s:{s:s,s:s}}", "metadata", "name", cm, "namespace", NS,
			   "data", "report.json", "{}", "compare.json", "{\"results\": []}"));
	E.fo.now += 300;
	CHECK_INT(br_schedule_reconcile(&E.c, NS, SCHED, &rq), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "benchmarkruns", run2), 0);
	CHECK(event_with("RunAlreadyActive", run1));
	/* judged: not regressed */
	json_t *stores[2] = {E.fo.server, E.fo.cache};
	for (int i = 0; i < 2; i++) {
		json_t *o = json_array_get(fo_arr(stores[i], "benchmarkruns"),
					   (size_t)fo_find(stores[i], "benchmarkruns", NS, run1));
		json_object_set_new(
			json_object_get(o, "status"), "conditions",
			json_pack("[{s:s,s:s}]", "type", "Regressed", "status", "False"));
	}
	CHECK_INT(br_schedule_reconcile(&E.c, NS, SCHED, &rq), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "benchmarkruns", run2), 1);
	json_t *r2 = fo_obj(&E.fo, "benchmarkruns", NS, run2);
	CHECK(r2);
	CHECK_STR(json_string_value(json_object_get(json_object_get(r2, "spec"), "baseline")),
		  run1);
	teardown();
	return T_PASS;
}

/* The run of an activation is made from the schedule as the API server has
 * it: a cache one template change behind (generation 1 cached, 2 live) makes
 * no run and leaves the status alone; once the cache has it, the run is of
 * the new template. */
static int test_schedule_stale_cache_makes_no_run(void)
{
	CHECK_INT(setup("{\"storageClasses\":[\"fast\"]}"), 0);
	E.fo.now = E.fo.now - E.fo.now % 300 + 120;
	CHECK_INT(put_schedule(), 0);
	json_t *live = fo_obj(&E.fo, "benchmarkschedules", NS, SCHED);
	CHECK(live);
	json_t *md = json_object_get(live, "metadata");
	json_object_set_new(md, "generation", json_integer(2));
	json_object_set_new(json_object_get(json_object_get(live, "spec"), "runTemplate"), "spec",
			    json_pack("{s:[s],s:i}", "storageClasses", "fast", "iterations", 7));
	long rq = 0;
	CHECK_INT(br_schedule_reconcile(&E.c, NS, SCHED, &rq), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "benchmarkruns", NULL), 0);
	CHECK_INT(fo_calls(&E.fo, "patch", "benchmarkschedules", NULL), 0);
	CHECK(rq > 0 && rq <= 1000);
	/* the watch brings generation 2 into the cache */
	fo_put(E.fo.cache, "benchmarkschedules", live);
	CHECK_INT(br_schedule_reconcile(&E.c, NS, SCHED, &rq), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "benchmarkruns", NULL), 1);
	char run1[64];
	CHECK_INT(br_sched_run_name(run1, sizeof(run1), SCHED, (int64_t)(E.fo.now - 120)), 0);
	json_t *r = fo_obj(&E.fo, "benchmarkruns", NS, run1);
	CHECK(r);
	CHECK_INT(json_integer_value(json_object_get(json_object_get(r, "spec"), "iterations")), 7);
	teardown();
	return T_PASS;
}

/* An event's message with reason that contains text, or NULL. */
static const char *event_with(const char *reason, const char *text)
{
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(E.fo.server, "events"), i, e)
	{
		const char *r = json_string_value(json_object_get(e, "reason"));
		const char *m = json_string_value(json_object_get(e, "message"));
		if (r && m && !strcmp(r, reason) && strstr(m, text))
			return m;
	}
	return NULL;
}

/* The status summary's mean read IOPS of cls, -1 when it has none. */
static long summary_iops(const char *cls)
{
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(status(), "summary"), i, e)
	{
		const char *c = json_string_value(json_object_get(e, "class"));
		const char *m = json_string_value(json_object_get(e, "metric"));
		if (c && m && !strcmp(c, cls) && !strcmp(m, "read-iops"))
			return (long)json_number_value(json_object_get(e, "mean"));
	}
	return -1;
}

/* Two classes, one iteration, both results recorded: the pass that ends the run. */
static int two_results(void)
{
	if (setup("{\"storageClasses\":[\"fast\",\"slow\"],\"iterations\":1,"
		  "\"parallelism\":2}") ||
	    pass() || add_result("fast", 1, 1000) || pass())
		return -1;
	return add_result("slow", 1, 500);
}

/* The cache holds results without data: the report reads them with one LIST, when the run ends. */
static int test_report_from_fetched_results(void)
{
	char rep[64];
	CHECK_INT(sb_name_report(rep, sizeof(rep), RUN), 0);
	CHECK_INT(two_results(), 0);
	/* counted from the verdicts: no result read from the server yet */
	CHECK_STR(class_str("fast", "phase"), "Succeeded");
	CHECK_STR(class_str("fast", "engine"), "io_uring");
	CHECK_INT(fo_calls(&E.fo, "list", "configmaps", NULL), 0);
	json_t *cached = fo_cache_list(&E.fo, BR_CACHE_CMS, NS, NULL);
	CHECK(cached);
	bool nodata = json_array_size(cached) == 2;
	size_t k;
	json_t *o;
	json_array_foreach(cached, k, o) nodata = nodata && !json_object_get(o, "data");
	json_decref(cached);
	CHECK(nodata);
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "list", "configmaps", NULL), 1);
	CHECK_INT(fo_calls(&E.fo, "list", "configmaps",
			   SB_LABEL_COMPONENT "=result," SB_LABEL_RUN "=" RUN),
		  1);
	CHECK_INT(fo_calls(&E.fo, "create", "configmaps", rep), 1);
	CHECK_INT(fo_events(&E.fo, "InvalidResult"), 0);
	/* both classes aggregated from the fetched data */
	const char *txt = json_string_value(json_object_get(
		json_object_get(fo_obj(&E.fo, "configmaps", NS, rep), "data"), "report.json"));
	CHECK(txt && strstr(txt, "\"fast\"") && strstr(txt, "\"slow\""));
	CHECK_INT(summary_iops("fast"), 1000);
	CHECK_INT(summary_iops("slow"), 500);
	/* once written, the report is read back from its ConfigMap: no second LIST */
	size_t patches = fo_calls(&E.fo, "patch", "benchmarkruns", NULL);
	for (int i = 0; i < 3; i++)
		CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "list", "configmaps", NULL), 1);
	CHECK_INT(fo_calls(&E.fo, "patch", "benchmarkruns", NULL), patches);
	CHECK_INT(summary_iops("fast"), 1000);
	teardown();
	return T_PASS;
}

/* A result changed on the server after it was counted is named and left out of the report. */
static int test_changed_result_skipped(void)
{
	char name[64];
	CHECK_INT(sb_name_result(name, sizeof(name), RUN, "fast", 1), 0);
	CHECK_INT(two_results(), 0);
	json_t *cm = fo_obj(&E.fo, "configmaps", NS, name);
	CHECK(cm);
	const char *text =
		json_string_value(json_object_get(json_object_get(cm, "data"), SB_RESULT_KEY));
	CHECK(text);
	char *changed = strdup(text);
	CHECK(changed);
	char *p = strstr(changed, "\"iops\":1000");
	CHECK(p);
	p[8] = '9'; /* 1000 -> 9000, the MAC left as it was */
	json_object_set_new(json_object_get(cm, "data"), SB_RESULT_KEY, json_string(changed));
	free(changed);
	CHECK_INT(pass(), 0);
	const char *m = event_with("InvalidResult", "changed after it was counted");
	CHECK(m && strstr(m, name));
	CHECK_INT(summary_iops("fast"), -1);
	CHECK_INT(summary_iops("slow"), 500);
	teardown();
	return T_PASS;
}

/* The results' LIST fails: no report this pass, the next pass writes it. */
static int test_results_list_failure_retried(void)
{
	char rep[64];
	CHECK_INT(sb_name_report(rep, sizeof(rep), RUN), 0);
	CHECK_INT(two_results(), 0);
	fo_fail(&E.fo, "list", "configmaps", -EIO, 500, 1);
	CHECK(pass() != 0);
	CHECK_INT(fo_calls(&E.fo, "create", "configmaps", rep), 0);
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "configmaps", rep), 1);
	CHECK_STR(json_string_value(json_object_get(status(), "report")), rep);
	teardown();
	return T_PASS;
}

/*
 * Issue 34: a Secret lends its keys to an object store's runner pod only
 * when it carries the consent label; refused before anything is created,
 * naming the field and the Secret; labelled, the run starts, and the Secret
 * is not read again once it has.
 */
static int test_object_store_secret_needs_consent(void)
{
	CHECK_INT(setup("{\"storageClasses\":[\"fast\"],\"iterations\":1,\"parallelism\":2,"
			"\"objectStores\":[{"
			"\"name\":\"rgw\",\"endpoint\":\"http://s3.example:7480\",\"secretRef\":{"
			"\"name\":\"keys\"}}],\"objectWorkloads\":[{\"name\":\"put-4k\","
			"\"benchmark\":\"put\"}]}"),
		  0);
	/* no such Secret */
	CHECK_INT(pass(), 0);
	CHECK_STR(json_string_value(json_object_get(status(), "phase")), "Failed");
	CHECK(strstr(json_string_value(json_object_get(status(), "message")),
		     "spec.objectStores[0].secretRef.name: Secret 'keys' does not exist"));
	/* a Secret made for something else: refused, nothing created */
	put_both("secrets",
		 json_pack("{s:{s:s,s:s,s:{s:s}},s:{s:s}}", "metadata", "name", "keys", "namespace",
			   NS, "labels", "app", "billing", "data", "AWS_ACCESS_KEY_ID", "eA=="));
	CHECK_INT(pass(), 0);
	const char *msg = json_string_value(json_object_get(status(), "message"));
	CHECK(msg && strstr(msg, "spec.objectStores[0].secretRef.name: Secret 'keys' does not "
				 "lend its keys to benchmark runs: it lacks the label "
				 "storagebench.io/credentials=true"));
	CHECK(fo_events(&E.fo, "InvalidSpec") >= 1);
	CHECK_INT(fo_calls(&E.fo, "create", "pods", NULL), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "persistentvolumeclaims", NULL), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "secrets", NULL), 0);
	/* "false" is no consent either */
	put_both("secrets", json_pack("{s:{s:s,s:s,s:{s:s}}}", "metadata", "name", "keys",
				      "namespace", NS, "labels", SB_LABEL_CREDENTIALS, "false"));
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "pods", NULL), 0);
	/* its owner consents: the run starts, the store's runner pod is made */
	put_both("secrets",
		 json_pack("{s:{s:s,s:s,s:{s:s}}}", "metadata", "name", "keys", "namespace", NS,
			   "labels", SB_LABEL_CREDENTIALS, SB_CREDENTIALS_CONSENT));
	CHECK_INT(pass(), 0);
	char pod[64];
	CHECK_INT(sb_name_pod(pod, sizeof(pod), RUN, "rgw", 1), 0);
	CHECK_INT(fo_calls(&E.fo, "create", "pods", pod), 1);
	size_t reads = fo_calls(&E.fo, "get", "secrets", "keys");
	CHECK_INT(pass(), 0);
	CHECK_INT(fo_calls(&E.fo, "get", "secrets", "keys"), reads);
	teardown();
	return T_PASS;
}

static const struct test_case cases[] = {
	{"reconcile/object-store-secret-needs-consent", test_object_store_secret_needs_consent},
	{"reconcile/a fail-fast run: one status write, one Warning event",
	 test_fail_fast_run_requests},
	{"reconcile/a stale cache after its own status write: no second write, no repeated events",
	 test_stale_cache_after_own_write},
	{"reconcile/a status read back with whole numbers as integers is not written again",
	 test_status_read_back_not_rewritten},
	{"reconcile/a status patch that changed nothing is not sent again",
	 test_noop_write_not_repeated},
	{"reconcile/new_run_creates_its_objects", test_new_run_creates_its_objects},
	{"reconcile/result_counted_once", test_result_counted_once},
	{"reconcile/report_built_once", test_report_built_once},
	{"reconcile/foreign_object_not_ours", test_foreign_object_not_ours},
	{"reconcile/planted_with_our_owner_not_ours", test_planted_with_our_owner_not_ours},
	{"reconcile/sweep_planted_step", test_sweep_planted_step},
	{"reconcile/schedule_planted_run_ignored", test_schedule_planted_run_ignored},
	{"reconcile/status_write_failure_retried", test_status_write_failure_retried},
	{"reconcile/report_written_when_create_landed", test_report_written_when_create_landed},
	{"reconcile/failed_create_not_an_attempt", test_failed_create_not_an_attempt},
	{"reconcile/pod_in_flight_or_lost", test_pod_in_flight_or_lost},
	{"reconcile/overdue_pod_read_before_lost", test_overdue_pod_read_before_lost},
	{"reconcile/confirmed_deletion_is_gone", test_confirmed_deletion_is_gone},
	{"reconcile/distributed_run_to_succeeded", test_distributed_run_to_succeeded},
	{"reconcile/lifecycle_before_io", test_lifecycle_before_io},
	{"reconcile/sweep_first_step", test_sweep_first_step},
	{"reconcile/sweep_condition_keeps_its_transition_time", test_sweep_condition_transition},
	{"reconcile/schedule_tick_creates_run", test_schedule_tick_creates_run},
	{"reconcile/schedule_stale_cache_makes_no_run", test_schedule_stale_cache_makes_no_run},
	{"reconcile/schedule_waits_for_the_verdict", test_schedule_waits_for_the_verdict},
	{"reconcile/schedule_waits_for_its_own_write", test_schedule_waits_for_its_own_write},
	{"reconcile/report_from_fetched_results", test_report_from_fetched_results},
	{"reconcile/changed_result_skipped", test_changed_result_skipped},
	{"reconcile/results_list_failure_retried", test_results_list_failure_retried},
};

TEST_MAIN(cases)
