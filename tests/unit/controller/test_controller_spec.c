/* SPDX-License-Identifier: MIT */
/* BenchmarkRun spec validation and the manifests built from it. */
#include "tests/unit/harness.h"
#include "result/sign.h"
#include "tests/unit/spec_helpers.h"
#include "controller/run/manifests.h"
#include "controller/run/policy.h"
#include "controller/run/spec.h"
#include "core/labels.h"
#include "time/rfc3339.h"

#include <errno.h>
#include <jansson.h>

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
		/* the free-form fields, checked field by field */
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"securityContext\":{\"privileged\":"
		 "true}}}",
		 "spec.runner.securityContext.privileged: a container setting: set it in "
		 "spec.runner.containerSecurityContext"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"securityContext\":{\"sysctls\":[]}}}",
		 "spec.runner.securityContext.sysctls: not supported"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"securityContext\":{\"seLinuxOptions\":"
		 "{}}}}",
		 "spec.runner.securityContext.seLinuxOptions: not supported"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"securityContext\":{\"runAsUser\":"
		 "\"0\"}}}",
		 "spec.runner.securityContext.runAsUser: must be an id from 0 to 2147483647"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"securityContext\":{\"runAsUser\":-1}}}",
		 "spec.runner.securityContext.runAsUser: must be an id"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"securityContext\":{\"runAsNonRoot\":"
		 "true,\"runAsUser\":0}}}",
		 "spec.runner.securityContext.runAsNonRoot: true conflicts with runAsUser: 0"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"securityContext\":{\"seccompProfile\":"
		 "{\"type\":\"Unconfined\"}}}}",
		 "spec.runner.securityContext.seccompProfile: set spec.runner.seccompProfile"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"containerSecurityContext\":{"
		 "\"runAsUser\":0}}}",
		 "spec.runner.containerSecurityContext.runAsUser: a pod setting"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"containerSecurityContext\":{"
		 "\"procMount\":\"Unmasked\"}}}",
		 "spec.runner.containerSecurityContext.procMount: not supported"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"containerSecurityContext\":{"
		 "\"capabilities\":{\"drop\":[\"NET_RAW\"]}}}}",
		 "spec.runner.containerSecurityContext.capabilities.drop: the runner always drops "
		 "ALL"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"containerSecurityContext\":{"
		 "\"capabilities\":{\"add\":[\"sys admin\"]}}}}",
		 "spec.runner.containerSecurityContext.capabilities.add[0]: 'sys admin' is not a "
		 "capability name"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"containerSecurityContext\":{"
		 "\"privileged\":true,\"allowPrivilegeEscalation\":false}}}",
		 "spec.runner.containerSecurityContext.allowPrivilegeEscalation: false conflicts "
		 "with "
		 "privileged: true"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"containerSecurityContext\":{"
		 "\"privileged\":1}}}",
		 "spec.runner.containerSecurityContext.privileged: must be true or false"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"env\":[{\"name\":\"X\",\"valueFrom\":"
		 "{\"secretKeyRef\":{\"name\":\"s\",\"key\":\"k\"}}}]}}",
		 "spec.runner.env[0].valueFrom: unknown field"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"resources\":{\"limits\":{\"memory\":"
		 "\"lots\"}}}}",
		 "spec.runner.resources.limits.memory: 'lots' is not a quantity"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"resources\":{\"claims\":[]}}}",
		 "spec.runner.resources.claims: unknown field"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"tolerations\":[{\"operator\":"
		 "\"Maybe\"}]}}",
		 "spec.runner.tolerations[0].operator: not a valid value"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"tolerations\":[{\"colour\":1}]}}",
		 "spec.runner.tolerations[0].colour: unknown field"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"affinity\":{\"hostAffinity\":{}}}}",
		 "spec.runner.affinity.hostAffinity: unknown field"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"serviceAccountName\":\"Root SA\"}}",
		 "spec.runner.serviceAccountName: 'Root SA' is not a ServiceAccount name"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"image\":\"a b\"}}",
		 "spec.runner.image: 'a b' is not an image reference"},
		{"{\"storageClasses\":[\"a\"],\"runner\":{\"seccompProfile\":{\"type\":"
		 "\"Localhost\",\"localhostProfile\":\"../../etc/x.json\"}}}",
		 "spec.runner.seccompProfile.localhostProfile: '../../etc/x.json' is not a path "
		 "relative"},
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
	/* the job file's digest: what the runner checks the mounted ConfigMap against */
	char dg[65], want[120];
	CHECK(s.jobfile != NULL);
	CHECK_INT(sb_sha256_hex(s.jobfile, strlen(s.jobfile), dg), 0);
	snprintf(want, sizeof(want), "{\"name\":\"%s\",\"value\":\"%s\"}", SB_ENV_JOBFILE_SHA256,
		 dg);
	CHECK(strstr(env, want) != NULL);
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
	CHECK_STR(sb_rfc3339_format(0, b, sizeof(b)), "1970-01-01T00:00:00Z");
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
	CHECK(!json_object_get(data, "report-lifecycle.svg"));
	json_decref(cm);
	json_decref(rep);
	/* lifecycle timings: their chart too, and only in report-lifecycle.svg and report.svg */
	rep = json_load_file("tests/fixtures/reports/lifecycle-2.json", 0, &je);
	CHECK(rep != NULL);
	cm = br_report_cm_manifest(&ref, rep);
	CHECK(cm != NULL);
	data = json_object_get(cm, "data");
	const char *lc = json_string_value(json_object_get(data, "report-lifecycle.svg"));
	const char *all = json_string_value(json_object_get(data, "report.svg"));
	const char *lat = json_string_value(json_object_get(data, "report-latency.svg"));
	CHECK(lc && strstr(lc, "data-panel=\"lifecycle\"") && !strstr(lc, "data-panel=\"iops\""));
	CHECK(all && strstr(all, "data-panel=\"lifecycle\""));
	CHECK(lat && !strstr(lat, "data-panel=\"lifecycle\""));
	json_decref(cm);
	json_decref(rep);
	return T_PASS;
}

