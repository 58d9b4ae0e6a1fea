/* SPDX-License-Identifier: MIT */
/*
 * The report document of lib/report_svg: struct doc (targets, workloads,
 * results) parsed from the JSON and validated, and lookups of a result's
 * metrics.
 */
#include "report/svg/internal.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void svg_doc_release(struct doc *d)
{
	free(d->tg);
	free(d->wl);
	free(d->r);
	free(d->lc);
	memset(d, 0, sizeof(*d));
}

/* Index of name in list, adding it when absent. -ENOMEM or the index. */
static long name_index(const char ***list, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		/* clang 14's analyzer, analysing svg_doc_parse() on its own (its
		 * struct doc in unknown memory), forgets that d->ntg is 0 after
		 * the library calls before the first name_index() and reports
		 * the calloc'd NULL entry: a false positive. */
		// NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker)
		if (!strcmp((*list)[i], name))
			return (long)i;
	const char **l = realloc(*list, (*n + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	*list = l;
	l[*n] = name;
	return (long)(*n)++;
}

static int names_from(const json_t *rep, const char *key, const char ***list, size_t *n, char *err,
		      size_t errlen)
{
	const json_t *a = json_object_get(rep, key), *v;
	size_t i;

	if (!a)
		return 0;
	if (!json_is_array(a))
		return BAD("%s: not an array", key);
	json_array_foreach(a, i, v)
	{
		if (!json_is_string(v))
			return BAD("%s[%zu]: not a string", key, i);
		if (name_index(list, n, json_string_value(v)) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int check_num(const json_t *o, const char *key, bool required, const char *path, char *err,
		     size_t errlen)
{
	const json_t *v = json_object_get(o, key);
	if (!v)
		return required ? BAD("%s.%s: missing", path, key) : 0;
	if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0)
		return BAD("%s.%s: not a non-negative number", path, key);
	return 0;
}

static int check_metrics(const json_t *m, size_t ri, char *err, size_t errlen)
{
	const char *key;
	const json_t *v;
	char path[160];

	json_object_foreach((json_t *)m, key, v)
	{
		snprintf(path, sizeof(path), "results[%zu].metrics.%s", ri, key);
		if (!json_is_object(v))
			return BAD("%s: not an object", path);
		if (check_num(v, "mean", true, path, err, errlen) ||
		    check_num(v, "stddev", false, path, err, errlen))
			return -EINVAL;
		const json_t *n = json_object_get(v, "n");
		if (n && (!json_is_integer(n) || json_integer_value(n) < 0))
			return BAD("%s.n: not a non-negative integer", path);
		const json_t *u = json_object_get(v, "unit");
		if (u && !json_is_string(u))
			return BAD("%s.unit: not a string", path);
	}
	return 0;
}

static int check_merged(const json_t *m, size_t ri, char *err, size_t errlen)
{
	const char *key;
	const json_t *v;
	char path[160];

	if (!json_is_object(m))
		return BAD("results[%zu].merged: not an object", ri);
	json_object_foreach((json_t *)m, key, v)
	{
		snprintf(path, sizeof(path), "results[%zu].merged.%s", ri, key);
		if (!json_is_object(v))
			return BAD("%s: not an object", path);
		if (check_num(v, "p50", false, path, err, errlen) ||
		    check_num(v, "p99", false, path, err, errlen) ||
		    check_num(v, "p99.9", false, path, err, errlen))
			return -EINVAL;
	}
	return 0;
}

static int res_parse(const json_t *r, size_t i, struct res *x, char *err, size_t errlen)
{
	const json_t *t = json_object_get(r, "target"), *w = json_object_get(r, "workload");
	const json_t *h, *v;
	size_t k;

	if (!json_is_object(r))
		return BAD("results[%zu]: not an object", i);
	if (!json_is_string(t))
		return BAD("results[%zu].target: missing or not a string", i);
	if (!json_is_string(w))
		return BAD("results[%zu].workload: missing or not a string", i);
	x->target = json_string_value(t);
	x->workload = json_string_value(w);
	x->metrics = json_object_get(r, "metrics");
	if (!json_is_object(x->metrics))
		return BAD("results[%zu].metrics: missing or not an object", i);
	if (check_metrics(x->metrics, i, err, errlen))
		return -EINVAL;
	x->merged = json_object_get(r, "merged");
	if (x->merged && check_merged(x->merged, i, err, errlen))
		return -EINVAL;
	x->fsync = -1;
	v = json_object_get(r, "fsync");
	if (v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return BAD("results[%zu].fsync: not a non-negative integer", i);
		x->fsync = json_integer_value(v);
	}
	h = json_object_get(r, "headline");
	if (h) {
		if (!json_is_array(h))
			return BAD("results[%zu].headline: not an array", i);
		json_array_foreach(h, k, v)
		{
			if (!json_is_string(v))
				return BAD("results[%zu].headline[%zu]: not a string", i, k);
			if (x->nhead < 4)
				x->head[x->nhead++] = json_string_value(v);
		}
	} else {
		/* older documents: lead with IOPS of each direction measured */
		static const char *const guess[2] = {"read-iops", "write-iops"};
		for (k = 0; k < 2; k++)
			if (json_object_get(x->metrics, guess[k]))
				x->head[x->nhead++] = guess[k];
	}
	return 0;
}

/* Entry i of the lifecycle section into *x (x->ti left to the caller). */
static int lc_parse(const json_t *e, size_t i, struct lc *x, char *err, size_t errlen)
{
	const json_t *t = json_object_get(e, "target"), *p = json_object_get(e, "phase");
	const json_t *sk = json_object_get(e, "skipped"), *m = json_object_get(e, "message");
	const json_t *n = json_object_get(e, "n"), *it = json_object_get(e, "iteration");
	char path[64];

	if (!json_is_object(e))
		return BAD("lifecycle[%zu]: not an object", i);
	if (!json_is_string(t))
		return BAD("lifecycle[%zu].target: missing or not a string", i);
	if (!json_is_string(p))
		return BAD("lifecycle[%zu].phase: missing or not a string", i);
	if (sk && !json_is_string(sk))
		return BAD("lifecycle[%zu].skipped: not a string", i);
	if (m && !json_is_string(m))
		return BAD("lifecycle[%zu].message: not a string", i);
	if (it && (!json_is_integer(it) || json_integer_value(it) < 0))
		return BAD("lifecycle[%zu].iteration: not a non-negative integer", i);
	x->target = json_string_value(t);
	x->phase = json_string_value(p);
	x->skipped = sk ? json_string_value(sk) : NULL;
	x->message = m ? json_string_value(m) : NULL;
	x->iteration = it ? json_integer_value(it) : -1;
	x->p95 = -1;
	if (sk || m)
		return 0; /* no statistics */
	snprintf(path, sizeof(path), "lifecycle[%zu]", i);
	if (check_num(e, "mean", true, path, err, errlen) ||
	    check_num(e, "stddev", false, path, err, errlen) ||
	    check_num(e, "p95", false, path, err, errlen))
		return -EINVAL;
	if (n && (!json_is_integer(n) || json_integer_value(n) < 0))
		return BAD("lifecycle[%zu].n: not a non-negative integer", i);
	x->stats = true;
	x->mean = json_number_value(json_object_get(e, "mean"));
	x->sd = json_number_value(json_object_get(e, "stddev"));
	x->n = n ? json_integer_value(n) : 1;
	if (!json_object_get(e, "stddev"))
		x->n = 1; /* no deviation to show, as svg_metric() */
	if (x->n < 2)
		x->sd = 0;
	if (json_object_get(e, "p95"))
		x->p95 = json_number_value(json_object_get(e, "p95"));
	return 0;
}

/* The optional "lifecycle" section; its classes join the targets. */
static int lc_from(const json_t *rep, struct doc *d, char *err, size_t errlen)
{
	const json_t *a = json_object_get(rep, "lifecycle"), *e;
	size_t i;
	int ret;

	if (!a)
		return 0;
	if (!json_is_array(a))
		return BAD("lifecycle: not an array");
	d->lc = calloc(json_array_size(a) + 1, sizeof(*d->lc));
	if (!d->lc)
		return -ENOMEM;
	json_array_foreach(a, i, e)
	{
		struct lc *x = &d->lc[d->nlc];
		if ((ret = lc_parse(e, i, x, err, errlen)))
			return ret;
		long ti = name_index(&d->tg, &d->ntg, x->target);
		if (ti < 0)
			return -ENOMEM;
		x->ti = (size_t)ti;
		d->nlc++;
	}
	return 0;
}

int svg_doc_parse(const json_t *rep, struct doc *d, char *err, size_t errlen)
{
	const json_t *results, *r, *name;
	size_t i;
	int ret;

	memset(d, 0, sizeof(*d));
	if (!json_is_object(rep))
		return BAD("report: not an object");
	name = json_object_get(rep, "name");
	if (name && !json_is_string(name))
		return BAD("name: not a string");
	d->name = name ? json_string_value(name) : "";
	d->sweep = json_object_get(rep, "sweep");
	results = json_object_get(rep, "results");
	if (!json_is_array(results))
		return BAD("results: missing or not an array");
	/* never NULL, even for an empty report */
	d->tg = calloc(1, sizeof(*d->tg));
	d->wl = calloc(1, sizeof(*d->wl));
	if (!d->tg || !d->wl) {
		ret = -ENOMEM;
		goto fail;
	}
	if ((ret = names_from(rep, "targets", &d->tg, &d->ntg, err, errlen)) ||
	    (ret = names_from(rep, "workloads", &d->wl, &d->nwl, err, errlen)))
		goto fail;
	d->r = calloc(json_array_size(results) + 1, sizeof(*d->r));
	if (!d->r) {
		ret = -ENOMEM;
		goto fail;
	}
	json_array_foreach(results, i, r)
	{
		struct res *x = &d->r[d->nr];
		if ((ret = res_parse(r, i, x, err, errlen)))
			goto fail;
		long ti = name_index(&d->tg, &d->ntg, x->target);
		long wi = name_index(&d->wl, &d->nwl, x->workload);
		if (ti < 0 || wi < 0) {
			ret = -ENOMEM;
			goto fail;
		}
		x->ti = (size_t)ti;
		x->wi = (size_t)wi;
		for (size_t k = 0; k < d->nr; k++) {
			if (d->r[k].ti == x->ti && d->r[k].wi == x->wi) {
				ret = BAD("results[%zu]: a second result for target '%s' "
					  "workload '%s'",
					  i, x->target, x->workload);
				goto fail;
			}
		}
		d->nr++;
	}
	if ((ret = lc_from(rep, d, err, errlen)))
		goto fail;
	return 0;
fail:
	svg_doc_release(d);
	return ret;
}

const struct res *svg_find(const struct doc *d, size_t ti, size_t wi)
{
	for (size_t i = 0; i < d->nr; i++)
		if (d->r[i].ti == ti && d->r[i].wi == wi)
			return &d->r[i];
	return NULL;
}

/* The metric's summary; false when the result or the metric is absent. */
bool svg_metric(const struct res *r, const char *name, struct val *v)
{
	const json_t *m = r ? json_object_get(r->metrics, name) : NULL;
	if (!m)
		return false;
	const json_t *n = json_object_get(m, "n");
	v->mean = json_number_value(json_object_get(m, "mean"));
	v->sd = json_number_value(json_object_get(m, "stddev"));
	v->n = n ? json_integer_value(n) : 1;
	if (!json_object_get(m, "stddev"))
		v->n = 1; /* no deviation to show */
	if (v->n < 2)
		v->sd = 0;
	return true;
}

bool svg_has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}
