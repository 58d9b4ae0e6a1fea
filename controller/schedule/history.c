/* SPDX-License-Identifier: MIT */
/* Change points of a schedule's history. See history.h. */
#include "controller/schedule/history.h"
#include "core/jsonobj.h"

#include "stats/changepoint.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the metrics searched: the headline figures a dashboard shows */
static const char *const searched[] = {
	"read-iops",	 "write-iops",	   "read-bw",	   "write-bw",
	"read-lat-mean", "write-lat-mean", "read-lat-p99", "write-lat-p99",
};

/* the result of target and workload in rep, or NULL */
static const json_t *result_of(const json_t *rep, const char *t, const char *w)
{
	size_t i;
	const json_t *r;
	json_array_foreach(json_object_get(rep, "results"), i, r)
	{
		const char *rt = jstr(r, "target"), *rw = jstr(r, "workload");
		if (rt && rw && !strcmp(rt, t) && !strcmp(rw, w))
			return r;
	}
	return NULL;
}

/* the change points of one series into out; 0 or -ENOMEM */
static int search(const json_t *const *reps, const char *const *names, size_t n, const json_t *ref,
		  const char *metric, double *x, size_t *at, json_t *out)
{
	const char *t = jstr(ref, "target"), *w = jstr(ref, "workload");
	const char *fp = jstr(ref, "fingerprint");
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const json_t *r = reps[i] ? result_of(reps[i], t, w) : NULL;
		const char *f = jstr(r, "fingerprint");
		if (!r || (fp && (!f || strcmp(f, fp))))
			continue;
		const json_t *mean = json_object_get(
			json_object_get(json_object_get(r, "metrics"), metric), "mean");
		if (!json_is_number(mean) || !isfinite(json_number_value(mean)))
			continue;
		x[k] = json_number_value(mean);
		at[k++] = i;
	}
	if (k < BR_HISTORY_MIN_RUNS)
		return 0;
	struct sb_changepoint cps[8];
	size_t ncp = 0;
	if (sb_changepoints(x, k, NULL, cps, 8, &ncp) == -ENOMEM)
		return -ENOMEM;
	for (size_t c = 0; c < ncp; c++) {
		const char *run = names[at[cps[c].index]];
		double conf = 1 - cps[c].p;
		char msg[256];
		snprintf(msg, sizeof(msg), "changed at run %s by %+.1f%% (confidence %.1f%%)", run,
			 cps[c].change_pct, 100 * conf);
		json_t *e = json_pack("{s:s,s:s,s:s,s:s,s:f,s:f,s:s}", "class", t, "workload", w,
				      "metric", metric, "run", run, "changePercent",
				      isfinite(cps[c].change_pct) ? cps[c].change_pct : 0.0,
				      "confidence", conf, "message", msg);
		if (!e || json_array_append_new(out, e))
			return -ENOMEM;
	}
	return 0;
}

json_t *br_history_change_points(const json_t *const *reps, const char *const *names, size_t n)
{
	json_t *out = json_array();
	double *x = malloc((n ? n : 1) * sizeof(*x));
	size_t *at = malloc((n ? n : 1) * sizeof(*at));
	const json_t *newest = NULL;
	for (size_t i = n; i-- > 0 && !newest;)
		newest = reps[i];
	size_t i;
	const json_t *ref;
	if (!out || !x || !at)
		goto fail;
	json_array_foreach(json_object_get(newest, "results"), i, ref)
	{
		if (!jstr(ref, "target") || !jstr(ref, "workload"))
			continue;
		for (size_t m = 0; m < sizeof(searched) / sizeof(searched[0]); m++)
			if (json_object_get(json_object_get(ref, "metrics"), searched[m]) &&
			    search(reps, names, n, ref, searched[m], x, at, out))
				goto fail;
	}
	free(x);
	free(at);
	return out;
fail:
	free(x);
	free(at);
	json_decref(out);
	return NULL;
}
