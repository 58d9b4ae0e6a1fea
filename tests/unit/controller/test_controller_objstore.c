/* SPDX-License-Identifier: MIT */
/*
 * Object-store targets of a BenchmarkRun (controller/run/objstore.c): parsing
 * and the errors naming the field, the targets list, the runner pod
 * (no volume, keys from the Secret, "pod s3" arguments), and the plan
 * (no PVC for an object store).
 */
#include "tests/unit/harness.h"
#include "tests/unit/spec_helpers.h"

#include "controller/run/manifests.h"
#include "controller/run/objstore.h"
#include "controller/run/plan.h"

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
		 "spec.objectWorkloads[0].concurrent: must be an integer from 1 to 1024"},
		{STORES ", \"objectWorkloads\": [{\"name\": \"w\", \"benchmark\": \"delete\", "
			"\"batch\": 1001}]",
		 "spec.objectWorkloads[0].batch: must be an integer from 1 to 1000"},
		{STORES ", \"objectWorkloads\": [{\"name\": \"w\", \"benchmark\": \"get\", "
			"\"batch\": 10}]",
		 "spec.objectWorkloads[0].batch: only the delete benchmark deletes in batches "
		 "(this "
		 "is get)"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[2048];
		snprintf(text, sizeof(text), "{\"storageClasses\": [\"fast\"], %s}", cases[i].body);
		if (expect_invalid(text, cases[i].needle) != T_PASS)
			return T_FAIL;
	}
	return T_PASS;
}

