/* SPDX-License-Identifier: MIT */
#include "merge.h"
#include "core/errfmt.h"

#include "hist.h"
#include "result/resultdoc.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double sb_merge_median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool sb_merge_straggler(double value, double median)
{
	return median > 0 && value < SB_MERGE_STRAGGLER_RATIO * median;
}

/* Adds [[bucket, count], ...] to h. */
static int hist_add_json(const json_t *a, struct sb_hist *h, size_t pod, const char *path,
			 char *err, size_t errlen)
{
	size_t i;
	const json_t *pair;
	if (!json_is_array(a))
		return sb_errf(err, errlen, -EINVAL, "pod %zu: %s: not an array", pod, path);
	json_array_foreach(a, i, pair)
	{
		const json_t *b = json_array_get(pair, 0), *c = json_array_get(pair, 1);
		if (json_array_size(pair) != 2 || !json_is_integer(b) || !json_is_integer(c) ||
		    json_integer_value(b) < 0 || json_integer_value(b) >= (json_int_t)SB_HIST_NR ||
		    json_integer_value(c) < 0)
			return sb_errf(err, errlen, -EINVAL,
				       "pod %zu: %s[%zu]: not a [bucket, count] pair", pod, path,
				       i);
		h->bucket[json_integer_value(b)] += (uint64_t)json_integer_value(c);
		h->n += (uint64_t)json_integer_value(c);
	}
	return 0;
}

