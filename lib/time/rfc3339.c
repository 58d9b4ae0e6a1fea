/* SPDX-License-Identifier: MIT */
#include "rfc3339.h"

#include "core/errfmt.h"
#include "tz.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* n decimal digits at *p into *v (advancing *p); false when one is not a digit */
static bool digits(const char **p, int n, int *v)
{
	int x = 0;
	for (int i = 0; i < n; i++) {
		char c = (*p)[i];
		if (c < '0' || c > '9')
			return false;
		x = x * 10 + (c - '0');
	}
	*p += n;
	*v = x;
	return true;
}

/* the expected character c at *p (advancing), or one of c and alt */
static bool expect(const char **p, char c, char alt)
{
	if (**p != c && (!alt || **p != alt))
		return false;
	(*p)++;
	return true;
}

/* the zone at p: *off seconds east of UTC; 0 or -EINVAL (message written) */
static int parse_zone(const char *s, const char *p, long *off, char *err, size_t errlen)
{
	int hh, mm;
	if (*p == 'Z' || *p == 'z') {
		*off = 0;
		p++;
	} else if (*p == '+' || *p == '-') {
		int sign = *p == '-' ? -1 : 1;
		const char *q = p + 1;
		if (!digits(&q, 2, &hh) || !expect(&q, ':', 0) || !digits(&q, 2, &mm))
			return sb_errf(err, errlen, -EINVAL,
				       "'%s': the offset must be +hh:mm or -hh:mm", s);
		if (hh > 23 || mm > 59)
			return sb_errf(err, errlen, -EINVAL, "'%s': offset %.6s out of range", s,
				       p);
		*off = sign * (hh * 3600L + mm * 60L);
		p = q;
	} else {
		return sb_errf(err, errlen, -EINVAL,
			       "'%s': a zone (Z or +hh:mm) must follow the time", s);
	}
	if (*p)
		return sb_errf(err, errlen, -EINVAL, "'%s': unexpected '%s' after the zone", s, p);
	return 0;
}

int sb_rfc3339_parse(const char *s, time_t *out, char *err, size_t errlen)
{
	int y, mo, d, h, mi, sec;
	const char *p = s;
	if (!s || !*s)
		return sb_errf(err, errlen, -EINVAL, "empty timestamp");
	if (!digits(&p, 4, &y) || !expect(&p, '-', 0) || !digits(&p, 2, &mo) ||
	    !expect(&p, '-', 0) || !digits(&p, 2, &d))
		return sb_errf(err, errlen, -EINVAL, "'%s': the date must be YYYY-MM-DD", s);
	if (!expect(&p, 'T', 't') || !digits(&p, 2, &h) || !expect(&p, ':', 0) ||
	    !digits(&p, 2, &mi) || !expect(&p, ':', 0) || !digits(&p, 2, &sec))
		return sb_errf(err, errlen, -EINVAL,
			       "'%s': the time must follow the date as THH:MM:SS", s);
	if (mo < 1 || mo > 12)
		return sb_errf(err, errlen, -EINVAL, "'%s': month %d out of range", s, mo);
	if (d < 1 || (unsigned)d > sb_days_in_month(y, (unsigned)mo))
		return sb_errf(err, errlen, -EINVAL, "'%s': day %d out of range for %04d-%02d", s,
			       d, y, mo);
	if (h > 23 || mi > 59 || sec > 60)
		return sb_errf(err, errlen, -EINVAL, "'%s': time %02d:%02d:%02d out of range", s, h,
			       mi, sec);
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return sb_errf(err, errlen, -EINVAL,
				       "'%s': a digit must follow the decimal point", s);
		while (*p >= '0' && *p <= '9')
			p++;
	}
	long off = 0;
	int ret = parse_zone(s, p, &off, err, errlen);
	if (ret)
		return ret;
	int64_t t = sb_days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600L +
		    mi * 60L + sec - off;
	if ((time_t)t != t)
		return sb_errf(err, errlen, -EINVAL, "'%s': out of range", s);
	*out = (time_t)t;
	return 0;
}

char *sb_rfc3339_format(time_t t, char *buf, size_t len)
{
	int64_t days = (int64_t)t / 86400, secs = (int64_t)t % 86400;
	int64_t y;
	unsigned m, d;
	if (!buf || !len)
		return buf;
	if (secs < 0) {
		secs += 86400;
		days--;
	}
	sb_civil_from_days(days, &y, &m, &d);
	buf[0] = '\0';
	if (y < 0 || y > 9999 || len < SB_RFC3339_LEN)
		return buf;
	snprintf(buf, len, "%04d-%02u-%02uT%02d:%02d:%02dZ", (int)y, m, d, (int)(secs / 3600),
		 (int)(secs / 60 % 60), (int)(secs % 60));
	return buf;
}
