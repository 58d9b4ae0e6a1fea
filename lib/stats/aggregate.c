/* SPDX-License-Identifier: MIT */
#include "aggregate.h"
#include "core/errfmt.h"
#include "fingerprint.h"
#include "fiotime.h"

#include "hist.h"
#include "result/resultdoc.h"
#include "stats.h"
#include "core/units.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum metric {
	M_READ_IOPS,
	M_READ_BW,
	M_READ_LAT,
	M_READ_P50,
	M_READ_P99,
	M_READ_P999,
	M_WRITE_IOPS,
	M_WRITE_BW,
	M_WRITE_LAT,
	M_WRITE_P50,
	M_WRITE_P99,
	M_WRITE_P999,
	M_SYNC_LAT,
	M_SYNC_P99,
	M_STEADY,	/* 100 when the job reached steady state (fio's steadystate), else 0 */
	M_STEADY_AFTER, /* seconds from the job's start until it did */
	M_TTFB_P50,	/* S3: median time to first byte (storagebench.s3.ttfb_hist) */
	M_ERRORS,	/* S3: failed requests (storagebench.s3.errors) */
	M_COUNT
};

static const struct {
	const char *name;
	const char *unit;
} metric_info[M_COUNT] = {
	{"read-iops", "IOPS"},	 {"read-bw", "B/s"},	     {"read-lat-mean", "ns"},
	{"read-lat-p50", "ns"},	 {"read-lat-p99", "ns"},     {"read-lat-p99.9", "ns"},
	{"write-iops", "IOPS"},	 {"write-bw", "B/s"},	     {"write-lat-mean", "ns"},
	{"write-lat-p50", "ns"}, {"write-lat-p99", "ns"},    {"write-lat-p99.9", "ns"},
	{"sync-lat-mean", "ns"}, {"sync-lat-p99", "ns"},     {"steady", "%"},
	{"steady-after", "s"},	 {SB_METRIC_TTFB_P50, "ns"}, {SB_METRIC_ERRORS, "requests"},
};

struct dvec {
	double *v;
	size_t n, cap;
};

struct cell {
	char *target;
	char *workload;
	size_t ti, wi; /* indexes of target and workload in struct sb_agg's lists */
	char rw[16];
	char bs[32];
	char engine[32];
	unsigned iodepth, numjobs;
	unsigned fsync;	 /* sync every N writes (fsync or fdatasync), 0 none */
	unsigned *iters; /* iterations seen */
	size_t niters, citers;
	struct dvec m[M_COUNT];
	struct sb_hist hist[3];	  /* read, write clat; sync lat; merged */
	struct dvec secs[2];	  /* per-second IOPS of every iteration */
	struct dvec secs_bw[2];	  /* per-second bytes/s of every iteration */
	json_t *errors_by_status; /* S3: failed requests per HTTP status, summed; NULL: none */
	json_t *params;		  /* the first iteration's normalised parameters (fingerprint.h) */
	char fingerprint[SB_FINGERPRINT_LEN + 1];
};

struct sb_agg {
	struct cell **cells;
	size_t n, cap;
	char **targets;
	size_t ntargets;
	char **workloads;
	size_t nworkloads;
	json_t *index; /* cell_key -> index in cells */
};

static int dvec_push(struct dvec *d, double x)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 8;
		double *v = realloc(d->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		d->v = v;
		d->cap = cap;
	}
	d->v[d->n++] = x;
	return 0;
}

struct sb_agg *sb_agg_new(void)
{
	return calloc(1, sizeof(struct sb_agg));
}

static void cell_free(struct cell *c)
{
	if (!c)
		return;
	free(c->target);
	free(c->workload);
	free(c->iters);
	for (int i = 0; i < M_COUNT; i++)
		free(c->m[i].v);
	free(c->secs[0].v);
	free(c->secs[1].v);
	free(c->secs_bw[0].v);
	free(c->secs_bw[1].v);
	json_decref(c->errors_by_status);
	json_decref(c->params);
	free(c);
}

void sb_agg_free(struct sb_agg *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++)
		cell_free(a->cells[i]);
	for (size_t i = 0; i < a->ntargets; i++)
		free(a->targets[i]);
	for (size_t i = 0; i < a->nworkloads; i++)
		free(a->workloads[i]);
	json_decref(a->index);
	free(a->cells);
	free(a->targets);
	free(a->workloads);
	free(a);
}

