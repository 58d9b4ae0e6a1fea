/* SPDX-License-Identifier: MIT */
/*
 * BenchmarkSchedule: a cron schedule of BenchmarkRuns, as a CronJob is of
 * Jobs. This file holds the schedule's spec parser and its decisions as a
 * pure function (no I/O, the time is an input), like plan.c for runs: from
 * what was observed of a schedule (its spec, creation time, previous
 * status, the runs it owns, now) to what to do (create a run, delete runs)
 * and the status to write. Unit-tested with driven time
 * (tests/unit/controller/test_controller_schedule.c); see docs/schedules.md.
 *
 * CronJob's semantics:
 * - the activations are those of spec.schedule in spec.timeZone
 *   (lib/time/cron.h: DST gaps skipped, overlaps run twice);
 * - missed activations (the controller was down, or the schedule was
 *   suspended and resumed): at most one catch-up run, for the most recent
 *   one; the others are only counted (event MissedSchedules);
 * - concurrencyPolicy Forbid: while a run of the schedule is active, no new
 *   run; status.lastScheduleTime is not advanced, so the most recent missed
 *   activation runs when the active run ends (late, as CronJob's);
 *   Replace: the active runs are deleted and the new one created;
 * - a run's name is "<schedule>-<activation in minutes since the epoch>",
 *   so a repeated create answers AlreadyExists and a run is never made twice
 *   for one activation, whatever restarted;
 * - finished runs beyond successfulRunsHistoryLimit / failedRunsHistoryLimit
 *   are deleted, oldest first.
 * And ours: each new run is compared with the schedule's baseline: the
 * newest baseline.runs (default 5) successful runs that did not regress,
 * their iterations pooled (annotation storagebench.io/baseline-runs;
 * spec.baseline is the newest of them), or the pinned run. A regressed run
 * never enters the baseline, so a class that stays slow stays Regressed
 * (the baseline does not drift); while the newest successful run regressed,
 * new runs carry storagebench.io/regressed-since(-run): their verdict holds
 * until a run is back within the threshold (controller/run/regression.h).
 */
#ifndef SB_CONTROLLER_SCHEDULE_SCHEDULE_H
#define SB_CONTROLLER_SCHEDULE_SCHEDULE_H

#include "time/cron.h"
#include "time/tz.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BR_SCHED_MAX_RUNS    128
#define BR_SCHED_MAX_HISTORY 100
/* longest schedule name: "<name>-<8+ digits>" stays a 63-character label value */
#define BR_SCHED_NAME_MAX 52
/* most runs a baseline pools */
#define BR_SCHED_MAX_POOL 20

enum br_sched_concurrency { BR_CONC_FORBID = 0, BR_CONC_REPLACE };

struct br_sched_spec {
	char schedule[256];
	struct sb_cron cron;
	char time_zone[256]; /* "" = UTC */
	enum br_sched_concurrency concurrency;
	bool suspend;
	unsigned keep_succeeded; /* successfulRunsHistoryLimit, default 3 */
	unsigned keep_failed;	 /* failedRunsHistoryLimit, default 1 */
	double threshold_pct;	 /* regressionThresholdPercent, default 10 */
	unsigned baseline_runs;	 /* baseline.runs: successful runs pooled, default 5 */
	char pinned[64];	 /* baseline.pinned: "" none */
	json_t *run_spec;	 /* runTemplate.spec, a new reference (owned) */
	json_t *run_labels;	 /* runTemplate.metadata.labels or NULL (owned) */
};

/*
 * Parses and validates spec (borrowed). The run template is checked with
 * the BenchmarkRun parser (controller/run/spec.c); its errors are prefixed
 * "spec.runTemplate.". The time zone is checked by loading it from
 * zoneinfo_dir (NULL: the default); on success *tz (when tz is not NULL)
 * is the loaded zone, the caller frees it with sb_tz_free. Returns 0, or
 * -EINVAL / -ENOENT with err naming the field ("spec.schedule: minute: '61'
 * is above the maximum 59"), -ENOMEM. Release s with br_sched_spec_release
 * either way.
 */
int br_sched_spec_parse(const json_t *spec, const char *zoneinfo_dir, struct br_sched_spec *s,
			struct sb_tz **tz, char *err, size_t errlen);
void br_sched_spec_release(struct br_sched_spec *s);

enum br_sched_run_phase {
	BR_SRUN_ACTIVE = 0, /* Pending or Running, or no status yet */
	BR_SRUN_SUCCEEDED,
	BR_SRUN_FAILED,
};

/* One run owned by the schedule (label storagebench.io/schedule). */
struct br_sched_run_obs {
	char name[64];
	int64_t scheduled; /* annotation storagebench.io/scheduled-at (UTC seconds) */
	enum br_sched_run_phase phase;
	bool deleting;	/* metadata.deletionTimestamp is set */
	bool regressed; /* condition Regressed=True */
	/* annotations storagebench.io/regressed-since(-run): made while the schedule was Regressed */
	char since_run[64];
	int64_t since;
};

struct br_sched_obs {
	int64_t now;	       /* the controller's clock (injectable) */
	int64_t created;       /* the schedule's metadata.creationTimestamp */
	int64_t last_schedule; /* status.lastScheduleTime, 0: never */
	char name[64];	       /* the schedule's name */
	struct br_sched_run_obs runs[BR_SCHED_MAX_RUNS];
	size_t nruns;
};

#define BR_SCHED_MAX_DELETES (BR_SCHED_MAX_RUNS)
#define BR_SCHED_MAX_EVENTS  4

struct br_sched_event {
	bool warning;
	char reason[48];
	char message[256];
};

struct br_sched_plan {
	/* create the run `create_name` for activation `create_time`, baseline
	 * `baseline` ("" when the schedule has no successful run yet) */
	bool create;
	char create_name[64];
	int64_t create_time;
	char baseline[64];
	/* delete these runs (Replace, then history limits) */
	char deletes[BR_SCHED_MAX_DELETES][64];
	size_t ndeletes;
	/* status */
	int64_t last_schedule; /* 0: never */
	char active[8][64];    /* active runs after this plan (at most 8 listed) */
	size_t nactive;
	char last_successful[64];     /* "" when none */
	int64_t last_successful_time; /* its activation */
	int64_t next_time;	      /* the next activation after now; 0 when none */
	unsigned missed;	      /* activations missed besides the one run */
	struct br_sched_event events[BR_SCHED_MAX_EVENTS];
	size_t nevents;
	long requeue_s; /* look again after this many seconds (the next activation); 0: no need */
	/* the baseline the next run is compared with: the pinned run, or the
	 * newest baseline_runs successful runs that did not regress (newest first) */
	char pool[BR_SCHED_MAX_POOL][64];
	size_t npool;
	/* Regressed since (the newest successful run regressed): its first run, activation */
	char since_run[64];
	int64_t since;
};

/*
 * The run name of an activation: "<schedule>-<minutes since the epoch>".
 * Returns 0, or -EINVAL (len too small).
 */
int br_sched_run_name(char *out, size_t len, const char *schedule, int64_t activation);

/* Computes the plan. Pure: depends only on its inputs (tz NULL: UTC). */
void br_sched_plan_compute(const struct br_sched_spec *spec, const struct sb_tz *tz,
			   const struct br_sched_obs *obs, struct br_sched_plan *plan);

#endif
