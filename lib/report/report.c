/* SPDX-License-Identifier: MIT */
#include "report.h"
#include "sections.h"
#include "dist.h"
#include "sweep.h"
#include "object.h"
#include "format.h"

#include "report/svg/svg.h"
#include "core/units.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rview {
	const char *target, *workload;
	const json_t *metrics, *headline, *r;
	json_int_t iterations;
};

static int get_view(const json_t *r, size_t i, struct rview *v, char *err, size_t errlen)
{
	v->r = r;
	v->target = json_string_value(json_object_get(r, "target"));
	v->workload = json_string_value(json_object_get(r, "workload"));
	v->metrics = json_object_get(r, "metrics");
	v->headline = json_object_get(r, "headline");
	v->iterations = json_integer_value(json_object_get(r, "iterations"));
	if (!v->target || !v->workload || !json_is_object(v->metrics) ||
	    !json_is_array(v->headline)) {
		snprintf(err, errlen, "results[%zu]: target, workload, metrics or headline missing",
			 i);
		return -EINVAL;
	}
	return 0;
}

static bool metric_get(const json_t *metrics, const char *name, double *mean, double *sd,
		       json_int_t *n, const char **unit)
{
	const json_t *m = json_object_get(metrics, name);
	if (!json_is_object(m))
		return false;
	*mean = json_number_value(json_object_get(m, "mean"));
	*sd = json_number_value(json_object_get(m, "stddev"));
	*n = json_integer_value(json_object_get(m, "n"));
	*unit = json_string_value(json_object_get(m, "unit"));
	if (!*unit)
		*unit = "";
	return true;
}

/* "fast: 22748 read IOPS on average with a standard deviation of 1558 IOPS over 10 iterations" */
static void sentence(FILE *f, const struct rview *v, const char *metric, bool md)
{
	double mean, sd;
	json_int_t n;
	const char *unit;
	char a[48], b[48], words[64];

	if (!metric_get(v->metrics, metric, &mean, &sd, &n, &unit))
		return;
	sb_report_metric_words(metric, words, sizeof(words));
	sb_report_fmt_value(mean, unit, a, sizeof(a));
	sb_report_fmt_value(sd, unit, b, sizeof(b));
	if (!strcmp(unit, "IOPS")) {
		/* "22748 read IOPS": the unit is in the words */
		char *sp = strchr(a, ' ');
		if (sp)
			*sp = '\0';
	}
	fprintf(f,
		"%s%s: %s: %s %s on average with a standard deviation of %s over %lld iteration%s",
		md ? "- " : "", v->target, v->workload, a, words, b, (long long)n,
		n == 1 ? "" : "s");
	const json_t *p = json_object_get(json_object_get(v->r, "merged"),
					  strncmp(metric, "read", 4) ? "write" : "read");
	if (json_is_object(p) && strstr(metric, "-lat-") == NULL) {
		char c[32];
		fprintf(f, "; p99 latency %s",
			sb_fmt_ns((double)json_integer_value(json_object_get(p, "p99")), c,
				  sizeof(c)));
	}
	fprintf(f, ".\n");
}

/* "fast: fill: steady state reached in 2 of 3 iterations, after 41 s on average (sd 3.2 s)." */
static void steady_sentence(FILE *f, const struct rview *v, bool md)
{
	double mean, sd, after, after_sd;
	json_int_t n, reached;
	const char *unit;
	if (!metric_get(v->metrics, "steady", &mean, &sd, &n, &unit))
		return;
	if (!metric_get(v->metrics, "steady-after", &after, &after_sd, &reached, &unit))
		reached = 0;
	fprintf(f, "%s%s: %s: steady state reached in %lld of %lld iteration%s", md ? "- " : "",
		v->target, v->workload, (long long)reached, (long long)n, n == 1 ? "" : "s");
	if (reached)
		fprintf(f, ", after %.3g s", after);
	if (reached > 1)
		fprintf(f, " on average (standard deviation %.2g s)", after_sd);
	if (reached < n)
		fprintf(f, "; %s ran for the workload's maxRuntime",
			reached == 0	   ? (n == 1 ? "it" : "every one")
			: reached + 1 == n ? "the other"
					   : "the others");
	fprintf(f, ".\n");
}

