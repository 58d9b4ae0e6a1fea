/* SPDX-License-Identifier: MIT */
/*
 * Object-store targets of a BenchmarkRun (controller/objstore.c): parsing
 * and the errors naming the field, the targets list, the runner pod
 * (no volume, keys from the Secret, "pod s3" arguments), and the plan
 * (no PVC for an object store).
 */
#include "tests/unit/harness.h"
#include "tests/unit/spec_helpers.h"

#include "controller/manifests.h"
#include "controller/objstore.h"
#include "controller/plan.h"

#define STORES                                                                                \
	"\"objectStores\": [{\"name\": \"rgw\", \"endpoint\": \"https://s3.example:8443/\", " \
	"\"secretRef\": {\"name\": \"keys\"}, \"tls\": {\"insecureSkipVerify\": true}}]"
#define WLS                                                                                       \
	"\"objectWorkloads\": [{\"name\": \"get-1m\", \"benchmark\": \"get\", "                   \
	"\"objectSize\": \"1MiB\", \"concurrent\": 16, \"objects\": 50, \"duration\": \"30s\"}, " \
	"{\"name\": \"put-1k\", \"benchmark\": \"put\"}]"

static int test_parse(void)
{
	static struct br_spec s;
	char err[1024] = "";
	int r = parse("{\"storageClasses\": [\"fast\"], " STORES ", " WLS "}", &s, err,
		      sizeof(err));
	if (r)
		fprintf(stderr, "    %s\n", err);
	CHECK_INT(r, 0);
	CHECK_INT(s.nclasses, 2);
	CHECK_STR(s.classes[0], "fast");
	CHECK_STR(s.classes[1], "rgw");
	const struct br_object_store *st = br_objstore_find(s.obj, "rgw");
	CHECK(st && st->tls && st->insecure);
	CHECK_STR(st->host, "s3.example:8443");
	CHECK_STR(st->region, "us-east-1");
	CHECK(!br_objstore_find(s.obj, "fast"));
	CHECK_INT(s.obj->nwl, 2);
	CHECK_STR(s.obj->wl[1].size, "64KiB"); /* the defaults */
	CHECK_INT(s.obj->wl[1].concurrent, 4);

	json_t *args = br_objstore_runner_args(s.obj, st);
	char *a = json_dumps(args, JSON_COMPACT);
	json_decref(args);
	int ok = a && strstr(a, "[\"pod\",\"s3\",\"--host\",\"s3.example:8443\"") &&
		 strstr(a, "\"--tls\",\"--insecure\"") &&
		 strstr(a,
			"\"--label\",\"get-1m\",\"--benchmark\",\"get\",\"--obj.size\",\"1MiB\"") &&
		 strstr(a, "\"--concurrent\",\"16\",\"--objects\",\"50\"");
	if (!ok)
		fprintf(stderr, "    args %s\n", a ? a : "(null)");
	free(a);
	CHECK(ok);

	/* the object store's pod: no data volume (only the run's key), the keys from its Secret */
	struct br_ref run = {.ns = "ns", .name = "r", .uid = "0123abcd-u"};
	json_t *pod = br_pod_manifest(&run, &s, "rgw", 1, 3);
	char *p = json_dumps(pod, JSON_COMPACT);
	json_decref(pod);
	ok = p && strstr(p, "\"volumes\":[{\"name\":\"run-key\"") &&
	     !strstr(p, "persistentVolumeClaim") &&
	     strstr(p, "{\"name\":\"AWS_SECRET_ACCESS_KEY\",\"valueFrom\":{\"secretKeyRef\":{"
		       "\"name\":\"keys\",\"key\":\"AWS_SECRET_ACCESS_KEY\"}}}") &&
	     strstr(p, "\"SB_CLASS\",\"value\":\"rgw\"");
	if (!ok)
		fprintf(stderr, "    pod %s\n", p ? p : "(null)");
	free(p);
	/* the storage class's pod is unchanged */
	pod = br_pod_manifest(&run, &s, "fast", 1, 3);
	p = json_dumps(pod, JSON_COMPACT);
	json_decref(pod);
	int ok2 = p && strstr(p, "persistentVolumeClaim") && !strstr(p, "AWS_");
	free(p);
	br_spec_release(&s);
	CHECK(ok && ok2);
	return T_PASS;
}

