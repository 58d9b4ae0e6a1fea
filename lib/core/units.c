/* SPDX-License-Identifier: MIT */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Parses the leading non-negative decimal number of s into *v; *end after it. */
static int parse_number(const char *s, double *v, const char **end)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s) && *s != '.')
		return -EINVAL;
	errno = 0;
	*v = strtod(s, &e);
	if (e == s || errno == ERANGE || !isfinite(*v) || *v < 0)
		return errno == ERANGE ? -ERANGE : -EINVAL;
	*end = e;
	return 0;
}

static bool only_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return *s == '\0';
}

/*
 * A decimal number as written: digits with an optional fraction, then an
 * optional exponent ("1.5e3"). The value is the digits of [start, stop)
 * (the point skipped) times 10^(exp - digits after the point).
 */
struct decimal {
	const char *start, *stop;
	long exp;
};

/* Scans the leading decimal number of s (after spaces); *end after it. 0 or -EINVAL. */
static int scan_decimal(const char *s, struct decimal *d, const char **end)
{
	while (isspace((unsigned char)*s))
		s++;
	const char *p = s;
	size_t ndigits = 0;
	for (; isdigit((unsigned char)*p); p++)
		ndigits++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			ndigits++;
	if (!ndigits)
		return -EINVAL;
	d->start = s;
	d->stop = p;
	d->exp = 0;
	if (*p == 'e' || *p == 'E') {
		const char *q = p + 1;
		long sign = *q == '-' ? -1 : 1;
		if (*q == '+' || *q == '-')
			q++;
		if (isdigit((unsigned char)*q)) {
			long x = 0;
			for (; isdigit((unsigned char)*q); q++)
				if (x < 100000)
					x = x * 10 + (*q - '0');
			d->exp = sign * x;
			p = q;
		}
	}
	*end = p;
	return 0;
}

/*
 * d times 10^scale, exactly (no double in between): 0, -EINVAL when it is
 * not a whole number, -ERANGE when it is 2^64 or more.
 */
static int decimal_u64(const struct decimal *d, long scale, uint64_t *out)
{
	const char *first = d->start, *last = d->stop;
	const char *dot = memchr(first, '.', (size_t)(last - first));
	long exp = d->exp + scale - (dot ? (long)(last - dot - 1) : 0);
	/* significant digits only: a trailing zero dropped raises the power */
	while (first < last && (*first == '0' || *first == '.'))
		first++;
	for (; last > first && (last[-1] == '0' || last[-1] == '.'); last--)
		if (last[-1] == '0')
			exp++;
	if (first == last) {
		*out = 0;
		return 0;
	}
	if (exp < 0)
		return -EINVAL; /* the last significant digit is below the units */
	if (exp > 20)
		return -ERANGE;
	uint64_t v = 0;
	for (const char *p = first; p < last; p++) {
		if (*p == '.')
			continue;
		unsigned dig = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - dig) / 10)
			return -ERANGE;
		v = v * 10 + dig;
	}
	for (; exp > 0; exp--) {
		if (v > UINT64_MAX / 10)
			return -ERANGE;
		v *= 10;
	}
	*out = v;
	return 0;
}

