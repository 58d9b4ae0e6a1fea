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

/* Sums the series key of direction dn over the pods' first w entries into a new array. */
static json_t *series_sum(const json_t *const *jobs, size_t n, enum sb_result_dir d,
			  const char *key, size_t w, double *total)
{
	json_t *a = json_array();
	*total = 0;
	for (size_t i = 0; a && i < w; i++) {
		double s = 0;
		for (size_t p = 0; p < n; p++)
			s += json_number_value(json_array_get(
				json_object_get(sb_result_job_extra(jobs[p], d), key), i));
		*total += s;
		if (json_array_append_new(a, json_integer((json_int_t)llround(s)))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* The common window: the shortest series of every pod (0 when a pod has none). */
static size_t window_of(const json_t *const *jobs, size_t n, enum sb_result_dir dir,
			double *interval_s)
{
	size_t w = SIZE_MAX;
	double iv = -1;
	for (size_t p = 0; p < n; p++) {
		const json_t *sb = json_object_get(jobs[p], SB_RK_SB);
		const json_t *d = sb_result_job_extra(jobs[p], dir);
		const json_t *is = json_object_get(d, SB_RK_SB_IOS_SERIES);
		const json_t *bs = json_object_get(d, SB_RK_SB_BYTES_SERIES);
		const json_t *ims = json_object_get(sb, SB_RK_SB_INTERVAL_MS);
		double this_iv = json_is_integer(ims) && json_integer_value(ims) > 0
					 ? (double)json_integer_value(ims) / 1000.0
					 : 1.0;
		if (!json_is_array(is) || !json_is_array(bs))
			return 0;
		if (iv >= 0 && this_iv != iv)
			return 0; /* different intervals: no common seconds */
		iv = this_iv;
		size_t len = json_array_size(is) < json_array_size(bs) ? json_array_size(is)
								       : json_array_size(bs);
		for (size_t i = 0; i < len; i++)
			if (!json_is_number(json_array_get(is, i)) ||
			    !json_is_number(json_array_get(bs, i)))
				return 0;
		if (len < w)
			w = len;
	}
	*interval_s = iv > 0 ? iv : 1.0;
	return w == SIZE_MAX ? 0 : w;
}

/* Latency block (lat_ns, clat_ns): I/O-weighted mean, N added, min/max over pods. */
static int merge_lat(json_t *dst, const struct sb_result_job *rj, size_t n, enum sb_result_dir d,
		     bool clat)
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
	json_t *l = json_object_get(json_object_get(dst, dn), key);
	if (!json_is_object(l))
		return 0;
	bool ok = setn(l, SB_RK_N, json_integer((json_int_t)cnt)) &&
		  setn(l, SB_RK_MEAN, json_real(cnt > 0 ? sum / cnt : 0)) &&
		  setn(l, SB_RK_MIN, json_integer(any ? (json_int_t)mn : 0)) &&
		  setn(l, SB_RK_MAX, json_integer((json_int_t)mx));
	return ok ? 0 : -ENOMEM;
}

static int merge_dir(json_t *out, const json_t *const *jobs, const struct sb_result_job *rj,
		     size_t n, enum sb_result_dir dir, bool rates, json_t *merge_info, char *err,
		     size_t errlen)
{
	const char *dn = sb_result_dir_keys[dir];
	json_t *d = json_object_get(out, dn);
	json_t *xd = json_object_get(json_object_get(out, SB_RK_SB), dn);
	struct sb_hist *h = calloc(1, sizeof(*h));
	double ios = 0, bytes = 0, iops = 0, bw = 0, rt = 0;
	bool have_hist = true;
	int ret = -ENOMEM;
	char hp[64];

	if (!h)
		return -ENOMEM;
	snprintf(hp, sizeof(hp), "%s.%s.%s", SB_RK_SB, dn, SB_RK_SB_CLAT_HIST);
	for (size_t p = 0; p < n; p++) {
		const struct sb_result_dirv *pd = &rj[p].dir[dir];
		ios += pd->total_ios;
		bytes += pd->io_bytes;
		iops += pd->iops;
		bw += pd->bw_bytes;
		rt = pd->runtime > rt ? pd->runtime : rt;
		const json_t *ph =
			json_object_get(sb_result_job_extra(jobs[p], dir), SB_RK_SB_CLAT_HIST);
		if (!ph)
			have_hist = false;
		else if (hist_add_json(ph, h, p, hp, err, errlen))
			goto inval;
	}
	if (!json_is_object(d)) {
		ret = 0;
		goto out;
	}
	bool series = false;
	if (rates) {
		double iv = 1, tios = 0, tbytes = 0;
		size_t w = window_of(jobs, n, dir, &iv);
		if (w > 0 && xd) {
			json_t *si = series_sum(jobs, n, dir, SB_RK_SB_IOS_SERIES, w, &tios);
			json_t *sbs = series_sum(jobs, n, dir, SB_RK_SB_BYTES_SERIES, w, &tbytes);
			bool ok1 = setn(xd, SB_RK_SB_IOS_SERIES, si);
			bool ok2 = setn(xd, SB_RK_SB_BYTES_SERIES, sbs);
			if (!ok1 || !ok2)
				goto out;
			iops = tios / ((double)w * iv);
			bw = tbytes / ((double)w * iv);
			rt = (double)w * iv * 1000.0;
			series = true;
			if (!setn(merge_info, "seconds", json_real((double)w * iv)))
				goto out;
		}
		if (!setn(merge_info, "window", json_string(series ? "series" : "rates")))
			goto out;
	}
	if (dir == SB_RDIR_SYNC) {
		if (!setn(d, SB_RK_TOTAL_IOS, json_integer((json_int_t)ios)))
			goto out;
	} else if (!setn(d, SB_RK_TOTAL_IOS, json_integer((json_int_t)ios)) ||
		   !setn(d, SB_RK_IO_BYTES, json_integer((json_int_t)bytes)) ||
		   !setn(d, SB_RK_IO_KBYTES, json_integer((json_int_t)(bytes / 1024))) ||
		   !setn(d, SB_RK_IOPS, json_real(iops)) ||
		   !setn(d, SB_RK_BW_BYTES, json_integer((json_int_t)llround(bw))) ||
		   !setn(d, SB_RK_BW, json_integer((json_int_t)llround(bw / 1024))) ||
		   !setn(d, SB_RK_RUNTIME, json_integer((json_int_t)llround(rt)))) {
		goto out;
	}
	if ((ret = merge_lat(out, rj, n, dir, false)) || (ret = merge_lat(out, rj, n, dir, true)))
		goto out;
	ret = -ENOMEM;
	if (xd && have_hist && !setn(xd, SB_RK_SB_CLAT_HIST, hist_json(h)))
		goto out;
	/* fio's percentile list of the merged histogram */
	json_t *pc = json_object_get(json_object_get(d, SB_RK_CLAT_NS), SB_RK_PERCENTILE);
	if (json_is_object(pc) && have_hist && h->n) {
		uint64_t *pv = calloc(sb_hist_default_npercentiles, sizeof(*pv));
		if (!pv || sb_hist_percentiles(h, sb_hist_default_percentiles,
					       sb_hist_default_npercentiles, pv)) {
			free(pv);
			goto out;
		}
		json_object_clear(pc);
		for (size_t k = 0; k < sb_hist_default_npercentiles; k++) {
			char key[32];
			snprintf(key, sizeof(key), "%f", sb_hist_default_percentiles[k]);
			if (!setn(pc, key, json_integer((json_int_t)pv[k]))) {
				free(pv);
				goto out;
			}
		}
		free(pv);
	}
	ret = 0;
	goto out;
inval:
	ret = -EINVAL;
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

int sb_merge_jobs(const json_t *const *jobs, size_t n, json_t **out, char *err, size_t errlen)
{
	static const enum sb_result_dir dirs[] = {SB_RDIR_READ, SB_RDIR_WRITE, SB_RDIR_SYNC};
	json_t *o = NULL, *info = NULL;
	struct sb_result_job *rj = NULL;
	int ret;

	*out = NULL;
	if (!n)
		return sb_errf(err, errlen, -EINVAL, "no results to merge");
	if (!(rj = calloc(n, sizeof(*rj))))
		return -ENOMEM;
	if ((ret = parse_pods(jobs, n, rj, err, errlen)))
		goto fail;
	o = json_deep_copy(jobs[0]);
	info = json_pack("{s:I}", "pods", (json_int_t)n);
	if (!o || !info) {
		ret = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < 3; i++) {
		json_t *di = i < 2 ? json_object() : NULL;
		if (i < 2 && !setn(info, sb_result_dir_keys[dirs[i]], di)) {
			ret = -ENOMEM;
			goto fail;
		}
		ret = merge_dir(o, jobs, rj, n, dirs[i], i < 2, di, err, errlen);
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
	*out = o;
	return 0;
fail:
	free(rj);
	json_decref(o);
	json_decref(info);
	return ret;
}
