/* SPDX-License-Identifier: MIT */
/* BenchmarkSchedule: spec parser and the pure decision function. See schedule.h. */
#include "controller/schedule/schedule.h"
#include "controller/core/field.h"
#include "core/errfmt.h"

#include "controller/run/spec.h"
#include "core/names.h"
#include "time/rfc3339.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* more missed activations than this are not counted one by one */
#define MISSED_COUNT_MAX 1000

void br_sched_spec_release(struct br_sched_spec *s)
{
	json_decref(s->run_spec);
	json_decref(s->run_labels);
	memset(s, 0, sizeof(*s));
}

static int parse_baseline(const json_t *b, struct br_sched_spec *s, char *err, size_t errlen)
{
	if (!b)
		return 0;
	static const char *const known[] = {"runs", "pinned"};
	if (!json_is_object(b))
		return sb_errf(err, errlen, -EINVAL, "spec.baseline: must be an object");
	int r = br_field_uint(b, "runs", "spec.baseline", 1, BR_SCHED_MAX_POOL, &s->baseline_runs,
			      err, errlen);
	const json_t *p = json_object_get(b, "pinned");
	if (!r && p &&
	    (!json_is_string(p) || json_string_length(p) >= sizeof(s->pinned) ||
	     !json_string_length(p)))
		return sb_errf(err, errlen, -EINVAL,
			       "spec.baseline.pinned: must be a run name (1 to 63 characters)");
	if (!r && p)
		snprintf(s->pinned, sizeof(s->pinned), "%s", json_string_value(p));
	return r ? r : br_field_known(b, "spec.baseline", known, 2, err, errlen);
}

static int parse_template(const json_t *tmpl, struct br_sched_spec *s, char *err, size_t errlen)
{
	if (!tmpl)
		return sb_errf(
			err, errlen, -EINVAL,
			"spec.runTemplate: required (the BenchmarkRun each activation creates)");
	if (!json_is_object(tmpl))
		return sb_errf(err, errlen, -EINVAL, "spec.runTemplate: must be an object");
	const json_t *meta = NULL, *labels = NULL;
	int r;
	if ((r = br_field_object(tmpl, "metadata", "spec.runTemplate", &meta, err, errlen)) ||
	    (r = br_field_object(meta, "labels", "spec.runTemplate.metadata", &labels, err,
				 errlen)))
		return r;
	if (labels) {
		const char *k;
		const json_t *v;
		json_object_foreach((json_t *)labels, k, v)
		{
			if (!json_is_string(v))
				return sb_errf(
					err, errlen, -EINVAL,
					"spec.runTemplate.metadata.labels.%s: must be a string", k);
		}
		s->run_labels = json_deep_copy(labels);
		if (!s->run_labels)
			return -ENOMEM;
	}
	const json_t *rs = json_object_get(tmpl, "spec");
	if (!rs)
		return sb_errf(err, errlen, -EINVAL, "spec.runTemplate.spec: required");
	if (!json_is_object(rs))
		return sb_errf(err, errlen, -EINVAL, "spec.runTemplate.spec: must be an object");
	if (json_object_get(rs, "baseline"))
		return sb_errf(err, errlen, -EINVAL,
			       "spec.runTemplate.spec.baseline: set by the schedule (the previous "
			       "successful run); remove it from the template");
	/* the run parser's own checks, with its messages under runTemplate */
	struct br_spec run;
	memset(&run, 0, sizeof(run));
	char rerr[512] = "";
	r = br_spec_parse(rs, "schedule-validation", NULL, &run, rerr, sizeof(rerr));
	br_spec_release(&run);
	if (r == -ENOMEM)
		return r;
	if (r) {
		const char *m = strncmp(rerr, "spec.", 5) == 0 ? rerr + 5 : rerr;
		return sb_errf(err, errlen, -EINVAL, "spec.runTemplate.spec.%s", m);
	}
	s->run_spec = json_deep_copy(rs);
	return s->run_spec ? 0 : -ENOMEM;
}

