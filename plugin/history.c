/* SPDX-License-Identifier: MIT */
/* The table of `kubectl storagebench history` (see history.h). */
#include "plugin/history.h"
#include "time/rfc3339.h"

#include "core/labels.h"
#include "plugin/table.h"
#include "core/units.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *jstr(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

struct hrun {
	const json_t *run;
	time_t when;
};

static time_t activation(const json_t *run)
{
	const json_t *md = json_object_get(run, "metadata");
	time_t t = 0;
	if (sb_rfc3339_parse(jstr(json_object_get(md, "annotations"), SB_ANNOT_SCHEDULED_AT), &t,
			     NULL, 0) &&
	    sb_rfc3339_parse(jstr(md, "creationTimestamp"), &t, NULL, 0))
		t = 0;
	return t;
}

static int newest_first(const void *a, const void *b)
{
	const struct hrun *x = a, *y = b;
	if (x->when != y->when)
		return x->when > y->when ? -1 : 1;
	const char *a1 = jstr(json_object_get(x->run, "metadata"), "name");
	const char *b1 = jstr(json_object_get(y->run, "metadata"), "name");
	return strcmp(a1 ? a1 : "", b1 ? b1 : "");
}

static bool wanted(const char *metric, const char *m)
{
	if (!m)
		return false;
	if (metric)
		return !strcmp(metric, m);
	return !strcmp(m, "read-iops") || !strcmp(m, "write-iops");
}

/* the summary entry of (class, workload, metric) in run, or NULL */
static const json_t *entry(const json_t *run, const char *cls, const char *wl, const char *m)
{
	size_t i;
	const json_t *e;
	json_array_foreach(json_object_get(json_object_get(run, "status"), "summary"), i, e)
	{
		const char *c = jstr(e, "class"), *w = jstr(e, "workload"), *mm = jstr(e, "metric");
		if (c && w && mm && !strcmp(c, cls) && !strcmp(w, wl) && !strcmp(mm, m))
			return e;
	}
	return NULL;
}

static void fmt_value(double v, const char *unit, char *buf, size_t len)
{
	char n[32];
	if (unit && !strcmp(unit, "ns")) {
		sb_fmt_ns(v, buf, len);
	} else if (unit && !strcmp(unit, "B/s")) {
		sb_fmt_rate(v, buf, len);
	} else {
		sb_fmt_si(v, 3, n, sizeof(n));
		snprintf(buf, len, "%s%s%s", n, unit && *unit ? " " : "", unit ? unit : "");
	}
}

static const char *regressed(const json_t *run)
{
	size_t i;
	const json_t *c;
	json_array_foreach(json_object_get(json_object_get(run, "status"), "conditions"), i, c)
	{
		if (jstr(c, "type") && !strcmp(jstr(c, "type"), "Regressed"))
			return jstr(c, "status") && !strcmp(jstr(c, "status"), "True") ? "yes"
										       : "no";
	}
	return "-";
}

char *sbp_history_format(const json_t *list, const char *metric, size_t *nruns)
{
	static const char *const head[] = {"RUN",      "ACTIVATION", "PHASE",	 "CLASS",
					   "WORKLOAD", "METRIC",     "MEAN",	 "STDDEV",
					   "CHANGE",   "TREND",	     "REGRESSED"};
	const json_t *items = json_is_array(list) ? list : json_object_get(list, "items");
	size_t n = json_array_size(items);
	struct hrun *h = calloc(n ? n : 1, sizeof(*h));
	struct sbp_table t;
	char *out = NULL;
	sbp_table_init(&t, 11);
	if (!h || sbp_table_add(&t, head))
		goto out;
	for (size_t i = 0; i < n; i++) {
		h[i].run = json_array_get(items, i);
		h[i].when = activation(h[i].run);
	}
	qsort(h, n, sizeof(*h), newest_first);
	for (size_t i = 0; i < n; i++) {
		const json_t *run = h[i].run;
		const char *name = jstr(json_object_get(run, "metadata"), "name");
		const char *phase = jstr(json_object_get(run, "status"), "phase");
		char when[32] = "-";
		struct tm tm;
		time_t tt = h[i].when;
		if (tt && gmtime_r(&tt, &tm))
			strftime(when, sizeof(when), "%Y-%m-%dT%H:%MZ", &tm);
		/* the previous successful run (older) */
		const json_t *prev = NULL;
		for (size_t k = i + 1; k < n && !prev; k++) {
			const char *p = jstr(json_object_get(h[k].run, "status"), "phase");
			if (p && !strcmp(p, "Succeeded"))
				prev = h[k].run;
		}
		size_t rows = 0, j;
		const json_t *e;
		json_array_foreach(json_object_get(json_object_get(run, "status"), "summary"), j, e)
		{
			const char *cls = jstr(e, "class"), *wl = jstr(e, "workload");
			const char *m = jstr(e, "metric"), *unit = jstr(e, "unit");
			const json_t *mean = json_object_get(e, "mean");
			if (!cls || !wl || !wanted(metric, m) || !json_is_number(mean))
				continue;
			char mv[48], sv[48] = "-", change[32] = "-";
			const char *trend = "-";
			double x = json_number_value(mean);
			fmt_value(x, unit, mv, sizeof(mv));
			const json_t *sd = json_object_get(e, "stddev");
			if (json_is_number(sd))
				fmt_value(json_number_value(sd), unit, sv, sizeof(sv));
			const json_t *pe = prev ? entry(prev, cls, wl, m) : NULL;
			const json_t *pm = json_object_get(pe, "mean");
			if (json_is_number(pm) && json_number_value(pm) != 0) {
				double pct =
					(x - json_number_value(pm)) / json_number_value(pm) * 100;
				bool lower_better = unit && !strcmp(unit, "ns");
				snprintf(change, sizeof(change), "%+.1f%%", pct);
				if (fabs(pct) < 0.05)
					trend = "same";
				else
					trend = (pct > 0) != lower_better ? "better" : "worse";
			}
			const char *row[] = {name ? name : "",
					     when,
					     phase ? phase : "<none>",
					     cls,
					     wl,
					     m,
					     mv,
					     sv,
					     change,
					     trend,
					     regressed(run)};
			if (sbp_table_add(&t, row))
				goto out;
			rows++;
		}
		if (!rows) {
			const char *row[] = {name ? name : "",
					     when,
					     phase ? phase : "<none>",
					     "-",
					     "-",
					     metric ? metric : "-",
					     "-",
					     "-",
					     "-",
					     "-",
					     regressed(run)};
			if (sbp_table_add(&t, row))
				goto out;
		}
	}
	out = sbp_table_render(&t);
	if (nruns)
		*nruns = n;
out:
	sbp_table_release(&t);
	free(h);
	return out;
}