/* Adds s to a list of names unless present; *at is its index. 0 or -ENOMEM. */
static int name_add(char ***list, size_t *n, const char *s, size_t *at)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*list)[i], s)) {
			*at = i;
			return 0;
		}
	char **l = realloc(*list, (*n + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	*list = l;
	if (!(l[*n] = strdup(s)))
		return -ENOMEM;
	*at = (*n)++;
	return 0;
}

/* The hash key of a cell: "<len of target>:<target><workload>", unambiguous. NULL on ENOMEM. */
static char *cell_key(const char *target, const char *workload)
{
	char *k = NULL;
	if (asprintf(&k, "%zu:%s%s", strlen(target), target, workload) < 0)
		return NULL;
	return k;
}

/* The cell of target x workload, or NULL; a hashed look-up (many workloads stay linear). */
static struct cell *cell_find(const struct sb_agg *a, const char *target, const char *workload)
{
	char *k = cell_key(target, workload);
	const json_t *v = k && a->index ? json_object_get(a->index, k) : NULL;
	free(k);
	return v ? a->cells[json_integer_value(v)] : NULL;
}

static struct cell *cell_get(struct sb_agg *a, const char *target, const char *workload)
{
	struct cell *found = cell_find(a, target, workload);
	if (found)
		return found;
	if (!a->index && !(a->index = json_object()))
		return NULL;
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		struct cell **c = realloc(a->cells, cap * sizeof(*c));
		if (!c)
			return NULL;
		a->cells = c;
		a->cap = cap;
	}
	struct cell *c = calloc(1, sizeof(*c));
	if (!c || !(c->target = strdup(target)) || !(c->workload = strdup(workload)) ||
	    name_add(&a->targets, &a->ntargets, target, &c->ti) ||
	    name_add(&a->workloads, &a->nworkloads, workload, &c->wi)) {
		cell_free(c);
		return NULL;
	}
	char *k = cell_key(target, workload);
	if (!k || json_object_set_new(a->index, k, json_integer((json_int_t)a->n))) {
		free(k);
		cell_free(c);
		return NULL;
	}
	free(k);
	a->cells[a->n++] = c;
	return c;
}

/* A number field (integer or real); -EINVAL naming it when missing or not a number. */
static int get_num(const json_t *o, const char *path, const char *key, double *out, char *err,
		   size_t len)
{
	const json_t *v = json_object_get(o, key);
	if (!v)
		return sb_errf(err, len, -EINVAL, "%s.%s: missing", path, key);
	if (!json_is_number(v))
		return sb_errf(err, len, -EINVAL, "%s.%s: not a number", path, key);
	*out = json_number_value(v);
	if (!isfinite(*out) || *out < 0)
		return sb_errf(err, len, -EINVAL, "%s.%s: %g is not a non-negative number", path,
			       key, *out);
	return 0;
}

/* Reads [[bucket, count], ...] into h (added). */
static int hist_from_json(const json_t *a, struct sb_hist *h, const char *path, char *err,
			  size_t len)
{
	size_t i;
	const json_t *pair;
	if (!json_is_array(a))
		return sb_errf(err, len, -EINVAL, "%s: not an array", path);
	json_array_foreach(a, i, pair)
	{
		json_int_t idx, cnt;
		if (!json_is_array(pair) || json_array_size(pair) != 2 ||
		    !json_is_integer(json_array_get(pair, 0)) ||
		    !json_is_integer(json_array_get(pair, 1)))
			return sb_errf(err, len, -EINVAL, "%s[%zu]: not a [bucket, count] pair",
				       path, i);
		idx = json_integer_value(json_array_get(pair, 0));
		cnt = json_integer_value(json_array_get(pair, 1));
		if (idx < 0 || idx >= (json_int_t)SB_HIST_NR || cnt < 0)
			return sb_errf(err, len, -EINVAL,
				       "%s[%zu]: bucket %lld or count %lld out of range", path, i,
				       (long long)idx, (long long)cnt);
		h->bucket[idx] += (uint64_t)cnt;
		h->n += (uint64_t)cnt;
	}
	return 0;
}

