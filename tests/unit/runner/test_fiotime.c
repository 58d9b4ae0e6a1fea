/* SPDX-License-Identifier: MIT */
/*
 * fio's runtime rule (lib/stats/fiotime.h) wherever a runtime divides: the helper,
 * the runner's per-direction figures, its JSON and text output, and the
 * report's aggregation of a result that says runtime 0.
 */
#include "tests/unit/harness.h"
#include "stats/aggregate.h"
#include "stats/fiotime.h"
#include "runner/out/json.h"
#include "runner/out/text.h"
#include "runner/io/result.h"
#include "runner/io/run.h"

#include <errno.h>
#include <jansson.h>

static int test_rule(void)
{
	/* rounded up to whole milliseconds, at least 1 after I/O, 0 without */
	CHECK_INT(sb_fio_runtime_ms(0, 0), 0);
	CHECK_INT(sb_fio_runtime_ms(5000, 0), 0);
	CHECK_INT(sb_fio_runtime_ms(0, 1), 1);
	CHECK_INT(sb_fio_runtime_ms(1, 1), 1);
	CHECK_INT(sb_fio_runtime_ms(999, 1), 1);
	CHECK_INT(sb_fio_runtime_ms(1000, 1), 1);
	CHECK_INT(sb_fio_runtime_ms(1001, 1), 2);
	CHECK_INT(sb_fio_runtime_ms(1999, 7), 2);
	CHECK_INT(sb_fio_runtime_ms(60000000, 7), 60000);
	CHECK_NEAR(sb_fio_rate(16, 1), 16000.0, 0);
	CHECK_NEAR(sb_fio_rate(256, 2), 128000.0, 0);
	CHECK_NEAR(sb_fio_rate(5, 0), 0.0, 0);
	return T_PASS;
}

/* One write-only result: ios of 4 KiB in us microseconds. */
static struct sb_job_result *write_result(uint64_t ios, uint64_t us)
{
	struct sb_job_result *r = sb_job_result_new();
	if (!r)
		return NULL;
	snprintf(r->name, sizeof(r->name), "j");
	r->njobs = 1;
	r->dir[SB_WRITE].ios = ios;
	r->dir[SB_WRITE].bytes = ios * 4096;
	r->runtime_us = r->total_runtime_us = us;
	r->dir_runtime_us[0] = r->dir_runtime_us[1] = us;
	r->interval_us = 1000000;
	return r;
}

static int test_result_figures(void)
{
	/* fio 3.33, randwrite bs=4k on ext4: size=4k -> runtime 1 iops 1000,
	 * size=64k -> runtime 1 iops 16000 (jobs of a few hundred microseconds) */
	static const struct {
		uint64_t ios, us, ms;
		double iops;
	} v[] = {
		{1, 180, 1, 1000.0},	  {16, 420, 1, 16000.0},    {16, 0, 1, 16000.0},
		{256, 1200, 2, 128000.0}, {256, 2000, 2, 128000.0}, {0, 300, 0, 0.0},
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct sb_job_result *r = write_result(v[i].ios, v[i].us);
		CHECK(r != NULL);
		uint64_t ms = sb_dir_runtime_ms(r, SB_WRITE);
		double iops = sb_dir_iops(r, SB_WRITE);
		uint64_t bw = sb_dir_bw_bytes(r, SB_WRITE);
		uint64_t all = sb_runtime_ms(r);
		sb_job_result_free(r);
		CHECK_INT(ms, v[i].ms);
		CHECK_INT(all, v[i].ms);
		CHECK_NEAR(iops, v[i].iops, 0);
		CHECK_INT(bw, (uint64_t)(v[i].iops * 4096));
	}
	return T_PASS;
}