int br_sched_spec_parse(const json_t *spec, const char *zoneinfo_dir, struct br_sched_spec *s,
			struct sb_tz **tz, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	if (tz)
		*tz = NULL;
	s->keep_failed = 1;
	s->threshold_pct = 10;
	s->baseline_runs = 5;
	s->keep_succeeded = 10;
	if (!json_is_object(spec))
		return sb_errf(err, errlen, -EINVAL, "spec: must be an object");

	const json_t *v = json_object_get(spec, "schedule");
	if (!v)
		return sb_errf(err, errlen, -EINVAL,
			       "spec.schedule: required (a cron expression, e.g. \"0 3 * * *\")");
	int r = br_field_string(spec, "schedule", "spec", s->schedule, sizeof(s->schedule), err,
				errlen);
	if (r)
		return r;
	char cerr[256];
	if (sb_cron_parse(s->schedule, &s->cron, cerr, sizeof(cerr)))
		return sb_errf(err, errlen, -EINVAL, "spec.schedule: %s", cerr);

	r = br_field_string(spec, "timeZone", "spec", s->time_zone, sizeof(s->time_zone), err,
			    errlen);
	if (r)
		return r;
	struct sb_tz *zone = NULL;
	char zerr[512];
	r = sb_tz_load(s->time_zone, zoneinfo_dir, &zone, zerr, sizeof(zerr));
	if (r)
		return sb_errf(err, errlen, r, "spec.timeZone: %s", zerr);
	if (tz)
		*tz = zone;
	else
		sb_tz_free(zone);

	char conc[16] = "";
	r = br_field_string(spec, "concurrencyPolicy", "spec", conc, sizeof(conc), err, errlen);
	if (!r && !strcmp(conc, "Forbid"))
		s->concurrency = BR_CONC_FORBID;
	else if (!r && !strcmp(conc, "Replace"))
		s->concurrency = BR_CONC_REPLACE;
	else if (!r && conc[0])
		r = sb_errf(err, errlen, -EINVAL,
			    "spec.concurrencyPolicy: '%s' is not Forbid or Replace (two runs "
			    "of one schedule at once would measure each other)",
			    conc);
	if (!r)
		r = br_field_bool(spec, "suspend", "spec", &s->suspend, err, errlen);
	/* at least one successful run is kept: it is the next run's baseline */
	if (!r)
		r = br_field_uint(spec, "successfulRunsHistoryLimit", "spec", 1,
				  BR_SCHED_MAX_HISTORY, &s->keep_succeeded, err, errlen);
	if (!r)
		r = br_field_uint(spec, "failedRunsHistoryLimit", "spec", 0, BR_SCHED_MAX_HISTORY,
				  &s->keep_failed, err, errlen);
	if (!r)
		r = br_field_number(spec, "regressionThresholdPercent", "spec", 0, 1000,
				    &s->threshold_pct, err, errlen);
	if (!r)
		r = parse_baseline(json_object_get(spec, "baseline"), s, err, errlen);
	if (!r)
		r = parse_template(json_object_get(spec, "runTemplate"), s, err, errlen);
	if (r && tz) {
		sb_tz_free(*tz);
		*tz = NULL;
	}
	return r;
}

int br_sched_run_name(char *out, size_t len, const char *schedule, int64_t activation)
{
	char minutes[24];
	snprintf(minutes, sizeof(minutes), "%" PRId64, activation / 60);
	const char *parts[] = {schedule, minutes};
	return sb_name_join(out, len, 63, parts, 2);
}

static void add_event(struct br_sched_plan *p, bool warning, const char *reason, const char *fmt,
		      ...) __attribute__((format(printf, 4, 5)));
static void add_event(struct br_sched_plan *p, bool warning, const char *reason, const char *fmt,
		      ...)
{
	if (p->nevents >= BR_SCHED_MAX_EVENTS)
		return;
	struct br_sched_event *e = &p->events[p->nevents++];
	e->warning = warning;
	snprintf(e->reason, sizeof(e->reason), "%s", reason);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof(e->message), fmt, ap);
	va_end(ap);
}

/*
 * The most recent activation in (from, now], 0 when none; *missed: how
 * many earlier ones in that interval (MISSED_COUNT_MAX: at least that).
 */