static int test_errors(void)
{
	static const struct {
		const char *body, *needle;
	} cases[] = {
		{STORES, "spec.objectWorkloads: a list of at least one workload"},
		{WLS, "spec.objectStores: a list of at least one object store"},
		{"\"objectStores\": [{\"name\": \"fast\", \"endpoint\": \"http://h\", "
		 "\"secretRef\": "
		 "{\"name\": \"k\"}}], " WLS,
		 "spec.objectStores[0].name: 'fast' is also a storage class"},
		{"\"objectStores\": [{\"name\": \"s\", \"endpoint\": \"s3.example\", "
		 "\"secretRef\": "
		 "{\"name\": \"k\"}}], " WLS,
		 "spec.objectStores[0].endpoint: 's3.example' is not an http:// or https://"},
		{"\"objectStores\": [{\"name\": \"s\", \"endpoint\": \"http://h\"}], " WLS,
		 "spec.objectStores[0].secretRef.name: missing"},
		{"\"objectStores\": [{\"name\": \"s\", \"endpoint\": \"http://h\", \"secretRef\": "
		 "{\"name\": \"k\"}, \"bucketPolicy\": \"GivenEmpty\"}], " WLS,
		 "spec.objectStores[0].bucket: bucketPolicy GivenEmpty needs a bucket"},
		{STORES ", \"objectWorkloads\": [{\"name\": \"w\", \"benchmark\": \"zap\"}]",
		 "spec.objectWorkloads[0].benchmark: 'zap' is not one of get, put"},
		{STORES ", \"objectWorkloads\": [{\"name\": \"w\", \"benchmark\": \"get\", "
			"\"objectSize\": \"big\"}]",
		 "spec.objectWorkloads[0].objectSize: 'big' is not a size"},
		{STORES ", \"objectWorkloads\": [{\"name\": \"w\", \"benchmark\": \"get\", "
			"\"concurrent\": 0}]",
		 "spec.objectWorkloads[0].concurrent: must be a whole number from 1 to 1024"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[2048];
		snprintf(text, sizeof(text), "{\"storageClasses\": [\"fast\"], %s}", cases[i].body);
		if (expect_invalid(text, cases[i].needle) != T_PASS)
			return T_FAIL;
	}
	return T_PASS;
}

/* An object store starts running at once: no PVC to create or wait for. */
static int test_plan_no_pvc(void)
{
	static struct br_obs o;
	static struct br_plan p;
	memset(&o, 0, sizeof(o));
	o.now = o.start = 1000;
	o.iterations = 2;
	o.parallelism = 2;
	o.max_attempts = 3;
	o.pvc_bind_s = 300;
	o.iteration_s = 3600;
	o.run_s = 86400;
	o.nclasses = 2;
	o.classes[0].name = "fast";
	o.classes[0].sc_exists = true;
	o.classes[1].name = "rgw";
	o.classes[1].sc_exists = o.classes[1].no_volume = o.classes[1].pvc_bound = true;
	br_plan_compute(&o, &p);
	int pvc_fast = 0, pvc_rgw = 0, pod_rgw = 0;
	for (size_t i = 0; i < p.nactions; i++) {
		if (p.actions[i].kind == BR_ACT_CREATE_PVC && p.actions[i].cls)
			pvc_rgw++;
		else if (p.actions[i].kind == BR_ACT_CREATE_PVC)
			pvc_fast++;
		if (p.actions[i].kind == BR_ACT_CREATE_POD && p.actions[i].cls == 1)
			pod_rgw++;
	}
	CHECK_INT(pvc_fast, 1);
	CHECK_INT(pvc_rgw, 0);
	CHECK_INT(pod_rgw, 1);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"objstore/parse", test_parse},
	{"objstore/errors", test_errors},
	{"objstore/plan_no_pvc", test_plan_no_pvc},
};
TEST_MAIN(cases)
