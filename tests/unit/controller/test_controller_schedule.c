/* SPDX-License-Identifier: MIT */
/*
 * controller/schedule/schedule.c: the BenchmarkSchedule spec and its decisions,
 * driven by a fake clock (tests/unit/fakeclock.h): time only moves when a
 * test steps it, so "every minute for ten minutes" and "the controller was
 * down for two hours" take no real time and cannot race the machine.
 */
#include "controller/schedule/history.h"
#include "controller/schedule/schedule.h"
#include "report/compare.h"
#include "stats/verdict.h"
#include "tests/unit/fakeclock.h"
#include "tests/unit/harness.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>
#include <math.h>
#include <time.h>

static char err[512];

static int64_t ts(int y, int mo, int d, int h, int mi, int s)
{
	struct tm tm = {0};
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = s;
	return (int64_t)timegm(&tm);
}

#define TEMPLATE                                                                            \
	"\"runTemplate\": {\"metadata\": {\"labels\": {\"team\": \"storage\"}}, \"spec\": " \
	"{\"storageClasses\": [\"fast\"], \"profile\": \"quick\", \"iterations\": 2}}"

static int parse_text(const char *text, struct br_sched_spec *s, struct sb_tz **tz)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);
	if (!j) {
		snprintf(err, sizeof(err), "test JSON: %s", je.text);
		return -100;
	}
	int r = br_sched_spec_parse(j, NULL, s, tz, err, sizeof(err));
	json_decref(j);
	return r;
}

/* ---- spec ---- */

static int test_spec_defaults(void)
{
	struct br_sched_spec s;
	struct sb_tz *tz = NULL;
	int r = parse_text("{\"schedule\": \"*/5 * * * *\", " TEMPLATE "}", &s, &tz);
	if (r)
		fprintf(stderr, "    %s\n", err);
	CHECK_INT(r, 0);
	CHECK(tz != NULL);
	CHECK_STR(sb_tz_name(tz), "UTC");
	CHECK_INT(s.concurrency, BR_CONC_FORBID);
	CHECK_INT(s.keep_succeeded, 10);
	CHECK_INT(s.baseline_runs, 5);
	CHECK_STR(s.pinned, "");
	CHECK_INT(s.keep_failed, 1);
	CHECK(!s.suspend);
	CHECK_NEAR(s.threshold_pct, 10, 0);
	CHECK(json_is_object(s.run_spec));
	CHECK_STR(json_string_value(json_object_get(s.run_labels, "team")), "storage");
	sb_tz_free(tz);
	br_sched_spec_release(&s);

	r = parse_text("{\"schedule\": \"@hourly\", \"timeZone\": \"Europe/Berlin\", "
		       "\"concurrencyPolicy\": \"Replace\", \"suspend\": true, "
		       "\"successfulRunsHistoryLimit\": 5, \"failedRunsHistoryLimit\": 0, "
		       "\"regressionThresholdPercent\": 2.5, " TEMPLATE "}",
		       &s, &tz);
	if (r)
		fprintf(stderr, "    %s\n", err);
	CHECK_INT(r, 0);
	CHECK_STR(sb_tz_name(tz), "Europe/Berlin");
	CHECK_INT(s.concurrency, BR_CONC_REPLACE);
	CHECK(s.suspend);
	CHECK_INT(s.keep_succeeded, 5);
	CHECK_INT(s.keep_failed, 0);
	CHECK_NEAR(s.threshold_pct, 2.5, 0);
	sb_tz_free(tz);
	br_sched_spec_release(&s);
	return T_PASS;
}

