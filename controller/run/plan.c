/* SPDX-License-Identifier: MIT */
#include "controller/run/plan.h"

#include "controller/run/spec.h"
#include "core/labels.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *br_class_phase_name(enum br_class_phase p)
{
	static const char *const n[] = {"Pending", "Binding", "Running", "Succeeded", "Failed"};
	return (unsigned)p < 5 ? n[p] : "Unknown";
}

const char *br_run_phase_name(enum br_run_phase p)
{
	static const char *const n[] = {"Pending", "Running", "Succeeded", "Failed"};
	return (unsigned)p < 4 ? n[p] : "Unknown";
}

enum br_class_phase br_class_phase_parse(const char *s)
{
	for (int i = 0; s && i < 5; i++)
		if (!strcmp(s, br_class_phase_name((enum br_class_phase)i)))
			return (enum br_class_phase)i;
	return BR_CLASS_PENDING;
}

static void act(struct br_plan *p, enum br_action_kind k, size_t cls, unsigned attempt,
		const char *name)
{
	if (p->nactions == BR_MAX_ACTIONS)
		return;
	for (size_t i = 0; i < p->nactions; i++) /* each thing once per plan */
		if (p->actions[i].kind == k && p->actions[i].cls == cls &&
		    p->actions[i].attempt == attempt &&
		    !strcmp(p->actions[i].name, name ? name : ""))
			return;
	struct br_action *a = &p->actions[p->nactions++];
	a->kind = k;
	a->cls = cls;
	a->attempt = attempt;
	snprintf(a->name, sizeof(a->name), "%s", name ? name : "");
}

static void event(struct br_plan *p, bool warning, const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void event(struct br_plan *p, bool warning, const char *reason, const char *fmt, ...)
{
	if (p->nevents == BR_MAX_EVENTS)
		return;
	struct br_event *e = &p->events[p->nevents++];
	va_list ap;
	e->warning = warning;
	snprintf(e->reason, sizeof(e->reason), "%s", reason);
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof(e->message), fmt, ap);
	va_end(ap);
}

static void deadline(long *next, time_t now, time_t when)
{
	long d = (long)(when - now);
	if (d < 1)
		d = 1;
	if (d < *next)
		*next = d;
}

