/* SPDX-License-Identifier: MIT */
/* Distributed runs: spec fields, member manifests and names (controller/distrib/distrib.c). */
#include "tests/unit/harness.h"
#include "tests/unit/job_fixture.h"
#include "tests/unit/member_fixture.h"
#include "tests/unit/spec_helpers.h"

#include "stats/aggregate.h"
#include "controller/distrib/distrib.h"
#include "controller/distrib/clock.h"
#include "controller/run/plan.h"
#include "controller/run/runkey.h"
#include "core/labels.h"
#include "core/names.h"
#include "result/owner.h"
#include "report/report.h"
#include "result/sign.h"

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
	char size[48];
	snprintf(size, sizeof(size), "%s", s.test_size);
	br_spec_release(&s);
	if (r)
		fprintf(stderr, "    %s\n", err);
	CHECK_STR(size, "5368709120"); /* sharedFile: the same files, half the 10Gi volume */
	CHECK_INT(r, 0);
	CHECK_INT(pods, 3);
	CHECK_INT(v, BR_VOLUME_SHARED_FILE);
	CHECK_INT(sp, BR_SPREAD_SCHEDULE_ANYWAY);
	CHECK_INT(b, 90);
	return T_PASS;
}

/* shared: each pod its own files on the one volume, so each gets its share of half of it */
static int test_shared_size_split(void)
{
	struct br_spec s;
	char err[512] = "";
	int r = parse("{\"storageClasses\":[\"cephfs\"],\"profile\":\"quick\",\"volume\":{"
		      "\"size\":\"96Mi\",\"accessMode\":\"ReadWriteMany\"},\"runner\":{"
		      "\"pods\":3,\"volume\":\"shared\"}}",
		      &s, err, sizeof(err));
	char size[48];
	snprintf(size, sizeof(size), "%s", s.test_size);
	br_spec_release(&s);
	CHECK_INT(r, 0);
	CHECK_STR(size, "16777216");
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
		{"{\"storageClasses\":[\"fast\"],\"profile\":\"quick\",\"size\":\"40m\",\"volume\":"
		 "{"
		 "\"size\":\"100Mi\",\"accessMode\":\"ReadWriteMany\"},\"runner\":{\"pods\":3,"
		 "\"volume\":\"shared\"}}",
		 "spec.size: 40m per pod, 3 pods on one shared volume of 100Mi do not fit"},
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
	CHECK_INT(sb_name_ready(b, sizeof(b), "demo", "fast", 4, 2, 3, 0), 0);
	CHECK_STR(b, "demo-fast-4-a2-m3-ready");
	CHECK_INT(sb_name_start(b, sizeof(b), "demo", "fast", 4, 2, 0), 0);
	CHECK_STR(b, "demo-fast-4-a2-start");
	/* later workload groups of the iteration: a barrier each */
	CHECK_INT(sb_name_ready(b, sizeof(b), "demo", "fast", 4, 2, 3, 1), 0);
	CHECK_STR(b, "demo-fast-4-a2-m3-g1-ready");
	CHECK_INT(sb_name_start(b, sizeof(b), "demo", "fast", 4, 2, 1), 0);
	CHECK_STR(b, "demo-fast-4-a2-g1-start");
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
	struct br_ref ref = {"bench", "demo", "0123abcd-uid-1"};
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
	struct br_ref ref = {"bench", "demo", "0123abcd-uid-1"};
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
	struct br_ref ref = {"bench", "demo", "0123abcd-uid-1"};
	json_t *cm = br_start_cm_manifest(&ref, "fast", 3, 1, 0, 1764610000123456789LL);
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
		!strcmp(json_string_value(json_object_get(lb, SB_LABEL_GROUP)), "0") &&
		!strcmp(json_string_value(json_object_get(json_object_get(cm, "metadata"), "name")),
			"demo-fast-3-a1-start");
	json_decref(cm);
	CHECK(ok);
	return T_PASS;
}

