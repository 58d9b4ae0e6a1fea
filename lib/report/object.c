/* SPDX-License-Identifier: MIT */
#include "object.h"

#include "stats/aggregate.h"
#include "core/labels.h"
#include "format.h"
#include "result/resultdoc.h"
#include "core/units.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool sb_report_is_object(const json_t *r)
{
	const char *rw = json_string_value(json_object_get(r, "rw"));
	return rw && !strncmp(rw, SB_RW_OBJECT_PREFIX, strlen(SB_RW_OBJECT_PREFIX));
}

int sb_report_object_validate(const json_t *r, const char *path, char *err, size_t errlen)
{
	const json_t *bs = json_object_get(r, "bs"), *qd = json_object_get(r, "iodepth");
	const json_t *by = json_object_get(r, SB_RK_S3_ERRORS_BY_STATUS), *v;
	const char *key;
	if (!sb_report_is_object(r))
		return 0;
	if (bs && !json_is_string(bs)) {
		snprintf(err, errlen, "%s.bs: not a string", path);
		return -EINVAL;
	}
	if (qd && !json_is_integer(qd)) {
		snprintf(err, errlen, "%s.iodepth: not an integer", path);
		return -EINVAL;
	}
	if (by && !json_is_object(by)) {
		snprintf(err, errlen, "%s.errors_by_status: not an object", path);
		return -EINVAL;
	}
	json_object_foreach((json_t *)by, key, v)
	{
		if (!json_is_integer(v) || json_integer_value(v) < 0) {
			snprintf(err, errlen, "%s.errors_by_status.%.32s: not a count", path, key);
			return -EINVAL;
		}
	}
	return 0;
}

/* ---- the figures of one object row ---- */

struct orow {
	const char *target, *workload;
	char op[16];	 /* "GET" */
	char size[64];	 /* "1 MiB" */
	char conc[16];	 /* "16", or "-" */
	const char *dir; /* "read" or "write": where the figures are */
	bool have_ops;	 /* ops/s mean and sd */
	double ops, ops_sd;
	double bw;	  /* bytes/s, 0: none moved */
	double p50, p99;  /* request time, ns; < 0: unknown */
	double ttfb;	  /* ns; < 0: unknown */
	long long errors; /* failed requests over every iteration; < 0: unknown */
	long long n;	  /* iterations */
};

static bool mean_of(const json_t *metrics, const char *name, double *mean, double *sd,
		    json_int_t *n)
{
	const json_t *m = json_object_get(metrics, name);
	if (!json_is_object(m))
		return false;
	*mean = json_number_value(json_object_get(m, "mean"));
	if (sd)
		*sd = json_number_value(json_object_get(m, "stddev"));
	if (n)
		*n = json_integer_value(json_object_get(m, "n"));
	return true;
}

static void fmt_unit(uint64_t b, char *out, size_t len)
{
	static const struct {
		uint64_t mul;
		const char *unit;
	} u[] = {{1ull << 30, "GiB"}, {1000000000ull, "GB"}, {1ull << 20, "MiB"},
		 {1000000ull, "MB"},  {1ull << 10, "KiB"},   {1000ull, "KB"}};
	for (size_t i = 0; b && i < sizeof(u) / sizeof(u[0]); i++)
		if (b % u[i].mul == 0) {
			snprintf(out, len, "%" PRIu64 " %s", b / u[i].mul, u[i].unit);
			return;
		}
	snprintf(out, len, "%" PRIu64 " B", b);
}

static bool parse_u64(const char *s, const char **end, uint64_t *out)
{
	char *e;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &e, 10);
	if (errno)
		return false;
	*out = (uint64_t)v;
	*end = e;
	return true;
}

void sb_report_object_size(const char *bs, char *buf, size_t len)
{
	uint64_t a, z;
	const char *e;
	char x[32], y[32];
	if (!bs || !*bs) {
		snprintf(buf, len, "-");
		return;
	}
	if (parse_u64(bs, &e, &a) && !*e) {
		fmt_unit(a, buf, len);
		return;
	}
	/* a random size between MIN and MAX (runner/s3/out.c: "MIN-MAX") */
	if (parse_u64(bs, &e, &a) && *e == '-' && parse_u64(e + 1, &e, &z) && !*e) {
		fmt_unit(a, x, sizeof(x));
		fmt_unit(z, y, sizeof(y));
		snprintf(buf, len, "%s-%s", x, y);
		return;
	}
	snprintf(buf, len, "%.40s", bs);
}

