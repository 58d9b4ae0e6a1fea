/* SPDX-License-Identifier: MIT */
/* lib/time/rfc3339.c: the one RFC 3339 parser (zones, offsets, fractions, ranges, errors). */
#include "tests/unit/harness.h"
#include "time/rfc3339.h"
#include "controller/run/manifests.h"

#include <errno.h>

static int test_utc(void)
{
	time_t t = 1;
	CHECK_INT(sb_rfc3339_parse("1970-01-01T00:00:00Z", &t, NULL, 0), 0);
	CHECK_INT(t, 0);
	CHECK_INT(sb_rfc3339_parse("2024-05-01T12:30:15Z", &t, NULL, 0), 0);
	CHECK_INT(t, 1714566615);
	CHECK_INT(sb_rfc3339_parse("2026-11-30T18:24:08z", &t, NULL, 0), 0);
	CHECK_INT(t, 1796063048);
	CHECK_INT(sb_rfc3339_parse("2026-11-30t18:24:08Z", &t, NULL, 0), 0);
	CHECK_INT(t, 1796063048);
	/* before the epoch, and far after 2038 */
	CHECK_INT(sb_rfc3339_parse("1969-12-31T23:59:59Z", &t, NULL, 0), 0);
	CHECK_INT(t, -1);
	CHECK_INT(sb_rfc3339_parse("2100-03-01T00:00:00Z", &t, NULL, 0), 0);
	CHECK_INT(t, 4107542400LL);
	return T_PASS;
}

/* The same instant written in three zones is one time_t. */
static int test_offsets(void)
{
	time_t a, b, c;
	CHECK_INT(sb_rfc3339_parse("2026-11-30T22:15:00Z", &a, NULL, 0), 0);
	CHECK_INT(sb_rfc3339_parse("2026-11-30T23:15:00+01:00", &b, NULL, 0), 0);
	CHECK_INT(sb_rfc3339_parse("2026-11-30T16:45:00-05:30", &c, NULL, 0), 0);
	CHECK_INT(a, 1796076900);
	CHECK_INT(b, a);
	CHECK_INT(c, a);
	/* an offset that crosses the day, the month and the year */
	CHECK_INT(sb_rfc3339_parse("2027-01-01T00:30:00+01:00", &b, NULL, 0), 0);
	CHECK_INT(sb_rfc3339_parse("2026-12-31T23:30:00Z", &c, NULL, 0), 0);
	CHECK_INT(b, c);
	CHECK_INT(sb_rfc3339_parse("2026-11-30T22:15:00-00:00", &b, NULL, 0), 0);
	CHECK_INT(b, a);
	CHECK_INT(sb_rfc3339_parse("2026-11-30T22:15:00+23:59", &b, NULL, 0), 0);
	CHECK_INT(b, a - 23 * 3600 - 59 * 60);
	return T_PASS;
}

/* A fraction of any length is accepted and dropped (not rounded). */
static int test_fractions(void)
{
	time_t t;
	CHECK_INT(sb_rfc3339_parse("2024-05-01T12:30:15.1Z", &t, NULL, 0), 0);
	CHECK_INT(t, 1714566615);
	CHECK_INT(sb_rfc3339_parse("2024-05-01T12:30:15.999999999Z", &t, NULL, 0), 0);
	CHECK_INT(t, 1714566615);
	CHECK_INT(sb_rfc3339_parse("2026-11-30T23:15:00.123456+01:00", &t, NULL, 0), 0);
	CHECK_INT(t, 1796076900);
	return T_PASS;
}

/* Leap days and a leap second. */
static int test_calendar(void)
{
	time_t t;
	CHECK_INT(sb_rfc3339_parse("2024-02-29T00:00:00Z", &t, NULL, 0), 0);
	CHECK_INT(t, 1709164800);
	CHECK_INT(sb_rfc3339_parse("2000-02-29T00:00:00Z", &t, NULL, 0), 0);
	CHECK_INT(t, 951782400);
	CHECK_INT(sb_rfc3339_parse("2016-12-31T23:59:60Z", &t, NULL, 0), 0);
	CHECK_INT(t, 1483228800);
	return T_PASS;
}