/* A barrier past its time fails the class naming pod and node; its pods are stopped. */
static int test_plan_barrier_timeout(void)
{
	static struct br_obs o;
	static struct br_plan p;
	memset(&o, 0, sizeof(o));
	o.now = 1000;
	o.start = 900;
	o.iterations = 2;
	o.parallelism = 1;
	o.max_attempts = 3;
	o.pvc_bind_s = 300;
	o.iteration_s = 3600;
	o.run_s = 0;
	o.nclasses = 1;
	struct br_class_obs *c = &o.classes[0];
	c->name = "fast";
	c->sc_exists = c->pvc_exists = c->pvc_bound = true;
	c->prev_phase = BR_CLASS_RUNNING;
	c->prev_attempts = 1;
	c->done = 1;
	c->npods = 1;
	snprintf(c->pods[0].name, sizeof(c->pods[0].name), "demo-fast-1");
	c->pods[0].attempt = 1;
	c->pods[0].phase = BR_POD_RUNNING;
	c->pods[0].created = 950;
	/* waiting: the deadline is when the barrier times out */
	c->barrier_deadline = 1010;
	br_plan_compute(&o, &p);
	CHECK_INT(p.classes[0].phase, BR_CLASS_RUNNING);
	CHECK_INT(p.requeue_s, 10);
	snprintf(c->barrier_failure, sizeof(c->barrier_failure),
		 "iteration 2: pod demo-fast-1-m3 on node storagebench-c did not reach the start "
		 "barrier within 60s (2 of 3 pods ready); recorded iterations are kept");
	br_plan_compute(&o, &p);
	CHECK_INT(p.classes[0].phase, BR_CLASS_FAILED);
	CHECK_STR(p.classes[0].reason, "BarrierTimeout");
	CHECK(strstr(p.classes[0].message, "pod demo-fast-1-m3 on node storagebench-c") != NULL);
	CHECK_INT(p.phase, BR_RUN_FAILED);
	CHECK_INT(p.done, 1); /* the recorded iteration counts, and is reported */
	bool deleted = false, report = false;
	for (size_t i = 0; i < p.nactions; i++) {
		deleted = deleted || (p.actions[i].kind == BR_ACT_DELETE_POD &&
				      !strcmp(p.actions[i].name, "demo-fast-1"));
		report = report || p.actions[i].kind == BR_ACT_WRITE_REPORT;
	}
	CHECK(deleted);
	CHECK(report);
	return T_PASS;
}

static const char *DIST_REPORT =
	"{\"kind\":\"StoragebenchReport\",\"version\":1,\"name\":\"d\",\"targets\":[],"
	"\"workloads\":[],\"results\":[],\"distributed\":{\"podsPerClass\":2,\"volume\":"
	"\"perPod\",\"spread\":\"DoNotSchedule\",\"stragglerRatio\":0.5,\"skew\":[{\"target\":"
	"\"fast\",\"iteration\":1,\"attempt\":1,\"skew_ms\":1.25},{\"target\":7}],\"pods\":["
	"{\"target\":\"fast\",\"workload\":\"rr\",\"iteration\":1,\"member\":1,\"pod\":\"d-"
	"fast-1-m1\",\"node\":\"n,a\",\"read-iops\":1000,\"write-iops\":0,\"read-bw\":4096000,"
	"\"write-bw\":0,\"straggler\":false},{\"target\":\"fast\",\"workload\":\"rr\","
	"\"iteration\":1,\"member\":2,\"pod\":\"d-fast-1-m2\",\"node\":\"b|c\",\"read-iops\":"
	"100,\"write-iops\":0,\"read-bw\":409600,\"write-bw\":0,\"straggler\":true},{\"target\":"
	"\"fast\",\"read-iops\":\"many\"}],\"nodes\":[{\"target\":\"fast\",\"workload\":"
	"\"rr\",\"node\":\"n,a\",\"pods\":1,\"iops\":1000,\"bw\":4096000}]}}";

