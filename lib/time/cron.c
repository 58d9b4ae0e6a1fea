/* SPDX-License-Identifier: MIT */
/*
 * Cron expressions and their next activation in a time zone. See cron.h.
 *
 * The search walks UTC time: at instant u the zone's offset gives the wall
 * time w; the next matching wall time w' >= w is a pure calendar question;
 * we move u by (w' - w) unless the zone's rule changes before that, in
 * which case we stop at the change and look again with the new offset.
 * Wall times inside a gap are thereby never seen (skipped), those of an
 * overlap are seen twice (run twice): CronJob's behaviour.
 */
#include "cron.h"
#include "core/errfmt.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define CRON_EXPR_MAX 1024
#define SEARCH_YEARS  30

struct field {
	const char *name;
	unsigned lo, hi;
	const char *const *names; /* names[i] is value lo + i (NULL: none) */
};

static const char *const month_names[] = {"jan", "feb", "mar", "apr", "may", "jun",
					  "jul", "aug", "sep", "oct", "nov", "dec"};
static const char *const dow_names[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

enum { F_MIN, F_HOUR, F_DOM, F_MON, F_DOW, F_N };

static const struct field fields[F_N] = {
	{"minute", 0, 59, NULL},	  {"hour", 0, 23, NULL},
	{"day-of-month", 1, 31, NULL},	  {"month", 1, 12, month_names},
	{"day-of-week", 0, 7, dow_names},
};

/*
 * A value of field f at s[0..n): digits or a name. 0 or -EINVAL (message
 * written).
 */
static int parse_value(const struct field *f, const char *s, size_t n, unsigned *out, char *err,
		       size_t errlen)
{
	if (n == 0) {
		sb_errf(err, errlen, 0, "%s: a value is missing", f->name);
		return -EINVAL;
	}
	if (isdigit((unsigned char)s[0])) {
		unsigned long v = 0;
		for (size_t i = 0; i < n; i++) {
			if (!isdigit((unsigned char)s[i])) {
				sb_errf(err, errlen, 0, "%s: '%.*s' is not a number", f->name,
					(int)n, s);
				return -EINVAL;
			}
			if (v < 1000000)
				v = v * 10 + (unsigned)(s[i] - '0');
		}
		if (v < f->lo || v > f->hi) {
			sb_errf(err, errlen, 0, "%s: '%.*s' is %s the %s %u", f->name, (int)n, s,
				v < f->lo ? "below" : "above", v < f->lo ? "minimum" : "maximum",
				v < f->lo ? f->lo : f->hi);
			return -EINVAL;
		}
		*out = (unsigned)v;
		return 0;
	}
	if (f->names && n == 3) {
		unsigned count = f == &fields[F_MON] ? 12 : 7;
		for (unsigned i = 0; i < count; i++)
			if (strncasecmp(s, f->names[i], 3) == 0) {
				*out = f->lo + i;
				return 0;
			}
	}
	if (f->names)
		sb_errf(err, errlen, 0, "%s: '%.*s' is neither a number nor a %s name", f->name,
			(int)(n > 32 ? 32 : n), s, f == &fields[F_MON] ? "month" : "day");
	else
		sb_errf(err, errlen, 0, "%s: '%.*s' is not a number", f->name,
			(int)(n > 32 ? 32 : n), s);
	return -EINVAL;
}

/* One list element s[0..n) of field f: adds its values to *bits. */
static int parse_element(const struct field *f, const char *s, size_t n, uint64_t *bits, bool *star,
			 char *err, size_t errlen)
{
	const char *slash = memchr(s, '/', n);
	size_t rn = slash ? (size_t)(slash - s) : n;
	unsigned lo, hi, step = 1;
	bool is_star = false;
	int r;

	if (rn == 1 &&
	    (s[0] == '*' || (s[0] == '?' && (f == &fields[F_DOM] || f == &fields[F_DOW])))) {
		is_star = true;
		lo = f->lo;
		hi = f == &fields[F_DOW] ? 6 : f->hi;
	} else {
		const char *dash = memchr(s, '-', rn);
		if (dash) {
			r = parse_value(f, s, (size_t)(dash - s), &lo, err, errlen);
			if (!r)
				r = parse_value(f, dash + 1, rn - (size_t)(dash - s) - 1, &hi, err,
						errlen);
			if (r)
				return r;
			if (lo > hi) {
				sb_errf(err, errlen, 0,
					"%s: range '%.*s' runs backwards (start after end)",
					f->name, (int)rn, s);
				return -EINVAL;
			}
		} else {
			r = parse_value(f, s, rn, &lo, err, errlen);
			if (r)
				return r;
			/* "5/15" means "5-max/15" */
			hi = slash ? (f == &fields[F_DOW] ? 6 : f->hi) : lo;
			if (slash && lo > hi)
				hi = lo;
		}
	}
	if (slash) {
		const char *st = slash + 1;
		size_t sn = n - rn - 1;
		unsigned long v = 0;
		if (sn == 0) {
			sb_errf(err, errlen, 0, "%s: step missing after '/' in '%.*s'", f->name,
				(int)n, s);
			return -EINVAL;
		}
		for (size_t i = 0; i < sn; i++) {
			if (!isdigit((unsigned char)st[i])) {
				sb_errf(err, errlen, 0, "%s: step '%.*s' is not a number", f->name,
					(int)sn, st);
				return -EINVAL;
			}
			if (v < 1000000)
				v = v * 10 + (unsigned)(st[i] - '0');
		}
		if (v == 0) {
			sb_errf(err, errlen, 0, "%s: step 0 in '%.*s' (a step must be at least 1)",
				f->name, (int)n, s);
			return -EINVAL;
		}
		if (v > f->hi) {
			sb_errf(err, errlen, 0,
				"%s: step %lu in '%.*s' is larger than the field (%u-%u)", f->name,
				v, (int)n, s, f->lo, f->hi);
			return -EINVAL;
		}
		step = (unsigned)v;
	}
	for (unsigned v = lo; v <= hi; v += step)
		*bits |= 1ULL << (f == &fields[F_DOW] && v == 7 ? 0 : v);
	/* "*\/1" is still "every value"; "*\/2" restricts the field (robfig/cron) */
	if (is_star && step == 1)
		*star = true;
	return 0;
}

static int parse_field(int fi, const char *s, size_t n, uint64_t *bits, bool *star, char *err,
		       size_t errlen)
{
	const struct field *f = &fields[fi];
	*bits = 0;
	*star = false;
	size_t start = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != ',')
			continue;
		if (i == start) {
			sb_errf(err, errlen, 0, "%s: empty element in list '%.*s'", f->name, (int)n,
				s);
			return -EINVAL;
		}
		int r = parse_element(f, s + start, i - start, bits, star, err, errlen);
		if (r)
			return r;
		start = i + 1;
	}
	return 0;
}

