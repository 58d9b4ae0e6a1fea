/* SPDX-License-Identifier: MIT */
#include "tests/unit/harness.h"
#include "stats/hist.h"

#include <errno.h>

static struct sb_hist h1, h2, h3;

static int test_roundtrip_error_bound(void)
{
	/* every value maps to a bucket whose value is within 1/128 of it */
	uint64_t v = 1;
	while (v < (1ull << 34)) {
		for (uint64_t d = 0; d < 3; d++) {
			uint64_t x = v + d * (v / 3);
			if (x >= (1ull << 34)) /* beyond the last group: clamped */
				continue;
			unsigned i = sb_hist_index(x);
			double bv = (double)sb_hist_bucket_value(i);
			CHECK(i < SB_HIST_NR);
			CHECK(fabs(bv - (double)x) <= (double)x / 128.0 + 0.5);
			CHECK(sb_hist_bucket_low(i) <= x);
			if (i + 1 < SB_HIST_NR)
				CHECK(sb_hist_bucket_low(i + 1) > x);
		}
		v = v * 2 + 1;
	}
	CHECK_INT(sb_hist_index(0), 0);
	CHECK_INT(sb_hist_index(127), 127);
	CHECK_INT(sb_hist_index(128), 128);
	CHECK_INT(sb_hist_index(~0ull), SB_HIST_NR - 1);
	return T_PASS;
}

static int test_index_monotonic(void)
{
	unsigned prev = 0;
	for (uint64_t x = 0; x < 5000000; x += 37) {
		unsigned i = sb_hist_index(x);
		CHECK(i >= prev);
		prev = i;
	}
	return T_PASS;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int test_percentiles_vs_sorted_reference(void)
{
	enum { N = 20011 };
	static uint64_t vals[N];
	uint64_t out[32];
	uint64_t seed = 88172645463325252ull;

	memset(&h1, 0, sizeof(h1));
	for (size_t i = 0; i < N; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		/* log-uniform-ish latencies from 1 us to 100 ms */
		vals[i] = 1000 + (seed % 1000) * (1ull << (seed >> 60) % 17);
		sb_hist_add(&h1, vals[i]);
	}
	qsort(vals, N, sizeof(vals[0]), cmp_u64);
	CHECK_INT(sb_hist_percentiles(&h1, sb_hist_default_percentiles,
				      sb_hist_default_npercentiles, out),
		  0);
	for (size_t j = 0; j < sb_hist_default_npercentiles; j++) {
		double p = sb_hist_default_percentiles[j];
		/* the sample at rank ceil(p/100 * N) is the reference */
		size_t rank = (size_t)ceil(p / 100.0 * N);
		uint64_t ref = vals[rank ? rank - 1 : 0];
		CHECK(fabs((double)out[j] - (double)ref) <= (double)ref / 64.0 + 1.0);
	}
	return T_PASS;
}

static int test_merge_adds_buckets(void)
{
	uint64_t a[3], b[3];
	const double pl[] = {50.0, 99.0, 100.0};

	memset(&h1, 0, sizeof(h1));
	memset(&h2, 0, sizeof(h2));
	memset(&h3, 0, sizeof(h3));
	for (uint64_t i = 1; i <= 1000; i++) {
		sb_hist_add(i % 2 ? &h1 : &h2, i * 1000);
		sb_hist_add(&h3, i * 1000);
	}
	sb_hist_merge(&h1, &h2);
	CHECK_INT(h1.n, 1000);
	CHECK(memcmp(h1.bucket, h3.bucket, sizeof(h1.bucket)) == 0);
	CHECK_INT(sb_hist_percentiles(&h1, pl, 3, a), 0);
	CHECK_INT(sb_hist_percentiles(&h3, pl, 3, b), 0);
	CHECK(memcmp(a, b, sizeof(a)) == 0);
	CHECK(fabs((double)a[0] - 500000.0) <= 500000.0 / 128.0);
	CHECK(fabs((double)a[2] - 1000000.0) <= 1000000.0 / 128.0);
	return T_PASS;
}

static int test_fio_bucket_values(void)
{
	/*
	 * fio 3.33 reported these sync latency percentiles (ns) for a real
	 * job; each must be a bucket value of the same layout.
	 */
	const uint64_t fio_vals[] = {782336, 790528, 806912, 864256, 1777664, 1056768};
	for (size_t i = 0; i < sizeof(fio_vals) / sizeof(fio_vals[0]); i++)
		CHECK_INT(sb_hist_bucket_value(sb_hist_index(fio_vals[i])), fio_vals[i]);
	return T_PASS;
}

static int test_empty_and_bad_list(void)
{
	uint64_t out[2];
	const double bad[] = {50.0, 10.0}, zero[] = {0.0};
	memset(&h1, 0, sizeof(h1));
	CHECK_INT(sb_hist_percentiles(&h1, sb_hist_default_percentiles, 1, out), -ENODATA);
	sb_hist_add(&h1, 5);
	CHECK_INT(sb_hist_percentiles(&h1, bad, 2, out), -EINVAL);
	CHECK_INT(sb_hist_percentiles(&h1, zero, 1, out), -EINVAL);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"hist/roundtrip-error-under-1/128", test_roundtrip_error_bound},
	{"hist/index-monotonic", test_index_monotonic},
	{"hist/percentiles-vs-sorted-reference", test_percentiles_vs_sorted_reference},
	{"hist/merge-adds-buckets", test_merge_adds_buckets},
	{"hist/fio-bucket-values", test_fio_bucket_values},
	{"hist/empty-and-bad-list", test_empty_and_bad_list},
};
TEST_MAIN(cases)
