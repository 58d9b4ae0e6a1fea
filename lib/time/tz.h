/* SPDX-License-Identifier: MIT */
/*
 * Time zones from TZif files (RFC 8536), read by our own small reader, so
 * converting a time in one zone never touches the process-global TZ
 * variable (setenv("TZ") + localtime_r is not thread-safe and changes every
 * other thread's idea of local time).
 *
 * A zone is an immutable table of transitions plus the file's footer rule
 * (a POSIX TZ string such as "CET-1CEST,M3.5.0,M10.5.0/3") for the times
 * after the table's last transition. Once loaded it is read-only and may be
 * shared between threads.
 *
 * Times are UTC seconds since the epoch (int64_t); offsets are seconds east
 * of UTC ("utoff": +3600 for CET). Leap seconds in a file are ignored (the
 * "right/" zones are not supported: they would make local time differ from
 * the POSIX clock Kubernetes uses).
 */
#ifndef SB_LIB_TIME_TZ_H
#define SB_LIB_TIME_TZ_H

#include <stddef.h>
#include <stdint.h>

struct sb_tz;

/* Where zone files are read from unless the caller names a directory. */
#define SB_TZ_DIR_DEFAULT "/usr/share/zoneinfo"

/*
 * Loads the zone `name` (an IANA name such as "Europe/Berlin") from the
 * TZif file dir/name (dir NULL: SB_TZ_DIR_DEFAULT). "" and "UTC" are UTC
 * without reading a file. A name is refused unless it is made of
 * [A-Za-z0-9_+-] components separated by single '/', none of them "." or
 * "..", at most 255 characters (it comes from a user's object). On success
 * *out is a new zone the caller frees with sb_tz_free. On error *out is
 * NULL and err (errlen bytes, may be NULL) says why, naming the zone:
 * -EINVAL (a bad name, or a file that is not valid TZif), -ENOENT (no such
 * zone), or another -errno from reading the file.
 */
int sb_tz_load(const char *name, const char *dir, struct sb_tz **out, char *err, size_t errlen);

/*
 * Parses a TZif image already in memory (len bytes) as zone `name` (kept
 * for messages). Same results as sb_tz_load; for tests and fuzzing.
 */
int sb_tz_parse(const char *name, const unsigned char *buf, size_t len, struct sb_tz **out,
		char *err, size_t errlen);

/* Frees tz (NULL is fine). */
void sb_tz_free(struct sb_tz *tz);

/* The name the zone was loaded under (borrowed, lives as long as tz). */
const char *sb_tz_name(const struct sb_tz *tz);

/*
 * The UTC offset in effect at UTC time t (seconds east of UTC) in *utoff,
 * and, when next is not NULL, the first time after t at which the zone's
 * rule changes (a transition: the offset may or may not change there) in
 * *next, or INT64_MAX when there is none. Never fails.
 */
void sb_tz_lookup(const struct sb_tz *tz, int64_t t, int32_t *utoff, int64_t *next);

/*
 * Civil-calendar helpers on the proleptic Gregorian calendar (no zone):
 * days since 1970-01-01 of y-m-d (m 1..12, d 1..31), and back; weekday of
 * a day count (0 = Sunday).
 */
int64_t sb_days_from_civil(int64_t y, unsigned m, unsigned d);
void sb_civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d);
unsigned sb_weekday_from_days(int64_t days);
/* 28..31 */
unsigned sb_days_in_month(int64_t y, unsigned m);

#endif