static const char *headline0(const struct rview *v, size_t k)
{
	return json_string_value(json_array_get(v->headline, k));
}

/*
 * The table cell of target x workload x metric, "22.7k ± 1.56k", or "-"
 * when the report has no such figure.
 */
static void cell_text(const json_t *results, const char *target, const char *wl, const char *metric,
		      char *cell, size_t len)
{
	size_t i;
	const json_t *r;
	snprintf(cell, len, "-");
	json_array_foreach(results, i, r)
	{
		double mean, sd;
		json_int_t n;
		const char *unit;
		char a[48], b[48];
		if (strcmp(json_string_value(json_object_get(r, "target")), target) ||
		    strcmp(json_string_value(json_object_get(r, "workload")), wl) ||
		    !metric_get(json_object_get(r, "metrics"), metric, &mean, &sd, &n, &unit))
			continue;
		snprintf(cell, len, "%s ± %s", sb_report_fmt_short(mean, unit, a, sizeof(a)),
			 sb_report_fmt_short(sd, unit, b, sizeof(b)));
		return;
	}
}

/*
 * True when the target named has results and every one is an object
 * operation: it is in the object table (report/object.h), not in this one.
 */
static bool object_only(const json_t *results, const char *name)
{
	size_t i, n = 0;
	const json_t *r;
	json_array_foreach(results, i, r)
	{
		if (strcmp(json_string_value(json_object_get(r, "target")), name))
			continue;
		if (!sb_report_is_object(r))
			return false;
		n++;
	}
	return n > 0;
}

/* Column header for a workload: "iops-read (IOPS)". */
static void table(FILE *f, const json_t *report, const json_t *results, bool md)
{
	const json_t *targets = json_object_get(report, "targets");
	const json_t *wls = json_object_get(report, "workloads");
	size_t nt = json_array_size(targets), nw = json_array_size(wls);
	size_t width0 = 6;
	char cell[128];

	for (size_t t = 0; t < nt; t++) {
		size_t l = strlen(json_string_value(json_array_get(targets, t)));
		if (l > width0 &&
		    !object_only(results, json_string_value(json_array_get(targets, t))))
			width0 = l;
	}
	/* collect column titles and cells: a workload may have two headlines (mixed) */
	struct col {
		const char *wl;
		const char *metric;
		char title[160];
		size_t width;
	} cols[256];
	size_t nc = 0;
	for (size_t w = 0; w < nw && nc < 256; w++) {
		const char *wl = json_string_value(json_array_get(wls, w));
		/* headline metrics from the first result of this workload */
		size_t i;
		const json_t *r;
		json_array_foreach(results, i, r)
		{
			if (strcmp(json_string_value(json_object_get(r, "workload")), wl) ||
			    sb_report_is_object(r))
				continue;
			const json_t *h = json_object_get(r, "headline");
			size_t nh = json_array_size(h);
			for (size_t k = 0; k < nh && nc < 256; k++) {
				char words[64];
				const char *m = json_string_value(json_array_get(h, k));
				cols[nc].wl = wl;
				cols[nc].metric = m;
				/* "read IOPS" -> "IOPS" when the workload has one direction */
				sb_report_metric_words(m, words, sizeof(words));
				const char *shown = words;
				if (nh == 1) {
					if (!strncmp(words, "mean ", 5))
						shown = "mean latency";
					else if (strchr(words, ' '))
						shown = strchr(words, ' ') + 1;
				}
				snprintf(cols[nc].title, sizeof(cols[nc].title), "%s (%s)", wl,
					 shown);
				cols[nc].width = strlen(cols[nc].title);
				nc++;
			}
			break;
		}
	}
	/* widths from the cells */
	for (size_t c = 0; c < nc; c++) {
		for (size_t t = 0; t < nt; t++) {
			if (object_only(results, json_string_value(json_array_get(targets, t))))
				continue;
			cell_text(results, json_string_value(json_array_get(targets, t)),
				  cols[c].wl, cols[c].metric, cell, sizeof(cell));
			size_t l = strlen(cell) - (strstr(cell, "±") ? 1 : 0); /* ± is 2 bytes */
			if (l > cols[c].width)
				cols[c].width = l;
		}
	}
	/* header */
	fprintf(f, "%s%-*s", md ? "| " : "", (int)width0, "target");
	for (size_t c = 0; c < nc; c++) {
		fprintf(f, " | %-*s", (int)cols[c].width, cols[c].title);
	}
	fprintf(f, "%s\n", md ? " |" : "");
	fprintf(f, "%s", md ? "|" : "");
	for (size_t k = 0; k < width0 + (md ? 2 : 0); k++)
		fputc('-', f);
	for (size_t c = 0; c < nc; c++) {
		fprintf(f, md ? "|" : "-+-");
		for (size_t k = 0; k < cols[c].width + (md ? 2 : 0); k++)
			fputc('-', f);
	}
	fprintf(f, "%s\n", md ? "|" : "");
	for (size_t t = 0; t < nt; t++) {
		const char *tg = json_string_value(json_array_get(targets, t));
		if (object_only(results, tg))
			continue;
		fprintf(f, "%s%-*s", md ? "| " : "", (int)width0, tg);
		for (size_t c = 0; c < nc; c++) {
			cell_text(results, tg, cols[c].wl, cols[c].metric, cell, sizeof(cell));
			int pad = (int)cols[c].width + (strstr(cell, "±") ? 1 : 0);
			fprintf(f, " | %-*s", pad, cell);
		}
		fprintf(f, "%s\n", md ? " |" : "");
	}
}