static int test_report_section(void)
{
	char err[256] = "";
	json_t *rep = json_loads(DIST_REPORT, 0, NULL);
	CHECK(rep != NULL);
	char *txt = sb_report_render(rep, "txt", err, sizeof(err));
	char *md = sb_report_render(rep, "md", err, sizeof(err));
	char *csv = sb_report_render(rep, "pods.csv", err, sizeof(err));
	json_object_del(rep, "distributed");
	char *none = sb_report_render(rep, "pods.csv", err, sizeof(err));
	json_decref(rep);
	static char keep[3][4096];
	snprintf(keep[0], sizeof(keep[0]), "%s", txt ? txt : "");
	snprintf(keep[1], sizeof(keep[1]), "%s", md ? md : "");
	snprintf(keep[2], sizeof(keep[2]), "%s", csv ? csv : "");
	free(txt);
	free(md);
	free(csv);
	CHECK(none == NULL && strstr(err, "no distributed section"));
	CHECK(strstr(keep[0], "Distributed run: 2 runner pods per class"));
	CHECK(strstr(keep[0], "fast, iteration 1: 1.2 ms") ||
	      strstr(keep[0], "fast, iteration 1: 1.3 ms"));
	CHECK(strstr(keep[0],
		     "fast rr iteration 1 d-fast-1-m2 on b|c: read 100 IOPS, write 0 IOPS *"));
	CHECK(strstr(keep[1],
		     "| fast | rr | 1 | d-fast-1-m2 | b c | 100 IOPS | 0 IOPS | straggler |"));
	CHECK(strstr(keep[2], "fast,rr,1,1,d-fast-1-m1,\"n,a\",1000.000,0.000,4096000,0,false\n"));
	CHECK(strstr(keep[2], "fast,rr,1,2,d-fast-1-m2,b|c,100.000,0.000,409600,0,true\n"));
	CHECK(!strstr(keep[2], "many")); /* the malformed row is skipped */
	return T_PASS;
}

/* A member's result ConfigMap for (iteration 1, attempt 1) of run d (uid DUID), class cephfs. */
#define DUID "0b7c1e52-1111-4222-8333-944445555777"
static const unsigned char MASTER[SB_SIGN_KEY_BYTES] = "fedcba9876543210fedcba9876543210";

static json_t *member_result(unsigned member, const char *text, bool sign)
{
	const struct fx_member m = {"ns", "d", DUID, "cephfs", 1, 1, member};
	return fx_member_result(&m, text, sign);
}

/* An iteration counts as done only when every member's result passes the result rule,
 * signature included: a forged member result must not make it count (and be skipped). */
static int test_forged_member_result_not_counted(void)
{
	static const char *const TEXT =
		"{\"jobs\":[{\"jobname\":\"a\"}],\"context\":{\"run\":\"d\",\"class\":\"cephfs\","
		"\"iteration\":1,\"pod\":\"p\",\"attempt\":1}}";
	struct br_spec s;
	char err[512] = "";
	int r = parse("{\"storageClasses\":[\"cephfs\"],\"profile\":\"quick\",\"iterations\":2,"
		      "\"volume\":{\"accessMode\":\"ReadWriteMany\"},\"runner\":{\"pods\":2,"
		      "\"volume\":\"shared\"}}",
		      &s, err, sizeof(err));
	if (r) {
		fprintf(stderr, "    %s\n", err);
		return T_FAIL;
	}
	br_runkey_set_master(MASTER);
	struct br_ref run = {"ns", "d", DUID};
	json_t *pods = json_array();
	json_t *good =
		json_pack("[o,o]", member_result(1, TEXT, true), member_result(2, TEXT, true));
	json_t *forged =
		json_pack("[o,o]", member_result(1, TEXT, true), member_result(2, TEXT, false));
	unsigned done[2] = {99, 99};
	int rc[2] = {-1, -1};
	json_t *lists[2] = {good, forged};
	for (int i = 0; i < 2; i++) {
		struct br_class_obs co = {.name = "cephfs"};
		struct br_dist_obs d;
		bool left = false;
		rc[i] = br_dist_observe(NULL, &run, &s, pods, lists[i], 1764583200, &co, &d, &left);
		done[i] = co.done;
	}
	json_decref(pods);
	json_decref(good);
	json_decref(forged);
	br_spec_release(&s);
	CHECK_INT(rc[0], 0);
	CHECK_INT(done[0], 1);
	CHECK_INT(rc[1], 0);
	CHECK_INT(done[1], 0);
	return T_PASS;
}

