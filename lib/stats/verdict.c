/* SPDX-License-Identifier: MIT */
/* Regression verdicts from a comparison document. See verdict.h. */
#include "verdict.h"
#include "core/errfmt.h"
#include "core/jsonobj.h"
#include "multitest.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *num_or_null(const json_t *v)
{
	return json_is_number(v) ? json_real(json_number_value(v)) : json_null();
}

/* Whether metric key of result r is judged: a headline metric (all when r names none). */
static bool judged(const json_t *r, const char *key)
{
	const json_t *h = json_object_get(r, "headline");
	if (!json_array_size(h))
		return true;
	for (size_t i = 0; i < json_array_size(h); i++)
		if (json_string_value(json_array_get(h, i)) &&
		    !strcmp(json_string_value(json_array_get(h, i)), key))
			return true;
	return false;
}

/* The p-values of every judged metric of cmp, in order (NaN where not tested); *n their number. */
static double *tested_ps(const json_t *results, size_t *n)
{
	size_t cap = 16, k = 0, i;
	double *p = malloc(cap * sizeof(*p));
	const json_t *r;
	json_array_foreach(results, i, r)
	{
		const char *key;
		const json_t *m;
		json_object_foreach(json_object_get(r, "metrics"), key, m)
		{
			if (!p)
				return NULL;
			if (k == cap) {
				double *q = realloc(p, (cap *= 2) * sizeof(*p));
				if (!q) {
					free(p);
					return NULL;
				}
				p = q;
			}
			const json_t *pv = json_object_get(m, "p");
			double v =
				json_is_number(pv) && judged(r, key) ? json_number_value(pv) : NAN;
			p[k++] = v >= 0 && v <= 1 ? v : NAN;
		}
	}
	*n = k;
	return p;
}

/* The list an entry of metric m goes to, or NULL: significant after the correction and beyond
 * the threshold, or (held) slower by the threshold while the schedule was regressed. */
static json_t *list_of(const json_t *m, double padj, double alpha, const struct sb_verdict_opts *o,
		       json_t *reg, json_t *imp, bool *held)
{
	const char *v = jstr(m, "verdict"), *dir = jstr(m, "direction");
	const json_t *ch = json_object_get(m, "change_pct");
	*held = false;
	if (!v || !dir || !json_is_number(ch))
		return NULL;
	double c = json_number_value(ch);
	if (!isfinite(c) || fabs(c) < o->threshold_pct)
		return NULL;
	bool sig = !strcmp(v, "significant") && padj < alpha;
	if (sig)
		return !strcmp(dir, "slower") ? reg : !strcmp(dir, "faster") ? imp : NULL;
	if (o->was_regressed && !strcmp(dir, "slower")) {
		*held = true; /* not back within the threshold: still regressed */
		return reg;
	}
	return NULL;
}

static json_t *entry(const char *target, const char *workload, const char *key, const json_t *m,
		     double padj, bool held)
{
	json_t *e = json_pack("{s:s,s:s,s:s,s:s,s:f,s:o,s:o,s:o,s:o}", "target",
			      target ? target : "", "workload", workload ? workload : "", "metric",
			      key, "unit", jstr(m, "unit") ? jstr(m, "unit") : "", "change_pct",
			      json_number_value(json_object_get(m, "change_pct")), "p",
			      num_or_null(json_object_get(m, "p")), "p_adjusted",
			      isnan(padj) ? json_null() : json_real(padj), "baseline_mean",
			      num_or_null(json_object_get(json_object_get(m, "baseline"), "mean")),
			      "current_mean",
			      num_or_null(json_object_get(json_object_get(m, "current"), "mean")));
	if (e && held && json_object_set_new(e, "held", json_true())) {
		json_decref(e);
		return NULL;
	}
	return e;
}

static int verdict_entries(const json_t *results, const double *padj, size_t np, double alpha,
			   const struct sb_verdict_opts *o, json_t *reg, json_t *imp, char *err,
			   size_t errlen)
{
	size_t i, k = 0;
	const json_t *r;
	json_array_foreach(results, i, r)
	{
		const json_t *metrics = json_object_get(r, "metrics");
		if (!json_is_object(r) || (metrics && !json_is_object(metrics)))
			return sb_errf(err, errlen, -EINVAL,
				       "comparison: results[%zu]: not an object", i);
		const char *key;
		const json_t *m;
		json_object_foreach((json_t *)metrics, key, m)
		{
			bool held;
			double pa = k < np ? padj[k] : NAN; /* the same order as tested_ps */
			k++;
			if (!judged(r, key))
				continue;
			json_t *list = list_of(m, pa, alpha, o, reg, imp, &held);
			if (!list)
				continue;
			json_t *e = entry(jstr(r, "target"), jstr(r, "workload"), key, m, pa, held);
			if (!e || json_array_append_new(list, e))
				return -ENOMEM;
		}
	}
	return 0;
}