/*
 * The run's provenance, when the report has one (the controller adds it:
 * controller/run/policy.h): what the runner ran as, under which runner
 * policy. Every value is type-checked: a report may have been edited.
 */
static void provenance(FILE *f, const json_t *report, bool md)
{
	const json_t *pv = json_object_get(report, "provenance");
	const json_t *r = json_object_get(pv, "runner"), *p = json_object_get(pv, "policy");
	if (!json_is_object(r) || !json_is_object(p))
		return;
#define S(o, k) \
	(json_string_value(json_object_get(o, k)) ? json_string_value(json_object_get(o, k)) : "?")
	const json_t *uid = json_object_get(json_object_get(r, "securityContext"), "runAsUser");
	const char *because = json_string_value(json_object_get(r, "podSecurityBecause"));
	char user[32] = "the image's user";
	if (json_is_integer(uid))
		snprintf(user, sizeof(user), "uid %lld", (long long)json_integer_value(uid));
	fprintf(f, "\n%s", md ? "## Provenance\n\n" : "=== provenance\n");
	fprintf(f, "%srunner: image %s, ServiceAccount %s, %s%s, pod security %s%s%s%s\n",
		md ? "- " : "", S(r, "image"), S(r, "serviceAccount"), user,
		json_is_true(json_object_get(r, "hostNetwork")) ? ", host network" : "",
		S(r, "podSecurity"), because ? " (" : "", because ? because : "",
		because ? ")" : "");
	fprintf(f,
		"%srunner policy: pod security %s, hostNetwork %s, %zu more image repositories, "
		"%zu more ServiceAccounts\n",
		md ? "- " : "", S(p, "podSecurity"),
		json_is_true(json_object_get(p, "allowHostNetwork")) ? "allowed" : "refused",
		json_array_size(json_object_get(p, "allowedImages")),
		json_array_size(json_object_get(p, "allowedServiceAccounts")));
#undef S
}

