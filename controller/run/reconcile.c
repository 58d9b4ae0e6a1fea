/* SPDX-License-Identifier: MIT */
/*
 * Reconcile one BenchmarkRun, one pass: observe (the informer caches
 * only), plan (plan.c, pure), apply (create/delete through the API), the
 * report when the run ends, the status (status.c, pure), one status write
 * per pass when something changed, and the events. Every call goes
 * through the controller's operations table (ops.h), so the unit tests run
 * a pass against objects in memory.
 */
#include "controller/core/controller.h"
#include "controller/core/status.h"
#include "core/jsonobj.h"

#include "stats/aggregate.h"
#include "report/compare.h"
#include "controller/distrib/distrib.h"
#include "controller/lifecycle/lifecycle.h"
#include "controller/run/manifests.h"
#include "controller/run/objstore.h"
#include "controller/run/plan.h"
#include "controller/run/runkey.h"
#include "controller/run/regression.h"
#include "controller/core/resultcache.h"
#include "controller/run/spec.h"
#include "controller/run/status.h"
#include "controller/sweep/reconcile.h"
#include "core/labels.h"
#include "core/log.h"
#include "core/names.h"
#include "result/owner.h"
#include "result/resultdoc.h"
#include "fiojob/jobfile.h"
#include "report/validity.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const struct kube_resource br_res_benchmarkruns = {SB_API_GROUP, SB_API_VERSION_ONLY,
						   SB_PLURAL_RUNS, true};
const struct kube_resource br_res_events = {"", "v1", "events", true};

/* --------------------------------------------------------------- observe */

/*
 * Why a pod has not started when its status does not say (a volume that
 * cannot be mounted is only an event): the newest Warning event about it,
 * "<reason>: <message>", into out. Best effort, and asked of the API
 * (events are not cached): only for a pod Pending at the start timeout.
 * out is left as it is when there is none or the API does not answer.
 */