static void no_warn(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "    warning: %s\n", msg);
}

/* A member's result whose three workload groups started at base + offsets (ns). */
static char *grouped_result(long long g0, long long g1, long long g2)
{
	json_t *doc = json_pack(
		"{s:[],s:{s:s,s:s,s:i,s:s,s:i,s:{s:I,s:I,s:[{s:i,s:I,s:I},{s:i,s:I,s:I},{s:i,"
		"s:I,s:I}]}}}",
		"jobs", "context", "run", "d", "class", "cephfs", "iteration", 1, "pod", "p",
		"attempt", 1, "start", "planned_ns", (json_int_t)1000, "actual_ns", (json_int_t)g0,
		"groups", "group", 0, "planned_ns", (json_int_t)1000, "actual_ns", (json_int_t)g0,
		"group", 1, "planned_ns", (json_int_t)2000, "actual_ns", (json_int_t)g1, "group", 2,
		"planned_ns", (json_int_t)3000, "actual_ns", (json_int_t)g2);
	char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
	json_decref(doc);
	return text;
}

/* Each workload group of an iteration starts at a barrier of its own: the report gives
 * the skew of every group, not only the first, from the members' context.start.groups. */
static int test_skew_of_later_groups(void)
{
	struct br_spec s;
	char err[512] = "";
	int r = parse("{\"storageClasses\":[\"cephfs\"],\"profile\":\"quick\",\"iterations\":2,"
		      "\"volume\":{\"accessMode\":\"ReadWriteMany\"},\"runner\":{\"pods\":2,"
		      "\"volume\":\"shared\"}}",
		      &s, err, sizeof(err));
	if (r) {
		fprintf(stderr, "    %s\n", err);
		return T_FAIL;
	}
	br_runkey_set_master(MASTER);
	struct br_ref run = {"ns", "d", DUID};
	/* group 0: 1.5 ms apart, group 1: 4 ms, group 2: 0.3 ms */
	char *t1 = grouped_result(5000000000LL, 6000000000LL, 7000300000LL);
	char *t2 = grouped_result(5001500000LL, 6004000000LL, 7000000000LL);
	json_t *list = t1 && t2 ? json_pack("[o,o]", member_result(1, t1, true),
					    member_result(2, t2, true))
				: NULL;
	free(t1);
	free(t2);
	json_t *extra = NULL;
	struct sb_agg *agg = sb_agg_new();
	r = list && agg ? br_dist_report(agg, &run, &s, list, &extra, no_warn, NULL) : -ENOMEM;
	sb_agg_free(agg);
	json_decref(list);
	br_spec_release(&s);
	CHECK_INT(r, 0);
	json_t *sk = json_array_get(json_object_get(extra, "skew"), 0);
	const json_t *groups = json_object_get(sk, "groups");
	int ok = json_array_size(json_object_get(extra, "skew")) == 1 &&
		 json_real_value(json_object_get(sk, "skew_ms")) == 1.5 &&
		 json_array_size(groups) == 2 &&
		 json_integer_value(json_object_get(json_array_get(groups, 0), "group")) == 1 &&
		 json_real_value(json_object_get(json_array_get(groups, 0), "skew_ms")) == 4.0 &&
		 json_integer_value(json_object_get(json_array_get(groups, 1), "group")) == 2 &&
		 json_real_value(json_object_get(json_array_get(groups, 1), "skew_ms")) == 0.3;
	/* rendered after the iteration's skew */
	json_t *rep = json_pack("{s:s,s:i,s:s,s:[],s:[],s:[],s:O}", "kind", "StoragebenchReport",
				"version", 1, "name", "d", "targets", "workloads", "results",
				"distributed", extra);
	json_decref(extra);
	char *txt = rep ? sb_report_render(rep, "txt", err, sizeof(err)) : NULL;
	char *md = rep ? sb_report_render(rep, "md", err, sizeof(err)) : NULL;
	json_decref(rep);
	static char keep[2][4096];
	snprintf(keep[0], sizeof(keep[0]), "%s", txt ? txt : "");
	snprintf(keep[1], sizeof(keep[1]), "%s", md ? md : "");
	free(txt);
	free(md);
	CHECK(ok);
	CHECK(strstr(keep[0], "  cephfs, iteration 1: 1.5 ms\n\nstart skew of the later workload "
			      "groups (each starts at a barrier of its own):\n"
			      "  cephfs, iteration 1, group 1: 4.0 ms\n"
			      "  cephfs, iteration 1, group 2: 0.3 ms\n"));
	CHECK(strstr(keep[1], "| class | iteration | workload group | start skew |\n"
			      "|---|---|---|---|\n| cephfs | 1 | 1 | 4.0 ms |\n"
			      "| cephfs | 1 | 2 | 0.3 ms |\n"));
	return T_PASS;
}