/*
 * A report document may have been written or edited by someone else (a
 * report ConfigMap): every value the renderers read is type-checked here,
 * once, so they can dereference without checks. The message names the path,
 * e.g. "results[0].headline[0]: not a string".
 */
static int want_strings(const json_t *a, const char *path, bool required, char *err, size_t errlen)
{
	size_t k;
	const json_t *e;
	if (!a) {
		if (!required)
			return 0;
		snprintf(err, errlen, "%s: missing", path);
		return -EINVAL;
	}
	if (!json_is_array(a)) {
		snprintf(err, errlen, "%s: not an array", path);
		return -EINVAL;
	}
	json_array_foreach(a, k, e)
	{
		if (!json_is_string(e)) {
			snprintf(err, errlen, "%s[%zu]: not a string", path, k);
			return -EINVAL;
		}
	}
	return 0;
}

static int want_type(const json_t *o, const char *key, const char *path, int kind, char *err,
		     size_t errlen)
{
	static const char *const what[] = {"a string", "a number", "an integer", "an object"};
	const json_t *v = json_object_get(o, key);
	bool ok;
	if (!v)
		return 0;
	switch (kind) {
	case 0:
		ok = json_is_string(v);
		break;
	case 1:
		ok = json_is_number(v);
		break;
	case 2:
		ok = json_is_integer(v);
		break;
	default:
		ok = json_is_object(v);
		break;
	}
	if (ok)
		return 0;
	snprintf(err, errlen, "%s.%s: not %s", path, key, what[kind]);
	return -EINVAL;
}

enum { T_STR, T_NUM, T_INT, T_OBJ };

int sb_report_validate(const json_t *report, char *err, size_t errlen)
{
	const json_t *results, *r;
	size_t i;
	char path[96];

	if (!json_is_object(report)) {
		snprintf(err, errlen, "report: not an object");
		return -EINVAL;
	}
	results = json_object_get(report, "results");
	if (!json_is_array(results)) {
		snprintf(err, errlen, "results: missing or not an array");
		return -EINVAL;
	}
	if (want_type(report, "name", "report", T_STR, err, errlen) ||
	    want_strings(json_object_get(report, "targets"), "targets", false, err, errlen) ||
	    want_strings(json_object_get(report, "workloads"), "workloads", false, err, errlen))
		return -EINVAL;
	json_array_foreach(results, i, r)
	{
		const char *key;
		const json_t *m;
		snprintf(path, sizeof(path), "results[%zu]", i);
		if (!json_is_object(r)) {
			snprintf(err, errlen, "%s: not an object", path);
			return -EINVAL;
		}
		static const char *const strs[] = {"target", "workload"};
		for (size_t k = 0; k < 2; k++)
			if (!json_is_string(json_object_get(r, strs[k]))) {
				snprintf(err, errlen, "%s.%s: %s", path, strs[k],
					 json_object_get(r, strs[k]) ? "not a string" : "missing");
				return -EINVAL;
			}
		if (!json_is_object(json_object_get(r, "metrics"))) {
			snprintf(err, errlen, "%s.metrics: missing or not an object", path);
			return -EINVAL;
		}
		char hp[128];
		snprintf(hp, sizeof(hp), "%s.headline", path);
		if (want_strings(json_object_get(r, "headline"), hp, true, err, errlen) ||
		    want_type(r, "iterations", path, T_INT, err, errlen) ||
		    want_type(r, "engine", path, T_STR, err, errlen) ||
		    want_type(r, "seconds", path, T_OBJ, err, errlen) ||
		    want_type(r, "merged", path, T_OBJ, err, errlen))
			return -EINVAL;
		json_object_foreach((json_t *)json_object_get(r, "metrics"), key, m)
		{
			static const char *const nums[] = {"mean", "stddev", "min",
							   "max",  "median", "cv"};
			char mp[224];
			snprintf(mp, sizeof(mp), "%s.metrics.%.64s", path, key);
			if (!json_is_object(m)) {
				snprintf(err, errlen, "%s: not an object", mp);
				return -EINVAL;
			}
			if (!json_is_string(json_object_get(m, "unit"))) {
				snprintf(err, errlen, "%s.unit: %s", mp,
					 json_object_get(m, "unit") ? "not a string" : "missing");
				return -EINVAL;
			}
			if (want_type(m, "n", mp, T_INT, err, errlen))
				return -EINVAL;
			for (size_t k = 0; k < sizeof(nums) / sizeof(nums[0]); k++)
				if (want_type(m, nums[k], mp, T_NUM, err, errlen))
					return -EINVAL;
		}
		if (sb_report_object_validate(r, path, err, errlen))
			return -EINVAL;
		json_object_foreach((json_t *)json_object_get(r, "seconds"), key, m)
		{
			if (!json_is_object(m)) {
				snprintf(err, errlen, "%s.seconds.%.64s: not an object", path, key);
				return -EINVAL;
			}
		}
		const json_t *mg = json_object_get(r, "merged");
		json_object_foreach((json_t *)mg, key, m)
		{
			if (!json_is_object(m)) {
				snprintf(err, errlen, "%s.merged.%.64s: not an object", path, key);
				return -EINVAL;
			}
		}
	}
	return 0;
}

