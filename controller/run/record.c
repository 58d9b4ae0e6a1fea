/* SPDX-License-Identifier: MIT */
/*
 * The status step of a pass (controller/run/pass.h): the new status
 * (status.c, pure) with the Regressed condition (regression.c), written once
 * (controller/core/status.h), the run's end and its new iterations
 * announced; and the status of a run whose spec is refused.
 */
#include "controller/run/pass.h"

#include "controller/core/status.h"
#include "controller/run/regression.h"
#include "controller/run/status.h"
#include "core/jsonobj.h"

#include <errno.h>
#include <string.h>

int br_pass_fail_invalid(struct br_controller *c, const struct br_ref *ref, const json_t *run,
			 const char *msg, json_int_t gen)
{
	const json_t *prev = json_object_get(run, "status");
	const char *pp = jstr(prev, "phase");
	if (!pp || strcmp(pp, "Failed") || !jstr(prev, "message") ||
	    strcmp(jstr(prev, "message"), msg))
		br_pass_emitf(c, ref, true, "InvalidSpec", "%s", msg);
	json_t *st = br_status_invalid(prev, msg, gen, c->ops.now(c->ops.arg));
	if (!st)
		return -ENOMEM;
	int r = br_status_write(c, &br_res_benchmarkruns, run, st);
	json_decref(st);
	return r < 0 ? r : 0; /* a newer run is reconciled anyway */
}

/* The new status (pure: controller/run/status.c) and the Regressed condition. NULL on ENOMEM. */
json_t *br_pass_status(struct br_pass *p)
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
			br_pass_emit(p->c, &p->ref, &rev);
	}
	return status;
}

/*
 * The run's end announced, the status written, and the newly recorded
 * iterations counted: once, only by a pass whose status write succeeded (a
 * pass from a stale cache reads an older iterationsDone, and its
 * conditional write is refused with 409). Returns br_status_write's answer.
 */
int br_pass_record(struct br_pass *p, json_t *status)
{
	const struct br_plan *plan = p->plan;
	const char *pp = jstr(p->prev, "phase");
	const char *phase = jstr(status, "phase");
	if (p->terminal && (!pp || strcmp(pp, phase)) &&
	    br_pass_first_announcement(p->c, p->ref.uid, phase))
		br_pass_emitf(p->c, &p->ref, plan->phase == BR_RUN_FAILED,
			      plan->phase == BR_RUN_SUCCEEDED ? "RunSucceeded" : "RunFailed",
			      "%s: %s", phase, plan->message);
	int wr = br_status_write(p->c, &br_res_benchmarkruns, p->run, status);
	for (size_t i = 0; i < p->s.nclasses && wr == 0; i++) {
		unsigned d = p->ob->obs.classes[i].done;
		if (d > p->ob->prev_done[i]) {
			br_metrics_iterations(p->c->metrics, d - p->ob->prev_done[i]);
			br_pass_emitf(p->c, &p->ref, false, "IterationsRecorded",
				      "%s: %u of %u iterations done", p->s.classes[i], d,
				      p->s.iterations);
		}
	}
	return wr;
}
