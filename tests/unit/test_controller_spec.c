/* SPDX-License-Identifier: MIT */
/* BenchmarkRun spec validation and the manifests built from it. */
#include "tests/unit/harness.h"
#include "controller/manifests.h"
#include "controller/spec.h"
#include "labels.h"

#include <errno.h>
#include <jansson.h>

static int parse(const char *text, struct br_spec *s, char *err, size_t len)
{
	json_error_t je;
	json_t *spec = json_loads(text, 0, &je);
	if (!spec) {
		snprintf(err, len, "test JSON: %s", je.text);
		return -100;
	}
	int r = br_spec_parse(spec, "localhost/storagebench:test", NULL, s, err, len);
	json_decref(spec);
	return r;
}

static int expect_invalid(const char *text, const char *needle)
{
	struct br_spec s;
	char err[1024] = "";
	int r = parse(text, &s, err, sizeof(err));
	br_spec_release(&s);
	if (r != -EINVAL || !strstr(err, needle)) {
		fprintf(stderr, "    spec %s\n    gave %d '%s', wanted '%s'\n", text, r, err,
			needle);
		return T_FAIL;
	}
	return T_PASS;
}

static int test_defaults(void)
{
	struct br_spec s;
	char err[512];
	CHECK_INT(parse("{\"storageClasses\":[\"fast\",\"disk\"]}", &s, err, sizeof(err)), 0);
	CHECK_INT(s.nclasses, 2);
	CHECK_INT(s.iterations, 10);
	CHECK_INT(s.parallelism, 1);
	CHECK_STR(s.profile, "storage-cluster");
	CHECK_STR(s.volume_size, "10Gi");
	CHECK_STR(s.access_mode, "ReadWriteOnce");
	CHECK(!s.block);
	CHECK(s.jobfile == NULL);
	CHECK_STR(s.test_size, "5368709120"); /* half of 10Gi */
	CHECK_INT(s.pvc_bind_s, 300);
	CHECK_STR(s.image, "localhost/storagebench:test");
	CHECK_STR(s.service_account, "storagebench-runner");
	CHECK_INT(br_spec_total_iterations(&s), 20);
	br_spec_release(&s);
	return T_PASS;
}