static int render_text(FILE *f, const json_t *report, bool md, char *err, size_t errlen)
{
	const json_t *results = json_object_get(report, "results");
	const char *name = json_string_value(json_object_get(report, "name"));
	size_t i;
	const json_t *r;
	json_int_t iters = 0;

	if (!json_is_array(results)) {
		snprintf(err, errlen, "results: missing or not an array");
		return -EINVAL;
	}
	json_array_foreach(results, i, r)
	{
		json_int_t n = json_integer_value(json_object_get(r, "iterations"));
		if (n > iters)
			iters = n;
	}
	fprintf(f, "%sstoragebench report%s%s: %zu results, up to %lld iteration%s each\n\n",
		md ? "# " : "", name && *name ? " " : "", name ? name : "",
		json_array_size(results), (long long)iters, iters == 1 ? "" : "s");
	sb_report_warnings_note(f, report, md);
	json_array_foreach(results, i, r)
	{
		struct rview v;
		if (get_view(r, i, &v, err, errlen))
			return -EINVAL;
		if (sb_report_is_object(r)) {
			/* object storage: its own words and units */
			sb_report_object_sentence(f, r, md);
			continue;
		}
		for (size_t k = 0; k < json_array_size(v.headline); k++)
			sentence(f, &v, headline0(&v, k), md);
		steady_sentence(f, &v, md);
		const json_t *secs = json_object_get(r, "seconds");
		const char *key;
		const json_t *s;
		bool bw = false;
		for (size_t k = 0; k < json_array_size(v.headline); k++)
			bw = bw || strstr(headline0(&v, k), "-bw") != NULL;
		json_object_foreach((json_t *)secs, key, s)
		{
			char a[32], b[32], c[32];
			if (bw) {
				sb_fmt_rate(json_number_value(json_object_get(s, "bw_fastest")), a,
					    sizeof(a));
				sb_fmt_rate(json_number_value(json_object_get(s, "bw_median")), b,
					    sizeof(b));
				sb_fmt_rate(json_number_value(json_object_get(s, "bw_slowest")), c,
					    sizeof(c));
			} else {
				sb_report_fmt_short(
					json_number_value(json_object_get(s, "fastest")), "IOPS", a,
					sizeof(a));
				sb_report_fmt_short(json_number_value(json_object_get(s, "median")),
						    "IOPS", b, sizeof(b));
				sb_report_fmt_short(
					json_number_value(json_object_get(s, "slowest")), "IOPS", c,
					sizeof(c));
			}
			fprintf(f,
				"%s  %s per second over %lld seconds: fastest %s%s, median %s%s, "
				"slowest %s%s\n",
				md ? "  " : "", key,
				(long long)json_integer_value(json_object_get(s, "n")), a,
				bw ? "" : " IOPS", b, bw ? "" : " IOPS", c, bw ? "" : " IOPS");
		}
		const char *eng = json_string_value(json_object_get(r, "engine"));
		if (eng && *eng && strcmp(eng, "io_uring"))
			fprintf(f, "%s  engine: %s\n", md ? "  " : "", eng);
	}
	/* the block and file table, unless every result is an object operation */
	bool only_objects = json_array_size(results) > 0;
	json_array_foreach(results, i, r)
	{
		if (!sb_report_is_object(r))
			only_objects = false;
	}
	if (!only_objects) {
		fprintf(f, "\n");
		table(f, report, results, md);
	}
	sb_report_object_table(f, report, md);
	sb_report_sections_text(f, report, md);
	provenance(f, report, md);
	return 0;
}