/* Member m's result of iteration 1: one job j (consumed), on node n<m>, pod d-cephfs-1-m<m>. */
/* Member m's signed result ConfigMap of iteration 1 holding doc (consumed). */
static json_t *doc_member(unsigned m, json_t *doc)
{
	char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
	json_decref(doc);
	json_t *cm = text ? member_result(m, text, true) : NULL;
	free(text);
	return cm;
}

static json_t *timed_member(unsigned m, json_t *j)
{
	char pod[32], node[8];
	snprintf(pod, sizeof(pod), "d-cephfs-1-m%u", m);
	snprintf(node, sizeof(node), "n%u", m);
	return doc_member(m, json_pack("{s:[o],s:{s:s,s:s,s:i,s:s,s:i,s:i,s:i,s:s}}", "jobs", j,
				       "context", "run", "d", "class", "cephfs", "iteration", 1,
				       "pod", pod, "attempt", 1, "member", (int)m, "members", 3,
				       "node", node));
}

/*
 * br_dist_report of members' results list (consumed) under a shared cephfs
 * class of pods pods, one iteration: *extra, and the aggregate's read IOPS.
 */
static int dist_report(unsigned pods, json_t *list, json_t **extra, double *agg_iops)
{
	struct br_spec s;
	char err[512] = "", spec[256];
	snprintf(spec, sizeof(spec),
		 "{\"storageClasses\":[\"cephfs\"],\"profile\":\"quick\",\"iterations\":1,"
		 "\"volume\":{\"accessMode\":\"ReadWriteMany\"},\"runner\":{\"pods\":%u,"
		 "\"volume\":\"shared\"}}",
		 pods);
	int r = parse(spec, &s, err, sizeof(err));
	if (r) {
		json_decref(list);
		return r;
	}
	struct br_ref run = {"ns", "d", DUID};
	struct sb_agg *agg = sb_agg_new();
	r = agg && list ? br_dist_report(agg, &run, &s, list, extra, no_warn, NULL) : -ENOMEM;
	json_t *rep = r ? NULL : sb_agg_report(agg, "d");
	*agg_iops = json_number_value(json_object_get(
		json_object_get(json_object_get(json_array_get(json_object_get(rep, "results"), 0),
						"metrics"),
				"read-iops"),
		"mean"));
	json_decref(rep);
	sb_agg_free(agg);
	json_decref(list);
	br_spec_release(&s);
	return r;
}

