/* SPDX-License-Identifier: MIT */
/*
 * Steady state in a BenchmarkRun (issue 21): spec.workloads[].steadyState
 * becomes fio's ss/ss_dur/ss_ramp/runtime/time_based in the job file, its
 * errors name the field, the aggregate keeps "steady" and "steady-after"
 * per class and workload, and the text report says whether and when.
 */
#include "tests/unit/harness.h"
#include "tests/unit/spec_helpers.h"
#include "stats/aggregate.h"
#include "controller/run/spec.h"
#include "report/report.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define WL(extra)                                                                  \
	"{\"storageClasses\":[\"fast\"],\"workloads\":[{\"name\":\"fill\",\"rw\":" \
	"\"randwrite\"" extra "}]}"

static int test_spec_maps_to_fio_options(void)
{
	struct br_spec s;
	char err[512];
	CHECK_INT(parse(WL(",\"steadyState\":{\"criterion\":\"iops_slope:0.3%\",\"window\":\"30s\","
			   "\"ramp\":\"10s\",\"maxRuntime\":\"10m\"}"),
			&s, err, sizeof(err)),
		  0);
	CHECK(s.jobfile != NULL);
	CHECK(strstr(s.jobfile, "\nsteadystate=iops_slope:0.3%\n") != NULL);
	CHECK(strstr(s.jobfile, "\nss_dur=30s\n") != NULL);
	CHECK(strstr(s.jobfile, "\nss_ramp=10s\n") != NULL);
	CHECK(strstr(s.jobfile, "\nruntime=10m\n") != NULL);
	CHECK(strstr(s.jobfile, "\ntime_based\n") != NULL);
	br_spec_release(&s);
	return T_PASS;
}

static int test_spec_errors_name_the_field(void)
{
	static const struct {
		const char *spec, *needle;
	} cases[] = {
		{WL(",\"steadyState\":{\"window\":\"30s\",\"maxRuntime\":\"1m\"}"),
		 "spec.workloads[0].steadyState.criterion: required"},
		{WL(",\"steadyState\":{\"criterion\":\"lat:1%\",\"window\":\"30s\",\"maxRuntime\":"
		    "\"1m\"}"),
		 "spec.workloads[0].steadyState.criterion: criterion 'lat'"},
		{WL(",\"steadyState\":{\"criterion\":\"iops:1%\",\"window\":\"soon\","
		    "\"maxRuntime\":"
		    "\"1m\"}"),
		 "spec.workloads[0].steadyState.window: 'soon' is not a duration"},
		{WL(",\"steadyState\":{\"criterion\":\"iops:1%\",\"window\":\"30s\"}"),
		 "spec.workloads[0].steadyState.maxRuntime: required"},
		{WL(",\"steadyState\":{\"criterion\":\"iops:1%\",\"window\":\"30s\",\"maxRuntime\":"
		    "\"1m\",\"until\":\"x\"}"),
		 "spec.workloads[0].steadyState.until: unknown field"},
		{WL(",\"runtime\":\"5m\",\"steadyState\":{\"criterion\":\"iops:1%\",\"window\":"
		    "\"30s\","
		    "\"maxRuntime\":\"1m\"}"),
		 "spec.workloads[0].runtime: not with steadyState"},
		{WL(",\"steadyState\":\"iops:1%\""),
		 "spec.workloads[0].steadyState: must be an object"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (expect_invalid(cases[i].spec, cases[i].needle) != T_PASS)
			return T_FAIL;
	return T_PASS;
}

/* A minimal runner job document with a steadystate block. */
static json_t *job(int attained, long long after_ms)
{
	json_t *j =
		json_pack("{s:s,s:{s:s},s:{s:I,s:{s:f,s:I,s:{}},s:f,s:I},s:{s:I,s:{s:f,s:I}},"
			  "s:{s:i},s:{s:{s:b,s:I}}}",
			  "jobname", "fill", "job options", "rw", "randwrite", "write", "total_ios",
			  (json_int_t)1000, "lat_ns", "mean", 1000.0, "N", (json_int_t)1000,
			  "percentile", "iops", 500.0, "bw_bytes", (json_int_t)2048000, "read",
			  "total_ios", (json_int_t)0, "lat_ns", "mean", 0.0, "N", (json_int_t)0,
			  "steadystate", "attained", attained, "storagebench", "steadystate",
			  "attained", attained, "attained_ms", (json_int_t)after_ms);
	return j;
}

static int test_aggregate_and_report(void)
{
	struct sb_agg *a = sb_agg_new();
	char err[256];
	CHECK(a != NULL);
	json_t *j1 = job(1, 40000), *j2 = job(1, 44000), *j3 = job(0, 0);
	CHECK(j1 && j2 && j3);
	CHECK_INT(sb_agg_add(a, "fast", 1, j1, err, sizeof(err)), 0);
	CHECK_INT(sb_agg_add(a, "fast", 2, j2, err, sizeof(err)), 0);
	CHECK_INT(sb_agg_add(a, "fast", 3, j3, err, sizeof(err)), 0);
	json_t *rep = sb_agg_report(a, "run");
	CHECK(rep != NULL);
	const json_t *m =
		json_object_get(json_array_get(json_object_get(rep, "results"), 0), "metrics");
	CHECK(json_is_object(m));
	const json_t *st = json_object_get(m, "steady"), *af = json_object_get(m, "steady-after");
	CHECK(st && af);
	CHECK_INT(json_integer_value(json_object_get(st, "n")), 3);
	CHECK_NEAR(json_real_value(json_object_get(st, "mean")), 200.0 / 3, 1e-9);
	CHECK_INT(json_integer_value(json_object_get(af, "n")), 2);
	CHECK_NEAR(json_real_value(json_object_get(af, "mean")), 42.0, 1e-9);
	char *txt = sb_report_render(rep, "txt", err, sizeof(err));
	CHECK(txt != NULL);
	if (!strstr(txt, "fast: fill: steady state reached in 2 of 3 iterations, after 42 s on "
			 "average (standard deviation 2.8 s); the other ran for the workload's "
			 "maxRuntime.")) {
		fprintf(stderr, "    report:\n%s\n", txt);
		free(txt);
		return T_FAIL;
	}
	free(txt);
	json_decref(rep);
	json_decref(j1);
	json_decref(j2);
	json_decref(j3);
	sb_agg_free(a);
	return T_PASS;
}

static int test_bad_steadystate_block_is_named(void)
{
	struct sb_agg *a = sb_agg_new();
	char err[256];
	json_t *j = job(1, 1000);
	CHECK(a && j);
	json_object_set_new(json_object_get(j, "steadystate"), "attained", json_string("yes"));
	CHECK_INT(sb_agg_add(a, "fast", 1, j, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "steadystate.attained: not a number") != NULL);
	json_decref(j);
	sb_agg_free(a);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"steady/spec-maps-to-fio-options", test_spec_maps_to_fio_options},
	{"steady/spec-errors-name-the-field", test_spec_errors_name_the_field},
	{"steady/aggregate-and-report", test_aggregate_and_report},
	{"steady/bad-steadystate-block-is-named", test_bad_steadystate_block_is_named},
};
TEST_MAIN(cases)
