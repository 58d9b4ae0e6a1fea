/* SPDX-License-Identifier: MIT */
/*
 * The report step of a pass (controller/run/pass.h): once every class has
 * ended, the run's results fetched and checked, aggregated into the report
 * with its validity warnings, lifecycle timings and provenance, compared
 * with the baseline, and written once as the report ConfigMap; a report
 * already written is read back, not built again.
 */
#include "controller/run/pass.h"

#include "controller/core/resultcache.h"
#include "controller/distrib/distrib.h"
#include "controller/lifecycle/lifecycle.h"
#include "controller/run/regression.h"
#include "controller/run/runkey.h"
#include "core/jsonobj.h"
#include "core/labels.h"
#include "core/log.h"
#include "core/names.h"
#include "fiojob/jobfile.h"
#include "report/compare.h"
#include "report/validity.h"
#include "result/owner.h"
#include "result/resultdoc.h"
#include "stats/aggregate.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The validity checker with the run's thresholds (spec.validity); NULL on ENOMEM. */
static struct sb_validity *validity_new(const struct br_spec *s)
{
	struct sb_validity_opts o = SB_VALIDITY_OPTS_INIT;
	if (s->validity_cv > 0)
		o.cv_max = s->validity_cv;
	if (s->validity_factor > 0)
		o.max_factor = s->validity_factor;
	o.baseline = s->validity_baseline[0] ? s->validity_baseline : NULL;
	return sb_validity_new(&o);
}

struct report_warn {
	struct br_controller *c;
	const struct br_ref *ref;
};

static void report_warn(void *ctx, const char *msg)
{
	const struct report_warn *rw = ctx;
	br_pass_emitf(rw->c, rw->ref, true, "InvalidResult", "%s", msg);
}

/*
 * The run's result ConfigMaps with their data, for the report: one LIST
 * (the cache keeps only their verdicts, controller/core/resultcache.h), each
 * counted one checked against its verdict's digest (a changed one is named
 * and left out). 0 with *out a new array, -EAGAIN (the LIST failed: the
 * pass is retried), -ENOMEM.
 */
static int fetch_results(struct br_controller *c, const struct br_ref *ref, const char *run_label,
			 const json_t *cached, json_t **out)
{
	char sel[200], eb[256];
	struct kube_error err;
	json_t *list = NULL;
	*out = NULL;
	memset(&err, 0, sizeof(err));
	if (br_result_selector(run_label, sel, sizeof(sel)))
		return -ENOMEM; /* a label is at most 63 characters: cannot happen */
	int r = c->ops.list_labeled(c->ops.arg, &kube_res_configmaps, ref->ns, sel, &list, &err);
	if (r) {
		br_metrics_api_error(c->metrics);
		kube_error_str(&err, eb, sizeof(eb));
		sb_warn("Failed to read the run's results", "ns=%s run=%s error=\"%s\"", ref->ns,
			ref->name, eb);
		return r == -ENOMEM ? -ENOMEM : -EAGAIN;
	}
	struct report_warn rw = {c, ref};
	*out = br_result_fetched(json_object_get(list, "items"), cached, report_warn, &rw);
	json_decref(list);
	return *out ? 0 : -ENOMEM;
}

/*
 * Aggregates every result of the run into a report document (new
 * reference), from their data fetched now (fetch_results). Malformed
 * results are reported by an event and skipped; the others are kept.
 * -EAGAIN when the results could not be read.
 */