/* Runs br_dist_report over three members starting at FX_T0 + starts[m] (ns; -1: no start). */
static int timed_report(const long long *starts, json_t **extra, double *agg_iops)
{
	static const json_int_t a[] = {100, 100, 100, 100, 100}, c[] = {200, 200, 200, 200};
	static const unsigned slow_first[] = {200, 100, 100, 100, 100}, cb[] = {110, 110, 110, 110};
	static const double ac[] = {5000, 1000, 1000, 1000, 1000}, cc[] = {1100, 1100, 1100, 1100};
	br_runkey_set_master(MASTER);
	json_t *list = json_array();
	for (unsigned m = 0; m < 3; m++) {
		json_t *j = m < 2 ? fx_timed_job(FX_T0 + starts[m], a, slow_first, ac, 5)
				  : fx_timed_job(FX_T0 + starts[m], c, cb, cc, 4);
		if (starts[m] < 0)
			json_object_del(json_object_get(j, "storagebench"), "series_start_ns");
		json_array_append_new(list, timed_member(m + 1, j));
	}
	return dist_report(3, list, extra, agg_iops);
}

/*
 * Members starting at 0, +0.3 s and +0.8 s: the aggregate is over the
 * seconds all measured (400 IOPS, lib/stats/merge.c), each member's row over
 * the same seconds (they add up to it), the two late members named with
 * pod and node in validity warnings that br_dist_annotate moves into the
 * report's. Results without the series' start: by position, said once.
 */
static int test_report_by_time(void)
{
	static const long long starts[] = {0, 300000000, 800000000}, none[] = {-1, -1, -1};
	json_t *extra = NULL, *old = NULL;
	double iops = 0, old_iops = 0;
	int r = timed_report(starts, &extra, &iops);
	int r2 = timed_report(none, &old, &old_iops);
	double sum = 0;
	size_t i;
	json_t *row;
	json_array_foreach(json_object_get(extra, "pods"), i, row) sum +=
		json_number_value(json_object_get(row, "read-iops"));
	const json_t *w = json_object_get(extra, "warnings");
	static char ev[2][512], checks[2][32], oldev[512];
	for (size_t k = 0; k < 2; k++) {
		snprintf(ev[k], sizeof(ev[k]), "%s",
			 json_string_value(json_object_get(json_array_get(w, k), "evidence")));
		snprintf(checks[k], sizeof(checks[k]), "%s",
			 json_string_value(json_object_get(json_array_get(w, k), "check")));
	}
	size_t nw = json_array_size(w), nold = json_array_size(json_object_get(old, "warnings"));
	const json_t *ow = json_array_get(json_object_get(old, "warnings"), 0);
	snprintf(oldev, sizeof(oldev), "%s %s", json_string_value(json_object_get(ow, "check")),
		 json_string_value(json_object_get(ow, "evidence")));
	json_t *rep =
		json_pack("{s:[{s:s}],s:O}", "warnings", "check", "high-cv", "distributed", extra);
	int ra = rep ? br_dist_annotate(rep) : -ENOMEM;
	size_t moved = json_array_size(json_object_get(rep, "warnings"));
	int gone = json_object_get(json_object_get(rep, "distributed"), "warnings") == NULL;
	json_decref(rep);
	json_decref(extra);
	json_decref(old);
	CHECK_INT(r, 0);
	CHECK_INT(r2, 0);
	CHECK(fabs(iops - 400) < 1e-9);
	CHECK(fabs(sum - iops) < 1e-9);
	CHECK_INT(nw, 2);
	CHECK_STR(checks[0], "late-start");
	CHECK(strstr(ev[0], "pod d-cephfs-1-m2 on node n2 started measuring 300 ms after"));
	CHECK(strstr(ev[1], "pod d-cephfs-1-m3 on node n3 started measuring 800 ms after"));
	/* by position the first, slow seconds are in: the old merge's figure */
	CHECK(fabs(old_iops - 400) < 1e-9);
	CHECK_INT(nold, 1);
	CHECK(strstr(oldev,
		     "index-merge iteration 1: results without storagebench.series_start_ns"));
	CHECK_INT(ra, 0);
	CHECK_INT(moved, 3);
	CHECK(gone);
	return T_PASS;
}

