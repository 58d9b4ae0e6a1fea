/* SPDX-License-Identifier: MIT */
/*
 * Output of the S3 benchmark: warp's text summary, and JSON in the runner's
 * result family (one job object per operation, fio's names where they mean
 * the same thing, so lib/aggregate reads it).
 */
#include "stats/fiotime.h"
#include "core/labels.h"
#include "result/resultdoc.h"
#include "runner/s3/s3.h"
#include "core/units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

/* warp's summary percentiles */
static const double text_pct[] = {25.0, 50.0, 75.0, 90.0, 99.0};

static void fmt_dur(char *out, size_t n, double ns)
{
	if (ns >= 1e9)
		snprintf(out, n, "%.3fs", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(out, n, "%.1fms", ns / 1e6);
	else
		snprintf(out, n, "%.1fus", ns / 1e3);
}

static void fmt_bytes_rate(char *out, size_t n, double bps)
{
	static const char *const u[] = {"B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s"};
	int i = 0;
	while (bps >= 1024.0 * 0.9995 && i < 4) {
		bps /= 1024.0;
		i++;
	}
	snprintf(out, n, "%.2f %s", bps, u[i]);
}

static void print_times(FILE *f, const char *what, const struct sb_stat *st,
			const struct sb_hist *h)
{
	uint64_t pv[5];
	char a[32], b[32], c[32], d[32], e[32], g[32], i[32], j[32], k[32];
	if (!st->n || sb_hist_percentiles(h, text_pct, 5, pv))
		return;
	fmt_dur(a, sizeof(a), st->mean);
	fmt_dur(b, sizeof(b), st->min);
	fmt_dur(c, sizeof(c), (double)pv[0]);
	fmt_dur(d, sizeof(d), (double)pv[1]);
	fmt_dur(e, sizeof(e), (double)pv[2]);
	fmt_dur(g, sizeof(g), (double)pv[3]);
	fmt_dur(i, sizeof(i), (double)pv[4]);
	fmt_dur(j, sizeof(j), st->max);
	fmt_dur(k, sizeof(k), sb_stat_stddev(st));
	fprintf(f,
		" * %s: Avg: %s, Best: %s, 25th: %s, Median: %s, 75th: %s, 90th: %s, 99th: %s, "
		"Worst: %s, StdDev: %s\n",
		what, a, b, c, d, e, g, i, j, k);
}

/* The analysed span in seconds (0 when there is none). */
static double span_s(const struct sb_s3_analysis *a)
{
	return (double)(a->to_ns - a->from_ns) / 1e9;
}

/* "Throughput, split into N x 1s:" and the fastest, median and slowest segments. */
static void print_segments(FILE *f, const struct sb_s3_analysis *a)
{
	const char *lab[3] = {"Fastest", "50% Median", "Slowest"};
	const size_t pick[3] = {a->fastest, a->median, a->slowest};
	double seg = (double)a->seg_ns / 1e9;
	char bw[32];
	fprintf(f, "\nThroughput, split into %zu x %gs:\n", a->nseg, seg);
	for (int k = 0; k < 3; k++) {
		const struct sb_s3_segment *s = &a->seg[pick[k]];
		if (a->by_bytes) {
			fmt_bytes_rate(bw, sizeof(bw), (double)s->bytes / seg);
			fprintf(f, " * %s: %s, %.2f obj/s\n", lab[k], bw, s->objects / seg);
		} else {
			fprintf(f, " * %s: %.2f obj/s\n", lab[k], s->objects / seg);
		}
	}
}

static void print_errors(FILE *f, const struct sb_s3_opstat *s)
{
	fprintf(f, " * Errors by status:");
	for (unsigned i = 0; i < s->nstatus; i++) {
		if (s->status[i])
			fprintf(f, "%s HTTP %d: %llu", i ? "," : "", s->status[i],
				(unsigned long long)s->status_n[i]);
		else
			fprintf(f, "%s no response: %llu", i ? "," : "",
				(unsigned long long)s->status_n[i]);
	}
	fprintf(f, "\n * First error: %s\n", s->first_error);
}

/* One operation's report, warp's layout. */
static void print_op(FILE *f, const struct sb_s3_result *r, enum sb_s3_op op)
{
	const struct sb_s3_opstat *s = &r->op[op];
	const struct sb_s3_analysis *a = &s->an;
	double secs = span_s(a);
	char ran[32], bw[32];
	fmt_dur(ran, sizeof(ran), secs * 1e9);
	fprintf(f, "\nReport: %s. Concurrency: %u. Ran: %s\n", sb_s3_op_name(op), r->concurrent,
		ran);
	double ops = secs > 0 ? a->objects / secs : 0;
	fmt_bytes_rate(bw, sizeof(bw), secs > 0 ? (double)a->bytes / secs : 0);
	if (s->bytes)
		fprintf(f, " * Average: %s, %.2f obj/s\n", bw, ops);
	else
		fprintf(f, " * Average: %.2f obj/s\n", ops);
	if (!a->active)
		fprintf(f, " * Too few requests for a span when every worker was active: the "
			   "whole run is analysed\n");
	fprintf(f, " * Requests: %llu, Errors: %llu\n", (unsigned long long)s->requests,
		(unsigned long long)s->errors);
	if (s->errors)
		print_errors(f, s);
	print_times(f, "Reqs", &s->req, &s->req_hist);
	if (op == SB_S3_GET || op == SB_S3_LIST)
		print_times(f, "TTFB", &s->ttfb, &s->ttfb_hist);
	if (a->nseg)
		print_segments(f, a);
}

void sb_s3_print_text(FILE *f, const struct sb_s3_opts *o, const struct sb_s3_result *r)
{
	fprintf(f, "Bucket: %s (%s). Prepared: %llu objects.\n", r->bucket,
		o->keep_data ? "kept" : (r->bucket_removed ? "removed" : "emptied"),
		(unsigned long long)r->prepared);
	if (r->autoterm)
		fprintf(f,
			"Autoterm: throughput stable within %g%% for %gs: ended after %.1fs of "
			"the run's %gs.\n",
			o->autoterm_pct, (double)o->autoterm_dur_us / 1e6,
			(double)r->runtime_us / 1e6, (double)o->duration_us / 1e6);
	for (int op = 0; op < SB_S3_NOPS; op++)
		if (r->op[op].requests)
			print_op(f, r, (enum sb_s3_op)op);
}

/* ---- JSON ---- */

static bool put(json_t *o, const char *key, json_t *v)
{
	return v && json_object_set_new(o, key, v) == 0;
}

/* The segments' bytes, or their objects rounded to whole ones (the series are counts). */
static json_t *seg_array(const struct sb_s3_analysis *a, bool bytes)
{
	json_t *v = json_array();
	for (size_t i = 0; v && i < a->nseg; i++) {
		json_int_t x = bytes ? (json_int_t)a->seg[i].bytes
				     : (json_int_t)llround(a->seg[i].objects);
		if (json_array_append_new(v, json_integer(x))) {
			json_decref(v);
			return NULL;
		}
	}
	return v;
}

static json_t *hist_compact(const struct sb_hist *h)
{
	json_t *a = json_array();
	for (unsigned i = 0; a && i < SB_HIST_NR; i++) {
		if (!h->bucket[i])
			continue;
		json_t *pair = json_pack("[II]", (json_int_t)i, (json_int_t)h->bucket[i]);
		if (!pair || json_array_append_new(a, pair)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* {"min","max","mean","stddev","N","percentile":{fio keys}} */
static json_t *times_json(const struct sb_stat *st, const struct sb_hist *h)
{
	json_t *o = json_pack("{s:I,s:I,s:f,s:f,s:I}", SB_RK_MIN, (json_int_t)(st->n ? st->min : 0),
			      SB_RK_MAX, (json_int_t)(st->n ? st->max : 0), SB_RK_MEAN, st->mean,
			      SB_RK_STDDEV, sb_stat_stddev(st), SB_RK_N, (json_int_t)st->n);
	if (!o || !h->n)
		return o;
	uint64_t pv[32];
	size_t np = sb_hist_default_npercentiles;
	json_t *p = json_object();
	bool ok = p && np <= 32 && sb_hist_percentiles(h, sb_hist_default_percentiles, np, pv) == 0;
	for (size_t i = 0; ok && i < np; i++) {
		char key[32];
		snprintf(key, sizeof(key), "%f", sb_hist_default_percentiles[i]);
		ok = put(p, key, json_integer((json_int_t)pv[i]));
	}
	if (!ok || !put(o, SB_RK_PERCENTILE, p)) {
		json_decref(p);
		json_decref(o);
		return NULL;
	}
	return o;
}

/* fio's direction block: rates over the analysed span (warp's analysis) */
static json_t *dir_json(const struct sb_s3_opstat *s, bool used)
{
	const struct sb_s3_analysis *a = &s->an;
	uint64_t ms = sb_fio_runtime_ms((a->to_ns - a->from_ns) / 1000, used ? s->ok : 0);
	double iops = used ? sb_fio_rate(a->objects, ms) : 0;
	uint64_t bw = used ? (uint64_t)sb_fio_rate((double)a->bytes, ms) : 0;
	struct sb_stat none = SB_STAT_INIT;
	struct sb_hist *empty = calloc(1, sizeof(*empty));
	if (!empty)
		return NULL;
	json_t *j = json_object();
	bool ok = j && put(j, SB_RK_IO_BYTES, json_integer((json_int_t)(used ? s->bytes : 0))) &&
		  put(j, SB_RK_IO_KBYTES, json_integer((json_int_t)(used ? s->bytes / 1024 : 0))) &&
		  put(j, SB_RK_BW_BYTES, json_integer((json_int_t)bw)) &&
		  put(j, SB_RK_BW, json_integer((json_int_t)(bw / 1024))) &&
		  put(j, SB_RK_IOPS, json_real(iops)) &&
		  put(j, SB_RK_RUNTIME, json_integer(used ? (json_int_t)ms : 0)) &&
		  put(j, SB_RK_TOTAL_IOS, json_integer((json_int_t)(used ? s->ok : 0))) &&
		  put(j, "short_ios", json_integer(0)) && put(j, "drop_ios", json_integer(0)) &&
		  put(j, SB_RK_LAT_NS,
		      times_json(used ? &s->req : &none, used ? &s->req_hist : empty)) &&
		  put(j, SB_RK_CLAT_NS,
		      times_json(used ? &s->req : &none, used ? &s->req_hist : empty));
	free(empty);
	if (!ok) {
		json_decref(j);
		return NULL;
	}
	return j;
}

static json_t *errors_json(const struct sb_s3_opstat *s)
{
	json_t *o = json_object();
	for (unsigned i = 0; o && i < s->nstatus; i++) {
		char key[16];
		snprintf(key, sizeof(key), "%d", s->status[i]);
		if (!put(o, key, json_integer((json_int_t)s->status_n[i]))) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

/* The object size as the report's bs column shows it: N, or MIN-MAX when random. */
static void size_label(const struct sb_s3_opts *o, char *out, size_t n)
{
	if (o->randsize || o->size_range)
		snprintf(out, n, "%llu-%llu",
			 (unsigned long long)(o->size_range && o->obj_size_min ? o->obj_size_min
									       : 1),
			 (unsigned long long)o->obj_size);
	else
		snprintf(out, n, "%llu", (unsigned long long)o->obj_size);
}

/* storagebench.s3 of one operation's job (docs/s3.md "Output"). */
static json_t *s3_op_json(const struct sb_s3_result *r, enum sb_s3_op op, const char *size)
{
	const struct sb_s3_opstat *s = &r->op[op];
	const struct sb_s3_analysis *a = &s->an;
	double secs = span_s(a);
	json_t *s3 = json_object();
	bool ok = s3 && put(s3, "op", json_string(sb_s3_op_name(op))) &&
		  put(s3, "benchmark", json_string(sb_s3_bench_name(r->bench))) &&
		  put(s3, "obj_size", json_string(size)) &&
		  put(s3, "concurrent", json_integer(r->concurrent)) &&
		  put(s3, "requests", json_integer((json_int_t)s->requests)) &&
		  put(s3, SB_RK_S3_ERRORS, json_integer((json_int_t)s->errors)) &&
		  put(s3, SB_RK_S3_ERRORS_BY_STATUS, errors_json(s)) &&
		  put(s3, "objects", json_integer((json_int_t)s->objects)) &&
		  put(s3, "bytes", json_integer((json_int_t)s->bytes)) &&
		  put(s3, "analysed_us",
		      json_integer((json_int_t)((a->to_ns - a->from_ns) / 1000))) &&
		  put(s3, "analysis", json_string(a->active ? "active" : "whole run")) &&
		  put(s3, "ops", json_real(secs > 0 ? a->objects / secs : 0)) &&
		  put(s3, "bytes_per_sec", json_real(secs > 0 ? (double)a->bytes / secs : 0)) &&
		  put(s3, "req_ns", times_json(&s->req, &s->req_hist)) &&
		  put(s3, "ttfb_ns", times_json(&s->ttfb, &s->ttfb_hist)) &&
		  put(s3, "req_hist", hist_compact(&s->req_hist)) &&
		  put(s3, SB_RK_S3_TTFB_HIST, hist_compact(&s->ttfb_hist)) &&
		  put(s3, "ops_series", seg_array(a, false)) &&
		  put(s3, SB_RK_SB_BYTES_SERIES, seg_array(a, true)) &&
		  (!s->first_error[0] || put(s3, "first_error", json_string(s->first_error)));
	if (!ok) {
		json_decref(s3);
		return NULL;
	}
	return s3;
}

static json_t *job_json(const struct sb_s3_opts *o, const struct sb_s3_result *r, enum sb_s3_op op)
{
	const struct sb_s3_opstat *s = &r->op[op];
	char name[256];
	const char *opn = sb_s3_op_name(op);
	if (o->label[0] && r->bench != SB_S3_B_MIXED)
		snprintf(name, sizeof(name), "%s", o->label);
	else if (o->label[0])
		snprintf(name, sizeof(name), "%s-%s", o->label, opn);
	else
		snprintf(name, sizeof(name), "s3-%s", opn);
	for (char *p = name; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	bool rd = op != SB_S3_PUT; /* data moves towards the client (or nowhere) */
	char size[64];
	size_label(o, size, sizeof(size));
	json_t *s3 = s3_op_json(r, op, size);
	if (!s3)
		return NULL;
	/* fio's option names where they say the same: the report's rw, bs and
	 * iodepth columns show the operation, object size and concurrency */
	char rw[16], conc[16];
	snprintf(rw, sizeof(rw), SB_RW_OBJECT_PREFIX "%s", opn);
	for (char *p = rw; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	snprintf(conc, sizeof(conc), "%u", r->concurrent);
	json_t *jopts = json_pack("{s:s,s:s,s:s,s:s}", "rw", rw, "bs", size, "iodepth", conc,
				  "numjobs", "1");
	json_t *x = json_pack("{s:I,s:o}", SB_RK_SB_INTERVAL_MS,
			      (json_int_t)(r->interval_us / 1000), SB_RK_SB_S3, s3);
	json_t *dirx = json_object();
	json_t *j = json_object();
	bool ok = x && dirx && j && put(j, SB_RK_JOBNAME, json_string(name)) &&
		  put(j, SB_RK_JOB_OPTIONS, jopts) && put(j, "groupid", json_integer(0)) &&
		  put(j, SB_RK_ERROR, json_integer(s->errors ? 5 /* EIO */ : 0)) &&
		  put(j, "job_runtime", json_integer((json_int_t)(r->runtime_us / 1000))) &&
		  put(j, SB_RK_READ, dir_json(s, rd)) && put(j, SB_RK_WRITE, dir_json(s, !rd)) &&
		  put(dirx, SB_RK_SB_CLAT_HIST, hist_compact(&s->req_hist)) &&
		  put(dirx, SB_RK_SB_IOS_SERIES, seg_array(&s->an, false)) &&
		  put(dirx, SB_RK_SB_BYTES_SERIES, seg_array(&s->an, true)) &&
		  put(x, rd ? SB_RK_READ : SB_RK_WRITE, dirx) && put(j, SB_RK_SB, x);
	if (!ok) {
		if (!json_object_get(j, SB_RK_JOB_OPTIONS))
			json_decref(jopts);
		if (!json_object_get(x, rd ? SB_RK_READ : SB_RK_WRITE))
			json_decref(dirx);
		json_decref(x);
		json_decref(j);
		return NULL;
	}
	return j;
}

json_t *sb_s3_json(const struct sb_s3_opts *o, const struct sb_s3_result *r)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	json_t *jobs = json_array();
	json_t *doc = json_object();
	json_t *s3 = json_pack(
		"{s:s,s:s,s:s,s:b,s:b,s:I,s:I,s:b,s:b,s:I,s:b}", "endpoint", o->host, "benchmark",
		sb_s3_bench_name(r->bench), "bucket", r->bucket, "tls", o->tls, "path_style",
		o->path_style, "prepared", (json_int_t)r->prepared, "runtime_us",
		(json_int_t)r->runtime_us, "bucket_created", r->bucket_created, "bucket_removed",
		r->bucket_removed, "cleaned", (json_int_t)r->cleaned, "autoterm", r->autoterm);
	bool ok = jobs && doc && s3;
	for (int op = 0; ok && op < SB_S3_NOPS; op++) {
		if (!r->op[op].requests)
			continue;
		json_t *j = job_json(o, r, (enum sb_s3_op)op);
		ok = j && json_array_append_new(jobs, j) == 0;
	}
	ok = ok && put(doc, "fio version", json_string("storagebench-runner " SB_VERSION)) &&
	     put(doc, "timestamp", json_integer((json_int_t)tv.tv_sec)) && put(doc, "s3", s3) &&
	     put(doc, SB_RK_JOBS, jobs);
	if (!ok) {
		if (!json_object_get(doc, "s3"))
			json_decref(s3);
		if (!json_object_get(doc, SB_RK_JOBS))
			json_decref(jobs);
		json_decref(doc);
		return NULL;
	}
	return doc;
}