int sb_parse_size(const char *s, unsigned kb_base, uint64_t *out)
{
	const char *p;
	double v, mult = 1.0;
	uint64_t imult = 1;
	int ret;

	if (!s)
		return -EINVAL;
	ret = parse_number(s, &v, &p);
	if (ret)
		return ret;
	const char *num_end = p;
	if (kb_base != 1000)
		kb_base = 1024;
	int power = 0;
	switch (tolower((unsigned char)*p)) {
	case 'k':
		power = 1;
		break;
	case 'm':
		power = 2;
		break;
	case 'g':
		power = 3;
		break;
	case 't':
		power = 4;
		break;
	case 'p':
		power = 5;
		break;
	default:
		break;
	}
	if (power) {
		p++;
		unsigned base = kb_base;
		if (*p == 'i' || *p == 'I') {
			base = 1024;
			p++;
		}
		if (*p == 'b' || *p == 'B')
			p++;
		for (int i = 0; i < power; i++) {
			mult *= base;
			imult *= base;
		}
	} else if (*p == 'b' || *p == 'B') {
		p++;
	}
	if (!only_space(p))
		return -EINVAL;
	/* a whole number of units is multiplied exactly (above 2^53 a double rounds) */
	struct decimal d;
	const char *e;
	uint64_t whole;
	if (!scan_decimal(s, &d, &e) && e == num_end && !decimal_u64(&d, 0, &whole)) {
		if (whole > (uint64_t)INT64_MAX / imult)
			return -ERANGE;
		*out = whole * imult;
		return 0;
	}
	double r = v * mult;
	/* llround's long long ends at 2^63: beyond it, an error (not 2^63 exactly) */
	if (!(r < 9223372036854775808.0))
		return -ERANGE;
	*out = (uint64_t)llround(r);
	return 0;
}

int sb_parse_size_or_percent(const char *s, unsigned kb_base, uint64_t *out, unsigned *percent)
{
	const char *pct = s ? strchr(s, '%') : NULL;

	*percent = 0;
	if (!pct)
		return sb_parse_size(s, kb_base, out);
	double v;
	const char *p;
	if (parse_number(s, &v, &p) || p != pct || !only_space(pct + 1))
		return -EINVAL;
	if (v < 1.0 || v > 100.0 || v != floor(v))
		return -ERANGE;
	*percent = (unsigned)v;
	*out = 0;
	return 0;
}

int sb_parse_duration_us(const char *s, uint64_t default_unit_us, uint64_t *out_us)
{
	static const struct {
		const char *name;
		double us;
	} units[] = {
		{"us", 1},     {"usec", 1},	 {"ms", 1e3},	 {"msec", 1e3},
		{"s", 1e6},    {"sec", 1e6},	 {"m", 60e6},	 {"min", 60e6},
		{"h", 3600e6}, {"hour", 3600e6}, {"d", 86400e6}, {"day", 86400e6},
	};
	const char *p;
	double v;
	int ret;

	if (!s)
		return -EINVAL;
	ret = parse_number(s, &v, &p);
	if (ret)
		return ret;
	double mult = (double)default_unit_us;
	if (!only_space(p)) {
		size_t n = strlen(p);
		while (n && isspace((unsigned char)p[n - 1]))
			n--;
		bool found = false;
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			if (strlen(units[i].name) == n && strncasecmp(p, units[i].name, n) == 0) {
				mult = units[i].us;
				found = true;
				break;
			}
		}
		if (!found)
			return -EINVAL;
	}
	double r = v * mult;
	if (r >= 9.2e18)
		return -ERANGE;
	*out_us = (uint64_t)llround(r);
	return 0;
}

int sb_parse_u64(const char *s, uint64_t *out)
{
	struct decimal d;
	const char *p;
	long scale = 0;
	int ret;

	if (!s)
		return -EINVAL;
	ret = scan_decimal(s, &d, &p);
	if (ret)
		return ret;
	switch (tolower((unsigned char)*p)) {
	case 'k':
		scale = 3;
		p++;
		break;
	case 'm':
		scale = 6;
		p++;
		break;
	case 'g':
		scale = 9;
		p++;
		break;
	default:
		break;
	}
	if (!only_space(p))
		return -EINVAL;
	return decimal_u64(&d, scale, out);
}

