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

void sb_job_result_free(struct sb_job_result *r)
{
	if (!r)
		return;
	for (int d = 0; d < SB_NDDIR; d++) {
		free(r->dir[d].series.ios);
		free(r->dir[d].series.bytes);
	}
	free(r);
}

static int series_reserve(struct sb_series *s, size_t n)
{
	if (n <= s->cap)
		return 0;
	size_t cap = s->cap ? s->cap : 16;
	while (cap < n)
		cap *= 2;
	uint64_t *a = realloc(s->ios, cap * sizeof(*a));
	if (!a)
		return -ENOMEM;
	s->ios = a;
	uint64_t *b = realloc(s->bytes, cap * sizeof(*b));
	if (!b)
		return -ENOMEM;
	s->bytes = b;
	s->cap = cap;
	return 0;
}

int sb_series_push(struct sb_series *s, uint64_t ios, uint64_t bytes)
{
	if (series_reserve(s, s->n + 1))
		return -ENOMEM;
	s->ios[s->n] = ios;
	s->bytes[s->n] = bytes;
	s->n++;
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
	size_t n = b->series.n;
	if (a->series.n == 0 && n) {
		if (series_reserve(&a->series, n))
			return -ENOMEM;
		memcpy(a->series.ios, b->series.ios, n * sizeof(uint64_t));
		memcpy(a->series.bytes, b->series.bytes, n * sizeof(uint64_t));
		a->series.n = n;
	} else {
		if (n < a->series.n)
			a->series.n = n;
		for (size_t i = 0; i < a->series.n; i++) {
			a->series.ios[i] += b->series.ios[i];
			a->series.bytes[i] += b->series.bytes[i];
		}
	}
	return 0;
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
