/* SPDX-License-Identifier: MIT */
#include "sweep.h"

#include "format.h"
#include "core/jsonobj.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- building */

/* metrics[name].samples (borrowed), NULL when absent or not a list of numbers. */
static const json_t *samples(const json_t *metrics, const char *name)
{
	const json_t *s = json_object_get(json_object_get(metrics, name), "samples");
	size_t i;
	const json_t *v;
	if (!json_is_array(s) || !json_array_size(s))
		return NULL;
	json_array_foreach(s, i, v)
	{
		if (!json_is_number(v))
			return NULL;
	}
	return s;
}

/*
 * Mean and sample standard deviation over the iterations of read + write
 * (kind "iops" or "bw"); false when neither direction has samples or
 * their counts differ.
 */
static bool sum_stats(const json_t *metrics, const char *kind, double *mean, double *sd, size_t *n)
{
	char rk[16], wk[16];
	snprintf(rk, sizeof(rk), "read-%s", kind);
	snprintf(wk, sizeof(wk), "write-%s", kind);
	const json_t *r = samples(metrics, rk), *w = samples(metrics, wk);
	if (!r && !w)
		return false;
	if (r && w && json_array_size(r) != json_array_size(w))
		return false;
	size_t k = json_array_size(r ? r : w);
	double sum = 0, sq = 0;
	for (size_t i = 0; i < k; i++) {
		double x = (r ? json_number_value(json_array_get(r, i)) : 0) +
			   (w ? json_number_value(json_array_get(w, i)) : 0);
		sum += x;
	}
	*mean = sum / (double)k;
	for (size_t i = 0; i < k; i++) {
		double x = (r ? json_number_value(json_array_get(r, i)) : 0) +
			   (w ? json_number_value(json_array_get(w, i)) : 0);
		sq += (x - *mean) * (x - *mean);
	}
	*sd = k > 1 ? sqrt(sq / (double)(k - 1)) : 0;
	*n = k;
	return true;
}

/* The merged percentile p ("p50") of the direction with the most I/Os; json null if none. */
static json_t *merged_pct(const json_t *merged, const char *p)
{
	const json_t *r = json_object_get(merged, "read"), *w = json_object_get(merged, "write");
	const json_t *rn = json_object_get(r, "n"), *wn = json_object_get(w, "n");
	double nr = json_is_number(rn) ? json_number_value(rn) : -1;
	double nw = json_is_number(wn) ? json_number_value(wn) : -1;
	const json_t *v = json_object_get(nr >= nw ? r : w, p);
	return json_is_number(v) ? json_real(json_number_value(v)) : json_null();
}

/* The point of one result of step k (new reference), NULL when it has no IOPS or on ENOMEM. */
static json_t *point(const json_t *res, size_t k, unsigned value)
{
	const json_t *m = json_object_get(res, "metrics");
	const json_t *t = json_object_get(res, "target"), *w = json_object_get(res, "workload");
	double im, isd, bm = 0, bsd = 0;
	size_t n, bn;
	if (!json_is_string(t) || !json_is_string(w) || !sum_stats(m, "iops", &im, &isd, &n))
		return NULL;
	if (!sum_stats(m, "bw", &bm, &bsd, &bn))
		bm = bsd = 0;
	const json_t *merged = json_object_get(res, "merged");
	return json_pack("{s:O,s:O,s:I,s:I,s:I,s:{s:f,s:f},s:{s:f,s:f},s:o,s:o}", "target", t,
			 "workload", w, "step", (json_int_t)k + 1, "value", (json_int_t)value,
			 "iterations", (json_int_t)n, "iops", "mean", im, "stddev", isd, "bw",
			 "mean", bm, "stddev", bsd, "lat-p50", merged_pct(merged, "p50"), "lat-p99",
			 merged_pct(merged, "p99"));
}

json_t *sb_sweep_section(const char *parameter, const unsigned *values,
			 const json_t *const *reports, size_t n)
{
	json_t *vals = json_array(), *curve = json_array();
	bool ok = vals && curve;
	for (size_t k = 0; ok && k < n; k++)
		ok = json_array_append_new(vals, json_integer(values[k])) == 0;
	/* the rows: (target, workload) in order of first appearance, then the steps */
	json_t *order = json_array(), *seen = json_object();
	ok = ok && order && seen;
	for (size_t k = 0; ok && k < n; k++) {
		size_t i;
		const json_t *res;
		json_array_foreach(json_object_get(reports[k], "results"), i, res)
		{
			const json_t *t = json_object_get(res, "target");
			const json_t *w = json_object_get(res, "workload");
			char key[512];
			if (!json_is_string(t) || !json_is_string(w))
				continue;
			snprintf(key, sizeof(key), "%s\n%s", json_string_value(t),
				 json_string_value(w));
			if (json_object_get(seen, key))
				continue;
			ok = json_object_set_new(seen, key, json_true()) == 0 &&
			     json_array_append(order, (json_t *)res) == 0;
			if (!ok)
				break;
		}
	}
	size_t o;
	const json_t *first;
	json_array_foreach(order, o, first)
	{
		const char *t = json_string_value(json_object_get(first, "target"));
		const char *w = json_string_value(json_object_get(first, "workload"));
		for (size_t k = 0; ok && k < n; k++) {
			size_t i;
			const json_t *res;
			json_array_foreach(json_object_get(reports[k], "results"), i, res)
			{
				const char *rt = json_string_value(json_object_get(res, "target"));
				const char *rw =
					json_string_value(json_object_get(res, "workload"));
				if (!rt || !rw || strcmp(rt, t) || strcmp(rw, w))
					continue;
				json_t *p = point(res, k, values[k]);
				if (p && json_array_append_new(curve, p))
					ok = false;
				break;
			}
		}
	}
	json_decref(order);
	json_decref(seen);
	json_t *out = ok ? json_pack("{s:s,s:O,s:O}", "parameter", parameter, "values", vals,
				     "curve", curve)
			 : NULL;
	json_decref(vals);
	json_decref(curve);
	return out;
}