static int build_report(struct br_controller *c, const struct br_ref *ref, const struct br_spec *s,
			const struct br_observed *ob, json_t **report, char *rerr, size_t rerrlen)
{
	struct sb_agg *agg = sb_agg_new();
	struct sb_validity *val = validity_new(s);
	char run_label[64];
	unsigned char key[SB_SIGN_KEY_BYTES];
	json_t *results = NULL;
	*report = NULL;
	int fr = -ENOMEM;
	if (!agg || !val || br_runkey_derive(ref->uid, key) ||
	    sb_name_label(run_label, sizeof(run_label), ref->name) ||
	    (fr = fetch_results(c, ref, run_label, ob->cmlist, &results))) {
		sb_agg_free(agg);
		sb_validity_free(val);
		return fr == -EAGAIN ? -EAGAIN : -ENOMEM;
	}
	for (size_t i = 0; i < s->nclasses; i++) {
		char cls_label[64];
		if (s->pods > 1 || sb_name_label(cls_label, sizeof(cls_label), s->classes[i]))
			continue; /* distributed classes: br_dist_report below */
		for (unsigned it = 1; it <= s->iterations; it++) {
			size_t k;
			const json_t *cm;
			json_array_foreach(results, k, cm)
			{
				const char *comp = label(cm, SB_LABEL_COMPONENT);
				const char *lit = label(cm, SB_LABEL_ITERATION);
				char itb[16];
				snprintf(itb, sizeof(itb), "%u", it);
				if (!comp || strcmp(comp, SB_COMPONENT_RESULT) || !lit ||
				    strcmp(lit, itb) || !label(cm, SB_LABEL_RUN) ||
				    strcmp(label(cm, SB_LABEL_RUN), run_label) ||
				    !label(cm, SB_LABEL_CLASS) ||
				    strcmp(label(cm, SB_LABEL_CLASS), cls_label) ||
				    strcmp(meta(cm, "namespace"), ref->ns))
					continue;
				struct sb_result_want want = {ref->ns,	     ref->name, ref->uid,
							      s->classes[i], it,	key};
				json_t *doc = NULL;
				char err[512] = "";
				int vr = sb_result_check(cm, &want, &doc, err, sizeof(err));
				if (vr == -ENOMEM) {
					sb_agg_free(agg);
					sb_validity_free(val);
					json_decref(results);
					return -ENOMEM;
				}
				if (vr) {
					/* named, and the next one of this iteration is looked at */
					br_pass_emitf(
						c, ref, true, "InvalidResult",
						"result %s of %s, iteration %u, was skipped: %s",
						meta(cm, "name"), s->classes[i], it, err);
					continue;
				}
				if (json_array_size(json_object_get(doc, SB_RK_JOBS)) >
				    SB_JOBFILE_MAX_JOBS)
					snprintf(err, sizeof(err),
						 "data.%s: %s: %zu, more than a job file holds "
						 "(%d)",
						 SB_RESULT_KEY, SB_RK_JOBS,
						 json_array_size(json_object_get(doc, SB_RK_JOBS)),
						 SB_JOBFILE_MAX_JOBS);
				size_t j;
				const json_t *job;
				json_array_foreach(err[0] ? NULL : json_object_get(doc, SB_RK_JOBS),
						   j, job)
				{
					char e2[400];
					int r = sb_agg_add(agg, s->classes[i], it, job, e2,
							   sizeof(e2));
					if (r && r != -EEXIST) {
						snprintf(err, sizeof(err), "data.%s: jobs[%zu].%s",
							 SB_RESULT_KEY, j, e2);
						break;
					}
					if (!r)
						(void)sb_validity_add(val, s->classes[i], it, job,
								      e2, sizeof(e2));
				}
				if (err[0])
					br_pass_emitf(
						c, ref, true, "InvalidResult",
						"result %s of %s, iteration %u, was skipped: %s",
						meta(cm, "name"), s->classes[i], it, err);
				json_decref(doc);
				break;
			}
		}
	}
	json_t *extra = NULL;
	struct report_warn rw = {c, ref};
	if (s->pods > 1 &&
	    br_dist_report(agg, ref, s, results, &extra, report_warn, &rw) == -ENOMEM) {
		sb_agg_free(agg);
		sb_validity_free(val);
		json_decref(results);
		return -ENOMEM;
	}
	json_decref(results);
	int r = sb_agg_report_checked(agg, ref->name, report, rerr, rerrlen);
	sb_agg_free(agg);
	if (!r && extra && json_object_set(*report, "distributed", extra))
		r = -ENOMEM;
	json_decref(extra);
	json_t *lc = r ? NULL : br_lifecycle_docs(ref, ob->cmlist);
	if (!r && (!lc || sb_validity_annotate(val, *report) || br_dist_annotate(*report) ||
		   br_lifecycle_annotate(*report, lc)))
		r = -ENOMEM;
	json_decref(lc);
	sb_validity_free(val);
	return r;
}

/*
 * The report's provenance: what the runner ran as (a runner pod of the run
 * as the API server has it, when one is still there; else the pod the
 * controller creates for the run) and the policy it was checked against.
 */
