/* SPDX-License-Identifier: MIT */
/*
 * Report documents someone else wrote (a report ConfigMap edited by hand, a
 * fuzzer's input): every renderer refuses a wrongly typed value with the path
 * named instead of dereferencing it (issue 15, bugs 3 and 5), and the fixture
 * reports still render.
 */
#include "tests/unit/harness.h"
#include "report/report.h"

#include <jansson.h>

/* Renders doc in every text format; returns how many were refused with want in err. */
static int refused(const char *doc, const char *want)
{
	json_error_t je;
	json_t *j = json_loads(doc, 0, &je);
	static const char *const fmts[] = {"txt", "md", "csv"};
	int n = 0;
	if (!j) {
		fprintf(stderr, "    bad test JSON: %s\n", je.text);
		return -1;
	}
	for (size_t i = 0; i < 3; i++) {
		char err[256] = "";
		char *out = sb_report_render(j, fmts[i], err, sizeof(err));
		if (!out && strstr(err, want))
			n++;
		else
			fprintf(stderr, "    %s: got %s err '%s', expected '%s'\n", fmts[i],
				out ? "output" : "no output", err, want);
		free(out);
	}
	json_decref(j);
	return n;
}

static int test_fuzz_cases(void)
{
	/* the three documents from issue 15, bug 5 */
	CHECK_INT(refused("{\"targets\":[2],\"results\":[]}", "targets[0]: not a string"), 3);
	CHECK_INT(refused("{\"results\":[{\"target\":\"\",\"workload\":\"\",\"metrics\":{},"
			  "\"headline\":[1]}]}",
			  "results[0].headline[0]: not a string"),
		  3);
	CHECK_INT(refused("{\"workloads\":[1],\"results\":[{\"target\":\"\",\"workload\":\"\","
			  "\"metrics\":{},\"headline\":[]}]}",
			  "workloads[0]: not a string"),
		  3);
	return T_PASS;
}

static int test_types_named(void)
{
	CHECK_INT(refused("{\"results\":{}}", "results: missing or not an array"), 3);
	CHECK_INT(refused("{\"results\":[7]}", "results[0]: not an object"), 3);
	CHECK_INT(refused("{\"results\":[{\"target\":1,\"workload\":\"w\",\"metrics\":{},"
			  "\"headline\":[]}]}",
			  "results[0].target: not a string"),
		  3);
	CHECK_INT(refused("{\"results\":[{\"target\":\"t\",\"workload\":\"w\",\"metrics\":{"
			  "\"read-iops\":{\"mean\":1}},\"headline\":[]}]}",
			  "results[0].metrics.read-iops.unit: missing"),
		  3);
	CHECK_INT(refused("{\"results\":[{\"target\":\"t\",\"workload\":\"w\",\"metrics\":{"
			  "\"read-iops\":{\"unit\":\"IOPS\",\"mean\":\"x\"}},\"headline\":[]}]}",
			  "results[0].metrics.read-iops.mean: not a number"),
		  3);
	CHECK_INT(refused("{\"results\":[{\"target\":\"t\",\"workload\":\"w\",\"metrics\":{},"
			  "\"headline\":[],\"seconds\":{\"read\":3}}]}",
			  "results[0].seconds.read: not an object"),
		  3);
	CHECK_INT(refused("{\"name\":[],\"results\":[]}", "report.name: not a string"), 3);
	return T_PASS;
}

static int test_fixtures_render(void)
{
	static const char *const names[] = {"quick-1", "storage-cluster-1", "edge-escape",
					    "edge-one-iteration"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[128], err[256] = "";
		snprintf(path, sizeof(path), "tests/fixtures/reports/%s.json", names[i]);
		json_t *j = json_load_file(path, 0, NULL);
		CHECK(j != NULL);
		char *out = sb_report_render(j, "csv", err, sizeof(err));
		json_decref(j);
		if (!out)
			fprintf(stderr, "    %s: %s\n", names[i], err);
		CHECK(out != NULL);
		CHECK(strstr(out, "(null)") == NULL);
		free(out);
	}
	/* edge-missing has a result without a headline: the SVG charts draw it, text names it */
	char err[256] = "";
	json_t *j = json_load_file("tests/fixtures/reports/edge-missing.json", 0, NULL);
	CHECK(j != NULL);
	char *out = sb_report_render(j, "txt", err, sizeof(err));
	json_decref(j);
	free(out);
	CHECK(out == NULL);
	CHECK_STR(err, "results[6].headline: missing");
	return T_PASS;
}

static const struct test_case cases[] = {
	{"report/hostile-fuzz-cases", test_fuzz_cases},
	{"report/hostile-types-named", test_types_named},
	{"report/fixtures-render", test_fixtures_render},
};
TEST_MAIN(cases)
