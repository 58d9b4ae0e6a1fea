/* SPDX-License-Identifier: MIT */
/*
 * The reconcile of one BenchmarkSchedule: observe (the schedule and its runs
 * from the informer caches), plan (schedule.c, pure), apply (create and
 * delete runs, events), one status write. Schedules have a queue and a
 * worker of their own (BR_KIND_SCHEDULE, controller/core/controller.h).
 */
#include "controller/schedule/reconcile.h"
#include "controller/schedule/history.h"
#include "core/jsonobj.h"

#include "controller/core/controller.h"
#include "controller/core/proof.h"
#include "controller/core/status.h"
#include "controller/run/manifests.h"
#include "core/labels.h"
#include "time/rfc3339.h"
#include "core/log.h"
#include "core/names.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *br_sched_test_clock_file;

/* a cache older than the API server's schedule: look again this soon */
#define BR_SCHED_STALE_RETRY_MS 500

int64_t br_sched_now(void)
{
	if (br_sched_test_clock_file) {
		/* test-only: the time is what the file says, when it says something */
		FILE *f = fopen(br_sched_test_clock_file, "re");
		if (f) {
			char buf[32] = "";
			char *end = NULL;
			bool got = fgets(buf, sizeof(buf), f) != NULL;
			fclose(f);
			long long v = got ? strtoll(buf, &end, 10) : 0;
			if (got && end != buf && v > 0)
				return (int64_t)v;
		}
	}
	return (int64_t)time(NULL);
}

static void sched_event(struct br_controller *c, const char *ns, const char *name, const char *uid,
			bool warning, const char *reason, const char *msg)
{
	struct br_ref ref = {ns, name, uid};
	struct br_event e;
	memset(&e, 0, sizeof(e));
	e.warning = warning;
	snprintf(e.reason, sizeof(e.reason), "%s", reason);
	snprintf(e.message, sizeof(e.message), "%s", msg);
	pthread_mutex_lock(&c->mu);
	unsigned seq = c->event_seq++;
	pthread_mutex_unlock(&c->mu);
	json_t *ev = br_event_manifest(&ref, &e, c->ops.now(c->ops.arg), seq);
	json_t *io = json_object_get(ev, "involvedObject");
	if (io)
		json_object_set_new(io, "kind", json_string(SB_KIND_SCHEDULE));
	struct kube_error err = KUBE_ERROR_INIT;
	char eb[512];
	if (ev && c->ops.create(c->ops.arg, &br_res_events, ns, ev, &err) != 0) {
		br_metrics_api_error(c->metrics);
		sb_warn("Failed to record an event", "schedule=%s/%s reason=%s error=\"%s\"", ns,
			name, reason, kube_error_str(&err, eb, sizeof(eb)));
	}
	json_decref(ev);
	sb_log(warning ? SB_LOG_WARN : SB_LOG_INFO, msg, "schedule=%s/%s reason=%s", ns, name,
	       reason);
}

/* The baseline's runs (a pool of more than the spec.baseline run) and the
 * schedule's Regressed state, as the new run's annotations. 0 or -ENOMEM. */
static int add_baseline_annotations(json_t **ann, const struct br_sched_plan *p)
{
	char list[BR_SCHED_MAX_POOL * 64] = "", t[40];
	size_t n = 0;
	for (size_t i = 0; i < p->npool && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? "," : "", p->pool[i]);
	if (p->npool > 1 && json_object_set_new(*ann, SB_ANNOT_BASELINE_RUNS, json_string(list)))
		return -ENOMEM;
	if (p->since_run[0] &&
	    (json_object_set_new(*ann, SB_ANNOT_REGRESSED_SINCE_RUN, json_string(p->since_run)) ||
	     json_object_set_new(*ann, SB_ANNOT_REGRESSED_SINCE,
				 json_string(sb_rfc3339_format((time_t)p->since, t, sizeof(t))))))
		return -ENOMEM;
	return 0;
}

