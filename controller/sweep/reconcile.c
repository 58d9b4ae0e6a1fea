/* SPDX-License-Identifier: MIT */
#include "controller/sweep/reconcile.h"

#include "controller/core/proof.h"
#include "controller/core/status.h"
#include "controller/sweep/sweep.h"
#include "core/jsonobj.h"
#include "core/labels.h"
#include "core/log.h"
#include "core/names.h"
#include "report/sweep.h"
#include "time/rfc3339.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define SWEEP_POLL_MS 5000
/* the watch brings a run changed meanwhile soon; in case it does not */
#define SWEEP_CONFLICT_MS 200

/* The status (new reference) of the sweep: phase, message, the Succeeded condition, progress. */
static json_t *sweep_status(const json_t *prev, const struct br_sweep_plan *p, size_t nsteps,
			    const char *report, json_int_t gen, time_t now)
{
	char ts[SB_RFC3339_LEN], prog[32];
	sb_rfc3339_format(now, ts, sizeof(ts));
	snprintf(prog, sizeof(prog), "%u/%zu", p->ended, nsteps);
	bool ended = p->phase == BR_RUN_SUCCEEDED || p->phase == BR_RUN_FAILED;
	struct br_condition cond = {"Succeeded",
				    p->phase == BR_RUN_SUCCEEDED ? "True"
				    : ended			 ? "False"
								 : "Unknown",
				    p->reason, p->message, gen};
	json_t *st = json_pack("{s:s,s:I,s:s,s:s,s:s}", "phase", br_run_phase_name(p->phase),
			       "observedGeneration", gen, "message", p->message, "progress", prog,
			       "startTime", jstr(prev, "startTime") ? jstr(prev, "startTime") : ts);
	if (st && ((ended && json_object_set_new(st, "completionTime",
						 json_string(jstr(prev, "completionTime")
								     ? jstr(prev, "completionTime")
								     : ts))) ||
		   (report && json_object_set_new(st, "report", json_string(report))) ||
		   br_condition_set(st, prev, &cond, now))) {
		json_decref(st);
		return NULL;
	}
	return st;
}

/*
 * The sweep's status written (controller/core/status.h); a run that
 * changed meanwhile (409) is looked at again soon.
 */
static int sweep_write(struct br_controller *c, const json_t *run, json_t *st, long *requeue_ms)
{
	int r = st ? br_status_write(c, &br_res_benchmarkruns, run, st) : -ENOMEM;
	json_decref(st);
	if (r != 1)
		return r;
	if (!*requeue_ms || *requeue_ms > SWEEP_CONFLICT_MS)
		*requeue_ms = SWEEP_CONFLICT_MS;
	return 0;
}

/* The run of one step (new reference), owned by the sweeping run. */
static json_t *step_manifest(const struct br_ref *ref, const json_t *run, const char *name,
			     unsigned pods)
{
	char label[64];
	if (sb_name_label(label, sizeof(label), ref->name))
		return NULL;
	json_t *spec = br_sweep_child_spec(json_object_get(run, "spec"), pods);
	if (!spec)
		return NULL;
	return json_pack("{s:s,s:s,s:{s:s,s:s,s:{s:s},s:[{s:s,s:s,s:s,s:s,s:b,s:b}]},s:o}",
			 "apiVersion", SB_API_VERSION, "kind", SB_KIND, "metadata", "name", name,
			 "namespace", ref->ns, "labels", SB_LABEL_RUN, label, "ownerReferences",
			 "apiVersion", SB_API_VERSION, "kind", SB_KIND, "name", ref->name, "uid",
			 ref->uid, "controller", 1, "blockOwnerDeletion", 1, "spec", spec);
}

/* The report of a step's run (new reference), NULL when there is none readable. */
static json_t *step_report(const struct br_ops *ops, const char *ns, const char *step)
{
	char name[64];
	if (sb_name_report(name, sizeof(name), step))
		return NULL;
	json_t *cm = ops->cache_get(ops->arg, BR_CACHE_CMS, ns, name);
	const char *text = jstr(json_object_get(cm, "data"), SB_REPORT_JSON_KEY);
	json_t *rep = text ? json_loads(text, 0, NULL) : NULL;
	json_decref(cm);
	return rep;
}

/* Builds and creates the sweeping run's report from its steps' reports. */
static int write_report(struct br_controller *c, const struct br_ref *ref,
			const struct br_sweep *sw, const enum br_step_state *st)
{
	json_t *reps[BR_SWEEP_MAX_STEPS] = {0};
	const json_t *cps[BR_SWEEP_MAX_STEPS] = {0};
	int ret = -ENODATA;
	size_t last = sw->n;
	for (size_t k = 0; k < sw->n; k++) {
		char step[64];
		if (st[k] != BR_STEP_SUCCEEDED ||
		    br_sweep_child_name(step, sizeof(step), ref->name, sw->pods[k]))
			continue;
		reps[k] = step_report(&c->ops, ref->ns, step);
		cps[k] = reps[k];
		if (reps[k])
			last = k;
	}
	if (last == sw->n)
		goto out; /* the steps' reports are not in the cache yet */
	ret = -ENOMEM;
	json_t *rep = json_deep_copy(reps[last]);
	json_t *sec = sb_sweep_section("pods", sw->pods, cps, sw->n);
	if (!rep || !sec || json_object_set_new(rep, "sweep", sec) ||
	    json_object_set_new(rep, "name", json_string(ref->name))) {
		json_decref(rep);
		goto out;
	}
	json_t *cm = br_report_cm_manifest(ref, rep);
	json_decref(rep);
	struct kube_error err = KUBE_ERROR_INIT;
	char why[1300];
	bool stale = false;
	if (cm && br_report_cm_fit(cm, BR_REPORT_CM_MAX_BYTES, why, sizeof(why)) == -E2BIG) {
		sb_warn("The sweep's report does not fit a ConfigMap", "run=%s/%s why=\"%s\"",
			ref->ns, ref->name, why);
		json_decref(cm);
		ret = 0; /* nothing to retry: the sweep ends without its report */
		goto out;
	}
	ret = br_create_owned(&c->ops, &kube_res_configmaps, ref->ns, ref->name, ref->uid, cm,
			      "report configmap", &stale, &err, why, sizeof(why));
	if (ret >= 0)
		ret = 0;
	else
		sb_warn("Failed to write the sweep report", "run=%s/%s error=\"%s\"", ref->ns,
			ref->name, why);
out:
	for (size_t k = 0; k < sw->n; k++)
		json_decref(reps[k]);
	return ret;
}