int sb_verdict_ex(const json_t *cmp, const struct sb_verdict_opts *o, json_t **out, char *err,
		  size_t errlen)
{
	*out = NULL;
	if (!json_is_object(cmp))
		return sb_errf(err, errlen, -EINVAL, "comparison: not an object");
	const json_t *results = json_object_get(cmp, "results");
	if (!json_is_array(results))
		return sb_errf(err, errlen, -EINVAL, "comparison: results: not an array");
	if (!isfinite(o->threshold_pct) || o->threshold_pct < 0)
		return sb_errf(err, errlen, -EINVAL, "threshold: %g is not a percentage",
			       o->threshold_pct);
	double alpha = json_is_number(json_object_get(cmp, "alpha"))
			       ? json_number_value(json_object_get(cmp, "alpha"))
			       : 0.05;
	size_t np = 0, tested = 0;
	double *ps = tested_ps(results, &np);
	json_t *reg = json_array(), *imp = json_array();
	json_t *doc = json_pack("{s:f,s:f,s:s}", "threshold_pct", o->threshold_pct, "alpha", alpha,
				"correction", sb_padjust_name(o->correction));
	int ret = -ENOMEM;
	if (!ps || !reg || !imp || !doc || sb_p_adjust(ps, np, o->correction, ps))
		goto out;
	for (size_t i = 0; i < np; i++)
		tested += !isnan(ps[i]);
	if (json_object_set_new(doc, "tests", json_integer((json_int_t)tested)))
		goto out;
	if (jstr(cmp, "baseline"))
		json_object_set_new(doc, "baseline", json_string(jstr(cmp, "baseline")));
	if (jstr(cmp, "current"))
		json_object_set_new(doc, "current", json_string(jstr(cmp, "current")));
	if (json_object_get(cmp, "not_comparable"))
		json_object_set(doc, "not_comparable", json_object_get(cmp, "not_comparable"));
	if (o->was_regressed)
		json_object_set_new(doc, "was_regressed", json_true());
	ret = verdict_entries(results, ps, np, alpha, o, reg, imp, err, errlen);
	if (ret)
		goto out;
	ret = -ENOMEM;
	if (json_object_set(doc, "regressions", reg) || json_object_set(doc, "improvements", imp))
		goto out;
	*out = doc;
	doc = NULL;
	ret = 0;
out:
	free(ps);
	json_decref(reg);
	json_decref(imp);
	json_decref(doc);
	return ret;
}

int sb_verdict(const json_t *cmp, double threshold_pct, json_t **out, char *err, size_t errlen)
{
	struct sb_verdict_opts o = {threshold_pct, SB_PADJ_HOLM, false};
	return sb_verdict_ex(cmp, &o, out, err, errlen);
}

/* appends to buf at *n; false once it no longer fits */
static bool put(char *buf, size_t len, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static bool put(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	if (*n >= len)
		return false;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= len - *n) {
		*n = len;
		return false;
	}
	*n += (size_t)k;
	return true;
}

static void list_items(const json_t *items, char *buf, size_t len, size_t *n)
{
	size_t i;
	const json_t *e;
	json_array_foreach(items, i, e)
	{
		const json_t *p = json_object_get(e, "p_adjusted");
		char pv[64];
		if (!json_is_number(p))
			p = json_object_get(e, "p");
		if (json_is_number(p))
			snprintf(pv, sizeof(pv), "p=%.3g", json_number_value(p));
		else
			snprintf(pv, sizeof(pv), "p<0.001");
		if (json_is_true(json_object_get(e, "held")))
			snprintf(pv + strlen(pv), sizeof(pv) - strlen(pv), ", not back within");
		if (!put(buf, len, n, "%s%s/%s %s %+.1f%% (%s)", i ? ", " : "", jstr(e, "target"),
			 jstr(e, "workload"), jstr(e, "metric"),
			 json_number_value(json_object_get(e, "change_pct")), pv))
			return;
	}
}

static void list_not_comparable(const json_t *nc, char *buf, size_t len, size_t *n)
{
	size_t i;
	const json_t *e;
	put(buf, len, n, "; %zu not comparable (another workload): ", json_array_size(nc));
	json_array_foreach(nc, i, e)
	{
		if (!put(buf, len, n, "%s%s/%s (%s)", i ? ", " : "", jstr(e, "target"),
			 jstr(e, "workload"), jstr(e, "changed")))
			return;
	}
}

char *sb_verdict_summary(const json_t *verdict, char *buf, size_t len)
{
	if (!len)
		return buf;
	buf[0] = '\0';
	const json_t *reg = json_object_get(verdict, "regressions");
	const json_t *imp = json_object_get(verdict, "improvements");
	double thr = json_number_value(json_object_get(verdict, "threshold_pct"));
	size_t nr = json_array_size(reg), ni = json_array_size(imp), n = 0;
	size_t nc = json_array_size(json_object_get(verdict, "not_comparable"));
	if (!nr && !ni) {
		n = (size_t)snprintf(buf, len, "no significant change beyond %g%%", thr);
		if (nc)
			list_not_comparable(json_object_get(verdict, "not_comparable"), buf, len,
					    &n);
		return buf;
	}
	if (nr) {
		put(buf, len, &n, "%zu regression%s beyond %g%%: ", nr, nr == 1 ? "" : "s", thr);
		list_items(reg, buf, len, &n);
	}
	if (ni) {
		put(buf, len, &n, "%s%zu improvement%s beyond %g%%: ", nr ? "; " : "", ni,
		    ni == 1 ? "" : "s", thr);
		list_items(imp, buf, len, &n);
	}
	if (nc)
		list_not_comparable(json_object_get(verdict, "not_comparable"), buf, len, &n);
	if (n >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
	return buf;
}
