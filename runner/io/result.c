/* SPDX-License-Identifier: MIT */
#include "runner/io/result.h"
#include "stats/fiotime.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct sb_job_result *sb_job_result_new(void)
{
	return calloc(1, sizeof(struct sb_job_result));
}

void sb_series_release(struct sb_series *s)
{
	free(s->ios);
	free(s->bytes);
	free(s->clat_sum);
	free(s->lat_sum);
	free(s->hoff);
	free(s->hb);
	memset(s, 0, sizeof(*s));
}

void sb_job_result_free(struct sb_job_result *r)
{
	if (!r)
		return;
	for (int d = 0; d < SB_NDDIR; d++)
		sb_series_release(&r->dir[d].series);
	free(r);
}

/* Grows *p (of elem-sized entries) to hold n; 0 or -ENOMEM (*p unchanged). */
static int grow(void **p, size_t elem, size_t n)
{
	if (n > SIZE_MAX / elem)
		return -ENOMEM;
	void *a = realloc(*p, n * elem);
	if (!a)
		return -ENOMEM;
	*p = a;
	return 0;
}

static int series_reserve(struct sb_series *s, size_t n)
{
	if (n <= s->cap)
		return 0;
	size_t cap = s->cap ? s->cap : 16;
	while (cap < n)
		cap *= 2;
	if (grow((void **)&s->ios, sizeof(uint64_t), cap) ||
	    grow((void **)&s->bytes, sizeof(uint64_t), cap) ||
	    grow((void **)&s->clat_sum, sizeof(uint64_t), cap) ||
	    grow((void **)&s->lat_sum, sizeof(uint64_t), cap) ||
	    grow((void **)&s->hoff, sizeof(size_t), cap + 1))
		return -ENOMEM;
	s->cap = cap;
	return 0;
}

/* Room for n pairs; 0, 1 beyond SB_SERIES_MAX_PAIRS, -ENOMEM. */
static int pairs_reserve(struct sb_series *s, size_t n)
{
	if (n > SB_SERIES_MAX_PAIRS)
		return 1;
	if (n <= s->hcap)
		return 0;
	size_t cap = s->hcap ? s->hcap : 256;
	while (cap < n)
		cap *= 2;
	if (cap > SB_SERIES_MAX_PAIRS)
		cap = SB_SERIES_MAX_PAIRS;
	if (grow((void **)&s->hb, sizeof(uint64_t), cap))
		return -ENOMEM;
	s->hcap = cap;
	return 0;
}

int sb_series_push(struct sb_series *s, const struct sb_interval *iv)
{
	if (series_reserve(s, s->n + 1))
		return -ENOMEM;
	if (!s->n)
		s->hoff[0] = 0;
	if (iv->hist && s->nhist == s->n) {
		size_t k = 0;
		for (unsigned b = 0; b < SB_HIST_NR; b++)
			k += iv->hist->bucket[b] != 0;
		int r = pairs_reserve(s, s->hn + k);
		if (r < 0)
			return r;
		for (unsigned b = 0; !r && b < SB_HIST_NR; b++)
			if (iv->hist->bucket[b])
				s->hb[s->hn++] = SB_SERIES_PAIR(b, iv->hist->bucket[b]);
		if (!r)
			s->nhist++;
	}
	s->ios[s->n] = iv->ios;
	s->bytes[s->n] = iv->bytes;
	s->clat_sum[s->n] = iv->clat_sum;
	s->lat_sum[s->n] = iv->lat_sum;
	s->n++;
	s->hoff[s->n] = s->hn;
	return 0;
}

/* Interval i of a's and b's histograms added bucket by bucket, appended to out. */
static void pairs_add(const struct sb_series *a, const struct sb_series *b, size_t i,
		      struct sb_series *out)
{
	size_t x = a->hoff[i], xe = a->hoff[i + 1], y = b->hoff[i], ye = b->hoff[i + 1];
	if (!out->hb) /* reserved for every pair: none to add */
		return;
	while (x < xe || y < ye) {
		unsigned bx = x < xe ? SB_SERIES_PAIR_BUCKET(a->hb[x]) : SB_HIST_NR;
		unsigned by = y < ye ? SB_SERIES_PAIR_BUCKET(b->hb[y]) : SB_HIST_NR;
		unsigned bk = bx < by ? bx : by;
		uint64_t c = 0;
		if (bx == bk)
			c += SB_SERIES_PAIR_COUNT(a->hb[x++]);
		if (by == bk)
			c += SB_SERIES_PAIR_COUNT(b->hb[y++]);
		out->hb[out->hn++] = SB_SERIES_PAIR(bk, c);
	}
}

/*
 * a += b interval by interval over their common prefix (b's whole series
 * when a is empty): counts, sums, and the histograms of the intervals both
 * have one for. 0 or -ENOMEM (a unchanged).
 */