static int test_spec_errors(void)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{"[]", "spec: must be an object"},
		{"{" TEMPLATE "}",
		 "spec.schedule: required (a cron expression, e.g. \"0 3 * * *\")"},
		{"{\"schedule\": 5, " TEMPLATE "}", "spec.schedule: must be a string"},
		{"{\"schedule\": \"61 * * * *\", " TEMPLATE "}",
		 "spec.schedule: minute: '61' is above the maximum 59"},
		{"{\"schedule\": \"* * * *\", " TEMPLATE "}",
		 "spec.schedule: expected 5 fields (minute hour day-of-month month day-of-week), "
		 "got 4"},
		{"{\"schedule\": \"@hourly\", \"timeZone\": \"Mars/Olympus\", " TEMPLATE "}",
		 "spec.timeZone: time zone 'Mars/Olympus': unknown zone (no file "
		 "/usr/share/zoneinfo/Mars/Olympus)"},
		{"{\"schedule\": \"@hourly\", \"timeZone\": \"../etc/passwd\", " TEMPLATE "}",
		 "spec.timeZone: time zone '../etc/passwd': not a zone name (expected an IANA "
		 "name like 'Europe/Berlin')"},
		{"{\"schedule\": \"@hourly\", \"concurrencyPolicy\": \"Allow\", " TEMPLATE "}",
		 "spec.concurrencyPolicy: 'Allow' is not Forbid or Replace (two runs of one "
		 "schedule at once would measure each other)"},
		{"{\"schedule\": \"@hourly\", \"suspend\": \"yes\", " TEMPLATE "}",
		 "spec.suspend: must be true or false"},
		{"{\"schedule\": \"@hourly\", \"successfulRunsHistoryLimit\": 0, " TEMPLATE "}",
		 "spec.successfulRunsHistoryLimit: must be an integer from 1 to 100"},
		{"{\"schedule\": \"@hourly\", \"failedRunsHistoryLimit\": 101, " TEMPLATE "}",
		 "spec.failedRunsHistoryLimit: must be an integer from 0 to 100"},
		{"{\"schedule\": \"@hourly\", \"failedRunsHistoryLimit\": \"1\", " TEMPLATE "}",
		 "spec.failedRunsHistoryLimit: must be an integer from 0 to 100"},
		{"{\"schedule\": \"@hourly\", \"regressionThresholdPercent\": -1, " TEMPLATE "}",
		 "spec.regressionThresholdPercent: must be a number from 0 to 1000"},
		{"{\"schedule\": \"@hourly\"}",
		 "spec.runTemplate: required (the BenchmarkRun each activation creates)"},
		{"{\"schedule\": \"@hourly\", \"timeZone\": 3, " TEMPLATE "}",
		 "spec.timeZone: must be a string"},
		{"{\"schedule\": \"@hourly\", \"concurrencyPolicy\": 1, " TEMPLATE "}",
		 "spec.concurrencyPolicy: must be a string"},
		{"{\"schedule\": \"@hourly\", \"baseline\": [], " TEMPLATE "}",
		 "spec.baseline: must be an object"},
		{"{\"schedule\": \"@hourly\", \"runTemplate\": {\"metadata\": [], \"spec\": {}}}",
		 "spec.runTemplate.metadata: must be an object"},
		{"{\"schedule\": \"@hourly\", \"runTemplate\": {}}",
		 "spec.runTemplate.spec: required"},
		{"{\"schedule\": \"@hourly\", \"runTemplate\": {\"metadata\": {\"labels\": "
		 "{\"a\": 1}}, \"spec\": {}}}",
		 "spec.runTemplate.metadata.labels.a: must be a string"},
		{"{\"schedule\": \"@hourly\", \"runTemplate\": {\"spec\": {\"storageClasses\": "
		 "[\"fast\"], \"baseline\": \"x\"}}}",
		 "spec.runTemplate.spec.baseline: set by the schedule (the previous successful "
		 "run); remove it from the template"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct br_sched_spec s;
		struct sb_tz *tz = (struct sb_tz *)1;
		err[0] = 0;
		int r = parse_text(bad[i].text, &s, &tz);
		br_sched_spec_release(&s);
		if (r == 0 || r == -100 || strcmp(err, bad[i].msg) != 0 || tz) {
			fprintf(stderr, "    %s\n    -> %d '%s'\n    expected '%s'\n", bad[i].text,
				r, err, bad[i].msg);
			return T_FAIL;
		}
	}
	/* the run template's own errors come from the BenchmarkRun parser */
	struct br_sched_spec s;
	int r = parse_text("{\"schedule\": \"@hourly\", \"runTemplate\": {\"spec\": "
			   "{\"storageClasses\": [\"fast\"], \"iterations\": 0}}}",
			   &s, NULL);
	br_sched_spec_release(&s);
	CHECK_INT(r, -EINVAL);
	CHECK(strncmp(err, "spec.runTemplate.spec.iterations", 32) == 0);
	return T_PASS;
}

static int test_run_names(void)
{
	char n[64];
	CHECK_INT(br_sched_run_name(n, sizeof(n), "nightly", ts(2026, 12, 1, 3, 0, 0)), 0);
	CHECK_STR(n, "nightly-29934900");
	/* a long name stays a label value */
	CHECK_INT(br_sched_run_name(n, sizeof(n),
				    "a-very-long-schedule-name-that-goes-on-and-on-and-on-forever",
				    ts(2026, 12, 1, 3, 0, 0)),
		  0);
	CHECK(strlen(n) <= 63);
	return T_PASS;
}