/* Each bad input is refused with a message naming the input and the problem; *out is kept. */
static int test_bad(void)
{
	static const struct {
		const char *in, *why;
	} bad[] = {
		{"", "empty timestamp"},
		{"2026-11-30T22:15:00", "a zone (Z or +hh:mm) must follow the time"},
		{"2026-11-30T22:15:00Zjunk", "unexpected 'junk' after the zone"},
		{"2026-11-30T22:15:00+0100", "the offset must be +hh:mm or -hh:mm"},
		{"2026-11-30T22:15:00+1:00", "the offset must be +hh:mm or -hh:mm"},
		{"2026-11-30T22:15:00+24:00", "offset +24:00 out of range"},
		{"2026-11-30T22:15:00+01:60", "offset +01:60 out of range"},
		{"2026-11-30T22:15:00+01:00:00", "unexpected ':00' after the zone"},
		{"2026-11-30T22:15:00.Z", "a digit must follow the decimal point"},
		{"2026-11-30 22:15:00Z", "the time must follow the date as THH:MM:SS"},
		{"2026-11-30T22:15Z", "the time must follow the date as THH:MM:SS"},
		{"26-11-30T22:15:00Z", "the date must be YYYY-MM-DD"},
		{"2026-1-30T22:15:00Z", "the date must be YYYY-MM-DD"},
		{"2026-13-01T00:00:00Z", "month 13 out of range"},
		{"2026-00-01T00:00:00Z", "month 0 out of range"},
		{"2026-02-29T00:00:00Z", "day 29 out of range for 2026-02"},
		{"1900-02-29T00:00:00Z", "day 29 out of range for 1900-02"},
		{"2026-04-31T00:00:00Z", "day 31 out of range for 2026-04"},
		{"2026-04-00T00:00:00Z", "day 0 out of range"},
		{"2026-04-01T24:00:00Z", "time 24:00:00 out of range"},
		{"2026-04-01T23:60:00Z", "time 23:60:00 out of range"},
		{"2026-04-01T23:59:61Z", "time 23:59:61 out of range"},
		{"yesterday", "the date must be YYYY-MM-DD"},
		{"-026-04-01T00:00:00Z", "the date must be YYYY-MM-DD"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char why[160] = "";
		time_t t = 42;
		int r = sb_rfc3339_parse(bad[i].in, &t, why, sizeof(why));
		if (r != -EINVAL || t != 42 || !strstr(why, bad[i].why) ||
		    (*bad[i].in && !strstr(why, bad[i].in))) {
			fprintf(stderr, "    '%s': %d, t %lld, \"%s\" (expected \"%s\")\n",
				bad[i].in, r, (long long)t, why, bad[i].why);
			return T_FAIL;
		}
	}
	time_t t = 42;
	CHECK_INT(sb_rfc3339_parse(NULL, &t, NULL, 0), -EINVAL);
	CHECK_INT(t, 42);
	/* a short buffer is truncated and terminated */
	char small[8];
	CHECK_INT(sb_rfc3339_parse("2026-13-01T00:00:00Z", &t, small, sizeof(small)), -EINVAL);
	CHECK_INT(strlen(small), 7);
	return T_PASS;
}

/* The controller's "time or 0" reads through the same parser: the zone counts. */
static int test_controller_callers(void)
{
	CHECK_INT(br_time_parse("2026-11-30T22:15:00Z"), 1796076900);
	CHECK_INT(br_time_parse("2026-11-30T23:15:00+01:00"), 1796076900);
	CHECK_INT(br_time_parse("2026-11-30T22:15:00"), 0);
	CHECK_INT(br_time_parse("2026-02-30T22:15:00Z"), 0);
	CHECK_INT(br_time_parse(NULL), 0);
	return T_PASS;
}

/* The one formatter: UTC, whole seconds, and back through the parser. */
static int test_format(void)
{
	char b[SB_RFC3339_LEN];
	CHECK_STR(sb_rfc3339_format(0, b, sizeof(b)), "1970-01-01T00:00:00Z");
	CHECK_STR(sb_rfc3339_format(1796063048, b, sizeof(b)), "2026-11-30T18:24:08Z");
	CHECK_STR(sb_rfc3339_format(-1, b, sizeof(b)), "1969-12-31T23:59:59Z");
	CHECK_STR(sb_rfc3339_format(4107542400LL, b, sizeof(b)), "2100-03-01T00:00:00Z");
	/* leap day */
	CHECK_STR(sb_rfc3339_format(1709208000, b, sizeof(b)), "2024-02-29T12:00:00Z");
	for (time_t t = -86400 * 400; t < 86400LL * 365 * 200; t += 86400 * 37 + 3607) {
		time_t back = 0;
		CHECK_INT(sb_rfc3339_parse(sb_rfc3339_format(t, b, sizeof(b)), &back, NULL, 0), 0);
		CHECK_INT(back, t);
	}
	/* too short a buffer, or a year past 9999: "" */
	char small[SB_RFC3339_LEN - 1];
	CHECK_STR(sb_rfc3339_format(0, small, sizeof(small)), "");
	CHECK_STR(sb_rfc3339_format(253402300800LL, b, sizeof(b)), "");
	return T_PASS;
}

static const struct test_case cases[] = {
	{"rfc3339/format", test_format},
	{"rfc3339/utc", test_utc},
	{"rfc3339/offsets", test_offsets},
	{"rfc3339/fractions", test_fractions},
	{"rfc3339/calendar", test_calendar},
	{"rfc3339/bad-input", test_bad},
	{"rfc3339/controller-callers", test_controller_callers},
};
TEST_MAIN(cases)
