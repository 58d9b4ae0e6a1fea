/* SPDX-License-Identifier: MIT */
/* A BenchmarkRun's status, computed (controller/run/status.h). */
#include "controller/run/status.h"
#include "controller/core/status.h"
#include "controller/run/manifests.h"
#include "core/jsonobj.h"
#include "core/names.h"
#include "time/rfc3339.h"

#include <stdio.h>
#include <string.h>

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

json_t *br_status_invalid(const json_t *prev, const char *msg, long long gen, time_t now)
{
	char ts[SB_RFC3339_LEN];
	struct br_condition cond = {"Succeeded", "False", "InvalidSpec", msg, gen};
	json_t *st =
		json_pack("{s:s,s:I,s:s,s:s}", "phase", "Failed", "observedGeneration",
			  (json_int_t)gen, "message", msg, "completionTime",
			  jstr(prev, "completionTime") ? jstr(prev, "completionTime")
						       : sb_rfc3339_format(now, ts, sizeof(ts)));
	if (st && (br_condition_set(st, prev, &cond, now) ||
		   (jstr(prev, "startTime") &&
		    json_object_set_new(st, "startTime", json_string(jstr(prev, "startTime")))))) {
		json_decref(st);
		return NULL;
	}
	return st;
}

/* The run's phase, reason and message: a report or apply failure overrides the plan's. */
static const char *headline(const struct br_status_in *in, const char **reason, char *msg,
			    size_t msglen)
{
	const struct br_plan *plan = in->plan;
	*reason = plan->reason;
	snprintf(msg, msglen, "%s", plan->message);
	if (in->report_err[0]) {
		*reason = "ReportFailed";
		snprintf(msg, msglen, "every class has ended; %s%s", in->report_err,
			 in->report_final ? "" : " (retrying)");
	} else if (!in->terminal) {
		for (size_t i = 0; i < in->nclasses; i++) {
			const struct br_status_class *sc = &in->classes[i];
			if (!sc->apply_err[0])
				continue;
			*reason = sc->apply_reason;
			snprintf(msg, msglen, "%s: %s (retrying)", sc->name, sc->apply_err);
			break;
		}
	}
	/* a run whose report is not written yet is still Running */
	return in->terminal || plan->phase < BR_RUN_SUCCEEDED ? br_run_phase_name(plan->phase)
							      : br_run_phase_name(BR_RUN_RUNNING);
}

/* One entry of status.classes; empty strings are left out (the 1.20 API server turns "" into null). */
static json_t *class_status(const struct br_status_in *in, size_t i)
{
	const struct br_class_plan *cp = &in->plan->classes[i];
	const struct br_status_class *sc = &in->classes[i];
	char pvc[64] = "";
	if (cp->phase != BR_CLASS_PENDING)
		(void)sb_name_pvc(pvc, sizeof(pvc), in->run, sc->name);
	json_t *cj = json_pack("{s:s,s:s,s:i,s:i}", "name", sc->name, "phase",
			       br_class_phase_name(cp->phase), "iterationsDone", (int)sc->done,
			       "attempts", (int)sc->attempts);
	const char *cr = sc->apply_err[0] ? sc->apply_reason : cp->reason;
	const char *cmsg = sc->apply_err[0] ? sc->apply_err : cp->message;
	bool ok = cj != NULL;
	if (ok && pvc[0])
		ok = !json_object_set_new(cj, "pvc", json_string(pvc));
	if (ok && cp->pod[0])
		ok = !json_object_set_new(cj, "pod", json_string(cp->pod));
	if (ok && in->pods > 1)
		ok = !json_object_set_new(cj, "pods", json_integer(in->pods));
	if (ok && sc->engine[0])
		ok = !json_object_set_new(cj, "engine", json_string(sc->engine));
	if (ok && cr[0])
		ok = !json_object_set_new(cj, "reason", json_string(cr));
	if (ok && cmsg[0])
		ok = !json_object_set_new(cj, "message", json_string(cmsg));
	if (!ok) {
		json_decref(cj);
		return NULL;
	}
	return cj;
}

/* completionTime, report, summary and warnings of an ended run. */
static bool terminal_fields(const struct br_status_in *in, json_t *status)
{
	char ts[40];
	const char *ct = jstr(in->prev, "completionTime");
	if (json_object_set_new(status, "completionTime",
				json_string(ct ? ct : sb_rfc3339_format(in->now, ts, sizeof(ts)))))
		return false;
	if (!in->report_name[0])
		return true;
	if (json_object_set_new(status, "report", json_string(in->report_name)) ||
	    json_object_set_new(status, "summary", summary_from_report(in->report)))
		return false;
	if (json_array_size(json_object_get(in->report, "warnings")) &&
	    json_object_set_new(status, "warnings", warnings_from_report(in->report)))
		return false;
	return true;
}

json_t *br_status_compute(const struct br_status_in *in)
{
	const struct br_plan *plan = in->plan;
	const char *reason;
	char message[1400], progress[32], list[2048] = "", ts[40];
	size_t ll = 0;
	const char *phase = headline(in, &reason, message, sizeof(message));
	json_t *status = json_object(), *classes = json_array();
	bool ok = status && classes;

	snprintf(progress, sizeof(progress), "%u/%u", plan->done, plan->total);
	for (size_t i = 0; ok && i < in->nclasses; i++) {
		json_t *cj = class_status(in, i);
		ok = cj && !json_array_append_new(classes, cj);
		ll += (size_t)snprintf(list + ll, ll < sizeof(list) ? sizeof(list) - ll : 0, "%s%s",
				       i ? "," : "", in->classes[i].name);
		if (ll >= sizeof(list))
			ll = sizeof(list) - 1;
	}
	const char *cstat = !in->terminal		      ? "Unknown"
			    : plan->phase == BR_RUN_SUCCEEDED ? "True"
							      : "False";
	struct br_condition cond = {"Succeeded", cstat, reason, message, in->gen};
	const char *st = jstr(in->prev, "startTime");
	ok = ok && !json_object_set_new(status, "phase", json_string(phase)) &&
	     !json_object_set_new(status, "observedGeneration", json_integer(in->gen)) &&
	     !json_object_set_new(status, "progress", json_string(progress)) &&
	     !json_object_set_new(status, "classList", json_string(list)) &&
	     !json_object_set_new(
		     status, "startTime",
		     json_string(st ? st : sb_rfc3339_format(in->now, ts, sizeof(ts)))) &&
	     !json_object_set_new(status, "message", json_string(message)) &&
	     !br_condition_set(status, in->prev, &cond, in->now) &&
	     !json_object_set(status, "classes", classes);
	json_decref(classes);
	if (ok && in->terminal)
		ok = terminal_fields(in, status);
	if (!ok) {
		json_decref(status);
		return NULL;
	}
	return status;
}