static int series_merge(struct sb_series *a, const struct sb_series *b)
{
	bool fresh = a->n == 0;
	size_t n = fresh ? b->n : (b->n < a->n ? b->n : a->n);
	struct sb_series m = {0};
	if (!n) {
		sb_series_release(a);
		return 0;
	}
	size_t nh = fresh ? b->nhist : (a->nhist < b->nhist ? a->nhist : b->nhist);
	nh = nh < n ? nh : n;
	size_t pairs = (fresh ? 0 : a->hoff[nh]) + b->hoff[nh];
	/* at least one slot: hb is never NULL where intervals are merged */
	if (series_reserve(&m, n) || grow((void **)&m.hb, sizeof(uint64_t), pairs ? pairs : 1)) {
		sb_series_release(&m);
		return -ENOMEM;
	}
	m.hcap = pairs ? pairs : 1;
	m.hoff[0] = 0;
	for (size_t i = 0; i < n; i++) {
		m.ios[i] = b->ios[i] + (fresh ? 0 : a->ios[i]);
		m.bytes[i] = b->bytes[i] + (fresh ? 0 : a->bytes[i]);
		m.clat_sum[i] = b->clat_sum[i] + (fresh ? 0 : a->clat_sum[i]);
		m.lat_sum[i] = b->lat_sum[i] + (fresh ? 0 : a->lat_sum[i]);
		size_t k = i < nh ? b->hoff[i + 1] - b->hoff[i] : 0;
		if (fresh && k && m.hb) { /* m.hb is NULL only when no interval has pairs */
			memcpy(m.hb + m.hn, b->hb + b->hoff[i], k * sizeof(uint64_t));
			m.hn += k;
		} else if (!fresh && i < nh) {
			pairs_add(a, b, i, &m);
		}
		m.hoff[i + 1] = m.hn;
	}
	m.n = n;
	m.nhist = nh;
	sb_series_release(a);
	*a = m;
	return 0;
}

int sb_dir_result_merge(struct sb_dir_result *a, const struct sb_dir_result *b)
{
	a->ios += b->ios;
	a->bytes += b->bytes;
	a->short_ios += b->short_ios;
	a->errors += b->errors;
	sb_stat_merge(&a->slat, &b->slat);
	sb_stat_merge(&a->clat, &b->clat);
	sb_stat_merge(&a->lat, &b->lat);
	sb_hist_merge(&a->clat_hist, &b->clat_hist);
	sb_hist_merge(&a->lat_hist, &b->lat_hist);
	sb_stat_merge(&a->bw_samples, &b->bw_samples);
	sb_stat_merge(&a->iops_samples, &b->iops_samples);
	/* series: element-wise sum over the common prefix */
	return series_merge(&a->series, &b->series);
}

int sb_job_result_merge(struct sb_job_result *dst, const struct sb_job_result *src)
{
	bool first = dst->njobs == 0;

	for (int d = 0; d < SB_NDDIR; d++)
		if (sb_dir_result_merge(&dst->dir[d], &src->dir[d]))
			return -ENOMEM;
	if (first) {
		memcpy(dst->name, src->name, sizeof(dst->name));
		dst->groupid = src->groupid;
		dst->job = src->job;
		dst->interval_us = src->interval_us;
		dst->series_start_ns = src->series_start_ns;
		memcpy(dst->engine_asked, src->engine_asked, sizeof(dst->engine_asked));
		memcpy(dst->engine_ran, src->engine_ran, sizeof(dst->engine_ran));
		memcpy(dst->engine_reason, src->engine_reason, sizeof(dst->engine_reason));
		dst->iodepth_effective = src->iodepth_effective;
		dst->ss = src->ss;
	} else if (src->ss.state) {
		/* a group is steady when every clone is; it took the longest one's time */
		dst->ss.attained = dst->ss.attained && src->ss.attained;
		if (src->ss.attained_ms > dst->ss.attained_ms)
			dst->ss.attained_ms = src->ss.attained_ms;
		if (!dst->ss.attained)
			dst->ss.attained_ms = 0;
	}
	if (src->series_start_ns && src->series_start_ns < dst->series_start_ns)
		dst->series_start_ns =
			src->series_start_ns; /* clones start at one gate: us apart */
	dst->njobs += src->njobs ? src->njobs : 1;
	if (src->runtime_us > dst->runtime_us)
		dst->runtime_us = src->runtime_us;
	for (int d = 0; d < 3; d++)
		if (src->dir_runtime_us[d] > dst->dir_runtime_us[d])
			dst->dir_runtime_us[d] = src->dir_runtime_us[d];
	dst->total_runtime_us += src->total_runtime_us;
	dst->usr_s += src->usr_s;
	dst->sys_s += src->sys_s;
	dst->ctx += src->ctx;
	dst->majf += src->majf;
	dst->minf += src->minf;
	if (!dst->error && src->error) {
		dst->error = src->error;
		memcpy(dst->errmsg, src->errmsg, sizeof(dst->errmsg));
	}
	dst->enospc += src->enospc;
	dst->eio += src->eio;
	dst->datasyncs += src->datasyncs;
	dst->verify_checked += src->verify_checked;
	dst->verify_errors += src->verify_errors;
	for (unsigned i = 0; i < src->nbad && dst->nbad < SB_MAX_BAD_OFFSETS; i++)
		dst->bad_offsets[dst->nbad++] = src->bad_offsets[i];
	return 0;
}

/* fio's rule (lib/stats/fiotime.h): whole milliseconds rounded up, at least 1 after I/O. */
uint64_t sb_runtime_ms(const struct sb_job_result *r)
{
	uint64_t ios = 0;
	for (int d = 0; d < SB_NDDIR; d++)
		ios += r->dir[d].ios;
	return sb_fio_runtime_ms(r->runtime_us, ios);
}

uint64_t sb_dir_runtime_ms(const struct sb_job_result *r, enum sb_ddir d)
{
	if (d < 2 && r->dir_runtime_us[d])
		return sb_fio_runtime_ms(r->dir_runtime_us[d], r->dir[d].ios);
	return sb_fio_runtime_ms(r->runtime_us, r->dir[d].ios);
}

/* As fio: bytes and ios over the runtime in whole milliseconds. */
double sb_dir_iops(const struct sb_job_result *r, enum sb_ddir d)
{
	return sb_fio_rate((double)r->dir[d].ios, sb_dir_runtime_ms(r, d));
}

uint64_t sb_dir_bw_bytes(const struct sb_job_result *r, enum sb_ddir d)
{
	return (uint64_t)sb_fio_rate((double)r->dir[d].bytes, sb_dir_runtime_ms(r, d));
}