static int render_csv(FILE *f, const json_t *report, char *err, size_t errlen)
{
	const json_t *results = json_object_get(report, "results");
	size_t i;
	const json_t *r;
	if (!json_is_array(results)) {
		snprintf(err, errlen, "results: missing or not an array");
		return -EINVAL;
	}
	fprintf(f, "target,workload,metric,unit,n,mean,stddev,min,max,median,cv\n");
	json_array_foreach(results, i, r)
	{
		struct rview v;
		const char *key;
		const json_t *m;
		if (get_view(r, i, &v, err, errlen))
			return -EINVAL;
		json_object_foreach((json_t *)v.metrics, key, m)
		{
			/* names are DNS-like: no commas or quotes to escape */
			fprintf(f, "%s,%s,%s,%s,%lld,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", v.target,
				v.workload, key, json_string_value(json_object_get(m, "unit")),
				(long long)json_integer_value(json_object_get(m, "n")),
				json_number_value(json_object_get(m, "mean")),
				json_number_value(json_object_get(m, "stddev")),
				json_number_value(json_object_get(m, "min")),
				json_number_value(json_object_get(m, "max")),
				json_number_value(json_object_get(m, "median")),
				json_number_value(json_object_get(m, "cv")));
		}
	}
	sb_report_sections_csv(f, report);
	return 0;
}

char *sb_report_render(const json_t *report, const char *format, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	int ret;

	if (!json_is_object(report)) {
		snprintf(err, errlen, "report: not an object");
		return NULL;
	}
	if (!strcmp(format, "json")) {
		buf = json_dumps(report, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		if (!buf)
			snprintf(err, errlen, "out of memory");
		return buf;
	}
	if (!strcmp(format, "svg"))
		return sb_report_svg_render(report, err, errlen);
	if (!strcmp(format, "txt") || !strcmp(format, "md") || !strcmp(format, "csv")) {
		if (sb_report_validate(report, err, errlen))
			return NULL;
	}
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (!strcmp(format, "txt") || !strcmp(format, "md")) {
		ret = render_text(f, report, format[0] == 'm', err, errlen);
		if (!ret)
			sb_report_dist_text(f, report, format[0] == 'm');
		if (!ret)
			sb_report_sweep_text(f, report, format[0] == 'm');
	} else if (!strcmp(format, "csv"))
		ret = render_csv(f, report, err, errlen);
	else if (!strcmp(format, "pods.csv")) {
		ret = sb_report_dist_csv(f, report);
		if (ret)
			snprintf(err, errlen, "the report has no distributed section");
	} else if (!strcmp(format, "sweep.csv")) {
		ret = sb_report_sweep_csv(f, report);
		if (ret)
			snprintf(err, errlen, "the report has no sweep section");
	} else {
		snprintf(err, errlen, "format '%s' is not one of txt, md, csv, json, svg", format);
		ret = -EINVAL;
	}
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
