/* SPDX-License-Identifier: MIT */
/*
 * Reconcile one BenchmarkRun, one pass (controller/run/pass.h): load the
 * run and check its spec, the lifecycle step, then observe (observe.c, the
 * informer caches only), plan (plan.c, pure), apply (apply.c: create and
 * delete through the API), the report when the run ends (report.c), the
 * status (record.c: status.c's, one write per pass when something changed)
 * and the events (events.c). Every call goes through the controller's
 * operations table (ops.h), so the unit tests run a pass against objects
 * in memory.
 */
#include "controller/run/pass.h"
#include "controller/run/reconcile.h"

#include "controller/core/status.h"
#include "controller/lifecycle/lifecycle.h"
#include "controller/run/policy.h"
#include "controller/sweep/reconcile.h"
#include "core/jsonobj.h"
#include "core/labels.h"
#include "core/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The run's spec against the runner policy and Pod Security; 0, 1 (refused and recorded) or -errno. */
static int check_spec(struct br_pass *p)
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
	/* the object stores' Secrets consent, before the run starts (no classes yet) */
	if (!json_array_size(json_object_get(p->prev, "classes"))) {
		int cr = br_policy_check_credentials(&c->ops, p->ref.ns, &p->s, err, sizeof(err));
		if (cr < 0)
			sb_warn("Could not check the credentials' consent",
				"run=%s/%s error=\"%s\"", p->ref.ns, p->ref.name, err);
		if (cr < 0)
			return cr;
		if (cr)
			goto refuse;
	}
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
	ret = br_pass_fail_invalid(c, &p->ref, p->run, err, p->gen);
	return ret ? ret : 1;
}

/* spec.lifecycle: volume lifecycle timings before the I/O (controller/lifecycle/lifecycle.c). */
static int lifecycle_step(struct br_pass *p, long *requeue_ms)
{
	char lc_event[640], err[1024];
	if (!p->s.lifecycle.enabled)
		return 0;
	int lr = br_lifecycle_step(&p->c->ops, &p->ref, &p->s, p->run, lc_event, sizeof(lc_event),
				   err, sizeof(err));
	if (lc_event[0])
		br_pass_emitf(p->c, &p->ref, false, "LifecycleMeasured", "%s", lc_event);
	if (lr < 0 && br_pass_first_announcement(p->c, p->ref.uid, err))
		br_pass_emitf(p->c, &p->ref, true, "LifecycleFailed", "%s (retrying)", err);
	if (lr)
		*requeue_ms = lr > 0 ? 1 : 0;
	return lr < 0 ? -EAGAIN : lr > 0 ? 1 : 0;
}

/* When to look at the run again. */
static long requeue_after(const struct br_pass *p, int wr)
{
	long ms = p->plan->requeue_s ? p->plan->requeue_s * 1000 : 0;
	if (p->ap.waiting && (!ms || ms > 1000))
		ms = 1000; /* the old object is deleted soon: look again */
	if (wr == 1 && (!ms || ms > 200))
		ms = 200; /* the watch brings the newer run soon; in case it does not */
	return ms;
}

/* The run from the cache and its spec: 0 (go on), 1 (nothing more to do now), -errno. */
static int load(struct br_pass *p, const char *ns, const char *name, long *requeue_ms)
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

static void pass_release(struct br_pass *p)
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
	struct br_pass *p = calloc(1, sizeof(*p));
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
	if ((ret = br_pass_observe(c, p->run, &p->s, p->ob)))
		goto out;
	br_plan_compute(&p->ob->obs, p->plan);
	br_pass_apply(p);
	br_pass_apply_events(p);
	if ((ret = br_pass_report_step(p)))
		goto out;
	status = br_pass_status(p);
	if (!status) {
		ret = -ENOMEM;
		goto out;
	}
	int wr = br_pass_record(p, status);
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
