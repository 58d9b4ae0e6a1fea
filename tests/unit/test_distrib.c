/* SPDX-License-Identifier: MIT */
/* Distributed runs: spec fields, member manifests and names (controller/distrib.c). */
#include "tests/unit/harness.h"
#include "tests/unit/spec_helpers.h"

#include "controller/distrib.h"
#include "labels.h"
#include "names.h"

#define SPEC(runner, volume)                                                      \
	"{\"storageClasses\":[\"fast\"],\"profile\":\"quick\",\"volume\":" volume \
	",\"runner\":" runner "}"

static int test_defaults_single_pod(void)
{
	struct br_spec s;
	char err[512] = "";
	int r = parse("{\"storageClasses\":[\"fast\"],\"profile\":\"quick\"}", &s, err,
		      sizeof(err));
	unsigned pods = s.pods;
	enum br_volume_sharing v = s.volume_sharing;
	enum br_spread sp = s.spread;
	long b = s.barrier_s;
	br_spec_release(&s);
	CHECK_INT(r, 0);
	CHECK_INT(pods, 1);
	CHECK_INT(v, BR_VOLUME_PER_POD);
	CHECK_INT(sp, BR_SPREAD_DO_NOT_SCHEDULE);
	CHECK_INT(b, 300);
	return T_PASS;
}

static int test_fields_parsed(void)
{
	struct br_spec s;
	char err[512] = "";
	int r = parse("{\"storageClasses\":[\"cephfs\"],\"profile\":\"quick\",\"volume\":{"
		      "\"accessMode\":\"ReadWriteMany\"},\"runner\":{\"pods\":3,\"volume\":"
		      "\"sharedFile\",\"spread\":\"ScheduleAnyway\"},\"timeouts\":{\"barrier\":"
		      "\"90s\"}}",
		      &s, err, sizeof(err));
	unsigned pods = s.pods;
	enum br_volume_sharing v = s.volume_sharing;
	enum br_spread sp = s.spread;
	long b = s.barrier_s;
	br_spec_release(&s);
	if (r)
		fprintf(stderr, "    %s\n", err);
	CHECK_INT(r, 0);
	CHECK_INT(pods, 3);
	CHECK_INT(v, BR_VOLUME_SHARED_FILE);
	CHECK_INT(sp, BR_SPREAD_SCHEDULE_ANYWAY);
	CHECK_INT(b, 90);
	return T_PASS;
}