static int add_provenance(struct br_controller *c, const struct br_ref *ref,
			  const struct br_spec *s, const struct br_observed *ob, json_t *report)
{
	const json_t *pod = NULL;
	for (size_t i = 0; !pod && i < s->nclasses && i < BR_MAX_CLASSES; i++)
		pod = ob->pods[i][0];
	json_t *made = pod ? NULL : br_pod_manifest(ref, s, s->classes[0], 1, s->iterations);
	json_t *p = (pod || made) ? br_policy_provenance(&c->policy, pod ? pod : made) : NULL;
	json_decref(made);
	if (p && json_object_set_new(json_object_get(p, "runner"), "from",
				     json_string(pod ? "pod" : "manifest")))
		json_decref(p), p = NULL;
	return p && !json_object_set_new(report, "provenance", p) ? 0 : -ENOMEM;
}

/*
 * Compares the report with the baseline run's and adds the comparison to
 * the report ConfigMap. A missing or unreadable baseline is a warning
 * event: the run's own report is written anyway.
 */
static json_t *cached_cm(void *arg, const char *ns, const char *name)
{
	struct br_controller *c = arg;
	return c->ops.cache_get(c->ops.arg, BR_CACHE_CMS, ns, name);
}

static void compare_with_baseline(struct br_controller *c, const struct br_ref *ref,
				  const json_t *run, const char *baseline, const json_t *report,
				  json_t *cm)
{
	char err[512];
	json_t *brep = NULL, *cmp = NULL;
	/* the baseline run's report, or the reports the schedule's baseline pools */
	int br = br_baseline_report(run, baseline, cached_cm, c, &brep, err, sizeof(err));
	if (br == -ENOENT) {
		br_pass_emitf(c, ref, true, "BaselineNotFound", "%s: not compared", err);
		goto out;
	}
	if (br) {
		br_pass_emitf(c, ref, true, "BaselineInvalid", "%s", err);
		goto out;
	}
	if (sb_compare(brep, report, &cmp, err, sizeof(err))) {
		br_pass_emitf(c, ref, true, "BaselineInvalid", "comparison with '%s' failed: %s",
			      baseline, err);
		goto out;
	}
	/* the comparison names the runs */
	json_object_set_new(cmp, "baseline", json_string(baseline));
	if (json_object_get(brep, "pooled"))
		json_object_set(cmp, "baseline_runs", json_object_get(brep, "pooled"));
	json_object_set_new(cmp, "current", json_string(ref->name));
	size_t sig = 0, i;
	const json_t *r;
	json_array_foreach(json_object_get(cmp, "results"), i, r)
	{
		const char *k;
		const json_t *m;
		json_object_foreach((json_t *)json_object_get(r, "metrics"), k, m)
		{
			const char *v = jstr(m, "verdict");
			sig += v && !strcmp(v, "significant");
		}
	}
	if (br_report_cm_add_comparison(cm, cmp) == 0)
		br_pass_emitf(c, ref, false, "ComparedWithBaseline",
			      "compared with '%s': %zu significant change%s (Welch's t-test, alpha "
			      "0.05); "
			      "see compare.txt in the report",
			      baseline, sig, sig == 1 ? "" : "s");
out:
	json_decref(brep);
	json_decref(cmp);
}

/* A report create that failed: retried with backoff, said once. */
static void report_create_failed(struct br_pass *p, int r)
{
	if (r == -EINPROGRESS)
		p->ap.waiting = true;
	else
		p->ap.failures++;
	if (!br_pass_prev_message(p->prev, p->report_err) &&
	    br_pass_first_announcement(p->c, p->ref.uid, p->report_err))
		br_pass_emitf(p->c, &p->ref, true,
			      r == -EACCES   ? "Forbidden"
			      : r == -EEXIST ? "ObjectConflict"
					     : "ReportFailed",
			      "%s", p->report_err);
	p->terminal = false;
}

/*
 * ReportWritten, once: when this pass created the report, and when it
 * finds the report already there (a controller stopped after its create
 * reached the server, before the status said so).
 */