/* The state of each step from the runs in the cache. */
static void observe_steps(const struct br_ops *ops, const struct br_ref *ref,
			  const struct br_sweep *sw, enum br_step_state *st)
{
	for (size_t k = 0; k < sw->n; k++) {
		char step[64];
		st[k] = BR_STEP_ABSENT;
		if (br_sweep_child_name(step, sizeof(step), ref->name, sw->pods[k]))
			continue;
		json_t *run = ops->cache_get(ops->arg, BR_CACHE_RUNS, ref->ns, step);
		const char *ph = jstr(json_object_get(run, "status"), "phase");
		char why[300];
		if (run && br_proof_check(run, &br_res_benchmarkruns, why, sizeof(why))) {
			/* a run of the step's name the sweep did not make: never its step */
			sb_warn("A run of a sweep step's name is not the sweep's",
				"run=%s/%s step=%s why=\"%s\"", ref->ns, ref->name, step, why);
			st[k] = BR_STEP_FAILED;
		} else if (run)
			st[k] = !ph			   ? BR_STEP_ACTIVE
				: !strcmp(ph, "Succeeded") ? BR_STEP_SUCCEEDED
				: !strcmp(ph, "Failed")	   ? BR_STEP_FAILED
							   : BR_STEP_ACTIVE;
		json_decref(run);
	}
}

int br_sweep_reconcile(struct br_controller *c, const struct br_ref *ref, const json_t *run,
		       json_int_t gen, long *requeue_ms)
{
	struct br_sweep sw;
	struct br_sweep_plan p;
	enum br_step_state st[BR_SWEEP_MAX_STEPS];
	char err[1024], step[64], report[64];
	int r = br_sweep_parse(json_object_get(run, "spec"), c->opts.runner_image,
			       c->opts.runner_service_account, &sw, err, sizeof(err));
	if (!r)
		for (size_t k = 0; k < sw.n && !r; k++)
			if (br_sweep_child_name(step, sizeof(step), ref->name, sw.pods[k])) {
				snprintf(err, sizeof(err),
					 "metadata.name: '%s-p%u' (the run of sweep step %zu) is "
					 "longer than 63 characters",
					 ref->name, sw.pods[k], k + 1);
				r = -EINVAL;
			}
	if (r == -ENOMEM)
		return r;
	if (r) {
		memset(&p, 0, sizeof(p));
		p.phase = BR_RUN_FAILED;
		snprintf(p.reason, sizeof(p.reason), "InvalidSpec");
		snprintf(p.message, sizeof(p.message), "%s", err);
		return sweep_write(c, run,
				   sweep_status(json_object_get(run, "status"), &p, 0, NULL, gen,
						c->ops.now(c->ops.arg)),
				   requeue_ms);
	}
	observe_steps(&c->ops, ref, &sw, st);
	if (sb_name_report(report, sizeof(report), ref->name))
		return -EINVAL;
	json_t *rcm = c->ops.cache_get(c->ops.arg, BR_CACHE_CMS, ref->ns, report);
	bool report_exists = rcm != NULL;
	json_decref(rcm);
	br_sweep_plan_compute(&sw, st, report_exists, &p);
	if (p.create >= 0) {
		struct kube_error kerr = KUBE_ERROR_INIT;
		char eb[512];
		(void)br_sweep_child_name(step, sizeof(step), ref->name, sw.pods[p.create]);
		json_t *m = step_manifest(ref, run, step, sw.pods[p.create]);
		r = br_proof_create(&c->ops, &br_res_benchmarkruns, ref->ns, m, &kerr);
		json_decref(m);
		if (r && r != -EEXIST) {
			sb_warn("Failed to create a sweep step", "run=%s/%s step=%s error=\"%s\"",
				ref->ns, ref->name, step, kube_error_str(&kerr, eb, sizeof(eb)));
			return r;
		}
		sb_info("Started a sweep step", "run=%s/%s step=%s pods=%u", ref->ns, ref->name,
			step, sw.pods[p.create]);
	}
	if (p.write_report) {
		r = write_report(c, ref, &sw, st);
		if (r == -ENODATA) {
			/* a step's report is not in the cache yet: look again soon */
			*requeue_ms = 2000;
			return 0;
		}
		if (r)
			return r;
		report_exists = true;
	}
	if (p.phase == BR_RUN_RUNNING)
		*requeue_ms = SWEEP_POLL_MS;
	return sweep_write(c, run,
			   sweep_status(json_object_get(run, "status"), &p, sw.n,
					report_exists ? report : NULL, gen, c->ops.now(c->ops.arg)),
			   requeue_ms);
}
