/* SPDX-License-Identifier: MIT */
/* The kubectl plugin's logs command: iteration slices, the results table. */
#include "tests/unit/harness.h"
#include "plugin/podlog.h"
#include "plugin/table.h"

/* A runner pod's log as the container runtime keeps it (stderr lines from
 * lib/log, stdout blocks from the text output). */
static const char runner_log[] =
	"2024-05-01T12:00:00.001Z info Runner started run=r class=fast iterations=3 attempt=1\n"
	"2024-05-01T12:00:00.002Z info Skipped iteration already recorded iteration=1 "
	"configmap=r-fast-1\n"
	"2024-05-01T12:00:00.003Z info Started iteration iteration=2 of=3\n"
	"=== fast, iteration 2 of 3\n"
	"rr: (groupid=0, jobs=1): err= 0\n"
	"  read: IOPS=22.7k, BW=88.8MiB/s\n"
	"2024-05-01T12:00:01.100Z info Recorded iteration iteration=2 configmap=r-fast-2\n"
	"2024-05-01T12:00:01.101Z info Started iteration iteration=12 of=3\n"
	"=== fast, iteration 12 of 3\n"
	"2024-05-01T12:00:02.000Z info Recorded iteration iteration=12 configmap=r-fast-12\n"
	"2024-05-01T12:00:02.001Z info Runner finished detail=\"2 iterations recorded\"\n";

static int test_slice_one_iteration(void)
{
	char *s = sbp_log_slice(runner_log, strlen(runner_log), 2);
	CHECK(s != NULL);
	int ok = !strcmp(s, "2024-05-01T12:00:00.003Z info Started iteration iteration=2 of=3\n"
			    "=== fast, iteration 2 of 3\n"
			    "rr: (groupid=0, jobs=1): err= 0\n"
			    "  read: IOPS=22.7k, BW=88.8MiB/s\n"
			    "2024-05-01T12:00:01.100Z info Recorded iteration iteration=2 "
			    "configmap=r-fast-2\n");
	if (!ok)
		fprintf(stderr, "    got:\n%s", s);
	free(s);
	CHECK(ok);
	return T_PASS;
}

static int test_slice_last_and_skipped(void)
{
	/* iteration=12 is not iteration=1; the last one keeps the runner's end */
	char *s = sbp_log_slice(runner_log, strlen(runner_log), 12);
	CHECK(s != NULL);
	int ok = strstr(s, "=== fast, iteration 12 of 3\n") && strstr(s, "Runner finished") &&
		 !strstr(s, "iteration=2 ");
	free(s);
	CHECK(ok);
	s = sbp_log_slice(runner_log, strlen(runner_log), 1);
	CHECK(s != NULL);
	ok = !strcmp(s, "2024-05-01T12:00:00.002Z info Skipped iteration already recorded "
			"iteration=1 configmap=r-fast-1\n");
	free(s);
	CHECK(ok);
	s = sbp_log_slice(runner_log, strlen(runner_log), 3);
	CHECK(s != NULL);
	CHECK_STR(s, "");
	free(s);
	/* a log without a final newline, and one that stops mid-iteration */
	const char *cut = "x Started iteration iteration=1 of=1\npartial line";
	s = sbp_log_slice(cut, strlen(cut), 1);
	CHECK(s != NULL);
	CHECK_STR(s, cut);
	free(s);
	s = sbp_log_slice("", 0, 1);
	CHECK(s != NULL);
	CHECK_STR(s, "");
	free(s);
	return T_PASS;
}

static int test_slice_runner_stopped(void)
{
	const char *log = "t info Started iteration iteration=1 of=2\n"
			  "t info Recorded iteration iteration=1 configmap=x\n"
			  "t info Started iteration iteration=2 of=2\n"
			  "t error Runner stopped status=1 reason=\"iteration 2: a job failed\"\n"
			  "trailing noise\n";
	char *s = sbp_log_slice(log, strlen(log), 2);
	CHECK(s != NULL);
	int ok = !strcmp(s,
			 "t info Started iteration iteration=2 of=2\n"
			 "t error Runner stopped status=1 reason=\"iteration 2: a job failed\"\n");
	free(s);
	CHECK(ok);
	return T_PASS;
}