static const char *opt_str(const json_t *job, const char *key)
{
	const json_t *v = json_object_get(json_object_get(job, SB_RK_JOB_OPTIONS), key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/*
 * Steady state (a job run with fio's steadystate=): whether it was reached
 * (fio's "steadystate.attained") and after how long (the runner's
 * storagebench.steadystate.attained_ms). Jobs without it add nothing.
 */
static int steady_from_json(const json_t *job, double *vals, bool *have, char *err, size_t errlen)
{
	const json_t *ss = json_object_get(job, SB_RK_STEADYSTATE);
	double att = 0, ms = 0;
	if (!ss)
		return 0;
	if (!json_is_object(ss))
		return sb_errf(err, errlen, -EINVAL, "steadystate: not an object");
	if (get_num(ss, SB_RK_STEADYSTATE, SB_RK_SS_ATTAINED, &att, err, errlen))
		return -EINVAL;
	vals[M_STEADY] = att ? 100.0 : 0.0;
	have[M_STEADY] = true;
	const json_t *x = json_object_get(json_object_get(job, SB_RK_SB), SB_RK_STEADYSTATE);
	if (att && x) {
		if (get_num(x, "storagebench.steadystate", SB_RK_SB_ATTAINED_MS, &ms, err, errlen))
			return -EINVAL;
		vals[M_STEADY_AFTER] = ms / 1000.0;
		have[M_STEADY_AFTER] = true;
	}
	return 0;
}

/* An S3 job's median time to first byte (runner/s3/out.c); other jobs add nothing. */
static int ttfb_from_json(const json_t *job, double *vals, bool *have, char *err, size_t errlen)
{
	const json_t *x = json_object_get(json_object_get(job, SB_RK_SB), SB_RK_SB_S3);
	const json_t *th = json_object_get(x, SB_RK_S3_TTFB_HIST);
	struct sb_hist *h;
	uint64_t p50;
	const double pl = 50.0;
	if (!th)
		return 0;
	if (!(h = calloc(1, sizeof(*h))))
		return -ENOMEM;
	int r = hist_from_json(th, h, "storagebench.s3.ttfb_hist", err, errlen);
	if (!r && h->n && sb_hist_percentiles(h, &pl, 1, &p50) == 0) {
		vals[M_TTFB_P50] = (double)p50;
		have[M_TTFB_P50] = true;
	}
	free(h);
	return r;
}

/*
 * An S3 job's failed requests (runner/s3/out.c): the count into vals, the
 * counts per status into *by (new reference, NULL when the job has none).
 */
static int s3_errors_from_json(const json_t *job, double *vals, bool *have, json_t **by, char *err,
			       size_t errlen)
{
	const json_t *x = json_object_get(json_object_get(job, SB_RK_SB), SB_RK_SB_S3);
	const json_t *e = json_object_get(x, SB_RK_S3_ERRORS),
		     *bs = json_object_get(x, SB_RK_S3_ERRORS_BY_STATUS);
	const char *key;
	const json_t *v;
	*by = NULL;
	if (!e)
		return 0;
	if (!json_is_integer(e) || json_integer_value(e) < 0)
		return sb_errf(err, errlen, -EINVAL, "storagebench.s3.errors: not a count");
	vals[M_ERRORS] = (double)json_integer_value(e);
	have[M_ERRORS] = true;
	if (!bs)
		return 0;
	if (!json_is_object(bs))
		return sb_errf(err, errlen, -EINVAL,
			       "storagebench.s3.errors_by_status: not an object");
	json_object_foreach((json_t *)bs, key, v)
	{
		char *end;
		long st = strtol(key, &end, 10);
		if (!*key || *end || st < 0 || st > 999 || !json_is_integer(v) ||
		    json_integer_value(v) < 0)
			return sb_errf(err, errlen, -EINVAL,
				       "storagebench.s3.errors_by_status.%.16s: not an HTTP status "
				       "with a count",
				       key);
	}
	*by = json_deep_copy(bs);
	return *by ? 0 : -ENOMEM;
}

/* dst[status] += src[status] for every status (both validated). 0 or -ENOMEM. */
static int status_add(json_t **dst, const json_t *src)
{
	const char *key;
	const json_t *v;
	if (!src)
		return 0;
	if (!*dst && !(*dst = json_object()))
		return -ENOMEM;
	json_object_foreach((json_t *)src, key, v)
	{
		json_int_t n =
			json_integer_value(json_object_get(*dst, key)) + json_integer_value(v);
		if (json_object_set_new(*dst, key, json_integer(n)))
			return -ENOMEM;
	}
	return 0;
}

/* What one job of one iteration adds to its cell. */
struct job_vals {
	double vals[M_COUNT];
	bool have[M_COUNT];
	struct sb_hist *h; /* [3]: read, write, sync completion latencies */
	struct dvec secs[2], secs_bw[2];
	json_t *by_status;
};

static const char *const dir_names[3] = {SB_RK_READ, SB_RK_WRITE, SB_RK_SYNC};
/* the result reader's directions of dir_names */
static const enum sb_result_dir dir_ids[3] = {SB_RDIR_READ, SB_RDIR_WRITE, SB_RDIR_SYNC};

/* p50, p99, p99.9 of a direction (metrics base + 3..5): from its histogram, else fio's. */
static void dir_percentiles(const struct sb_result_dirv *dv, const struct sb_hist *h,
			    struct job_vals *jv, int base)
{
	const double pl[3] = {50.0, 99.0, 99.9};
	uint64_t pv[3];
	if (h->n && sb_hist_percentiles(h, pl, 3, pv) == 0) {
		for (int k = 0; k < 3; k++) {
			jv->vals[base + 3 + k] = (double)pv[k];
			jv->have[base + 3 + k] = true;
		}
		return;
	}
	for (int k = 0; k < SB_RPCT_COUNT; k++) {
		if (dv->clat.have_pct[k]) {
			jv->vals[base + 3 + k] = dv->clat.pct[k];
			jv->have[base + 3 + k] = true;
		}
	}
}

/*
 * The per-interval series of direction d (storagebench.<d>.ios_series and
 * bytes_series, counts per interval_s) as rates per second. 0, -EINVAL
 * (err names the element), -ENOMEM.
 */
static int dir_series(const json_t *xd, int d, double interval_s, struct job_vals *jv, char *err,
		      size_t errlen)
{
	static const char *const sers[2] = {SB_RK_SB_IOS_SERIES, SB_RK_SB_BYTES_SERIES};
	for (int k = 0; xd && k < 2; k++) {
		const json_t *ser = json_object_get(xd, sers[k]);
		struct dvec *dst = k ? &jv->secs_bw[d] : &jv->secs[d];
		size_t i;
		const json_t *v;
		if (!ser)
			continue;
		if (!json_is_array(ser))
			return sb_errf(err, errlen, -EINVAL, "storagebench.%s.%s: not an array",
				       dir_names[d], sers[k]);
		json_array_foreach(ser, i, v)
		{
			if (!json_is_integer(v) || json_integer_value(v) < 0)
				return sb_errf(err, errlen, -EINVAL,
					       "storagebench.%s.%s[%zu]: not a count", dir_names[d],
					       sers[k], i);
			double rate = (double)json_integer_value(v) / interval_s;
			if (!isfinite(rate))
				return sb_errf(err, errlen, -EINVAL,
					       "storagebench.%s.%s[%zu]: %lld per %g ms is not a "
					       "finite rate (storagebench.interval_ms out of "
					       "range)",
					       dir_names[d], sers[k], i,
					       (long long)json_integer_value(v),
					       interval_s * 1000.0);
			if (dvec_push(dst, rate))
				return -ENOMEM;
		}
	}
	return 0;
}

/* The sync direction: fdatasync latency mean and p99. 0 or -EINVAL. */
static int sync_from_json(const struct sb_result_lat *lat, struct job_vals *jv, char *err,
			  size_t errlen)
{
	if (!lat->have_mean)
		return sb_errf(err, errlen, -EINVAL, "%s.%s.%s: missing", SB_RK_SYNC, SB_RK_LAT_NS,
			       SB_RK_MEAN);
	jv->vals[M_SYNC_LAT] = lat->mean;
	jv->have[M_SYNC_LAT] = true;
	uint64_t p99;
	const double pl = 99.0;
	if (jv->h[2].n && sb_hist_percentiles(&jv->h[2], &pl, 1, &p99) == 0) {
		jv->vals[M_SYNC_P99] = (double)p99;
		jv->have[M_SYNC_P99] = true;
	}
	return 0;
}

/* "<dir>.<key>: missing" when have is false; 0 otherwise. */
static int need(bool have, const char *dn, const char *key, char *err, size_t errlen)
{
	return have ? 0 : sb_errf(err, errlen, -EINVAL, "%s.%s: missing", dn, key);
}

/*
 * Direction d of job rj (fio's read, write, sync objects, read by
 * lib/result/resultdoc.h, and the runner's storagebench.<d> extension).
 * 0, -EINVAL (err written), -ENOMEM.
 */
static int dir_from_json(const struct sb_result_job *rj, double interval_s, int d,
			 struct job_vals *jv, char *err, size_t errlen)
{
	const char *dn = dir_names[d];
	const struct sb_result_dirv *dv = &rj->dir[dir_ids[d]];
	if (!dv->have)
		return d == 2 ? 0 /* older output without sync */
			      : sb_errf(err, errlen, -EINVAL, "%s: missing", dn);
	if (need(dv->have_total_ios, dn, SB_RK_TOTAL_IOS, err, errlen))
		return -EINVAL;
	double ios = dv->total_ios;
	/* fio counts fdatasyncs only in sync.lat_ns.N */
	if (d == 2 && dv->lat.have_n && dv->lat.n > ios)
		ios = dv->lat.n;
	if (ios == 0)
		return 0;
	const json_t *xd = sb_result_job_extra(rj->json, dir_ids[d]);
	if (xd && json_object_get(xd, SB_RK_SB_CLAT_HIST)) {
		char hp[64];
		snprintf(hp, sizeof(hp), "%s.%s.%s", SB_RK_SB, dn, SB_RK_SB_CLAT_HIST);
		if (hist_from_json(json_object_get(xd, SB_RK_SB_CLAT_HIST), &jv->h[d], hp, err,
				   errlen))
			return -EINVAL;
	}
	if (!dv->lat.have)
		return sb_errf(err, errlen, -EINVAL, "%s.%s: missing or not an object", dn,
			       SB_RK_LAT_NS);
	if (d == 2)
		return sync_from_json(&dv->lat, jv, err, errlen);
	int base = d == 0 ? M_READ_IOPS : M_WRITE_IOPS;
	double *vals = jv->vals;
	char lp[64];
	snprintf(lp, sizeof(lp), "%s.%s", dn, SB_RK_LAT_NS);
	if (need(dv->have_iops, dn, SB_RK_IOPS, err, errlen) ||
	    need(dv->have_bw_bytes, dn, SB_RK_BW_BYTES, err, errlen) ||
	    need(dv->lat.have_mean, lp, SB_RK_MEAN, err, errlen))
		return -EINVAL;
	vals[base] = dv->iops;
	vals[base + 1] = dv->bw_bytes;
	vals[base + 2] = dv->lat.mean;
	/* a result that says runtime 0 for a direction that did I/O (a runner
	 * before fio's rule, lib/stats/fiotime.h): its rate over fio's 1 ms */
	if (dv->runtime_is_int && dv->runtime == 0 && vals[base] == 0 && vals[base + 1] == 0) {
		uint64_t ms = sb_fio_runtime_ms(0, (uint64_t)ios);
		if (need(dv->have_io_bytes, dn, SB_RK_IO_BYTES, err, errlen))
			return -EINVAL;
		vals[base] = sb_fio_rate(ios, ms);
		vals[base + 1] = sb_fio_rate(dv->io_bytes, ms);
	}
	jv->have[base] = jv->have[base + 1] = true;
	/* a run with gtod_reduce measures no latency: N is 0 */
	jv->have[base + 2] = !dv->lat.have_n || dv->lat.n > 0;
	dir_percentiles(dv, &jv->h[d], jv, base);
	return dir_series(xd, d, interval_s, jv, err, errlen);
}

/* Every value job holds, into jv. 0, -EINVAL (err written), -ENOMEM. */
static int job_vals_from_json(const struct sb_result_job *rj, struct job_vals *jv, char *err,
			      size_t errlen)
{
	const json_t *job = rj->json;
	const json_t *sbx = json_object_get(job, SB_RK_SB);
	double interval_s = 1.0;
	int ret;
	if (sbx) {
		double ims = 0;
		if (!json_is_object(sbx))
			return sb_errf(err, errlen, -EINVAL, "%s: not an object", SB_RK_SB);
		if (json_object_get(sbx, SB_RK_SB_INTERVAL_MS) &&
		    get_num(sbx, SB_RK_SB, SB_RK_SB_INTERVAL_MS, &ims, err, errlen) == 0 && ims > 0)
			interval_s = ims / 1000.0;
	}
	for (int d = 0; d < 3; d++)
		if ((ret = dir_from_json(rj, interval_s, d, jv, err, errlen)) != 0)
			return ret;
	if (steady_from_json(job, jv->vals, jv->have, err, errlen))
		return -EINVAL;
	if ((ret = ttfb_from_json(job, jv->vals, jv->have, err, errlen)) != 0 ||
	    (ret = s3_errors_from_json(job, jv->vals, jv->have, &jv->by_status, err, errlen)) != 0)
		return ret == -ENOMEM ? ret : -EINVAL;
	return 0;
}

/* Adds iteration's values jv to cell c. 0 or -ENOMEM. */
static int cell_add_vals(struct cell *c, unsigned iteration, const struct job_vals *jv)
{
	if (c->niters == c->citers) {
		size_t cap = c->citers ? c->citers * 2 : 8;
		unsigned *it = realloc(c->iters, cap * sizeof(*it));
		if (!it)
			return -ENOMEM;
		c->iters = it;
		c->citers = cap;
	}
	c->iters[c->niters++] = iteration;
	for (int m = 0; m < M_COUNT; m++)
		if (jv->have[m] && dvec_push(&c->m[m], jv->vals[m]))
			return -ENOMEM;
	if (status_add(&c->errors_by_status, jv->by_status))
		return -ENOMEM;
	for (int d = 0; d < 3; d++)
		sb_hist_merge(&c->hist[d], &jv->h[d]);
	for (int d = 0; d < 2; d++) {
		for (size_t i = 0; i < jv->secs[d].n; i++)
			if (dvec_push(&c->secs[d], jv->secs[d].v[i]))
				return -ENOMEM;
		for (size_t i = 0; i < jv->secs_bw[d].n; i++)
			if (dvec_push(&c->secs_bw[d], jv->secs_bw[d].v[i]))
				return -ENOMEM;
	}
	return 0;
}

/* The job's description in c: rw, bs, iodepth, numjobs, fsync and the engine that ran. */
static void cell_describe(struct cell *c, const struct sb_result_job *rj)
{
	const json_t *job = rj->json;
	const char *s;
	if ((s = opt_str(job, "rw")) || (s = opt_str(job, "readwrite")))
		snprintf(c->rw, sizeof(c->rw), "%s", s);
	if ((s = opt_str(job, "bs")) || (s = opt_str(job, "blocksize")))
		snprintf(c->bs, sizeof(c->bs), "%s", s);
	if ((s = opt_str(job, "iodepth")))
		c->iodepth = (unsigned)strtoul(s, NULL, 10);
	if ((s = opt_str(job, "numjobs")))
		c->numjobs = (unsigned)strtoul(s, NULL, 10);
	if ((s = opt_str(job, "fsync")) || (s = opt_str(job, "fdatasync")))
		c->fsync = (unsigned)strtoul(s, NULL, 10);
	if (rj->engine_ran)
		snprintf(c->engine, sizeof(c->engine), "%s", rj->engine_ran);
	/* what the workload is, for matching it across runs (the first iteration's) */
	if (!c->params && sb_workload_fingerprint(json_object_get(job, SB_RK_JOB_OPTIONS),
						  rj->engine_ran, &c->params, c->fingerprint))
		c->fingerprint[0] = '\0';
}

int sb_agg_add(struct sb_agg *a, const char *target, unsigned iteration, const json_t *job,
	       char *err, size_t errlen)
{
	struct sb_result_job rj;
	struct job_vals jv = {0};
	int ret;

	if (sb_result_job_parse(job, "", &rj, err, errlen))
		return -EINVAL;
	const char *wl = rj.name;
	struct sb_hist *h = calloc(3, sizeof(*h));
	if (!h)
		return -ENOMEM;
	jv.h = h;
	ret = job_vals_from_json(&rj, &jv, err, errlen);
	if (ret)
		goto out;
	if (a->n >= SB_AGG_MAX_CELLS && !cell_find(a, target, wl)) {
		sb_errf(err, errlen, -EINVAL,
			"jobname '%.64s': more than %d target x workload results in one report", wl,
			SB_AGG_MAX_CELLS);
		ret = -E2BIG;
		goto out;
	}
	struct cell *c = cell_get(a, target, wl);
	if (!c) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < c->niters; i++) {
		if (c->iters[i] == iteration) {
			snprintf(err, errlen, "%s/%s: iteration %u already added", target, wl,
				 iteration);
			ret = -EEXIST;
			goto out;
		}
	}
	ret = cell_add_vals(c, iteration, &jv);
	if (!ret)
		cell_describe(c, &rj);
out:
	json_decref(jv.by_status);
	free(h);
	for (int d = 0; d < 2; d++) {
		free(jv.secs[d].v);
		free(jv.secs_bw[d].v);
	}
	return ret;
}

static json_t *summary_json(const struct dvec *d, const char *unit)
{
	struct sb_summary s;
	if (sb_summary_compute(d->v, d->n, &s))
		return NULL;
	json_t *samples = json_array();
	for (size_t i = 0; samples && i < d->n; i++)
		if (json_array_append_new(samples, json_real(d->v[i]))) {
			json_decref(samples);
			return NULL;
		}
	return json_pack("{s:s,s:f,s:f,s:f,s:f,s:f,s:f,s:I,s:o}", "unit", unit, "mean", s.mean,
			 "stddev", s.stddev, "min", s.min, "max", s.max, "median", s.median, "cv",
			 s.cv, "n", (json_int_t)s.n, "samples", samples);
}

/* The metrics a sentence leads with, from what the workload does. */
static json_t *headline(const struct cell *c)
{
	json_t *h = json_array();
	uint64_t bs = 4096;
	if (c->bs[0])
		(void)sb_parse_size(c->bs, 1024, &bs);
	for (int d = 0; h && d < 2; d++) {
		int base = d == 0 ? M_READ_IOPS : M_WRITE_IOPS;
		if (!c->m[base].n)
			continue;
		int pick = base; /* IOPS */
		if (bs >= 128 * 1024)
			pick = base + 1; /* bandwidth */
		else if (c->iodepth == 1 && c->numjobs <= 1 && !c->m[M_SYNC_LAT].n &&
			 c->m[base + 2].n && strstr(c->rw, "rand"))
			pick = base + 2; /* latency at QD1 */
		json_array_append_new(h, json_string(metric_info[pick].name));
	}
	return h;
}

/* 0, or -EINVAL naming the statistic when s has a value that is not finite. */
static int summary_finite(const struct sb_summary *s, const char *target, const char *workload,
			  const char *metric, char *err, size_t errlen)
{
	const double v[] = {s->mean, s->stddev, s->min, s->max, s->median, s->cv};
	static const char *const names[] = {"mean", "stddev", "min", "max", "median", "cv"};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!isfinite(v[i]))
			return sb_errf(err, errlen, -EINVAL,
				       "%s/%s: %s: the %s is %g: the results' values are out of "
				       "range",
				       target, workload, metric, names[i], v[i]);
	return 0;
}

