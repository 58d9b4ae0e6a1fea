/* SPDX-License-Identifier: MIT */
/*
 * Reconcile one BenchmarkRun: observe (informer caches), plan (plan.c),
 * apply (create/delete through the API), write the report when the run
 * ends, and one status write per pass when something changed.
 */
#include "controller/controller.h"
#include "jsonobj.h"

#include "aggregate.h"
#include "compare.h"
#include "compare.h"
#include "controller/distrib.h"
#include "controller/lifecycle.h"
#include "controller/manifests.h"
#include "controller/objstore.h"
#include "controller/plan.h"
#include "controller/runkey.h"
#include "controller/regression.h"
#include "controller/spec.h"
#include "labels.h"
#include "log.h"
#include "names.h"
#include "owner.h"
#include "runner/jobfile.h"
#include "validity.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const struct kube_resource br_res_benchmarkruns = {SB_API_GROUP, "v1alpha1", "benchmarkruns", true};
const struct kube_resource br_res_events = {"", "v1", "events", true};

/* --------------------------------------------------------------- observe */

/*
 * Why a pod has not started when its status does not say (a volume that
 * cannot be mounted is only an event): the newest Warning event about it,
 * "<reason>: <message>", into out. Best effort: out is left as it is when
 * there is none or the API does not answer.
 */
static void pod_warning(struct br_controller *c, const char *ns, const char *pod, char *out,
			size_t len)
{
	char fs[400];
	struct kube_list_opts lo = {0};
	struct kube_error err = KUBE_ERROR_INIT;
	json_t *list = NULL;
	snprintf(fs, sizeof(fs), "involvedObject.kind=Pod,involvedObject.name=%s,type=Warning",
		 pod);
	lo.field_selector = fs;
	if (kube_list(c->kc, &br_res_events, ns, &lo, &list, &err)) {
		br_metrics_api_error(c->metrics);
		return;
	}
	const json_t *ev, *best = NULL;
	const char *best_t = "";
	size_t i;
	json_array_foreach(json_object_get(list, "items"), i, ev)
	{
		const char *t = jstr(ev, "lastTimestamp") ? jstr(ev, "lastTimestamp")
							  : meta(ev, "creationTimestamp");
		if (t && strcmp(t, best_t) >= 0 && jstr(ev, "reason")) {
			best = ev;
			best_t = t;
		}
	}
	if (best)
		snprintf(out, len, "%s: %s", jstr(best, "reason"),
			 jstr(best, "message") ? jstr(best, "message") : "");
	json_decref(list);
}

struct observed {
	struct br_obs obs;
	const json_t *pods[BR_MAX_CLASSES][BR_MAX_PODS]; /* borrowed from podlist */
	const json_t *newest_result[BR_MAX_CLASSES];	 /* borrowed from cmlist */
	json_t *podlist, *cmlist;			 /* owned */
	char engine[BR_MAX_CLASSES][64];
	unsigned prev_done[BR_MAX_CLASSES];
	struct br_dist_obs dist[BR_MAX_CLASSES]; /* distributed classes (spec.runner.pods > 1) */
};

static struct br_watch *watch_for(struct br_controller *c, const char *ns)
{
	for (size_t i = 0; i < c->nwatches; i++)
		if (!c->watches[i].ns || !strcmp(c->watches[i].ns, ns))
			return &c->watches[i];
	return NULL;
}

static enum br_pod_phase pod_phase(const char *s)
{
	if (!s)
		return BR_POD_PENDING;
	if (!strcmp(s, "Running"))
		return BR_POD_RUNNING;
	if (!strcmp(s, "Succeeded"))
		return BR_POD_SUCCEEDED;
	if (!strcmp(s, "Failed"))
		return BR_POD_FAILED;
	return BR_POD_PENDING;
}

static void observe_pod(const json_t *pod, struct br_pod_obs *po)
{
	const json_t *st = json_object_get(pod, "status");
	snprintf(po->name, sizeof(po->name), "%s", meta(pod, "name") ? meta(pod, "name") : "");
	const char *a = label(pod, SB_LABEL_ATTEMPT);
	po->attempt = a ? (unsigned)strtoul(a, NULL, 10) : 0;
	po->phase = pod_phase(jstr(st, "phase"));
	po->deleting = meta(pod, "deletionTimestamp") != NULL;
	po->delete_by = po->deleting ? br_time_parse(meta(pod, "deletionTimestamp")) : 0;
	po->created = br_time_parse(meta(pod, "creationTimestamp"));
	const char *nn = jstr(json_object_get(pod, "spec"), "nodeName");
	snprintf(po->node, sizeof(po->node), "%s", nn ? nn : "");
	po->exit_code = -1;
	size_t i;
	const json_t *cs;
	json_array_foreach(json_object_get(st, "containerStatuses"), i, cs)
	{
		const json_t *term = json_object_get(json_object_get(cs, "state"), "terminated");
		if (!term)
			term = json_object_get(json_object_get(cs, "lastState"), "terminated");
		if (!term)
			continue;
		const json_t *ec = json_object_get(term, "exitCode");
		po->exit_code = json_is_integer(ec) ? (int)json_integer_value(ec) : -1;
		const char *m = jstr(term, "message");
		const char *r = jstr(term, "reason");
		if (r && !strcmp(r, "OOMKilled")) {
			/* the runner wrote no message: what follows it is the log tail
			 * (FallbackToLogsOnError), which says nothing about the cause */
			po->oom_killed = true;
			snprintf(po->message, sizeof(po->message),
				 "OOMKilled: the runner container went over its memory limit "
				 "(spec.runner.resources.limits.memory)");
			continue;
		}
		snprintf(po->message, sizeof(po->message), "%s%s%s", r ? r : "", r && m ? ": " : "",
			 m ? m : "");
		/* one line is enough for a status message */
		char *nl = strchr(po->message, '\n');
		if (nl && nl[1] == '\0')
			*nl = '\0';
	}
	if (!po->message[0] && jstr(st, "reason"))
		snprintf(po->message, sizeof(po->message), "%s: %s", jstr(st, "reason"),
			 jstr(st, "message") ? jstr(st, "message") : "");
	/* not scheduled: the scheduler's condition says why */
	json_array_foreach(json_object_get(st, "conditions"), i, cs)
	{
		const char *t = jstr(cs, "type"), *cst = jstr(cs, "status");
		if (!po->message[0] && t && !strcmp(t, "PodScheduled") && cst &&
		    !strcmp(cst, "False") && jstr(cs, "reason"))
			snprintf(po->message, sizeof(po->message), "%s: %s", jstr(cs, "reason"),
				 jstr(cs, "message") ? jstr(cs, "message") : "");
	}
	/* a pod that cannot start (bad image, missing ServiceAccount...) says so in its status */
	json_array_foreach(json_object_get(st, "containerStatuses"), i, cs)
	{
		const json_t *w = json_object_get(json_object_get(cs, "state"), "waiting");
		const char *r = jstr(w, "reason");
		if (r && strcmp(r, "ContainerCreating") && strcmp(r, "PodInitializing"))
			snprintf(po->message, sizeof(po->message), "%s: %s", r,
				 jstr(w, "message") ? jstr(w, "message") : "");
	}
}