/* A result ConfigMap as the runner writes it, with a trimmed result.json. */
static json_t *result_cm(const char *run, const char *cls, const char *it, const char *text)
{
	return json_pack("{s:{s:s,s:{s:s,s:s,s:s,s:s},s:{s:s,s:s}},s:{s:s}}", "metadata", "name",
			 "x", "labels", "storagebench.io/run", run, "storagebench.io/class", cls,
			 "storagebench.io/iteration", it, "app.kubernetes.io/component", "result",
			 "annotations", "storagebench.io/run-name", run,
			 "storagebench.io/class-name", cls, "data", "result.json", text);
}

/* A job: read with a p99 of ten times the mean latency, write without. */
#define JOB(name, rios, riops, rbw, rlat, wios, wiops, wbw, wlat)                              \
	"{\"jobname\":\"" name "\",\"read\":{\"total_ios\":" #rios ",\"iops\":" #riops         \
	",\"bw_bytes\":" #rbw ",\"lat_ns\":{\"mean\":" #rlat "},\"clat_ns\":{\"percentile\":{" \
	"\"99.000000\":" #rlat "e1}}},\"write\":{\"total_ios\":" #wios ",\"iops\":" #wiops     \
	",\"bw_bytes\":" #wbw ",\"lat_ns\":{\"mean\":" #wlat "},\"clat_ns\":{}}}"

static int test_results_table(void)
{
	const char *r1 =
		"{\"jobs\":[" JOB("rr", 22748, 22748.4, 93177446, 350000, 0, 0, 0, 0) "," JOB(
			"sw", 0, 0, 0, 0, 3000, 3000.0, 196608000, 1300000) "]}";
	const char *r2 = "{\"jobs\":[" JOB("rr", 20000, 20000.0, 81920000, 400000, 0, 0, 0, 0) "]}";
	json_t *items = json_array();
	CHECK(items != NULL);
	/* out of order, another run sharing the label, an unreadable result */
	json_array_append_new(items, result_cm("r", "fast", "10", r2));
	json_array_append_new(items, result_cm("r", "fast", "2", r2));
	json_array_append_new(items, result_cm("other", "fast", "1", r1));
	json_array_append_new(items, result_cm("r", "disk", "1", r1));
	json_array_append_new(items, result_cm("r", "fast", "1", r1));
	json_array_append_new(items, result_cm("r", "disk", "2", "{not json"));
	json_t *list = json_pack("{s:o}", "items", items);
	CHECK(list != NULL);

	size_t n = 0;
	char *s = sbp_results_format(list, "r", NULL, 0, &n);
	CHECK(s != NULL);
	CHECK_INT(n, 5);
	int ok = strstr(s, "ITERATION   CLASS   WORKLOAD") == s;
	const char *p1 = strstr(s, "\n1           disk    rr");
	const char *p2 = strstr(s, "\n1           disk    sw");
	const char *p3 = strstr(s, "\n1           fast    rr");
	const char *p4 = strstr(s, "\n2           disk    <data.result.json is not JSON");
	const char *p5 = strstr(s, "\n2           fast    rr");
	const char *p6 = strstr(s, "\n10          fast    rr");
	ok = ok && p1 && p2 && p3 && p4 && p5 && p6 && p1 < p2 && p2 < p3 && p3 < p4 && p4 < p5 &&
	     p5 < p6 && !strstr(s, "other");
	ok = ok && strstr(s, " read ") && strstr(s, " write ") && strstr(s, "22.7k") &&
	     strstr(s, "MiB/s") && strstr(s, "350") && strstr(s, "1.3");
	if (!ok)
		fprintf(stderr, "    got:\n%s", s);
	free(s);
	if (!ok)
		json_decref(list);
	CHECK(ok);

	/* --class and --iteration */
	s = sbp_results_format(list, "r", "fast", 2, &n);
	CHECK(s != NULL);
	CHECK_INT(n, 1);
	ok = strstr(s, "\n2 ") && !strstr(s, "disk") && !strstr(s, "\n1 ") && !strstr(s, "\n10 ");
	free(s);
	CHECK(ok);
	s = sbp_results_format(list, "r", "none", 0, &n);
	CHECK(s != NULL);
	CHECK_INT(n, 0);
	CHECK(strchr(s, '\n') == s + strlen(s) - 1); /* the header alone */
	free(s);
	json_decref(list);
	return T_PASS;
}