static int test_json_and_text(void)
{
	struct sb_results res = SB_RESULTS_INIT;
	struct sb_job_result *r = write_result(16, 420);
	CHECK(r != NULL);
	CHECK_INT(sb_results_push(&res, r), 0);
	json_t *j = sb_out_json_job(&res, r, false);
	json_t *w = json_object_get(j, "write");
	json_int_t rt = json_integer_value(json_object_get(w, "runtime"));
	json_int_t bwb = json_integer_value(json_object_get(w, "bw_bytes"));
	json_int_t bw = json_integer_value(json_object_get(w, "bw"));
	double iops = json_number_value(json_object_get(w, "iops"));
	json_int_t rrt = json_integer_value(json_object_get(json_object_get(j, "read"), "runtime"));
	json_int_t jrt = json_integer_value(json_object_get(j, "job_runtime"));
	json_decref(j);

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (f) {
		sb_out_text(f, &res);
		fclose(f);
	}
	sb_results_release(&res);
	CHECK_INT(rt, 1);
	CHECK_INT(bwb, 65536000);
	CHECK_INT(bw, 64000);
	CHECK_NEAR(iops, 16000.0, 0);
	CHECK_INT(rrt, 0); /* no reads: 0, as fio */
	CHECK_INT(jrt, 0); /* job_runtime is fio's whole elapsed ms, rounded down */
	CHECK(text != NULL);
	int ok_iops = strstr(text, "IOPS=16.0k") != NULL, ok_run = strstr(text, "/1msec)") != NULL,
	    ok_grp = strstr(text, "run=1-1msec") != NULL;
	if (!ok_iops || !ok_run || !ok_grp)
		fprintf(stderr, "    text output:\n%s", text);
	free(text);
	CHECK(ok_iops);
	CHECK(ok_run);
	CHECK(ok_grp);
	return T_PASS;
}

/* A result as a runner before fio's rule wrote it: runtime 0, rates 0, I/O done. */
static int test_aggregate_runtime_zero(void)
{
	static const char *const texts[2] = {
		"{\"jobname\":\"w\",\"job options\":{\"rw\":\"randwrite\",\"bs\":\"4k\"},"
		"\"read\":{\"total_ios\":0},\"sync\":{\"total_ios\":0},"
		"\"write\":{\"total_ios\":16,\"io_bytes\":65536,\"runtime\":0,\"iops\":0,"
		"\"bw_bytes\":0,\"lat_ns\":{\"mean\":1000,\"N\":16}}}",
		/* a runtime 0 with rates given is taken as it is */
		"{\"jobname\":\"w\",\"job options\":{\"rw\":\"randwrite\",\"bs\":\"4k\"},"
		"\"read\":{\"total_ios\":0},\"sync\":{\"total_ios\":0},"
		"\"write\":{\"total_ios\":16,\"io_bytes\":65536,\"runtime\":0,\"iops\":500,"
		"\"bw_bytes\":2048000,\"lat_ns\":{\"mean\":1000,\"N\":16}}}",
	};
	static const double want_iops[2] = {16000.0, 500.0}, want_bw[2] = {65536000.0, 2048000.0};
	for (int k = 0; k < 2; k++) {
		struct sb_agg *a = sb_agg_new();
		char err[256] = "";
		json_t *j = json_loads(texts[k], 0, NULL);
		int rc = a && j ? sb_agg_add(a, "fast", 1, j, err, sizeof(err)) : -ENOMEM;
		json_decref(j);
		json_t *rep = rc == 0 ? sb_agg_report(a, "t") : NULL;
		sb_agg_free(a);
		double iops = -1, bw = -1;
		size_t i;
		const json_t *x;
		json_array_foreach(json_object_get(rep, "results"), i, x)
		{
			const json_t *m = json_object_get(x, "metrics");
			iops = json_number_value(
				json_object_get(json_object_get(m, "write-iops"), "mean"));
			bw = json_number_value(
				json_object_get(json_object_get(m, "write-bw"), "mean"));
		}
		json_decref(rep);
		if (rc)
			fprintf(stderr, "    %s\n", err);
		CHECK_INT(rc, 0);
		CHECK_NEAR(iops, want_iops[k], 0);
		CHECK_NEAR(bw, want_bw[k], 0);
	}
	return T_PASS;
}

static const struct test_case cases[] = {
	{"fiotime/rule", test_rule},
	{"fiotime/result-figures", test_result_figures},
	{"fiotime/json-and-text", test_json_and_text},
	{"fiotime/aggregate-runtime-zero", test_aggregate_runtime_zero},
};
TEST_MAIN(cases)
