/* SPDX-License-Identifier: MIT */
/*
 * Terminal-safe output (plugin/term.h, issue 34): control characters of
 * others' text reach a terminal escaped; text, tabs, newlines and UTF-8 pass.
 */
#include "tests/unit/harness.h"
#include "plugin/term.h"

#include <stdlib.h>

static int esc_is(const char *in, size_t n, const char *want)
{
	char *e = sbp_term_escape(in, n);
	int ok = e && !strcmp(e, want);
	if (!ok)
		fprintf(stderr, "    escaped '%s', wanted '%s'\n", e ? e : "(null)", want);
	free(e);
	return ok;
}

static int test_escapes_controls(void)
{
	/* a window title, a cursor move, a screen clear, a bell, a carriage return */
	CHECK(esc_is("\x1b]0;owned\x07ok", 12, "\\x1b]0;owned\\x07ok"));
	CHECK(esc_is("a\x1b[2J\rb", 7, "a\\x1b[2J\\x0db"));
	/* newline and tab stay; DEL and NUL do not */
	CHECK(esc_is("x\ty\nz\x7f", 6, "x\ty\nz\\x7f"));
	CHECK(esc_is("a\0b", 3, "a\\x00b"));
	/* C1: U+009B (CSI) as UTF-8, and the raw byte 0x9b outside a character */
	CHECK(esc_is("\xc2\x9b"
		     "31m",
		     5, "\\u009b31m"));
	CHECK(esc_is("\x9b"
		     "31m",
		     4, "\\x9b31m"));
	/* valid UTF-8 passes: é, 日本, an emoji, U+00A0 (not C1) */
	CHECK(esc_is("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80 \xc2\xa0", 20,
		     "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80 \xc2\xa0"));
	/* invalid: an overlong ESC, a surrogate, a cut character at the end */
	CHECK(esc_is("\xc0\x9b", 2, "\\xc0\\x9b"));
	CHECK(esc_is("\xed\xa0\x80", 3, "\\xed\\xa0\\x80"));
	CHECK(esc_is("ab\xe6\x97", 4, "ab\\xe6\\x97"));
	return T_PASS;
}

/* A stream cut inside a character: completed by the next part, escaped at the end. */
static int test_stream_carries_cut_characters(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(f != NULL);
	struct sbp_term t = SBP_TERM_INIT;
	int r1 = sbp_term_write(&t, f, "x\xe6", 2);
	int r2 = sbp_term_write(&t, f, "\x97\xa5\x1b", 3);
	int r3 = sbp_term_write(&t, f, "y\xc3", 2);
	int r4 = sbp_term_flush(&t, f);
	fclose(f);
	int ok = !r1 && !r2 && !r3 && !r4 && buf && !strcmp(buf, "x\xe6\x97\xa5\\x1by\\xc3");
	if (!ok)
		fprintf(stderr, "    wrote '%s'\n", buf ? buf : "(null)");
	free(buf);
	CHECK(ok);
	return T_PASS;
}

/* Not a terminal (a file, a pipe): written as it is. */
static int test_not_a_terminal_is_raw(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(f != NULL);
	CHECK(!sbp_term_is(f));
	int r = sbp_term_out(f, "a\x1b[2Jb", 6);
	fclose(f);
	int ok = !r && len == 6 && !memcmp(buf, "a\x1b[2Jb", 6);
	free(buf);
	CHECK(ok);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"term/escapes-controls", test_escapes_controls},
	{"term/stream-carries-cut-characters", test_stream_carries_cut_characters},
	{"term/not-a-terminal-is-raw", test_not_a_terminal_is_raw},
};
TEST_MAIN(cases)
