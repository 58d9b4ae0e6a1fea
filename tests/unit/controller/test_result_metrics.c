/* SPDX-License-Identifier: MIT */
/*
 * controller/serve/result_metrics.c: results as gauges. The newest successful run
 * of each schedule (by activation) and no run name in its labels; runs
 * outside schedules by name; only the headline metrics; verdict gauges
 * from the report's comparison; label values escaped.
 */
#include "tests/unit/harness.h"
#include "controller/serve/result_metrics.h"
#include "core/labels.h"

#include <jansson.h>
#include <stdlib.h>

static json_t *run(const char *ns, const char *name, const char *sched, const char *at,
		   const char *phase, double iops)
{
	json_t *r = json_pack("{s:{s:s,s:s,s:{},s:{}},s:{s:s,s:[{s:s,s:s,s:s,s:s,s:f,s:f,s:i},"
			      "{s:s,s:s,s:s,s:s,s:f,s:f,s:i},{s:s,s:s,s:s,s:s,s:f,s:f,s:i}]}}",
			      "metadata", "namespace", ns, "name", name, "labels", "annotations",
			      "status", "phase", phase, "summary", "class", "fast", "workload",
			      "rr", "metric", "read-iops", "unit", "IOPS", "mean", iops, "stddev",
			      10.0, "n", 3, "class", "fast", "workload", "rr", "metric",
			      "read-lat-p99", "unit", "ns", "mean", 250000.0, "stddev", 900.0, "n",
			      3, "class", "fast", "workload", "rr", "metric", "read-lat-p50",
			      "unit", "ns", "mean", 1.0, "stddev", 0.0, "n", 3);
	if (r && sched) {
		json_t *md = json_object_get(r, "metadata");
		json_object_set_new(json_object_get(md, "labels"), SB_LABEL_SCHEDULE,
				    json_string(sched));
		json_object_set_new(json_object_get(md, "annotations"), SB_ANNOT_SCHEDULED_AT,
				    json_string(at));
	}
	return r;
}

/* the report of nightly-2 has a comparison: read-iops -50%, significant */
static json_t *get_cm(void *arg, const char *ns, const char *name)
{
	(void)arg;
	if (strcmp(ns, "team-a") || strcmp(name, "nightly-2-report"))
		return NULL;
	const char *cmp = "{\"baseline\": \"nightly-1\", \"results\": [{\"target\": \"fast\", "
			  "\"workload\": \"rr\", \"metrics\": {\"read-iops\": {\"verdict\": "
			  "\"significant\", \"direction\": \"slower\", \"change_pct\": -50.0, "
			  "\"p\": 0.001, \"unit\": \"IOPS\"}}}]}";
	return json_pack("{s:{s:s}}", "data", "compare.json", cmp);
}