/* The run of an activation (new reference, NULL on ENOMEM). */
static json_t *run_manifest(const json_t *sched, const struct br_sched_spec *s,
			    const struct br_sched_plan *p)
{
	char when[40], thr[32];
	sb_rfc3339_format((time_t)p->create_time, when, sizeof(when));
	snprintf(thr, sizeof(thr), "%g", s->threshold_pct);
	json_t *labels = s->run_labels ? json_deep_copy(s->run_labels) : json_object();
	json_t *spec = json_deep_copy(s->run_spec);
	json_t *run = NULL, *ann = json_pack("{s:s,s:s}", SB_ANNOT_SCHEDULED_AT, when,
					     SB_ANNOT_REGRESSION_THRESHOLD, thr);
	if (!labels || !spec || !ann)
		goto out;
	if (json_object_set_new(labels, SB_LABEL_SCHEDULE, json_string(meta(sched, "name"))))
		goto out;
	if (p->baseline[0] && json_object_set_new(spec, "baseline", json_string(p->baseline)))
		goto out;
	if (add_baseline_annotations(&ann, p))
		goto out;
	run = json_pack("{s:s,s:s,s:{s:s,s:s,s:O,s:O,s:[{s:s,s:s,s:s,s:s,s:b,s:b}]},s:O}",
			"apiVersion", SB_API_VERSION, "kind", SB_KIND, "metadata", "name",
			p->create_name, "namespace", meta(sched, "namespace"), "labels", labels,
			"annotations", ann, "ownerReferences", "apiVersion", SB_API_VERSION, "kind",
			SB_KIND_SCHEDULE, "name", meta(sched, "name"), "uid", meta(sched, "uid"),
			"controller", 1, "blockOwnerDeletion", 1, "spec", spec);
out:
	json_decref(labels);
	json_decref(spec);
	json_decref(ann);
	return run;
}

/*
 * The schedule's status written (controller/core/status.h); one that
 * changed meanwhile (409) is looked at again soon: the watch brings the
 * newer one, in case it does not.
 */
static int sched_write(struct br_controller *c, const json_t *sched, const json_t *status,
		       long *requeue_ms)
{
	int r = br_status_write(c, &br_res_benchmarkschedules, sched, status);
	if (r != 1)
		return r;
	if (!*requeue_ms || *requeue_ms > BR_SCHED_STALE_RETRY_MS)
		*requeue_ms = BR_SCHED_STALE_RETRY_MS;
	return 0;
}

/* Whether a run's report has a comparison (so a Regressed condition is coming). */
static bool verdict_pending(struct br_controller *c, const char *ns, const json_t *run)
{
	char cmname[64];
	const char *name = meta(run, "name");
	if (!name || sb_name_report(cmname, sizeof(cmname), name))
		return false;
	json_t *cm = c->ops.cache_get(c->ops.arg, BR_CACHE_CMS, ns, cmname);
	bool pending = jstr(json_object_get(cm, "data"), BR_COMPARE_KEY) != NULL;
	json_decref(cm);
	return pending;
}

/*
 * A run of the schedule: owned by it and made by the controller (its proof,
 * controller/core/proof.h). A run author can label and own a run as the
 * schedule's, but not prove it: such a run never joins the history or the
 * baseline.
 */
static bool made_by(const json_t *run, const char *uid)
{
	return owned_by(run, uid) && br_proof_check(run, &br_res_benchmarkruns, NULL, 0) == 0;
}