int sb_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	struct decimal d = {s, s, 0};
	if (!s)
		return -EINVAL;
	while (isdigit((unsigned char)*d.stop))
		d.stop++;
	if (d.stop == s || *d.stop)
		return -EINVAL;
	uint64_t v;
	int ret = decimal_u64(&d, 0, &v);
	if (ret)
		return ret;
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int sb_parse_quantity(const char *s, uint64_t *out)
{
	static const struct {
		const char *sfx;
		double mult;
	} sfx[] = {
		{"Ki", 1024.0},
		{"Mi", 1048576.0},
		{"Gi", 1073741824.0},
		{"Ti", 1099511627776.0},
		{"Pi", 1125899906842624.0},
		{"Ei", 1152921504606846976.0},
		{"k", 1e3},
		{"M", 1e6},
		{"G", 1e9},
		{"T", 1e12},
		{"P", 1e15},
		{"E", 1e18},
	};
	const char *p;
	double v;
	int ret;

	if (!s)
		return -EINVAL;
	ret = parse_number(s, &v, &p);
	if (ret)
		return ret;
	double mult = 1.0;
	if (*p) {
		size_t i;
		for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++)
			if (!strcmp(p, sfx[i].sfx))
				break;
		if (i == sizeof(sfx) / sizeof(sfx[0]))
			return -EINVAL;
		mult = sfx[i].mult;
	}
	double r = v * mult;
	if (r >= 18446744073709551616.0)
		return -ERANGE;
	if (r != floor(r))
		return -EINVAL;
	*out = (uint64_t)r;
	return 0;
}

int sb_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = {"1", "true", "yes", "on"};
	static const char *const no[] = {"0", "false", "no", "off"};

	if (!s)
		return -EINVAL;
	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

char *sb_fmt_bytes(uint64_t v, char *buf, size_t len)
{
	static const char *const pfx[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	unsigned i = 0;
	uint64_t x = v;

	/* exact and short: divide while divisible and still over 4 digits */
	while (i < 6 && x >= 10000 && x % 1024 == 0) {
		x /= 1024;
		i++;
	}
	if (x < 10000) {
		snprintf(buf, len, "%llu%s", (unsigned long long)x, pfx[i]);
		return buf;
	}
	double d = (double)v;
	i = 0;
	while (i < 6 && d >= 1024.0) {
		d /= 1024.0;
		i++;
	}
	snprintf(buf, len, "%.*f%s", d < 10 ? 2 : d < 100 ? 1 : 0, d, pfx[i]);
	return buf;
}

char *sb_fmt_si(double v, int sig, char *buf, size_t len)
{
	static const char *const pfx[] = {"", "k", "M", "G", "T", "P", "E"};
	unsigned i = 0;
	double a = fabs(v);

	if (sig < 1)
		sig = 1;
	while (i < 6 && a >= 1000.0 - 0.5 * pow(10.0, 3 - sig)) {
		a /= 1000.0;
		i++;
	}
	int digits = a >= 100 ? 3 : a >= 10 ? 2 : 1;
	int dec = sig - digits;
	if (dec < 0 || i == 0)
		dec = i == 0 && a == floor(a) ? 0 : (dec < 0 ? 0 : dec);
	snprintf(buf, len, "%s%.*f%s", v < 0 ? "-" : "", dec, a, pfx[i]);
	return buf;
}

char *sb_fmt_rate(double bps, char *buf, size_t len)
{
	static const char *const pfx[] = {"B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s", "PiB/s"};
	unsigned i = 0;
	double a = fabs(bps);

	while (i < 5 && a >= 1023.5) {
		a /= 1024.0;
		i++;
	}
	snprintf(buf, len, "%s%.*f %s", bps < 0 ? "-" : "",
		 a < 10	   ? 2
		 : a < 100 ? 1
			   : 0,
		 a, pfx[i]);
	return buf;
}

char *sb_fmt_ns(double ns, char *buf, size_t len)
{
	double a = fabs(ns);
	const char *unit = "ns";
	double div = 1.0;

	if (a >= 999.5e6) {
		unit = "s";
		div = 1e9;
	} else if (a >= 999.5e3) {
		unit = "ms";
		div = 1e6;
	} else if (a >= 999.5) {
		unit = "us";
		div = 1e3;
	}
	double x = ns / div;
	double ax = fabs(x);
	snprintf(buf, len, "%.*f%s", ax < 10 ? 2 : ax < 100 ? 1 : 0, x, unit);
	return buf;
}
