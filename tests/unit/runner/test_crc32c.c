/* SPDX-License-Identifier: MIT */
/*
 * CRC-32C (runner/io/crc32c.h): every way of computing it that this CPU can
 * run (the table always; SSE 4.2 on x86-64, the ARMv8 CRC32 instructions
 * on arm64) against the bitwise definition written out below, on known
 * answers, on random buffers of every length 0..300 from every start
 * offset 0..15, and when continued piece by piece. Needs only libc, so
 * make test-arm64 runs it under qemu-aarch64 too, where the ARMv8 path is
 * the one dispatched (SB_CRC32C_EXPECT=armv8, set by tests/suites/15-arm64.sh;
 * tests/suites/10-unit.sh sets sse4.2 when /proc/cpuinfo lists sse4_2).
 */
#include "tests/unit/harness.h"
#include "runner/io/crc32c.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const enum sb_crc32c_impl all_impls[SB_CRC32C_NIMPL] = {
	SB_CRC32C_TABLE,
	SB_CRC32C_SSE42,
	SB_CRC32C_ARMV8,
};

/* The definition, one bit at a time: the oracle for every fast path. */
static uint32_t ref_crc32c(uint32_t crc, const uint8_t *p, size_t len)
{
	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc & 1u) ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
	}
	return ~crc;
}

/* splitmix64: reproducible test data with no dependency */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void fill_random(uint8_t *buf, size_t len, uint64_t seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(next_rand(&seed) >> 56);
}

/* sb_crc32c_with's value (0 when it failed), its return value in *rc */
static uint32_t with(enum sb_crc32c_impl impl, uint32_t crc, const void *buf, size_t len, int *rc)
{
	uint32_t out = 0;
	*rc = sb_crc32c_with(impl, crc, buf, len, &out);
	return out;
}

static int test_check_values(void)
{
	static const struct {
		const char *what;
		uint8_t fill; /* 0..3: zeros, ones, ascending, descending */
		size_t len;
		uint32_t want;
	} vec[] = {
		/* iSCSI's published CRC32C examples (RFC 3720, B.4) */
		{"32 bytes of zeros", 0, 32, 0x8a9136aau},
		{"32 bytes of 0xff", 1, 32, 0x62a8ab43u},
		{"32 ascending bytes", 2, 32, 0x46dd794eu},
		{"32 descending bytes", 3, 32, 0x113fdb5cu},
	};
	uint8_t buf[32];
	int rc;

	/* the standard check value, through the dispatcher and every path */
	CHECK_INT(sb_crc32c("123456789", 9), 0xe3069283u);
	CHECK_INT(sb_crc32c("", 0), 0);
	CHECK_INT(ref_crc32c(0, (const uint8_t *)"123456789", 9), 0xe3069283u);
	for (size_t i = 0; i < SB_CRC32C_NIMPL; i++) {
		if (!sb_crc32c_impl_available(all_impls[i]))
			continue;
		CHECK_INT(with(all_impls[i], 0, "123456789", 9, &rc), 0xe3069283u);
		CHECK_INT(rc, 0);
		CHECK_INT(with(all_impls[i], 0, "", 0, &rc), 0);
		CHECK_INT(rc, 0);
	}
	for (size_t v = 0; v < sizeof(vec) / sizeof(vec[0]); v++) {
		for (size_t i = 0; i < vec[v].len; i++)
			buf[i] = vec[v].fill == 0   ? 0
				 : vec[v].fill == 1 ? 0xff
				 : vec[v].fill == 2 ? (uint8_t)i
						    : (uint8_t)(31 - i);
		if (sb_crc32c(buf, vec[v].len) != vec[v].want) {
			fprintf(stderr, "    %s: 0x%08x, expected 0x%08x\n", vec[v].what,
				sb_crc32c(buf, vec[v].len), vec[v].want);
			return T_FAIL;
		}
		CHECK_INT(ref_crc32c(0, buf, vec[v].len), vec[v].want);
		for (size_t i = 0; i < SB_CRC32C_NIMPL; i++) {
			if (!sb_crc32c_impl_available(all_impls[i]))
				continue;
			CHECK_INT(with(all_impls[i], 0, buf, vec[v].len, &rc), vec[v].want);
			CHECK_INT(rc, 0);
		}
	}
	return T_PASS;
}

static int test_paths_agree(void)
{
	enum { MAXLEN = 300, MAXOFF = 16 };
	static uint8_t buf[MAXLEN + MAXOFF];
	char names[64] = "";
	int rc;

	fill_random(buf, sizeof(buf), 1);
	for (size_t i = 0; i < SB_CRC32C_NIMPL; i++) {
		enum sb_crc32c_impl impl = all_impls[i];
		if (!sb_crc32c_impl_available(impl))
			continue;
		size_t used = strlen(names);
		snprintf(names + used, sizeof(names) - used, " %s", sb_crc32c_impl_name(impl));
		for (size_t off = 0; off < MAXOFF; off++) {
			for (size_t len = 0; len <= MAXLEN; len++) {
				uint32_t want = ref_crc32c(0, buf + off, len);
				uint32_t got = with(impl, 0, buf + off, len, &rc);
				if (rc != 0 || got != want) {
					fprintf(stderr,
						"    %s: offset %zu length %zu: 0x%08x (rc %d), "
						"expected 0x%08x\n",
						sb_crc32c_impl_name(impl), off, len, got, rc, want);
					return T_FAIL;
				}
				/* a non-zero start value too */
				CHECK_INT(with(impl, 0x12345678u, buf + off, len, &rc),
					  ref_crc32c(0x12345678u, buf + off, len));
				if (i == 0)
					CHECK_INT(sb_crc32c(buf + off, len), want);
			}
		}
	}
	fprintf(stderr, "    compared with the bitwise definition:%s\n", names);
	return T_PASS;
}

