/* SPDX-License-Identifier: MIT */
/* lib/result/resultdoc.h: the typed reader of the runner's result document. */
#include "tests/unit/harness.h"
#include "tests/unit/spec_helpers.h"

#include "stats/aggregate.h"
#include "controller/distrib/distrib.h"
#include "controller/run/runkey.h"
#include "core/labels.h"
#include "result/owner.h"
#include "result/resultdoc.h"
#include "runner/out/json.h"
#include "runner/io/result.h"
#include "result/sign.h"

#include <errno.h>
#include <jansson.h>

/* Two jobs as the runner writes them (fio's names): a reader and a writer with an fsync. */
static const char good_doc[] =
	"{\"fio version\": \"storagebench-runner-x\", \"jobs\": ["
	" {\"jobname\": \"rr\", \"error\": 0,"
	"  \"engine\": {\"asked\": \"io_uring\", \"ran\": \"psync\", \"reason\": \"blocked\","
	"              \"iodepth\": 1},"
	"  \"read\": {\"io_bytes\": 4096000, \"bw_bytes\": 409600, \"bw\": 400,"
	"            \"iops\": 100.5, \"runtime\": 10000, \"total_ios\": 1000,"
	"            \"lat_ns\": {\"min\": 10, \"max\": 900, \"mean\": 250.5, \"stddev\": 3.5,"
	"                       \"N\": 1000},"
	"            \"clat_ns\": {\"min\": 9, \"max\": 800, \"mean\": 240, \"stddev\": 3, \"N\": "
	"1000,"
	"                        \"percentile\": {\"50.000000\": 200, \"99.000000\": 700,"
	"                                       \"99.900000\": 790, \"1.000000\": 10}}},"
	"  \"write\": {\"io_bytes\": 0, \"bw_bytes\": 0, \"bw\": 0, \"iops\": 0, \"runtime\": 0,"
	"             \"total_ios\": 0},"
	"  \"storagebench\": {\"read\": {\"clat_hist\": [[3, 1000]]}}},"
	" {\"jobname\": \"sw\", \"error\": 5,"
	"  \"write\": {\"io_bytes\": 8192, \"bw_bytes\": 8192, \"iops\": 2, \"runtime\": 1000,"
	"             \"total_ios\": 2, \"lat_ns\": {\"mean\": 5000, \"N\": 2}},"
	"  \"sync\": {\"total_ios\": 2, \"lat_ns\": {\"mean\": 90000, \"N\": 2}}}],"
	" \"context\": {\"run\": \"r\", \"class\": \"c\", \"iteration\": 1}}";

static json_t *load(const char *text)
{
	return json_loads(text, 0, NULL);
}

