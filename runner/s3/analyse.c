/* SPDX-License-Identifier: MIT */
/*
 * warp's analysis of a run, written here from warp's description of it
 * (its README "Analysis" and "Automatic Termination"): every request is
 * kept with its start and end; the analysed span starts when every worker
 * has finished its first request and ends when the first worker starts its
 * last one; a request's bytes and objects are spread over the time it
 * spans, in proportion; the span is cut into segments of one interval
 * (warp's --analyze.dur, 1 s) and ranked for the fastest, median and
 * slowest. A failed request adds nothing.
 */
#include "runner/s3/s3.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int sb_s3_oplog_add(struct sb_s3_oplog *l, const struct sb_s3_oprec *r)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		struct sb_s3_oprec *v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *r;
	return 0;
}

int sb_s3_oplog_append(struct sb_s3_oplog *dst, const struct sb_s3_oplog *src)
{
	if (!src->n)
		return 0;
	if (dst->n + src->n > dst->cap) {
		size_t cap = dst->n + src->n;
		struct sb_s3_oprec *v = realloc(dst->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		dst->v = v;
		dst->cap = cap;
	}
	memcpy(dst->v + dst->n, src->v, src->n * sizeof(*src->v));
	dst->n += src->n;
	return 0;
}

void sb_s3_oplog_release(struct sb_s3_oplog *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void sb_s3_analysis_release(struct sb_s3_analysis *a)
{
	free(a->seg);
	memset(a, 0, sizeof(*a));
}

/* x * num / den, rounded down, without overflow (num <= den) */
static uint64_t part_of(uint64_t x, uint64_t num, uint64_t den)
{
	return (uint64_t)((unsigned __int128)x * num / den);
}

/*
 * Adds what request op moved in [a, b) to out: all of it when it started
 * and ended inside, the share of its duration inside when it overlaps.
 */
static void add_share(const struct sb_s3_oprec *op, uint64_t a, uint64_t b,
		      struct sb_s3_segment *out)
{
	if (!op->ok || op->end_ns < a || op->start_ns >= b)
		return;
	bool started = op->start_ns >= a, ended = op->end_ns < b;
	if (started && ended) {
		out->bytes += op->bytes;
		out->objects += op->objects;
		return;
	}
	uint64_t from = started ? op->start_ns : a, to = ended ? op->end_ns : b;
	uint64_t dur = op->end_ns - op->start_ns; /* > 0: it crosses a bound */
	out->bytes += part_of(op->bytes, to - from, dur);
	out->objects += (double)op->objects * (double)(to - from) / (double)dur;
}

/* What the successful requests moved in [a, b). */
static void aggregate(const struct sb_s3_oprec *ops, size_t n, uint64_t a, uint64_t b,
		      struct sb_s3_segment *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		add_share(&ops[i], a, b, out);
}

/*
 * The same into seg[0..ns), segment k being [from + k seg_ns, from + (k+1)
 * seg_ns), in one pass: each request only visits the segments it touches.
 */
static void aggregate_segments(const struct sb_s3_oprec *ops, size_t n, uint64_t from,
			       uint64_t seg_ns, size_t ns, struct sb_s3_segment *seg)
{
	memset(seg, 0, ns * sizeof(*seg));
	for (size_t i = 0; i < n; i++) {
		const struct sb_s3_oprec *op = &ops[i];
		if (!op->ok || op->end_ns < from)
			continue;
		uint64_t lo = op->start_ns > from ? (op->start_ns - from) / seg_ns : 0;
		uint64_t hi = (op->end_ns - from) / seg_ns;
		for (uint64_t k = lo; k <= hi && k < ns; k++)
			add_share(op, from + k * seg_ns, from + (k + 1) * seg_ns, &seg[k]);
	}
}

int sb_s3_active_span(const struct sb_s3_oprec *ops, size_t n, uint64_t *from, uint64_t *to)
{
	unsigned nw = 0;
	for (size_t i = 0; i < n; i++)
		if (ops[i].worker + 1u > nw)
			nw = ops[i].worker + 1u;
	*from = *to = 0;
	if (!nw)
		return 0;
	/* per worker: when its first request ended, when its last one started */
	uint64_t *first_end = malloc(nw * sizeof(*first_end));
	uint64_t *last_start = calloc(nw, sizeof(*last_start));
	if (!first_end || !last_start) {
		free(first_end);
		free(last_start);
		return -ENOMEM;
	}
	for (unsigned w = 0; w < nw; w++)
		first_end[w] = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		const struct sb_s3_oprec *op = &ops[i];
		if (op->end_ns < first_end[op->worker])
			first_end[op->worker] = op->end_ns;
		if (op->start_ns > last_start[op->worker])
			last_start[op->worker] = op->start_ns;
	}
	uint64_t f = 0, t = UINT64_MAX;
	for (unsigned w = 0; w < nw; w++) {
		if (first_end[w] == UINT64_MAX)
			continue; /* a worker without such requests */
		if (first_end[w] > f)
			f = first_end[w];
		if (last_start[w] < t)
			t = last_start[w];
	}
	free(first_end);
	free(last_start);
	if (f >= t)
		return 0;
	*from = f;
	*to = t;
	return 1;
}

/* Segment i (of seg_ns) of the span from `from` whose end is before `to`: warp's cut. */
static size_t count_segments(uint64_t from, uint64_t to, uint64_t seg_ns)
{
	size_t k = 0;
	while (seg_ns && from + (k + 1) * seg_ns < to)
		k++;
	return k;
}

/* A segment in the ranking: its key (bytes when the operation moves data, else objects). */
struct ranked {
	double key;
	size_t idx;
};

/* slowest first; ties in time order */
static int cmp_ranked(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* The whole range, first start to last end (when no span had every worker active). */
static void whole_range(const struct sb_s3_oprec *ops, size_t n, uint64_t *from, uint64_t *to)
{
	*from = UINT64_MAX;
	*to = 0;
	for (size_t i = 0; i < n; i++) {
		if (ops[i].start_ns < *from)
			*from = ops[i].start_ns;
		if (ops[i].end_ns > *to)
			*to = ops[i].end_ns;
	}
	if (*to <= *from)
		*from = *to = 0;
}

int sb_s3_analyse(const struct sb_s3_oprec *ops, size_t n, uint64_t seg_ns,
		  struct sb_s3_analysis *a)
{
	memset(a, 0, sizeof(*a));
	a->seg_ns = seg_ns;
	int r = sb_s3_active_span(ops, n, &a->from_ns, &a->to_ns);
	if (r < 0)
		return r;
	a->active = r == 1;
	if (!a->active)
		whole_range(ops, n, &a->from_ns, &a->to_ns);
	if (a->to_ns <= a->from_ns)
		return 0;
	struct sb_s3_segment total;
	aggregate(ops, n, a->from_ns, a->to_ns, &total);
	a->bytes = total.bytes;
	a->objects = total.objects;
	size_t ns = count_segments(a->from_ns, a->to_ns, seg_ns);
	if (!ns)
		return 0;
	a->seg = calloc(ns, sizeof(*a->seg));
	struct ranked *idx = malloc(ns * sizeof(*idx));
	if (!a->seg || !idx) {
		free(idx);
		sb_s3_analysis_release(a);
		return -ENOMEM;
	}
	a->nseg = ns;
	bool moved = false;
	for (size_t i = 0; i < n && !moved; i++)
		moved = ops[i].ok && ops[i].bytes > 0;
	aggregate_segments(ops, n, a->from_ns, seg_ns, ns, a->seg);
	for (size_t k = 0; k < ns; k++)
		idx[k] = (struct ranked){moved ? (double)a->seg[k].bytes : a->seg[k].objects, k};
	qsort(idx, ns, sizeof(*idx), cmp_ranked);
	/* warp's median: the element at round(n / 2) of the ranking, slowest first */
	size_t m = (ns + 1) / 2;
	a->slowest = idx[0].idx;
	a->median = idx[m < ns ? m : ns - 1].idx;
	a->fastest = idx[ns - 1].idx;
	a->by_bytes = moved;
	free(idx);
	return 0;
}

bool sb_s3_autoterm_stable(const struct sb_s3_oprec *ops, size_t n, uint64_t min_ns, double pct,
			   double *rate, bool *by_bytes)
{
	uint64_t from, to;
	if (sb_s3_active_span(ops, n, &from, &to) != 1)
		return false;
	/* enough time that the last SB_S3_AUTOTERM_CHECK of SB_S3_AUTOTERM_SPLIT
	 * segments last min_ns */
	if ((unsigned __int128)(to - from) * SB_S3_AUTOTERM_CHECK <=
	    (unsigned __int128)min_ns * SB_S3_AUTOTERM_SPLIT)
		return false;
	uint64_t d = (to - from) / SB_S3_AUTOTERM_SPLIT;
	size_t ns = count_segments(from, to, d);
	if (ns < SB_S3_AUTOTERM_CHECK)
		return false;
	struct sb_s3_segment last;
	aggregate(ops, n, from + (ns - 1) * d, from + ns * d, &last);
	bool bytes = last.bytes > 0;
	double base = bytes ? (double)last.bytes : last.objects;
	if (!(base > 0))
		return false; /* nothing moves: not a throughput to hold */
	for (size_t k = ns - SB_S3_AUTOTERM_CHECK; k < ns - 1; k++) {
		struct sb_s3_segment s;
		aggregate(ops, n, from + k * d, from + (k + 1) * d, &s);
		double v = bytes ? (double)s.bytes : s.objects;
		double diff = v > base ? v - base : base - v;
		if (diff > pct / 100.0 * base)
			return false;
	}
	*rate = base * 1e9 / (double)d;
	*by_bytes = bytes;
	return true;
}
