/* SPDX-License-Identifier: MIT */
#include "hist.h"

#include <errno.h>
#include <string.h>

const double sb_hist_default_percentiles[] = {1.0,  5.0,  10.0, 20.0, 30.0, 40.0, 50.0,	 60.0, 70.0,
					      80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99};
const size_t sb_hist_default_npercentiles =
	sizeof(sb_hist_default_percentiles) / sizeof(sb_hist_default_percentiles[0]);

uint64_t sb_hist_bucket_low(unsigned idx)
{
	if (idx < 2u * SB_HIST_VAL)
		return idx;
	unsigned shift = (idx >> SB_HIST_BITS) - 1;
	uint64_t group_base = 1ull << (shift + SB_HIST_BITS);
	return group_base + ((uint64_t)(idx % SB_HIST_VAL) << shift);
}

uint64_t sb_hist_bucket_value(unsigned idx)
{
	if (idx < 2u * SB_HIST_VAL)
		return idx;
	unsigned shift = (idx >> SB_HIST_BITS) - 1;
	/* midpoint of [low, low + 2^shift) */
	return sb_hist_bucket_low(idx) + ((1ull << shift) >> 1);
}

void sb_hist_merge(struct sb_hist *dst, const struct sb_hist *src)
{
	for (unsigned i = 0; i < SB_HIST_NR; i++)
		dst->bucket[i] += src->bucket[i];
	dst->n += src->n;
}

int sb_hist_percentiles(const struct sb_hist *h, const double *plist, size_t n, uint64_t *out)
{
	memset(out, 0, n * sizeof(*out));
	for (size_t j = 0; j < n; j++)
		if (!(plist[j] > 0.0 && plist[j] <= 100.0) || (j && plist[j] < plist[j - 1]))
			return -EINVAL;
	if (h->n == 0)
		return -ENODATA;

	uint64_t sum = 0;
	size_t j = 0;
	for (unsigned i = 0; i < SB_HIST_NR && j < n; i++) {
		sum += h->bucket[i];
		while (j < n && (double)sum >= plist[j] / 100.0 * (double)h->n)
			out[j++] = sb_hist_bucket_value(i);
	}
	/* rounding can leave p=100 unmet by a hair: it is the last non-empty bucket */
	if (j < n) {
		unsigned last = 0;
		for (unsigned i = 0; i < SB_HIST_NR; i++)
			if (h->bucket[i])
				last = i;
		while (j < n)
			out[j++] = sb_hist_bucket_value(last);
	}
	return 0;
}
