/* SPDX-License-Identifier: MIT */
/*
 * The readers of spec fields (controller/core/field.h): absent fields keep
 * the caller's default, valid ones are read, and every refusal has the one
 * wording "<path>.<key>: must be ...".
 */
#include "tests/unit/harness.h"
#include "controller/core/field.h"

#include <errno.h>
#include <string.h>

static json_t *obj(const char *text)
{
	return json_loads(text, 0, NULL);
}

static int test_absent_keeps_default(void)
{
	json_t *o = obj("{}");
	char s[8] = "dflt", err[128] = "";
	unsigned u = 7;
	bool b = true;
	double d = 2.5;
	const json_t *sub = o;
	CHECK_INT(br_field_string(o, "x", "spec", s, sizeof(s), err, sizeof(err)), 0);
	CHECK_INT(br_field_uint(o, "x", "spec", 1, 9, &u, err, sizeof(err)), 0);
	CHECK_INT(br_field_bool(o, "x", "spec", &b, err, sizeof(err)), 0);
	CHECK_INT(br_field_number(o, "x", "spec", 0, 9, &d, err, sizeof(err)), 0);
	CHECK_INT(br_field_object(o, "x", "spec", &sub, err, sizeof(err)), 0);
	/* no object at all: no field */
	CHECK_INT(br_field_uint(NULL, "x", "spec", 1, 9, &u, err, sizeof(err)), 0);
	CHECK_STR(s, "dflt");
	CHECK_INT(u, 7);
	CHECK(b && d == 2.5 && sub == o);
	CHECK_STR(err, "");
	json_decref(o);
	return T_PASS;
}

static int test_values_read(void)
{
	json_t *o = obj("{\"s\":\"abc\",\"u\":4,\"b\":false,\"d\":0.5,\"o\":{\"k\":1}}");
	char s[8] = "", err[128] = "";
	unsigned u = 0;
	bool b = true;
	double d = 0;
	const json_t *sub = NULL;
	CHECK_INT(br_field_string(o, "s", "spec", s, sizeof(s), err, sizeof(err)), 0);
	CHECK_INT(br_field_uint(o, "u", "spec", 1, 9, &u, err, sizeof(err)), 0);
	CHECK_INT(br_field_bool(o, "b", "spec", &b, err, sizeof(err)), 0);
	CHECK_INT(br_field_number(o, "d", "spec", 0, 1, &d, err, sizeof(err)), 0);
	CHECK_INT(br_field_object(o, "o", "spec", &sub, err, sizeof(err)), 0);
	CHECK_STR(s, "abc");
	CHECK_INT(u, 4);
	CHECK(!b && d == 0.5 && sub == json_object_get(o, "o"));
	json_decref(o);
	return T_PASS;
}

static int test_one_wording(void)
{
	json_t *o = obj("{\"s\":1,\"long\":\"abcdefgh\",\"u\":10,\"neg\":-1,\"b\":\"yes\","
			"\"d\":2e6,\"o\":[1]}");
	char s[8] = "", err[128];
	unsigned u = 0;
	bool b = false;
	double d = 0;
	const json_t *sub = NULL;
	CHECK_INT(br_field_string(o, "s", "spec.runner", s, sizeof(s), err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "spec.runner.s: must be a string");
	CHECK_INT(br_field_string(o, "long", "spec", s, sizeof(s), err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "spec.long: must be at most 7 characters");
	CHECK_INT(br_field_uint(o, "u", "spec", 1, 9, &u, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "spec.u: must be an integer from 1 to 9");
	CHECK_INT(br_field_uint(o, "neg", "spec", 0, 9, &u, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "spec.neg: must be an integer from 0 to 9");
	CHECK_INT(br_field_uint(o, "long", "spec", 0, 9, &u, err, sizeof(err)), -EINVAL);
	CHECK_INT(br_field_bool(o, "b", "spec.lifecycle", &b, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "spec.lifecycle.b: must be true or false");
	CHECK_INT(br_field_number(o, "d", "spec.validity", 2, 1e6, &d, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "spec.validity.d: must be a number from 2 to 1000000");
	CHECK_INT(br_field_number(o, "b", "spec", 0, 1, &d, err, sizeof(err)), -EINVAL);
	CHECK_INT(br_field_object(o, "o", "spec", &sub, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "spec.o: must be an object");
	/* nothing read on a refusal */
	CHECK(s[0] == '\0' && u == 0 && !b && d == 0 && sub == NULL);
	json_decref(o);
	return T_PASS;
}

static int test_known_fields(void)
{
	static const char *const known[] = {"runs", "pinned"};
	json_t *ok = obj("{\"runs\":1,\"pinned\":\"r\"}"), *bad = obj("{\"runs\":1,\"last\":2}");
	char err[128] = "";
	CHECK_INT(br_field_known(ok, "spec.baseline", known, 2, err, sizeof(err)), 0);
	CHECK_INT(br_field_known(NULL, "spec.baseline", known, 2, err, sizeof(err)), 0);
	CHECK_INT(br_field_known(bad, "spec.baseline", known, 2, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "spec.baseline.last: unknown field (runs, pinned)");
	json_decref(ok);
	json_decref(bad);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"field/an absent field keeps the default", test_absent_keeps_default},
	{"field/valid values are read", test_values_read},
	{"field/every refusal says 'must be'", test_one_wording},
	{"field/unknown fields are named with the known ones", test_known_fields},
};

TEST_MAIN(cases)