static int test_extend_continues(void)
{
	enum { N = 1000 };
	static uint8_t buf[N];
	int rc;

	fill_random(buf, sizeof(buf), 2);
	uint32_t whole = ref_crc32c(0, buf, N);
	CHECK_INT(sb_crc32c(buf, N), whole);
	for (size_t i = 0; i < SB_CRC32C_NIMPL; i++) {
		enum sb_crc32c_impl impl = all_impls[i];
		if (!sb_crc32c_impl_available(impl))
			continue;
		for (size_t cut = 0; cut <= N; cut++) {
			uint32_t a = with(impl, 0, buf, cut, &rc);
			CHECK_INT(rc, 0);
			CHECK_INT(with(impl, a, buf + cut, N - cut, &rc), whole);
			CHECK_INT(rc, 0);
			CHECK_INT(sb_crc32c_extend(sb_crc32c(buf, cut), buf + cut, N - cut), whole);
		}
	}
	return T_PASS;
}

static int test_large_buffer(void)
{
	enum { N = (256 << 10) + 7 };
	uint8_t *buf = malloc(N + 1);

	CHECK(buf != NULL);
	fill_random(buf, N + 1, 3);
	/* from an odd address, so the 8-byte steps are all misaligned */
	uint32_t want = ref_crc32c(0, buf + 1, N);
	uint32_t got[SB_CRC32C_NIMPL];
	int rcs[SB_CRC32C_NIMPL];
	for (size_t i = 0; i < SB_CRC32C_NIMPL; i++) {
		got[i] = want; /* a path this CPU lacks is not compared */
		rcs[i] = 0;
		if (sb_crc32c_impl_available(all_impls[i]))
			got[i] = with(all_impls[i], 0, buf + 1, N, &rcs[i]);
	}
	uint32_t disp = sb_crc32c(buf + 1, N);
	free(buf);
	for (size_t i = 0; i < SB_CRC32C_NIMPL; i++) {
		CHECK_INT(rcs[i], 0);
		CHECK_INT(got[i], want);
	}
	CHECK_INT(disp, want);
	return T_PASS;
}

static int test_unavailable_refused(void)
{
	uint32_t out = 0xdeadbeefu;
	unsigned missing = 0;

	for (size_t i = 0; i < SB_CRC32C_NIMPL; i++) {
		CHECK(sb_crc32c_impl_name(all_impls[i]) != NULL);
		if (sb_crc32c_impl_available(all_impls[i]))
			continue;
		missing++;
		CHECK_INT(sb_crc32c_with(all_impls[i], 0, "x", 1, &out), -ENOTSUP);
		CHECK_INT(out, 0xdeadbeefu);
	}
	/* x86-64 cannot run the ARMv8 instructions nor arm64 SSE 4.2 */
	CHECK(missing >= 1);
	CHECK(sb_crc32c_impl_available(SB_CRC32C_TABLE));
	CHECK(!(sb_crc32c_impl_available(SB_CRC32C_SSE42) &&
		sb_crc32c_impl_available(SB_CRC32C_ARMV8)));
	CHECK_INT(sb_crc32c_with((enum sb_crc32c_impl)SB_CRC32C_NIMPL, 0, "x", 1, &out), -EINVAL);
	CHECK_INT(out, 0xdeadbeefu);
	CHECK(sb_crc32c_impl_name((enum sb_crc32c_impl)SB_CRC32C_NIMPL) == NULL);
	return T_PASS;
}

static int test_dispatch(void)
{
	enum sb_crc32c_impl act = sb_crc32c_active();
	const char *expect = getenv("SB_CRC32C_EXPECT");

	CHECK(sb_crc32c_impl_available(act));
	/* the CPU's instructions whenever it has them */
	if (sb_crc32c_impl_available(SB_CRC32C_SSE42))
		CHECK_INT(act, SB_CRC32C_SSE42);
	else if (sb_crc32c_impl_available(SB_CRC32C_ARMV8))
		CHECK_INT(act, SB_CRC32C_ARMV8);
	else
		CHECK_INT(act, SB_CRC32C_TABLE);
	fprintf(stderr, "    sb_crc32c uses: %s\n", sb_crc32c_impl_name(act));
	/* the suite knows the CPU from outside (cpuinfo, the emulated CPU) */
	if (expect && *expect)
		CHECK_STR(sb_crc32c_impl_name(act), expect);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"crc32c/check-values", test_check_values},
	{"crc32c/paths-agree-every-length-and-offset", test_paths_agree},
	{"crc32c/extend-continues", test_extend_continues},
	{"crc32c/large-misaligned-buffer", test_large_buffer},
	{"crc32c/unavailable-paths-refused", test_unavailable_refused},
	{"crc32c/dispatch-picks-the-cpu-instructions", test_dispatch},
};
TEST_MAIN(cases)