/* ---- the runner policy ---- */

static json_t *pod_of(const char *spec_text, struct br_spec *s)
{
	char err[1024] = "";
	struct br_ref ref = {"bench", "demo", "1234-uid"};
	if (parse(spec_text, s, err, sizeof(err))) {
		fprintf(stderr, "    %s\n", err);
		return NULL;
	}
	return br_pod_manifest(&ref, s, s->classes[0], 1, s->iterations);
}

/* The policy's answer for a spec: 0, or -EACCES with err. */
static int check(const struct br_policy *p, const char *spec_text, char *err, size_t len)
{
	struct br_spec s;
	int r = parse(spec_text, &s, err, len);
	if (!r)
		r = br_policy_check(p, &s, err, len);
	br_spec_release(&s);
	return r;
}

static int test_default_pod_is_restricted(void)
{
	static const char *const specs[] = {
		"{\"storageClasses\":[\"fast\"]}",
		"{\"storageClasses\":[\"fast\"],\"volume\":{\"size\":\"1Gi\",\"volumeMode\":"
		"\"Block\"}}",
		"{\"storageClasses\":[\"fast\"],\"runner\":{\"securityContext\":{\"runAsUser\":"
		"1000,\"fsGroup\":2000},\"seccompProfile\":{\"type\":\"Localhost\","
		"\"localhostProfile\":\"storagebench/iouring.json\"},\"containerSecurityContext\":{"
		"\"capabilities\":{\"add\":[\"NET_BIND_SERVICE\"]}}}}",
	};
	struct br_policy p = BR_POLICY_INIT;
	p.runner_image = "localhost/storagebench:test";
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct br_spec s;
		char why[256], err[512];
		json_t *pod = pod_of(specs[i], &s);
		CHECK(pod != NULL);
		enum br_pss_level l = br_pss_evaluate(pod, why, sizeof(why));
		if (l != BR_PSS_RESTRICTED)
			fprintf(stderr, "    spec %zu: %s: %s\n", i, br_pss_level_name(l), why);
		CHECK_INT(l, BR_PSS_RESTRICTED);
		CHECK_INT(br_policy_check(&p, &s, err, sizeof(err)), 0);
		const json_t *spec = json_object_get(pod, "spec");
		const json_t *psc = json_object_get(spec, "securityContext");
		const json_t *csc = json_object_get(
			json_array_get(json_object_get(spec, "containers"), 0), "securityContext");
		CHECK(json_is_true(json_object_get(psc, "runAsNonRoot")));
		CHECK(json_is_false(json_object_get(csc, "allowPrivilegeEscalation")));
		CHECK(json_is_true(json_object_get(csc, "readOnlyRootFilesystem")));
		CHECK(json_object_get(spec, "hostNetwork") == NULL);
		CHECK_STR(json_string_value(json_object_get(spec, "serviceAccountName")),
			  "storagebench-runner");
		const char *sp = json_string_value(
			json_object_get(json_object_get(csc, "seccompProfile"), "type"));
		CHECK_STR(sp, i == 2 ? "Localhost" : "RuntimeDefault");
		if (i == 0)
			CHECK_INT(json_integer_value(json_object_get(psc, "runAsUser")), 65532);
		if (i == 2)
			CHECK_INT(json_integer_value(json_object_get(psc, "fsGroup")), 2000);
		json_decref(pod);
		br_spec_release(&s);
	}
	return T_PASS;
}