static void pod_warning(struct br_controller *c, const char *ns, const char *pod, char *out,
			size_t len)
{
	char fs[400];
	struct kube_error err = KUBE_ERROR_INIT;
	json_t *list = NULL;
	snprintf(fs, sizeof(fs), "involvedObject.kind=Pod,involvedObject.name=%s,type=Warning",
		 pod);
	if (c->ops.list(c->ops.arg, &br_res_events, ns, fs, &list, &err)) {
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

/* What one observe pass needs to know of the run. */
struct obs_ctx {
	struct br_controller *c;
	const char *ns, *name, *uid;
	const json_t *status; /* the previous status */
	const struct br_spec *s;
	char run_label[64];
	unsigned char key[SB_SIGN_KEY_BYTES];
};

/* The class' PVC, from the cache. */
static void observe_pvc(const struct obs_ctx *x, struct br_obs *o, struct br_class_obs *co)
{
	char buf[64];
	if (sb_name_pvc(buf, sizeof(buf), x->name, co->name))
		return;
	json_t *pvc = x->c->ops.cache_get(x->c->ops.arg, BR_CACHE_PVCS, x->ns, buf);
	if (pvc && owned_by(pvc, x->uid)) {
		const char *ph = jstr(json_object_get(pvc, "status"), "phase");
		co->pvc_exists = meta(pvc, "deletionTimestamp") == NULL;
		co->pvc_deleting = !co->pvc_exists;
		co->pvc_bound = ph && !strcmp(ph, "Bound");
		co->pvc_lost = ph && !strcmp(ph, "Lost");
		co->pvc_created = br_time_parse(meta(pvc, "creationTimestamp"));
		o->cleaned_up = false;
	}
	json_decref(pvc);
}

/* Whether the pod's deletion was confirmed: deletionGracePeriodSeconds 0 is
 * what the kubelet's final delete writes once the containers have stopped
 * and the volumes are released (the object goes right after). */
static bool stop_confirmed(const json_t *pod)
{
	const json_t *g =
		json_object_get(json_object_get(pod, "metadata"), "deletionGracePeriodSeconds");
	return json_is_integer(g) && json_integer_value(g) == 0;
}

/*
 * Runner pods that are gone though the cache still has them leave the
 * observation (the plan then runs the rest in a new pod, as for a pod the
 * cache no longer has), so the plan never calls a node lost that answered:
 * - a pod whose deletion its kubelet confirmed (stop_confirmed): seen under
 *   load, the object stayed a minute after the kubelet's final delete;
 * - a pod still cached BR_POD_GONE_SLACK_S after its deletion was due is
 *   read once from the API server: the cache can be behind (a watch's DELETE
 *   delivered late); gone there, it is gone. Still there: the observation
 *   stands. Unknown (the GET failed): delete_by 0, so the plan waits and asks
 *   again on its next pass instead of failing the class on a guess.
 */
static void confirm_overdue(const struct obs_ctx *x, struct observed *ob, size_t i)
{
	struct br_obs *o = &ob->obs;
	struct br_class_obs *co = &o->classes[i];
	for (size_t k = 0; k < co->npods;) {
		struct br_pod_obs *po = &co->pods[k];
		bool confirmed = po->deleting && stop_confirmed(ob->pods[i][k]);
		if (!confirmed && (!po->deleting || !po->delete_by ||
				   o->now < po->delete_by + BR_POD_GONE_SLACK_S)) {
			k++;
			continue;
		}
		struct kube_error err = KUBE_ERROR_INIT;
		json_t *live = NULL;
		char eb[512];
		int ret = confirmed ? -ENOENT
				    : x->c->ops.get(x->c->ops.arg, &kube_res_pods, x->ns, po->name,
						    &live, &err);
		bool gone = ret == -ENOENT || (ret == 0 && !owned_by(live, x->uid));
		json_decref(live);
		if (ret && !gone) {
			br_metrics_api_error(x->c->metrics);
			sb_warn("Failed to read an overdue runner pod", "pod=%s/%s error=\"%s\"",
				x->ns, po->name, kube_error_str(&err, eb, sizeof(eb)));
			po->delete_by = 0;
		}
		if (!gone) {
			k++;
			continue;
		}
		if (!confirmed)
			sb_info("Runner pod gone from the API server but still cached",
				"pod=%s/%s overdue_s=%ld", x->ns, po->name,
				(long)(o->now - po->delete_by));
		co->npods--;
		memmove(&co->pods[k], &co->pods[k + 1], (co->npods - k) * sizeof(co->pods[0]));
		memmove(&ob->pods[i][k], &ob->pods[i][k + 1],
			(co->npods - k) * sizeof(ob->pods[i][0]));
	}
}

/* The class' runner pods, from the cache; a silent Pending one at the start timeout asks its events why. */
static void observe_pods(const struct obs_ctx *x, struct observed *ob, size_t i,
			 const char *cls_label)
{
	struct br_obs *o = &ob->obs;
	struct br_class_obs *co = &o->classes[i];
	size_t k;
	const json_t *pod;
	json_array_foreach(ob->podlist, k, pod)
	{
		const char *pr = label(pod, SB_LABEL_RUN), *pc = label(pod, SB_LABEL_CLASS);
		if (!pr || !pc || strcmp(pr, x->run_label) || strcmp(pc, cls_label) ||
		    strcmp(meta(pod, "namespace"), x->ns) || !owned_by(pod, x->uid) ||
		    co->npods == BR_MAX_PODS)
			continue;
		ob->pods[i][co->npods] = pod;
		observe_pod(pod, &co->pods[co->npods++]);
		o->cleaned_up = false;
	}
	confirm_overdue(x, ob, i);
	for (k = 0; k < co->npods; k++) {
		struct br_pod_obs *po = &co->pods[k];
		if (po->phase == BR_POD_PENDING && !po->deleting && !po->message[0] &&
		    x->s->start_s > 0 && o->now - po->created >= x->s->start_s)
			pod_warning(x->c, x->ns, po->name, po->message, sizeof(po->message));
	}
}

/* The class' valid results, from the cache: one per iteration, the newest remembered. */
static void observe_results(const struct obs_ctx *x, struct observed *ob, size_t i,
			    const char *cls_label)
{
	struct br_class_obs *co = &ob->obs.classes[i];
	unsigned char seen[1001];
	size_t k;
	const json_t *cm;
	memset(seen, 0, sizeof(seen));
	json_array_foreach(ob->cmlist, k, cm)
	{
		const char *comp = label(cm, SB_LABEL_COMPONENT);
		const char *cr = label(cm, SB_LABEL_RUN), *cc = label(cm, SB_LABEL_CLASS);
		const char *it = label(cm, SB_LABEL_ITERATION);
		if (!comp || strcmp(comp, SB_COMPONENT_RESULT) || !cr || !cc || !it ||
		    strcmp(cr, x->run_label) || strcmp(cc, cls_label) ||
		    strcmp(meta(cm, "namespace"), x->ns) || !owned_by(cm, x->uid))
			continue;
		char *end;
		unsigned long n = strtoul(it, &end, 10);
		if (*end || n < 1 || n > x->s->iterations || n >= sizeof(seen) || seen[n])
			continue;
		/* the rule the runner applies too (lib/result/owner.h) */
		struct sb_result_want want = {x->ns,	x->name,     x->uid,
					      co->name, (unsigned)n, x->key};
		if (br_result_counts(cm, &want, NULL, 0))
			continue;
		seen[n] = 1;
		co->done++;
		time_t t = br_time_parse(meta(cm, "creationTimestamp"));
		if (t >= co->last_result) {
			co->last_result = t;
			ob->newest_result[i] = cm;
		}
	}
}

/* The previous status of the class: terminal decisions, attempts, iterations, engine. */
static void observe_prev(const struct obs_ctx *x, struct observed *ob, size_t i)
{
	struct br_class_obs *co = &ob->obs.classes[i];
	size_t j;
	const json_t *pc;
	json_array_foreach(json_object_get(x->status, "classes"), j, pc)
	{
		if (!jstr(pc, "name") || strcmp(jstr(pc, "name"), co->name))
			continue;
		co->prev_phase = br_class_phase_parse(jstr(pc, "phase"));
		snprintf(co->prev_reason, sizeof(co->prev_reason), "%s",
			 jstr(pc, "reason") ? jstr(pc, "reason") : "");
		snprintf(co->prev_message, sizeof(co->prev_message), "%s",
			 jstr(pc, "message") ? jstr(pc, "message") : "");
		const json_t *at = json_object_get(pc, "attempts");
		co->prev_attempts = json_is_integer(at) ? (unsigned)json_integer_value(at) : 0;
		const json_t *dn = json_object_get(pc, "iterationsDone");
		ob->prev_done[i] = json_is_integer(dn) ? (unsigned)json_integer_value(dn) : 0;
		snprintf(ob->engine[i], sizeof(ob->engine[i]), "%s",
			 jstr(pc, "engine") ? jstr(pc, "engine") : "");
	}
}

/*
 * The pod of the last attempt is not in the cache: not seen yet (this
 * process created it a moment ago: in flight), or gone (controller.h).
 */
static void observe_last_pod(const struct obs_ctx *x, struct br_obs *o, struct br_class_obs *co)
{
	unsigned seen_attempt = 0;
	char pn[64];
	for (size_t k = 0; k < co->npods; k++)
		if (co->pods[k].attempt > seen_attempt)
			seen_attempt = co->pods[k].attempt;
	if (co->prev_attempts > seen_attempt && co->prev_phase != BR_CLASS_FAILED &&
	    co->prev_phase != BR_CLASS_SUCCEEDED && co->done < x->s->iterations &&
	    !sb_name_pod(pn, sizeof(pn), x->name, co->name, co->prev_attempts))
		co->last_pod_gone = !br_inflight_has(x->c, x->ns, pn, o->now);
}

/* Which engine ran: from the newest result. */
static void observe_engine(struct observed *ob, size_t i)
{
	if (!ob->newest_result[i])
		return;
	const char *ve = br_result_verdict_engine(ob->newest_result[i]);
	if (ve) { /* cached without its data (controller/core/resultcache.h) */
		if (*ve)
			snprintf(ob->engine[i], sizeof(ob->engine[i]), "%s", ve);
		return;
	}
	const char *text = jstr(json_object_get(ob->newest_result[i], "data"), SB_RESULT_KEY);
	json_t *doc = text ? json_loads(text, 0, NULL) : NULL;
	char eng[sizeof(ob->engine[i])];
	br_result_engine(doc, eng, sizeof(eng));
	if (*eng)
		snprintf(ob->engine[i], sizeof(ob->engine[i]), "%s", eng);
	json_decref(doc);
}

static int observe_class(const struct obs_ctx *x, struct observed *ob, size_t i)
{
	struct br_obs *o = &ob->obs;
	struct br_class_obs *co = &o->classes[i];
	char cls_label[64];
	co->name = x->s->classes[i];
	if (sb_name_label(cls_label, sizeof(cls_label), co->name))
		return -EINVAL;
	json_t *sc = x->c->ops.cache_get(x->c->ops.arg, BR_CACHE_SCS, NULL, co->name);
	co->sc_exists = sc != NULL;
	json_decref(sc);
	if (br_objstore_find(x->s->obj, co->name))
		/* an object store: no storage class, no PVC */
		co->sc_exists = co->no_volume = co->pvc_bound = true;
	observe_pvc(x, o, co);
	observe_pods(x, ob, i, cls_label);
	observe_results(x, ob, i, cls_label);
	observe_prev(x, ob, i);
	observe_last_pod(x, o, co);
	if (x->s->pods > 1) {
		struct br_ref ref = {x->ns, x->name, x->uid};
		bool left = false;
		int dr = br_dist_observe(&x->c->ops, &ref, x->s, ob->podlist, ob->cmlist, o->now,
					 co, &ob->dist[i], &left);
		if (dr)
			return dr;
		if (left)
			o->cleaned_up = false;
	}
	observe_engine(ob, i);
	return 0;
}

/* What the informer caches say of the run, into ob (zeroed here). Reads no API. */
static int observe(struct br_controller *c, const json_t *run, const struct br_spec *s,
		   struct observed *ob)
{
	struct obs_ctx x = {c,
			    meta(run, "namespace"),
			    meta(run, "name"),
			    meta(run, "uid"),
			    json_object_get(run, "status"),
			    s,
			    "",
			    {0}};
	struct br_obs *o = &ob->obs;
	char buf[64];

	memset(ob, 0, sizeof(*ob));
	if (sb_name_label(x.run_label, sizeof(x.run_label), x.name))
		return -EINVAL;
	int kr = br_runkey_derive(x.uid, x.key);
	if (kr)
		return kr;
	o->now = c->ops.now(c->ops.arg);
	o->start = br_time_parse(jstr(x.status, "startTime"));
	if (!o->start)
		o->start = o->now;
	const char *phase = jstr(x.status, "phase");
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

	ob->podlist = c->ops.cache_list(c->ops.arg, BR_CACHE_PODS, x.ns, x.run_label);
	ob->cmlist = c->ops.cache_list(c->ops.arg, BR_CACHE_CMS, x.ns, x.run_label);
	if (!ob->podlist || !ob->cmlist)
		return -ENOMEM;
	for (size_t i = 0; i < s->nclasses; i++) {
		int r = observe_class(&x, ob, i);
		if (r)
			return r;
	}
	if (sb_name_report(buf, sizeof(buf), x.name))
		return -EINVAL;
	json_t *rep = c->ops.cache_get(c->ops.arg, BR_CACHE_CMS, x.ns, buf);
	o->report_exists = rep && owned_by(rep, x.uid);
	json_decref(rep);
	return 0;
}

/* ----------------------------------------------------------------- apply */

static void emit(struct br_controller *c, const struct br_ref *ref, const struct br_event *e)
{
	pthread_mutex_lock(&c->mu);
	unsigned seq = c->event_seq++;
	pthread_mutex_unlock(&c->mu);
	json_t *ev = br_event_manifest(ref, e, c->ops.now(c->ops.arg), seq);
	struct kube_error err = KUBE_ERROR_INIT;
	char eb[512];
	if (ev && c->ops.create(c->ops.arg, &br_res_events, ref->ns, ev, &err) != 0) {
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
	char eb[512];
	int ret = c->ops.del(c->ops.arg, r, ns, name, &err);
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
 * already exists counts as done only when it is the run's (lib/result/owner.h):
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
	int ret = c->ops.create(c->ops.arg, r, ref->ns, obj, &err);
	json_decref(obj);
	if (ret == -EEXIST && r == &kube_res_secrets)
		return 0; /* the run's key Secret: the controller may not read Secrets
			   * (controller/run/runkey.h); its name holds the run's UID */
	if (ret == -EEXIST) {
		ret = c->ops.get(c->ops.arg, r, ref->ns, oname, &have, &err);
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
			const struct observed *ob, json_t **report, char *rerr, size_t rerrlen)
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
					emitf(c, ref, true, "InvalidResult",
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
		emitf(c, ref, true, "BaselineNotFound", "%s: not compared", err);
		goto out;
	}
	if (br) {
		emitf(c, ref, true, "BaselineInvalid", "%s", err);
		goto out;
	}
	if (sb_compare(brep, report, &cmp, err, sizeof(err))) {
		emitf(c, ref, true, "BaselineInvalid", "comparison with '%s' failed: %s", baseline,
		      err);
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
		emitf(c, ref, false, "ComparedWithBaseline",
		      "compared with '%s': %zu significant change%s (Welch's t-test, alpha 0.05); "
		      "see compare.txt in the report",
		      baseline, sig, sig == 1 ? "" : "s");
out:
	json_decref(brep);
	json_decref(cmp);
}

static int fail_invalid(struct br_controller *c, const struct br_ref *ref, const json_t *run,
			const char *msg, json_int_t gen)
{
	const json_t *prev = json_object_get(run, "status");
	const char *pp = jstr(prev, "phase");
	if (!pp || strcmp(pp, "Failed") || !jstr(prev, "message") ||
	    strcmp(jstr(prev, "message"), msg))
		emitf(c, ref, true, "InvalidSpec", "%s", msg);
	json_t *st = br_status_invalid(prev, msg, gen, c->ops.now(c->ops.arg));
	if (!st)
		return -ENOMEM;
	int r = br_status_write(c, &br_res_benchmarkruns, run, st);
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

/* ------------------------------------------------------------ one pass */

/* What the apply step came to (the plan itself is not changed). */
struct applied {
	unsigned attempts[BR_MAX_CLASSES]; /* the plan's, less a create that did not happen */
	char err[BR_MAX_CLASSES][640];	   /* why an action of the class failed; "" none */
	char reason[BR_MAX_CLASSES][32];
	int failures;
	bool waiting; /* an old object of a name goes away: look again soon */
};

/* One reconcile pass of one run: observe -> plan -> apply -> report -> status -> events. */
struct pass {
	struct br_controller *c;
	json_t *run;	    /* owned */
	const json_t *prev; /* the run's status (borrowed from run) */
	struct br_ref ref;
	json_int_t gen;
	struct br_spec s;
	struct observed *ob;
	struct br_plan *plan;
	struct applied ap;
	/* the report step */
	bool terminal; /* ended, and the report (if any) written */
	json_t *report;
	char report_name[64], report_err[640];
	bool report_final; /* report_err will not go away by retrying */
};

/* The run's spec against the runner policy and Pod Security; 0, 1 (refused and recorded) or -errno. */
static int check_spec(struct pass *p)
{
	struct br_controller *c = p->c;
	char err[1024], pss_why[256];
	int ret = 0;
	if (br_spec_parse(json_object_get(p->run, "spec"), c->opts.runner_image,
			  c->opts.runner_service_account, &p->s, err, sizeof(err)))
		goto refuse;
	/* the runner policy, before anything is created; then the pod itself,
	 * evaluated as Pod Security admission would, in case a rule slipped */
	if (br_policy_check(&c->policy, &p->s, err, sizeof(err)))
		goto refuse;
	json_t *pod0 = br_pod_manifest(&p->ref, &p->s, p->s.classes[0], 1, p->s.iterations);
	if (!pod0)
		return -ENOMEM;
	if (c->policy.allow_host_network) /* the one exception the policy grants apart */
		json_object_del(json_object_get(pod0, "spec"), "hostNetwork");
	enum br_pss_level lvl = br_pss_evaluate(pod0, pss_why, sizeof(pss_why));
	json_decref(pod0);
	if (lvl > c->policy.pod_security) {
		snprintf(err, sizeof(err),
			 "spec.runner: the runner pod would be '%s' (%s), more than the runner "
			 "policy's pod security '%s' allows",
			 br_pss_level_name(lvl), pss_why,
			 br_pss_level_name(c->policy.pod_security));
		goto refuse;
	}
	if (p->s.nclasses > BR_MAX_CLASSES) {
		snprintf(err, sizeof(err), "spec.storageClasses: too many");
		goto refuse;
	}
	return 0;
refuse:
	ret = fail_invalid(c, &p->ref, p->run, err, p->gen);
	return ret ? ret : 1;
}

/* spec.lifecycle: volume lifecycle timings before the I/O (controller/lifecycle/lifecycle.c). */
static int lifecycle_step(struct pass *p, long *requeue_ms)
{
	char lc_event[640], err[1024];
	if (!p->s.lifecycle.enabled)
		return 0;
	int lr = br_lifecycle_step(&p->c->ops, &p->ref, &p->s, p->run, lc_event, sizeof(lc_event),
				   err, sizeof(err));
	if (lc_event[0])
		emitf(p->c, &p->ref, false, "LifecycleMeasured", "%s", lc_event);
	if (lr < 0 && first_announcement(p->c, p->ref.uid, err))
		emitf(p->c, &p->ref, true, "LifecycleFailed", "%s (retrying)", err);
	if (lr)
		*requeue_ms = lr > 0 ? 1 : 0;
	return lr < 0 ? -EAGAIN : lr > 0 ? 1 : 0;
}

/* A runner pod's creation: its key Secret, its spec ConfigMap, then the pod (in flight until seen). */
static int create_runner(struct pass *p, const struct br_action *a, char *why, size_t whylen)
{
	struct br_controller *c = p->c;
	const char *cls = p->s.classes[a->cls];
	char nm[64];
	int r = create(c, &kube_res_secrets, &p->ref, br_runkey_secret_manifest(&p->ref),
		       "key secret", why, whylen);
	if (r >= 0 && p->s.jobfile)
		r = create(c, &kube_res_configmaps, &p->ref, br_spec_cm_manifest(&p->ref, &p->s),
			   "spec configmap", why, whylen);
	if (r < 0)
		return r;
	if (sb_name_pod(nm, sizeof(nm), p->ref.name, cls, a->attempt))
		return -EINVAL;
	br_inflight_add(c, p->ref.ns, nm, p->ob->obs.now);
	r = create(c, &kube_res_pods, &p->ref,
		   br_pod_manifest(&p->ref, &p->s, cls, a->attempt, p->s.iterations), "runner pod",
		   why, whylen);
	if (r < 0)
		br_inflight_drop(c, p->ref.ns, nm);
	if (r == 1)
		emitf(c, &p->ref, false, "CreatedRunner",
		      "%s: created runner pod %s (attempt %u, %u iterations done)", cls, nm,
		      a->attempt, p->ob->obs.classes[a->cls].done);
	return r;
}

/* One action of the plan: 1 done (created), 0 nothing to do, -EINPROGRESS wait, -errno. */
static int apply_action(struct pass *p, const struct br_action *a, char *why, size_t whylen)
{
	struct br_controller *c = p->c;
	const char *cls = p->s.classes[a->cls];
	char nm[64];
	int r = 0;
	if (p->s.pods > 1 && a->kind != BR_ACT_WRITE_REPORT) {
		/* a distributed class: the action on every member */
		r = br_dist_apply_action(&c->ops, &p->ref, &p->s, a, &p->ob->obs.classes[a->cls],
					 &p->ob->dist[a->cls], why, whylen);
		if (r < 0)
			br_metrics_api_error(c->metrics);
		if (r == 1 && a->kind == BR_ACT_CREATE_POD)
			emitf(c, &p->ref, false, "CreatedRunner",
			      "%s: created %u runner pods (attempt %u, %u iterations done)", cls,
			      p->s.pods, a->attempt, p->ob->obs.classes[a->cls].done);
		return r;
	}
	switch (a->kind) {
	case BR_ACT_CREATE_PVC:
		r = create(c, &kube_res_pvcs, &p->ref, br_pvc_manifest(&p->ref, &p->s, cls), "pvc",
			   why, whylen);
		if (r == 1 && !sb_name_pvc(nm, sizeof(nm), p->ref.name, cls))
			emitf(c, &p->ref, false, "CreatedVolume", "%s: created PVC %s (%s, %s, %s)",
			      cls, nm, p->s.volume_size, p->s.access_mode,
			      p->s.block ? "Block" : "Filesystem");
		return r;
	case BR_ACT_CREATE_POD:
		return create_runner(p, a, why, whylen);
	case BR_ACT_DELETE_POD:
		return delete_obj(c, &kube_res_pods, p->ref.ns, a->name);
	case BR_ACT_DELETE_PVC:
		if (!sb_name_pvc(nm, sizeof(nm), p->ref.name, cls))
			r = delete_obj(c, &kube_res_pvcs, p->ref.ns, nm);
		return r;
	case BR_ACT_WRITE_REPORT:
		break; /* the report step */
	}
	return 0;
}

/* The plan's actions; a create that fails is not an attempt, and the user is told why. */
static void apply(struct pass *p)
{
	const struct br_plan *plan = p->plan;
	struct applied *ap = &p->ap;
	for (size_t i = 0; i < p->s.nclasses; i++)
		ap->attempts[i] = plan->classes[i].attempts;
	for (size_t i = 0; i < plan->nactions; i++) {
		const struct br_action *a = &plan->actions[i];
		char why[640] = "";
		int r = apply_action(p, a, why, sizeof(why));
		if (r < 0 && a->kind == BR_ACT_CREATE_POD && ap->attempts[a->cls] == a->attempt)
			ap->attempts[a->cls]--; /* it never ran */
		if (r == -EINPROGRESS)
			ap->waiting = true; /* an old object of the name goes away: not a failure */
		else if (r < 0)
			ap->failures++;
		if (r < 0 && why[0] && !ap->err[a->cls][0]) {
			snprintf(ap->err[a->cls], sizeof(ap->err[a->cls]), "%s", why);
			snprintf(ap->reason[a->cls], sizeof(ap->reason[a->cls]), "%s",
				 r == -EACCES	     ? "Forbidden"
				 : r == -EEXIST	     ? "ObjectConflict"
				 : r == -EINPROGRESS ? "WaitingForOldObject"
						     : "CreateFailed");
		}
	}
	/* distributed classes: start the iterations whose pods are all at the barrier,
	 * stop what is left of failed attempts */
	for (size_t i = 0; i < p->s.nclasses && p->s.pods > 1; i++) {
		if (plan->classes[i].phase != BR_CLASS_RUNNING)
			p->ob->dist[i].nstarts = 0;
		if (br_dist_start(&p->c->ops, &p->ref, p->s.classes[i], &p->ob->dist[i]) < 0)
			ap->failures++;
	}
}

/*
 * A plan event the RunFailed event of this same pass says in full: the run
 * fails now with nothing to report (so record() announces it in this pass,
 * Warning, its message naming every failed class and why), and e is the
 * failure of a class that never started (no volume, no runner: e.g. its
 * storage class does not exist), word for word "<class>: <message>" as the
 * RunFailed message carries it ("StorageClassNotFound: c: storage class 'c'
 * does not exist" said again as "RunFailed: Failed: c: storage class 'c'
 * does not exist"). The class's reason stays in status.classes[] and the
 * Succeeded condition. A class that failed after it started (its runner
 * refused, OOMKilled...) keeps its own event.
 */
static bool said_by_run_failed(const struct pass *p, const struct br_event *e)
{
	const char *pp = jstr(p->prev, "phase");
	if (!e->warning || p->plan->phase != BR_RUN_FAILED || p->plan->done != 0 ||
	    (pp && !strcmp(pp, "Failed")) || !strstr(p->plan->message, e->message))
		return false;
	for (size_t i = 0; i < p->s.nclasses; i++) {
		const struct br_class_plan *cp = &p->plan->classes[i];
		size_t n = strlen(p->s.classes[i]);
		if (cp->phase == BR_CLASS_FAILED && cp->attempts == 0 &&
		    !strncmp(e->message, p->s.classes[i], n) && !strncmp(e->message + n, ": ", 2) &&
		    !strcmp(e->message + n + 2, cp->message))
			return true;
	}
	return false;
}

/* The apply step's warnings (one per new problem, not one per retry), then the plan's events. */
static void apply_events(struct pass *p)
{
	for (size_t i = 0; i < p->s.nclasses; i++) {
		const char *e = p->ap.err[i];
		if (!e[0] || prev_class_message(p->prev, p->s.classes[i], e) ||
		    !first_announcement(p->c, p->ref.uid, e))
			continue;
		emitf(p->c, &p->ref, true, p->ap.reason[i], "%s: %s", p->s.classes[i], e);
	}
	for (size_t i = 0; i < p->plan->nevents; i++)
		if (!said_by_run_failed(p, &p->plan->events[i]))
			emit(p->c, &p->ref, &p->plan->events[i]);
}

/* A report create that failed: retried with backoff, said once. */
static void report_create_failed(struct pass *p, int r)
{
	if (r == -EINPROGRESS)
		p->ap.waiting = true;
	else
		p->ap.failures++;
	if (!prev_message(p->prev, p->report_err) &&
	    first_announcement(p->c, p->ref.uid, p->report_err))
		emitf(p->c, &p->ref, true,
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
static void report_written(struct pass *p, bool created)
{
	bool first = first_announcement(p->c, p->ref.uid, "ReportWritten");
	if (created || (first && !jstr(p->prev, "report")))
		emitf(p->c, &p->ref, false, "ReportWritten",
		      "report written to configmap %s-report (%u iterations)", p->ref.name,
		      p->plan->done);
}

/*
 * The run's report as written in its ConfigMap (the cache keeps a
 * report's data): once written, the report is read back, not built again
 * (building fetches every result: controller/core/resultcache.h). NULL when
 * there is none or it cannot be read.
 */
static json_t *written_report(struct pass *p)
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
static int report_step(struct pass *p)
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
		if (!prev_message(p->prev, p->report_err) &&
		    first_announcement(p->c, p->ref.uid, p->report_err))
			emitf(p->c, &p->ref, true, "ReportFailed", "%s", p->report_err);
	} else if (br || (!written && add_provenance(p->c, &p->ref, &p->s, p->ob, p->report))) {
		return br == -EAGAIN ? -EAGAIN : -ENOMEM;
	}
	if (p->report && !p->ob->obs.report_exists) {
		json_t *cm = br_report_cm_manifest(&p->ref, p->report);
		if (cm && p->s.baseline[0])
			compare_with_baseline(p->c, &p->ref, p->run, p->s.baseline, p->report, cm);
		int r = create(p->c, &kube_res_configmaps, &p->ref, cm, "report configmap",
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

/* The new status (pure: controller/run/status.c) and the Regressed condition. NULL on ENOMEM. */
static json_t *status_step(struct pass *p)
{
	struct br_status_in in = {
		.run = p->ref.name,
		.plan = p->plan,
		.nclasses = p->s.nclasses,
		.pods = p->s.pods,
		.terminal = p->terminal,
		.report_name = p->report_name,
		.report_err = p->report_err,
		.report_final = p->report_final,
		.report = p->report,
		.prev = p->prev,
		.gen = p->gen,
		.now = p->ob->obs.now,
	};
	for (size_t i = 0; i < p->s.nclasses; i++)
		in.classes[i] = (struct br_status_class){
			p->s.classes[i],
			p->ob->obs.classes[i].done,
			p->ap.attempts[i],
			p->ob->engine[i],
			p->ap.err[i][0] ? p->ap.reason[i] : "",
			p->ap.err[i],
		};
	json_t *status = br_status_compute(&in);
	if (status && p->terminal && p->report_name[0]) {
		/* the Regressed condition, from the comparison with the baseline */
		json_t *rcm =
			p->c->ops.cache_get(p->c->ops.arg, BR_CACHE_CMS, p->ref.ns, p->report_name);
		struct br_event rev;
		int rr = br_regression_condition(rcm, p->run, status, p->gen, in.now, &rev);
		json_decref(rcm);
		if (rr < 0) {
			json_decref(status);
			return NULL;
		}
		if (rr == 1)
			emit(p->c, &p->ref, &rev);
	}
	return status;
}

/*
 * The run's end announced, the status written, and the newly recorded
 * iterations counted: once, only by a pass whose status write succeeded (a
 * pass from a stale cache reads an older iterationsDone, and its
 * conditional write is refused with 409). Returns br_status_write's answer.
 */
static int record(struct pass *p, json_t *status)
{
	const struct br_plan *plan = p->plan;
	const char *pp = jstr(p->prev, "phase");
	const char *phase = jstr(status, "phase");
	if (p->terminal && (!pp || strcmp(pp, phase)) &&
	    first_announcement(p->c, p->ref.uid, phase))
		emitf(p->c, &p->ref, plan->phase == BR_RUN_FAILED,
		      plan->phase == BR_RUN_SUCCEEDED ? "RunSucceeded" : "RunFailed", "%s: %s",
		      phase, plan->message);
	int wr = br_status_write(p->c, &br_res_benchmarkruns, p->run, status);
	for (size_t i = 0; i < p->s.nclasses && wr == 0; i++) {
		unsigned d = p->ob->obs.classes[i].done;
		if (d > p->ob->prev_done[i]) {
			br_metrics_iterations(p->c->metrics, d - p->ob->prev_done[i]);
			emitf(p->c, &p->ref, false, "IterationsRecorded",
			      "%s: %u of %u iterations done", p->s.classes[i], d, p->s.iterations);
		}
	}
	return wr;
}

/* When to look at the run again. */
static long requeue_after(const struct pass *p, int wr)
{
	long ms = p->plan->requeue_s ? p->plan->requeue_s * 1000 : 0;
	if (p->ap.waiting && (!ms || ms > 1000))
		ms = 1000; /* the old object is deleted soon: look again */
	if (wr == 1 && (!ms || ms > 200))
		ms = 200; /* the watch brings the newer run soon; in case it does not */
	return ms;
}

/* The run from the cache and its spec: 0 (go on), 1 (nothing more to do now), -errno. */
static int load(struct pass *p, const char *ns, const char *name, long *requeue_ms)
{
	struct br_controller *c = p->c;
	p->run = c->ops.cache_get(c->ops.arg, BR_CACHE_RUNS, ns, name);
	if (!p->run || meta(p->run, "deletionTimestamp"))
		return 1; /* gone: garbage collection removes what it owned */
	p->ref = (struct br_ref){ns, name, meta(p->run, "uid")};
	const json_t *gj = json_object_get(json_object_get(p->run, "metadata"), "generation");
	p->gen = json_is_integer(gj) ? json_integer_value(gj) : 0;
	p->prev = json_object_get(p->run, "status");
	if (!p->ref.uid)
		return -EINVAL;
	if (br_status_behind(c, p->run)) {
		sb_debug("Run not reconciled: the cache has not seen this process's status write",
			 "run=%s/%s", ns, name);
		*requeue_ms = 1000; /* the watch brings it sooner; in case it does not */
		return 1;
	}
	if (json_object_get(json_object_get(p->run, "spec"), "sweep")) {
		/* a saturation sweep: its steps are runs of their own (sweep/reconcile.c) */
		int sr = br_sweep_reconcile(c, &p->ref, p->run, p->gen, requeue_ms);
		return sr < 0 ? sr : 1;
	}
	int r = check_spec(p);
	if (r)
		return r;
	r = lifecycle_step(p, requeue_ms);
	return r ? r : 0;
}

static void pass_release(struct pass *p)
{
	if (p->ob) {
		json_decref(p->ob->podlist);
		json_decref(p->ob->cmlist);
	}
	free(p->ob);
	free(p->plan);
	json_decref(p->report);
	json_decref(p->run);
	br_spec_release(&p->s);
	free(p);
}

int br_reconcile(struct br_controller *c, const char *ns, const char *name, long *requeue_ms)
{
	struct pass *p = calloc(1, sizeof(*p));
	json_t *status = NULL;
	int ret;

	*requeue_ms = 0;
	if (!p)
		return -ENOMEM;
	p->c = c;
	ret = load(p, ns, name, requeue_ms);
	if (ret)
		goto out;
	p->ob = calloc(1, sizeof(*p->ob));
	p->plan = calloc(1, sizeof(*p->plan));
	if (!p->ob || !p->plan) {
		ret = -ENOMEM;
		goto out;
	}
	if ((ret = observe(c, p->run, &p->s, p->ob)))
		goto out;
	br_plan_compute(&p->ob->obs, p->plan);
	apply(p);
	apply_events(p);
	if ((ret = report_step(p)))
		goto out;
	status = status_step(p);
	if (!status) {
		ret = -ENOMEM;
		goto out;
	}
	int wr = record(p, status);
	if (wr < 0)
		p->ap.failures++;
	ret = p->ap.failures ? -EAGAIN : 0;
	*requeue_ms = requeue_after(p, wr);
out:
	if (ret == 1)
		ret = 0;
	json_decref(status);
	pass_release(p);
	return ret;
}