/* The controller's half of the exchange: the first sighting of each ready mark, on the start. */
static int test_start_stamped_with_sightings(void)
{
	struct br_ref run = {"ns", "d", DUID};
	br_clock_reset();
	int64_t a = br_clock_seen(DUID, "fast", 1, 1, 0, 1, 5000);
	int64_t again = br_clock_seen(DUID, "fast", 1, 1, 0, 1, 9000); /* seen before: kept */
	(void)br_clock_seen(DUID, "fast", 1, 1, 0, 3, 7000);
	(void)br_clock_seen(DUID, "fast", 1, 1, 1, 2, 8000); /* another group's */
	json_t *cm = br_start_cm_manifest(&run, "fast", 1, 1, 0, 12000);
	int r = cm ? br_clock_stamp_start(cm, DUID, "fast", 1, 1, 0, 3, 10000) : -ENOMEM;
	const json_t *data = json_object_get(cm, "data");
	char sent[32], seen[64];
	snprintf(sent, sizeof(sent), "%s",
		 json_string_value(json_object_get(data, "sentUnixNano")));
	snprintf(seen, sizeof(seen), "%s",
		 json_string_value(json_object_get(data, "readySeenUnixNano")));
	json_decref(cm);
	/* a ready mark's informer event records its sighting (a foreign one is ignored) */
	const struct fx_member fm = {"ns", "d", DUID, "fast", 2, 1, 3};
	json_t *ready = fx_member_ready(&fm), *other = fx_member_ready(&fm);
	json_object_set_new(json_object_get(ready, "metadata"), "annotations",
			    json_pack("{s:s}", "storagebench.io/class-name", "fast"));
	json_object_set(json_object_get(other, "metadata"), "annotations",
			json_object_get(json_object_get(ready, "metadata"), "annotations"));
	json_object_set_new(json_object_get(json_object_get(other, "metadata"), "labels"),
			    "app.kubernetes.io/component", json_string("result"));
	br_clock_ready_event(other, 111);
	int64_t before = br_clock_seen_get(DUID, "fast", 2, 1, 0, 3);
	br_clock_ready_event(ready, 6000);
	int64_t ev = br_clock_seen_get(DUID, "fast", 2, 1, 0, 3);
	int64_t kept = br_clock_seen(DUID, "fast", 2, 1, 0, 3, 9000); /* the later look keeps it */
	json_decref(ready);
	json_decref(other);
	br_clock_reset();
	CHECK_INT(before, 0);
	CHECK_INT(ev, 6000);
	CHECK_INT(kept, 6000);
	CHECK_INT(a, 5000);
	CHECK_INT(again, 5000);
	CHECK_INT(r, 0);
	CHECK_STR(sent, "10000");
	CHECK_STR(seen, "{\"1\":5000,\"3\":7000}"); /* member 2 was not seen in group 0 */
	return T_PASS;
}

/* Member m's result: its series starting at start_ns (its clock), its measured clock offset. */
static json_t *clocked_member(unsigned m, long long start_ns, long long off_ns)
{
	static const json_int_t a[] = {100, 100, 100, 100};
	static const unsigned b[] = {100, 100, 100, 100};
	static const double c[] = {1000, 1000, 1000, 1000};
	char pod[32], node[8];
	snprintf(pod, sizeof(pod), "d-cephfs-1-m%u", m);
	snprintf(node, sizeof(node), "n%u", m);
	return doc_member(
		m,
		json_pack(
			"{s:[o],s:{s:s,s:s,s:i,s:s,s:i,s:i,s:i,s:s,s:{s:I,s:I,s:[]},s:{s:I,s:I,s:I,"
			"s:I}}}",
			"jobs", fx_timed_job(FX_T0 + start_ns, a, b, c, 4), "context", "run", "d",
			"class", "cephfs", "iteration", 1, "pod", pod, "attempt", 1, "member",
			(int)m, "members", 2, "node", node, "start", "planned_ns",
			(json_int_t)FX_T0, "actual_ns", (json_int_t)(FX_T0 + start_ns), "groups",
			"clock", "offset_ns", (json_int_t)off_ns, "uncertainty_ns",
			(json_int_t)4000000, "round_trip_ns", (json_int_t)8000000, "exchanges",
			(json_int_t)1));
}

