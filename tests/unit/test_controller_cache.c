/* SPDX-License-Identifier: MIT */
/*
 * What the controller's informers keep of each object (br_cache_transform,
 * controller/memory.c): the fields the reconcile reads stay, managedFields,
 * kubectl's last-applied annotation and a pod's spec go; an owned-object
 * kind without the managed-by label is refused.
 */
#include "tests/unit/harness.h"
#include "controller/memory.h"
#include "labels.h"

#define OWNED \
	"\"labels\":{\"" SB_LABEL_MANAGED_BY "\":\"" SB_MANAGER "\",\"" SB_LABEL_RUN "\":\"r\"}"
#define META(labels)                                                                       \
	"\"metadata\":{\"name\":\"x\",\"namespace\":\"n\",\"uid\":\"u1\","                 \
	"\"resourceVersion\":\"7\",\"creationTimestamp\":\"2026-01-01T00:00:00Z\","        \
	"\"ownerReferences\":[{\"kind\":\"BenchmarkRun\",\"name\":\"r\",\"uid\":\"ru\"}]," \
	"\"managedFields\":[{\"manager\":\"m\"}],\"annotations\":{"                        \
	"\"kubectl.kubernetes.io/last-applied-configuration\":\"{}\"}," labels "}"

static const char pod[] = "{\"kind\":\"Pod\",\"apiVersion\":\"v1\"," META(
	OWNED) ","
	       "\"spec\":{\"nodeName\":\"node-a\",\"containers\":[{\"name\":\"runner\",\"image\":"
	       "\"i\","
	       "\"env\":[{\"name\":\"A\",\"value\":\"b\"}]}],\"volumes\":[{\"name\":\"v\"}]},"
	       "\"status\":{\"phase\":\"Failed\",\"reason\":\"Evicted\",\"message\":\"m\","
	       "\"startTime\":\"2026-01-01T00:00:01Z\",\"podIP\":\"10.0.0.1\",\"qosClass\":"
	       "\"Burstable\","
	       "\"containerStatuses\":[{\"name\":\"runner\",\"image\":\"i\",\"imageID\":\"sha\","
	       "\"containerID\":\"c\",\"restartCount\":1,\"state\":{\"terminated\":{\"exitCode\":3,"
	       "\"reason\":\"Error\",\"message\":\"boom\"}},\"lastState\":{}}]}}";

static int test_pod_compacted(void)
{
	json_t *o = json_loads(pod, 0, NULL);
	CHECK(o);
	int r = br_cache_transform(&o, (void *)&br_cache_kinds[BR_CACHE_PODS]);
	json_t *md = json_object_get(o, "metadata");
	json_t *st = json_object_get(o, "status");
	json_t *cs = json_array_get(json_object_get(st, "containerStatuses"), 0);
	json_t *term = json_object_get(json_object_get(cs, "state"), "terminated");
	bool ok = r == 0 && json_object_get(o, "kind") &&
		  json_string_value(json_object_get(md, "uid")) &&
		  json_object_get(md, "ownerReferences") &&
		  json_object_get(md, "creationTimestamp") &&
		  json_object_get(json_object_get(md, "labels"), SB_LABEL_RUN) &&
		  !json_object_get(md, "managedFields") && !json_object_get(md, "annotations") &&
		  json_integer_value(json_object_get(term, "exitCode")) == 3 &&
		  json_object_get(cs, "lastState") &&
		  json_integer_value(json_object_get(cs, "restartCount")) == 1 &&
		  !json_object_get(cs, "image") && !json_object_get(cs, "imageID") &&
		  json_object_get(st, "phase") && json_object_get(st, "reason") &&
		  json_object_get(st, "message") && json_object_get(st, "startTime") &&
		  !json_object_get(st, "podIP") &&
		  json_object_get(json_object_get(o, "spec"), "containers") &&
		  json_object_get(json_object_get(o, "spec"), "volumes") &&
		  !json_object_get(st, "qosClass") &&
		  json_object_get(json_object_get(o, "spec"), "nodeName");
	json_decref(o);
	CHECK(ok);
	return T_PASS;
}

static int test_foreign_refused(void)
{
	static const char *const objs[] = {
		"{" META("\"labels\":{\"app\":\"x\"}") "}",
		"{" META("\"labels\":{\"" SB_LABEL_MANAGED_BY "\":\"someone-else\"}") "}",
		"{\"metadata\":{\"name\":\"x\"}}",
	};
	static const enum br_cache_kind kinds[] = {BR_CACHE_PVCS, BR_CACHE_PODS, BR_CACHE_CMS};
	for (size_t i = 0; i < 3; i++)
		for (size_t k = 0; k < 3; k++) {
			json_t *o = json_loads(objs[i], 0, NULL);
			CHECK(o);
			int r = br_cache_transform(&o, (void *)&br_cache_kinds[kinds[k]]);
			json_decref(o);
			CHECK_INT(r, 1);
		}
	return T_PASS;
}

static int test_run_and_cm_kept(void)
{
	json_t *run = json_loads("{" META("\"labels\":{}") ",\"spec\":{\"iterations\":2},"
							   "\"status\":{\"phase\":\"Running\"}}",
				 0, NULL);
	json_t *cm =
		json_loads("{" META(OWNED) ",\"data\":{\"" SB_RESULT_KEY "\":\"{}\"}}", 0, NULL);
	CHECK(run && cm);
	int r1 = br_cache_transform(&run, (void *)&br_cache_kinds[BR_CACHE_RUNS]);
	int r2 = br_cache_transform(&cm, (void *)&br_cache_kinds[BR_CACHE_CMS]);
	bool ok = r1 == 0 && r2 == 0 && json_object_get(run, "spec") &&
		  json_object_get(run, "status") &&
		  !json_object_get(json_object_get(run, "metadata"), "managedFields") &&
		  !json_object_get(json_object_get(run, "metadata"), "annotations") &&
		  json_string_value(json_object_get(json_object_get(cm, "data"), SB_RESULT_KEY)) &&
		  !json_object_get(json_object_get(cm, "metadata"), "managedFields");
	json_decref(run);
	json_decref(cm);
	CHECK(ok);
	return T_PASS;
}

static int test_process_metrics(void)
{
	struct br_process_stats ps;
	CHECK_INT(br_process_stats(&ps), 0);
	CHECK(ps.rss_bytes > 0);
	CHECK(ps.vsize_bytes >= ps.rss_bytes);
	CHECK(ps.open_fds >= 3);
	CHECK(ps.start_time_seconds > 1e9);
	char *text = br_metrics_render_process(NULL);
	CHECK(text);
	bool ok = strstr(text, "\nprocess_resident_memory_bytes ") &&
		  strstr(text, "# TYPE process_cpu_seconds_total counter") &&
		  !strstr(text, "storagebench_informer_objects");
	free(text);
	CHECK(ok);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"controller-cache/pod_compacted", test_pod_compacted},
	{"controller-cache/foreign_refused", test_foreign_refused},
	{"controller-cache/run_and_configmap_kept", test_run_and_cm_kept},
	{"controller-cache/process_metrics", test_process_metrics},
};

TEST_MAIN(cases)
