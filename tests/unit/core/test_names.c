/* SPDX-License-Identifier: MIT */
#include "tests/unit/harness.h"
#include "core/names.h"

static int valid_label(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return 0;
	return 1;
}

static int test_plain_names_unchanged(void)
{
	char b[64];
	CHECK_INT(sb_name_pvc(b, sizeof(b), "demo", "fast"), 0);
	CHECK_STR(b, "demo-fast");
	CHECK_INT(sb_name_pod(b, sizeof(b), "demo", "fast", 2), 0);
	CHECK_STR(b, "demo-fast-2");
	CHECK_INT(sb_name_result(b, sizeof(b), "demo", "disk", 10), 0);
	CHECK_STR(b, "demo-disk-10");
	CHECK_INT(sb_name_report(b, sizeof(b), "demo"), 0);
	CHECK_STR(b, "demo-report");
	return T_PASS;
}

static int test_sanitized_and_unique(void)
{
	char a[64], b[64];
	CHECK_INT(sb_name_pvc(a, sizeof(a), "demo", "ceph.fs"), 0);
	CHECK_INT(sb_name_pvc(b, sizeof(b), "demo", "ceph-fs"), 0);
	CHECK(valid_label(a));
	CHECK(valid_label(b));
	CHECK(strcmp(a, b) != 0);
	CHECK(strncmp(a, "demo-ceph-fs-", 13) == 0);
	CHECK_STR(b, "demo-ceph-fs");
	return T_PASS;
}

static int test_long_names_cut_with_hash(void)
{
	char a[64], b[64];
	const char *run = "a-very-long-benchmark-run-name-that-goes-on-and-on";
	CHECK_INT(sb_name_result(a, sizeof(a), run, "storage-class-number-one", 1), 0);
	CHECK_INT(sb_name_result(b, sizeof(b), run, "storage-class-number-one", 2), 0);
	CHECK(valid_label(a));
	CHECK(valid_label(b));
	CHECK_INT(strlen(a), 63);
	CHECK(strcmp(a, b) != 0); /* the iteration is in the hash */
	char c[64];
	CHECK_INT(sb_name_result(c, sizeof(c), run, "storage-class-number-one", 1), 0);
	CHECK_STR(c, a); /* deterministic */
	return T_PASS;
}

static int test_bad_input(void)
{
	char b[64];
	const char *p[] = {"..."};
	CHECK(sb_name_join(b, sizeof(b), 63, p, 1) < 0);
	CHECK(sb_name_join(b, 8, 63, p, 1) < 0);
	CHECK_INT(sb_name_label(b, sizeof(b), "Fast_SSD"), 0);
	CHECK(valid_label(b));
	return T_PASS;
}

static const struct test_case cases[] = {
	{"names/plain-unchanged", test_plain_names_unchanged},
	{"names/sanitized-and-unique", test_sanitized_and_unique},
	{"names/long-cut-with-hash", test_long_names_cut_with_hash},
	{"names/bad-input", test_bad_input},
};
TEST_MAIN(cases)
