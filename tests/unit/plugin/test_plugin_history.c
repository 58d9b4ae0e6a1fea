/* SPDX-License-Identifier: MIT */
/*
 * plugin/history.c: the table of `kubectl storagebench history` (newest
 * first, change against the previous successful run, trend with latencies
 * lower-is-better, the Regressed condition), and its command line.
 */
#include "tests/unit/harness.h"
#include "core/labels.h"
#include "plugin/args.h"
#include "plugin/history.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>

static json_t *run(const char *name, const char *at, const char *phase, double iops, double lat,
		   const char *regressed)
{
	json_t *r = json_pack("{s:{s:s,s:{s:s}},s:{s:s,s:[{s:s,s:s,s:s,s:s,s:f,s:f},"
			      "{s:s,s:s,s:s,s:s,s:f,s:f}]}}",
			      "metadata", "name", name, "annotations", SB_ANNOT_SCHEDULED_AT, at,
			      "status", "phase", phase, "summary", "class", "fast", "workload",
			      "rr", "metric", "read-iops", "unit", "IOPS", "mean", iops, "stddev",
			      iops / 100, "class", "fast", "workload", "rr", "metric",
			      "read-lat-p99", "unit", "ns", "mean", lat, "stddev", 1000.0);
	if (r && regressed)
		json_object_set_new(
			json_object_get(r, "status"), "conditions",
			json_pack("[{s:s,s:s}]", "type", "Regressed", "status", regressed));
	return r;
}

static int test_table(void)
{
	json_t *runs = json_array();
	/* out of order on purpose; a failed run between two successful ones */
	json_array_append_new(
		runs, run("n-2", "2026-12-01T03:00:00Z", "Succeeded", 12000, 200000, "False"));
	json_array_append_new(
		runs, run("n-4", "2026-12-03T03:00:00Z", "Succeeded", 6000, 400000, "True"));
	json_array_append_new(runs,
			      run("n-1", "2026-11-30T03:00:00Z", "Succeeded", 10000, 250000, NULL));
	json_t *failed = json_pack("{s:{s:s,s:{s:s}},s:{s:s}}", "metadata", "name", "n-3",
				   "annotations", SB_ANNOT_SCHEDULED_AT, "2026-12-02T03:00:00Z",
				   "status", "phase", "Failed");
	json_array_append_new(runs, failed);
	size_t n = 0;
	static char *text;
	text = sbp_history_format(runs, NULL, &n);
	char *lat = sbp_history_format(runs, "read-lat-p99", NULL);
	json_decref(runs);
	CHECK(text && lat);
	CHECK_INT(n, 4);
	const char *want =
		"RUN   ACTIVATION          PHASE       CLASS   WORKLOAD   METRIC      MEAN         "
		"STDDEV     CHANGE   TREND    REGRESSED\n"
		"n-4   2026-12-03T03:00Z   Succeeded   fast    rr         read-iops   6.00k IOPS   "
		"60 IOPS    -50.0%   worse    yes\n"
		"n-3   2026-12-02T03:00Z   Failed      -       -          -           -            "
		"-          -        -        -\n"
		"n-2   2026-12-01T03:00Z   Succeeded   fast    rr         read-iops   12.0k IOPS   "
		"120 IOPS   +20.0%   better   no\n"
		"n-1   2026-11-30T03:00Z   Succeeded   fast    rr         read-iops   10.0k IOPS   "
		"100 IOPS   -        -        -\n";
	if (strcmp(text, want)) {
		fprintf(stderr, "    got:\n%s    want:\n%s", text, want);
		free(lat);
		return T_FAIL;
	}
	/* latency: up is worse */
	CHECK(strstr(lat, "read-lat-p99") && strstr(lat, "+100.0%   worse") &&
	      strstr(lat, "-20.0%    better"));
	free(lat);
	free(text);
	text = NULL;
	return T_PASS;
}

static int test_args(void)
{
	struct sbp_args a;
	char err[256];
	char *ok[] = {"kubectl-storagebench", "history", "nightly",
		      "--metric=read-bw",     "-n",	 "ops"};
	CHECK_INT(sbp_args_parse(6, ok, &a, err, sizeof(err)), 0);
	CHECK_INT(a.cmd, SBP_CMD_HISTORY);
	CHECK_STR(a.names[0], "nightly");
	CHECK_STR(a.metric, "read-bw");
	CHECK_STR(a.ns, "ops");
	char *none[] = {"kubectl-storagebench", "history"};
	CHECK_INT(sbp_args_parse(2, none, &a, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "history needs one SCHEDULE");
	char *wrong[] = {"kubectl-storagebench", "list", "--metric=x"};
	CHECK_INT(sbp_args_parse(3, wrong, &a, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--metric is not an option of 'list'");
	char *empty[] = {"kubectl-storagebench", "history", "x", "--metric="};
	CHECK_INT(sbp_args_parse(4, empty, &a, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--metric: empty metric name");
	return T_PASS;
}

static const struct test_case cases[] = {
	{"plugin history/table newest first with change and trend", test_table},
	{"plugin history/command line", test_args},
};

TEST_MAIN(cases)