static int test_good_doc(void)
{
	json_t *doc = load(good_doc);
	struct sb_result r = SB_RESULT_INIT;
	char err[256] = "";
	CHECK(doc);
	int ret = sb_result_parse(doc, 0, &r, err, sizeof(err));
	if (ret)
		fprintf(stderr, "    %s\n", err);
	CHECK_INT(ret, 0);
	CHECK_INT(r.njobs, 2);
	const struct sb_result_job *a = &r.jobs[0], *b = &r.jobs[1];
	CHECK_STR(a->name, "rr");
	CHECK_STR(a->engine_asked, "io_uring");
	CHECK_STR(a->engine_ran, "psync");
	CHECK_STR(a->engine_reason, "blocked");
	CHECK(a->json == json_array_get(json_object_get(doc, SB_RK_JOBS), 0));
	const struct sb_result_dirv *rd = &a->dir[SB_RDIR_READ];
	CHECK(rd->have && rd->have_iops && rd->have_total_ios && rd->runtime_is_int);
	CHECK(rd->iops == 100.5 && rd->bw_bytes == 409600 && rd->bw == 400);
	CHECK(rd->io_bytes == 4096000 && rd->runtime == 10000 && rd->total_ios == 1000);
	CHECK(rd->lat.have && rd->lat.have_mean && rd->lat.mean == 250.5);
	CHECK(rd->lat.min == 10 && rd->lat.max == 900 && rd->lat.stddev == 3.5 &&
	      rd->lat.n == 1000);
	CHECK(rd->clat.have_pct[SB_RPCT_50] && rd->clat.pct[SB_RPCT_50] == 200);
	CHECK(rd->clat.pct[SB_RPCT_99] == 700 && rd->clat.pct[SB_RPCT_999] == 790);
	CHECK(!rd->lat.have_pct[SB_RPCT_99]);
	CHECK(a->dir[SB_RDIR_WRITE].have && !a->dir[SB_RDIR_WRITE].lat.have);
	CHECK(!a->dir[SB_RDIR_SYNC].have && !a->dir[SB_RDIR_TRIM].have);
	CHECK(json_is_array(
		json_object_get(sb_result_job_extra(a->json, SB_RDIR_READ), SB_RK_SB_CLAT_HIST)));
	CHECK(sb_result_job_extra(a->json, SB_RDIR_WRITE) == NULL);
	CHECK_STR(b->name, "sw");
	CHECK_INT(b->error, 5);
	CHECK(b->engine_ran == NULL);
	CHECK(!b->dir[SB_RDIR_READ].have);
	CHECK(b->dir[SB_RDIR_WRITE].bw == 0); /* absent: 0 */
	CHECK(b->dir[SB_RDIR_SYNC].have && b->dir[SB_RDIR_SYNC].lat.mean == 90000);
	sb_result_release(&r);
	CHECK(r.jobs == NULL && r.njobs == 0);
	sb_result_release(&r); /* twice, and NULL: harmless */
	sb_result_release(NULL);
	json_decref(doc);
	return T_PASS;
}

/* The runner's writer and this reader agree on every key they share. */
static int test_writer_round_trip(void)
{
	struct sb_job_result *jr = sb_job_result_new();
	CHECK(jr);
	snprintf(jr->name, sizeof(jr->name), "wr");
	snprintf(jr->engine_ran, sizeof(jr->engine_ran), "io_uring");
	jr->dir[SB_READ].ios = 300;
	jr->dir[SB_READ].bytes = 300 * 4096;
	jr->dir_runtime_us[SB_READ] = 3000000;
	jr->runtime_us = 3000000;
	jr->njobs = 1;
	struct sb_job_result *v[1] = {jr};
	struct sb_results all = {.v = v, .n = 1, .cap = 1};
	json_t *doc = sb_out_json_doc(&all, false);
	sb_job_result_free(jr);
	CHECK(doc);
	struct sb_result r = SB_RESULT_INIT;
	char err[256] = "";
	int ret = sb_result_parse(doc, 0, &r, err, sizeof(err));
	if (ret)
		fprintf(stderr, "    %s\n", err);
	int ok = ret == 0 && r.njobs == 1 && !strcmp(r.jobs[0].name, "wr") &&
		 r.jobs[0].engine_ran && !strcmp(r.jobs[0].engine_ran, "io_uring") &&
		 r.jobs[0].dir[SB_RDIR_READ].total_ios == 300 &&
		 r.jobs[0].dir[SB_RDIR_READ].io_bytes == 300 * 4096 &&
		 r.jobs[0].dir[SB_RDIR_READ].iops == 100 &&
		 r.jobs[0].dir[SB_RDIR_READ].bw_bytes == 409600 &&
		 r.jobs[0].dir[SB_RDIR_READ].runtime == 3000 &&
		 r.jobs[0].dir[SB_RDIR_READ].lat.have && r.jobs[0].dir[SB_RDIR_READ].clat.have &&
		 r.jobs[0].dir[SB_RDIR_WRITE].have && r.jobs[0].dir[SB_RDIR_TRIM].have &&
		 r.jobs[0].dir[SB_RDIR_SYNC].have;
	sb_result_release(&r);
	json_decref(doc);
	CHECK(ok);
	return T_PASS;
}