static void report_written(struct br_pass *p, bool created)
{
	bool first = br_pass_first_announcement(p->c, p->ref.uid, "ReportWritten");
	if (created || (first && !jstr(p->prev, "report")))
		br_pass_emitf(p->c, &p->ref, false, "ReportWritten",
			      "report written to configmap %s-report (%u iterations)", p->ref.name,
			      p->plan->done);
}

/*
 * The run's report as written in its ConfigMap (the cache keeps a
 * report's data): once written, the report is read back, not built again
 * (building fetches every result: controller/core/resultcache.h). NULL when
 * there is none or it cannot be read.
 */
static json_t *written_report(struct br_pass *p)
{
	char name[64];
	if (!p->ob->obs.report_exists || sb_name_report(name, sizeof(name), p->ref.name))
		return NULL;
	json_t *cm = p->c->ops.cache_get(p->c->ops.arg, BR_CACHE_CMS, p->ref.ns, name);
	const char *text = owned_by(cm, p->ref.uid)
				   ? jstr(json_object_get(cm, "data"), SB_REPORT_JSON_KEY)
				   : NULL;
	json_t *rep = text ? json_loads(text, 0, NULL) : NULL;
	json_decref(cm);
	if (rep && !json_is_object(rep))
		json_decref(rep), rep = NULL;
	return rep;
}

/* The report, once every class has ended: built from the results, written once. 0, -EAGAIN
 * (the results could not be fetched), -ENOMEM. */
int br_pass_report_step(struct br_pass *p)
{
	const struct br_plan *plan = p->plan;
	char agg_err[512] = "";
	p->terminal = plan->phase == BR_RUN_SUCCEEDED || plan->phase == BR_RUN_FAILED;
	if (!p->terminal || plan->done == 0)
		return 0;
	json_t *written = written_report(p);
	int br = written ? 0
			 : build_report(p->c, &p->ref, &p->s, p->ob, &p->report, agg_err,
					sizeof(agg_err));
	if (written)
		p->report = written;
	if (br == -EINVAL) {
		/* the results cannot make a report (statistics out of range): said
		 * once, not retried, the run ends without one */
		snprintf(p->report_err, sizeof(p->report_err), "no report: %s", agg_err);
		p->report_final = true;
		if (!br_pass_prev_message(p->prev, p->report_err) &&
		    br_pass_first_announcement(p->c, p->ref.uid, p->report_err))
			br_pass_emitf(p->c, &p->ref, true, "ReportFailed", "%s", p->report_err);
	} else if (br || (!written && add_provenance(p->c, &p->ref, &p->s, p->ob, p->report))) {
		return br == -EAGAIN ? -EAGAIN : -ENOMEM;
	}
	if (p->report && !p->ob->obs.report_exists) {
		json_t *cm = br_report_cm_manifest(&p->ref, p->report);
		if (cm && p->s.baseline[0])
			compare_with_baseline(p->c, &p->ref, p->run, p->s.baseline, p->report, cm);
		char fit[1300];
		int fr = cm ? br_report_cm_fit(cm, BR_REPORT_CM_MAX_BYTES, fit, sizeof(fit)) : 0;
		if (fr == -E2BIG) {
			/* cannot be made to fit: said once, the run ends without a report */
			json_decref(cm);
			snprintf(p->report_err, sizeof(p->report_err), "no report: %s", fit);
			p->report_final = true;
			if (!br_pass_prev_message(p->prev, p->report_err) &&
			    br_pass_first_announcement(p->c, p->ref.uid, p->report_err))
				br_pass_emitf(p->c, &p->ref, true, "ReportFailed", "%s",
					      p->report_err);
			return 0;
		}
		if (fr > 0 && br_pass_first_announcement(p->c, p->ref.uid, "ReportTrimmed"))
			br_pass_emitf(p->c, &p->ref, true, "ReportTrimmed", "report %s-report: %s",
				      p->ref.name, fit);
		int r = br_pass_create(p->c, &kube_res_configmaps, &p->ref, cm, "report configmap",
				       p->report_err, sizeof(p->report_err));
		if (r < 0)
			report_create_failed(p, r);
		else
			report_written(p, r == 1);
	} else if (p->report) {
		report_written(p, false);
	}
	if (!p->report_err[0] &&
	    sb_name_report(p->report_name, sizeof(p->report_name), p->ref.name))
		p->report_name[0] = '\0';
	return 0;
}
