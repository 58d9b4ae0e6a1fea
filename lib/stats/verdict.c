/* SPDX-License-Identifier: MIT */
/* Regression verdicts from a comparison document. See verdict.h. */
#include "verdict.h"
#include "core/errfmt.h"
#include "core/jsonobj.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static json_t *num_or_null(const json_t *v)
{
	return json_is_number(v) ? json_real(json_number_value(v)) : json_null();
}

int sb_verdict(const json_t *cmp, double threshold_pct, json_t **out, char *err, size_t errlen)
{
	*out = NULL;
	if (!json_is_object(cmp))
		return sb_errf(err, errlen, -EINVAL, "comparison: not an object");
	const json_t *results = json_object_get(cmp, "results");
	if (!json_is_array(results))
		return sb_errf(err, errlen, -EINVAL, "comparison: results: not an array");
	if (!isfinite(threshold_pct) || threshold_pct < 0)
		return sb_errf(err, errlen, -EINVAL, "threshold: %g is not a percentage",
			       threshold_pct);
	json_t *reg = json_array(), *imp = json_array();
	json_t *doc = json_pack("{s:f,s:f}", "threshold_pct", threshold_pct, "alpha", 0.05);
	int ret = -ENOMEM;
	if (!reg || !imp || !doc)
		goto out;
	if (jstr(cmp, "baseline"))
		json_object_set_new(doc, "baseline", json_string(jstr(cmp, "baseline")));
	if (jstr(cmp, "current"))
		json_object_set_new(doc, "current", json_string(jstr(cmp, "current")));
	if (json_is_number(json_object_get(cmp, "alpha")))
		json_object_set_new(doc, "alpha",
				    json_real(json_number_value(json_object_get(cmp, "alpha"))));
	size_t i;
	const json_t *r;
	json_array_foreach(results, i, r)
	{
		const json_t *metrics = json_object_get(r, "metrics");
		if (!json_is_object(r) || (metrics && !json_is_object(metrics))) {
			ret = sb_errf(err, errlen, -EINVAL,
				      "comparison: results[%zu]: not an object", i);
			goto out;
		}
		const char *target = jstr(r, "target"), *workload = jstr(r, "workload");
		const char *key;
		const json_t *m;
		json_object_foreach((json_t *)metrics, key, m)
		{
			const char *v = jstr(m, "verdict"), *dir = jstr(m, "direction");
			const json_t *ch = json_object_get(m, "change_pct");
			if (!v || strcmp(v, "significant") || !dir || !json_is_number(ch))
				continue;
			double c = json_number_value(ch);
			if (!isfinite(c) || fabs(c) < threshold_pct)
				continue;
			json_t *list = !strcmp(dir, "slower")	? reg
				       : !strcmp(dir, "faster") ? imp
								: NULL;
			if (!list)
				continue;
			json_t *e = json_pack(
				"{s:s,s:s,s:s,s:s,s:f,s:o,s:o,s:o}", "target", target ? target : "",
				"workload", workload ? workload : "", "metric", key, "unit",
				jstr(m, "unit") ? jstr(m, "unit") : "", "change_pct", c, "p",
				num_or_null(json_object_get(m, "p")), "baseline_mean",
				num_or_null(
					json_object_get(json_object_get(m, "baseline"), "mean")),
				"current_mean",
				num_or_null(
					json_object_get(json_object_get(m, "current"), "mean")));
			if (!e || json_array_append_new(list, e))
				goto out;
		}
	}
	if (json_object_set(doc, "regressions", reg) || json_object_set(doc, "improvements", imp))
		goto out;
	*out = doc;
	doc = NULL;
	ret = 0;
out:
	json_decref(reg);
	json_decref(imp);
	json_decref(doc);
	return ret;
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
		const json_t *p = json_object_get(e, "p");
		char pv[32];
		if (json_is_number(p))
			snprintf(pv, sizeof(pv), "p=%.3g", json_number_value(p));
		else
			snprintf(pv, sizeof(pv), "p<0.001");
		if (!put(buf, len, n, "%s%s/%s %s %+.1f%% (%s)", i ? ", " : "", jstr(e, "target"),
			 jstr(e, "workload"), jstr(e, "metric"),
			 json_number_value(json_object_get(e, "change_pct")), pv))
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
	if (!nr && !ni) {
		snprintf(buf, len, "no significant change beyond %g%%", thr);
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
	if (n >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
	return buf;
}
