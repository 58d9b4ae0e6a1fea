/* SPDX-License-Identifier: MIT */
#include "controller/sweep/sweep.h"
#include "controller/core/field.h"

#include "controller/run/spec.h"
#include "core/errfmt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A refusal: the message into err, -EINVAL (lib/core/errfmt.h). */
#define fail(err, len, ...) sb_errf(err, len, -EINVAL, __VA_ARGS__)

json_t *br_sweep_child_spec(const json_t *spec, unsigned pods)
{
	json_t *child = json_deep_copy(spec);
	if (!child)
		return NULL;
	json_object_del(child, "sweep");
	json_t *run = json_object_get(child, "runner");
	if (!json_is_object(run)) {
		run = json_object();
		if (!run || json_object_set_new(child, "runner", run)) {
			json_decref(child);
			return NULL;
		}
	}
	if (json_object_set_new(run, "pods", json_integer(pods))) {
		json_decref(child);
		return NULL;
	}
	return child;
}

int br_sweep_child_name(char *buf, size_t len, const char *run, unsigned pods)
{
	int n = snprintf(buf, len, "%s-p%u", run, pods);
	return n < 0 || (size_t)n >= len || n > 63 ? -ENAMETOOLONG : 0;
}

/* The list spec.sweep.pods into sw: 2..BR_SWEEP_MAX_STEPS integers, increasing. */
static int parse_steps(const json_t *list, struct br_sweep *sw, char *err, size_t errlen)
{
	size_t i;
	const json_t *v;
	if (!json_is_array(list) || json_array_size(list) < 2 ||
	    json_array_size(list) > BR_SWEEP_MAX_STEPS)
		return fail(err, errlen, "spec.sweep.pods: must be a list of 2 to %d pod counts",
			    BR_SWEEP_MAX_STEPS);
	json_array_foreach(list, i, v)
	{
		if (!json_is_integer(v) || json_integer_value(v) < 1 ||
		    json_integer_value(v) > SB_SPEC_MAX_PODS)
			return fail(err, errlen,
				    "spec.sweep.pods[%zu]: must be an integer from 1 to %d", i,
				    SB_SPEC_MAX_PODS);
		unsigned p = (unsigned)json_integer_value(v);
		if (i > 0 && p <= sw->pods[i - 1])
			return fail(
				err, errlen,
				"spec.sweep.pods[%zu]: %u is not above the step before it (%u); "
				"list the pod counts in increasing order",
				i, p, sw->pods[i - 1]);
		sw->pods[i] = p;
	}
	sw->n = json_array_size(list);
	return 0;
}

int br_sweep_parse(const json_t *spec, const char *default_image, const char *default_sa,
		   struct br_sweep *sw, char *err, size_t errlen)
{
	memset(sw, 0, sizeof(*sw));
	const json_t *sweep = json_object_get(spec, "sweep");
	if (!sweep)
		return 0;
	static const char *const known[] = {"pods"}; /* a sweep varies spec.sweep.pods */
	const json_t *obj = NULL;
	int r = br_field_object(spec, "sweep", "spec", &obj, err, errlen);
	if (!r)
		r = br_field_known(obj, "spec.sweep", known, 1, err, errlen);
	if (!r)
		r = parse_steps(json_object_get(sweep, "pods"), sw, err, errlen);
	if (r)
		return r;
	const json_t *rp = json_object_get(json_object_get(spec, "runner"), "pods");
	if (rp && !(json_is_integer(rp) && json_integer_value(rp) == 1)) {
		/* (1 is the CRD's default, which the API server fills in) */
		sw->n = 0;
		return fail(err, errlen,
			    "spec.runner.pods: not with spec.sweep.pods (the sweep sets the runner "
			    "pods of each step)");
	}
	for (size_t k = 0; k < sw->n; k++) {
		json_t *child = br_sweep_child_spec(spec, sw->pods[k]);
		struct br_spec s;
		char e2[512] = "";
		if (!child) {
			sw->n = 0;
			return -ENOMEM;
		}
		r = br_spec_parse(child, default_image, default_sa, &s, e2, sizeof(e2));
		br_spec_release(&s);
		json_decref(child);
		if (r) {
			sw->n = 0;
			if (r == -ENOMEM)
				return r;
			return fail(err, errlen, "spec.sweep.pods[%zu]: with %u runner pod%s: %s",
				    k, sw->pods[k], sw->pods[k] == 1 ? "" : "s", e2);
		}
	}
	return 0;
}

/* Appends ", " and the text to p->message, cut at its size. */
static void message_add(struct br_sweep_plan *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void message_add(struct br_sweep_plan *p, const char *fmt, ...)
{
	size_t n = strlen(p->message);
	va_list ap;
	if (n + 1 >= sizeof(p->message))
		return;
	va_start(ap, fmt);
	vsnprintf(p->message + n, sizeof(p->message) - n, fmt, ap);
	va_end(ap);
}

void br_sweep_plan_compute(const struct br_sweep *sw, const enum br_step_state *steps,
			   bool report_exists, struct br_sweep_plan *p)
{
	size_t succeeded = 0, failed = 0;
	memset(p, 0, sizeof(*p));
	p->create = -1;
	for (size_t k = 0; k < sw->n; k++) {
		succeeded += steps[k] == BR_STEP_SUCCEEDED;
		failed += steps[k] == BR_STEP_FAILED;
		if (steps[k] == BR_STEP_ACTIVE) {
			p->ended = (unsigned)(succeeded + failed);
			p->phase = BR_RUN_RUNNING;
			snprintf(p->reason, sizeof(p->reason), "Running");
			snprintf(p->message, sizeof(p->message),
				 "sweep step %zu of %zu: %u runner pod%s per class", k + 1, sw->n,
				 sw->pods[k], sw->pods[k] == 1 ? "" : "s");
			return;
		}
		if (steps[k] == BR_STEP_ABSENT) {
			/* the steps before it ended: this one starts */
			p->ended = (unsigned)(succeeded + failed);
			p->create = (int)k;
			p->phase = BR_RUN_RUNNING;
			snprintf(p->reason, sizeof(p->reason), "Running");
			snprintf(p->message, sizeof(p->message),
				 "sweep step %zu of %zu: %u runner pod%s per class (starting)",
				 k + 1, sw->n, sw->pods[k], sw->pods[k] == 1 ? "" : "s");
			return;
		}
	}
	p->ended = (unsigned)sw->n;
	p->write_report = succeeded > 0 && !report_exists;
	if (!failed) {
		p->phase = BR_RUN_SUCCEEDED;
		snprintf(p->reason, sizeof(p->reason), "Completed");
		snprintf(p->message, sizeof(p->message), "%zu sweep steps", sw->n);
		return;
	}
	p->phase = BR_RUN_FAILED;
	snprintf(p->reason, sizeof(p->reason), "SweepStepFailed");
	snprintf(p->message, sizeof(p->message),
		 "%zu of %zu sweep steps failed (runner pods:", failed, sw->n);
	for (size_t k = 0, i = 0; k < sw->n; k++)
		if (steps[k] == BR_STEP_FAILED)
			message_add(p, "%s %u", i++ ? "," : "", sw->pods[k]);
	message_add(p, ")%s", succeeded ? "; the curve has the other steps" : "");
}
