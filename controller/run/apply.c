/* SPDX-License-Identifier: MIT */
/*
 * The apply step of a pass (controller/run/pass.h): the plan's actions
 * (create the PVCs and runner pods, delete what is done), a create that
 * finds the name taken checked against the run's UID, and the events of
 * what happened.
 */
#include "controller/run/pass.h"

#include "controller/core/proof.h"
#include "controller/run/runkey.h"
#include "core/jsonobj.h"
#include "core/log.h"
#include "core/names.h"
#include "result/owner.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

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

/*
 * Creates obj (consumed, signed) for the run ref: br_create_owned
 * (controller/core/proof.h), with the stale object of an earlier run of the
 * name deleted, and API errors counted and logged. Returns 1 (created), 0
 * (exists and is the run's), -EINPROGRESS (wait and look again; why says
 * what for), -EEXIST (a foreign object has the name; why names it), -errno
 * with the API's answer in why (may be NULL).
 */
int br_pass_create(struct br_controller *c, const struct kube_resource *r, const struct br_ref *ref,
		   json_t *obj, const char *what, char *why, size_t whylen)
{
	struct kube_error err = KUBE_ERROR_INIT;
	char msg[700], oname[254];
	bool stale = false;
	snprintf(oname, sizeof(oname), "%s", meta(obj, "name") ? meta(obj, "name") : "");
	int ret = br_create_owned(&c->ops, r, ref->ns, ref->name, ref->uid, obj, what, &stale, &err,
				  msg, sizeof(msg));
	if (stale)
		(void)delete_obj(c, r, ref->ns, oname); /* its owner is gone */
	if (ret == -EEXIST || ret == -EINPROGRESS) {
		sb_info("An object of the run's name is not the run's",
			"run=%s/%s object=%s why=\"%s\"", ref->ns, ref->name, oname, msg);
	} else if (ret < 0) {
		if (err.http_code || err.curl[0])
			br_metrics_api_error(c->metrics);
		sb_warn("Failed to create an object", "what=%s ns=%s error=\"%s\"", what, ref->ns,
			msg);
	}
	if (ret < 0 && why)
		snprintf(why, whylen, "%s", msg);
	return ret;
}

/* A runner pod's creation: its key Secret, its spec ConfigMap, then the pod (in flight until seen). */
static int create_runner(struct br_pass *p, const struct br_action *a, char *why, size_t whylen)
{
	struct br_controller *c = p->c;
	const char *cls = p->s.classes[a->cls];
	char nm[64];
	int r = br_pass_create(c, &kube_res_secrets, &p->ref, br_runkey_secret_manifest(&p->ref),
			       "key secret", why, whylen);
	if (r >= 0 && p->s.jobfile)
		r = br_pass_create(c, &kube_res_configmaps, &p->ref,
				   br_spec_cm_manifest(&p->ref, &p->s), "spec configmap", why,
				   whylen);
	if (r < 0)
		return r;
	if (sb_name_pod(nm, sizeof(nm), p->ref.name, cls, a->attempt))
		return -EINVAL;
	br_inflight_add(c, p->ref.ns, nm, p->ob->obs.now);
	r = br_pass_create(c, &kube_res_pods, &p->ref,
			   br_pod_manifest(&p->ref, &p->s, cls, a->attempt, p->s.iterations),
			   "runner pod", why, whylen);
	if (r < 0)
		br_inflight_drop(c, p->ref.ns, nm);
	if (r == 1)
		br_pass_emitf(c, &p->ref, false, "CreatedRunner",
			      "%s: created runner pod %s (attempt %u, %u iterations done)", cls, nm,
			      a->attempt, p->ob->obs.classes[a->cls].done);
	return r;
}

/* One action of the plan: 1 done (created), 0 nothing to do, -EINPROGRESS wait, -errno. */
static int apply_action(struct br_pass *p, const struct br_action *a, char *why, size_t whylen)
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
			br_pass_emitf(c, &p->ref, false, "CreatedRunner",
				      "%s: created %u runner pods (attempt %u, %u iterations done)",
				      cls, p->s.pods, a->attempt, p->ob->obs.classes[a->cls].done);
		return r;
	}
	switch (a->kind) {
	case BR_ACT_CREATE_PVC:
		r = br_pass_create(c, &kube_res_pvcs, &p->ref, br_pvc_manifest(&p->ref, &p->s, cls),
				   "pvc", why, whylen);
		if (r == 1 && !sb_name_pvc(nm, sizeof(nm), p->ref.name, cls))
			br_pass_emitf(c, &p->ref, false, "CreatedVolume",
				      "%s: created PVC %s (%s, %s, %s)", cls, nm, p->s.volume_size,
				      p->s.access_mode, p->s.block ? "Block" : "Filesystem");
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
void br_pass_apply(struct br_pass *p)
{
	const struct br_plan *plan = p->plan;
	struct br_applied *ap = &p->ap;
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
 * fails now with nothing to report (so br_pass_record() announces it in this pass,
 * Warning, its message naming every failed class and why), and e is the
 * failure of a class that never started (no volume, no runner: e.g. its
 * storage class does not exist), word for word "<class>: <message>" as the
 * RunFailed message carries it ("StorageClassNotFound: c: storage class 'c'
 * does not exist" said again as "RunFailed: Failed: c: storage class 'c'
 * does not exist"). The class's reason stays in status.classes[] and the
 * Succeeded condition. A class that failed after it started (its runner
 * refused, OOMKilled...) keeps its own event.
 */
static bool said_by_run_failed(const struct br_pass *p, const struct br_event *e)
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
void br_pass_apply_events(struct br_pass *p)
{
	for (size_t i = 0; i < p->s.nclasses; i++) {
		const char *e = p->ap.err[i];
		if (!e[0] || br_pass_prev_class_message(p->prev, p->s.classes[i], e) ||
		    !br_pass_first_announcement(p->c, p->ref.uid, e))
			continue;
		br_pass_emitf(p->c, &p->ref, true, p->ap.reason[i], "%s: %s", p->s.classes[i], e);
	}
	for (size_t i = 0; i < p->plan->nevents; i++)
		if (!said_by_run_failed(p, &p->plan->events[i]))
			br_pass_emit(p->c, &p->ref, &p->plan->events[i]);
}