static void observe_runs(struct br_controller *c, const char *ns, const char *name, const char *uid,
			 struct br_sched_obs *o, const json_t **newest_finished, json_t **runs_out)
{
	json_t *runs = c->ops.cache_list(c->ops.arg, BR_CACHE_RUNS, ns, NULL);
	size_t i;
	const json_t *r;
	int64_t newest = -1;
	*newest_finished = NULL;
	json_array_foreach(runs, i, r)
	{
		const json_t *md = json_object_get(r, "metadata");
		const char *rns = jstr(md, "namespace");
		const char *sl = jstr(json_object_get(md, "labels"), SB_LABEL_SCHEDULE);
		if (!rns || strcmp(rns, ns) || !sl || strcmp(sl, name) || !made_by(r, uid) ||
		    o->nruns >= BR_SCHED_MAX_RUNS)
			continue;
		struct br_sched_run_obs *ro = &o->runs[o->nruns++];
		memset(ro, 0, sizeof(*ro));
		snprintf(ro->name, sizeof(ro->name), "%s",
			 jstr(md, "name") ? jstr(md, "name") : "");
		const json_t *an = json_object_get(md, "annotations");
		ro->scheduled = (int64_t)br_time_parse(jstr(an, SB_ANNOT_SCHEDULED_AT));
		snprintf(ro->since_run, sizeof(ro->since_run), "%s",
			 jstr(an, SB_ANNOT_REGRESSED_SINCE_RUN)
				 ? jstr(an, SB_ANNOT_REGRESSED_SINCE_RUN)
				 : "");
		ro->since = (int64_t)br_time_parse(jstr(an, SB_ANNOT_REGRESSED_SINCE));
		const json_t *st = json_object_get(r, "status");
		const char *ph = jstr(st, "phase");
		ro->phase = ph && !strcmp(ph, "Succeeded") ? BR_SRUN_SUCCEEDED
			    : ph && !strcmp(ph, "Failed")  ? BR_SRUN_FAILED
							   : BR_SRUN_ACTIVE;
		ro->deleting = jstr(md, "deletionTimestamp") != NULL;
		const json_t *rc = br_condition_find(st, "Regressed");
		ro->regressed = rc && jstr(rc, "status") && !strcmp(jstr(rc, "status"), "True");
		/* succeeded with a comparison but not judged yet: its verdict decides
		 * whether it joins the baseline, so it counts as active until then */
		if (ro->phase == BR_SRUN_SUCCEEDED && !rc && verdict_pending(c, rns, r))
			ro->phase = BR_SRUN_ACTIVE;
		if (ro->phase != BR_SRUN_ACTIVE && !ro->deleting && ro->scheduled > newest) {
			newest = ro->scheduled;
			*newest_finished = r;
		}
	}
	*runs_out = runs; /* keeps *newest_finished alive */
}

/*
 * Whether the cached schedule is the schedule as the API server has it now
 * (its generation: the spec), read live before a run is made from it. A
 * cache that lags a template change would otherwise make the activation's
 * run from the old template: a test (or a user) that changes the template
 * and then reaches the next activation got a run of the old workload (two
 * runs at 1000 IOPS where the second should have been throttled to 100:
 * "no significant change", Regressed False). 1 current, 0 stale (the
 * watch brings the new one and the schedule is looked at again), -errno
 * when the read failed.
 */
static int sched_is_current(struct br_controller *c, const char *ns, const char *name,
			    const json_t *cached)
{
	json_t *live = NULL;
	struct kube_error ke = KUBE_ERROR_INIT;
	char eb[512];
	int r = c->ops.get(c->ops.arg, &br_res_benchmarkschedules, ns, name, &live, &ke);
	if (r) {
		if (r != -ENOENT)
			br_metrics_api_error(c->metrics);
		sb_warn("Failed to read the schedule", "schedule=%s/%s error=\"%s\"", ns, name,
			kube_error_str(&ke, eb, sizeof(eb)));
		return r == -ENOENT ? 0 : r;
	}
	json_int_t gc = json_integer_value(
		json_object_get(json_object_get(cached, "metadata"), "generation"));
	json_int_t gl = json_integer_value(
		json_object_get(json_object_get(live, "metadata"), "generation"));
	json_decref(live);
	if (gl != gc)
		sb_info("Waiting for the schedule's new spec in the cache before making a run",
			"schedule=%s/%s cached_generation=%" JSON_INTEGER_FORMAT
			" generation=%" JSON_INTEGER_FORMAT,
			ns, name, gc, gl);
	return gl == gc;
}

/*
 * The plan's deletions (the last failure into *del_err, else 0), then its
 * new run: returns 0, or the create's failure (the caller then leaves the
 * status as it is: retried with backoff).
 */