/* Every malformed field is named with its path, in a document and in a bare job. */
static int test_malformed_fields_named(void)
{
	static const struct {
		const char *doc, *want;
	} cases[] = {
		{"[]", "jobs: missing or not a list"},
		{"{}", "jobs: missing or not a list"},
		{"{\"jobs\": {}}", "jobs: missing or not a list"},
		{"{\"jobs\": [1]}", "jobs[0]: not an object"},
		{"{\"jobs\": [{}]}", "jobs[0].jobname: missing or not a string"},
		{"{\"jobs\": [{\"jobname\": \"\"}]}", "jobs[0].jobname: missing or not a string"},
		{"{\"jobs\": [{\"jobname\": 3}]}", "jobs[0].jobname: missing or not a string"},
		{"{\"jobs\": [{\"jobname\": \"a\"}, {\"jobname\": \"b\", \"error\": \"x\"}]}",
		 "jobs[1].error: not an integer"},
		{"{\"jobs\": [{\"jobname\": \"a\", \"engine\": 1}]}",
		 "jobs[0].engine: not an object"},
		{"{\"jobs\": [{\"jobname\": \"a\", \"engine\": {\"ran\": 1}}]}",
		 "jobs[0].engine.ran: not a string"},
		{"{\"jobs\": [{\"jobname\": \"a\", \"engine\": {\"reason\": []}}]}",
		 "jobs[0].engine.reason: not a string"},
		{"{\"jobs\": [{\"jobname\": \"a\", \"read\": 1}]}", "jobs[0].read: not an object"},
		{"{\"jobs\": [{\"jobname\": \"a\"}, {\"jobname\": \"b\", \"read\": {\"iops\": "
		 "\"x\"}}]}",
		 "jobs[1].read.iops: not a number"},
		{"{\"jobs\": [{\"jobname\": \"a\", \"write\": {\"bw_bytes\": -1}}]}",
		 "jobs[0].write.bw_bytes: -1 is not a non-negative number"},
		{"{\"jobs\": [{\"jobname\": \"a\", \"trim\": {\"total_ios\": null}}]}",
		 "jobs[0].trim.total_ios: not a number"},
		{"{\"jobs\": [{\"jobname\": \"a\", \"sync\": {\"io_bytes\": true}}]}",
		 "jobs[0].sync.io_bytes: not a number"},
		{"{\"jobs\": [{\"jobname\": \"a\", \"mixed\": {\"runtime\": \"1s\"}}]}",
		 "jobs[0].mixed.runtime: not a number"},
		{"{\"jobs\": [{\"jobname\": \"a\", \"read\": {\"bw\": {}}}]}",
		 "jobs[0].read.bw: not a number"},
		{"{\"jobs\": [{\"jobname\": \"a\", \"read\": {\"lat_ns\": 5}}]}",
		 "jobs[0].read.lat_ns: not an object"},
		{"{\"jobs\": [{\"jobname\": \"a\", \"read\": {\"lat_ns\": {\"mean\": \"x\"}}}]}",
		 "jobs[0].read.lat_ns.mean: not a number"},
		{"{\"jobs\": [{\"jobname\": \"a\", \"read\": {\"clat_ns\": {\"N\": -2}}}]}",
		 "jobs[0].read.clat_ns.N: -2 is not a non-negative number"},
		{"{\"jobs\": [{\"jobname\": \"a\", \"read\": {\"clat_ns\": {\"min\": []}}}]}",
		 "jobs[0].read.clat_ns.min: not a number"},
		{"{\"jobs\": [{\"jobname\": \"a\", \"read\": {\"clat_ns\": {\"max\": \"9\"}}}]}",
		 "jobs[0].read.clat_ns.max: not a number"},
		{"{\"jobs\": [{\"jobname\": \"a\", \"read\": {\"clat_ns\": {\"stddev\": \"9\"}}}]}",
		 "jobs[0].read.clat_ns.stddev: not a number"},
		{"{\"jobs\": [{\"jobname\": \"a\", \"read\": {\"clat_ns\": {\"percentile\": 1}}}]}",
		 "jobs[0].read.clat_ns.percentile: not an object"},
		{"{\"jobs\": [{\"jobname\": \"a\", \"write\": {\"clat_ns\": {\"percentile\": "
		 "{\"99.000000\": \"x\"}}}}]}",
		 "jobs[0].write.clat_ns.percentile.99.000000: not a number"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *doc = json_loads(cases[i].doc, JSON_DECODE_ANY, NULL);
		struct sb_result r = SB_RESULT_INIT;
		char err[256] = "";
		CHECK(doc);
		int ret = sb_result_parse(doc, 0, &r, err, sizeof(err));
		sb_result_release(&r);
		json_decref(doc);
		if (ret != -EINVAL || strcmp(err, cases[i].want)) {
			fprintf(stderr, "    %s: %d '%s', expected '%s'\n", cases[i].doc, ret, err,
				cases[i].want);
			return T_FAIL;
		}
	}
	/* a bare job: the paths start at its fields */
	json_t *job = load("{\"jobname\": \"a\", \"read\": {\"iops\": \"x\"}}");
	struct sb_result_job j;
	char err[128] = "";
	CHECK(job);
	int ret = sb_result_job_parse(job, "", &j, err, sizeof(err));
	json_decref(job);
	CHECK_INT(ret, -EINVAL);
	CHECK_STR(err, "read.iops: not a number");
	CHECK_INT(sb_result_job_parse(NULL, "", &j, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "job: not an object");
	return T_PASS;
}

/* More jobs than the caller allows: -E2BIG, said. */
static int test_too_many_jobs(void)
{
	json_t *doc = load("{\"jobs\": [{\"jobname\": \"a\"}, {\"jobname\": \"b\"}]}");
	struct sb_result r = SB_RESULT_INIT;
	char err[128] = "";
	CHECK(doc);
	int ret = sb_result_parse(doc, 1, &r, err, sizeof(err));
	sb_result_release(&r);
	CHECK_INT(ret, -E2BIG);
	CHECK_STR(err, "jobs: 2, more than 1");
	ret = sb_result_parse(doc, 2, &r, err, sizeof(err));
	CHECK_INT(r.njobs, 2);
	sb_result_release(&r);
	json_decref(doc);
	CHECK_INT(ret, 0);
	/* no jobs: fine, nothing allocated */
	doc = load("{\"jobs\": []}");
	CHECK(doc);
	ret = sb_result_parse(doc, 0, &r, err, sizeof(err));
	json_decref(doc);
	CHECK_INT(ret, 0);
	CHECK(r.njobs == 0 && r.jobs == NULL);
	return T_PASS;
}

/* A copy of o keeping only its first k keys (new reference). */
static json_t *first_keys(const json_t *o, size_t k)
{
	json_t *c = json_object();
	const char *key;
	const json_t *v;
	size_t n = 0;
	json_object_foreach((json_t *)o, key, v)
	{
		if (n++ >= k)
			break;
		json_object_set_new(c, key, json_deep_copy(v));
	}
	return c;
}

/*
 * Parses doc; 0 when it was read or refused with a message naming a field
 * of the jobs, T_FAIL otherwise. *parsed counts the ones read.
 */
static int read_or_named(const json_t *doc, size_t *parsed)
{
	struct sb_result r = SB_RESULT_INIT;
	char err[256] = "";
	int ret = sb_result_parse(doc, 0, &r, err, sizeof(err));
	sb_result_release(&r);
	if (ret == 0) {
		(*parsed)++;
		return 0;
	}
	if (ret == -EINVAL && !strncmp(err, "jobs", 4))
		return 0;
	fprintf(stderr, "    %d '%s'\n", ret, err);
	return T_FAIL;
}

/*
 * Truncated documents: each job, its read direction and that direction's
 * clat_ns cut after each of their keys; every one is read or refused with
 * the field named, none crashes (ASan) or leaks (valgrind). Then each field
 * of the first job's read replaced by a string in turn: always named.
 */
static int test_truncated_and_mutated(void)
{
	json_t *good = load(good_doc);
	size_t parsed = 0, tried = 0;
	CHECK(good);
	for (size_t jn = 0; jn < 2; jn++) {
		const json_t *job = json_array_get(json_object_get(good, SB_RK_JOBS), jn);
		const json_t *rd = json_object_get(job, "read");
		const json_t *parts[3] = {job, rd, json_object_get(rd, "clat_ns")};
		for (int depth = 0; depth < 3 && parts[depth]; depth++) {
			for (size_t k = 0; k <= json_object_size(parts[depth]); k++) {
				json_t *doc = json_deep_copy(good);
				json_t *dj = json_array_get(json_object_get(doc, SB_RK_JOBS), jn);
				json_t *cut = first_keys(parts[depth], k);
				if (depth == 0)
					json_array_set_new(json_object_get(doc, SB_RK_JOBS), jn,
							   cut);
				else if (depth == 1)
					json_object_set_new(dj, "read", cut);
				else
					json_object_set_new(json_object_get(dj, "read"), "clat_ns",
							    cut);
				int ret = read_or_named(doc, &parsed);
				json_decref(doc);
				tried++;
				if (ret) {
					json_decref(good);
					return T_FAIL;
				}
			}
		}
	}
	json_decref(good);
	/* cut before "jobname" refused; the rest read (absent fields are not errors) */
	CHECK(tried > 20 && parsed == tried - 2);
	json_t *doc = load(good_doc);
	CHECK(doc);
	json_t *rd = json_object_get(json_array_get(json_object_get(doc, SB_RK_JOBS), 0), "read");
	const char *key;
	json_t *v;
	size_t named = 0;
	void *tmp;
	json_object_foreach_safe(rd, tmp, key, v)
	{
		json_t *keep = json_incref(v);
		json_object_set_new(rd, key, json_string("garbage"));
		struct sb_result r = SB_RESULT_INIT;
		char err[256] = "", want[128];
		int ret = sb_result_parse(doc, 0, &r, err, sizeof(err));
		sb_result_release(&r);
		snprintf(want, sizeof(want), "jobs[0].read.%s: not ", key);
		if (ret == -EINVAL && !strncmp(err, want, strlen(want)))
			named++;
		else
			fprintf(stderr, "    read.%s: %d '%s'\n", key, ret, err);
		json_object_set_new(rd, key, keep);
	}
	json_decref(doc);
	CHECK_INT(named, 8); /* io_bytes bw_bytes bw iops runtime total_ios lat_ns clat_ns */
	return T_PASS;
}

/* Distributed runs: a member's signed result ConfigMap (iteration 1, attempt 1, class fast). */
#define DUID "0b7c1e52-1111-4222-8333-944445555999"
static json_t *member_cm(unsigned member, double iops, const char *node)
{
	char name[64], m[8], pod[32];
	snprintf(name, sizeof(name), "d-fast-1-a1-m%u", member);
	snprintf(m, sizeof(m), "%u", member);
	snprintf(pod, sizeof(pod), "d-fast-1-m%u", member);
	json_t *doc = json_pack("{s:[{s:s,s:{s:I,s:I,s:f,s:I,s:I,s:{s:f,s:I}},s:{s:I}}],"
				"s:{s:s,s:s,s:i,s:s,s:i,s:s}}",
				SB_RK_JOBS, SB_RK_JOBNAME, "rr", SB_RK_READ, SB_RK_TOTAL_IOS,
				(json_int_t)iops, SB_RK_IO_BYTES, (json_int_t)(iops * 4096),
				SB_RK_IOPS, iops, SB_RK_BW_BYTES, (json_int_t)(iops * 4096),
				SB_RK_RUNTIME, (json_int_t)1000, SB_RK_LAT_NS, SB_RK_MEAN, 100.0,
				SB_RK_N, (json_int_t)iops, SB_RK_WRITE, SB_RK_TOTAL_IOS,
				(json_int_t)0, SB_RK_CONTEXT, SB_RK_CTX_RUN, "d", SB_RK_CTX_CLASS,
				"fast", SB_RK_CTX_ITERATION, 1, SB_RK_CTX_POD, pod,
				SB_RK_CTX_ATTEMPT, 1, SB_RK_CTX_NODE, node);
	char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
	json_decref(doc);
	unsigned char key[SB_SIGN_KEY_BYTES];
	char mac[SB_SIGN_HEX_LEN + 1];
	json_t *cm = NULL;
	if (text && !br_runkey_derive(DUID, key) &&
	    !sb_sign_result(key, sizeof(key), &(struct sb_sign_subject){DUID, "fast", 1, member, 1},
			    text, strlen(text), mac))
		cm = json_pack("{s:{s:s,s:s,s:s,s:{s:s,s:s,s:s,s:s,s:s,s:s},s:[{s:s,s:s,s:s,s:s}]},"
			       "s:{s:s,s:s}}",
			       "metadata", "name", name, "namespace", "ns", "creationTimestamp",
			       "2026-12-01T10:00:00Z", "labels", SB_LABEL_COMPONENT, "result",
			       SB_LABEL_RUN, "d", SB_LABEL_CLASS, "fast", SB_LABEL_ITERATION, "1",
			       SB_LABEL_ATTEMPT, "1", SB_LABEL_MEMBER, m, "ownerReferences",
			       "apiVersion", SB_API_VERSION, "kind", SB_KIND, "name", "d", "uid",
			       DUID, "data", SB_RESULT_KEY, text, SB_RESULT_MAC_KEY, mac);
	free(text);
	return cm;
}

static void quiet(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "    warning: %s\n", msg);
}

/* The controller's per-member table of a distributed class: each member's figures and
 * context as the reader gives them, the slow member marked a straggler. */
static int test_distributed_member_rows(void)
{
	static const unsigned char master[SB_SIGN_KEY_BYTES] = "0123456789abcdef0123456789abcdef";
	struct br_spec s;
	char err[512] = "";
	int r = parse("{\"storageClasses\":[\"fast\"],\"profile\":\"quick\",\"iterations\":1,"
		      "\"runner\":{\"pods\":2}}",
		      &s, err, sizeof(err));
	if (r) {
		fprintf(stderr, "    %s\n", err);
		return T_FAIL;
	}
	br_runkey_set_master(master);
	struct br_ref run = {"ns", "d", DUID};
	json_t *list =
		json_pack("[o,o]", member_cm(1, 1000, "node-a"), member_cm(2, 100, "node-b"));
	json_t *extra = NULL;
	struct sb_agg *agg = sb_agg_new();
	r = list && agg ? br_dist_report(agg, &run, &s, list, &extra, quiet, NULL) : -ENOMEM;
	sb_agg_free(agg);
	json_decref(list);
	br_spec_release(&s);
	CHECK_INT(r, 0);
	const json_t *pods = json_object_get(extra, "pods");
	const json_t *a = json_array_get(pods, 0), *b = json_array_get(pods, 1);
	int ok = json_array_size(pods) == 2 &&
		 json_number_value(json_object_get(a, "read-iops")) == 1000 &&
		 json_number_value(json_object_get(a, "read-bw")) == 4096000 &&
		 json_number_value(json_object_get(a, "write-iops")) == 0 &&
		 json_is_false(json_object_get(a, "straggler")) &&
		 !strcmp(json_string_value(json_object_get(a, "pod")), "d-fast-1-m1") &&
		 !strcmp(json_string_value(json_object_get(a, "node")), "node-a") &&
		 !strcmp(json_string_value(json_object_get(a, "workload")), "rr") &&
		 json_number_value(json_object_get(b, "read-iops")) == 100 &&
		 json_is_true(json_object_get(b, "straggler")) &&
		 !strcmp(json_string_value(json_object_get(b, "node")), "node-b");
	if (!ok) {
		char *d = json_dumps(pods, JSON_COMPACT);
		fprintf(stderr, "    pods: %s\n", d ? d : "?");
		free(d);
	}
	json_decref(extra);
	CHECK(ok);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"result/good document read", test_good_doc},
	{"result/the runner's writer read back", test_writer_round_trip},
	{"result/malformed fields named with their path", test_malformed_fields_named},
	{"result/more jobs than allowed", test_too_many_jobs},
	{"result/truncated and mutated documents", test_truncated_and_mutated},
	{"result/distributed: the per-member rows", test_distributed_member_rows},
};

TEST_MAIN(cases)
