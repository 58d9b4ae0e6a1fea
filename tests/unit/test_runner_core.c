/* SPDX-License-Identifier: MIT */
#include "tests/unit/harness.h"
#include "runner/rand.h"
#include "runner/verify.h"

#include <errno.h>
#include <stdlib.h>

static int test_perm_is_bijection(void)
{
	static const uint64_t sizes[] = {1, 2, 3, 7, 64, 100, 1000, 4097, 65536, 100003};
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint64_t n = sizes[s];
		unsigned char *seen = calloc(n, 1);
		struct sb_perm p;
		CHECK(seen != NULL);
		sb_perm_init(&p, n, 42 + s);
		uint64_t in_order = 0;
		for (uint64_t i = 0; i < n; i++) {
			uint64_t v = sb_perm_at(&p, i);
			CHECK(v < n);
			CHECK(!seen[v]);
			seen[v] = 1;
			in_order += v == i;
		}
		free(seen);
		/* a permutation that is mostly the identity would not be random */
		if (n >= 1000)
			CHECK(in_order < n / 100);
	}
	return T_PASS;
}

static int test_perm_keys_differ(void)
{
	struct sb_perm a, b;
	sb_perm_init(&a, 10000, 1);
	sb_perm_init(&b, 10000, 2);
	unsigned same = 0;
	for (uint64_t i = 0; i < 10000; i++)
		same += sb_perm_at(&a, i) == sb_perm_at(&b, i);
	CHECK(same < 100);
	return T_PASS;
}

static int test_rand_below_uniform(void)
{
	struct sb_rand r;
	unsigned counts[10] = {0};
	sb_rand_seed(&r, 7);
	for (int i = 0; i < 100000; i++)
		counts[sb_rand_below(&r, 10)]++;
	for (int i = 0; i < 10; i++)
		CHECK(counts[i] > 9500 && counts[i] < 10500);
	/* same seed, same sequence (randrepeat) */
	struct sb_rand a, b;
	sb_rand_seed(&a, 99);
	sb_rand_seed(&b, 99);
	for (int i = 0; i < 100; i++)
		CHECK(sb_rand_next(&a) == sb_rand_next(&b));
	return T_PASS;
}

static int test_crc32c_vector(void)
{
	/* the standard check value of CRC-32C */
	CHECK_INT(sb_crc32c("123456789", 9), 0xe3069283u);
	CHECK_INT(sb_crc32c("", 0), 0);
	return T_PASS;
}

static int test_verify_roundtrip_and_corruption(void)
{
	static const enum sb_verify types[] = {SB_VERIFY_CRC32C, SB_VERIFY_MD5, SB_VERIFY_SHA256};
	unsigned char *buf = malloc(4096);
	struct sb_rand r;
	char why[160];

	CHECK(buf != NULL);
	sb_rand_seed(&r, 1);
	for (size_t t = 0; t < 3; t++) {
		sb_rand_fill(&r, buf, 4096);
		CHECK_INT(sb_verify_stamp(buf, 4096, 8192, types[t]), 0);
		CHECK_INT(sb_verify_check(buf, 4096, 8192, types[t], why, sizeof(why)), 0);
		/* read back from the wrong place */
		CHECK_INT(sb_verify_check(buf, 4096, 4096, types[t], why, sizeof(why)), -EILSEQ);
		CHECK(strstr(why, "offset 8192") != NULL);
		/* one flipped bit in the payload */
		buf[3000] ^= 0x10;
		CHECK_INT(sb_verify_check(buf, 4096, 8192, types[t], why, sizeof(why)), -EILSEQ);
		CHECK(strstr(why, "checksum mismatch") != NULL);
		buf[3000] ^= 0x10;
		/* a zeroed block (never written) */
		memset(buf, 0, 64);
		CHECK_INT(sb_verify_check(buf, 4096, 8192, types[t], why, sizeof(why)), -EILSEQ);
		CHECK(strstr(why, "magic") != NULL);
	}
	free(buf);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"rand/permutation-is-bijection", test_perm_is_bijection},
	{"rand/permutation-keys-differ", test_perm_keys_differ},
	{"rand/below-uniform-and-repeatable", test_rand_below_uniform},
	{"verify/crc32c-check-value", test_crc32c_vector},
	{"verify/roundtrip-and-corruption", test_verify_roundtrip_and_corruption},
};
TEST_MAIN(cases)