static int sched_apply(struct br_controller *c, const char *ns, const char *name,
		       const json_t *sched, const struct br_sched_spec *s,
		       const struct br_sched_plan *p, int *del_err)
{
	*del_err = 0;
	for (size_t i = 0; i < p->ndeletes; i++) {
		struct kube_error ke = KUBE_ERROR_INIT;
		char eb[512];
		int r = c->ops.del(c->ops.arg, &br_res_benchmarkruns, ns, p->deletes[i], &ke);
		if (r && r != -ENOENT) {
			br_metrics_api_error(c->metrics);
			sb_warn("Failed to delete a run", "schedule=%s/%s run=%s error=\"%s\"", ns,
				name, p->deletes[i], kube_error_str(&ke, eb, sizeof(eb)));
			*del_err = r;
		}
	}
	if (p->create) {
		json_t *run = run_manifest(sched, s, p);
		struct kube_error ke = KUBE_ERROR_INIT;
		char eb[512];
		int r = br_proof_create(&c->ops, &br_res_benchmarkruns, ns, run, &ke);
		json_decref(run);
		if (r && r != -EEXIST) {
			br_metrics_api_error(c->metrics);
			kube_error_str(&ke, eb, sizeof(eb));
			sb_warn("Failed to create a run", "schedule=%s/%s run=%s error=\"%s\"", ns,
				name, p->create_name, eb);
			return r;
		}
	}
	return 0;
}

struct hist_run {
	const json_t *run;
	int64_t at;
};

