/* SPDX-License-Identifier: MIT */
#include "tests/unit/harness.h"
#include "core/units.h"

#include <errno.h>

static int test_sizes(void)
{
	uint64_t v;
	CHECK_INT(sb_parse_size("4096", 1024, &v), 0);
	CHECK_INT(v, 4096);
	CHECK_INT(sb_parse_size("4k", 1024, &v), 0);
	CHECK_INT(v, 4096);
	CHECK_INT(sb_parse_size("4K", 1024, &v), 0);
	CHECK_INT(v, 4096);
	CHECK_INT(sb_parse_size("1M", 1024, &v), 0);
	CHECK_INT(v, 1048576);
	CHECK_INT(sb_parse_size("1024k", 1024, &v), 0);
	CHECK_INT(v, 1048576);
	CHECK_INT(sb_parse_size("1G", 1024, &v), 0);
	CHECK_INT(v, 1073741824ull);
	CHECK_INT(sb_parse_size("10g", 1024, &v), 0);
	CHECK_INT(v, 10737418240ull);
	CHECK_INT(sb_parse_size("2t", 1024, &v), 0);
	CHECK_INT(v, 2199023255552ull);
	CHECK_INT(sb_parse_size("64KiB", 1000, &v), 0);
	CHECK_INT(v, 65536);
	CHECK_INT(sb_parse_size("64kB", 1000, &v), 0);
	CHECK_INT(v, 64000);
	CHECK_INT(sb_parse_size("1.5m", 1024, &v), 0);
	CHECK_INT(v, 1572864);
	CHECK_INT(sb_parse_size("512b", 1024, &v), 0);
	CHECK_INT(v, 512);
	return T_PASS;
}

static int test_bad_sizes(void)
{
	uint64_t v;
	unsigned pct;
	CHECK_INT(sb_parse_size("", 1024, &v), -EINVAL);
	CHECK_INT(sb_parse_size("k", 1024, &v), -EINVAL);
	CHECK_INT(sb_parse_size("4q", 1024, &v), -EINVAL);
	CHECK_INT(sb_parse_size("-4k", 1024, &v), -EINVAL);
	CHECK_INT(sb_parse_size("4kk", 1024, &v), -EINVAL);
	CHECK_INT(sb_parse_size("99999999999999p", 1024, &v), -ERANGE);
	/* issue 15 bug 10: 9000p is past 2^63, an error rather than exactly 2^63 */
	CHECK_INT(sb_parse_size("9000p", 1024, &v), -ERANGE);
	CHECK_INT(sb_parse_size("8192p", 1024, &v), -ERANGE);
	CHECK_INT(sb_parse_size("8191p", 1024, &v), 0);
	CHECK(v == 8191ull << 50);
	CHECK_INT(sb_parse_size_or_percent("50%", 1024, &v, &pct), 0);
	CHECK_INT(pct, 50);
	CHECK_INT(sb_parse_size_or_percent("1g", 1024, &v, &pct), 0);
	CHECK_INT(pct, 0);
	CHECK_INT(v, 1073741824ull);
	CHECK_INT(sb_parse_size_or_percent("0%", 1024, &v, &pct), -ERANGE);
	CHECK_INT(sb_parse_size_or_percent("101%", 1024, &v, &pct), -ERANGE);
	CHECK_INT(sb_parse_size_or_percent("5%x", 1024, &v, &pct), -EINVAL);
	return T_PASS;
}

static int test_durations(void)
{
	uint64_t us;
	CHECK_INT(sb_parse_duration_us("60", 1000000, &us), 0);
	CHECK_INT(us, 60000000ull);
	CHECK_INT(sb_parse_duration_us("60s", 1000000, &us), 0);
	CHECK_INT(us, 60000000ull);
	CHECK_INT(sb_parse_duration_us("2m", 1000000, &us), 0);
	CHECK_INT(us, 120000000ull);
	CHECK_INT(sb_parse_duration_us("500ms", 1000000, &us), 0);
	CHECK_INT(us, 500000);
	CHECK_INT(sb_parse_duration_us("250us", 1000000, &us), 0);
	CHECK_INT(us, 250);
	CHECK_INT(sb_parse_duration_us("1h", 1000000, &us), 0);
	CHECK_INT(us, 3600000000ull);
	CHECK_INT(sb_parse_duration_us("1.5s", 1000000, &us), 0);
	CHECK_INT(us, 1500000);
	CHECK_INT(sb_parse_duration_us("10", 1000, &us), 0);
	CHECK_INT(us, 10000);
	CHECK_INT(sb_parse_duration_us("10x", 1000000, &us), -EINVAL);
	CHECK_INT(sb_parse_duration_us("s", 1000000, &us), -EINVAL);
	return T_PASS;
}

