/* SPDX-License-Identifier: MIT */
#include "compare.h"

#include "stats/aggregate.h"
#include "stats/fingerprint.h"
#include "format.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The report's metrics in the order aggregate.c writes them. */
static const char *const metric_order[] = {
	"read-iops",	  "read-bw",	     "read-lat-mean", "read-lat-p50",	"read-lat-p99",
	"read-lat-p99.9", "write-iops",	     "write-bw",      "write-lat-mean", "write-lat-p50",
	"write-lat-p99",  "write-lat-p99.9", "sync-lat-mean", "sync-lat-p99",
};
#define NORDER (sizeof(metric_order) / sizeof(metric_order[0]))

/*
 * Writes the message to err and is -EINVAL. A macro, not a variadic
 * function, so the static analyzer sees the value (it does not inline
 * variadic functions). Needs err and errlen in scope.
 */
#define BAD(...) (snprintf(err, errlen, __VA_ARGS__), -EINVAL)

/* ---- Validation of a report document ---- */

static int check_metric(const json_t *m, const char *path, char *err, size_t errlen)
{
	const json_t *mean = json_object_get(m, "mean"), *sd = json_object_get(m, "stddev");
	const json_t *s = json_object_get(m, "samples"), *u = json_object_get(m, "unit"), *v;
	size_t i;

	if (!json_is_object(m))
		return BAD("%s: not an object", path);
	if (mean && (!json_is_number(mean) || !isfinite(json_number_value(mean))))
		return BAD("%s.mean: not a number", path);
	if (sd && (!json_is_number(sd) || !(json_number_value(sd) >= 0) ||
		   !isfinite(json_number_value(sd))))
		return BAD("%s.stddev: not a non-negative number", path);
	if (u && !json_is_string(u))
		return BAD("%s.unit: not a string", path);
	if (s && !json_is_array(s))
		return BAD("%s.samples: not an array", path);
	json_array_foreach(s, i, v)
	{
		if (!json_is_number(v) || !isfinite(json_number_value(v)))
			return BAD("%s.samples[%zu]: not a number", path, i);
	}
	if (!mean && json_array_size(s) == 0)
		return BAD("%s.mean: missing (and no samples)", path);
	if (json_array_size(s)) {
		/* finite samples whose mean or deviation overflow cannot be compared */
		size_t n = json_array_size(s);
		double *x = malloc(n * sizeof(*x));
		struct sb_summary sum;
		if (!x) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		for (i = 0; i < n; i++)
			x[i] = json_number_value(json_array_get(s, i));
		int r = sb_summary_compute(x, n, &sum);
		free(x);
		if (r) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		if (!isfinite(sum.mean) || !isfinite(sum.stddev))
			return BAD("%s.samples: their %s is %g: the values are out of range", path,
				   isfinite(sum.mean) ? "standard deviation" : "mean",
				   isfinite(sum.mean) ? sum.stddev : sum.mean);
	}
	return 0;
}

/* The hash key of a result: "<len of target>:<target><workload>". NULL on ENOMEM. */
static char *result_key(const char *target, const char *workload)
{
	char *k = NULL;
	if (asprintf(&k, "%zu:%s%s", strlen(target), target, workload) < 0)
		return NULL;
	return k;
}

/*
 * Checks the types of a report and that no target x workload is there twice
 * (hashed: a report of many results stays linear). *index (new reference)
 * maps result_key to the result's position.
 */
static int check_report_idx(const json_t *rep, const char *side, json_t **index, char *err,
			    size_t errlen);

static int check_report(const json_t *rep, const char *side, json_t **index, char *err,
			size_t errlen)
{
	*index = json_object();
	if (!*index) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	int r = check_report_idx(rep, side, index, err, errlen);
	if (r) {
		json_decref(*index);
		*index = NULL;
	}
	return r;
}

