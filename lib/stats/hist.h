/* SPDX-License-Identifier: MIT */
/*
 * Latency histogram with fio's bucket layout, so percentiles agree with fio
 * and histograms from jobs, iterations and pods merge by adding buckets.
 *
 * Log-linear: values below 2^(SB_HIST_BITS+1) get one bucket each; above,
 * each power of two is split into 2^SB_HIST_BITS equal buckets, so a
 * bucket's midpoint is within 1/128 of any value in it. Fixed memory
 * (SB_HIST_NR counters), O(1) insertion with one count-leading-zeros.
 * Values are nanoseconds; anything beyond the last group (~34 s) lands in
 * the last bucket.
 */
#ifndef SB_LIB_STATS_HIST_H
#define SB_LIB_STATS_HIST_H

#include <stddef.h>
#include <stdint.h>

#define SB_HIST_BITS   6
#define SB_HIST_VAL    (1u << SB_HIST_BITS)
#define SB_HIST_GROUPS 29
#define SB_HIST_NR     (SB_HIST_GROUPS * SB_HIST_VAL)

struct sb_hist {
	uint64_t n;
	uint64_t bucket[SB_HIST_NR];
};

/* fio's default percentile list (its JSON keys are these, "%f"-formatted). */
extern const double sb_hist_default_percentiles[];
extern const size_t sb_hist_default_npercentiles;

/* Bucket index of a value (constant time). */
static inline unsigned sb_hist_index(uint64_t v)
{
	if (v < (2u * SB_HIST_VAL))
		return (unsigned)v;
	unsigned msb = 63u - (unsigned)__builtin_clzll(v);
	unsigned shift = msb - SB_HIST_BITS;
	unsigned idx = ((shift + 1) << SB_HIST_BITS) + (unsigned)((v >> shift) & (SB_HIST_VAL - 1));
	return idx < SB_HIST_NR ? idx : SB_HIST_NR - 1;
}

static inline void sb_hist_add(struct sb_hist *h, uint64_t v)
{
	h->bucket[sb_hist_index(v)]++;
	h->n++;
}

/* The value a bucket stands for: its midpoint (exact below 128). */
uint64_t sb_hist_bucket_value(unsigned idx);

/* Lowest value that maps to bucket idx. */
uint64_t sb_hist_bucket_low(unsigned idx);

/* dst += src, bucket by bucket. */
void sb_hist_merge(struct sb_hist *dst, const struct sb_hist *src);

/*
 * For each percentile p in plist (0 < p <= 100, ascending), the value of
 * the first bucket whose cumulative count reaches p/100 of all samples,
 * as fio computes it. Writes n values to out. Returns 0, or -ENODATA when
 * the histogram is empty (out is zeroed), -EINVAL for a bad list.
 */
int sb_hist_percentiles(const struct sb_hist *h, const double *plist, size_t n, uint64_t *out);

#endif
