/* SPDX-License-Identifier: MIT */
/*
 * The observe step of a pass (controller/run/pass.h): what the informer
 * caches say of the run, its storage classes, PVCs, runner pods, results
 * and previous status, into the plan's observation (plan.h). Reads the API
 * only for a silent Pending pod's events and a pod overdue in the cache.
 */
#include "controller/run/pass.h"

#include "controller/core/resultcache.h"
#include "controller/run/objstore.h"
#include "controller/run/runkey.h"
#include "core/jsonobj.h"
#include "core/labels.h"
#include "core/log.h"
#include "core/names.h"
#include "result/owner.h"
#include "result/resultdoc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
static void confirm_overdue(const struct obs_ctx *x, struct br_observed *ob, size_t i)
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
static void observe_pods(const struct obs_ctx *x, struct br_observed *ob, size_t i,
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
static void observe_results(const struct obs_ctx *x, struct br_observed *ob, size_t i,
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
static void observe_prev(const struct obs_ctx *x, struct br_observed *ob, size_t i)
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
static void observe_engine(struct br_observed *ob, size_t i)
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

static int observe_class(const struct obs_ctx *x, struct br_observed *ob, size_t i)
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
int br_pass_observe(struct br_controller *c, const json_t *run, const struct br_spec *s,
		    struct br_observed *ob)
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