static char *render(const json_t *runs)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	int r = br_result_metrics_write(f, runs, get_cm, NULL);
	fclose(f);
	if (r) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int test_schedule_newest_success(void)
{
	json_t *runs = json_array();
	json_array_append_new(runs, run("team-a", "nightly-2", "nightly", "2026-12-01T03:00:00Z",
					"Succeeded", 500));
	json_array_append_new(runs, run("team-a", "nightly-1", "nightly", "2026-11-30T03:00:00Z",
					"Succeeded", 1000));
	json_array_append_new(
		runs, run("team-a", "nightly-3", "nightly", "2026-12-02T03:00:00Z", "Running", 7));
	json_array_append_new(runs, run("team-b", "nightly-9", "nightly", "2026-11-01T03:00:00Z",
					"Succeeded", 42));
	json_array_append_new(runs, run("team-a", "adhoc\"x", NULL, NULL, "Succeeded", 3));
	json_array_append_new(runs, run("team-a", "broken", NULL, NULL, "Failed", 3));
	static char *text;
	/* nightly-2 is Regressed (its condition, which the hysteresis decides) */
	json_t *st = json_object_get(json_array_get(runs, 0), "status");
	json_object_set_new(st, "conditions",
			    json_pack("[{s:s,s:s}]", "type", "Regressed", "status", "True"));
	text = render(runs);
	json_decref(runs);
	CHECK(text);
	const char *sel =
		"{namespace=\"team-a\",schedule=\"nightly\",class=\"fast\",workload=\"rr\"";
	char want[512];
	snprintf(want, sizeof(want), "storagebench_schedule_iops%s,op=\"read\"} 500\n", sel);
	CHECK(strstr(text, want));
	snprintf(want, sizeof(want), "storagebench_schedule_iops_stddev%s,op=\"read\"} 10\n", sel);
	CHECK(strstr(text, want));
	/* latencies in seconds, percentiles a label */
	snprintf(want, sizeof(want),
		 "storagebench_schedule_latency_seconds%s,op=\"read\",statistic=\"p99\"} "
		 "0.00025000000000000001\n",
		 sel);
	CHECK(strstr(text, want));
	snprintf(want, sizeof(want),
		 "storagebench_schedule_latency_seconds%s,op=\"read\",statistic=\"p50\"} "
		 "1.0000000000000001e-09\n",
		 sel);
	CHECK(strstr(text, want));
	snprintf(want, sizeof(want), "storagebench_schedule_iterations%s} 3\n", sel);
	CHECK(strstr(text, want));
	/* once per class and workload */
	CHECK(!strstr(strstr(text, want) + 1, want));
	/* the other namespace's schedule of the same name is its own */
	CHECK(strstr(text, "storagebench_schedule_iops{namespace=\"team-b\",schedule="
			   "\"nightly\",class=\"fast\",workload=\"rr\",op=\"read\"} 42\n"));
	CHECK(strstr(text, "storagebench_schedule_last_success_timestamp_seconds{namespace="
			   "\"team-a\",schedule=\"nightly\"} 1796094000\n"));
	/* neither the older nor the running one */
	CHECK(!strstr(text, "} 1000\n") && !strstr(text, "} 7\n"));
	/* no run names in schedule series */
	CHECK(!strstr(text, "nightly-2\""));
	/* verdicts */
	CHECK(strstr(text, "storagebench_schedule_regressed{namespace=\"team-a\",schedule="
			   "\"nightly\"} 1\n"));
	CHECK(strstr(text, "storagebench_schedule_regressed_since_timestamp_seconds{namespace="
			   "\"team-a\",schedule=\"nightly\"} 1796094000\n"));
	CHECK(strstr(text, "storagebench_schedule_change_ratio{namespace=\"team-a\",schedule="
			   "\"nightly\",class=\"fast\",workload=\"rr\",metric=\"read-iops\","
			   "verdict=\"regression\"} -0.5\n"));
	/* team-b's has no verdict: no verdict gauge */
	CHECK(!strstr(text, "storagebench_schedule_regressed{namespace=\"team-b\""));
	/* runs outside schedules, escaped; failed ones not */
	CHECK(strstr(text, "storagebench_run_iops{namespace=\"team-a\",run=\"adhoc\\\"x\","
			   "class=\"fast\",workload=\"rr\",op=\"read\"} 3\n"));
	CHECK(!strstr(text, "broken"));
	/* each family is one group: its HELP and TYPE once, its samples after */
	CHECK(strstr(text, "# TYPE storagebench_schedule_iops gauge\n"));
	const char *t1 = strstr(text, "# TYPE storagebench_schedule_iops gauge\n");
	const char *a = strstr(text, "\nstoragebench_schedule_iops{namespace=\"team-a\"");
	const char *b = strstr(text, "\nstoragebench_schedule_iops{namespace=\"team-b\"");
	const char *next = strstr(t1 + 1, "# HELP");
	CHECK(a && b && a > t1 && b > t1 && (!next || (a < next && b < next)));
	CHECK(!strstr(t1 + 1, "# TYPE storagebench_schedule_iops gauge\n"));
	free(text);
	text = NULL;
	return T_PASS;
}

static int test_empty(void)
{
	json_t *runs = json_array();
	char *text = render(runs);
	json_decref(runs);
	CHECK(text);
	int empty = text[0] == '\0';
	free(text);
	CHECK(empty); /* no family without a series */
	return T_PASS;
}

static const struct test_case cases[] = {
	{"result metrics/newest successful run per schedule, runs, verdicts",
	 test_schedule_newest_success},
	{"result metrics/no runs: nothing", test_empty},
};

TEST_MAIN(cases)