static int check_report_idx(const json_t *rep, const char *side, json_t **index, char *err,
			    size_t errlen)
{
	const json_t *results = json_object_get(rep, "results"), *r;
	size_t i;
	char path[256];

	if (!json_is_object(rep))
		return BAD("%s: not an object", side);
	if (json_object_get(rep, "name") && !json_is_string(json_object_get(rep, "name")))
		return BAD("%s: name: not a string", side);
	if (!json_is_array(results))
		return BAD("%s: results: missing or not an array", side);
	json_array_foreach(results, i, r)
	{
		const json_t *t = json_object_get(r, "target"), *w = json_object_get(r, "workload");
		const json_t *ms = json_object_get(r, "metrics"), *m,
			     *h = json_object_get(r, "headline");
		const char *key;
		if (!json_is_object(r))
			return BAD("%s: results[%zu]: not an object", side, i);
		if (!json_is_string(t))
			return BAD("%s: results[%zu].target: missing or not a string", side, i);
		if (!json_is_string(w))
			return BAD("%s: results[%zu].workload: missing or not a string", side, i);
		if (!json_is_object(ms))
			return BAD("%s: results[%zu].metrics: missing or not an object", side, i);
		if (h && !json_is_array(h))
			return BAD("%s: results[%zu].headline: not an array", side, i);
		for (size_t k = 0; k < json_array_size(h); k++)
			if (!json_is_string(json_array_get(h, k)))
				return BAD("%s: results[%zu].headline[%zu]: not a string", side, i,
					   k);
		json_object_foreach((json_t *)ms, key, m)
		{
			snprintf(path, sizeof(path), "%s: results[%zu].metrics.%s", side, i, key);
			if (check_metric(m, path, err, errlen))
				return -EINVAL;
		}
		char *key2 = result_key(json_string_value(t), json_string_value(w));
		if (!key2) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		bool twice = json_object_get(*index, key2) != NULL;
		int set =
			twice ? 0 : json_object_set_new(*index, key2, json_integer((json_int_t)i));
		free(key2);
		if (twice)
			return BAD("%s: results[%zu]: a second result for target '%s' "
				   "workload '%s'",
				   side, i, json_string_value(t), json_string_value(w));
		if (set) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

/* The result of target x workload in rep (index from check_report), or NULL. */
static const json_t *find_result(const json_t *rep, const json_t *index, const char *target,
				 const char *workload)
{
	char *k = result_key(target, workload);
	const json_t *at = k ? json_object_get(index, k) : NULL;
	free(k);
	return at ? json_array_get(json_object_get(rep, "results"), (size_t)json_integer_value(at))
		  : NULL;
}

/* ---- One metric ---- */

struct side_stats {
	double *v; /* samples */
	size_t n;
	double mean, sd;
};

/* Samples, mean and stddev of a validated metric object. 0 or -ENOMEM. */
static int side_get(const json_t *m, struct side_stats *s)
{
	const json_t *a = json_object_get(m, "samples");
	struct sb_summary sum;

	memset(s, 0, sizeof(*s));
	s->n = json_array_size(a);
	if (s->n) {
		s->v = malloc(s->n * sizeof(*s->v));
		if (!s->v)
			return -ENOMEM;
		for (size_t i = 0; i < s->n; i++)
			s->v[i] = json_number_value(json_array_get(a, i));
		if (sb_summary_compute(s->v, s->n, &sum))
			return -ENOMEM;
		s->mean = sum.mean;
		s->sd = sum.stddev;
	}
	if (json_object_get(m, "mean"))
		s->mean = json_number_value(json_object_get(m, "mean"));
	if (json_object_get(m, "stddev"))
		s->sd = json_number_value(json_object_get(m, "stddev"));
	return 0;
}

static bool lower_is_better(const char *name, const json_t *m)
{
	const char *unit = json_string_value(json_object_get(m, "unit"));
	if (!strcmp(name, SB_METRIC_ERRORS))
		return true; /* failed requests of an object store (docs/s3.md) */
	if (unit)
		return !strcmp(unit, "ns");
	return strstr(name, "-lat") != NULL;
}

static json_t *side_json(const struct side_stats *s)
{
	return json_pack("{s:f,s:f,s:I}", "mean", s->mean, "stddev", s->sd, "n", (json_int_t)s->n);
}

static json_t *real_or_null(double v, bool ok)
{
	return ok && isfinite(v) ? json_real(v) : json_null();
}

/* The comparison of one metric, a new reference or NULL on ENOMEM. */
static json_t *compare_metric(const char *name, const json_t *mb, const json_t *mc)
{
	struct side_stats b, c;
	json_t *o = NULL;
	double t = 0, df = 0, p = 1;
	bool tested = false;
	const char *verdict = "n too small";

	memset(&b, 0, sizeof(b));
	memset(&c, 0, sizeof(c));
	if (side_get(mb, &b) || side_get(mc, &c))
		goto out;
	if (b.n >= 2 && c.n >= 2) {
		int r = sb_welch_t(c.v, c.n, b.v, b.n, &t, &df, &p);
		tested = r == 0 || r == -EDOM;
		if (tested)
			verdict = p < SB_COMPARE_ALPHA ? "significant" : "not significant";
	}
	bool lower = lower_is_better(name, mc);
	double diff = c.mean - b.mean;
	const char *dir = diff == 0 ? "same" : (diff < 0) == lower ? "faster" : "slower";
	const char *unit = json_string_value(json_object_get(mc, "unit"));
	if (!unit)
		unit = json_string_value(json_object_get(mb, "unit"));
	o = json_pack("{s:s,s:b,s:o,s:o,s:o,s:o,s:o,s:o,s:s,s:s}", "unit", unit ? unit : "",
		      "lower_is_better", lower, "baseline", side_json(&b), "current", side_json(&c),
		      "change_pct", real_or_null(100.0 * diff / b.mean, b.mean > 0), "t",
		      real_or_null(t, tested), "df", real_or_null(df, tested), "p",
		      real_or_null(p, tested), "verdict", verdict, "direction", dir);
out:
	free(b.v);
	free(c.v);
	return o;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool known_metric(const char *name)
{
	for (size_t i = 0; i < NORDER; i++)
		if (!strcmp(metric_order[i], name))
			return true;
	return false;
}

/*
 * The metric names of a result in report order: the known ones, then the
 * others sorted. *names is malloc'd (entries borrowed).
 */
static int ordered_names(const json_t *ms, const char ***names, size_t *n)
{
	size_t cap = json_object_size(ms) + 1, k = 0, first_other;
	const char **v = calloc(cap, sizeof(*v));
	const char *key;
	const json_t *m;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < NORDER; i++)
		if (json_object_get(ms, metric_order[i]))
			v[k++] = metric_order[i];
	first_other = k;
	json_object_foreach((json_t *)ms, key, m)
	{
		if (!known_metric(key) && k < cap)
			v[k++] = key;
	}
	qsort(v + first_other, k - first_other, sizeof(*v), cmp_str);
	*names = v;
	*n = k;
	return 0;
}

/* Adds the comparison of result rc (current) with rb (baseline) to results. */
static int compare_result(const json_t *rb, const json_t *rc, json_t *results)
{
	const json_t *mb = json_object_get(rb, "metrics"), *mc = json_object_get(rc, "metrics");
	const char **names = NULL, **bnames = NULL;
	size_t n = 0, bn = 0;
	json_t *metrics = json_object(), *unmatched = json_array(), *r = NULL;
	int ret = -ENOMEM;

	if (!metrics || !unmatched || ordered_names(mc, &names, &n) ||
	    ordered_names(mb, &bnames, &bn))
		goto out;
	for (size_t i = 0; i < n; i++) {
		const json_t *b = json_object_get(mb, names[i]);
		if (!b) {
			if (json_array_append_new(unmatched, json_string(names[i])))
				goto out;
			continue;
		}
		json_t *x = compare_metric(names[i], b, json_object_get(mc, names[i]));
		if (!x || json_object_set_new(metrics, names[i], x))
			goto out;
	}
	for (size_t i = 0; i < bn; i++)
		if (!json_object_get(mc, bnames[i]) &&
		    json_array_append_new(unmatched, json_string(bnames[i])))
			goto out;
	const json_t *h = json_object_get(rc, "headline");
	r = json_pack("{s:O,s:O,s:o,s:O}", "target", json_object_get(rc, "target"), "workload",
		      json_object_get(rc, "workload"), "headline",
		      h ? json_deep_copy(h) : json_array(), "metrics", metrics);
	if (!r)
		goto out;
	if (json_array_size(unmatched) && json_object_set(r, "unmatched_metrics", unmatched))
		goto out;
	if (json_array_append(results, r))
		goto out;
	ret = 0;
out:
	free(names);
	free(bnames);
	json_decref(metrics);
	json_decref(unmatched);
	json_decref(r);
	return ret;
}

/*
 * Whether two results ran different workloads: both carry a fingerprint
 * (lib/stats/fingerprint.h) and they differ. Then {"target", "workload",
 * "baseline_fingerprint", "current_fingerprint", "changed"} is appended to
 * list (changed: what differs, "iodepth 8 -> 16"). 1 not comparable, 0
 * comparable, -ENOMEM.
 */
static int not_comparable(const json_t *rb, const json_t *rc, json_t *list)
{
	const char *fb = json_string_value(json_object_get(rb, "fingerprint"));
	const char *fc = json_string_value(json_object_get(rc, "fingerprint"));
	if (!fb || !fc || !strcmp(fb, fc))
		return 0;
	char diff[512];
	sb_params_diff(json_object_get(rb, "params"), json_object_get(rc, "params"), diff,
		       sizeof(diff));
	json_t *e =
		json_pack("{s:O,s:O,s:s,s:s,s:s}", "target", json_object_get(rc, "target"),
			  "workload", json_object_get(rc, "workload"), "baseline_fingerprint", fb,
			  "current_fingerprint", fc, "changed", diff[0] ? diff : "the parameters");
	return e && !json_array_append_new(list, e) ? 1 : -ENOMEM;
}

/* Appends {"target", "workload"} of every result of a missing from b. */
static int only_in(const json_t *a, const json_t *b, const json_t *bindex, json_t *list)
{
	const json_t *r;
	size_t i;
	json_array_foreach(json_object_get(a, "results"), i, r)
	{
		const char *t = json_string_value(json_object_get(r, "target"));
		const char *w = json_string_value(json_object_get(r, "workload"));
		if (find_result(b, bindex, t, w))
			continue;
		if (json_array_append_new(list, json_pack("{s:s,s:s}", "target", t, "workload", w)))
			return -ENOMEM;
	}
	return 0;
}

int sb_compare(const json_t *baseline, const json_t *current, json_t **out, char *err,
	       size_t errlen)
{
	json_t *results = NULL, *ob = NULL, *oc = NULL, *nc = NULL, *doc = NULL;
	const json_t *r;
	size_t i;
	int ret;

	json_t *bidx = NULL, *cidx = NULL;
	*out = NULL;
	if ((ret = check_report(baseline, "baseline", &bidx, err, errlen)) ||
	    (ret = check_report(current, "current", &cidx, err, errlen))) {
		json_decref(bidx);
		return ret;
	}
	ret = -ENOMEM;
	results = json_array();
	ob = json_array();
	oc = json_array();
	nc = json_array();
	if (!results || !ob || !oc || !nc)
		goto out;
	json_array_foreach(json_object_get(current, "results"), i, r)
	{
		const json_t *b =
			find_result(baseline, bidx, json_string_value(json_object_get(r, "target")),
				    json_string_value(json_object_get(r, "workload")));
		int differ = b ? not_comparable(b, r, nc) : 0;
		if (differ < 0 || (b && !differ && compare_result(b, r, results)))
			goto out;
	}
	if (only_in(baseline, current, cidx, ob) || only_in(current, baseline, bidx, oc))
		goto out;
	const char *bn = json_string_value(json_object_get(baseline, "name"));
	const char *cn = json_string_value(json_object_get(current, "name"));
	doc = json_pack("{s:s,s:i,s:s,s:s,s:f,s:s,s:O,s:O,s:O}", "kind", "StoragebenchComparison",
			"version", 1, "baseline", bn ? bn : "", "current", cn ? cn : "", "alpha",
			SB_COMPARE_ALPHA, "test", "welch-t-two-sided", "results", results,
			"only_baseline", ob, "only_current", oc);
	if (!doc || (json_array_size(nc) && json_object_set(doc, "not_comparable", nc)))
		goto out;
	*out = doc;
	ret = 0;
out:
	if (ret)
		snprintf(err, errlen, "out of memory");
	json_decref(bidx);
	json_decref(cidx);
	json_decref(results);
	json_decref(ob);
	json_decref(oc);
	json_decref(nc);
	return ret;
}

/* ---- Pooling several baselines ---- */

/* Appends the samples of metric m (borrowed) to the array pool. 0 or -ENOMEM. */
static int pool_samples(json_t *pool, const json_t *m)
{
	size_t i;
	const json_t *v;
	json_array_foreach(json_object_get(m, "samples"), i, v)
	{
		if (json_array_append_new(pool, json_real(json_number_value(v))))
			return -ENOMEM;
	}
	return 0;
}

/* The pooled metrics of key k over reps (indexes from check_report), same fingerprint as ref. */
static json_t *pool_metrics(const json_t *const *reps, json_t *const *idx, size_t n,
			    const json_t *ref)
{
	const char *t = json_string_value(json_object_get(ref, "target"));
	const char *w = json_string_value(json_object_get(ref, "workload"));
	const char *fp = json_string_value(json_object_get(ref, "fingerprint"));
	json_t *metrics = json_object();
	const char *name;
	const json_t *rm;
	json_object_foreach(json_object_get(ref, "metrics"), name, rm)
	{
		json_t *pool = json_array();
		if (!metrics || !pool)
			goto fail;
		for (size_t k = 0; k < n; k++) {
			const json_t *r = find_result(reps[k], idx[k], t, w);
			const char *f = json_string_value(json_object_get(r, "fingerprint"));
			if (!r || (fp && (!f || strcmp(f, fp))) || (!fp && f))
				continue;
			const json_t *m = json_object_get(json_object_get(r, "metrics"), name);
			if (m && pool_samples(pool, m))
				goto fail_pool;
		}
		json_t *pm = json_deep_copy(rm);
		if (!pm)
			goto fail_pool;
		if (json_array_size(pool)) {
			size_t np = json_array_size(pool);
			double *x = malloc(np * sizeof(*x));
			struct sb_summary sum;
			for (size_t i = 0; x && i < np; i++)
				x[i] = json_number_value(json_array_get(pool, i));
			int r = x ? sb_summary_compute(x, np, &sum) : -ENOMEM;
			free(x);
			if (r || json_object_set(pm, "samples", pool) ||
			    json_object_set_new(pm, "mean", json_real(sum.mean)) ||
			    json_object_set_new(pm, "stddev", json_real(sum.stddev)) ||
			    json_object_set_new(pm, "n", json_integer((json_int_t)np))) {
				json_decref(pm);
				goto fail_pool;
			}
		}
		json_decref(pool);
		if (json_object_set_new(metrics, name, pm))
			goto fail;
		continue;
	fail_pool:
		json_decref(pool);
		goto fail;
	}
	return metrics;
fail:
	json_decref(metrics);
	return NULL;
}

int sb_report_pool(const json_t *const *reps, size_t n, json_t **out, char *err, size_t errlen)
{
	json_t **idx = calloc(n ? n : 1, sizeof(*idx));
	json_t *results = json_array(), *names = json_array(), *seen = json_object(), *doc = NULL;
	int ret = -ENOMEM;
	char side[32];
	*out = NULL;
	if (!idx || !results || !names || !seen)
		goto nomem;
	for (size_t k = 0; k < n; k++) {
		snprintf(side, sizeof(side), "baseline %zu", k + 1);
		if ((ret = check_report(reps[k], side, &idx[k], err, errlen)))
			goto out;
		const char *nm = json_string_value(json_object_get(reps[k], "name"));
		if (json_array_append_new(names, json_string(nm ? nm : "")))
			goto nomem;
	}
	/* every target x workload, from the newest report that has it */
	for (size_t k = 0; k < n; k++) {
		size_t i;
		const json_t *r;
		json_array_foreach(json_object_get(reps[k], "results"), i, r)
		{
			char *key = result_key(json_string_value(json_object_get(r, "target")),
					       json_string_value(json_object_get(r, "workload")));
			bool dup = key && json_object_get(seen, key);
			if (!key || (!dup && json_object_set_new(seen, key, json_true()))) {
				free(key);
				goto nomem;
			}
			free(key);
			if (dup)
				continue;
			json_t *pr = json_deep_copy(r);
			json_t *pm = pr ? pool_metrics(reps, idx, n, r) : NULL;
			if (!pm || json_object_set_new(pr, "metrics", pm)) {
				json_decref(pr);
				goto nomem;
			}
			if (json_array_append_new(results, pr))
				goto nomem;
		}
	}
	const char *nm = n ? json_string_value(json_object_get(reps[0], "name")) : NULL;
	doc = json_pack("{s:s,s:i,s:s,s:O,s:O}", "kind", "StoragebenchReport", "version", 1, "name",
			nm ? nm : "", "pooled", names, "results", results);
	if (!doc)
		goto nomem;
	*out = doc;
	ret = 0;
	goto out;
nomem:
	snprintf(err, errlen, "out of memory");
	ret = -ENOMEM;
out:
	for (size_t k = 0; idx && k < n; k++)
		json_decref(idx[k]);
	free(idx);
	json_decref(results);
	json_decref(names);
	json_decref(seen);
	return ret;
}

/* ---- Rendering ---- */

/* "+12.4%", "n/a" */
static void fmt_change(const json_t *pct, char *buf, size_t len)
{
	if (!json_is_number(pct)) {
		snprintf(buf, len, "n/a");
		return;
	}
	double v = json_number_value(pct);
	if (fabs(v) < 0.05)
		v = 0; /* no "-0.0%" */
	snprintf(buf, len, "%+.1f%%", v);
}

/* "p=0.003", "p<0.001", "" when not tested; never rounds across alpha. */
static void fmt_p(const json_t *pj, double alpha, char *buf, size_t len)
{
	if (!json_is_number(pj)) {
		snprintf(buf, len, "-");
		return;
	}
	double p = json_number_value(pj);
	if (p < 0.001) {
		snprintf(buf, len, "p<0.001");
		return;
	}
	for (int prec = 2; prec <= 12; prec++) {
		snprintf(buf, len, "p=%.*g", prec, p);
		if ((p < alpha) == (strtod(buf + 2, NULL) < alpha))
			break;
	}
}

static void pad(FILE *f, const char *s, size_t width)
{
	fputs(s, f);
	for (size_t k = sb_report_text_width(s); k < width; k++)
		fputc(' ', f);
}

#define NCOLS 8

struct row {
	char c[NCOLS][96];
};

struct table {
	struct row *r;
	size_t n, cap;
};

static int table_add(struct table *t, const struct row *r)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct row *v = realloc(t->r, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->r = v;
		t->cap = cap;
	}
	t->r[t->n++] = *r;
	return 0;
}

static void table_print(FILE *f, const struct table *t, bool md)
{
	size_t w[NCOLS] = {0};
	for (size_t i = 0; i < t->n; i++)
		for (int k = 0; k < NCOLS; k++)
			if (sb_report_text_width(t->r[i].c[k]) > w[k])
				w[k] = sb_report_text_width(t->r[i].c[k]);
	for (size_t i = 0; i < t->n; i++) {
		for (int k = 0; k < NCOLS; k++) {
			fputs(k == 0 ? (md ? "| " : "") : " | ", f);
			if (k == NCOLS - 1 && !md)
				fputs(t->r[i].c[k], f);
			else
				pad(f, t->r[i].c[k], w[k]);
		}
		fputs(md ? " |\n" : "\n", f);
		if (i == 0) {
			for (int k = 0; k < NCOLS; k++) {
				fputs(k == 0 ? (md ? "|" : "") : (md ? "|" : "-+-"), f);
				for (size_t j = 0; j < w[k] + (md ? 2 : 0); j++)
					fputc('-', f);
			}
			fputs(md ? "|\n" : "\n", f);
		}
	}
}

static void mean_sd(const json_t *side, const char *unit, char *buf, size_t len)
{
	char a[48], b[48];
	if (!json_is_number(json_object_get(side, "mean"))) {
		snprintf(buf, len, "-");
		return;
	}
	sb_report_fmt_short(json_number_value(json_object_get(side, "mean")), unit, a, sizeof(a));
	sb_report_fmt_short(json_number_value(json_object_get(side, "stddev")), unit, b, sizeof(b));
	snprintf(buf, len, "%s \xc2\xb1 %s", a, b);
}

static bool in_headline(const json_t *h, const char *metric)
{
	if (json_array_size(h) == 0)
		return true; /* no headline: every metric */
	for (size_t k = 0; k < json_array_size(h); k++)
		if (!strcmp(json_string_value(json_array_get(h, k)), metric))
			return true;
	return false;
}

static void only_lines(FILE *f, const json_t *list, const char *what, bool md)
{
	size_t n = json_array_size(list);
	if (!n)
		return;
	fprintf(f, "\n%sonly in %s (not compared):\n", md ? "" : "", what);
	for (size_t i = 0; i < n;) {
		const char *t =
			json_string_value(json_object_get(json_array_get(list, i), "target"));
		fprintf(f, "%s%s: ", md ? "- " : "  ", t ? t : "?");
		size_t j = i;
		for (; j < n; j++) {
			const json_t *e = json_array_get(list, j);
			const char *tj = json_string_value(json_object_get(e, "target"));
			const char *w = json_string_value(json_object_get(e, "workload"));
			if (!tj || !t || strcmp(tj, t) != 0)
				break;
			fprintf(f, "%s%s", j > i ? ", " : "", w ? w : "?");
		}
		fputc('\n', f);
		i = j > i ? j : i + 1;
	}
}

static int render_text(FILE *f, const json_t *cmp, bool md, char *err, size_t errlen)
{
	const json_t *results = json_object_get(cmp, "results"), *r;
	const json_t *alpha_j = json_object_get(cmp, "alpha");
	double alpha = json_is_number(alpha_j) ? json_number_value(alpha_j) : SB_COMPARE_ALPHA;
	const char *bn = json_string_value(json_object_get(cmp, "baseline"));
	const char *cn = json_string_value(json_object_get(cmp, "current"));
	struct table t = {0};
	struct row row;
	size_t i;
	int ret = 0;

	if (!json_is_array(results))
		return BAD("results: missing or not an array");
	fprintf(f, "%sstoragebench comparison: %s -> %s\n", md ? "# " : "",
		bn && *bn ? bn : "baseline", cn && *cn ? cn : "current");
	fprintf(f,
		"%sWelch's t-test on the iteration samples, two-sided, significant at p < %g\n\n",
		md ? "\n" : "", alpha);
	static const char *const head[NCOLS] = {"target",  "workload", "metric", "baseline",
						"current", "change",   "p",	 "verdict"};
	memset(&row, 0, sizeof(row));
	for (int k = 0; k < NCOLS; k++)
		snprintf(row.c[k], sizeof(row.c[k]), "%s", head[k]);
	if (table_add(&t, &row))
		goto nomem;
	json_array_foreach(results, i, r)
	{
		const char *tg = json_string_value(json_object_get(r, "target"));
		const char *wl = json_string_value(json_object_get(r, "workload"));
		const json_t *ms = json_object_get(r, "metrics"),
			     *h = json_object_get(r, "headline");
		const char *key;
		const json_t *m;
		if (!tg || !wl || !json_is_object(ms)) {
			ret = BAD("results[%zu]: target, workload or metrics missing", i);
			goto out;
		}
		json_object_foreach((json_t *)ms, key, m)
		{
			char change[32], p[32], words[64], verdict[64];
			const char *v = json_string_value(json_object_get(m, "verdict"));
			const char *dir = json_string_value(json_object_get(m, "direction"));
			const char *unit = json_string_value(json_object_get(m, "unit"));
			bool lower = json_is_true(json_object_get(m, "lower_is_better"));
			if (!in_headline(h, key))
				continue;
			if (!v)
				v = "?";
			fmt_change(json_object_get(m, "change_pct"), change, sizeof(change));
			fmt_p(json_object_get(m, "p"), alpha, p, sizeof(p));
			if (!strcmp(v, "significant") && dir && strcmp(dir, "same") != 0)
				snprintf(verdict, sizeof(verdict), "%s, %s", v, dir);
			else
				snprintf(verdict, sizeof(verdict), "%s", v);
			/* the metric is named when the workload name does not say it */
			words[0] = '\0';
			if (json_array_size(h) != 1 || lower)
				sb_report_metric_words(key, words, sizeof(words));
			fprintf(f, "%s%s: %s%s%s%s: %s (%s%s%s)\n", md ? "- " : "", tg, wl,
				*words ? " (" : "", words, *words ? ")" : "", change,
				json_is_number(json_object_get(m, "p")) ? p : "",
				json_is_number(json_object_get(m, "p")) ? ", " : "", verdict);
			memset(&row, 0, sizeof(row));
			snprintf(row.c[0], sizeof(row.c[0]), "%s", tg);
			snprintf(row.c[1], sizeof(row.c[1]), "%s", wl);
			snprintf(row.c[2], sizeof(row.c[2]), "%s", key);
			mean_sd(json_object_get(m, "baseline"), unit ? unit : "", row.c[3],
				sizeof(row.c[3]));
			mean_sd(json_object_get(m, "current"), unit ? unit : "", row.c[4],
				sizeof(row.c[4]));
			snprintf(row.c[5], sizeof(row.c[5]), "%s", change);
			snprintf(row.c[6], sizeof(row.c[6]), "%s",
				 json_is_number(json_object_get(m, "p")) ? p + 2 : "-");
			snprintf(row.c[7], sizeof(row.c[7]), "%s", verdict);
			if (table_add(&t, &row))
				goto nomem;
		}
	}
	if (t.n == 1)
		fprintf(f, "%sno target and workload in both reports\n", md ? "- " : "");
	only_lines(f, json_object_get(cmp, "only_baseline"), "baseline", md);
	only_lines(f, json_object_get(cmp, "only_current"), "current", md);
	json_array_foreach(json_object_get(cmp, "not_comparable"), i, r)
	{
		fprintf(f, "%snot comparable (another workload): %s: %s: %s\n", md ? "- " : "",
			json_string_value(json_object_get(r, "target")),
			json_string_value(json_object_get(r, "workload")),
			json_string_value(json_object_get(r, "changed")));
	}
	if (t.n > 1) {
		fputc('\n', f);
		table_print(f, &t, md);
	}
	goto out;
nomem:
	ret = -ENOMEM;
	snprintf(err, errlen, "out of memory");
out:
	free(t.r);
	return ret;
}

char *sb_compare_render(const json_t *cmp, const char *format, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	int ret;

	if (!json_is_object(cmp)) {
		snprintf(err, errlen, "comparison: not an object");
		return NULL;
	}
	if (!strcmp(format, "json")) {
		buf = json_dumps(cmp, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		if (!buf)
			snprintf(err, errlen, "out of memory");
		return buf;
	}
	if (strcmp(format, "txt") != 0 && strcmp(format, "md") != 0) {
		snprintf(err, errlen, "format '%s' is not one of txt, md, json", format);
		return NULL;
	}
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ret = render_text(f, cmp, !strcmp(format, "md"), err, errlen);
	if (fclose(f) != 0 && !ret) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
	}
	if (ret) {
		free(buf);
		return NULL;
	}
	return buf;
}