/* ---- decisions ---- */

static struct br_sched_spec spec;
static struct br_sched_obs obs;
static struct br_sched_plan plan;

static int setup(const char *schedule, const char *extra)
{
	char text[1024];
	snprintf(text, sizeof(text), "{\"schedule\": \"%s\"%s%s, " TEMPLATE "}", schedule,
		 extra ? ", " : "", extra ? extra : "");
	br_sched_spec_release(&spec);
	memset(&obs, 0, sizeof(obs));
	snprintf(obs.name, sizeof(obs.name), "nightly");
	int r = parse_text(text, &spec, NULL);
	if (r)
		fprintf(stderr, "    %s\n", err);
	return r;
}

static struct br_sched_run_obs *add_run(int64_t scheduled, enum br_sched_run_phase ph)
{
	struct br_sched_run_obs *r = &obs.runs[obs.nruns++];
	memset(r, 0, sizeof(*r));
	br_sched_run_name(r->name, sizeof(r->name), obs.name, scheduled);
	r->scheduled = scheduled;
	r->phase = ph;
	return r;
}

static bool has_event(const char *reason)
{
	for (size_t i = 0; i < plan.nevents; i++)
		if (!strcmp(plan.events[i].reason, reason))
			return true;
	return false;
}

static bool deletes(const char *name)
{
	for (size_t i = 0; i < plan.ndeletes; i++)
		if (!strcmp(plan.deletes[i], name))
			return true;
	return false;
}

static int test_first_activation(void)
{
	CHECK_INT(setup("*/5 * * * *", NULL), 0);
	obs.created = ts(2026, 12, 1, 10, 0, 30);
	obs.now = ts(2026, 12, 1, 10, 4, 0);
	br_sched_plan_compute(&spec, NULL, &obs, &plan);
	CHECK(!plan.create);
	CHECK_INT(plan.requeue_s, 60);
	CHECK_INT(plan.next_time, ts(2026, 12, 1, 10, 5, 0));
	CHECK_INT(plan.last_schedule, 0);

	obs.now = ts(2026, 12, 1, 10, 5, 0);
	br_sched_plan_compute(&spec, NULL, &obs, &plan);
	CHECK(plan.create);
	CHECK_STR(plan.create_name, "nightly-29935325");
	CHECK_INT(plan.create_time, ts(2026, 12, 1, 10, 5, 0));
	CHECK_STR(plan.baseline, "");
	CHECK_INT(plan.last_schedule, ts(2026, 12, 1, 10, 5, 0));
	CHECK_INT(plan.missed, 0);
	CHECK(has_event("RunCreated") && !has_event("MissedSchedules"));
	CHECK_INT(plan.nactive, 1);
	CHECK_INT(plan.requeue_s, 300);

	/* an activation at the creation time itself does not count (after, not at) */
	obs.created = ts(2026, 12, 1, 10, 5, 0);
	br_sched_plan_compute(&spec, NULL, &obs, &plan);
	CHECK(!plan.create);
	return T_PASS;
}

static int test_run_already_made(void)
{
	/* the run exists but the status write was lost: no second run */
	CHECK_INT(setup("*/5 * * * *", NULL), 0);
	obs.created = ts(2026, 12, 1, 10, 0, 30);
	obs.now = ts(2026, 12, 1, 10, 6, 0);
	add_run(ts(2026, 12, 1, 10, 5, 0), BR_SRUN_ACTIVE);
	br_sched_plan_compute(&spec, NULL, &obs, &plan);
	CHECK(!plan.create);
	CHECK_INT(plan.last_schedule, ts(2026, 12, 1, 10, 5, 0));
	CHECK(!has_event("RunAlreadyActive"));
	CHECK_INT(plan.nactive, 1);
	return T_PASS;
}