static int test_policy_refuses_and_names_the_field(void)
{
	static const struct {
		const char *runner;	/* spec.runner */
		const char *needle;	/* in the refusal */
		const char *widen_flag; /* the controller flag that allows it */
		const char *widen_value;
	} cases[] = {
		{"{\"containerSecurityContext\":{\"privileged\":true}}",
		 "spec.runner.containerSecurityContext.privileged: true is not allowed by the "
		 "runner "
		 "policy (pod security restricted; it needs privileged",
		 "runner-pod-security", "privileged"},
		{"{\"hostNetwork\":true}",
		 "spec.runner.hostNetwork: true is not allowed by the runner policy",
		 "runner-allow-host-network", NULL},
		{"{\"image\":\"evil.example.com/miner:1\"}",
		 "spec.runner.image: 'evil.example.com/miner:1' is not allowed by the runner "
		 "policy "
		 "(the runner image is 'localhost/storagebench:test'",
		 "runner-allowed-images", "evil.example.com/"},
		{"{\"serviceAccountName\":\"admin\"}",
		 "spec.runner.serviceAccountName: 'admin' is not allowed by the runner policy "
		 "(runner pods run as 'storagebench-runner'",
		 "runner-allowed-service-accounts", "admin"},
		{"{\"containerSecurityContext\":{\"capabilities\":{\"add\":[\"NET_BIND_SERVICE\","
		 "\"SYS_ADMIN\"]}}}",
		 "spec.runner.containerSecurityContext.capabilities.add[1]: adding SYS_ADMIN is "
		 "not "
		 "allowed by the runner policy",
		 "runner-pod-security", "privileged"},
		{"{\"containerSecurityContext\":{\"capabilities\":{\"add\":[\"CHOWN\"]}}}",
		 "capabilities.add[0]: adding CHOWN is not allowed by the runner policy (pod "
		 "security "
		 "restricted; it needs baseline",
		 "runner-pod-security", "baseline"},
		{"{\"containerSecurityContext\":{\"allowPrivilegeEscalation\":true}}",
		 "spec.runner.containerSecurityContext.allowPrivilegeEscalation: true is not "
		 "allowed",
		 "runner-pod-security", "baseline"},
		{"{\"securityContext\":{\"runAsUser\":0}}",
		 "spec.runner.securityContext.runAsUser: 0 (root) is not allowed by the runner "
		 "policy",
		 "runner-pod-security", "baseline"},
		{"{\"securityContext\":{\"runAsNonRoot\":false}}",
		 "spec.runner.securityContext.runAsNonRoot: false is not allowed",
		 "runner-pod-security", "baseline"},
		{"{\"seccompProfile\":{\"type\":\"Unconfined\"}}",
		 "spec.runner.seccompProfile.type: Unconfined is not allowed",
		 "runner-pod-security", "privileged"},
		/* issue 34: placement on the control-plane nodes */
		{"{\"tolerations\":[{\"key\":\"disk\",\"operator\":\"Exists\"},{\"key\":"
		 "\"node-role.kubernetes.io/control-plane\",\"operator\":\"Exists\",\"effect\":"
		 "\"NoSchedule\"}]}",
		 "spec.runner.tolerations[1]: tolerating the control-plane taint is not allowed by "
		 "the runner policy",
		 "runner-allow-control-plane", NULL},
		{"{\"tolerations\":[{\"key\":\"node-role.kubernetes.io/master\",\"operator\":"
		 "\"Equal\",\"value\":\"\"}]}",
		 "spec.runner.tolerations[0]: tolerating the control-plane taint",
		 "runner-allow-control-plane", NULL},
		{"{\"tolerations\":[{\"operator\":\"Exists\"}]}",
		 "spec.runner.tolerations[0]: tolerating every taint (no key, Exists) is not "
		 "allowed",
		 "runner-allow-control-plane", "true"},
		{"{\"nodeSelector\":{\"node-role.kubernetes.io/control-plane\":\"\"}}",
		 "spec.runner.nodeSelector.node-role.kubernetes.io/control-plane: selecting "
		 "control-plane nodes is not allowed",
		 "runner-allow-control-plane", NULL},
		{"{\"affinity\":{\"nodeAffinity\":{"
		 "\"requiredDuringSchedulingIgnoredDuringExecution\":"
		 "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"disk\",\"operator\":"
		 "\"Exists\"},{\"key\":\"node-role.kubernetes.io/control-plane\",\"operator\":"
		 "\"Exists\"}]}]}}}}",
		 "nodeSelectorTerms[0].matchExpressions[1]: selecting control-plane nodes",
		 "runner-allow-control-plane", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char spec[1024], err[1024] = "";
		snprintf(spec, sizeof(spec), "{\"storageClasses\":[\"fast\"],\"runner\":%s}",
			 cases[i].runner);
		struct br_policy p = BR_POLICY_INIT;
		p.runner_image = "localhost/storagebench:test";
		int r = check(&p, spec, err, sizeof(err));
		if (r != -EACCES || !strstr(err, cases[i].needle)) {
			fprintf(stderr, "    %s\n    gave %d '%s'\n    wanted '%s'\n", spec, r, err,
				cases[i].needle);
			return T_FAIL;
		}
		/* the message says how to widen it, and widening it lets it through */
		CHECK(strstr(err, cases[i].widen_flag) != NULL);
		CHECK_INT(br_policy_flag(&p, cases[i].widen_flag, cases[i].widen_value, err,
					 sizeof(err)),
			  0);
		r = check(&p, spec, err, sizeof(err));
		if (r) {
			fprintf(stderr, "    %s with --%s=%s\n    gave %d '%s'\n", spec,
				cases[i].widen_flag,
				cases[i].widen_value ? cases[i].widen_value : "", r, err);
			br_policy_release(&p);
			return T_FAIL;
		}
		br_policy_release(&p);
	}
	return T_PASS;
}

/* Issue 34: ordinary placement stays allowed under the default policy. */
static int test_policy_placement_allowed(void)
{
	static const char *const ok[] = {
		"{\"tolerations\":[{\"key\":\"disk\",\"operator\":\"Exists\",\"effect\":"
		"\"NoSchedule\"}]}",
		"{\"nodeSelector\":{\"disk\":\"ssd\"}}",
		"{\"affinity\":{\"nodeAffinity\":{"
		"\"requiredDuringSchedulingIgnoredDuringExecution\":{"
		"\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"node-role.kubernetes.io/"
		"control-plane\",\"operator\":\"DoesNotExist\"}]}]}}}}",
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char spec[1024], err[1024] = "";
		snprintf(spec, sizeof(spec), "{\"storageClasses\":[\"fast\"],\"runner\":%s}",
			 ok[i]);
		struct br_policy p = BR_POLICY_INIT;
		p.runner_image = "localhost/storagebench:test";
		int r = check(&p, spec, err, sizeof(err));
		if (r)
			fprintf(stderr, "    %s\n    gave %d '%s'\n", spec, r, err);
		CHECK_INT(r, 0);
	}
	struct br_policy p = BR_POLICY_INIT;
	char err[256];
	CHECK_INT(br_policy_flag(&p, "runner-allow-control-plane", "maybe", err, sizeof(err)),
		  -EINVAL);
	CHECK(strstr(err, "'maybe' is not true or false"));
	return T_PASS;
}

static int test_policy_levels_of_widened_pods(void)
{
	static const struct {
		const char *runner;
		enum br_pss_level level;
		const char *why;
	} cases[] = {
		{"{\"containerSecurityContext\":{\"privileged\":true}}", BR_PSS_PRIVILEGED,
		 "privileged"},
		{"{\"hostNetwork\":true}", BR_PSS_PRIVILEGED, "hostNetwork"},
		{"{\"containerSecurityContext\":{\"capabilities\":{\"add\":[\"CAP_SYS_NICE\"]}}}",
		 BR_PSS_PRIVILEGED, "adds capability CAP_SYS_NICE"},
		{"{\"containerSecurityContext\":{\"capabilities\":{\"add\":[\"CHOWN\"]}}}",
		 BR_PSS_BASELINE, "adds capability CHOWN"},
		{"{\"securityContext\":{\"runAsUser\":0}}", BR_PSS_BASELINE, "runAsNonRoot"},
		{"{\"seccompProfile\":{\"type\":\"Unconfined\"}}", BR_PSS_PRIVILEGED, "Unconfined"},
		{"{\"containerSecurityContext\":{\"allowPrivilegeEscalation\":true}}",
		 BR_PSS_BASELINE, "allowPrivilegeEscalation"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char spec[1024], why[256];
		struct br_spec s;
		snprintf(spec, sizeof(spec), "{\"storageClasses\":[\"fast\"],\"runner\":%s}",
			 cases[i].runner);
		json_t *pod = pod_of(spec, &s);
		CHECK(pod != NULL);
		enum br_pss_level l = br_pss_evaluate(pod, why, sizeof(why));
		if (l != cases[i].level || !strstr(why, cases[i].why)) {
			fprintf(stderr, "    %s: %s (%s)\n", spec, br_pss_level_name(l), why);
			json_decref(pod);
			br_spec_release(&s);
			return T_FAIL;
		}
		json_decref(pod);
		br_spec_release(&s);
	}
	/* privileged leaves escalation to the API server's default, as it requires */
	struct br_spec s;
	json_t *pod = pod_of("{\"storageClasses\":[\"fast\"],\"runner\":{"
			     "\"containerSecurityContext\":{\"privileged\":true}}}",
			     &s);
	CHECK(pod != NULL);
	const json_t *csc = json_object_get(
		json_array_get(json_object_get(json_object_get(pod, "spec"), "containers"), 0),
		"securityContext");
	CHECK(json_object_get(csc, "allowPrivilegeEscalation") == NULL);
	CHECK(json_is_true(json_object_get(csc, "privileged")));
	json_decref(pod);
	br_spec_release(&s);
	return T_PASS;
}

static int test_pss_evaluator_on_foreign_pods(void)
{
	static const struct {
		const char *pod;
		enum br_pss_level level;
	} cases[] = {
		{"{\"spec\":{\"volumes\":[{\"name\":\"h\",\"hostPath\":{\"path\":\"/\"}}],"
		 "\"containers\":[]}}",
		 BR_PSS_PRIVILEGED},
		{"{\"spec\":{\"hostPID\":true,\"containers\":[]}}", BR_PSS_PRIVILEGED},
		{"{\"spec\":{\"volumes\":[{\"name\":\"n\",\"nfs\":{}}],\"containers\":[]}}",
		 BR_PSS_BASELINE},
		/* a container without a securityContext: baseline, not restricted */
		{"{\"spec\":{\"containers\":[{\"name\":\"c\"}]}}", BR_PSS_BASELINE},
		/* pod-level settings count for the container */
		{"{\"spec\":{\"securityContext\":{\"runAsNonRoot\":true,\"seccompProfile\":{"
		 "\"type\":"
		 "\"RuntimeDefault\"}},\"containers\":[{\"name\":\"c\",\"securityContext\":{"
		 "\"allowPrivilegeEscalation\":false,\"capabilities\":{\"drop\":[\"ALL\"]}}}]}}",
		 BR_PSS_RESTRICTED},
		{"{\"spec\":{\"securityContext\":{\"runAsNonRoot\":true,\"seccompProfile\":{"
		 "\"type\":"
		 "\"RuntimeDefault\"}},\"initContainers\":[{\"name\":\"i\",\"securityContext\":{"
		 "\"privileged\":true}}],\"containers\":[]}}",
		 BR_PSS_PRIVILEGED},
		{"{\"spec\":{\"containers\":[{\"name\":\"c\",\"ports\":[{\"hostPort\":80}]}]}}",
		 BR_PSS_PRIVILEGED},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *pod = json_loads(cases[i].pod, 0, NULL);
		CHECK(pod != NULL);
		char why[256];
		enum br_pss_level l = br_pss_evaluate(pod, why, sizeof(why));
		json_decref(pod);
		if (l != cases[i].level) {
			fprintf(stderr, "    case %zu: %s (%s)\n", i, br_pss_level_name(l), why);
			return T_FAIL;
		}
	}
	return T_PASS;
}

static int test_image_allowlist(void)
{
	struct br_policy p = BR_POLICY_INIT;
	char err[512];
	p.runner_image = "localhost/storagebench:0.1.0";
	CHECK(br_policy_image_allowed(&p, "localhost/storagebench:0.1.0"));
	CHECK(!br_policy_image_allowed(&p, "localhost/storagebench:0.2.0")); /* only the image */
	CHECK(!br_policy_image_allowed(&p, "localhost/storagebench"));
	CHECK(!br_policy_image_allowed(&p, ""));
	CHECK_INT(br_policy_flag(&p, "runner-allowed-images",
				 "reg.example.com:5000/storage/,reg.example.com/tools/fio", err,
				 sizeof(err)),
		  0);
	CHECK_INT(p.nimages, 2);
	CHECK(br_policy_image_allowed(&p, "reg.example.com:5000/storage/runner:1"));
	CHECK(br_policy_image_allowed(&p, "reg.example.com:5000/storage/a/b@sha256:00"));
	CHECK(!br_policy_image_allowed(&p, "reg.example.com:5000/storage-evil/runner:1"));
	CHECK(!br_policy_image_allowed(&p, "reg.example.com:5000/storage/"));	 /* no name */
	CHECK(!br_policy_image_allowed(&p, "reg.example.com/storage/runner:1")); /* other port */
	CHECK(br_policy_image_allowed(&p, "reg.example.com/tools/fio:3.33"));
	CHECK(br_policy_image_allowed(&p, "reg.example.com/tools/fio"));
	CHECK(!br_policy_image_allowed(&p, "reg.example.com/tools/fio-evil:1"));
	CHECK(!br_policy_image_allowed(&p, "reg.example.com/tools/fio/x:1"));
	CHECK_INT(br_policy_flag(&p, "runner-allowed-images", "*", err, sizeof(err)), 0);
	CHECK(br_policy_image_allowed(&p, "anything.example.com/x:1"));
	br_policy_release(&p);
	CHECK_INT(p.nimages, 0);
	CHECK_STR(p.runner_image, "localhost/storagebench:0.1.0"); /* kept */
	/* bad flag values name the flag */
	static const struct {
		const char *flag, *value, *needle;
	} bad[] = {
		{"runner-allowed-images", "reg/x:1",
		 "--runner-allowed-images: 'reg/x:1' names a tag"},
		{"runner-allowed-images", "reg/*", "'*' stands alone"},
		{"runner-allowed-images", "a,,b b", "'b b' is not an image repository"},
		{"runner-allowed-service-accounts", "Admin",
		 "'Admin' is not a ServiceAccount name"},
		{"runner-pod-security", "open", "--runner-pod-security: 'open' is not restricted"},
		{"runner-allow-host-network", "yes", "--runner-allow-host-network: 'yes'"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		int r = br_policy_flag(&p, bad[i].flag, bad[i].value, err, sizeof(err));
		if (r != -EINVAL || !strstr(err, bad[i].needle)) {
			fprintf(stderr, "    --%s=%s gave %d '%s'\n", bad[i].flag, bad[i].value, r,
				err);
			br_policy_release(&p);
			return T_FAIL;
		}
	}
	br_policy_release(&p);
	CHECK_INT(br_policy_flag(&p, "workers", "2", err, sizeof(err)), 1); /* not ours */
	return T_PASS;
}

static int test_service_account_allowlist(void)
{
	struct br_policy p = BR_POLICY_INIT;
	char err[1024];
	p.runner_image = "localhost/storagebench:test";
	p.runner_sa = "bench-runner";
	/* the runner's own account, as the controller was told */
	CHECK_INT(check(&p,
			"{\"storageClasses\":[\"a\"],\"runner\":{\"serviceAccountName\":"
			"\"bench-runner\"}}",
			err, sizeof(err)),
		  0);
	CHECK_INT(check(&p,
			"{\"storageClasses\":[\"a\"],\"runner\":{\"serviceAccountName\":"
			"\"storagebench-runner\"}}",
			err, sizeof(err)),
		  -EACCES);
	CHECK_INT(br_policy_flag(&p, "runner-allowed-service-accounts", "a,b", err, sizeof(err)),
		  0);
	CHECK_INT(check(&p,
			"{\"storageClasses\":[\"a\"],\"runner\":{\"serviceAccountName\":\"b\"}}",
			err, sizeof(err)),
		  0);
	CHECK_INT(check(&p,
			"{\"storageClasses\":[\"a\"],\"runner\":{\"serviceAccountName\":\"c\"}}",
			err, sizeof(err)),
		  -EACCES);
	CHECK_INT(br_policy_flag(&p, "runner-allowed-service-accounts", "*", err, sizeof(err)), 0);
	CHECK_INT(check(&p,
			"{\"storageClasses\":[\"a\"],\"runner\":{\"serviceAccountName\":\"c\"}}",
			err, sizeof(err)),
		  0);
	br_policy_release(&p);
	return T_PASS;
}

static int test_provenance(void)
{
	struct br_spec s;
	struct br_policy p = BR_POLICY_INIT;
	char err[256];
	p.runner_image = "localhost/storagebench:test";
	CHECK_INT(
		br_policy_flag(&p, "runner-allowed-images", "reg.example.com/x/", err, sizeof(err)),
		0);
	json_t *pod = pod_of("{\"storageClasses\":[\"fast\"]}", &s);
	CHECK(pod != NULL);
	json_t *pv = br_policy_provenance(&p, pod);
	CHECK(pv != NULL);
	const json_t *r = json_object_get(pv, "runner"), *pol = json_object_get(pv, "policy");
	CHECK_STR(json_string_value(json_object_get(r, "image")), "localhost/storagebench:test");
	CHECK_STR(json_string_value(json_object_get(r, "serviceAccount")), "storagebench-runner");
	CHECK_STR(json_string_value(json_object_get(r, "podSecurity")), "restricted");
	CHECK(json_is_false(json_object_get(r, "hostNetwork")));
	CHECK_INT(json_integer_value(
			  json_object_get(json_object_get(r, "securityContext"), "runAsUser")),
		  65532);
	CHECK_STR(json_string_value(json_object_get(pol, "podSecurity")), "restricted");
	CHECK_STR(json_string_value(json_array_get(json_object_get(pol, "allowedImages"), 0)),
		  "reg.example.com/x/");
	CHECK_STR(json_string_value(json_object_get(pol, "runnerServiceAccount")),
		  "storagebench-runner");
	/* and in words, in report.txt and report.md */
	json_t *rep = json_load_file("tests/fixtures/reports/storage-cluster-2.json", 0, NULL);
	if (rep) {
		struct br_ref ref = {"bench", "sc", "uid-1"};
		CHECK_INT(json_object_set(rep, "provenance", pv), 0);
		json_t *cm = br_report_cm_manifest(&ref, rep);
		CHECK(cm != NULL);
		const json_t *data = json_object_get(cm, "data");
		const char *txt = json_string_value(json_object_get(data, "report.txt"));
		const char *md = json_string_value(json_object_get(data, "report.md"));
		CHECK(strstr(txt, "\n=== provenance\nrunner: image localhost/storagebench:test, "
				  "ServiceAccount storagebench-runner, uid 65532, pod security "
				  "restricted\nrunner policy: pod security restricted, hostNetwork "
				  "refused, 1 more image repositories, 0 more ServiceAccounts\n") !=
		      NULL);
		CHECK(strstr(md, "## Provenance\n\n- runner: image localhost/storagebench:test") !=
		      NULL);
		json_decref(cm);
		json_decref(rep);
	}
	json_decref(pv);
	json_decref(pod);
	br_spec_release(&s);
	br_policy_release(&p);
	return T_PASS;
}

/* Issue 15 bug 6: a workload name cannot inject a second job into the job file. */
static int test_hostile_workloads(void)
{
	static const struct {
		const char *spec, *want;
	} c[] = {
		{"{\"storageClasses\":[\"a\"],\"workloads\":[{\"name\":\"x]\\nfilename=/dev/"
		 "sda\\nrw="
		 "write\\n[y\",\"rw\":\"read\"}]}",
		 "spec.workloads[0].name: not a workload name"},
		{"{\"storageClasses\":[\"a\"],\"workloads\":[{\"name\":\"Upper\",\"rw\":\"read\"}]"
		 "}",
		 "spec.workloads[0].name: not a workload name"},
		{"{\"storageClasses\":[\"a\"],\"workloads\":[{\"name\":"
		 "\"a234567890123456789012345678"
		 "9012345678901234567890123456789012345\",\"rw\":\"read\"}]}",
		 "spec.workloads[0].name: not a workload name"},
		{"{\"storageClasses\":[\"a\"],\"workloads\":[{\"name\":\"w\",\"rw\":\"read\","
		 "\"bs\":\"4k\\nfilename=/dev/sda\"}]}",
		 "spec.workloads[0].bs: contains a control character (0x0a)"},
		{"{\"storageClasses\":[\"a\"],\"workloads\":[{\"name\":\"w\",\"rw\":\"read\","
		 "\"bs\":\"4k                                                                     "
		 "                                                                       junk\"}]}",
		 "spec.workloads[0].bs: must be at most 127 characters"},
		{"{\"storageClasses\":[\"a\"],\"workloads\":[{\"name\":\"w\",\"rw\":\"read\","
		 "\"steadyState\":{\"criterion\":\"iops:5%\\n[z]\",\"window\":\"10s\","
		 "\"maxRuntime\":\"60s\"}}]}",
		 "spec.workloads[0].steadyState.criterion: contains a control character"},
		{"{\"storageClasses\":[\"a\"],\"workloads\":[{\"name\":\"w\",\"rw\":\"read\"},"
		 "{\"name\":\"v\",\"rw\":\"read\"},{\"name\":\"w\",\"rw\":\"read\"}]}",
		 "spec.workloads[2].name: 'w' is used twice"},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		if (expect_invalid(c[i].spec, c[i].want))
			return T_FAIL;
	return T_PASS;
}

/* 64 workloads at most (the CRD's maxItems), checked before anything per workload. */
static int test_workload_count_limit(void)
{
	size_t cap = 80000;
	char *t = malloc(cap);
	CHECK(t != NULL);
	size_t n = (size_t)snprintf(t, cap, "{\"storageClasses\":[\"a\"],\"workloads\":[");
	for (int i = 0; i < 2000; i++)
		n += (size_t)snprintf(t + n, cap - n, "%s{\"name\":\"w%d\",\"rw\":\"read\"}",
				      i ? "," : "", i);
	snprintf(t + n, cap - n, "]}");
	int r = expect_invalid(t, "spec.workloads: 2000 workloads, at most 64");
	free(t);
	CHECK_INT(r, T_PASS);
	return T_PASS;
}

/* Issue 15 bug 7: ${VAR} in fioJob expands spec.runner.env only, never the controller's env. */
static int test_fiojob_vars_are_the_runs(void)
{
	struct br_spec s;
	char err[1024] = "";
	CHECK_INT(setenv("SB_TEST_CONTROLLER_SECRET", "10.96.0.1", 1), 0);
	int r = parse("{\"storageClasses\":[\"a\"],\"fioJob\":\"[x]\\nrw=read\\n"
		      "bs=${SB_TEST_CONTROLLER_SECRET}\\n\"}",
		      &s, err, sizeof(err));
	br_spec_release(&s);
	unsetenv("SB_TEST_CONTROLLER_SECRET");
	CHECK_INT(r, -EINVAL);
	CHECK(strstr(err, "variable 'SB_TEST_CONTROLLER_SECRET' is not set in spec.runner.env"));
	CHECK(!strstr(err, "10.96.0.1"));
	/* a variable the run defines expands */
	r = parse("{\"storageClasses\":[\"a\"],\"fioJob\":\"[x]\\nrw=read\\nbs=${BS}\\n\","
		  "\"runner\":{\"env\":[{\"name\":\"BS\",\"value\":\"64k\"}]}}",
		  &s, err, sizeof(err));
	if (r)
		fprintf(stderr, "    %s\n", err);
	br_spec_release(&s);
	CHECK_INT(r, 0);
	/* and a bad value from it is still reported */
	CHECK_INT(expect_invalid("{\"storageClasses\":[\"a\"],\"fioJob\":\"[x]\\nrw=read\\n"
				 "bs=${BS}\\n\",\"runner\":{\"env\":[{\"name\":\"BS\",\"value\":"
				 "\"huge\"}]}}",
				 "bs: 'huge'"),
		  T_PASS);
	return T_PASS;
}

/*
 * Issue 34: spec.runner.env refuses every name that changes what the runner
 * loads, trusts or where it connects (lib/core/envdeny.h), naming the field
 * and the variable; ordinary names stay.
 */
static int test_env_denylist(void)
{
	static const char *const denied[] = {
		"LD_PRELOAD",
		"LD_LIBRARY_PATH",
		"KUBECONFIG",
		"https_proxy",
		"HTTPS_PROXY",
		"http_proxy",
		"ALL_PROXY",
		"no_proxy",
		"SSL_CERT_FILE",
		"OPENSSL_CONF",
		"CURL_CA_BUNDLE",
		"GCONV_PATH",
		"MALLOC_CHECK_",
		"GLIBC_TUNABLES",
		"LOCPATH",
		"NLSPATH",
		"HOSTALIASES",
		"RES_OPTIONS",
		"TZDIR",
		"SB_RUN",
		"SB_TERMINATION_LOG",
		"KUBERNETES_SERVICE_HOST",
		"LOCALDOMAIN",
	};
	char spec[512], needle[160];
	for (size_t i = 0; i < sizeof(denied) / sizeof(denied[0]); i++) {
		snprintf(spec, sizeof(spec),
			 "{\"storageClasses\":[\"a\"],\"runner\":{\"env\":[{\"name\":\"OK\","
			 "\"value\":\"1\"},{\"name\":\"%s\",\"value\":\"/tmp/x\"}]}}",
			 denied[i]);
		snprintf(needle, sizeof(needle), "spec.runner.env[1].name: '%s' is not allowed",
			 denied[i]);
		CHECK_INT(expect_invalid(spec, needle), T_PASS);
	}
	static const char *const allowed[] = {"BS", "TZ", "LANG", "MY_SSL", "PROXY", "HOME"};
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		struct br_spec s;
		char err[512] = "";
		snprintf(spec, sizeof(spec),
			 "{\"storageClasses\":[\"a\"],\"runner\":{\"env\":[{\"name\":\"%s\","
			 "\"value\":\"1\"}]}}",
			 allowed[i]);
		int r = parse(spec, &s, err, sizeof(err));
		br_spec_release(&s);
		if (r)
			fprintf(stderr, "    %s: %s\n", allowed[i], err);
		CHECK_INT(r, 0);
	}
	return T_PASS;
}

/* Issue 34: a report larger than a ConfigMap holds still gets written: the largest renderings
 * go first, report.txt last, report.json and compare.json never; too large even so: -E2BIG. */
static char *filled(size_t n, char c)
{
	char *b = malloc(n + 1);
	if (b) {
		memset(b, c, n);
		b[n] = '\0';
	}
	return b;
}

static int test_report_fits(void)
{
	char why[1300];
	char *big = filled(600 * 1024, 's'), *mid = filled(300 * 1024, 'm'),
	     *txt = filled(200 * 1024, 't'), *js = filled(100 * 1024, 'j');
	CHECK(big && mid && txt && js);
	json_t *cm = json_pack("{s:{s:s,s:s,s:s,s:s,s:s,s:s}}", "data", "report.json", js,
			       "compare.json", "{}", "report.txt", txt, "report.svg", big,
			       "report.md", mid, "report.csv", "a,b\n");
	json_t *small = json_pack("{s:{s:s,s:s}}", "data", "report.json", "{}", "report.txt", "x");
	json_t *huge = json_pack("{s:{s:s,s:s}}", "data", "report.json", big, "compare.json", big);
	free(big);
	free(mid);
	free(txt);
	free(js);
	CHECK(cm && small && huge);
	int n = br_report_cm_fit(cm, BR_REPORT_CM_MAX_BYTES, why, sizeof(why));
	json_t *d = json_object_get(cm, "data");
	const char *note = json_string_value(json_object_get(d, BR_REPORT_OMITTED_KEY));
	bool ok = n == 1 && !json_object_get(d, "report.svg") && json_object_get(d, "report.md") &&
		  json_object_get(d, "report.txt") && json_object_get(d, "report.json") &&
		  json_object_get(d, "compare.json") && note &&
		  strstr(note, "report.svg (614400 bytes)") && !strstr(note, "report.md");
	/* a smaller limit: the md, the csv, then report.txt; never report.json */
	int n2 = br_report_cm_fit(cm, 120 * 1024, why, sizeof(why));
	note = json_string_value(json_object_get(d, BR_REPORT_OMITTED_KEY));
	ok = ok && n2 == 3 && !json_object_get(d, "report.txt") &&
	     json_object_get(d, "report.json") && note &&
	     strstr(note, "report.md (307200 bytes), report.csv (4 bytes), report.txt");
	int n3 = br_report_cm_fit(small, BR_REPORT_CM_MAX_BYTES, why, sizeof(why));
	ok = ok && n3 == 0 &&
	     !json_object_get(json_object_get(small, "data"), BR_REPORT_OMITTED_KEY);
	int n4 = br_report_cm_fit(huge, BR_REPORT_CM_MAX_BYTES, why, sizeof(why));
	ok = ok && n4 == -E2BIG && strstr(why, "more than a ConfigMap holds");
	json_decref(cm);
	json_decref(small);
	json_decref(huge);
	CHECK(ok);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"manifests/report-configmap-with-charts", test_report_cm},
	{"spec/defaults", test_defaults},
	{"spec/every-rule-names-the-field", test_every_rule_names_the_field},
	{"spec/workloads-become-jobfile", test_workloads_become_jobfile},
	{"spec/hostile-workloads-refused", test_hostile_workloads},
	{"spec/workload-count-limit", test_workload_count_limit},
	{"spec/fiojob-vars-are-the-runs", test_fiojob_vars_are_the_runs},
	{"spec/env-denylist", test_env_denylist},
	{"spec/profile-args-and-block", test_profile_args_and_block},
	{"manifests/pod-pvc-spec-cm", test_pod_manifest},
	{"manifests/report-fits-a-configmap", test_report_fits},
	{"manifests/times-and-durations", test_times},
	{"policy/default-runner-pod-is-restricted", test_default_pod_is_restricted},
	{"policy/refuses-names-the-field-and-widens", test_policy_refuses_and_names_the_field},
	{"policy/levels-of-widened-pods", test_policy_levels_of_widened_pods},
	{"policy/placement-allowed", test_policy_placement_allowed},
	{"policy/pss-evaluator-on-foreign-pods", test_pss_evaluator_on_foreign_pods},
	{"policy/image-allowlist-and-flags", test_image_allowlist},
	{"policy/service-account-allowlist", test_service_account_allowlist},
	{"policy/provenance", test_provenance},
};
TEST_MAIN(cases)