/* Marks class i failed (an event on the transition) and stops its live pods. */
static void fail_class(struct br_plan *p, const struct br_class_obs *c, size_t i,
		       const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void fail_class(struct br_plan *p, const struct br_class_obs *c, size_t i,
		       const char *reason, const char *fmt, ...)
{
	struct br_class_plan *cp = &p->classes[i];
	va_list ap;
	cp->phase = BR_CLASS_FAILED;
	snprintf(cp->reason, sizeof(cp->reason), "%s", reason);
	va_start(ap, fmt);
	vsnprintf(cp->message, sizeof(cp->message), fmt, ap);
	va_end(ap);
	if (c->prev_phase != BR_CLASS_FAILED)
		event(p, true, reason, "%s: %s", c->name, cp->message);
	for (size_t k = 0; k < c->npods; k++)
		if (!c->pods[k].deleting &&
		    (c->pods[k].phase == BR_POD_PENDING || c->pods[k].phase == BR_POD_RUNNING))
			act(p, BR_ACT_DELETE_POD, i, 0, c->pods[k].name);
}

static const struct br_pod_obs *current_pod(const struct br_class_obs *c)
{
	const struct br_pod_obs *cur = NULL;
	for (size_t k = 0; k < c->npods; k++)
		if (!cur || c->pods[k].attempt > cur->attempt)
			cur = &c->pods[k];
	return cur;
}

/* The volume of a started class: created, bound in time. false when the class failed. */
static bool progress_volume(const struct br_obs *o, struct br_plan *p, size_t i, long *next)
{
	const struct br_class_obs *c = &o->classes[i];
	struct br_class_plan *cp = &p->classes[i];
	if (c->no_volume) {
		cp->phase = BR_CLASS_RUNNING;
	} else if (!c->pvc_exists) {
		if (!c->pvc_deleting)
			act(p, BR_ACT_CREATE_PVC, i, 0, NULL);
		cp->phase = BR_CLASS_BINDING;
		deadline(next, o->now, o->now + 5);
	} else if (!c->pvc_bound) {
		if (o->now - c->pvc_created >= o->pvc_bind_s) {
			fail_class(p, c, i, "VolumeBindTimeout",
				   "its volume was not bound within %lds (storage class '%s')",
				   o->pvc_bind_s, c->name);
			return false;
		}
		cp->phase = BR_CLASS_BINDING;
		deadline(next, o->now, c->pvc_created + o->pvc_bind_s);
	} else {
		cp->phase = BR_CLASS_RUNNING;
	}
	return true;
}

/* A pod of the current attempt that is Pending or Running: its start and iteration deadlines. */
static void watch_pod(const struct br_obs *o, struct br_plan *p, size_t i,
		      const struct br_pod_obs *cur, long *next)
{
	const struct br_class_obs *c = &o->classes[i];
	struct br_class_plan *cp = &p->classes[i];
	if (cur->phase == BR_POD_PENDING && c->pvc_bound && !cur->deleting && o->start_s > 0) {
		/* a pod that cannot start (image, mount, scheduling) would meet
		 * the same in a new attempt: the class fails, with the pod's reason */
		if (o->now - cur->created >= o->start_s) {
			fail_class(p, c, i, "RunnerStartTimeout",
				   "runner pod %s did not start within %lds: %s", cur->name,
				   o->start_s,
				   cur->message[0] ? cur->message
						   : "no reason given (still Pending)");
			return;
		}
		deadline(next, o->now, cur->created + o->start_s);
		if (cur->message[0]) {
			snprintf(cp->reason, sizeof(cp->reason), "RunnerNotStarted");
			snprintf(cp->message, sizeof(cp->message),
				 "runner pod %s is not running yet: %s", cur->name, cur->message);
		}
	}
	if (c->pvc_bound && !cur->deleting) {
		time_t since = cur->created > c->last_result ? cur->created : c->last_result;
		if (o->now - since >= o->iteration_s) {
			event(p, true, "IterationTimeout",
			      "%s: no iteration finished within %lds in pod %s; stopping "
			      "it",
			      c->name, o->iteration_s, cur->name);
			act(p, BR_ACT_DELETE_POD, i, 0, cur->name);
			deadline(next, o->now, o->now + 2);
			return;
		}
		deadline(next, o->now, since + o->iteration_s);
	}
}

/* A class that has started: volume and runner pod. */
static void progress_class(const struct br_obs *o, struct br_plan *p, size_t i, long *next)
{
	const struct br_class_obs *c = &o->classes[i];
	struct br_class_plan *cp = &p->classes[i];
	unsigned left = o->iterations - c->done;

	if (c->pvc_lost) {
		fail_class(p, c, i, "VolumeLost", "its volume was lost (PVC phase Lost)");
		return;
	}
	if (c->barrier_failure[0]) {
		fail_class(p, c, i, "BarrierTimeout", "%s", c->barrier_failure);
		return;
	}
	if (c->barrier_deadline)
		deadline(next, o->now, c->barrier_deadline);
	if (!progress_volume(o, p, i, next))
		return;
	const struct br_pod_obs *cur = current_pod(c);
	if (cur)
		snprintf(cp->pod, sizeof(cp->pod), "%s", cur->name);
	bool need_new = false;
	if (cp->attempts > (cur ? cur->attempt : 0)) {
		if (!c->last_pod_gone) {
			/* a pod this controller created is not in the cache yet: wait for it */
			deadline(next, o->now, o->now + 2);
			return;
		}
		/* it was deleted (killed, evicted): run the rest in a new one */
		event(p, true, "RunnerLost", "%s: runner pod of attempt %u is gone", c->name,
		      cp->attempts);
		cur = NULL;
		need_new = true;
	}
	if (need_new) {
		/* handled below */
	} else if (!cur || (cur->deleting && cur->phase != BR_POD_SUCCEEDED)) {
		if (cur && cur->deleting) {
			/* its kubelet confirms a deletion; one that never comes: the
			 * node is lost, and a new pod would meet the volume there */
			if (cur->delete_by && o->now >= cur->delete_by + BR_POD_GONE_SLACK_S) {
				fail_class(
					p, c, i, "RunnerLost",
					"runner pod %s on node %s has not stopped %lds after "
					"its deletion was due: its node does not answer (%u of %u "
					"iterations done, recorded iterations are kept)",
					cur->name, cur->node[0] ? cur->node : "(none)",
					(long)(o->now - cur->delete_by), c->done, o->iterations);
				return;
			}
			deadline(next, o->now, o->now + 2); /* wait until it is gone */
			return;
		}
		need_new = true;
	} else if (cur->phase == BR_POD_PENDING || cur->phase == BR_POD_RUNNING) {
		watch_pod(o, p, i, cur, next);
	} else if (cur->phase == BR_POD_FAILED && cur->exit_code == SB_EXIT_USAGE) {
		fail_class(p, c, i, "RunnerFailed", "the runner refused the workload: %s",
			   cur->message[0] ? cur->message : "exit status 2");
		return;
	} else if (cur->phase == BR_POD_FAILED && cur->oom_killed) {
		/* the same job in a new pod would be killed at the same limit */
		fail_class(p, c, i, "RunnerFailed",
			   "runner pod %s, not retried (%u of %u iterations done): %s", cur->name,
			   c->done, o->iterations, cur->message);
		return;
	} else {
		/* failed, or exited 0 with iterations missing: another attempt */
		need_new = true;
		if (cp->attempts < o->max_attempts)
			event(p, true, "RunnerRestarted",
			      "%s: pod %s %s (%s); attempt %u runs the %u remaining iteration%s",
			      c->name, cur->name,
			      cur->phase == BR_POD_FAILED ? "failed" : "ended early",
			      cur->message[0] ? cur->message : "no message", cp->attempts + 1, left,
			      left == 1 ? "" : "s");
	}
	if (!need_new)
		return;
	if (cp->attempts >= o->max_attempts) {
		fail_class(p, c, i, "RunnerFailed",
			   "the runner did not finish after %u attempts (%u of %u iterations "
			   "done)%s%s",
			   cp->attempts, c->done, o->iterations,
			   cur && cur->message[0] ? "; last: " : "",
			   cur && cur->message[0] ? cur->message : "");
		return;
	}
	cp->attempts++;
	act(p, BR_ACT_CREATE_POD, i, cp->attempts, NULL);
	deadline(next, o->now, o->now + o->iteration_s);
}

/* Starts pending classes in spec order while fewer than parallelism are active. */
static void start_classes(const struct br_obs *o, struct br_plan *p, bool timed_out, size_t active,
			  long *next)
{
	for (size_t i = 0; i < o->nclasses; i++) {
		const struct br_class_obs *c = &o->classes[i];
		struct br_class_plan *cp = &p->classes[i];
		if (cp->phase != BR_CLASS_PENDING)
			continue;
		if (timed_out) {
			fail_class(p, c, i, "RunTimeout", "the run did not finish within %lds",
				   o->run_s);
			continue;
		}
		if (active >= o->parallelism)
			continue;
		if (!c->sc_exists) {
			fail_class(p, c, i, "StorageClassNotFound",
				   "storage class '%s' does not exist", c->name);
			continue;
		}
		cp->phase = BR_CLASS_BINDING;
		cp->attempts = cp->attempts + 1;
		if (!c->no_volume)
			act(p, BR_ACT_CREATE_PVC, i, 0, NULL);
		act(p, BR_ACT_CREATE_POD, i, cp->attempts, NULL);
		event(p, false, "StartedClass", "%s: benchmarking %u iteration%s", c->name,
		      o->iterations, o->iterations == 1 ? "" : "s");
		active++;
		deadline(next, o->now, o->now + o->pvc_bind_s);
	}
}

/* Every class succeeded or failed: the run's outcome, its report and cleanup. */
static void finish_run(const struct br_obs *o, struct br_plan *p, size_t failed, long *next)
{
	p->phase = failed ? BR_RUN_FAILED : BR_RUN_SUCCEEDED;
	if (failed) {
		size_t n = 0;
		for (size_t i = 0; i < o->nclasses; i++) {
			const struct br_class_plan *cp = &p->classes[i];
			if (cp->phase != BR_CLASS_FAILED)
				continue;
			if (!p->reason[0])
				snprintf(p->reason, sizeof(p->reason), "%s", cp->reason);
			n += (size_t)snprintf(
				p->message + n, n < sizeof(p->message) ? sizeof(p->message) - n : 0,
				"%s%s: %s", n ? "; " : "", o->classes[i].name, cp->message);
			if (n >= sizeof(p->message))
				n = sizeof(p->message) - 1;
		}
	} else {
		snprintf(p->reason, sizeof(p->reason), "Completed");
		snprintf(p->message, sizeof(p->message), "%u iterations on %zu storage class%s",
			 p->done, o->nclasses, o->nclasses == 1 ? "" : "es");
	}
	if (!o->report_exists && p->done > 0)
		act(p, BR_ACT_WRITE_REPORT, 0, 0, NULL);
	bool clean =
		o->cleanup == BR_CLEANUP_ALWAYS || (o->cleanup == BR_CLEANUP_ON_SUCCESS && !failed);
	if (clean && !o->cleaned_up && !o->terminal_recorded) {
		/* the status write of this pass brings us back; the deadline
		 * covers a write that changed nothing */
		deadline(next, o->now, o->now + 2);
	} else if (clean && !o->cleaned_up) {
		for (size_t i = 0; i < o->nclasses; i++) {
			const struct br_class_obs *c = &o->classes[i];
			for (size_t k = 0; k < c->npods; k++)
				if (!c->pods[k].deleting)
					act(p, BR_ACT_DELETE_POD, i, 0, c->pods[k].name);
			if (c->pvc_exists && !c->pvc_deleting)
				act(p, BR_ACT_DELETE_PVC, i, 0, NULL);
		}
	}
}

void br_plan_compute(const struct br_obs *o, struct br_plan *p)
{
	long next = LONG_MAX;
	size_t active = 0;
	bool timed_out = o->run_s > 0 && o->now - o->start >= o->run_s;

	memset(p, 0, sizeof(*p));
	p->total = o->iterations * (unsigned)o->nclasses;

	for (size_t i = 0; i < o->nclasses; i++) {
		const struct br_class_obs *c = &o->classes[i];
		struct br_class_plan *cp = &p->classes[i];
		cp->attempts = c->prev_attempts;
		for (size_t k = 0; k < c->npods; k++)
			if (c->pods[k].attempt > cp->attempts)
				cp->attempts = c->pods[k].attempt;
		p->done += c->done < o->iterations ? c->done : o->iterations;

		if (c->done >= o->iterations) {
			cp->phase = BR_CLASS_SUCCEEDED;
			if (c->prev_phase != BR_CLASS_SUCCEEDED)
				event(p, false, "ClassSucceeded", "%s: all %u iterations done",
				      c->name, o->iterations);
			continue;
		}
		if (c->prev_phase == BR_CLASS_FAILED) {
			cp->phase = BR_CLASS_FAILED;
			snprintf(cp->reason, sizeof(cp->reason), "%s", c->prev_reason);
			snprintf(cp->message, sizeof(cp->message), "%s", c->prev_message);
			for (size_t k = 0; k < c->npods; k++)
				if (!c->pods[k].deleting && (c->pods[k].phase == BR_POD_PENDING ||
							     c->pods[k].phase == BR_POD_RUNNING))
					act(p, BR_ACT_DELETE_POD, i, 0, c->pods[k].name);
			continue;
		}
		bool started = c->pvc_exists || c->npods > 0 || c->prev_phase == BR_CLASS_BINDING ||
			       c->prev_phase == BR_CLASS_RUNNING;
		if (!started) {
			cp->phase = BR_CLASS_PENDING;
			continue;
		}
		if (timed_out) {
			fail_class(p, c, i, "RunTimeout", "the run did not finish within %lds",
				   o->run_s);
			continue;
		}
		progress_class(o, p, i, &next);
		if (cp->phase == BR_CLASS_BINDING || cp->phase == BR_CLASS_RUNNING)
			active++;
	}

	start_classes(o, p, timed_out, active, &next);

	/* the run */
	size_t succeeded = 0, failed = 0, pending = 0;
	for (size_t i = 0; i < o->nclasses; i++) {
		succeeded += p->classes[i].phase == BR_CLASS_SUCCEEDED;
		failed += p->classes[i].phase == BR_CLASS_FAILED;
		pending += p->classes[i].phase == BR_CLASS_PENDING;
	}
	if (succeeded + failed == o->nclasses) {
		finish_run(o, p, failed, &next);
	} else {
		p->phase = pending == o->nclasses && p->nactions == 0 ? BR_RUN_PENDING
								      : BR_RUN_RUNNING;
		snprintf(p->reason, sizeof(p->reason), "Running");
		snprintf(p->message, sizeof(p->message), "%u of %u iterations done", p->done,
			 p->total);
		if (o->run_s > 0)
			deadline(&next, o->now, o->start + o->run_s);
	}
	p->requeue_s = next == LONG_MAX ? 0 : next;
}