static int test_catch_up_once(void)
{
	/* down from 10:05 to 12:03: one run, for 12:00; the 22 others (10:10 .. 11:55) missed */
	CHECK_INT(setup("*/5 * * * *", NULL), 0);
	obs.created = ts(2026, 12, 1, 9, 0, 0);
	obs.last_schedule = ts(2026, 12, 1, 10, 5, 0);
	add_run(ts(2026, 12, 1, 10, 5, 0), BR_SRUN_SUCCEEDED);
	obs.now = ts(2026, 12, 1, 12, 3, 0);
	br_sched_plan_compute(&spec, NULL, &obs, &plan);
	CHECK(plan.create);
	CHECK_INT(plan.create_time, ts(2026, 12, 1, 12, 0, 0));
	CHECK_INT(plan.missed, 22);
	CHECK(has_event("MissedSchedules"));
	CHECK_STR(plan.baseline, obs.runs[0].name);

	/* down for two years with an every-minute schedule: still one run */
	CHECK_INT(setup("* * * * *", NULL), 0);
	obs.created = ts(2024, 1, 1, 0, 0, 0);
	obs.last_schedule = ts(2024, 1, 1, 0, 1, 0);
	obs.now = ts(2026, 1, 1, 0, 0, 30);
	br_sched_plan_compute(&spec, NULL, &obs, &plan);
	CHECK(plan.create);
	CHECK_INT(plan.create_time, ts(2026, 1, 1, 0, 0, 0));
	CHECK_INT(plan.missed, 1000);
	CHECK(strstr(plan.events[1].message, "at least 1000 earlier activations were missed"));

	/* yearly, down for three years */
	CHECK_INT(setup("@yearly", NULL), 0);
	obs.created = ts(2020, 6, 1, 0, 0, 0);
	obs.last_schedule = ts(2021, 1, 1, 0, 0, 0);
	obs.now = ts(2024, 3, 1, 0, 0, 0);
	br_sched_plan_compute(&spec, NULL, &obs, &plan);
	CHECK(plan.create);
	CHECK_INT(plan.create_time, ts(2024, 1, 1, 0, 0, 0));
	CHECK_INT(plan.missed, 2);
	return T_PASS;
}

static int test_forbid(void)
{
	CHECK_INT(setup("*/5 * * * *", NULL), 0);
	obs.created = ts(2026, 12, 1, 9, 0, 0);
	obs.last_schedule = ts(2026, 12, 1, 10, 0, 0);
	add_run(ts(2026, 12, 1, 10, 0, 0), BR_SRUN_ACTIVE);
	obs.now = ts(2026, 12, 1, 10, 5, 10);
	br_sched_plan_compute(&spec, NULL, &obs, &plan);
	CHECK(!plan.create);
	CHECK(has_event("RunAlreadyActive"));
	CHECK_INT(plan.ndeletes, 0);
	/* not advanced: the activation is still due */
	CHECK_INT(plan.last_schedule, ts(2026, 12, 1, 10, 0, 0));
	CHECK_INT(plan.nactive, 1);
	CHECK_STR(plan.active[0], obs.runs[0].name);

	/* the active run ends at 10:06: the 10:05 run starts, late */
	obs.runs[0].phase = BR_SRUN_SUCCEEDED;
	obs.now = ts(2026, 12, 1, 10, 6, 0);
	br_sched_plan_compute(&spec, NULL, &obs, &plan);
	CHECK(plan.create);
	CHECK_INT(plan.create_time, ts(2026, 12, 1, 10, 5, 0));
	CHECK_STR(plan.baseline, obs.runs[0].name);
	return T_PASS;
}

static int test_replace(void)
{
	CHECK_INT(setup("*/5 * * * *", "\"concurrencyPolicy\": \"Replace\""), 0);
	obs.created = ts(2026, 12, 1, 9, 0, 0);
	obs.last_schedule = ts(2026, 12, 1, 10, 0, 0);
	add_run(ts(2026, 12, 1, 9, 55, 0), BR_SRUN_SUCCEEDED);
	add_run(ts(2026, 12, 1, 10, 0, 0), BR_SRUN_ACTIVE);
	obs.now = ts(2026, 12, 1, 10, 5, 0);
	br_sched_plan_compute(&spec, NULL, &obs, &plan);
	CHECK(plan.create);
	CHECK(has_event("RunReplaced"));
	CHECK_INT(plan.ndeletes, 1);
	CHECK(deletes(obs.runs[1].name));
	/* the baseline is the last successful run, not the replaced one */
	CHECK_STR(plan.baseline, obs.runs[0].name);
	CHECK_INT(plan.nactive, 1);
	CHECK_STR(plan.active[0], plan.create_name);
	return T_PASS;
}