static void row_get(const json_t *r, struct orow *o)
{
	const json_t *metrics = json_object_get(r, "metrics");
	const char *rw = json_string_value(json_object_get(r, "rw"));
	double sd;
	json_int_t n = 0;
	char name[32];

	memset(o, 0, sizeof(*o));
	o->target = json_string_value(json_object_get(r, "target"));
	o->workload = json_string_value(json_object_get(r, "workload"));
	snprintf(o->op, sizeof(o->op), "%s", rw + strlen(SB_RW_OBJECT_PREFIX));
	for (char *p = o->op; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	sb_report_object_size(json_string_value(json_object_get(r, "bs")), o->size,
			      sizeof(o->size));
	const json_t *qd = json_object_get(r, "iodepth");
	if (json_is_integer(qd) && json_integer_value(qd) > 0)
		snprintf(o->conc, sizeof(o->conc), "%lld", (long long)json_integer_value(qd));
	else
		snprintf(o->conc, sizeof(o->conc), "-");
	/* the figures are in the direction the data moves: write for PUT, else read */
	o->dir = json_object_get(metrics, "write-iops") && !json_object_get(metrics, "read-iops")
			 ? "write"
			 : "read";
	snprintf(name, sizeof(name), "%s-iops", o->dir);
	o->have_ops = mean_of(metrics, name, &o->ops, &o->ops_sd, &n);
	o->n = (long long)n;
	snprintf(name, sizeof(name), "%s-bw", o->dir);
	if (!mean_of(metrics, name, &o->bw, NULL, NULL))
		o->bw = 0;
	/* request time: the mean of the iterations' percentiles, else the merged histogram's */
	const json_t *mg = json_object_get(json_object_get(r, "merged"), o->dir);
	static const char *const pk[2] = {"p50", "p99"};
	double *pv[2] = {&o->p50, &o->p99};
	for (int k = 0; k < 2; k++) {
		snprintf(name, sizeof(name), "%s-lat-%s", o->dir, pk[k]);
		if (mean_of(metrics, name, pv[k], NULL, NULL))
			continue;
		const json_t *v = json_object_get(mg, pk[k]);
		*pv[k] = json_is_number(v) ? json_number_value(v) : -1;
	}
	if (!mean_of(metrics, SB_METRIC_TTFB_P50, &o->ttfb, NULL, NULL))
		o->ttfb = -1;
	double em;
	json_int_t en;
	o->errors = -1;
	if (mean_of(metrics, SB_METRIC_ERRORS, &em, &sd, &en)) {
		o->errors = llround(em * (double)en);
		if (!o->n)
			o->n = (long long)en;
	}
	if (!o->n)
		o->n = (long long)json_integer_value(json_object_get(r, "iterations"));
}

/* "HTTP 503: 10, no response: 2", statuses in ascending order, no response last */
struct status_count {
	long st; /* 0: no response */
	long long n;
};

static void status_words(const json_t *by, char *buf, size_t len)
{
	struct status_count v[32];
	size_t nv = 0, used = 0;
	const char *key;
	const json_t *x;
	buf[0] = '\0';
	json_object_foreach((json_t *)by, key, x)
	{
		if (nv == sizeof(v) / sizeof(v[0]))
			break;
		v[nv].st = strtol(key, NULL, 10);
		v[nv].n = (long long)json_integer_value(x);
		nv++;
	}
	for (size_t i = 1; i < nv; i++) /* insertion sort: a handful of statuses */
		for (size_t k = i; k > 0; k--) {
			long a = v[k - 1].st ? v[k - 1].st : 1000, b = v[k].st ? v[k].st : 1000;
			if (a <= b)
				break;
			struct status_count t = v[k];
			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	for (size_t i = 0; i < nv && used < len; i++) {
		int w;
		if (v[i].st)
			w = snprintf(buf + used, len - used, "%sHTTP %ld: %lld", i ? ", " : "",
				     v[i].st, v[i].n);
		else
			w = snprintf(buf + used, len - used, "%sno response: %lld", i ? ", " : "",
				     v[i].n);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

void sb_report_object_sentence(FILE *f, const json_t *r, bool md)
{
	struct orow o;
	char a[48], b[48], c[48];
	row_get(r, &o);
	fprintf(f, "%s%s: %s: %s %s x %s: ", md ? "- " : "", o.target, o.workload, o.op, o.size,
		o.conc);
	if (o.have_ops) {
		fprintf(f, "%s on average with a standard deviation of %s",
			sb_report_fmt_value(o.ops, "ops/s", a, sizeof(a)),
			sb_report_fmt_value(o.ops_sd, "ops/s", b, sizeof(b)));
		if (o.bw > 0)
			fprintf(f, ", %s", sb_fmt_rate(o.bw, c, sizeof(c)));
		if (o.p50 >= 0)
			fprintf(f, ", p50 %s", sb_fmt_ns(o.p50, a, sizeof(a)));
		if (o.p99 >= 0)
			fprintf(f, ", p99 %s", sb_fmt_ns(o.p99, a, sizeof(a)));
		if (o.ttfb >= 0)
			fprintf(f, ", TTFB p50 %s", sb_fmt_ns(o.ttfb, a, sizeof(a)));
	} else {
		fprintf(f, "no request succeeded");
	}
	if (o.errors > 0) {
		char st[256];
		status_words(json_object_get(r, SB_RK_S3_ERRORS_BY_STATUS), st, sizeof(st));
		fprintf(f, ", %lld failed request%s%s%s%s", o.errors, o.errors == 1 ? "" : "s",
			st[0] ? " (" : "", st, st[0] ? ")" : "");
	}
	fprintf(f, ", over %lld iteration%s.\n", o.n, o.n == 1 ? "" : "s");

	/* the seconds: objects per second, and bytes when any moved */
	const json_t *s = json_object_get(json_object_get(r, "seconds"), o.dir);
	if (!json_is_object(s))
		return;
	fprintf(f, "%s  per second over %lld seconds: fastest %s, median %s, slowest %s",
		md ? "  " : "", (long long)json_integer_value(json_object_get(s, "n")),
		sb_report_fmt_value(json_number_value(json_object_get(s, "fastest")), "ops/s", a,
				    sizeof(a)),
		sb_report_fmt_value(json_number_value(json_object_get(s, "median")), "ops/s", b,
				    sizeof(b)),
		sb_report_fmt_value(json_number_value(json_object_get(s, "slowest")), "ops/s", c,
				    sizeof(c)));
	if (json_number_value(json_object_get(s, "bw_fastest")) > 0)
		fprintf(f, "; throughput fastest %s, median %s, slowest %s",
			sb_fmt_rate(json_number_value(json_object_get(s, "bw_fastest")), a,
				    sizeof(a)),
			sb_fmt_rate(json_number_value(json_object_get(s, "bw_median")), b,
				    sizeof(b)),
			sb_fmt_rate(json_number_value(json_object_get(s, "bw_slowest")), c,
				    sizeof(c)));
	fprintf(f, "\n");
}

/* ---- the table ---- */

enum { NCOL = 11 };

static const char *const col_title[NCOL] = {
	"target",     "workload", "operation", "object size", "concurrency", "ops/s (mean ± sd)",
	"throughput", "p50",	  "p99",       "TTFB p50",    "errors"};

static void cells_of(const struct orow *o, char cell[NCOL][64])
{
	char a[32], b[32];
	snprintf(cell[0], 64, "%.63s", o->target);
	snprintf(cell[1], 64, "%.63s", o->workload);
	snprintf(cell[2], 64, "%s", o->op);
	snprintf(cell[3], 64, "%s", o->size);
	snprintf(cell[4], 64, "%s", o->conc);
	if (o->have_ops)
		snprintf(cell[5], 64, "%s ± %s", sb_report_fmt_short(o->ops, "IOPS", a, sizeof(a)),
			 sb_report_fmt_short(o->ops_sd, "IOPS", b, sizeof(b)));
	else
		snprintf(cell[5], 64, "-");
	if (o->bw > 0)
		sb_fmt_rate(o->bw, cell[6], 64);
	else
		snprintf(cell[6], 64, "-");
	const double t[3] = {o->p50, o->p99, o->ttfb};
	for (int k = 0; k < 3; k++) {
		if (t[k] >= 0 && o->have_ops)
			sb_fmt_ns(t[k], cell[7 + k], 64);
		else
			snprintf(cell[7 + k], 64, "-");
	}
	if (o->errors >= 0)
		snprintf(cell[10], 64, "%lld", o->errors);
	else
		snprintf(cell[10], 64, "-");
}

static void put_row(FILE *f, char cell[NCOL][64], const size_t *w, bool md)
{
	for (int c = 0; c < NCOL; c++) {
		fprintf(f, "%s%s", c ? " | " : (md ? "| " : ""), cell[c]);
		if (c < NCOL - 1 || md)
			for (size_t k = sb_report_text_width(cell[c]); k < w[c]; k++)
				fputc(' ', f);
	}
	fprintf(f, "%s\n", md ? " |" : "");
}

void sb_report_object_table(FILE *f, const json_t *report, bool md)
{
	const json_t *results = json_object_get(report, "results"), *r;
	size_t i, w[NCOL], rows = 0;
	char cell[NCOL][64];
	struct orow o;

	for (int c = 0; c < NCOL; c++)
		w[c] = sb_report_text_width(col_title[c]);
	json_array_foreach(results, i, r)
	{
		if (!sb_report_is_object(r))
			continue;
		row_get(r, &o);
		cells_of(&o, cell);
		for (int c = 0; c < NCOL; c++)
			if (sb_report_text_width(cell[c]) > w[c])
				w[c] = sb_report_text_width(cell[c]);
		rows++;
	}
	if (!rows)
		return;
	fprintf(f, "%s", md ? "\n## Object storage\n\n" : "\n=== object storage\n");
	for (int c = 0; c < NCOL; c++)
		snprintf(cell[c], 64, "%s", col_title[c]);
	put_row(f, cell, w, md);
	fprintf(f, "%s", md ? "|" : "");
	for (int c = 0; c < NCOL; c++) {
		if (c)
			fprintf(f, "%s", md ? "|" : "-+-");
		for (size_t k = 0; k < w[c] + (md ? 2 : 0); k++)
			fputc('-', f);
	}
	fprintf(f, "%s\n", md ? "|" : "");
	json_array_foreach(results, i, r)
	{
		if (!sb_report_is_object(r))
			continue;
		row_get(r, &o);
		cells_of(&o, cell);
		put_row(f, cell, w, md);
	}
}
