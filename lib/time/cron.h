/* SPDX-License-Identifier: MIT */
/*
 * Cron expressions, as a BenchmarkSchedule's spec.schedule (and a CronJob's)
 * writes them, and "the next activation after T in time zone Z".
 *
 * Syntax: five fields separated by blanks,
 *
 *	minute (0-59)  hour (0-23)  day-of-month (1-31)  month (1-12, JAN-DEC)
 *	day-of-week (0-7, SUN-SAT; 0 and 7 are both Sunday)
 *
 * each a comma-separated list of elements: "*" (or "?" in the day fields),
 * a value "5", a range "1-5", any of those with a step "*\/15", "1-30/2", or
 * "5/15" (= "5-<max>/15"). Names are case-insensitive and may end ranges
 * ("MON-FRI"). A range must not run backwards ("5-1" is refused). Or one of
 * the macros @yearly (@annually), @monthly, @weekly, @daily (@midnight),
 * @hourly.
 *
 * Day matching is cron's: when both day-of-month and day-of-week are
 * restricted (neither holds an unstepped "*" or "?"), a day matches when
 * EITHER does ("0 0 1 * MON": the 1st and every Monday); otherwise both
 * must match.
 *
 * Time zones and daylight saving time, as the Kubernetes CronJob controller
 * (robfig/cron v3) does: an activation is every instant whose local wall
 * clock in the zone reads a matching minute (second 0). So
 * - in a spring-forward gap (Europe/Berlin 02:00 -> 03:00 on the last
 *   Sunday of March) the wall times that do not exist are skipped: "30 2 * * *"
 *   does not run that day, "0 * * * *" runs at 01:00 and 03:00;
 * - in a fall-back overlap (03:00 -> 02:00 on the last Sunday of October)
 *   the repeated wall times match twice: "30 2 * * *" runs at 02:30 CEST and
 *   again at 02:30 CET, an hour later; "0 * * * *" runs every real hour.
 */
#ifndef SB_LIB_TIME_CRON_H
#define SB_LIB_TIME_CRON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tz.h"

/* A parsed expression: one bit per allowed value. Plain data, no cleanup. */
struct sb_cron {
	uint64_t minute;	 /* bits 0..59 */
	uint32_t hour;		 /* bits 0..23 */
	uint32_t dom;		 /* bits 1..31 */
	uint16_t month;		 /* bits 1..12 */
	uint8_t dow;		 /* bits 0..6 (Sunday = 0; a 7 is stored as 0) */
	bool dom_star, dow_star; /* the field held an unstepped "*" or "?" */
};

/*
 * Parses expr into *out. Returns 0, or -EINVAL with a message in err
 * (errlen bytes, may be NULL) naming the field and the problem, e.g.
 * "day-of-month: '32' is above the maximum 31", "expected 5 fields
 * (minute hour day-of-month month day-of-week), got 6". An expression
 * that can never match ("0 0 30 2 *") is refused too.
 */
int sb_cron_parse(const char *expr, struct sb_cron *out, char *err, size_t errlen);

/*
 * The first activation strictly after UTC time `after` (seconds), in zone
 * tz (NULL: UTC), in *next (UTC seconds). Returns 0, or -ERANGE when
 * there is none in the 30 years after `after` (only possible for
 * expressions whose every match falls into skipped DST gaps).
 */
int sb_cron_next(const struct sb_cron *c, const struct sb_tz *tz, int64_t after, int64_t *next);

/*
 * Whether the local wall time (seconds since the epoch as if the zone were
 * UTC) matches minute, hour, day and month (seconds ignored). For tests.
 */
bool sb_cron_matches_wall(const struct sb_cron *c, int64_t wall);

#endif