static int observe(struct br_controller *c, struct br_watch *w, const json_t *run,
		   const struct br_spec *s, struct observed *ob)
{
	const char *ns = meta(run, "namespace"), *name = meta(run, "name");
	const char *uid = meta(run, "uid");
	const json_t *status = json_object_get(run, "status");
	char run_label[64], buf[64];
	struct br_obs *o = &ob->obs;

	memset(ob, 0, sizeof(*ob));
	if (sb_name_label(run_label, sizeof(run_label), name))
		return -EINVAL;
	unsigned char key[SB_SIGN_KEY_BYTES];
	int kr = br_runkey_derive(uid, key);
	if (kr)
		return kr;
	o->now = time(NULL);
	o->start = br_time_parse(jstr(status, "startTime"));
	if (!o->start)
		o->start = o->now;
	const char *phase = jstr(status, "phase");
	o->terminal_recorded = phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed"));
	o->iterations = s->iterations;
	o->parallelism = s->parallelism;
	o->max_attempts = c->opts.max_attempts;
	o->pvc_bind_s = s->pvc_bind_s;
	o->iteration_s = s->iteration_s;
	o->run_s = s->run_s;
	o->start_s = s->start_s;
	o->cleanup = (int)s->cleanup;
	o->nclasses = s->nclasses;
	o->cleaned_up = true;

	ob->podlist = kube_informer_list(w->pods);
	ob->cmlist = kube_informer_list(w->cms);
	if (!ob->podlist || !ob->cmlist)
		return -ENOMEM;

	for (size_t i = 0; i < s->nclasses; i++) {
		struct br_class_obs *co = &o->classes[i];
		char cls_label[64];
		co->name = s->classes[i];
		if (sb_name_label(cls_label, sizeof(cls_label), co->name))
			return -EINVAL;
		json_t *sc = kube_informer_get(c->scs, NULL, co->name);
		co->sc_exists = sc != NULL;
		json_decref(sc);
		if (br_objstore_find(s->obj, co->name))
			/* an object store: no storage class, no PVC */
			co->sc_exists = co->no_volume = co->pvc_bound = true;

		if (sb_name_pvc(buf, sizeof(buf), name, co->name))
			return -EINVAL;
		json_t *pvc = kube_informer_get(w->pvcs, ns, buf);
		if (pvc && owned_by(pvc, uid)) {
			const char *ph = jstr(json_object_get(pvc, "status"), "phase");
			co->pvc_exists = meta(pvc, "deletionTimestamp") == NULL;
			co->pvc_deleting = !co->pvc_exists;
			co->pvc_bound = ph && !strcmp(ph, "Bound");
			co->pvc_lost = ph && !strcmp(ph, "Lost");
			co->pvc_created = br_time_parse(meta(pvc, "creationTimestamp"));
			o->cleaned_up = false;
		}
		json_decref(pvc);

		size_t k;
		const json_t *pod;
		json_array_foreach(ob->podlist, k, pod)
		{
			const char *pr = label(pod, SB_LABEL_RUN), *pc = label(pod, SB_LABEL_CLASS);
			if (!pr || !pc || strcmp(pr, run_label) || strcmp(pc, cls_label) ||
			    strcmp(meta(pod, "namespace"), ns) || !owned_by(pod, uid) ||
			    co->npods == BR_MAX_PODS)
				continue;
			ob->pods[i][co->npods] = pod;
			observe_pod(pod, &co->pods[co->npods++]);
			o->cleaned_up = false;
		}
		for (size_t k2 = 0; k2 < co->npods; k2++) {
			/* at the start timeout, a silent Pending pod: ask its events why */
			struct br_pod_obs *po = &co->pods[k2];
			if (po->phase == BR_POD_PENDING && !po->deleting && !po->message[0] &&
			    s->start_s > 0 && o->now - po->created >= s->start_s)
				pod_warning(c, ns, po->name, po->message, sizeof(po->message));
		}

		unsigned char seen[1001];
		memset(seen, 0, sizeof(seen));
		const json_t *cm;
		json_array_foreach(ob->cmlist, k, cm)
		{
			const char *comp = label(cm, SB_LABEL_COMPONENT);
			const char *cr = label(cm, SB_LABEL_RUN), *cc = label(cm, SB_LABEL_CLASS);
			const char *it = label(cm, SB_LABEL_ITERATION);
			if (!comp || strcmp(comp, "result") || !cr || !cc || !it ||
			    strcmp(cr, run_label) || strcmp(cc, cls_label) ||
			    strcmp(meta(cm, "namespace"), ns) || !owned_by(cm, uid))
				continue;
			char *end;
			unsigned long n = strtoul(it, &end, 10);
			if (*end || n < 1 || n > s->iterations || seen[n])
				continue;
			/* the rule the runner applies too (lib/owner.h) */
			struct sb_result_want want = {ns, name, uid, co->name, (unsigned)n, key};
			if (sb_result_check(cm, &want, NULL, NULL, 0))
				continue;
			seen[n] = 1;
			co->done++;
			time_t t = br_time_parse(meta(cm, "creationTimestamp"));
			if (t >= co->last_result) {
				co->last_result = t;
				ob->newest_result[i] = cm;
			}
		}

		/* the previous status: terminal decisions and attempts */
		size_t j;
		const json_t *pc;
		json_array_foreach(json_object_get(status, "classes"), j, pc)
		{
			if (!jstr(pc, "name") || strcmp(jstr(pc, "name"), co->name))
				continue;
			co->prev_phase = br_class_phase_parse(jstr(pc, "phase"));
			snprintf(co->prev_reason, sizeof(co->prev_reason), "%s",
				 jstr(pc, "reason") ? jstr(pc, "reason") : "");
			snprintf(co->prev_message, sizeof(co->prev_message), "%s",
				 jstr(pc, "message") ? jstr(pc, "message") : "");
			const json_t *at = json_object_get(pc, "attempts");
			co->prev_attempts =
				json_is_integer(at) ? (unsigned)json_integer_value(at) : 0;
			const json_t *dn = json_object_get(pc, "iterationsDone");
			ob->prev_done[i] =
				json_is_integer(dn) ? (unsigned)json_integer_value(dn) : 0;
			snprintf(ob->engine[i], sizeof(ob->engine[i]), "%s",
				 jstr(pc, "engine") ? jstr(pc, "engine") : "");
		}
		/* a pod we created but the cache lacks: not seen yet, or deleted? ask the API */
		unsigned seen_attempt = 0;
		for (size_t k2 = 0; k2 < co->npods; k2++)
			if (co->pods[k2].attempt > seen_attempt)
				seen_attempt = co->pods[k2].attempt;
		if (co->prev_attempts > seen_attempt && co->prev_phase != BR_CLASS_FAILED &&
		    co->prev_phase != BR_CLASS_SUCCEEDED && co->done < s->iterations) {
			char pn[64];
			struct kube_error kerr = KUBE_ERROR_INIT;
			if (!sb_name_pod(pn, sizeof(pn), name, co->name, co->prev_attempts)) {
				int r = kube_get(c->kc, &kube_res_pods, ns, pn, NULL, &kerr);
				co->last_pod_gone = r == -ENOENT;
				if (r && r != -ENOENT)
					br_metrics_api_error(c->metrics);
			}
		}
		if (s->pods > 1) {
			struct br_ref ref = {ns, name, uid};
			bool left = false;
			int dr = br_dist_observe(c->kc, w->pvcs, &ref, s, ob->podlist, ob->cmlist,
						 o->now, co, &ob->dist[i], &left);
			if (dr)
				return dr;
			if (left)
				o->cleaned_up = false;
		}
		/* which engine ran: from the newest result */
		if (ob->newest_result[i]) {
			const char *text =
				jstr(json_object_get(ob->newest_result[i], "data"), SB_RESULT_KEY);
			json_t *doc = text ? json_loads(text, 0, NULL) : NULL;
			const json_t *eng = json_object_get(
				json_array_get(json_object_get(doc, "jobs"), 0), "engine");
			if (jstr(eng, "ran"))
				snprintf(ob->engine[i], sizeof(ob->engine[i]), "%s%s%s",
					 jstr(eng, "ran"),
					 jstr(eng, "reason") && *jstr(eng, "reason") ? " (" : "",
					 jstr(eng, "reason") && *jstr(eng, "reason") ? "fallback)"
										     : "");
			json_decref(doc);
		}
	}
	if (sb_name_report(buf, sizeof(buf), name))
		return -EINVAL;
	json_t *rep = kube_informer_get(w->cms, ns, buf);
	o->report_exists = rep && owned_by(rep, uid);
	json_decref(rep);
	return 0;
}