static int test_counts_and_bools(void)
{
	uint64_t v;
	bool b;
	CHECK_INT(sb_parse_u64("32", &v), 0);
	CHECK_INT(v, 32);
	CHECK_INT(sb_parse_u64("10k", &v), 0);
	CHECK_INT(v, 10000);
	CHECK_INT(sb_parse_u64("1.5", &v), -EINVAL);
	CHECK_INT(sb_parse_u64("x", &v), -EINVAL);
	CHECK_INT(sb_parse_bool("1", &b), 0);
	CHECK(b);
	CHECK_INT(sb_parse_bool("off", &b), 0);
	CHECK(!b);
	CHECK_INT(sb_parse_bool("maybe", &b), -EINVAL);
	return T_PASS;
}

static int test_formatting(void)
{
	char buf[32];
	CHECK_STR(sb_fmt_bytes(4096, buf, sizeof(buf)), "4096B");
	CHECK_STR(sb_fmt_bytes(10240ull * 1024 * 1024, buf, sizeof(buf)), "10GiB");
	CHECK_STR(sb_fmt_bytes(1048576, buf, sizeof(buf)), "1024KiB");
	CHECK_STR(sb_fmt_si(22748, 3, buf, sizeof(buf)), "22.7k");
	CHECK_STR(sb_fmt_si(491, 3, buf, sizeof(buf)), "491");
	CHECK_STR(sb_fmt_si(1234567, 3, buf, sizeof(buf)), "1.23M");
	CHECK_STR(sb_fmt_si(999999, 3, buf, sizeof(buf)), "1.00M");
	CHECK_STR(sb_fmt_rate(2.133 * 1073741824.0, buf, sizeof(buf)), "2.13 GiB/s");
	CHECK_STR(sb_fmt_rate(130 * 1024.0, buf, sizeof(buf)), "130 KiB/s");
	CHECK_STR(sb_fmt_ns(587000, buf, sizeof(buf)), "587us");
	CHECK_STR(sb_fmt_ns(11.4e6, buf, sizeof(buf)), "11.4ms");
	CHECK_STR(sb_fmt_ns(850, buf, sizeof(buf)), "850ns");
	return T_PASS;
}

static int test_quantities(void)
{
	uint64_t v;
	CHECK_INT(sb_parse_quantity("10Gi", &v), 0);
	CHECK_INT(v, 10737418240ull);
	CHECK_INT(sb_parse_quantity("500M", &v), 0);
	CHECK_INT(v, 500000000ull);
	CHECK_INT(sb_parse_quantity("1.5Ki", &v), 0);
	CHECK_INT(v, 1536);
	CHECK_INT(sb_parse_quantity("4096", &v), 0);
	CHECK_INT(v, 4096);
	CHECK_INT(sb_parse_quantity("1.5", &v), -EINVAL);
	CHECK_INT(sb_parse_quantity("10GB", &v), -EINVAL);
	CHECK_INT(sb_parse_quantity("10gi", &v), -EINVAL);
	CHECK_INT(sb_parse_quantity("", &v), -EINVAL);
	return T_PASS;
}