static int test_every_rule_names_the_field(void)
{
	static const struct {
		const char *spec;
		const char *needle;
	} bad[] = {
		{"{}", "spec.storageClasses: at least one"},
		{"{\"storageClasses\":[]}", "spec.storageClasses: at least one"},
		{"{\"storageClasses\":[\"Fast\"]}", "spec.storageClasses[0]: 'Fast'"},
		{"{\"storageClasses\":[\"a\",\"a\"]}",
		 "spec.storageClasses[1]: 'a' is listed twice"},
		{"{\"storageClasses\":[\"a\"],\"volume\":{\"size\":\"10GB\"}}",
		 "spec.volume.size: '10GB'"},
		{"{\"storageClasses\":[\"a\"],\"volume\":{\"size\":\"1Mi\"}}", "at least 16Mi"},
		{"{\"storageClasses\":[\"a\"],\"volume\":{\"accessMode\":\"RWO\"}}",
		 "spec.volume.accessMode: 'RWO'"},
		{"{\"storageClasses\":[\"a\"],\"volume\":{\"volumeMode\":\"Raw\"}}",
		 "spec.volume.volumeMode: 'Raw'"},
		{"{\"storageClasses\":[\"a\"],\"iterations\":0}",
		 "spec.iterations: must be an integer from 1"},
		{"{\"storageClasses\":[\"a\"],\"parallelism\":\"2\"}", "spec.parallelism"},
		{"{\"storageClasses\":[\"a\"],\"profile\":\"turbo\"}", "spec.profile: 'turbo'"},
		{"{\"storageClasses\":[\"a\"],\"profile\":\"quick\",\"fioJob\":\"[x]\"}",
		 "set only one of profile, workloads and fioJob"},
		{"{\"storageClasses\":[\"a\"],\"runtime\":\"soon\"}", "spec.runtime: 'soon'"},
		{"{\"storageClasses\":[\"a\"],\"size\":\"20g\",\"volume\":{\"size\":\"1Gi\"}}",
		 "spec.size: 20g is larger than spec.volume.size"},
		{"{\"storageClasses\":[\"a\"],\"workloads\":[{\"name\":\"w\",\"rw\":\"read\","
		 "\"bs\":\"3q\"}]}",
		 "spec.workloads[0].bs: '3q' is not a block size"},
		{"{\"storageClasses\":[\"a\"],\"workloads\":[{\"name\":\"w\"}]}",
		 "spec.workloads[0].rw: required"},
		{"{\"storageClasses\":[\"a\"],\"workloads\":[{\"name\":\"w\",\"rw\":\"read\"},{"
		 "\"name\":\"w\",\"rw\":\"write\"}]}",
		 "spec.workloads[1].name: 'w' is used twice"},
		{"{\"storageClasses\":[\"a\"],\"workloads\":[{\"name\":\"w\",\"rw\":\"read\","
		 "\"colour\":\"red\"}]}",
		 "spec.workloads[0].colour: unknown field"},
		{"{\"storageClasses\":[\"a\"],\"workloads\":[{\"name\":\"w\",\"rw\":\"read\","
		 "\"timeBased\":true}]}",
		 "workload 'w': time_based: needs runtime"},
		{"{\"storageClasses\":[\"a\"],\"fioJob\":\"[x]\\nrw=read\\nbs=4q\\n\"}",
		 "spec.fioJob:3: bs: '4q'"},
		{"{\"storageClasses\":[\"a\"],\"fioJob\":\"[x]\\nrw=read\\nfilename=/etc/"
		 "passwd\\n\"}",
		 "spec.fioJob: job 'x': filename is set by the runner"},
		{"{\"storageClasses\":[\"a\"],\"fioJob\":\"[x]\\nioengine=rdma\\n\"}",
		 "ioengine 'rdma' is not supported"},
		{"{\"storageClasses\":[\"a\"],\"cleanup\":\"Sometimes\"}",
		 "spec.cleanup: 'Sometimes'"},
		{"{\"storageClasses\":[\"a\"],\"timeouts\":{\"pvcBind\":\"5 minutes\"}}",
		 "spec.timeouts.pvcBind: '5 minutes'"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"imagePullPolicy\":\"Sometimes\"}}",
		 "spec.runner.imagePullPolicy: 'Sometimes'"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"seccompProfile\":{\"type\":"
		 "\"Localhost\"}}}",
		 "spec.runner.seccompProfile.localhostProfile: required with type Localhost"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"env\":[{\"name\":\"SB_RUN\",\"value\":"
		 "\"x\"}]}}",
		 "spec.runner.env[0].name: 'SB_RUN'"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"tolerations\":{}}}",
		 "spec.runner.tolerations: must be a list"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_INT(expect_invalid(bad[i].spec, bad[i].needle), T_PASS);
	return T_PASS;
}

static int test_workloads_become_jobfile(void)
{
	struct br_spec s;
	char err[512];
	CHECK_INT(parse("{\"storageClasses\":[\"a\"],\"iterations\":3,\"workloads\":["
			"{\"name\":\"rr\",\"rw\":\"randread\",\"bs\":\"4k\",\"iodepth\":32,"
			"\"runtime\":\"10s\",\"timeBased\":true},"
			"{\"name\":\"ww\",\"rw\":\"write\",\"bs\":\"1m\",\"fsync\":32,\"direct\":"
			"false}]}",
			&s, err, sizeof(err)),
		  0);
	CHECK(s.jobfile != NULL);
	CHECK(strstr(s.jobfile, "[rr]\ndirect=1\nrw=randread\nbs=4k\niodepth=32\nruntime=10s\ntime_"
				"based=1\n") != NULL);
	CHECK(strstr(s.jobfile, "[ww]\nstonewall\nrw=write\nbs=1m\nfsync=32\ndirect=0\n") != NULL);
	json_t *args = br_spec_runner_args(&s, "/etc/storagebench/jobs.fio", "/data", "/dev/x");
	char *a = json_dumps(args, JSON_COMPACT);
	CHECK_STR(a, "[\"pod\",\"--directory=/data\",\"--filename=storagebench.testfile\","
		     "\"--size=5368709120\",\"/etc/storagebench/jobs.fio\"]");
	free(a);
	json_decref(args);
	br_spec_release(&s);
	return T_PASS;
}

static int test_profile_args_and_block(void)
{
	struct br_spec s;
	char err[512];
	CHECK_INT(
		parse("{\"storageClasses\":[\"a\"],\"profile\":\"quick\",\"runtime\":\"3s\","
		      "\"rampTime\":\"0\",\"volume\":{\"size\":\"1Gi\",\"volumeMode\":\"Block\"}}",
		      &s, err, sizeof(err)),
		0);
	json_t *args = br_spec_runner_args(&s, "/etc/storagebench/jobs.fio", "/data", "/dev/sb");
	char *a = json_dumps(args, JSON_COMPACT);
	CHECK_STR(a, "[\"pod\",\"--profile=quick\",\"--filename=/dev/sb\",\"--size=536870912\","
		     "\"--runtime=3s\",\"--ramp_time=0\"]");
	free(a);
	json_decref(args);
	br_spec_release(&s);
	return T_PASS;
}

static int test_pod_manifest(void)
{
	struct br_spec s;
	char err[512];
	struct br_ref ref = {"bench", "demo", "1234-uid"};
	CHECK_INT(
		parse("{\"storageClasses\":[\"fast\"],\"iterations\":2,\"workloads\":"
		      "[{\"name\":\"w\",\"rw\":\"write\"}],\"runner\":{\"hostNetwork\":true,"
		      "\"seccompProfile\":{\"type\":\"Localhost\",\"localhostProfile\":\"p.json\"},"
		      "\"env\":[{\"name\":\"X\",\"value\":\"1\"}],\"nodeSelector\":{\"disk\":"
		      "\"ssd\"}}}",
		      &s, err, sizeof(err)),
		0);
	json_t *pod = br_pod_manifest(&ref, &s, "fast", 2, 2);
	CHECK(pod != NULL);
	const json_t *md = json_object_get(pod, "metadata");
	CHECK_STR(json_string_value(json_object_get(md, "name")), "demo-fast-2");
	const json_t *lb = json_object_get(md, "labels");
	CHECK_STR(json_string_value(json_object_get(lb, SB_LABEL_RUN)), "demo");
	CHECK_STR(json_string_value(json_object_get(lb, SB_LABEL_CLASS)), "fast");
	CHECK_STR(json_string_value(json_object_get(lb, SB_LABEL_ATTEMPT)), "2");
	CHECK_STR(json_string_value(json_object_get(lb, SB_LABEL_MANAGED_BY)), SB_MANAGER);
	const json_t *owner = json_array_get(json_object_get(md, "ownerReferences"), 0);
	CHECK_STR(json_string_value(json_object_get(owner, "uid")), "1234-uid");
	CHECK(json_is_true(json_object_get(owner, "controller")));
	const json_t *spec = json_object_get(pod, "spec");
	CHECK_STR(json_string_value(json_object_get(spec, "restartPolicy")), "Never");
	CHECK(json_is_true(json_object_get(spec, "hostNetwork")));
	CHECK_STR(json_string_value(json_object_get(json_object_get(spec, "nodeSelector"), "disk")),
		  "ssd");
	const json_t *ctr = json_array_get(json_object_get(spec, "containers"), 0);
	const json_t *sc = json_object_get(ctr, "securityContext");
	CHECK(json_is_false(json_object_get(sc, "allowPrivilegeEscalation")));
	CHECK_STR(json_string_value(json_object_get(json_object_get(sc, "seccompProfile"),
						    "localhostProfile")),
		  "p.json");
	/* env: the run's variables plus the user's */
	char *env = json_dumps(json_object_get(ctr, "env"), JSON_COMPACT);
	CHECK(strstr(env, "{\"name\":\"SB_RUN\",\"value\":\"demo\"}") != NULL);
	CHECK(strstr(env, "{\"name\":\"SB_ITERATIONS\",\"value\":\"2\"}") != NULL);
	CHECK(strstr(env, "{\"name\":\"X\",\"value\":\"1\"}") != NULL);
	free(env);
	/* the PVC at /data and the spec ConfigMap at /etc/storagebench */
	char *vols = json_dumps(json_object_get(spec, "volumes"), JSON_COMPACT);
	CHECK(strstr(vols, "\"claimName\":\"demo-fast\"") != NULL);
	CHECK(strstr(vols, "\"name\":\"demo-spec\"") != NULL);
	free(vols);
	json_decref(pod);

	json_t *pvc = br_pvc_manifest(&ref, &s, "fast");
	CHECK_STR(json_string_value(
			  json_object_get(json_object_get(pvc, "spec"), "storageClassName")),
		  "fast");
	CHECK_STR(
		json_string_value(json_object_get(
			json_object_get(json_object_get(json_object_get(pvc, "spec"), "resources"),
					"requests"),
			"storage")),
		"10Gi");
	json_decref(pvc);
	json_t *cm = br_spec_cm_manifest(&ref, &s);
	CHECK(strstr(json_string_value(json_object_get(json_object_get(cm, "data"), "jobs.fio")),
		     "[w]") != NULL);
	json_decref(cm);
	br_spec_release(&s);
	return T_PASS;
}

static int test_times(void)
{
	char b[40];
	CHECK_STR(br_time_str(0, b, sizeof(b)), "1970-01-01T00:00:00Z");
	CHECK_INT(br_time_parse("2026-11-30T18:24:08Z"), 1796063048);
	CHECK_INT(br_time_parse("garbage"), 0);
	CHECK_INT(br_parse_duration_s("5m"), 300);
	CHECK_INT(br_parse_duration_s("2h"), 7200);
	CHECK_INT(br_parse_duration_s("90"), -1);
	return T_PASS;
}

static int test_report_cm(void)
{
	struct br_ref ref = {"bench", "sc", "uid-1"};
	json_error_t je;
	json_t *rep = json_load_file("tests/fixtures/reports/storage-cluster-2.json", 0, &je);
	if (!rep)
		SKIP("run from the repository root (fixture not found)");
	json_t *cm = br_report_cm_manifest(&ref, rep);
	CHECK(cm != NULL);
	const json_t *data = json_object_get(cm, "data");
	static const char *const keys[] = {
		"report.txt", "report.md",	 "report.csv",		 "report.json",
		"report.svg", "report-iops.svg", "report-bandwidth.svg", "report-fsync.svg"};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!json_is_string(json_object_get(data, keys[i]))) {
			fprintf(stderr, "    missing %s\n", keys[i]);
			json_decref(cm);
			json_decref(rep);
			return T_FAIL;
		}
	}
	CHECK_STR(json_string_value(json_object_get(json_object_get(cm, "metadata"), "name")),
		  "sc-report");
	json_decref(cm);
	json_decref(rep);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"manifests/report-configmap-with-charts", test_report_cm},
	{"spec/defaults", test_defaults},
	{"spec/every-rule-names-the-field", test_every_rule_names_the_field},
	{"spec/workloads-become-jobfile", test_workloads_become_jobfile},
	{"spec/profile-args-and-block", test_profile_args_and_block},
	{"manifests/pod-pvc-spec-cm", test_pod_manifest},
	{"manifests/times-and-durations", test_times},
};
TEST_MAIN(cases)