static int by_activation(const void *a, const void *b)
{
	const struct hist_run *x = a, *y = b;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* The report document of a run from the cache (new reference) or NULL. */
static json_t *cached_report(struct br_controller *c, const char *ns, const char *run)
{
	char cmname[64];
	if (sb_name_report(cmname, sizeof(cmname), run))
		return NULL;
	json_t *cm = c->ops.cache_get(c->ops.arg, BR_CACHE_CMS, ns, cmname);
	const char *text = jstr(json_object_get(cm, "data"), SB_REPORT_JSON_KEY);
	json_t *rep = text ? json_loads(text, 0, NULL) : NULL;
	json_decref(cm);
	return rep;
}

/*
 * status.changePoints: the change points of the schedule's kept successful
 * runs (history.h), computed again only when the newest successful run is
 * another than status.changePointsFrom says; a new one is a Warning event
 * ChangePoint. 0 or -ENOMEM.
 */
static int change_points(struct br_controller *c, const json_t *sched, const json_t *runs,
			 const struct br_sched_plan *p, json_t *status)
{
	const json_t *prev = json_object_get(sched, "status");
	const char *ns = meta(sched, "namespace"), *name = meta(sched, "name");
	const char *from = jstr(prev, "changePointsFrom");
	if (!p->last_successful[0])
		return 0;
	if (from && !strcmp(from, p->last_successful)) {
		const json_t *cp = json_object_get(prev, "changePoints");
		return json_object_set_new(status, "changePointsFrom", json_string(from)) ||
				       (cp && json_object_set(status, "changePoints", (json_t *)cp))
			       ? -ENOMEM
			       : 0;
	}
	size_t n = 0, i;
	const json_t *r;
	struct hist_run *h = calloc(json_array_size(runs) + 1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	json_array_foreach(runs, i, r)
	{
		const json_t *md = json_object_get(r, "metadata");
		const char *sl = jstr(json_object_get(md, "labels"), SB_LABEL_SCHEDULE);
		const char *ph = jstr(json_object_get(r, "status"), "phase");
		if (!sl || strcmp(sl, name) || !made_by(r, meta(sched, "uid")) || !ph ||
		    strcmp(ph, "Succeeded") || jstr(md, "deletionTimestamp"))
			continue;
		h[n].run = r;
		h[n++].at = (int64_t)br_time_parse(
			jstr(json_object_get(md, "annotations"), SB_ANNOT_SCHEDULED_AT));
	}
	qsort(h, n, sizeof(*h), by_activation);
	json_t **reps = calloc(n + 1, sizeof(*reps));
	const char **names = calloc(n + 1, sizeof(*names));
	json_t *cps = NULL;
	for (i = 0; reps && names && i < n; i++) {
		names[i] = meta(h[i].run, "name");
		reps[i] = cached_report(c, ns, names[i]);
	}
	if (reps && names)
		cps = br_history_change_points((const json_t *const *)reps, names, n);
	for (i = 0; reps && i < n; i++)
		json_decref(reps[i]);
	free(reps);
	free(names);
	free(h);
	if (!cps)
		return -ENOMEM;
	json_array_foreach(cps, i, r)
	{
		bool known = false;
		size_t k;
		const json_t *o;
		json_array_foreach(json_object_get(prev, "changePoints"), k, o)
		{
			known |= jstr(o, "message") &&
				 !strcmp(jstr(o, "message"), jstr(r, "message"));
		}
		char msg[400];
		snprintf(msg, sizeof(msg), "%s/%s %s %s", jstr(r, "class"), jstr(r, "workload"),
			 jstr(r, "metric"), jstr(r, "message"));
		if (!known)
			sched_event(c, ns, name, meta(sched, "uid"), true, "ChangePoint", msg);
	}
	if (json_object_set_new(status, "changePoints", cps) ||
	    json_object_set_new(status, "changePointsFrom", json_string(p->last_successful)))
		return -ENOMEM;
	return 0;
}

/*
 * The schedule's new status (a new reference; NULL on ENOMEM): active
 * runs, times, and Regressed from the newest finished run (said by an event
 * when it turns True with a new message).
 */
static json_t *sched_status(struct br_controller *c, const json_t *sched,
			    const struct br_sched_spec *s, const struct br_sched_plan *p,
			    const json_t *newest, time_t wall)
{
	const char *ns = meta(sched, "namespace"), *name = meta(sched, "name");
	const char *uid = meta(sched, "uid");
	const json_t *prev = json_object_get(sched, "status");
	json_int_t gen = json_integer_value(
		json_object_get(json_object_get(sched, "metadata"), "generation"));
	char t1[40], t2[40], t3[40];
	json_t *status = json_pack("{s:I}", "observedGeneration", gen);
	json_t *active = json_array();
	for (size_t i = 0; i < p->nactive; i++)
		json_array_append_new(active, json_string(p->active[i]));
	json_object_set_new(status, "active", active);
	if (p->last_schedule)
		json_object_set_new(
			status, "lastScheduleTime",
			json_string(sb_rfc3339_format((time_t)p->last_schedule, t1, sizeof(t1))));
	if (p->next_time && !s->suspend)
		json_object_set_new(
			status, "nextScheduleTime",
			json_string(sb_rfc3339_format((time_t)p->next_time, t2, sizeof(t2))));
	if (p->last_successful[0]) {
		json_object_set_new(status, "lastSuccessfulRun", json_string(p->last_successful));
		json_object_set_new(status, "lastSuccessfulTime",
				    json_string(sb_rfc3339_format((time_t)p->last_successful_time,
								  t3, sizeof(t3))));
	}
	json_t *pool = json_array();
	for (size_t i = 0; pool && i < p->npool; i++)
		json_array_append_new(pool, json_string(p->pool[i]));
	json_object_set_new(status, "baselineRuns", pool ? pool : json_array());
	if (p->since_run[0]) {
		char t4[40];
		json_object_set_new(status, "regressedSinceRun", json_string(p->since_run));
		json_object_set_new(
			status, "regressedSince",
			json_string(sb_rfc3339_format((time_t)p->since, t4, sizeof(t4))));
	}
	/* Regressed: the verdict of the newest finished run, with its list */
	const json_t *rc = br_condition_find(json_object_get(newest, "status"), "Regressed");
	if (rc && jstr(rc, "status")) {
		char msg[1024];
		snprintf(msg, sizeof(msg), "run %s: %s", meta(newest, "name"),
			 jstr(rc, "message") ? jstr(rc, "message") : "");
		struct br_condition cond = {"Regressed", jstr(rc, "status"),
					    jstr(rc, "reason") ? jstr(rc, "reason") : "Compared",
					    msg, gen};
		if (br_condition_set(status, prev, &cond, wall)) {
			json_decref(status);
			return NULL;
		}
		const json_t *pc = br_condition_find(prev, "Regressed");
		bool was = pc && jstr(pc, "message") && !strcmp(jstr(pc, "message"), msg);
		if (!was && !strcmp(jstr(rc, "status"), "True"))
			sched_event(c, ns, name, uid, true, "Regressed", msg);
	}
	return status;
}

int br_schedule_reconcile(struct br_controller *c, const char *ns, const char *name,
			  long *requeue_ms)
{
	*requeue_ms = 0;
	/* NULL also when no informer watches schedules in ns */
	json_t *sched = c->ops.cache_get(c->ops.arg, BR_CACHE_SCHEDULES, ns, name);
	if (!sched || meta(sched, "deletionTimestamp")) {
		json_decref(sched);
		return 0;
	}
	if (br_status_behind(c, sched)) {
		/* the cache has not seen this process's status write: the watch brings it */
		*requeue_ms = 1000;
		json_decref(sched);
		return 0;
	}
	const char *uid = meta(sched, "uid");
	json_int_t gen = json_integer_value(
		json_object_get(json_object_get(sched, "metadata"), "generation"));
	const json_t *prev = json_object_get(sched, "status");
	time_t wall = c->ops.now(c->ops.arg);
	struct br_sched_spec s;
	struct sb_tz *tz = NULL;
	char err[512] = "";
	json_t *runs = NULL, *status = NULL;
	/* large: not on a worker's stack */
	struct br_sched_obs *obsp = calloc(1, sizeof(*obsp));
	struct br_sched_plan *planp = calloc(1, sizeof(*planp));
	int ret = br_sched_spec_parse(json_object_get(sched, "spec"), NULL, &s, &tz, err,
				      sizeof(err));
	if (!obsp || !planp)
		ret = -ENOMEM;
	if (ret == -ENOMEM)
		goto out;
	if (ret) {
		const json_t *pc = br_condition_find(prev, "InvalidSpec");
		if (!pc || !jstr(pc, "message") || strcmp(jstr(pc, "message"), err))
			sched_event(c, ns, name, uid, true, "InvalidSpec", err);
		struct br_condition cond = {"InvalidSpec", "True", "InvalidSpec", err, gen};
		status = json_pack("{s:I}", "observedGeneration", gen);
		ret = !status || br_condition_set(status, prev, &cond, wall)
			      ? -ENOMEM
			      : sched_write(c, sched, status, requeue_ms);
		goto out;
	}

	struct br_sched_obs *o = obsp;
	struct br_sched_plan *p = planp;
	/* the e2e tests' clock file, when set, moves the schedule's time only */
	o->now = br_sched_test_clock_file ? br_sched_now() : (int64_t)wall;
	o->created = (int64_t)br_time_parse(meta(sched, "creationTimestamp"));
	o->last_schedule = (int64_t)br_time_parse(jstr(prev, "lastScheduleTime"));
	snprintf(o->name, sizeof(o->name), "%s", name);
	const json_t *newest = NULL;
	int del_err;
	observe_runs(c, ns, name, uid, o, &newest, &runs);
	br_sched_plan_compute(&s, tz, o, p);
	if (p->create) {
		ret = sched_is_current(c, ns, name, sched);
		if (ret <= 0) {
			if (!ret)
				*requeue_ms = BR_SCHED_STALE_RETRY_MS;
			goto out; /* nothing made, the status as it is */
		}
	}

	ret = sched_apply(c, ns, name, sched, &s, p, &del_err);
	if (ret)
		goto out; /* not scheduled: retried with backoff, status unchanged */
	ret = del_err;
	for (size_t i = 0; i < p->nevents; i++)
		sched_event(c, ns, name, uid, p->events[i].warning, p->events[i].reason,
			    p->events[i].message);

	status = sched_status(c, sched, &s, p, newest, wall);
	if (!status || change_points(c, sched, runs, p, status)) {
		ret = -ENOMEM;
		goto out;
	}
	if (p->requeue_s)
		*requeue_ms = p->requeue_s * 1000L;
	int wr = sched_write(c, sched, status, requeue_ms);
	if (!ret)
		ret = wr;
out:
	free(obsp);
	free(planp);
	json_decref(status);
	json_decref(runs);
	json_decref(sched);
	br_sched_spec_release(&s);
	sb_tz_free(tz);
	return ret;
}