/* ----------------------------------------------------------------- apply */

static void emit(struct br_controller *c, const struct br_ref *ref, const struct br_event *e)
{
	pthread_mutex_lock(&c->mu);
	unsigned seq = c->event_seq++;
	pthread_mutex_unlock(&c->mu);
	json_t *ev = br_event_manifest(ref, e, time(NULL), seq);
	struct kube_error err = KUBE_ERROR_INIT;
	char eb[512];
	if (ev && kube_create(c->kc, &br_res_events, ref->ns, ev, NULL, &err) != 0) {
		br_metrics_api_error(c->metrics);
		sb_warn("Failed to record an event", "run=%s/%s reason=%s error=\"%s\"", ref->ns,
			ref->name, e->reason, kube_error_str(&err, eb, sizeof(eb)));
	}
	json_decref(ev);
	sb_log(e->warning ? SB_LOG_WARN : SB_LOG_INFO, e->message, "run=%s/%s reason=%s", ref->ns,
	       ref->name, e->reason);
}

static void emitf(struct br_controller *c, const struct br_ref *ref, bool warning,
		  const char *reason, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void emitf(struct br_controller *c, const struct br_ref *ref, bool warning,
		  const char *reason, const char *fmt, ...)
{
	struct br_event e;
	va_list ap;
	memset(&e, 0, sizeof(e));
	e.warning = warning;
	snprintf(e.reason, sizeof(e.reason), "%s", reason);
	va_start(ap, fmt);
	vsnprintf(e.message, sizeof(e.message), fmt, ap);
	va_end(ap);
	emit(c, ref, &e);
}

static int delete_obj(struct br_controller *c, const struct kube_resource *r, const char *ns,
		      const char *name)
{
	struct kube_error err = KUBE_ERROR_INIT;
	struct kube_delete_opts d = KUBE_DELETE_OPTS_INIT;
	char eb[512];
	d.propagation_policy = "Background";
	int ret = kube_delete(c->kc, r, ns, name, &d, NULL, &err);
	if (ret == -ENOENT)
		return 0;
	if (ret) {
		br_metrics_api_error(c->metrics);
		sb_warn("Failed to delete an object", "name=%s/%s error=\"%s\"", ns, name,
			kube_error_str(&err, eb, sizeof(eb)));
	}
	return ret;
}

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

/*
 * Creates obj (consumed) for the run ref. An object of that name that
 * already exists counts as done only when it is the run's (lib/owner.h):
 * one being deleted, or left by an earlier run of the same name (deleted
 * here: its owner is gone), is waited for; any other is reported.
 * Returns 1 (created), 0 (exists and is ours), -EINPROGRESS (wait and look
 * again; why says what for), -EEXIST (a foreign object has the name; why
 * names it), -errno with the API's answer in why (may be NULL).
 */
static int create(struct br_controller *c, const struct kube_resource *r, const struct br_ref *ref,
		  json_t *obj, const char *what, char *why, size_t whylen)
{
	struct kube_error err = KUBE_ERROR_INIT;
	char eb[512], owner[300], oname[254];
	json_t *have = NULL;
	if (!obj) {
		if (why)
			snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	snprintf(oname, sizeof(oname), "%s", meta(obj, "name") ? meta(obj, "name") : "");
	int ret = kube_create(c->kc, r, ref->ns, obj, NULL, &err);
	json_decref(obj);
	if (ret == -EEXIST && r == &kube_res_secrets)
		return 0; /* the run's key Secret: the controller may not read Secrets
			   * (controller/runkey.h); its name holds the run's UID */
	if (ret == -EEXIST) {
		ret = kube_get(c->kc, r, ref->ns, oname, &have, &err);
		if (ret == -ENOENT) {
			/* gone since: the next pass creates it */
			if (why)
				snprintf(why, whylen, "%s %s was just deleted", what, oname);
			return -EINPROGRESS;
		}
		if (ret)
			goto api_error;
		enum sb_owner_verdict v =
			sb_owner_check(have, ref->name, ref->uid, owner, sizeof(owner));
		json_decref(have);
		if (v == SB_OWNER_OURS)
			return 0;
		if (v == SB_OWNER_STALE) {
			/* the collector removes it in its own time; its owner is gone */
			(void)delete_obj(c, r, ref->ns, oname);
		}
		if (why)
			snprintf(why, whylen, "%s %s exists and is %s (%s)%s", what, oname,
				 sb_owner_verdict_str(v), owner,
				 v == SB_OWNER_FOREIGN ? "" : "; waiting until it is gone");
		sb_info("An object of the run's name is not the run's",
			"run=%s/%s object=%s verdict=\"%s\"", ref->ns, ref->name, oname,
			sb_owner_verdict_str(v));
		return v == SB_OWNER_FOREIGN ? -EEXIST : -EINPROGRESS;
	}
	if (ret == 0)
		return 1;
api_error:
	br_metrics_api_error(c->metrics);
	kube_error_str(&err, eb, sizeof(eb));
	sb_warn("Failed to create an object", "what=%s ns=%s error=\"%s\"", what, ref->ns, eb);
	if (why)
		snprintf(why, whylen, "cannot create the %s: %s", what, eb);
	return ret;
}

struct report_warn {
	struct br_controller *c;
	const struct br_ref *ref;
};

static void report_warn(void *ctx, const char *msg)
{
	const struct report_warn *rw = ctx;
	emitf(rw->c, rw->ref, true, "InvalidResult", "%s", msg);
}

/*
 * Aggregates every result of the run into a report document (new
 * reference). Malformed results are reported by an event and skipped;
 * the others are kept.
 */
static int build_report(struct br_controller *c, const struct br_ref *ref, const struct br_spec *s,
			const struct observed *ob, json_t **report, char *rerr, size_t rerrlen)
{
	struct sb_agg *agg = sb_agg_new();
	struct sb_validity *val = validity_new(s);
	char run_label[64];
	unsigned char key[SB_SIGN_KEY_BYTES];
	*report = NULL;
	if (!agg || !val || br_runkey_derive(ref->uid, key) ||
	    sb_name_label(run_label, sizeof(run_label), ref->name)) {
		sb_agg_free(agg);
		sb_validity_free(val);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->nclasses; i++) {
		char cls_label[64];
		if (s->pods > 1 || sb_name_label(cls_label, sizeof(cls_label), s->classes[i]))
			continue; /* distributed classes: br_dist_report below */
		for (unsigned it = 1; it <= s->iterations; it++) {
			size_t k;
			const json_t *cm;
			json_array_foreach(ob->cmlist, k, cm)
			{
				const char *comp = label(cm, SB_LABEL_COMPONENT);
				const char *lit = label(cm, SB_LABEL_ITERATION);
				char itb[16];
				snprintf(itb, sizeof(itb), "%u", it);
				if (!comp || strcmp(comp, "result") || !lit || strcmp(lit, itb) ||
				    !label(cm, SB_LABEL_RUN) ||
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
					return -ENOMEM;
				}
				if (vr) {
					/* named, and the next one of this iteration is looked at */
					emitf(c, ref, true, "InvalidResult",
					      "result %s of %s, iteration %u, was skipped: %s",
					      meta(cm, "name"), s->classes[i], it, err);
					continue;
				}
				if (json_array_size(json_object_get(doc, "jobs")) >
				    SB_JOBFILE_MAX_JOBS)
					snprintf(err, sizeof(err),
						 "data.%s: jobs: %zu, more than a job file holds "
						 "(%d)",
						 SB_RESULT_KEY,
						 json_array_size(json_object_get(doc, "jobs")),
						 SB_JOBFILE_MAX_JOBS);
				size_t j;
				const json_t *job;
				json_array_foreach(err[0] ? NULL : json_object_get(doc, "jobs"), j,
						   job)
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
					emitf(c, ref, true, "InvalidResult",
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
	    br_dist_report(agg, ref, s, ob->cmlist, &extra, report_warn, &rw) == -ENOMEM) {
		sb_agg_free(agg);
		sb_validity_free(val);
		return -ENOMEM;
	}
	int r = sb_agg_report_checked(agg, ref->name, report, rerr, rerrlen);
	sb_agg_free(agg);
	if (!r && extra && json_object_set(*report, "distributed", extra))
		r = -ENOMEM;
	json_decref(extra);
	json_t *lc = r ? NULL : br_lifecycle_docs(ref, ob->cmlist);
	if (!r && (!lc || sb_validity_annotate(val, *report) || br_lifecycle_annotate(*report, lc)))
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
			  const struct br_spec *s, const struct observed *ob, json_t *report)
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
static void compare_with_baseline(struct br_controller *c, struct br_watch *w,
				  const struct br_ref *ref, const char *baseline,
				  const json_t *report, json_t *cm)
{
	char name[64], err[512];
	json_t *bcm = NULL, *brep = NULL, *cmp = NULL;
	if (sb_name_report(name, sizeof(name), baseline))
		return;
	bcm = kube_informer_get(w->cms, ref->ns, name);
	const char *text = jstr(json_object_get(bcm, "data"), "report.json");
	json_error_t je;
	if (!text) {
		emitf(c, ref, true, "BaselineNotFound",
		      "baseline run '%s' has no report (configmap %s): not compared", baseline,
		      name);
		goto out;
	}
	brep = json_loads(text, 0, &je);
	if (!brep) {
		emitf(c, ref, true, "BaselineInvalid", "configmap %s: report.json: %s", name,
		      je.text);
		goto out;
	}
	if (sb_compare(brep, report, &cmp, err, sizeof(err))) {
		emitf(c, ref, true, "BaselineInvalid", "comparison with '%s' failed: %s", baseline,
		      err);
		goto out;
	}
	/* the comparison names the runs */
	json_object_set_new(cmp, "baseline", json_string(baseline));
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
		emitf(c, ref, false, "ComparedWithBaseline",
		      "compared with '%s': %zu significant change%s (Welch's t-test, alpha 0.05); "
		      "see compare.txt in the report",
		      baseline, sig, sig == 1 ? "" : "s");
out:
	json_decref(bcm);
	json_decref(brep);
	json_decref(cmp);
}

/* status.summary from a report document. */
static json_t *summary_from_report(const json_t *rep)
{
	json_t *sum = json_array();
	size_t i;
	const json_t *r;
	json_array_foreach(json_object_get(rep, "results"), i, r)
	{
		const char *key;
		const json_t *m;
		json_object_foreach((json_t *)json_object_get(r, "metrics"), key, m)
		{
			json_t *e = json_pack(
				"{s:s,s:s,s:s,s:s,s:O,s:O,s:O,s:O,s:O}", "class", jstr(r, "target"),
				"workload", jstr(r, "workload"), "metric", key, "unit",
				jstr(m, "unit"), "mean", json_object_get(m, "mean"), "stddev",
				json_object_get(m, "stddev"), "min", json_object_get(m, "min"),
				"max", json_object_get(m, "max"), "n", json_object_get(m, "n"));
			if (!e || json_array_append_new(sum, e)) {
				json_decref(sum);
				return NULL;
			}
		}
	}
	/* lifecycle timings: workload "lifecycle", metric the phase, with percentiles */
	json_array_foreach(json_object_get(rep, "lifecycle"), i, r)
	{
		if (!json_object_get(r, "mean"))
			continue;
		json_t *e = json_pack(
			"{s:s,s:s,s:s,s:s,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O}", "class",
			jstr(r, "target"), "workload", "lifecycle", "metric", jstr(r, "phase"),
			"unit", "ns", "mean", json_object_get(r, "mean"), "stddev",
			json_object_get(r, "stddev"), "min", json_object_get(r, "min"), "max",
			json_object_get(r, "max"), "p50", json_object_get(r, "p50"), "p95",
			json_object_get(r, "p95"), "p99", json_object_get(r, "p99"), "n",
			json_object_get(r, "n"));
		if (!e || json_array_append_new(sum, e)) {
			json_decref(sum);
			return NULL;
		}
	}
	return sum;
}

/* status.warnings from a report document's validity warnings (target -> class). */
static json_t *warnings_from_report(const json_t *rep)
{
	json_t *out = json_array();
	size_t i;
	const json_t *x;
	json_array_foreach(json_object_get(rep, "warnings"), i, x)
	{
		json_t *e = json_pack("{s:s?,s:s?,s:s?,s:s?,s:s?,s:s?}", "check", jstr(x, "check"),
				      "class", jstr(x, "target"), "workload", jstr(x, "workload"),
				      "message", jstr(x, "message"), "evidence",
				      jstr(x, "evidence"), "fix", jstr(x, "fix"));
		if (!e || json_array_append_new(out, e)) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

static json_t *condition(const json_t *prev_status, const char *status, const char *reason,
			 const char *message, json_int_t gen, time_t now)
{
	char ts[40];
	const char *lt = NULL;
	size_t i;
	const json_t *pc;
	json_array_foreach(json_object_get(prev_status, "conditions"), i, pc)
	{
		/* lastTransitionTime changes only when the status flips */
		if (jstr(pc, "type") && !strcmp(jstr(pc, "type"), "Succeeded") &&
		    jstr(pc, "status") && !strcmp(jstr(pc, "status"), status))
			lt = jstr(pc, "lastTransitionTime");
	}
	if (!lt)
		lt = br_time_str(now, ts, sizeof(ts));
	return json_pack("[{s:s,s:s,s:s,s:s,s:s,s:I}]", "type", "Succeeded", "status", status,
			 "reason", reason, "message", message, "lastTransitionTime", lt,
			 "observedGeneration", gen);
}

/*
 * Writes status over the run's, on the condition that the run is still the
 * one this pass read (its resourceVersion): a pass that worked from a cache
 * older than the stored status must not overwrite it. Returns 0, 1 when the
 * run changed meanwhile (nothing written; the newer run is reconciled next),
 * or a negative errno.
 */
static int write_status(struct br_controller *c, const struct br_ref *ref, const json_t *run,
			json_t *status)
{
	const json_t *prev = json_object_get(run, "status");
	if (prev && json_equal(prev, status))
		return 0;
	const char *rv = meta(run, "resourceVersion");
	json_t *patch =
		rv ? json_pack("{s:{s:s},s:O}", "metadata", "resourceVersion", rv, "status", status)
		   : json_pack("{s:O}", "status", status);
	struct kube_error err = KUBE_ERROR_INIT;
	char eb[512];
	/* replace the whole status: a merge patch with null for vanished keys */
	const char *key;
	const json_t *v;
	json_object_foreach((json_t *)prev, key, v)
	{
		if (!json_object_get(status, key))
			json_object_set_new(json_object_get(patch, "status"), key, json_null());
	}
	int ret = patch ? kube_patch_status(c->kc, &br_res_benchmarkruns, ref->ns, ref->name, patch,
					    NULL, NULL, &err)
			: -ENOMEM;
	json_decref(patch);
	if (ret == -EAGAIN && err.http_code == 409) {
		sb_debug("Status not written: the run changed since it was read", "run=%s/%s",
			 ref->ns, ref->name);
		return 1;
	}
	if (ret && ret != -ENOENT) {
		br_metrics_api_error(c->metrics);
		sb_warn("Failed to update status", "run=%s/%s error=\"%s\"", ref->ns, ref->name,
			kube_error_str(&err, eb, sizeof(eb)));
		return ret;
	}
	return 0;
}

static int fail_invalid(struct br_controller *c, const struct br_ref *ref, const json_t *run,
			const char *msg, json_int_t gen)
{
	const json_t *prev = json_object_get(run, "status");
	const char *pp = jstr(prev, "phase");
	char ts[40];
	time_t now = time(NULL);
	if (!pp || strcmp(pp, "Failed") || !jstr(prev, "message") ||
	    strcmp(jstr(prev, "message"), msg))
		emitf(c, ref, true, "InvalidSpec", "%s", msg);
	json_t *st =
		json_pack("{s:s,s:I,s:s,s:s,s:o}", "phase", "Failed", "observedGeneration", gen,
			  "message", msg, "completionTime",
			  jstr(prev, "completionTime") ? jstr(prev, "completionTime")
						       : br_time_str(now, ts, sizeof(ts)),
			  "conditions", condition(prev, "False", "InvalidSpec", msg, gen, now));
	if (!st)
		return -ENOMEM;
	if (jstr(prev, "startTime"))
		json_object_set_new(st, "startTime", json_string(jstr(prev, "startTime")));
	int r = write_status(c, ref, run, st);
	json_decref(st);
	return r < 0 ? r : 0; /* a newer run is reconciled anyway */
}

/* True when the previous status already says msg (so the event was sent). */
static bool prev_message(const json_t *prev, const char *msg)
{
	const char *m = jstr(prev, "message");
	return m && strstr(m, msg);
}

static bool prev_class_message(const json_t *prev, const char *cls, const char *msg)
{
	size_t i;
	const json_t *pc;
	json_array_foreach(json_object_get(prev, "classes"), i, pc)
	{
		const char *n = jstr(pc, "name"), *m = jstr(pc, "message");
		if (n && !strcmp(n, cls) && m && !strcmp(m, msg))
			return true;
	}
	return false;
}

/*
 * Whether this process announces run uid reaching phase for the first
 * time: the cache can still show the old phase for a moment after the
 * status write, and the event must not be sent twice.
 */
static bool first_announcement(struct br_controller *c, const char *uid, const char *what)
{
	char key[128];
	bool first = true;
	/* what may be long (a message): its hash keeps keys short */
	unsigned long h = 5381;
	for (const char *p = what; *p; p++)
		h = h * 33 + (unsigned char)*p;
	snprintf(key, sizeof(key), "%s/%lx", uid, h);
	pthread_mutex_lock(&c->mu);
	for (size_t i = 0; i < BR_ANNOUNCED; i++)
		if (!strcmp(c->announced[i], key))
			first = false;
	if (first) {
		snprintf(c->announced[c->nannounced % BR_ANNOUNCED], sizeof(c->announced[0]), "%s",
			 key);
		c->nannounced++;
	}
	pthread_mutex_unlock(&c->mu);
	return first;
}

int br_reconcile(struct br_controller *c, const char *ns, const char *name, long *requeue_ms)
{
	struct br_watch *w = watch_for(c, ns);
	struct br_spec s;
	struct observed *ob = NULL;
	struct br_plan *plan = NULL;
	json_t *run = NULL, *report = NULL, *status = NULL;
	char err[1024], ts[40];
	char apply_err[BR_MAX_CLASSES][640], apply_reason[BR_MAX_CLASSES][32];
	int ret = 0, failures = 0;
	bool waiting = false;

	memset(apply_err, 0, sizeof(apply_err));
	memset(apply_reason, 0, sizeof(apply_reason));

	*requeue_ms = 0;
	memset(&s, 0, sizeof(s));
	if (!w)
		return 0;
	run = kube_informer_get(w->runs, ns, name);
	if (!run || meta(run, "deletionTimestamp"))
		goto out; /* gone: garbage collection removes what it owned */
	struct br_ref ref = {ns, name, meta(run, "uid")};
	const json_t *gj = json_object_get(json_object_get(run, "metadata"), "generation");
	json_int_t gen = json_is_integer(gj) ? json_integer_value(gj) : 0;
	const json_t *prev = json_object_get(run, "status");
	if (!ref.uid) {
		ret = -EINVAL;
		goto out;
	}

	if (br_spec_parse(json_object_get(run, "spec"), c->opts.runner_image,
			  c->opts.runner_service_account, &s, err, sizeof(err))) {
		ret = fail_invalid(c, &ref, run, err, gen);
		goto out;
	}
	/* the runner policy, before anything is created; then the pod itself,
	 * evaluated as Pod Security admission would, in case a rule slipped */
	if (br_policy_check(&c->policy, &s, err, sizeof(err))) {
		ret = fail_invalid(c, &ref, run, err, gen);
		goto out;
	}
	json_t *pod0 = br_pod_manifest(&ref, &s, s.classes[0], 1, s.iterations);
	if (!pod0) {
		ret = -ENOMEM;
		goto out;
	}
	if (c->policy.allow_host_network) /* the one exception the policy grants apart */
		json_object_del(json_object_get(pod0, "spec"), "hostNetwork");
	char pss_why[256];
	enum br_pss_level lvl = br_pss_evaluate(pod0, pss_why, sizeof(pss_why));
	json_decref(pod0);
	if (lvl > c->policy.pod_security) {
		snprintf(err, sizeof(err),
			 "spec.runner: the runner pod would be '%s' (%s), more than the runner "
			 "policy's pod security '%s' allows",
			 br_pss_level_name(lvl), pss_why,
			 br_pss_level_name(c->policy.pod_security));
		ret = fail_invalid(c, &ref, run, err, gen);
		goto out;
	}
	if (s.nclasses > BR_MAX_CLASSES) {
		ret = fail_invalid(c, &ref, run, "spec.storageClasses: too many", gen);
		goto out;
	}
	/* spec.lifecycle: volume lifecycle timings before the I/O (controller/lifecycle.c) */
	char lc_event[640];
	int lr = br_lifecycle_step(c, w, &ref, &s, run, lc_event, sizeof(lc_event), err,
				   sizeof(err));
	if (lc_event[0])
		emitf(c, &ref, false, "LifecycleMeasured", "%s", lc_event);
	if (lr < 0 && first_announcement(c, ref.uid, err))
		emitf(c, &ref, true, "LifecycleFailed", "%s (retrying)", err);
	if (lr) {
		ret = lr < 0 ? -EAGAIN : 0;
		*requeue_ms = lr > 0 ? 1 : 0;
		goto out;
	}
	ob = calloc(1, sizeof(*ob));
	plan = calloc(1, sizeof(*plan));
	if (!ob || !plan || (ret = observe(c, w, run, &s, ob)))
		goto out;
	br_plan_compute(&ob->obs, plan);

	/* apply; a create that fails is not an attempt, and the user is told why */
	for (size_t i = 0; i < plan->nactions; i++) {
		const struct br_action *a = &plan->actions[i];
		const char *cls = s.classes[a->cls];
		char nm[64], why[640] = "";
		int r = 0;
		if (s.pods > 1 && a->kind != BR_ACT_WRITE_REPORT) {
			/* a distributed class: the action on every member */
			r = br_dist_apply_action(c->kc, &ref, &s, a, &ob->obs.classes[a->cls],
						 &ob->dist[a->cls], why, sizeof(why));
			if (r < 0)
				br_metrics_api_error(c->metrics);
			if (r < 0 && a->kind == BR_ACT_CREATE_POD &&
			    plan->classes[a->cls].attempts == a->attempt)
				plan->classes[a->cls].attempts--; /* it never ran */
			if (r == 1 && a->kind == BR_ACT_CREATE_POD)
				emitf(c, &ref, false, "CreatedRunner",
				      "%s: created %u runner pods (attempt %u, %u iterations done)",
				      cls, s.pods, a->attempt, ob->obs.classes[a->cls].done);
			goto applied;
		}
		switch (a->kind) {
		case BR_ACT_CREATE_PVC:
			r = create(c, &kube_res_pvcs, &ref, br_pvc_manifest(&ref, &s, cls), "pvc",
				   why, sizeof(why));
			if (r == 1 && !sb_name_pvc(nm, sizeof(nm), name, cls))
				emitf(c, &ref, false, "CreatedVolume",
				      "%s: created PVC %s (%s, %s, %s)", cls, nm, s.volume_size,
				      s.access_mode, s.block ? "Block" : "Filesystem");
			break;
		case BR_ACT_CREATE_POD:
			r = create(c, &kube_res_secrets, &ref, br_runkey_secret_manifest(&ref),
				   "key secret", why, sizeof(why));
			if (r >= 0 && s.jobfile)
				r = create(c, &kube_res_configmaps, &ref,
					   br_spec_cm_manifest(&ref, &s), "spec configmap", why,
					   sizeof(why));
			if (r >= 0)
				r = create(c, &kube_res_pods, &ref,
					   br_pod_manifest(&ref, &s, cls, a->attempt, s.iterations),
					   "runner pod", why, sizeof(why));
			if (r < 0 && plan->classes[a->cls].attempts == a->attempt)
				plan->classes[a->cls].attempts--; /* it never ran */
			if (r == 1 && !sb_name_pod(nm, sizeof(nm), name, cls, a->attempt))
				emitf(c, &ref, false, "CreatedRunner",
				      "%s: created runner pod %s (attempt %u, %u iterations done)",
				      cls, nm, a->attempt, ob->obs.classes[a->cls].done);
			break;
		case BR_ACT_DELETE_POD:
			r = delete_obj(c, &kube_res_pods, ns, a->name);
			break;
		case BR_ACT_DELETE_PVC:
			if (!sb_name_pvc(nm, sizeof(nm), name, cls))
				r = delete_obj(c, &kube_res_pvcs, ns, nm);
			break;
		case BR_ACT_WRITE_REPORT:
			break; /* below, with the summary */
		}
	applied:
		if (r == -EINPROGRESS)
			waiting = true; /* an old object of the name goes away: not a failure */
		else if (r < 0)
			failures++;
		if (r < 0 && why[0] && !apply_err[a->cls][0]) {
			snprintf(apply_err[a->cls], sizeof(apply_err[a->cls]), "%s", why);
			snprintf(apply_reason[a->cls], sizeof(apply_reason[a->cls]), "%s",
				 r == -EACCES	     ? "Forbidden"
				 : r == -EEXIST	     ? "ObjectConflict"
				 : r == -EINPROGRESS ? "WaitingForOldObject"
						     : "CreateFailed");
		}
	}
	for (size_t i = 0; i < s.nclasses; i++) {
		/* one warning per new problem, not one per retry */
		if (!apply_err[i][0] || prev_class_message(prev, s.classes[i], apply_err[i]) ||
		    !first_announcement(c, ref.uid, apply_err[i]))
			continue;
		emitf(c, &ref, true, apply_reason[i], "%s: %s", s.classes[i], apply_err[i]);
	}
	/* distributed classes: start the iterations whose pods are all at the barrier,
	 * stop what is left of failed attempts */
	for (size_t i = 0; i < s.nclasses && s.pods > 1; i++) {
		if (plan->classes[i].phase != BR_CLASS_RUNNING)
			ob->dist[i].nstarts = 0;
		if (br_dist_start(c->kc, &ref, s.classes[i], &ob->dist[i]) < 0)
			failures++;
	}
	for (size_t i = 0; i < plan->nevents; i++)
		emit(c, &ref, &plan->events[i]);

	/* the report, once every class has ended */
	bool terminal = plan->phase == BR_RUN_SUCCEEDED || plan->phase == BR_RUN_FAILED;
	char report_name[64] = "", report_err[640] = "";
	bool report_final = false; /* report_err will not go away by retrying */
	if (terminal && plan->done > 0) {
		char agg_err[512] = "";
		int br = build_report(c, &ref, &s, ob, &report, agg_err, sizeof(agg_err));
		if (br == -EINVAL) {
			/* the results cannot make a report (statistics out of range): said
			 * once, not retried, the run ends without one */
			snprintf(report_err, sizeof(report_err), "no report: %s", agg_err);
			report_final = true;
			if (!prev_message(prev, report_err) &&
			    first_announcement(c, ref.uid, report_err))
				emitf(c, &ref, true, "ReportFailed", "%s", report_err);
		} else if (br || add_provenance(c, &ref, &s, ob, report)) {
			ret = -ENOMEM;
			goto out;
		}
		if (report && !ob->obs.report_exists) {
			json_t *cm = br_report_cm_manifest(&ref, report);
			if (cm && s.baseline[0])
				compare_with_baseline(c, w, &ref, s.baseline, report, cm);
			int r = create(c, &kube_res_configmaps, &ref, cm, "report configmap",
				       report_err, sizeof(report_err));
			if (r < 0) {
				/* not ended until the report is written: retried with backoff */
				if (r == -EINPROGRESS)
					waiting = true;
				else
					failures++;
				if (!prev_message(prev, report_err) &&
				    first_announcement(c, ref.uid, report_err))
					emitf(c, &ref, true,
					      r == -EACCES   ? "Forbidden"
					      : r == -EEXIST ? "ObjectConflict"
							     : "ReportFailed",
					      "%s", report_err);
				terminal = false;
			} else if (r == 1)
				emitf(c, &ref, false, "ReportWritten",
				      "report written to configmap %s-report (%u iterations)", name,
				      plan->done);
		}
		if (!report_err[0] && sb_name_report(report_name, sizeof(report_name), name))
			report_name[0] = '\0';
	}

	/* status: one write per pass, only when something changed */
	time_t now = ob->obs.now;
	const char *phase = terminal || plan->phase < BR_RUN_SUCCEEDED
				    ? br_run_phase_name(plan->phase)
				    : br_run_phase_name(BR_RUN_RUNNING);
	const char *reason = plan->reason;
	const char *message = plan->message;
	char msgbuf[1400];
	if (report_err[0]) {
		reason = "ReportFailed";
		snprintf(msgbuf, sizeof(msgbuf), "every class has ended; %s%s", report_err,
			 report_final ? "" : " (retrying)");
		message = msgbuf;
	} else if (!terminal) {
		for (size_t i = 0; i < s.nclasses; i++) {
			if (!apply_err[i][0])
				continue;
			reason = apply_reason[i];
			snprintf(msgbuf, sizeof(msgbuf), "%s: %s (retrying)", s.classes[i],
				 apply_err[i]);
			message = msgbuf;
			break;
		}
	}
	const char *pp = jstr(prev, "phase");
	status = json_object();
	json_t *classes = json_array();
	char progress[32], list[2048] = "";
	size_t ll = 0;
	snprintf(progress, sizeof(progress), "%u/%u", plan->done, plan->total);
	for (size_t i = 0; i < s.nclasses; i++) {
		const struct br_class_plan *cp = &plan->classes[i];
		char pvc[64] = "";
		if (cp->phase != BR_CLASS_PENDING)
			(void)sb_name_pvc(pvc, sizeof(pvc), name, s.classes[i]);
		/* empty strings are left out: the 1.20 API server turns "" into null */
		json_t *cj = json_pack("{s:s,s:s,s:i,s:i}", "name", s.classes[i], "phase",
				       br_class_phase_name(cp->phase), "iterationsDone",
				       (int)ob->obs.classes[i].done, "attempts", (int)cp->attempts);
		if (cj && pvc[0])
			json_object_set_new(cj, "pvc", json_string(pvc));
		if (cj && cp->pod[0])
			json_object_set_new(cj, "pod", json_string(cp->pod));
		if (cj && s.pods > 1)
			json_object_set_new(cj, "pods", json_integer(s.pods));
		if (cj && ob->engine[i][0])
			json_object_set_new(cj, "engine", json_string(ob->engine[i]));
		const char *cr = apply_err[i][0] ? apply_reason[i] : cp->reason;
		const char *cmsg = apply_err[i][0] ? apply_err[i] : cp->message;
		if (cj && cr[0])
			json_object_set_new(cj, "reason", json_string(cr));
		if (cj && cmsg[0])
			json_object_set_new(cj, "message", json_string(cmsg));
		if (!cj || json_array_append_new(classes, cj)) {
			ret = -ENOMEM;
			goto out;
		}
		ll += (size_t)snprintf(list + ll, ll < sizeof(list) ? sizeof(list) - ll : 0, "%s%s",
				       i ? "," : "", s.classes[i]);
		if (ll >= sizeof(list))
			ll = sizeof(list) - 1;
	}
	const char *cstat = !terminal			      ? "Unknown"
			    : plan->phase == BR_RUN_SUCCEEDED ? "True"
							      : "False";
	bool ok = status && classes && !json_object_set_new(status, "phase", json_string(phase)) &&
		  !json_object_set_new(status, "observedGeneration", json_integer(gen)) &&
		  !json_object_set_new(status, "progress", json_string(progress)) &&
		  !json_object_set_new(status, "classList", json_string(list)) &&
		  !json_object_set_new(status, "startTime",
				       json_string(jstr(prev, "startTime")
							   ? jstr(prev, "startTime")
							   : br_time_str(now, ts, sizeof(ts)))) &&
		  !json_object_set_new(status, "message", json_string(message)) &&
		  !json_object_set_new(status, "conditions",
				       condition(prev, cstat, reason, message, gen, now)) &&
		  !json_object_set(status, "classes", classes);
	json_decref(classes);
	if (ok && terminal) {
		ok = !json_object_set_new(status, "completionTime",
					  json_string(jstr(prev, "completionTime")
							      ? jstr(prev, "completionTime")
							      : br_time_str(now, ts, sizeof(ts))));
		if (ok && report_name[0])
			ok = !json_object_set_new(status, "report", json_string(report_name)) &&
			     !json_object_set_new(status, "summary", summary_from_report(report));
		if (ok && report_name[0] && json_array_size(json_object_get(report, "warnings")))
			ok = !json_object_set_new(status, "warnings", warnings_from_report(report));
	}
	if (ok && terminal && report_name[0]) {
		/* the Regressed condition, from the comparison with the baseline */
		json_t *rcm = kube_informer_get(w->cms, ns, report_name);
		struct br_event rev;
		int rr = br_regression_condition(rcm, run, status, gen, now, &rev);
		json_decref(rcm);
		if (rr < 0)
			ok = false;
		else if (rr == 1)
			emit(c, &ref, &rev);
	}
	if (!ok) {
		ret = -ENOMEM;
		goto out;
	}
	if (terminal && (!pp || strcmp(pp, phase)) && first_announcement(c, ref.uid, phase))
		emitf(c, &ref, plan->phase == BR_RUN_FAILED,
		      plan->phase == BR_RUN_SUCCEEDED ? "RunSucceeded" : "RunFailed", "%s: %s",
		      phase, plan->message);
	int wr = write_status(c, &ref, run, status);
	if (wr < 0)
		failures++;
	/* newly recorded iterations count once: only a pass whose status write
	 * succeeded counts them (a pass from a stale cache reads an older
	 * iterationsDone, and its conditional write is refused with 409) */
	for (size_t i = 0; i < s.nclasses && wr == 0; i++) {
		unsigned d = ob->obs.classes[i].done;
		if (d > ob->prev_done[i]) {
			br_metrics_iterations(c->metrics, d - ob->prev_done[i]);
			emitf(c, &ref, false, "IterationsRecorded", "%s: %u of %u iterations done",
			      s.classes[i], d, s.iterations);
		}
	}

	if (failures)
		ret = -EAGAIN;
	if (plan->requeue_s)
		*requeue_ms = plan->requeue_s * 1000;
	if (waiting && (!*requeue_ms || *requeue_ms > 1000))
		*requeue_ms = 1000; /* the old object is deleted soon: look again */
	if (wr == 1 && (!*requeue_ms || *requeue_ms > 200))
		*requeue_ms = 200; /* the watch brings the newer run soon; in case it does not */
out:
	if (ob) {
		json_decref(ob->podlist);
		json_decref(ob->cmlist);
	}
	free(ob);
	free(plan);
	json_decref(report);
	json_decref(status);
	json_decref(run);
	br_spec_release(&s);
	return ret;
}
