/* SPDX-License-Identifier: MIT */
#ifndef SB_LIB_TIME_RFC3339_H
#define SB_LIB_TIME_RFC3339_H

#include <stddef.h>
#include <time.h>

/*
 * The one RFC 3339 timestamp parser (Kubernetes' metav1.Time, exec-plugin
 * expirations, our own annotations): "2026-11-30T22:15:00Z",
 * "2026-11-30T23:15:00.123456+01:00". The date and time are validated
 * (month 1-12, the day within its month, leap years, hour 0-23, minute
 * 0-59, second 0-60 with a leap second counted as the next one); a zone is
 * required ("Z" or "z", or an offset "+hh:mm"/"-hh:mm" up to 23:59), a
 * fraction of any length after '.' is allowed and dropped; "T" may be "t";
 * nothing may follow. *out is the UTC time in seconds since the epoch.
 * 0, or -EINVAL with the problem written to err[0..errlen) (when err is not
 * NULL), *out untouched.
 */
int sb_rfc3339_parse(const char *s, time_t *out, char *err, size_t errlen);

/*
 * The one RFC 3339 formatter: t (UTC seconds since the epoch) as
 * "2026-11-30T22:15:00Z", the form Kubernetes writes (metav1.Time: whole
 * seconds, UTC). SB_RFC3339_LEN bytes hold any year 0-9999. Returns buf,
 * "" when len is too small or the year is out of 0-9999.
 */
#define SB_RFC3339_LEN 21
char *sb_rfc3339_format(time_t t, char *buf, size_t len);

#endif