static int64_t most_recent(const struct sb_cron *c, const struct sb_tz *tz, int64_t from,
			   int64_t now, unsigned *missed)
{
	int64_t t = from, last = 0, nx;
	unsigned n = 0;
	*missed = 0;
	while (n <= MISSED_COUNT_MAX && sb_cron_next(c, tz, t, &nx) == 0 && nx <= now) {
		last = nx;
		n++;
		t = nx;
	}
	if (n <= MISSED_COUNT_MAX) {
		*missed = n ? n - 1 : 0;
		return last;
	}
	/* down for long: look back from now in growing windows instead */
	*missed = MISSED_COUNT_MAX;
	for (int64_t w = 3600;; w *= 2) {
		int64_t s = now - w < from ? from : now - w;
		for (t = s, last = 0; sb_cron_next(c, tz, t, &nx) == 0 && nx <= now; t = nx)
			last = nx;
		if (last || s == from)
			return last;
	}
}

/* indices of the runs in phase ph (not being deleted), newest activation first */
static size_t runs_by_age(const struct br_sched_obs *o, enum br_sched_run_phase ph, size_t *idx)
{
	size_t n = 0;
	for (size_t i = 0; i < o->nruns; i++) {
		if (o->runs[i].phase != ph || o->runs[i].deleting)
			continue;
		size_t j = n++;
		/* insertion: newest first, ties by name for a stable order */
		while (j > 0) {
			const struct br_sched_run_obs *a = &o->runs[idx[j - 1]], *b = &o->runs[i];
			if (a->scheduled > b->scheduled ||
			    (a->scheduled == b->scheduled && strcmp(a->name, b->name) < 0))
				break;
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
	return n;
}

static void add_delete(struct br_sched_plan *p, const char *name)
{
	for (size_t i = 0; i < p->ndeletes; i++)
		if (!strcmp(p->deletes[i], name))
			return;
	if (p->ndeletes < BR_SCHED_MAX_DELETES)
		snprintf(p->deletes[p->ndeletes++], sizeof(p->deletes[0]), "%s", name);
}

static bool in_pool(const struct br_sched_plan *p, const char *name)
{
	for (size_t i = 0; i < p->npool; i++)
		if (!strcmp(p->pool[i], name))
			return true;
	return false;
}

/*
 * The baseline of the next run (the pinned run, or the newest baseline_runs
 * successful runs that did not regress) and whether the schedule is
 * Regressed since a run (its newest successful run regressed).
 */
static void baseline_and_state(const struct br_sched_spec *spec, const struct br_sched_obs *obs,
			       const size_t *ok, size_t nok, struct br_sched_plan *plan)
{
	if (spec->pinned[0]) {
		snprintf(plan->pool[plan->npool++], sizeof(plan->pool[0]), "%s", spec->pinned);
	} else {
		/* at most as many as are kept: those regressed in between are not in it, and
		 * the ones in it are not deleted (a class slow for long keeps its baseline) */
		size_t most = spec->baseline_runs < spec->keep_succeeded ? spec->baseline_runs
									 : spec->keep_succeeded;
		for (size_t i = 0; i < nok && plan->npool < most && plan->npool < BR_SCHED_MAX_POOL;
		     i++)
			if (!obs->runs[ok[i]].regressed)
				snprintf(plan->pool[plan->npool++], sizeof(plan->pool[0]), "%s",
					 obs->runs[ok[i]].name);
	}
	if (nok && obs->runs[ok[0]].regressed) {
		const struct br_sched_run_obs *r = &obs->runs[ok[0]];
		snprintf(plan->since_run, sizeof(plan->since_run), "%s",
			 r->since_run[0] ? r->since_run : r->name);
		plan->since = r->since_run[0] && r->since ? r->since : r->scheduled;
	}
}

void br_sched_plan_compute(const struct br_sched_spec *spec, const struct sb_tz *tz,
			   const struct br_sched_obs *obs, struct br_sched_plan *plan)
{
	memset(plan, 0, sizeof(*plan));
	plan->last_schedule = obs->last_schedule;
	size_t ok[BR_SCHED_MAX_RUNS], bad[BR_SCHED_MAX_RUNS], act[BR_SCHED_MAX_RUNS];
	size_t nok = runs_by_age(obs, BR_SRUN_SUCCEEDED, ok);
	size_t nbad = runs_by_age(obs, BR_SRUN_FAILED, bad);
	size_t nact = runs_by_age(obs, BR_SRUN_ACTIVE, act);
	if (nok) {
		snprintf(plan->last_successful, sizeof(plan->last_successful), "%s",
			 obs->runs[ok[0]].name);
		plan->last_successful_time = obs->runs[ok[0]].scheduled;
	}
	baseline_and_state(spec, obs, ok, nok, plan);

	int64_t earliest = obs->last_schedule ? obs->last_schedule : obs->created;
	unsigned missed = 0;
	int64_t due =
		earliest < obs->now ? most_recent(&spec->cron, tz, earliest, obs->now, &missed) : 0;
	bool replaced = false;
	if (due && !spec->suspend) {
		char name[64], when[32];
		sb_rfc3339_format((time_t)due, when, sizeof(when));
		bool exists = false;
		if (br_sched_run_name(name, sizeof(name), obs->name, due) == 0) {
			for (size_t i = 0; i < obs->nruns; i++)
				exists |= !strcmp(obs->runs[i].name, name);
		} else {
			name[0] = '\0';
		}
		if (exists || !name[0]) {
			/* made before (the status write was lost): only the status moves */
			plan->last_schedule = due;
		} else if (nact && spec->concurrency == BR_CONC_FORBID) {
			add_event(plan, false, "RunAlreadyActive",
				  "not starting the run of %s: run %s is still active "
				  "(concurrencyPolicy Forbid); it starts when that run ends",
				  when, obs->runs[act[0]].name);
		} else {
			for (size_t i = 0; i < nact; i++)
				add_delete(plan, obs->runs[act[i]].name);
			if (nact) {
				replaced = true;
				add_event(plan, false, "RunReplaced",
					  "deleted %zu active run%s for the run of %s "
					  "(concurrencyPolicy Replace)",
					  nact, nact == 1 ? "" : "s", when);
			}
			plan->create = true;
			snprintf(plan->create_name, sizeof(plan->create_name), "%s", name);
			plan->create_time = due;
			snprintf(plan->baseline, sizeof(plan->baseline), "%s",
				 plan->npool ? plan->pool[0] : "");
			plan->last_schedule = due;
			plan->missed = missed;
			if (plan->baseline[0])
				add_event(plan, false, "RunCreated",
					  "created run %s for %s (baseline %s)", name, when,
					  plan->baseline);
			else
				add_event(plan, false, "RunCreated",
					  "created run %s for %s (no baseline: the schedule has no "
					  "successful run yet)",
					  name, when);
			if (missed)
				add_event(plan, true, "MissedSchedules",
					  "%s%u earlier activation%s missed; only the most recent "
					  "one (%s) runs",
					  missed >= MISSED_COUNT_MAX ? "at least " : "", missed,
					  missed == 1 ? " was" : "s were", when);
		}
	}

	/* history: the newest N of each kind stay */
	for (size_t i = spec->keep_succeeded; i < nok; i++)
		if (!in_pool(plan, obs->runs[ok[i]].name))
			add_delete(plan, obs->runs[ok[i]].name);
	for (size_t i = spec->keep_failed; i < nbad; i++)
		add_delete(plan, obs->runs[bad[i]].name);

	/* status.active: the active runs left, newest first, and the new one */
	if (plan->create)
		snprintf(plan->active[plan->nactive++], sizeof(plan->active[0]), "%s",
			 plan->create_name);
	for (size_t i = 0; i < nact && !replaced && plan->nactive < 8; i++)
		snprintf(plan->active[plan->nactive++], sizeof(plan->active[0]), "%s",
			 obs->runs[act[i]].name);

	int64_t nx;
	if (sb_cron_next(&spec->cron, tz, obs->now, &nx) == 0) {
		plan->next_time = nx;
		if (!spec->suspend)
			plan->requeue_s = (long)(nx - obs->now > 0 ? nx - obs->now : 1);
	}
}