static int test_suspend(void)
{
	CHECK_INT(setup("*/5 * * * *", "\"suspend\": true, \"successfulRunsHistoryLimit\": 1"), 0);
	obs.created = ts(2026, 12, 1, 9, 0, 0);
	obs.last_schedule = ts(2026, 12, 1, 9, 5, 0);
	add_run(ts(2026, 12, 1, 9, 0, 0), BR_SRUN_SUCCEEDED);
	add_run(ts(2026, 12, 1, 9, 5, 0), BR_SRUN_SUCCEEDED);
	obs.now = ts(2026, 12, 1, 10, 7, 0);
	br_sched_plan_compute(&spec, NULL, &obs, &plan);
	CHECK(!plan.create);
	CHECK_INT(plan.requeue_s, 0);
	CHECK_INT(plan.last_schedule, ts(2026, 12, 1, 9, 5, 0));
	/* history still kept to its limit */
	CHECK_INT(plan.ndeletes, 1);
	CHECK(deletes(obs.runs[0].name));
	CHECK_STR(plan.last_successful, obs.runs[1].name);
	return T_PASS;
}

static int test_history_limits(void)
{
	CHECK_INT(setup("@hourly", "\"successfulRunsHistoryLimit\": 3, "
				   "\"failedRunsHistoryLimit\": 1"),
		  0);
	obs.created = ts(2026, 12, 1, 0, 0, 0);
	obs.last_schedule = ts(2026, 12, 1, 8, 0, 0);
	/* out of order on purpose: the plan sorts by activation */
	int hours_ok[] = {3, 1, 6, 2, 8}, hours_bad[] = {4, 7, 5};
	for (size_t i = 0; i < 5; i++)
		add_run(ts(2026, 12, 1, hours_ok[i], 0, 0), BR_SRUN_SUCCEEDED);
	for (size_t i = 0; i < 3; i++)
		add_run(ts(2026, 12, 1, hours_bad[i], 0, 0), BR_SRUN_FAILED);
	/* one already being deleted is not counted nor deleted again */
	add_run(ts(2026, 12, 1, 0, 0, 0), BR_SRUN_SUCCEEDED)->deleting = true;
	obs.now = ts(2026, 12, 1, 8, 30, 0);
	br_sched_plan_compute(&spec, NULL, &obs, &plan);
	CHECK(!plan.create);
	CHECK_INT(plan.ndeletes, 4);
	char n[64];
	br_sched_run_name(n, sizeof(n), "nightly", ts(2026, 12, 1, 1, 0, 0));
	CHECK(deletes(n));
	br_sched_run_name(n, sizeof(n), "nightly", ts(2026, 12, 1, 2, 0, 0));
	CHECK(deletes(n));
	br_sched_run_name(n, sizeof(n), "nightly", ts(2026, 12, 1, 4, 0, 0));
	CHECK(deletes(n));
	br_sched_run_name(n, sizeof(n), "nightly", ts(2026, 12, 1, 5, 0, 0));
	CHECK(deletes(n));
	br_sched_run_name(n, sizeof(n), "nightly", ts(2026, 12, 1, 8, 0, 0));
	CHECK_STR(plan.last_successful, n);
	CHECK_INT(plan.last_successful_time, ts(2026, 12, 1, 8, 0, 0));
	return T_PASS;
}

static int test_time_zone(void)
{
	/* 02:30 Berlin time: skipped on the spring-forward day, as CronJob */
	CHECK_INT(setup("30 2 * * *", "\"timeZone\": \"Europe/Berlin\""), 0);
	struct sb_tz *tz = NULL;
	CHECK_INT(sb_tz_load("Europe/Berlin", NULL, &tz, err, sizeof(err)), 0);
	obs.created = ts(2026, 3, 27, 0, 0, 0);
	obs.last_schedule = ts(2026, 3, 28, 1, 30, 0);
	obs.now = ts(2026, 3, 29, 12, 0, 0);
	br_sched_plan_compute(&spec, tz, &obs, &plan);
	bool created = plan.create;
	int64_t next = plan.next_time;
	sb_tz_free(tz);
	CHECK(!created);
	CHECK_INT(next, ts(2026, 3, 30, 0, 30, 0));
	return T_PASS;
}

/*
 * A small world run by the fake clock: the controller's loop reads the
 * time from lib/kube's clock, plans, applies, and sleeps until the plan's
 * requeue; runs take 40 s and succeed. Ten minutes of an every-minute
 * schedule keeping three runs.
 */
