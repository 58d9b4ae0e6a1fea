/* SPDX-License-Identifier: MIT */
/*
 * A minimal unit-test harness. Each tests/unit/<layer>/test_*.c file is one program
 * holding a table of cases; a case returns T_PASS, T_FAIL or T_SKIP. The
 * program prints one line per case ("ok", "FAIL", "skip") and ends with
 * "N passed, N failed, N skipped" (flushed at once, so a leak report at
 * exit cannot lose it); it exits 1 when any case failed. A case that fails
 * keeps what it allocated reachable (file-static) or frees it before its
 * CHECKs, so a failure reads as a failure, not as a leak.
 *
 *	static int test_parse(void) { CHECK(x == 1); return T_PASS; }
 *	static const struct test_case cases[] = { { "units/parse", test_parse } };
 *	TEST_MAIN(cases)
 */
#ifndef SB_TEST_HARNESS_H
#define SB_TEST_HARNESS_H

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_PASS = 0, T_FAIL = 1, T_SKIP = 77 };

struct test_case {
	const char *name;
	int (*fn)(void);
};

/* Why the current case was skipped; set with SKIP(). */
static const char *t_skip_reason;

#define CHECK(cond)                                                                          \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			fprintf(stderr, "    %s:%d: check failed: %s\n", __FILE__, __LINE__, \
				#cond);                                                      \
			return T_FAIL;                                                       \
		}                                                                            \
	} while (0)

#define CHECK_INT(a, b)                                                                           \
	do {                                                                                      \
		long long va_ = (long long)(a), vb_ = (long long)(b);                             \
		if (va_ != vb_) {                                                                 \
			fprintf(stderr, "    %s:%d: %s == %lld, expected %s == %lld\n", __FILE__, \
				__LINE__, #a, va_, #b, vb_);                                      \
			return T_FAIL;                                                            \
		}                                                                                 \
	} while (0)

#define CHECK_STR(a, b)                                                                         \
	do {                                                                                    \
		const char *sa_ = (a), *sb_ = (b);                                              \
		if (!sa_ || !sb_ || strcmp(sa_, sb_) != 0) {                                    \
			fprintf(stderr, "    %s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__, \
				__LINE__, #a, sa_ ? sa_ : "(null)", sb_ ? sb_ : "(null)");      \
			return T_FAIL;                                                          \
		}                                                                               \
	} while (0)

/* |a - b| <= tol */
#define CHECK_NEAR(a, b, tol)                                                                    \
	do {                                                                                     \
		double da_ = (double)(a), db_ = (double)(b);                                     \
		if (!(fabs(da_ - db_) <= (double)(tol))) {                                       \
			fprintf(stderr, "    %s:%d: %s == %.9g, expected %.9g (tolerance %g)\n", \
				__FILE__, __LINE__, #a, da_, db_, (double)(tol));                \
			return T_FAIL;                                                           \
		}                                                                                \
	} while (0)

#define SKIP(why)                      \
	do {                           \
		t_skip_reason = (why); \
		return T_SKIP;         \
	} while (0)

/* The whole of the file at path as a NUL-terminated string (malloc'd: the
 * caller frees it), NULL when it cannot be read. For golden files. */
static inline char *t_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	char chunk[8192];
	size_t n;
	bool bad = !m;
	while (m && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		bad = bad || fwrite(chunk, 1, n, m) != n;
	bad = bad || ferror(f);
	fclose(f);
	if (m && fclose(m))
		bad = true;
	if (bad) {
		free(buf);
		return NULL;
	}
	return buf;
}

static inline int test_run_all(const struct test_case *cases, size_t n)
{
	unsigned passed = 0, failed = 0, skipped = 0;

	for (size_t i = 0; i < n; i++) {
		t_skip_reason = NULL;
		fflush(stderr);
		int r = cases[i].fn();
		if (r == T_PASS) {
			passed++;
			printf("ok   %s\n", cases[i].name);
		} else if (r == T_SKIP) {
			skipped++;
			printf("skip %s (%s)\n", cases[i].name,
			       t_skip_reason ? t_skip_reason : "no reason given");
		} else {
			failed++;
			printf("FAIL %s\n", cases[i].name);
		}
		fflush(stdout);
	}
	printf("%u passed, %u failed, %u skipped\n", passed, failed, skipped);
	/* now: LeakSanitizer's report at exit ends the process without
	 * flushing stdio, which would lose this line */
	fflush(stdout);
	return failed ? 1 : 0;
}

#define TEST_MAIN(cases)                                                      \
	int main(void)                                                        \
	{                                                                     \
		return test_run_all(cases, sizeof(cases) / sizeof(cases[0])); \
	}

#endif