/* ---------------------------------------------------------------- rendering */

/* A point's fields, checked; false when one has the wrong type. */
struct pt {
	const char *target, *workload;
	double value, iterations, iops, iops_sd, bw, bw_sd, p50, p99; /* p50, p99 < 0: none */
};

static bool read_point(const json_t *v, struct pt *p)
{
	bool ok = true;
	p->target = jstr(v, "target");
	p->workload = jstr(v, "workload");
	p->value = jnum(v, "value", &ok);
	p->iterations = jnum(v, "iterations", &ok);
	p->iops = jnum(json_object_get(v, "iops"), "mean", &ok);
	p->iops_sd = jnum(json_object_get(v, "iops"), "stddev", &ok);
	p->bw = jnum(json_object_get(v, "bw"), "mean", &ok);
	p->bw_sd = jnum(json_object_get(v, "bw"), "stddev", &ok);
	bool l50 = true, l99 = true;
	p->p50 = jnum(v, "lat-p50", &l50);
	p->p99 = jnum(v, "lat-p99", &l99);
	if (!l50)
		p->p50 = -1;
	if (!l99)
		p->p99 = -1;
	return ok && p->target && p->workload;
}

static void lat(double ns, char *buf, size_t len)
{
	if (ns < 0)
		snprintf(buf, len, "-");
	else
		sb_report_fmt_short(ns, "ns", buf, len);
}

void sb_report_sweep_text(FILE *f, const json_t *report, bool md)
{
	const json_t *sw = json_object_get(report, "sweep");
	const char *param = jstr(sw, "parameter");
	const json_t *v;
	size_t i;
	if (!json_is_object(sw) || !param)
		return;
	fprintf(f, "\n%sSaturation sweep over %s:", md ? "## " : "", param);
	json_array_foreach(json_object_get(sw, "values"), i, v)
	{
		if (json_is_integer(v))
			fprintf(f, "%s %lld", i ? "," : "", (long long)json_integer_value(v));
	}
	fprintf(f, "\n\n%s", md ? "| class | workload | " : "");
	if (md)
		fprintf(f,
			"%s | iterations | IOPS | stddev | bandwidth | stddev | lat p50 | lat p99 "
			"|\n"
			"|---|---|---|---|---|---|---|---|---|---|\n",
			param);
	const char *last_t = NULL, *last_w = NULL;
	json_array_foreach(json_object_get(sw, "curve"), i, v)
	{
		struct pt p;
		char a[32], b[32], c[32], d[32], e[32], g[32];
		if (!read_point(v, &p))
			continue;
		sb_report_fmt_short(p.iops, "IOPS", a, sizeof(a));
		sb_report_fmt_short(p.iops_sd, "IOPS", b, sizeof(b));
		sb_report_fmt_short(p.bw, "B/s", c, sizeof(c));
		sb_report_fmt_short(p.bw_sd, "B/s", d, sizeof(d));
		lat(p.p50, e, sizeof(e));
		lat(p.p99, g, sizeof(g));
		if (md) {
			fputs("| ", f);
			sb_report_md_cell(f, p.target);
			fputs(" | ", f);
			sb_report_md_cell(f, p.workload);
			fprintf(f, " | %.0f | %.0f | %s | %s | %s | %s | %s | %s |\n", p.value,
				p.iterations, a, b, c, d, e, g);
			continue;
		}
		if (!last_t || strcmp(last_t, p.target) || strcmp(last_w, p.workload)) {
			fprintf(f, "%s%s %s:\n  %-6s %10s %10s %12s %12s %9s %9s\n",
				last_t ? "\n" : "", p.target, p.workload, param, "IOPS", "stddev",
				"bandwidth", "stddev", "lat p50", "lat p99");
			last_t = p.target;
			last_w = p.workload;
		}
		fprintf(f, "  %-6.0f %10s %10s %12s %12s %9s %9s\n", p.value, a, b, c, d, e, g);
	}
}

int sb_report_sweep_csv(FILE *f, const json_t *report)
{
	const json_t *sw = json_object_get(report, "sweep");
	const char *param = jstr(sw, "parameter");
	const json_t *v;
	size_t i;
	if (!json_is_object(sw) || !param)
		return -ENOENT;
	fputs("target,workload,parameter,value,iterations,iops_mean,iops_stddev,bw_mean,"
	      "bw_stddev,lat_p50_ns,lat_p99_ns\n",
	      f);
	json_array_foreach(json_object_get(sw, "curve"), i, v)
	{
		struct pt p;
		if (!read_point(v, &p))
			continue;
		sb_report_csv_field(f, p.target);
		fputc(',', f);
		sb_report_csv_field(f, p.workload);
		fputc(',', f);
		sb_report_csv_field(f, param);
		fprintf(f, ",%.0f,%.0f,%.3f,%.3f,%.0f,%.0f,", p.value, p.iterations, p.iops,
			p.iops_sd, p.bw, p.bw_sd);
		if (p.p50 >= 0)
			fprintf(f, "%.0f", p.p50);
		fputc(',', f);
		if (p.p99 >= 0)
			fprintf(f, "%.0f", p.p99);
		fputc('\n', f);
	}
	return 0;
}