static const struct {
	const char *name, *expr;
} macros[] = {
	{"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
	{"@weekly", "0 0 * * 0"}, {"@daily", "0 0 * * *"},    {"@midnight", "0 0 * * *"},
	{"@hourly", "0 * * * *"},
};

/* whether some allowed month has an allowed day-of-month (when dom counts alone) */
static bool dom_possible(const struct sb_cron *c)
{
	static const unsigned maxd[13] = {0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	for (unsigned m = 1; m <= 12; m++) {
		if (!(c->month & (1u << m)))
			continue;
		for (unsigned d = 1; d <= maxd[m]; d++)
			if (c->dom & (1u << d))
				return true;
	}
	return false;
}

int sb_cron_parse(const char *expr, struct sb_cron *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (!expr) {
		sb_errf(err, errlen, 0, "the expression is empty");
		return -EINVAL;
	}
	while (*expr == ' ' || *expr == '\t')
		expr++;
	size_t len = strlen(expr);
	while (len && (expr[len - 1] == ' ' || expr[len - 1] == '\t'))
		len--;
	if (len == 0) {
		sb_errf(err, errlen, 0, "the expression is empty");
		return -EINVAL;
	}
	if (len > CRON_EXPR_MAX) {
		sb_errf(err, errlen, 0, "the expression is longer than %d characters",
			CRON_EXPR_MAX);
		return -EINVAL;
	}
	if (expr[0] == '@') {
		for (size_t i = 0; i < sizeof(macros) / sizeof(macros[0]); i++)
			if (strlen(macros[i].name) == len &&
			    strncasecmp(expr, macros[i].name, len) == 0)
				return sb_cron_parse(macros[i].expr, out, err, errlen);
		sb_errf(err, errlen, 0,
			"unknown macro '%.*s' (expected @yearly, @annually, @monthly, @weekly, "
			"@daily, @midnight or @hourly)",
			(int)(len > 32 ? 32 : len), expr);
		return -EINVAL;
	}
	if (strncmp(expr, "TZ=", 3) == 0 || strncmp(expr, "CRON_TZ=", 8) == 0) {
		sb_errf(err, errlen, 0,
			"a time zone inside the expression is not supported (use the "
			"timeZone field)");
		return -EINVAL;
	}
	/* split into fields on runs of blanks */
	const char *fs[F_N + 1];
	size_t fl[F_N + 1];
	int nf = 0;
	for (size_t i = 0; i < len;) {
		if (expr[i] == ' ' || expr[i] == '\t') {
			i++;
			continue;
		}
		size_t j = i;
		while (j < len && expr[j] != ' ' && expr[j] != '\t')
			j++;
		if (nf <= F_N) {
			fs[nf] = expr + i;
			fl[nf] = j - i;
		}
		nf++;
		i = j;
	}
	if (nf != F_N) {
		sb_errf(err, errlen, 0,
			"expected 5 fields (minute hour day-of-month month day-of-week), got %d",
			nf);
		return -EINVAL;
	}
	uint64_t bits[F_N];
	bool star[F_N];
	for (int i = 0; i < F_N; i++) {
		int r = parse_field(i, fs[i], fl[i], &bits[i], &star[i], err, errlen);
		if (r) {
			memset(out, 0, sizeof(*out));
			return r;
		}
	}
	out->minute = bits[F_MIN];
	out->hour = (uint32_t)bits[F_HOUR];
	out->dom = (uint32_t)bits[F_DOM];
	out->month = (uint16_t)bits[F_MON];
	out->dow = (uint8_t)bits[F_DOW];
	out->dom_star = star[F_DOM];
	out->dow_star = star[F_DOW];
	/* a day-of-month that no allowed month has, with nothing else to match */
	if ((out->dow_star || out->dom_star) && !dom_possible(out)) {
		sb_errf(err, errlen, 0,
			"day-of-month: '%.*s' never occurs in the months allowed by the month "
			"field ('%.*s')",
			(int)fl[F_DOM], fs[F_DOM], (int)fl[F_MON], fs[F_MON]);
		memset(out, 0, sizeof(*out));
		return -EINVAL;
	}
	return 0;
}

static bool day_matches(const struct sb_cron *c, int64_t y, unsigned m, unsigned d, int64_t days)
{
	(void)y;
	(void)m;
	bool dm = c->dom & (1u << d);
	bool wm = c->dow & (1u << sb_weekday_from_days(days));
	if (c->dom_star || c->dow_star)
		return dm && wm;
	return dm || wm;
}

bool sb_cron_matches_wall(const struct sb_cron *c, int64_t wall)
{
	int64_t days = wall >= 0 ? wall / 86400 : -((-wall + 86399) / 86400);
	int64_t sod = wall - days * 86400;
	int64_t y;
	unsigned m, d;
	sb_civil_from_days(days, &y, &m, &d);
	return (c->month & (1u << m)) && day_matches(c, y, m, d, days) &&
	       (c->hour & (1u << (sod / 3600))) && (c->minute & (1ULL << (sod / 60 % 60)));
}

/*
 * The first wall time >= w (rounded up to a whole minute) that matches, or
 * INT64_MAX when there is none before `limit`.
 */
static int64_t next_wall(const struct sb_cron *c, int64_t w, int64_t limit)
{
	int64_t days = w >= 0 ? w / 86400 : -((-w + 86399) / 86400);
	int64_t sod = w - days * 86400;
	unsigned mi = (unsigned)((sod + 59) / 60); /* minute of day, rounded up */
	if (mi >= 1440) {
		days++;
		mi = 0;
	}
	unsigned h = mi / 60;
	mi %= 60;
	int64_t y;
	unsigned m, d;
	sb_civil_from_days(days, &y, &m, &d);
	for (;;) {
		if (days * 86400 >= limit)
			return INT64_MAX;
		if (!(c->month & (1u << m))) {
			/* to the 1st of the next allowed month */
			do {
				if (++m > 12) {
					m = 1;
					y++;
				}
			} while (!(c->month & (1u << m)));
			d = 1;
			days = sb_days_from_civil(y, m, 1);
			h = mi = 0;
			continue;
		}
		if (!day_matches(c, y, m, d, days)) {
			days++;
			if (++d > sb_days_in_month(y, m)) {
				d = 1;
				if (++m > 12) {
					m = 1;
					y++;
				}
			}
			h = mi = 0;
			continue;
		}
		while (h < 24 && !(c->hour & (1u << h))) {
			h++;
			mi = 0;
		}
		while (h < 24 && mi < 60 && !(c->minute & (1ULL << mi)))
			mi++;
		if (h < 24 && mi == 60) {
			h++;
			mi = 0;
			continue; /* the hour must be checked again */
		}
		if (h == 24) {
			days++;
			if (++d > sb_days_in_month(y, m)) {
				d = 1;
				if (++m > 12) {
					m = 1;
					y++;
				}
			}
			h = mi = 0;
			continue;
		}
		return days * 86400 + h * 3600 + mi * 60;
	}
}

int sb_cron_next(const struct sb_cron *c, const struct sb_tz *tz, int64_t after, int64_t *next)
{
	if (after > INT64_MAX / 4 || after < INT64_MIN / 4)
		return -ERANGE;
	int64_t u = after + 1;
	int64_t limit_u = after + (int64_t)SEARCH_YEARS * 366 * 86400;
	while (u < limit_u) {
		int32_t off = 0;
		int64_t change = INT64_MAX;
		if (tz)
			sb_tz_lookup(tz, u, &off, &change);
		int64_t w = u + off;
		int64_t w2 = next_wall(c, w, limit_u + 2 * 86400);
		if (w2 == INT64_MAX)
			return -ERANGE;
		int64_t u2 = u + (w2 - w);
		if (change <= u2) {
			/* the offset changes first: look again from there */
			u = change;
			continue;
		}
		*next = u2;
		return 0;
	}
	return -ERANGE;
}
