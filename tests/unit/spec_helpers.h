/* SPDX-License-Identifier: MIT */
/*
 * BenchmarkRun spec helpers shared by the unit tests of controller/run/spec.c
 * (test_controller_spec.c, test_steady_state.c): parse a spec from JSON
 * text, and expect it refused with a message containing a needle.
 * Include after harness.h; the functions are static (one copy per test
 * program, each its own binary).
 */
#ifndef SB_TEST_SPEC_HELPERS_H
#define SB_TEST_SPEC_HELPERS_H

#include "controller/run/spec.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* br_spec_parse of text (JSON); -100 when the text itself is not JSON. */
static inline int parse(const char *text, struct br_spec *s, char *err, size_t len)
{
	json_error_t je;
	json_t *spec = json_loads(text, 0, &je);
	if (!spec) {
		snprintf(err, len, "test JSON: %s", je.text);
		return -100;
	}
	int r = br_spec_parse(spec, "localhost/storagebench:test", NULL, s, err, len);
	json_decref(spec);
	return r;
}

/* T_PASS when text is refused with -EINVAL and a message containing needle. */
static inline int expect_invalid(const char *text, const char *needle)
{
	struct br_spec s;
	char err[1024] = "";
	int r = parse(text, &s, err, sizeof(err));
	br_spec_release(&s);
	if (r != -EINVAL || !strstr(err, needle)) {
		fprintf(stderr, "    spec %s\n    gave %d '%s', wanted '%s'\n", text, r, err,
			needle);
		return T_FAIL;
	}
	return T_PASS;
}

#endif