/* warp's delete --batch: passed to the runner when set, else the runner's default (100). */
static int test_batch_args(void)
{
	static struct br_spec s;
	char err[1024] = "";
	int r = parse("{\"storageClasses\": [\"fast\"], " STORES
		      ", \"objectWorkloads\": [{\"name\": \"del\", \"benchmark\": \"delete\", "
		      "\"batch\": 250}, {\"name\": \"del1\", \"benchmark\": \"delete\"}]}",
		      &s, err, sizeof(err));
	if (r)
		fprintf(stderr, "    %s\n", err);
	CHECK_INT(r, 0);
	CHECK_INT(s.obj->wl[0].batch, 250);
	CHECK_INT(s.obj->wl[1].batch, 0);
	json_t *args = br_objstore_runner_args(s.obj, br_objstore_find(s.obj, "rgw"));
	char *a = json_dumps(args, JSON_COMPACT);
	json_decref(args);
	br_spec_release(&s);
	const char *second = a ? strstr(a, "\"--label\",\"del1\"") : NULL;
	int ok = a && second && strstr(a, "\"--objects\",\"100\",\"--batch\",\"250\",") &&
		 !strstr(second, "--batch");
	if (!ok)
		fprintf(stderr, "    args %s\n", a ? a : "(null)");
	free(a);
	CHECK(ok);
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

/* The name's workload, or NULL. */
static const struct br_object_workload *wl_find(const struct br_objstores *o, const char *name)
{
	for (size_t i = 0; o && i < o->nwl; i++)
		if (!strcmp(o->wl[i].name, name))
			return &o->wl[i];
	return NULL;
}

/* A built-in profile expands into the reference pages' workloads, unscaled. */
static int test_profile(void)
{
	static struct br_spec s;
	char err[1024] = "";
	int r = parse("{\"storageClasses\": [\"fast\"], " STORES
		      ", \"objectProfile\": \"warp-seed\"}",
		      &s, err, sizeof(err));
	if (r)
		fprintf(stderr, "    %s\n", err);
	CHECK_INT(r, 0);
	CHECK_INT(s.nclasses, 2);
	CHECK_INT(s.obj->nwl, 22); /* 10 operations + 12 sizes x concurrency */
	const struct br_object_workload *w = wl_find(s.obj, "get-100mb");
	CHECK(w != NULL);
	CHECK_STR(w->benchmark, "get");
	CHECK_STR(w->size, "100MB");
	CHECK_INT(w->concurrent, 16);
	CHECK_INT(w->objects, 250);
	CHECK_STR(w->duration, "300s");
	w = wl_find(s.obj, "delete-1kb-c150");
	CHECK(w != NULL);
	CHECK_STR(w->size, "1KB");
	CHECK_INT(w->concurrent, 150);
	CHECK_INT(w->objects, 100000);
	static const char *const sizes[] = {"1kib", "100kib", "1mib", "4mib"};
	static const char *const want[] = {"1KiB", "100KiB", "1MiB", "4MiB"};
	static const unsigned conc[] = {16, 32, 64};
	for (size_t i = 0; i < 4; i++)
		for (size_t k = 0; k < 3; k++) {
			char name[64];
			snprintf(name, sizeof(name), "get-%s-c%u", sizes[i], conc[k]);
			w = wl_find(s.obj, name);
			if (!w)
				fprintf(stderr, "    no workload %s\n", name);
			CHECK(w != NULL);
			CHECK_STR(w->benchmark, "get");
			CHECK_STR(w->size, want[i]);
			CHECK_INT(w->concurrent, conc[k]);
			CHECK_STR(w->duration, "1800s");
		}
	/* the runner gets them as it gets hand-written ones */
	json_t *args = br_objstore_runner_args(s.obj, br_objstore_find(s.obj, "rgw"));
	char *a = json_dumps(args, JSON_COMPACT);
	json_decref(args);
	int ok = a && strstr(a, "\"--label\",\"get-4mib-c64\",\"--benchmark\",\"get\","
				"\"--obj.size\",\"4MiB\",\"--duration\",\"1800s\","
				"\"--concurrent\",\"64\",\"--objects\",\"2500\"");
	if (!ok)
		fprintf(stderr, "    args %s\n", a ? a : "(null)");
	free(a);
	br_spec_release(&s);
	CHECK(ok);

	/* the subsets */
	r = parse("{\"storageClasses\": [\"fast\"], " STORES ", \"objectProfile\": \"warp-sizes\"}",
		  &s, err, sizeof(err));
	CHECK_INT(r, 0);
	CHECK_INT(s.obj->nwl, 12);
	CHECK(!wl_find(s.obj, "get-100mb"));
	br_spec_release(&s);
	r = parse("{\"storageClasses\": [\"fast\"], " STORES
		  ", \"objectProfile\": \"warp-operations\"}",
		  &s, err, sizeof(err));
	CHECK_INT(r, 0);
	CHECK_INT(s.obj->nwl, 10);
	CHECK(wl_find(s.obj, "list-1kb-c16") && !wl_find(s.obj, "get-1kib-c16"));
	br_spec_release(&s);
	return T_PASS;
}

/* objectProfileScale shrinks sizes, object counts and durations, never below 1 byte,
 * the concurrency's objects and 1 s. */
static int test_profile_scale(void)
{
	static struct br_spec s;
	char err[1024] = "";
	int r = parse("{\"storageClasses\": [\"fast\"], " STORES
		      ", \"objectProfile\": \"warp-seed\", \"objectProfileScale\": 0.01}",
		      &s, err, sizeof(err));
	if (r)
		fprintf(stderr, "    %s\n", err);
	CHECK_INT(r, 0);
	CHECK_INT(s.obj->nwl, 22);
	const struct br_object_workload *w = wl_find(s.obj, "get-100mb");
	CHECK(w != NULL);
	CHECK_STR(w->size, "1MB");
	CHECK_INT(w->objects, 16); /* 2.5 rounded is 3, below the 16 workers */
	CHECK_INT(w->concurrent, 16);
	CHECK_STR(w->duration, "3s");
	w = wl_find(s.obj, "get-1kb-c16");
	CHECK_STR(w->size, "10"); /* bytes */
	CHECK_INT(w->objects, 1000);
	w = wl_find(s.obj, "get-4mib-c32");
	CHECK_STR(w->size, "41943"); /* 4 MiB / 100, rounded */
	CHECK_STR(w->duration, "18s");
	br_spec_release(&s);

	/* a tiny factor keeps every figure valid */
	r = parse("{\"storageClasses\": [\"fast\"], " STORES
		  ", \"objectProfile\": \"warp-seed\", \"objectProfileScale\": 1e-9}",
		  &s, err, sizeof(err));
	if (r)
		fprintf(stderr, "    %s\n", err);
	CHECK_INT(r, 0);
	w = wl_find(s.obj, "delete-1kb-c150");
	CHECK_STR(w->size, "1");
	CHECK_INT(w->objects, 150);
	CHECK_STR(w->duration, "1s");
	br_spec_release(&s);

	/* 1 is the reference pages' figures; an integer is a number too */
	r = parse("{\"storageClasses\": [\"fast\"], " STORES
		  ", \"objectProfile\": \"warp-sizes\", \"objectProfileScale\": 1}",
		  &s, err, sizeof(err));
	CHECK_INT(r, 0);
	CHECK_STR(wl_find(s.obj, "get-100kib-c32")->size, "100KiB");
	br_spec_release(&s);
	return T_PASS;
}

static int test_profile_errors(void)
{
	static const struct {
		const char *body, *needle;
	} cases[] = {
		{STORES ", \"objectProfile\": \"warp\"",
		 "spec.objectProfile: 'warp' is not warp-operations, warp-sizes or warp-seed"},
		{STORES ", \"objectProfile\": 3", "spec.objectProfile: '(not a string)' is not"},
		{STORES ", \"objectProfile\": \"warp-seed\", " WLS,
		 "spec: set only one of objectProfile and objectWorkloads"},
		{STORES ", \"objectProfile\": \"warp-seed\", \"objectProfileScale\": 0",
		 "spec.objectProfileScale: must be a number above 0 and at most 1"},
		{STORES ", \"objectProfile\": \"warp-seed\", \"objectProfileScale\": 1.5",
		 "spec.objectProfileScale: must be a number above 0 and at most 1"},
		{STORES ", \"objectProfile\": \"warp-seed\", \"objectProfileScale\": \"0.1\"",
		 "spec.objectProfileScale: must be a number above 0 and at most 1"},
		{STORES ", " WLS ", \"objectProfileScale\": 0.1",
		 "spec.objectProfileScale: scales spec.objectProfile, which is not set"},
		{"\"objectProfile\": \"warp-seed\"",
		 "spec.objectStores: a list of at least one object store is needed with "
		 "spec.objectProfile"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[2048];
		snprintf(text, sizeof(text), "{\"storageClasses\": [\"fast\"], %s}", cases[i].body);
		if (expect_invalid(text, cases[i].needle) != T_PASS)
			return T_FAIL;
	}
	return T_PASS;
}

static const struct test_case cases[] = {
	{"objstore/profile", test_profile},
	{"objstore/profile_scale", test_profile_scale},
	{"objstore/profile_errors", test_profile_errors},
	{"objstore/parse", test_parse},
	{"objstore/errors", test_errors},
	{"objstore/batch_args", test_batch_args},
	{"objstore/plan_no_pvc", test_plan_no_pvc},
};
TEST_MAIN(cases)