static int test_invalid_combinations_name_the_field(void)
{
	static const struct {
		const char *spec, *needle;
	} cases[] = {
		{SPEC("{\"pods\":0}", "{}"), "spec.runner.pods: must be an integer from 1 to 64"},
		{SPEC("{\"pods\":65}", "{}"), "spec.runner.pods: must be an integer from 1 to 64"},
		{SPEC("{\"pods\":\"3\"}", "{}"), "spec.runner.pods"},
		{SPEC("{\"volume\":\"each\"}", "{}"),
		 "spec.runner.volume: 'each' is not perPod, shared or sharedFile"},
		{SPEC("{\"spread\":\"zone\"}", "{}"),
		 "spec.runner.spread: 'zone' is not DoNotSchedule, ScheduleAnyway or None"},
		{SPEC("{\"pods\":3,\"volume\":\"shared\"}", "{}"),
		 "spec.runner.volume: 'shared' with 3 pods needs spec.volume.accessMode "
		 "ReadWriteMany (is ReadWriteOnce)"},
		{SPEC("{\"pods\":2,\"volume\":\"sharedFile\"}",
		      "{\"accessMode\":\"ReadWriteOncePod\"}"),
		 "needs spec.volume.accessMode ReadWriteMany (is ReadWriteOncePod)"},
		{SPEC("{\"pods\":2,\"volume\":\"shared\"}",
		      "{\"accessMode\":\"ReadWriteMany\",\"volumeMode\":\"Block\"}"),
		 "spec.runner.volume: 'shared' gives each pod its own directory"},
		{"{\"storageClasses\":[\"fast\"],\"profile\":\"quick\",\"timeouts\":{\"barrier\":"
		 "\"soon\"}}",
		 "spec.timeouts.barrier: 'soon' is not a duration"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (expect_invalid(cases[i].spec, cases[i].needle) != T_PASS)
			return T_FAIL;
	/* one pod on a shared RWO volume is the single-pod layout: fine */
	struct br_spec s;
	char err[512] = "";
	int r = parse(SPEC("{\"pods\":1,\"volume\":\"shared\"}", "{}"), &s, err, sizeof(err));
	br_spec_release(&s);
	CHECK_INT(r, 0);
	return T_PASS;
}

static int test_names(void)
{
	char b[64];
	CHECK_INT(sb_name_member_pvc(b, sizeof(b), "demo", "fast", 2), 0);
	CHECK_STR(b, "demo-fast-m2");
	CHECK_INT(sb_name_member_pod(b, sizeof(b), "demo", "fast", 1, 3), 0);
	CHECK_STR(b, "demo-fast-1-m3");
	CHECK_INT(sb_name_member_result(b, sizeof(b), "demo", "fast", 4, 1, 3), 0);
	CHECK_STR(b, "demo-fast-4-a1-m3");
	CHECK_INT(sb_name_ready(b, sizeof(b), "demo", "fast", 4, 2, 3), 0);
	CHECK_STR(b, "demo-fast-4-a2-m3-ready");
	CHECK_INT(sb_name_start(b, sizeof(b), "demo", "fast", 4, 2), 0);
	CHECK_STR(b, "demo-fast-4-a2-start");
	return T_PASS;
}

static const json_t *env_get(const json_t *env, const char *name)
{
	size_t i;
	const json_t *e;
	json_array_foreach(env, i, e)
	{
		if (!strcmp(json_string_value(json_object_get(e, "name")), name))
			return e;
	}
	return NULL;
}

static int test_member_pod_manifest(void)
{
	struct br_spec s;
	char err[512] = "";
	struct br_ref ref = {"bench", "demo", "uid-1"};
	int r = parse("{\"storageClasses\":[\"cephfs\"],\"profile\":\"quick\",\"volume\":{"
		      "\"accessMode\":\"ReadWriteMany\"},\"runner\":{\"pods\":3,\"volume\":"
		      "\"shared\"}}",
		      &s, err, sizeof(err));
	json_t *pod = r ? NULL : br_member_pod_manifest(&ref, &s, "cephfs", 2, 3, "1,2");
	json_t *pvc = r ? NULL : br_member_pvc_manifest(&ref, &s, "cephfs", 3);
	br_spec_release(&s);
	CHECK_INT(r, 0);
	CHECK(pod && pvc);
	static json_t *keep[2];
	keep[0] = pod, keep[1] = pvc; /* reachable if a check fails */
	const json_t *md = json_object_get(pod, "metadata");
	const json_t *ps = json_object_get(pod, "spec");
	const json_t *ctr = json_array_get(json_object_get(ps, "containers"), 0);
	const json_t *env = json_object_get(ctr, "env");
	CHECK_STR(json_string_value(json_object_get(md, "name")), "demo-cephfs-2-m3");
	CHECK_STR(
		json_string_value(json_object_get(json_object_get(md, "labels"), SB_LABEL_MEMBER)),
		"3");
	CHECK_STR(json_string_value(json_object_get(env_get(env, SB_ENV_MEMBER), "value")), "3");
	CHECK_STR(json_string_value(json_object_get(env_get(env, SB_ENV_MEMBERS), "value")), "3");
	CHECK_STR(json_string_value(json_object_get(env_get(env, SB_ENV_DONE), "value")), "1,2");
	CHECK(env_get(env, SB_ENV_NODE_NAME) != NULL);
	/* shared: the class's one PVC, a directory per member */
	const json_t *claim =
		json_object_get(json_object_get(json_array_get(json_object_get(ps, "volumes"), 0),
						"persistentVolumeClaim"),
				"claimName");
	CHECK_STR(json_string_value(claim), "demo-cephfs");
	CHECK_STR(json_string_value(
			  json_object_get(pvc, "metadata")
				  ? json_object_get(json_object_get(pvc, "metadata"), "name")
				  : NULL),
		  "demo-cephfs");
	bool dir = false;
	size_t i;
	const json_t *a;
	json_array_foreach(json_object_get(ctr, "args"), i, a)
	{
		dir = dir || !strcmp(json_string_value(a), "--directory=/data/m3");
	}
	CHECK(dir);
	const json_t *tsc = json_array_get(json_object_get(ps, "topologySpreadConstraints"), 0);
	CHECK_INT(json_integer_value(json_object_get(tsc, "maxSkew")), 1);
	CHECK_STR(json_string_value(json_object_get(tsc, "topologyKey")), "kubernetes.io/hostname");
	CHECK_STR(json_string_value(json_object_get(tsc, "whenUnsatisfiable")), "DoNotSchedule");
	CHECK_STR(json_string_value(json_object_get(
			  json_object_get(json_object_get(tsc, "labelSelector"), "matchLabels"),
			  SB_LABEL_ATTEMPT)),
		  "2");
	json_decref(pod);
	json_decref(pvc);
	keep[0] = keep[1] = NULL;
	return T_PASS;
}

static int test_per_pod_volumes(void)
{
	struct br_spec s;
	char err[512] = "";
	struct br_ref ref = {"bench", "demo", "uid-1"};
	int r = parse(SPEC("{\"pods\":3,\"spread\":\"None\"}", "{}"), &s, err, sizeof(err));
	json_t *pod = r ? NULL : br_member_pod_manifest(&ref, &s, "fast", 1, 2, "");
	json_t *pvc = r ? NULL : br_member_pvc_manifest(&ref, &s, "fast", 2);
	br_spec_release(&s);
	CHECK_INT(r, 0);
	CHECK(pod && pvc);
	const json_t *ps = json_object_get(pod, "spec");
	const char *claim = json_string_value(
		json_object_get(json_object_get(json_array_get(json_object_get(ps, "volumes"), 0),
						"persistentVolumeClaim"),
				"claimName"));
	bool ok = claim && !strcmp(claim, "demo-fast-m2") &&
		  !json_object_get(ps, "topologySpreadConstraints") &&
		  !strcmp(json_string_value(
				  json_object_get(json_object_get(pvc, "metadata"), "name")),
			  "demo-fast-m2");
	json_decref(pod);
	json_decref(pvc);
	CHECK(ok);
	return T_PASS;
}

static int test_start_cm(void)
{
	struct br_ref ref = {"bench", "demo", "uid-1"};
	json_t *cm = br_start_cm_manifest(&ref, "fast", 3, 1, 1764610000123456789LL);
	CHECK(cm != NULL);
	const json_t *lb = json_object_get(json_object_get(cm, "metadata"), "labels");
	bool ok =
		!strcmp(json_string_value(
				json_object_get(json_object_get(cm, "data"), SB_START_KEY)),
			"1764610000123456789") &&
		!strcmp(json_string_value(json_object_get(lb, SB_LABEL_COMPONENT)),
			SB_COMPONENT_START) &&
		!strcmp(json_string_value(json_object_get(lb, SB_LABEL_ITERATION)), "3") &&
		!strcmp(json_string_value(json_object_get(lb, SB_LABEL_ATTEMPT)), "1") &&
		!strcmp(json_string_value(json_object_get(json_object_get(cm, "metadata"), "name")),
			"demo-fast-3-a1-start");
	json_decref(cm);
	CHECK(ok);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"distrib/defaults: one pod", test_defaults_single_pod},
	{"distrib/pods, volume, spread, barrier parsed", test_fields_parsed},
	{"distrib/invalid combinations name the field", test_invalid_combinations_name_the_field},
	{"distrib/names", test_names},
	{"distrib/member pod on a shared volume", test_member_pod_manifest},
	{"distrib/per-pod volumes", test_per_pod_volumes},
	{"distrib/start configmap", test_start_cm},
};

TEST_MAIN(cases)