static int test_simulated_every_minute(void)
{
	static struct fakeclock fc;
	fc_install(&fc, true);
	int ret = T_FAIL;
	if (setup("* * * * *", "\"successfulRunsHistoryLimit\": 3"))
		goto out;
	struct {
		char name[64];
		char baseline[64];
		int64_t ends;
	} made[32];
	size_t nmade = 0;
	int64_t t0 = ts(2026, 12, 1, 10, 0, 20);
	fc.now = t0 * 1000;
	obs.created = t0;
	while (fc_now(&fc) / 1000 < t0 + 600) {
		int64_t now = fc_now(&fc) / 1000;
		obs.now = now;
		for (size_t i = 0; i < obs.nruns; i++)
			for (size_t k = 0; k < nmade; k++)
				if (!strcmp(obs.runs[i].name, made[k].name) && made[k].ends <= now)
					obs.runs[i].phase = BR_SRUN_SUCCEEDED;
		br_sched_plan_compute(&spec, NULL, &obs, &plan);
		/* apply: deletes, then the create, then the status */
		for (size_t d = 0; d < plan.ndeletes; d++)
			for (size_t i = 0; i < obs.nruns; i++)
				if (!strcmp(obs.runs[i].name, plan.deletes[d]))
					obs.runs[i] = obs.runs[--obs.nruns];
		if (plan.create && nmade < 32) {
			struct br_sched_run_obs *r = add_run(plan.create_time, BR_SRUN_ACTIVE);
			if (strcmp(r->name, plan.create_name) != 0)
				goto out;
			snprintf(made[nmade].name, sizeof(made[0].name), "%s", r->name);
			snprintf(made[nmade].baseline, sizeof(made[0].baseline), "%s",
				 plan.baseline);
			made[nmade++].ends = now + 40;
		}
		obs.last_schedule = plan.last_schedule;
		/* wake at the next activation or when the newest run ends */
		int64_t wake = now + (plan.requeue_s ? plan.requeue_s : 3600);
		if (nmade && made[nmade - 1].ends > now && made[nmade - 1].ends < wake)
			wake = made[nmade - 1].ends;
		fc_wait_until(&fc, wake * 1000);
	}
	/* activations 10:01 .. 10:10: ten runs, each comparing with the one before */
	if (nmade != 10) {
		fprintf(stderr, "    %zu runs made, expected 10\n", nmade);
		goto out;
	}
	for (size_t k = 0; k < nmade; k++) {
		char want[64] = "";
		if (k)
			snprintf(want, sizeof(want), "%s", made[k - 1].name);
		if (strcmp(made[k].baseline, want) != 0) {
			fprintf(stderr, "    run %s: baseline '%s', expected '%s'\n", made[k].name,
				made[k].baseline, want);
			goto out;
		}
	}
	/* three kept (+ the active one) */
	size_t ok = 0, active = 0;
	for (size_t i = 0; i < obs.nruns; i++) {
		ok += obs.runs[i].phase == BR_SRUN_SUCCEEDED;
		active += obs.runs[i].phase == BR_SRUN_ACTIVE;
	}
	if (ok != 3 || active > 1) {
		fprintf(stderr, "    %zu succeeded and %zu active runs left\n", ok, active);
		goto out;
	}
	/* no real waiting happened: every wait jumped */
	if (fc.nwaits < 10)
		goto out;
	ret = T_PASS;
out:
	fc_uninstall(&fc);
	return ret;
}

/* ---- baselines, hysteresis, change points: scripted results ---- */

/* the report of run `name`: class fast, workload rr, 3 iterations around iops */
static json_t *scripted_report(const char *name, double iops, const char *fp)
{
	const double d[] = {4, -6, 2};
	return json_pack("{s:s,s:[{s:s,s:s,s:s,s:{},s:{s:{s:s,s:f,s:[f,f,f]}}}]}", "name", name,
			 "results", "target", "fast", "workload", "rr", "fingerprint", fp, "params",
			 "metrics", "read-iops", "unit", "IOPS", "mean", iops, "samples",
			 iops + d[0] * iops / 1000, iops + d[1] * iops / 1000,
			 iops + d[2] * iops / 1000);
}

#define SIM_RUNS 12
static json_t *sim_reps[SIM_RUNS];

static json_t *sim_report_of(const char *name)
{
	for (size_t i = 0; i < obs.nruns; i++)
		if (!strcmp(obs.runs[i].name, name))
			return sim_reps[i];
	return NULL;
}

