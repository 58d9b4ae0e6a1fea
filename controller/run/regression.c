/* SPDX-License-Identifier: MIT */
/* The Regressed condition of a finished run, and its baseline. See regression.h. */
#include "controller/run/regression.h"
#include "core/jsonobj.h"

#include "controller/core/status.h"
#include "controller/run/manifests.h"
#include "core/labels.h"
#include "core/names.h"
#include "report/compare.h"
#include "stats/verdict.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BR_MAX_POOLED 20

static const char *annot(const json_t *run, const char *key)
{
	return jstr(json_object_get(json_object_get(run, "metadata"), "annotations"), key);
}

static double threshold_of(const json_t *run)
{
	const char *a = annot(run, SB_ANNOT_REGRESSION_THRESHOLD);
	char *end = NULL;
	double t = a ? strtod(a, &end) : SB_VERDICT_DEFAULT_THRESHOLD;
	if (a && (end == a || *end || !isfinite(t) || t < 0))
		t = SB_VERDICT_DEFAULT_THRESHOLD;
	return t;
}

int br_regression_verdict(const json_t *report_cm, const json_t *run, json_t **v)
{
	*v = NULL;
	const char *text = jstr(json_object_get(report_cm, "data"), BR_COMPARE_KEY);
	if (!text)
		return -ENOENT;
	json_t *cmp = json_loads(text, 0, NULL);
	char err[256];
	struct sb_verdict_opts o = {threshold_of(run), SB_PADJ_HOLM,
				    annot(run, SB_ANNOT_REGRESSED_SINCE_RUN) != NULL};
	int r = cmp ? sb_verdict_ex(cmp, &o, v, err, sizeof(err)) : -EINVAL;
	json_decref(cmp);
	return r == -ENOMEM ? r : r ? -ENOENT : 0;
}

int br_regression_condition(const json_t *report_cm, const json_t *run, json_t *status,
			    json_int_t gen, time_t now, struct br_event *ev)
{
	json_t *v = NULL;
	char msg[900];
	int ret = br_regression_verdict(report_cm, run, &v);
	if (ret)
		return ret == -ENOMEM ? ret : 0; /* not a comparison we can judge: no condition */
	sb_verdict_summary(v, msg, sizeof(msg));
	size_t nr = json_array_size(json_object_get(v, "regressions"));
	size_t ni = json_array_size(json_object_get(v, "improvements"));
	const char *st = nr ? "True" : "False";
	const char *since_run = annot(run, SB_ANNOT_REGRESSED_SINCE_RUN);
	if (nr && since_run) {
		size_t l = strlen(msg);
		snprintf(msg + l, sizeof(msg) - l, "; regressed since run %s (%s)", since_run,
			 annot(run, SB_ANNOT_REGRESSED_SINCE) ? annot(run, SB_ANNOT_REGRESSED_SINCE)
							      : "?");
	}
	const json_t *prev_status = json_object_get(run, "status");
	const json_t *prev = br_condition_find(prev_status, "Regressed");
	struct br_condition cond = {"Regressed", st,
				    nr ? "SlowerThanBaseline" : "NotSlowerThanBaseline", msg, gen};
	ret = br_condition_set(status, prev_status, &cond, now);
	if (ret)
		goto out;
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
	json_decref(v);
	return ret;
}

/* The report document of run name (new reference). 0, -ENOENT, -EINVAL. */
static int report_of(const char *ns, const char *name, br_cm_get get, void *arg, json_t **rep,
		     char *err, size_t errlen)
{
	char cmname[64];
	*rep = NULL;
	if (sb_name_report(cmname, sizeof(cmname), name)) {
		snprintf(err, errlen, "baseline run '%s': not a run name", name);
		return -EINVAL;
	}
	json_t *cm = get(arg, ns, cmname);
	const char *text = jstr(json_object_get(cm, "data"), SB_REPORT_JSON_KEY);
	json_error_t je;
	int r = 0;
	if (!text) {
		snprintf(err, errlen, "baseline run '%s' has no report (configmap %s)", name,
			 cmname);
		r = -ENOENT;
	} else if (!(*rep = json_loads(text, 0, &je))) {
		snprintf(err, errlen, "configmap %s: report.json: %s", cmname, je.text);
		r = -EINVAL;
	}
	json_decref(cm);
	return r;
}

int br_baseline_report(const json_t *run, const char *spec_baseline, br_cm_get get, void *arg,
		       json_t **out, char *err, size_t errlen)
{
	const char *ns = jstr(json_object_get(run, "metadata"), "namespace");
	const char *list = annot(run, SB_ANNOT_BASELINE_RUNS);
	*out = NULL;
	if (!ns)
		ns = "";
	if (!list || !*list)
		return report_of(ns, spec_baseline, get, arg, out, err, errlen);
	json_t *reps[BR_MAX_POOLED];
	size_t n = 0;
	int ret = 0;
	for (const char *p = list; *p && n < BR_MAX_POOLED && !ret;) {
		size_t k = strcspn(p, ",");
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)(k < 63 ? k : 63), p);
		if (name[0])
			ret = report_of(ns, name, get, arg, &reps[n], err, errlen);
		if (name[0] && !ret)
			n++;
		p += k + (p[k] == ',');
	}
	if (!ret && n)
		ret = sb_report_pool((const json_t *const *)reps, n, out, err, errlen);
	for (size_t i = 0; i < n; i++)
		json_decref(reps[i]);
	return ret;
}