int sb_agg_report_checked(const struct sb_agg *a, const char *name, json_t **out, char *err,
			  size_t errlen)
{
	*out = NULL;
	for (size_t i = 0; i < a->n; i++) {
		const struct cell *c = a->cells[i];
		struct sb_summary s;
		for (int m = 0; m < M_COUNT; m++) {
			if (!c->m[m].n)
				continue;
			if (sb_summary_compute(c->m[m].v, c->m[m].n, &s))
				return -ENOMEM;
			if (summary_finite(&s, c->target, c->workload, metric_info[m].name, err,
					   errlen))
				return -EINVAL;
		}
		static const char *const sn[2][2] = {
			{"read per second", "write per second"},
			{"read bytes per second", "write bytes per second"}};
		for (int d = 0; d < 2; d++) {
			if (!sb_summary_compute(c->secs[d].v, c->secs[d].n, &s) &&
			    summary_finite(&s, c->target, c->workload, sn[0][d], err, errlen))
				return -EINVAL;
			if (!sb_summary_compute(c->secs_bw[d].v, c->secs_bw[d].n, &s) &&
			    summary_finite(&s, c->target, c->workload, sn[1][d], err, errlen))
				return -EINVAL;
		}
	}
	*out = sb_agg_report(a, name);
	if (!*out) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* qsort: target by target, workloads in first-seen order */
static int cell_order(const void *x, const void *y)
{
	const struct cell *a = *(const struct cell *const *)x, *b = *(const struct cell *const *)y;
	if (a->ti != b->ti)
		return a->ti < b->ti ? -1 : 1;
	return a->wi < b->wi ? -1 : a->wi > b->wi;
}

json_t *sb_agg_report(const struct sb_agg *a, const char *name)
{
	json_t *rep = json_object(), *targets = json_array(), *wls = json_array(),
	       *results = json_array();
	bool ok = rep && targets && wls && results;

	for (size_t i = 0; ok && i < a->ntargets; i++)
		ok = json_array_append_new(targets, json_string(a->targets[i])) == 0;
	for (size_t i = 0; ok && i < a->nworkloads; i++)
		ok = json_array_append_new(wls, json_string(a->workloads[i])) == 0;
	/* order: target by target, workloads in first-seen order */
	const struct cell **order = a->n ? malloc(a->n * sizeof(*order)) : NULL;
	ok = ok && (order || !a->n);
	for (size_t i = 0; ok && i < a->n; i++)
		order[i] = a->cells[i];
	if (ok && a->n)
		qsort(order, a->n, sizeof(*order), cell_order);
	for (size_t t = 0; ok && t < a->n; t++) {
		{
			const struct cell *c = order[t];
			json_t *metrics = json_object(), *merged = json_object(),
			       *secs = json_object();
			ok = metrics && merged && secs;
			for (int m = 0; ok && m < M_COUNT; m++) {
				if (!c->m[m].n)
					continue;
				json_t *sj = summary_json(&c->m[m], metric_info[m].unit);
				ok = sj &&
				     json_object_set_new(metrics, metric_info[m].name, sj) == 0;
			}
			static const char *const dn[3] = {"read", "write", "sync"};
			for (int d = 0; ok && d < 3; d++) {
				if (!c->hist[d].n)
					continue;
				const double pl[3] = {50.0, 99.0, 99.9};
				uint64_t pv[3];
				if (sb_hist_percentiles(&c->hist[d], pl, 3, pv))
					continue;
				ok = json_object_set_new(merged, dn[d],
							 json_pack("{s:I,s:I,s:I,s:I}", "p50",
								   (json_int_t)pv[0], "p99",
								   (json_int_t)pv[1], "p99.9",
								   (json_int_t)pv[2], "n",
								   (json_int_t)c->hist[d].n)) == 0;
			}
			for (int d = 0; ok && d < 2; d++) {
				struct sb_summary s, b;
				if (sb_summary_compute(c->secs[d].v, c->secs[d].n, &s))
					continue;
				if (sb_summary_compute(c->secs_bw[d].v, c->secs_bw[d].n, &b))
					memset(&b, 0, sizeof(b));
				ok = json_object_set_new(
					     secs, dn[d],
					     json_pack("{s:f,s:f,s:f,s:I,s:s,s:f,s:f,s:f}",
						       "fastest", s.max, "median", s.median,
						       "slowest", s.min, "n", (json_int_t)s.n,
						       "unit", "IOPS", "bw_fastest", b.max,
						       "bw_median", b.median, "bw_slowest",
						       b.min)) == 0;
			}
			json_t *r = ok ? json_pack("{s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:s,s:I,s:o,s:O,s:"
						   "O,s:O}",
						   "target", c->target, "workload", c->workload,
						   "rw", c->rw, "bs", c->bs, "iodepth",
						   (int)c->iodepth, "numjobs", (int)c->numjobs,
						   "fsync", (int)c->fsync, "engine", c->engine,
						   "iterations", (json_int_t)c->niters, "headline",
						   headline(c), "metrics", metrics, "merged",
						   merged, "seconds", secs)
				       : NULL;
			json_decref(metrics);
			json_decref(merged);
			json_decref(secs);
			if (r && c->params &&
			    (json_object_set(r, "params", c->params) ||
			     json_object_set_new(r, "fingerprint", json_string(c->fingerprint)))) {
				json_decref(r);
				r = NULL;
			}
			if (r && c->errors_by_status &&
			    json_object_set_new(r, SB_RK_S3_ERRORS_BY_STATUS,
						json_deep_copy(c->errors_by_status))) {
				json_decref(r);
				r = NULL;
			}
			ok = r && json_array_append_new(results, r) == 0;
		}
	}
	free(order);
	ok = ok && json_object_set_new(rep, "kind", json_string("StoragebenchReport")) == 0 &&
	     json_object_set_new(rep, "version", json_integer(1)) == 0 &&
	     json_object_set_new(rep, "name", json_string(name ? name : "")) == 0 &&
	     json_object_set(rep, "targets", targets) == 0 &&
	     json_object_set(rep, "workloads", wls) == 0 &&
	     json_object_set(rep, "results", results) == 0;
	json_decref(targets);
	json_decref(wls);
	json_decref(results);
	if (!ok) {
		json_decref(rep);
		return NULL;
	}
	return rep;
}