/*
 * Member 2's node clock is 2 s ahead and it says so (context.clock): its
 * start and series, corrected, are the others' (skew 1 ms, no late member,
 * the whole window); the node is named in a clock-offset warning; each row
 * carries its member's offset.
 */
static int test_report_corrects_clock_offset(void)
{
	br_runkey_set_master(MASTER);
	json_t *extra = NULL;
	double iops = 0;
	int r = dist_report(2,
			    json_pack("[o,o]", clocked_member(1, 0, 0),
				      clocked_member(2, 2001000000LL, 2000000000LL)),
			    &extra, &iops);
	double skew = json_number_value(
		json_object_get(json_array_get(json_object_get(extra, "skew"), 0), "skew_ms"));
	const json_t *w = json_object_get(extra, "warnings");
	static char check[32], msg[256], ev[512];
	snprintf(check, sizeof(check), "%s",
		 json_string_value(json_object_get(json_array_get(w, 0), "check")));
	snprintf(msg, sizeof(msg), "%s",
		 json_string_value(json_object_get(json_array_get(w, 0), "message")));
	snprintf(ev, sizeof(ev), "%s",
		 json_string_value(json_object_get(json_array_get(w, 0), "evidence")));
	size_t nw = json_array_size(w);
	double off2 = json_number_value(json_object_get(
		json_array_get(json_object_get(extra, "pods"), 1), "clock_offset_ms"));
	json_decref(extra);
	CHECK_INT(r, 0);
	CHECK(fabs(skew - 1.0) < 1e-6);
	CHECK(fabs(iops - 200) < 1e-9); /* 4 s of both: not 2 s of a 2-s-late member */
	CHECK_INT(nw, 1);
	CHECK_STR(check, "clock-offset");
	CHECK(strstr(msg, "node n2's clock is off the controller's by +2000.0 ms"));
	CHECK(strstr(ev, "member 2 (pod d-cephfs-1-m2) measured +2000.0 ms +- 4.0 ms"));
	CHECK(fabs(off2 - 2000) < 1e-9);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"distrib/defaults: one pod", test_defaults_single_pod},
	{"distrib/pods, volume, spread, barrier parsed", test_fields_parsed},
	{"distrib/shared volume: the test size split between pods", test_shared_size_split},
	{"distrib/invalid combinations name the field", test_invalid_combinations_name_the_field},
	{"distrib/names", test_names},
	{"distrib/member pod on a shared volume", test_member_pod_manifest},
	{"distrib/per-pod volumes", test_per_pod_volumes},
	{"distrib/start configmap", test_start_cm},
	{"distrib/plan: barrier timeout fails the class, keeps iterations",
	 test_plan_barrier_timeout},
	{"distrib/report section: txt, md, pods.csv; bad rows skipped", test_report_section},
	{"distrib/a forged member result does not count an iteration as done",
	 test_forged_member_result_not_counted},
	{"distrib/start skew of every workload group", test_skew_of_later_groups},
	{"distrib/report by time: late members named, rows add up", test_report_by_time},
	{"distrib/start stamped with the ready marks' first sightings",
	 test_start_stamped_with_sightings},
	{"distrib/report corrects a member's clock offset, names its node",
	 test_report_corrects_clock_offset},
};

TEST_MAIN(cases)