static json_t *hist_json(const struct sb_hist *h)
{
	json_t *a = json_array();
	for (unsigned i = 0; a && i < SB_HIST_NR; i++)
		if (h->bucket[i] && json_array_append_new(a, json_pack("[I,I]", (json_int_t)i,
								       (json_int_t)h->bucket[i]))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static bool setn(json_t *o, const char *key, json_t *v)
{
	return o && v && json_object_set_new(o, key, v) == 0;
}

/* A number of a series; -1 when it is not a non-negative number. */
static double ser_at(const json_t *a, size_t i)
{
	const json_t *v = json_array_get(a, i);
	return json_is_number(v) && json_number_value(v) >= 0 ? json_number_value(v) : -1;
}

/* How the pods' series line up: one plan for every direction of a job. */
struct plan {
	bool series;   /* every pod has one interval length */
	bool by_time;  /* every pod has its series' start */
	double iv;     /* the interval, s */
	int64_t t0;    /* the window's start (by_time), reference ns */
	size_t *first; /* [n]: each pod's first interval in the window */
};

/* A pod's series start corrected by its clock offset into *ns; 0, 1 absent, -EINVAL. */
static int pod_start(const json_t *job, const struct sb_merge_pod *pod, size_t p, int64_t *ns,
		     char *err, size_t errlen)
{
	const json_t *st =
		json_object_get(json_object_get(job, SB_RK_SB), SB_RK_SB_SERIES_START_NS);
	int64_t off = pod->clock_offset_ns;
	if (off <= -SB_MERGE_MAX_OFFSET_NS || off >= SB_MERGE_MAX_OFFSET_NS)
		return sb_errf(err, errlen, -EINVAL, "pod %zu: clock offset %lld ns: out of range",
			       p, (long long)off);
	if (!st)
		return 1;
	if (!json_is_integer(st) || json_integer_value(st) <= 0 ||
	    json_integer_value(st) >= SB_MERGE_MAX_START_NS)
		return sb_errf(err, errlen, -EINVAL, "pod %zu: %s.%s: not a time in ns", p,
			       SB_RK_SB, SB_RK_SB_SERIES_START_NS);
	*ns = (int64_t)json_integer_value(st) - off;
	return 0;
}

/*
 * The plan of jobs[0..n): their interval, and by time when every pod has
 * its start: the latest start t0, each pod's first interval (the one
 * nearest t0), its start and lateness into pods. 0 or -EINVAL.
 */
static int plan_of(const json_t *const *jobs, struct sb_merge_pod *pods, size_t n, struct plan *pl,
		   char *err, size_t errlen)
{
	int64_t *st = calloc(n, sizeof(*st)), earliest = 0;
	int ret = 0;
	if (!st)
		return -ENOMEM;
	pl->series = true;
	pl->by_time = true;
	pl->iv = -1;
	for (size_t p = 0; p < n; p++) {
		const json_t *ims =
			json_object_get(json_object_get(jobs[p], SB_RK_SB), SB_RK_SB_INTERVAL_MS);
		double iv = json_is_integer(ims) && json_integer_value(ims) > 0 &&
					    json_integer_value(ims) <= 3600000
				    ? (double)json_integer_value(ims) / 1000.0
				    : 1.0;
		if (pl->iv >= 0 && iv != pl->iv)
			pl->series = false; /* different intervals: no common seconds */
		pl->iv = iv;
		int r = pod_start(jobs[p], &pods[p], p, &st[p], err, errlen);
		if (r < 0) {
			ret = r;
			goto out;
		}
		if (r)
			pl->by_time = false;
	}
	for (size_t p = 0; pl->by_time && p < n; p++) {
		pl->t0 = !p || st[p] > pl->t0 ? st[p] : pl->t0;
		earliest = !p || st[p] < earliest ? st[p] : earliest;
	}
	int64_t iv_ns = (int64_t)llround(pl->iv * 1e9);
	for (size_t p = 0; p < n; p++) {
		pl->first[p] = pl->by_time ? (size_t)((pl->t0 - st[p] + iv_ns / 2) / iv_ns) : 0;
		pods[p].first = pl->first[p];
		pods[p].start_ns = pl->by_time ? st[p] : 0;
		pods[p].late_ms = pl->by_time ? (double)(st[p] - earliest) / 1e6 : 0;
		pods[p].late = pods[p].late_ms > SB_MERGE_LATE_MS;
	}
out:
	free(st);
	return ret;
}

/* The window of direction dir: W intervals every pod has from its first (0: none). */
static size_t window_of(const json_t *const *jobs, size_t n, enum sb_result_dir dir,
			const struct plan *pl)
{
	size_t w = SIZE_MAX;
	if (!pl->series)
		return 0;
	for (size_t p = 0; p < n; p++) {
		const json_t *d = sb_result_job_extra(jobs[p], dir);
		const json_t *is = json_object_get(d, SB_RK_SB_IOS_SERIES);
		const json_t *bs = json_object_get(d, SB_RK_SB_BYTES_SERIES);
		if (!json_is_array(is) || !json_is_array(bs))
			return 0;
		size_t len = json_array_size(is) < json_array_size(bs) ? json_array_size(is)
								       : json_array_size(bs);
		for (size_t i = 0; i < len; i++)
			if (ser_at(is, i) < 0 || ser_at(bs, i) < 0)
				return 0;
		if (len <= pl->first[p])
			return 0; /* ended before the latest pod started */
		if (len - pl->first[p] < w)
			w = len - pl->first[p];
	}
	return w == SIZE_MAX ? 0 : w;
}

/*
 * Sums series key of direction dir over each pod's W intervals from its
 * first into a new array (interval by interval) and each pod's total into
 * per_pod[p] (may be NULL); *total the sum of all.
 */
static json_t *series_sum(const json_t *const *jobs, size_t n, enum sb_result_dir dir,
			  const char *key, const struct plan *pl, size_t w, double *per_pod,
			  double *total)
{
	json_t *a = json_array();
	*total = 0;
	for (size_t p = 0; per_pod && p < n; p++)
		per_pod[p] = 0;
	for (size_t i = 0; a && i < w; i++) {
		double s = 0;
		for (size_t p = 0; p < n; p++) {
			double v = ser_at(json_object_get(sb_result_job_extra(jobs[p], dir), key),
					  pl->first[p] + i);
			s += v;
			if (per_pod)
				per_pod[p] += v;
		}
		*total += s;
		if (json_array_append_new(a, json_integer((json_int_t)llround(s)))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* Adds one interval's [gap, count, ...] to h; 0 or -EINVAL naming pod and field. */
static int hist_add_gaps(const json_t *a, struct sb_hist *h, size_t pod, const char *path, size_t i,
			 char *err, size_t errlen)
{
	size_t len = json_array_size(a);
	json_int_t b = 0;
	if (!json_is_array(a) || len % 2)
		return sb_errf(err, errlen, -EINVAL,
			       "pod %zu: %s[%zu]: not a list of [gap, count] numbers", pod, path,
			       i);
	for (size_t k = 0; k < len; k += 2) {
		const json_t *g = json_array_get(a, k), *c = json_array_get(a, k + 1);
		json_int_t gv = json_is_integer(g) ? json_integer_value(g) : -1;
		if (gv < (k ? 1 : 0) || gv >= (json_int_t)SB_HIST_NR || !json_is_integer(c) ||
		    json_integer_value(c) < 0 || b + gv >= (json_int_t)SB_HIST_NR)
			return sb_errf(err, errlen, -EINVAL,
				       "pod %zu: %s[%zu][%zu]: not a bucket gap and count", pod,
				       path, i, k);
		b += gv;
		h->bucket[b] += (uint64_t)json_integer_value(c);
		h->n += (uint64_t)json_integer_value(c);
	}
	return 0;
}

/* Whether every pod has per-interval latency for its W intervals of the window. */
static bool window_latency(const json_t *const *jobs, size_t n, enum sb_result_dir dir,
			   const struct plan *pl, size_t w)
{
	static const char *const keys[] = {SB_RK_SB_CLAT_HIST_SERIES, SB_RK_SB_CLAT_SUM_SERIES,
					   SB_RK_SB_LAT_SUM_SERIES};
	for (size_t p = 0; p < n; p++)
		for (size_t k = 0; k < 3; k++) {
			const json_t *a =
				json_object_get(sb_result_job_extra(jobs[p], dir), keys[k]);
			if (!json_is_array(a) || json_array_size(a) < pl->first[p] + w)
				return false;
		}
	return w > 0;
}

/* What merge_dir puts in a direction: counts, rates, latency. */
struct dir_fig {
	double ios, bytes, iops, bw, rt; /* rt: ms */
	bool window_lat;		 /* latency of the window (below), else of the runs */
	double clat_sum, lat_sum;
};

/*
 * The window's latency of direction dir: its histogram into h (emptied
 * first), the clat and lat sums into f. 0 or -EINVAL naming pod and field.
 */
static int window_lat_of(const json_t *const *jobs, size_t n, enum sb_result_dir dir,
			 const struct plan *pl, size_t w, struct sb_hist *h, struct dir_fig *f,
			 char *err, size_t errlen)
{
	char hp[64], cp[64], lp[64];
	const char *dn = sb_result_dir_keys[dir];
	snprintf(hp, sizeof(hp), "%s.%s.%s", SB_RK_SB, dn, SB_RK_SB_CLAT_HIST_SERIES);
	snprintf(cp, sizeof(cp), "%s.%s.%s", SB_RK_SB, dn, SB_RK_SB_CLAT_SUM_SERIES);
	snprintf(lp, sizeof(lp), "%s.%s.%s", SB_RK_SB, dn, SB_RK_SB_LAT_SUM_SERIES);
	memset(h, 0, sizeof(*h));
	f->clat_sum = f->lat_sum = 0;
	for (size_t p = 0; p < n; p++) {
		const json_t *x = sb_result_job_extra(jobs[p], dir);
		const json_t *hs = json_object_get(x, SB_RK_SB_CLAT_HIST_SERIES);
		const json_t *cs = json_object_get(x, SB_RK_SB_CLAT_SUM_SERIES);
		const json_t *ls = json_object_get(x, SB_RK_SB_LAT_SUM_SERIES);
		for (size_t i = pl->first[p]; i < pl->first[p] + w; i++) {
			double c = ser_at(cs, i), l = ser_at(ls, i);
			if (c < 0 || l < 0)
				return sb_errf(err, errlen, -EINVAL,
					       "pod %zu: %s[%zu]: not a sum in ns", p,
					       c < 0 ? cp : lp, i);
			f->clat_sum += c;
			f->lat_sum += l;
			int r = hist_add_gaps(json_array_get(hs, i), h, p, hp, i, err, errlen);
			if (r)
				return r;
		}
	}
	f->window_lat = true;
	return 0;
}

/*
 * The window of a read or write direction: counts and rates from the
 * series into f, each pod's into pods, the merged series into xd and
 * "seconds" into info; the window's latency when every pod has it (h then
 * holds the window's histogram). 0, -EINVAL, -ENOMEM.
 */
static int window_figs(const json_t *const *jobs, struct sb_merge_pod *pods, size_t n,
		       enum sb_result_dir dir, const struct plan *pl, json_t *xd, json_t *info,
		       struct dir_fig *f, struct sb_hist *h, char *err, size_t errlen)
{
	size_t w = window_of(jobs, n, dir, pl);
	int di = dir == SB_RDIR_READ ? 0 : 1, ret = -ENOMEM;
	double *pi = calloc(n, sizeof(*pi)), *pb = calloc(n, sizeof(*pb)), tios = 0, tbytes = 0;
	bool series = w > 0 && xd;
	if (!pi || !pb)
		goto out;
	if (series) {
		json_t *si = series_sum(jobs, n, dir, SB_RK_SB_IOS_SERIES, pl, w, pi, &tios);
		json_t *sbs = series_sum(jobs, n, dir, SB_RK_SB_BYTES_SERIES, pl, w, pb, &tbytes);
		bool ok1 = setn(xd, SB_RK_SB_IOS_SERIES, si);
		bool ok2 = setn(xd, SB_RK_SB_BYTES_SERIES, sbs);
		double secs = (double)w * pl->iv;
		if (!ok1 || !ok2 || !setn(info, "seconds", json_real(secs)))
			goto out;
		f->ios = tios;
		f->bytes = tbytes;
		f->iops = tios / secs;
		f->bw = tbytes / secs;
		f->rt = secs * 1000.0;
		for (size_t p = 0; p < n; p++) {
			pods[p].iops[di] = pi[p] / secs;
			pods[p].bw_bytes[di] = pb[p] / secs;
		}
		if (window_latency(jobs, n, dir, pl, w) &&
		    (ret = window_lat_of(jobs, n, dir, pl, w, h, f, err, errlen)))
			goto out;
	}
	ret = setn(info, "window", json_string(series ? "series" : "rates")) &&
			      setn(info, "latency", json_string(f->window_lat ? "window" : "run"))
		      ? 0
		      : -ENOMEM;
out:
	free(pi);
	free(pb);
	return ret;
}

/* Latency block (lat_ns, clat_ns) of the runs: I/O-weighted mean, N added, min/max over pods. */
static int merge_lat(json_t *dst, const struct sb_result_job *rj, size_t n, enum sb_result_dir d,
		     bool clat, const struct dir_fig *f)
{
	const char *dn = sb_result_dir_keys[d], *key = clat ? SB_RK_CLAT_NS : SB_RK_LAT_NS;
	double sum = 0, cnt = 0, mn = INFINITY, mx = 0;
	bool any = false;
	for (size_t p = 0; p < n; p++) {
		const struct sb_result_lat *l = clat ? &rj[p].dir[d].clat : &rj[p].dir[d].lat;
		if (!l->have)
			continue;
		double nn = l->have_n ? l->n : rj[p].dir[d].total_ios;
		if (nn > 0) {
			any = true;
			sum += l->mean * nn;
			cnt += nn;
			mn = l->min < mn ? l->min : mn;
			mx = l->max > mx ? l->max : mx;
		}
	}
	if (f->window_lat) { /* the window's count and sums */
		cnt = f->ios;
		sum = clat ? f->clat_sum : f->lat_sum;
	}
	json_t *l = json_object_get(json_object_get(dst, dn), key);
	if (!json_is_object(l))
		return 0;
	bool ok = setn(l, SB_RK_N, json_integer((json_int_t)llround(cnt))) &&
		  setn(l, SB_RK_MEAN, json_real(cnt > 0 ? sum / cnt : 0)) &&
		  setn(l, SB_RK_MIN, json_integer(any ? (json_int_t)mn : 0)) &&
		  setn(l, SB_RK_MAX, json_integer((json_int_t)mx));
	return ok ? 0 : -ENOMEM;
}

/* fio's percentile list of h into direction d's clat_ns.percentile. 0 or -ENOMEM. */
static int set_percentiles(json_t *d, const struct sb_hist *h)
{
	json_t *pc = json_object_get(json_object_get(d, SB_RK_CLAT_NS), SB_RK_PERCENTILE);
	if (!json_is_object(pc) || !h->n)
		return 0;
	uint64_t *pv = calloc(sb_hist_default_npercentiles, sizeof(*pv));
	if (!pv ||
	    sb_hist_percentiles(h, sb_hist_default_percentiles, sb_hist_default_npercentiles, pv)) {
		free(pv);
		return -ENOMEM;
	}
	json_object_clear(pc);
	int ret = 0;
	for (size_t k = 0; k < sb_hist_default_npercentiles && !ret; k++) {
		char key[32];
		snprintf(key, sizeof(key), "%f", sb_hist_default_percentiles[k]);
		if (!setn(pc, key, json_integer((json_int_t)pv[k])))
			ret = -ENOMEM;
	}
	free(pv);
	return ret;
}

/* The whole runs of direction dir: counts and rates summed into f, histograms added into h. */
static int run_figs(const json_t *const *jobs, const struct sb_result_job *rj,
		    struct sb_merge_pod *pods, size_t n, enum sb_result_dir dir, struct dir_fig *f,
		    struct sb_hist *h, bool *have_hist, char *err, size_t errlen)
{
	char hp[64];
	snprintf(hp, sizeof(hp), "%s.%s.%s", SB_RK_SB, sb_result_dir_keys[dir], SB_RK_SB_CLAT_HIST);
	*have_hist = true;
	for (size_t p = 0; p < n; p++) {
		const struct sb_result_dirv *pd = &rj[p].dir[dir];
		f->ios += pd->total_ios;
		f->bytes += pd->io_bytes;
		f->iops += pd->iops;
		f->bw += pd->bw_bytes;
		f->rt = pd->runtime > f->rt ? pd->runtime : f->rt;
		if (dir <= SB_RDIR_WRITE) {
			pods[p].iops[dir] = pd->iops;
			pods[p].bw_bytes[dir] = pd->bw_bytes;
		}
		const json_t *ph =
			json_object_get(sb_result_job_extra(jobs[p], dir), SB_RK_SB_CLAT_HIST);
		if (!ph)
			*have_hist = false;
		else if (hist_add_json(ph, h, p, hp, err, errlen))
			return -EINVAL;
	}
	return 0;
}

static int merge_dir(json_t *out, const json_t *const *jobs, const struct sb_result_job *rj,
		     struct sb_merge_pod *pods, size_t n, enum sb_result_dir dir,
		     const struct plan *pl, json_t *merge_info, char *err, size_t errlen)
{
	const char *dn = sb_result_dir_keys[dir];
	json_t *d = json_object_get(out, dn);
	json_t *xd = json_object_get(json_object_get(out, SB_RK_SB), dn);
	struct sb_hist *h = calloc(1, sizeof(*h));
	struct dir_fig f = {0};
	bool have_hist = true;
	int ret = -ENOMEM;

	if (!h)
		return -ENOMEM;
	if ((ret = run_figs(jobs, rj, pods, n, dir, &f, h, &have_hist, err, errlen)))
		goto out;
	ret = 0;
	if (!json_is_object(d))
		goto out;
	if (merge_info &&
	    (ret = window_figs(jobs, pods, n, dir, pl, xd, merge_info, &f, h, err, errlen)))
		goto out;
	ret = -ENOMEM;
	if (dir == SB_RDIR_SYNC) {
		if (!setn(d, SB_RK_TOTAL_IOS, json_integer((json_int_t)f.ios)))
			goto out;
	} else if (!setn(d, SB_RK_TOTAL_IOS, json_integer((json_int_t)llround(f.ios))) ||
		   !setn(d, SB_RK_IO_BYTES, json_integer((json_int_t)llround(f.bytes))) ||
		   !setn(d, SB_RK_IO_KBYTES, json_integer((json_int_t)(f.bytes / 1024))) ||
		   !setn(d, SB_RK_IOPS, json_real(f.iops)) ||
		   !setn(d, SB_RK_BW_BYTES, json_integer((json_int_t)llround(f.bw))) ||
		   !setn(d, SB_RK_BW, json_integer((json_int_t)llround(f.bw / 1024))) ||
		   !setn(d, SB_RK_RUNTIME, json_integer((json_int_t)llround(f.rt)))) {
		goto out;
	}
	if ((ret = merge_lat(out, rj, n, dir, false, &f)) ||
	    (ret = merge_lat(out, rj, n, dir, true, &f)))
		goto out;
	have_hist = have_hist || f.window_lat;
	ret = -ENOMEM;
	if (xd && have_hist && !setn(xd, SB_RK_SB_CLAT_HIST, hist_json(h)))
		goto out;
	ret = have_hist ? set_percentiles(d, h) : 0;
out:
	free(h);
	return ret;
}

/* Each pod's job through lib/result/resultdoc.h's reader into rj[]; 0 or -EINVAL naming the pod. */
static int parse_pods(const json_t *const *jobs, size_t n, struct sb_result_job *rj, char *err,
		      size_t errlen)
{
	for (size_t p = 0; p < n; p++) {
		char e[256];
		if (sb_result_job_parse(jobs[p], "", &rj[p], e, sizeof(e)))
			return sb_errf(err, errlen, -EINVAL, "pod %zu: %s", p, e);
		if (strcmp(rj[p].name, rj[0].name))
			return sb_errf(err, errlen, -EINVAL,
				       "pod %zu: %s: '%s', not '%s' as pod 0's", p, SB_RK_JOBNAME,
				       rj[p].name, rj[0].name);
		const json_t *sb = json_object_get(jobs[p], SB_RK_SB);
		if (sb && !json_is_object(sb))
			return sb_errf(err, errlen, -EINVAL, "pod %zu: %s: not an object", p,
				       SB_RK_SB);
	}
	return 0;
}

/* storagebench.merge's alignment, window start, late pods and members. 0 or -ENOMEM. */
static int plan_info(json_t *info, const struct plan *pl, const struct sb_merge_pod *pods, size_t n)
{
	json_t *late = json_array(), *members = pl->by_time ? json_array() : NULL;
	bool ok = late && (members || !pl->by_time) &&
		  setn(info, "alignment", json_string(pl->by_time ? "time" : "index")) &&
		  setn(info, "late_ms_bound", json_integer(SB_MERGE_LATE_MS));
	for (size_t p = 0; ok && p < n; p++) {
		if (pods[p].late)
			ok = json_array_append_new(late, json_integer((json_int_t)p)) == 0;
		if (ok && members)
			ok = json_array_append_new(members,
						   json_pack("{s:I,s:f,s:I}", "start_ns",
							     (json_int_t)pods[p].start_ns,
							     "late_ms", pods[p].late_ms, "first",
							     (json_int_t)pods[p].first)) == 0;
	}
	ok = ok && json_object_set(info, "late", late) == 0;
	if (ok && members)
		ok = setn(info, "start_ns", json_integer((json_int_t)pl->t0)) &&
		     json_object_set(info, "members", members) == 0;
	json_decref(late);
	json_decref(members);
	return ok ? 0 : -ENOMEM;
}

/* The merged job's storagebench extras: the window's start; no per-interval latency. */
static int tidy_extras(json_t *o, const struct plan *pl)
{
	static const char *const keys[] = {SB_RK_SB_CLAT_HIST_SERIES, SB_RK_SB_CLAT_SUM_SERIES,
					   SB_RK_SB_LAT_SUM_SERIES};
	json_t *sb = json_object_get(o, SB_RK_SB);
	if (!json_is_object(sb))
		return 0;
	for (int d = 0; d < SB_RDIR_COUNT; d++)
		for (size_t k = 0; k < 3; k++)
			json_object_del(json_object_get(sb, sb_result_dir_keys[d]), keys[k]);
	if (!pl->by_time)
		return 0;
	return setn(sb, SB_RK_SB_SERIES_START_NS, json_integer((json_int_t)pl->t0)) ? 0 : -ENOMEM;
}

int sb_merge_pods(const json_t *const *jobs, struct sb_merge_pod *pods_io, size_t n, json_t **out,
		  char *err, size_t errlen)
{
	static const enum sb_result_dir dirs[] = {SB_RDIR_READ, SB_RDIR_WRITE, SB_RDIR_SYNC};
	json_t *o = NULL, *info = NULL;
	struct sb_result_job *rj = NULL;
	struct sb_merge_pod *own = NULL, *pods = pods_io;
	struct plan pl = {0};
	int ret;

	*out = NULL;
	if (!n)
		return sb_errf(err, errlen, -EINVAL, "no results to merge");
	rj = calloc(n, sizeof(*rj));
	pl.first = calloc(n, sizeof(*pl.first));
	if (!pods)
		pods = own = calloc(n, sizeof(*own));
	if (!rj || !pl.first || !pods) {
		ret = -ENOMEM;
		goto fail;
	}
	if ((ret = parse_pods(jobs, n, rj, err, errlen)) ||
	    (ret = plan_of(jobs, pods, n, &pl, err, errlen)))
		goto fail;
	o = json_deep_copy(jobs[0]);
	info = json_pack("{s:I}", "pods", (json_int_t)n);
	ret = -ENOMEM;
	if (!o || !info || plan_info(info, &pl, pods, n) || tidy_extras(o, &pl))
		goto fail;
	for (size_t i = 0; i < 3; i++) {
		json_t *di = i < 2 ? json_object() : NULL;
		if (i < 2 && !setn(info, sb_result_dir_keys[dirs[i]], di)) {
			ret = -ENOMEM;
			goto fail;
		}
		ret = merge_dir(o, jobs, rj, pods, n, dirs[i], &pl, di, err, errlen);
		if (ret)
			goto fail;
	}
	json_t *sb = json_object_get(o, SB_RK_SB);
	if (sb && json_object_set(sb, SB_RK_SB_MERGE, info)) {
		ret = -ENOMEM;
		goto fail;
	}
	json_decref(info);
	free(rj);
	free(pl.first);
	free(own);
	*out = o;
	return 0;
fail:
	free(rj);
	free(pl.first);
	free(own);
	json_decref(o);
	json_decref(info);
	return ret;
}

int sb_merge_jobs(const json_t *const *jobs, size_t n, json_t **out, char *err, size_t errlen)
{
	return sb_merge_pods(jobs, NULL, n, out, err, errlen);
}
