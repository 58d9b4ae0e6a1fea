/* SPDX-License-Identifier: MIT */
/* The Regressed condition of a finished run. See regression.h. */
#include "controller/run/regression.h"
#include "core/jsonobj.h"

#include "controller/run/manifests.h"
#include "core/labels.h"
#include "stats/verdict.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double threshold_of(const json_t *run)
{
	const char *a = jstr(json_object_get(json_object_get(run, "metadata"), "annotations"),
			     SB_ANNOT_REGRESSION_THRESHOLD);
	char *end = NULL;
	double t = a ? strtod(a, &end) : SB_VERDICT_DEFAULT_THRESHOLD;
	if (a && (end == a || *end || !isfinite(t) || t < 0))
		t = SB_VERDICT_DEFAULT_THRESHOLD;
	return t;
}

int br_regression_condition(const json_t *report_cm, const json_t *run, json_t *status,
			    json_int_t gen, time_t now, struct br_event *ev)
{
	const char *text = jstr(json_object_get(report_cm, "data"), BR_COMPARE_KEY);
	if (!text)
		return 0;
	json_t *cmp = json_loads(text, 0, NULL);
	json_t *v = NULL;
	char err[256], msg[900], ts[40];
	int ret = 0;
	if (!cmp || sb_verdict(cmp, threshold_of(run), &v, err, sizeof(err))) {
		json_decref(cmp);
		return 0; /* not a comparison we can judge: no condition */
	}
	sb_verdict_summary(v, msg, sizeof(msg));
	size_t nr = json_array_size(json_object_get(v, "regressions"));
	size_t ni = json_array_size(json_object_get(v, "improvements"));
	const char *st = nr ? "True" : "False";

	/* the previous Regressed condition */
	const json_t *prev = NULL, *pc;
	size_t i;
	json_array_foreach(json_object_get(json_object_get(run, "status"), "conditions"), i, pc)
	{
		if (jstr(pc, "type") && !strcmp(jstr(pc, "type"), "Regressed"))
			prev = pc;
	}
	const char *lt = prev && jstr(prev, "status") && !strcmp(jstr(prev, "status"), st)
				 ? jstr(prev, "lastTransitionTime")
				 : NULL;
	if (!lt)
		lt = br_time_str(now, ts, sizeof(ts));
	json_t *conds = json_object_get(status, "conditions");
	if (!conds) {
		conds = json_array();
		if (!conds || json_object_set_new(status, "conditions", conds)) {
			ret = -ENOMEM;
			goto out;
		}
	}
	json_t *c = json_pack("{s:s,s:s,s:s,s:s,s:s,s:I}", "type", "Regressed", "status", st,
			      "reason", nr ? "SlowerThanBaseline" : "NotSlowerThanBaseline",
			      "message", msg, "lastTransitionTime", lt, "observedGeneration", gen);
	if (!c || json_array_append_new(conds, c)) {
		ret = -ENOMEM;
		goto out;
	}
	bool changed = !prev || !jstr(prev, "status") || strcmp(jstr(prev, "status"), st) ||
		       !jstr(prev, "message") || strcmp(jstr(prev, "message"), msg);
	if (changed && ev) {
		memset(ev, 0, sizeof(*ev));
		ev->warning = nr > 0;
		snprintf(ev->reason, sizeof(ev->reason), "%s",
			 nr   ? "Regressed"
			 : ni ? "Improved"
			      : "NotRegressed");
		snprintf(ev->message, sizeof(ev->message), "compared with '%s': %s",
			 jstr(v, "baseline") ? jstr(v, "baseline") : "the baseline", msg);
		ret = 1;
	}
out:
	json_decref(cmp);
	json_decref(v);
	return ret;
}