static int test_results_missing_fields(void)
{
	json_t *items = json_array();
	json_t *cm = result_cm("r", "fast", "1", "{}");
	CHECK(items && cm);
	json_object_del(json_object_get(cm, "data"), "result.json");
	json_array_append_new(items, cm);
	json_array_append_new(items, result_cm("r", "fast", "x", "{\"jobs\":[]}")); /* bad label */
	json_array_append_new(items, result_cm("r", "fast", "2",
					       "{\"jobs\":[{\"jobname\":\"idle\","
					       "\"read\":{},\"write\":{}}]}"));
	size_t n = 0;
	char *s = sbp_results_format(items, NULL, NULL, 0, &n);
	json_decref(items);
	CHECK(s != NULL);
	CHECK_INT(n, 2);
	int ok = strstr(s, "<no data.result.json>") && strstr(s, "idle") && !strstr(s, "\nx ");
	if (!ok)
		fprintf(stderr, "    got:\n%s", s);
	free(s);
	CHECK(ok);
	return T_PASS;
}

/* A malformed figure: the row names the field (lib/result/resultdoc.h's reader), not a 0. */
static int test_results_bad_field(void)
{
	json_t *items = json_array();
	CHECK(items);
	json_array_append_new(items, result_cm("r", "fast", "1",
					       "{\"jobs\":[{\"jobname\":\"w\","
					       "\"read\":{\"total_ios\":5,\"iops\":\"many\"}}]}"));
	size_t n = 0;
	char *s = sbp_results_format(items, NULL, NULL, 0, &n);
	json_decref(items);
	CHECK(s != NULL);
	CHECK_INT(n, 1);
	int ok = strstr(s, "<data.result.json: jobs[0].read.iops: not a number>") != NULL;
	if (!ok)
		fprintf(stderr, "    got:\n%s", s);
	free(s);
	CHECK(ok);
	return T_PASS;
}

static int test_log_gone(void)
{
	const char *k = "unable to retrieve container logs for containerd://fb3b2074\n";
	CHECK(sbp_log_gone(k, strlen(k)));
	CHECK(!sbp_log_gone(k, 20)); /* too short to tell */
	CHECK(!sbp_log_gone(runner_log, strlen(runner_log)));
	CHECK(!sbp_log_gone("", 0));
	CHECK(!sbp_log_gone(NULL, 0));
	return T_PASS;
}

static int test_log_kubelet_error(void)
{
	const char *errs[] = {
		"unable to retrieve container logs for containerd://fb3b2074\n",
		"failed to try resolving symlinks in path \"/var/log/pods/ns_p_uid/runner/0.log\": "
		"lstat /var/log/pods/ns_p_uid/runner/0.log: no such file or directory\n",
		"failed to open log file \"/var/log/pods/ns_p_uid/runner/0.log\": open: no such "
		"file\n"};
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		CHECK(sbp_log_kubelet_error(errs[i], strlen(errs[i])));
	CHECK(!sbp_log_gone(errs[1], strlen(errs[1]))); /* not gone: maybe not there yet */
	CHECK(!sbp_log_kubelet_error(errs[2], 12));	/* too short to tell */
	CHECK(!sbp_log_kubelet_error(runner_log, strlen(runner_log)));
	const char *said = "2026-12-04T05:00:00Z failed to open log file (the runner's words)\n";
	CHECK(!sbp_log_kubelet_error(said, strlen(said)));
	CHECK(!sbp_log_kubelet_error(NULL, 0));
	return T_PASS;
}

static const struct test_case cases[] = {
	{"plugin-logs/kubelet's answer for a removed container", test_log_gone},
	{"plugin-logs/kubelet's errors in place of a log", test_log_kubelet_error},
	{"plugin-logs/slice one iteration", test_slice_one_iteration},
	{"plugin-logs/results: a malformed figure named", test_results_bad_field},
	{"plugin-logs/slice last, skipped, absent, unterminated", test_slice_last_and_skipped},
	{"plugin-logs/slice ends at Runner stopped", test_slice_runner_stopped},
	{"plugin-logs/results table ordered and filtered", test_results_table},
	{"plugin-logs/results with missing fields", test_results_missing_fields},
};

TEST_MAIN(cases)