/*
 * One activation: the plan's run gets the scripted figure; it is compared
 * with the plan's baseline (pooled), judged with the hysteresis the plan
 * says; *regressed is its verdict. -1 on a failure of the machinery.
 */
static int sim_step(int64_t t, double iops, const char *fp, bool *regressed, size_t *npool)
{
	obs.now = t + 30;
	br_sched_plan_compute(&spec, NULL, &obs, &plan);
	if (!plan.create || obs.nruns >= SIM_RUNS)
		return -1;
	struct br_sched_run_obs *r = add_run(plan.create_time, BR_SRUN_SUCCEEDED);
	size_t me = obs.nruns - 1;
	obs.last_schedule = plan.last_schedule;
	sim_reps[me] = scripted_report(r->name, iops, fp);
	snprintf(r->since_run, sizeof(r->since_run), "%s", plan.since_run);
	r->since = plan.since;
	*npool = plan.npool;
	*regressed = false;
	if (!plan.npool)
		return 0;
	const json_t *pool[BR_SCHED_MAX_POOL];
	for (size_t i = 0; i < plan.npool; i++)
		pool[i] = sim_report_of(plan.pool[i]);
	json_t *base = NULL, *cmp = NULL, *v = NULL;
	int ret = sb_report_pool(pool, plan.npool, &base, err, sizeof(err));
	if (!ret)
		ret = sb_compare(base, sim_reps[me], &cmp, err, sizeof(err));
	struct sb_verdict_opts o = {spec.threshold_pct, SB_PADJ_HOLM, plan.since_run[0] != 0};
	if (!ret)
		ret = sb_verdict_ex(cmp, &o, &v, err, sizeof(err));
	*regressed = json_array_size(json_object_get(v, "regressions")) > 0;
	r->regressed = *regressed;
	json_decref(base);
	json_decref(cmp);
	json_decref(v);
	return ret ? -1 : 0;
}

static void sim_free(void)
{
	for (size_t i = 0; i < SIM_RUNS; i++) {
		json_decref(sim_reps[i]);
		sim_reps[i] = NULL;
	}
}

/* A class slowed by 30% for three runs stays Regressed for all three (its
 * baseline stays the five good runs before) and clears at the first run back. */
static int test_slowed_three_runs_then_back(void)
{
	CHECK_INT(setup("@hourly", "\"regressionThresholdPercent\": 10"), 0);
	obs.created = ts(2026, 12, 1, 0, 0, 0);
	const double iops[] = {1000, 1010, 995, 1005, 990, 700, 690, 705, 1000, 1002};
	const bool want[] = {false, false, false, false, false, true, true, true, false, false};
	for (int k = 0; k < 10; k++) {
		bool reg;
		size_t npool;
		CHECK_INT(sim_step(ts(2026, 12, 1, k + 1, 0, 0), iops[k], "f1", &reg, &npool), 0);
		if (reg != want[k])
			fprintf(stderr, "    run %d: regressed %d, expected %d\n", k + 1, reg,
				want[k]);
		CHECK(reg == want[k]);
		CHECK_INT(npool, k < 5 ? (size_t)k : 5);
		/* while regressed, the schedule says since the first slow run */
		if (k >= 6 && k <= 8) {
			CHECK_STR(plan.since_run, obs.runs[5].name);
			CHECK_INT(plan.since, ts(2026, 12, 1, 6, 0, 0));
			/* the slow runs are not in the baseline */
			for (size_t i = 0; i < plan.npool; i++)
				CHECK(strcmp(plan.pool[i], obs.runs[5].name) != 0);
		}
	}
	/* back: the next plan says nothing regressed */
	obs.now = ts(2026, 12, 1, 11, 0, 30);
	br_sched_plan_compute(&spec, NULL, &obs, &plan);
	CHECK_STR(plan.since_run, "");
	sim_free();
	return T_PASS;
}

/* 3% slower every run over 8 runs: no single run is 10% off its baseline of the
 * runs just before, but the history has a change point; and a changed workload
 * (another fingerprint) is not in the series. */