/* Integers are read exactly: never through a double (2^53 + 1 is not rounded to 2^53). */
static int test_exact_integers(void)
{
	uint64_t v = 7;
	CHECK_INT(sb_parse_u64("9007199254740993", &v), 0); /* 2^53 + 1 */
	CHECK(v == UINT64_C(9007199254740993));
	CHECK_INT(sb_parse_u64("18446744073709551615", &v), 0); /* 2^64 - 1 */
	CHECK(v == UINT64_MAX);
	CHECK_INT(sb_parse_u64(" 18446744073709551615 ", &v), 0);
	CHECK(v == UINT64_MAX);
	CHECK_INT(sb_parse_u64("18446744073709551614.0", &v), 0);
	CHECK(v == UINT64_MAX - 1);
	CHECK_INT(sb_parse_u64("0018446744073709551615", &v), 0);
	CHECK(v == UINT64_MAX);
	v = 7;
	CHECK_INT(sb_parse_u64("18446744073709551616", &v), -ERANGE); /* 2^64 */
	CHECK_INT(sb_parse_u64("99999999999999999999", &v), -ERANGE);
	CHECK_INT(sb_parse_u64("18446744073709552k", &v), -ERANGE);
	CHECK_INT(sb_parse_u64("1e20", &v), -ERANGE);
	CHECK_INT(sb_parse_u64("1e99999", &v), -ERANGE);
	CHECK_INT(v, 7);
	/* suffixes, fractions and exponents that make a whole number, exactly */
	CHECK_INT(sb_parse_u64("18446744073709551k", &v), 0);
	CHECK(v == UINT64_C(18446744073709551000));
	CHECK_INT(sb_parse_u64("9007199254.740993m", &v), 0);
	CHECK(v == UINT64_C(9007199254740993));
	CHECK_INT(sb_parse_u64("1.5k", &v), 0);
	CHECK_INT(v, 1500);
	CHECK_INT(sb_parse_u64("1e3", &v), 0);
	CHECK_INT(v, 1000);
	CHECK_INT(sb_parse_u64("25e-1k", &v), 0);
	CHECK_INT(v, 2500);
	CHECK_INT(sb_parse_u64("0", &v), 0);
	CHECK_INT(v, 0);
	CHECK_INT(sb_parse_u64("0.000", &v), 0);
	CHECK_INT(v, 0);
	CHECK_INT(sb_parse_u64("1.0001k", &v), -EINVAL);
	CHECK_INT(sb_parse_u64("1e-1", &v), -EINVAL);
	CHECK_INT(sb_parse_u64("-1", &v), -EINVAL);
	CHECK_INT(sb_parse_u64(".", &v), -EINVAL);
	CHECK_INT(sb_parse_u64("", &v), -EINVAL);
	CHECK_INT(sb_parse_u64(NULL, &v), -EINVAL);
	/* plain integers with a maximum */
	CHECK_INT(sb_parse_uint("18446744073709551615", UINT64_MAX, &v), 0);
	CHECK(v == UINT64_MAX);
	CHECK_INT(sb_parse_uint("9007199254740993", UINT64_MAX, &v), 0);
	CHECK(v == UINT64_C(9007199254740993));
	CHECK_INT(sb_parse_uint("18446744073709551616", UINT64_MAX, &v), -ERANGE);
	CHECK_INT(sb_parse_uint("65", 64, &v), -ERANGE);
	CHECK_INT(sb_parse_uint("64", 64, &v), 0);
	CHECK_INT(v, 64);
	CHECK_INT(sb_parse_uint("1k", 64, &v), -EINVAL);
	CHECK_INT(sb_parse_uint(" 1", 64, &v), -EINVAL);
	CHECK_INT(sb_parse_uint("+1", 64, &v), -EINVAL);
	CHECK_INT(sb_parse_uint("", 64, &v), -EINVAL);
	/* sizes: a whole number of units is exact up to the 2^63 limit */
	CHECK_INT(sb_parse_size("9007199254740993", 1024, &v), 0);
	CHECK(v == UINT64_C(9007199254740993));
	CHECK_INT(sb_parse_size("9223372036854775807", 1024, &v), 0);
	CHECK(v == (uint64_t)INT64_MAX);
	CHECK_INT(sb_parse_size("9223372036854775808", 1024, &v), -ERANGE);
	CHECK_INT(sb_parse_size("8796093022207k", 1024, &v), 0);
	CHECK(v == UINT64_C(8796093022207) * 1024);
	CHECK_INT(sb_parse_size("1.3k", 1024, &v), 0); /* a fraction of a unit still rounds */
	CHECK_INT(v, 1331);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"units/exact-integers", test_exact_integers},
	{"units/kubernetes-quantities", test_quantities},
	{"units/sizes", test_sizes},
	{"units/bad-sizes-and-percent", test_bad_sizes},
	{"units/durations", test_durations},
	{"units/counts-and-bools", test_counts_and_bools},
	{"units/formatting", test_formatting},
};
TEST_MAIN(cases)