static int test_drift_is_a_change_point_in_history(void)
{
	CHECK_INT(setup("@hourly", NULL), 0);
	obs.created = ts(2026, 12, 1, 0, 0, 0);
	const json_t *reps[8];
	const char *names[8];
	for (int k = 0; k < 8; k++) {
		bool reg;
		size_t npool;
		CHECK_INT(sim_step(ts(2026, 12, 1, k + 1, 0, 0), 1000 * pow(0.97, k), "f1", &reg,
				   &npool),
			  0);
		reps[k] = sim_reps[k];
		names[k] = obs.runs[k].name;
	}
	json_t *cps = br_history_change_points(reps, names, 8);
	CHECK(cps);
	const json_t *c = json_array_get(cps, 0);
	char want[128];
	snprintf(want, sizeof(want), "changed at run %s by ", obs.runs[4].name);
	bool ok = json_array_size(cps) == 1 &&
		  !strcmp(json_string_value(json_object_get(c, "run")), obs.runs[4].name) &&
		  !strcmp(json_string_value(json_object_get(c, "metric")), "read-iops") &&
		  json_number_value(json_object_get(c, "confidence")) > 0.95 &&
		  json_number_value(json_object_get(c, "changePercent")) < -10 &&
		  !strncmp(json_string_value(json_object_get(c, "message")), want, strlen(want));
	if (!ok) {
		char *d = json_dumps(cps, 0);
		fprintf(stderr, "    %s (want run %s)\n", d, obs.runs[4].name);
		free(d);
	}
	json_decref(cps);
	CHECK(ok);
	/* the last run of another workload: a series of one run, nothing found */
	json_decref(sim_reps[7]);
	sim_reps[7] = scripted_report(names[7], 500, "f2");
	reps[7] = sim_reps[7];
	cps = br_history_change_points(reps, names, 8);
	CHECK(cps);
	size_t n = json_array_size(cps);
	json_decref(cps);
	CHECK_INT(n, 0);
	sim_free();
	return T_PASS;
}

/* A pinned run is the baseline, and is never deleted by the history limit. */
static int test_pinned_baseline(void)
{
	CHECK_INT(setup("@hourly", "\"successfulRunsHistoryLimit\": 2, \"baseline\": "
				   "{\"pinned\": \"nightly-29934780\"}"),
		  0);
	obs.created = ts(2026, 12, 1, 0, 0, 0);
	obs.last_schedule = ts(2026, 12, 1, 4, 0, 0);
	for (int h = 1; h <= 4; h++)
		add_run(ts(2026, 12, 1, h, 0, 0), BR_SRUN_SUCCEEDED);
	CHECK_STR(obs.runs[0].name, "nightly-29934780");
	obs.now = ts(2026, 12, 1, 5, 0, 30);
	br_sched_plan_compute(&spec, NULL, &obs, &plan);
	CHECK(plan.create);
	CHECK_STR(plan.baseline, "nightly-29934780");
	CHECK_INT(plan.npool, 1);
	CHECK_INT(plan.ndeletes, 1);
	CHECK(deletes(obs.runs[1].name));
	CHECK(!deletes(obs.runs[0].name));
	/* bad baseline fields are named */
	CHECK_INT(setup("@hourly", "\"baseline\": {\"runs\": 0}"), -EINVAL);
	CHECK_STR(err, "spec.baseline.runs: must be an integer from 1 to 20");
	CHECK_INT(setup("@hourly", "\"baseline\": {\"last\": 3}"), -EINVAL);
	CHECK_STR(err, "spec.baseline.last: unknown field (runs, pinned)");
	return T_PASS;
}

static int test_teardown(void)
{
	br_sched_spec_release(&spec);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"schedule/spec defaults and fields", test_spec_defaults},
	{"schedule/spec errors name the field", test_spec_errors},
	{"schedule/run names", test_run_names},
	{"schedule/first activation after creation", test_first_activation},
	{"schedule/a run already made is not made again", test_run_already_made},
	{"schedule/missed activations: one catch-up run", test_catch_up_once},
	{"schedule/Forbid waits for the active run", test_forbid},
	{"schedule/Replace deletes the active run", test_replace},
	{"schedule/suspend", test_suspend},
	{"schedule/history limits, oldest first", test_history_limits},
	{"schedule/time zone with DST", test_time_zone},
	{"schedule/every minute for ten minutes on a fake clock", test_simulated_every_minute},
	{"schedule/slowed for three runs, Regressed for three, clear at the first back",
	 test_slowed_three_runs_then_back},
	{"schedule/3% per run over 8 runs is a change point",
	 test_drift_is_a_change_point_in_history},
	{"schedule/pinned baseline", test_pinned_baseline},
	{"schedule/teardown", test_teardown},
};

TEST_MAIN(cases)
