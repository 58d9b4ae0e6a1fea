/* SPDX-License-Identifier: MIT */
/*
 * A TZif (RFC 8536) reader and POSIX TZ rule evaluator. See tz.h.
 *
 * The file: a v1 header and 32-bit data block, then (version '2' and up) a
 * second header, a 64-bit data block and a footer "\n<POSIX TZ string>\n"
 * that gives the rule for times after the last transition. We read the
 * 64-bit block when there is one, the 32-bit block otherwise.
 */
#include "tz.h"
#include "core/errfmt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TZ_NAME_MAX  255
#define TZ_FILE_MAX  (1 << 20)
#define TZ_TRANS_MAX 100000
/* |utoff| bound: RFC 8536 says -89999..93599; we keep a day either side */
#define TZ_UTOFF_MAX (26 * 3600)

/* One end of a DST period in a POSIX TZ rule. */
struct rule_date {
	char kind; /* 'J': Julian day 1..365 without Feb 29; 'N': 0..365; 'M': month.week.day */
	int day;   /* J, N */
	int mon, wk, wd; /* M */
	int32_t secs;	 /* local time of day of the change (may be < 0 or > 24 h) */
};

struct posix_rule {
	int32_t std_off, dst_off; /* seconds east of UTC */
	bool has_dst;
	struct rule_date start, end;
};

struct sb_tz {
	char name[TZ_NAME_MAX + 1];
	size_t ntrans;
	int64_t *trans; /* ascending */
	uint8_t *idx;	/* type of each transition */
	size_t ntypes;
	int32_t *utoff; /* offset of each type */
	bool has_rule;
	struct posix_rule rule;
};

/* ---- civil calendar ---- */

/* days since 1970-01-01 of y-m-d (proleptic Gregorian); eras of 400 years */
int64_t sb_days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;						/* 0..399 */
	int64_t doy = (153 * (int64_t)(m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1; /* 0..365 */
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;			/* 0..146096 */
	return era * 146097 + doe - 719468;
}

void sb_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	*d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	*m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

unsigned sb_weekday_from_days(int64_t days)
{
	/* 1970-01-01 was a Thursday (4) */
	int64_t w = (days + 4) % 7;
	return (unsigned)(w < 0 ? w + 7 : w);
}

static bool is_leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

unsigned sb_days_in_month(int64_t y, unsigned m)
{
	static const unsigned char n[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (m < 1 || m > 12)
		return 0;
	return m == 2 && is_leap(y) ? 29 : n[m - 1];
}

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* ---- POSIX TZ strings (the footer) ---- */

/* "<...>" or 3+ letters; advances *p */
static int parse_abbr(const char **p)
{
	const char *s = *p;
	size_t n = 0;
	if (*s == '<') {
		s++;
		while (s[n] && s[n] != '>') {
			char c = s[n];
			if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			      (c >= '0' && c <= '9') || c == '+' || c == '-'))
				return -EINVAL;
			n++;
		}
		if (s[n] != '>' || n < 3)
			return -EINVAL;
		*p = s + n + 1;
		return 0;
	}
	while ((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= 'a' && s[n] <= 'z'))
		n++;
	if (n < 3)
		return -EINVAL;
	*p = s + n;
	return 0;
}

/* [+-]h[h[h]][:mm[:ss]] with hours up to maxh; seconds in *out */
static int parse_hms(const char **p, int maxh, int32_t *out)
{
	const char *s = *p;
	int sign = 1;
	if (*s == '+' || *s == '-')
		sign = *s++ == '-' ? -1 : 1;
	int v[3] = {0, 0, 0};
	for (int part = 0; part < 3; part++) {
		if (part > 0) {
			if (*s != ':')
				break;
			s++;
		}
		int digits = 0, x = 0;
		while (*s >= '0' && *s <= '9' && digits < 3) {
			x = x * 10 + (*s++ - '0');
			digits++;
		}
		if (!digits || (part > 0 && (digits != 2 || x > 59)))
			return -EINVAL;
		v[part] = x;
	}
	if (v[0] > maxh)
		return -EINVAL;
	*out = sign * (v[0] * 3600 + v[1] * 60 + v[2]);
	*p = s;
	return 0;
}

static int parse_num(const char **p, int lo, int hi, int *out)
{
	const char *s = *p;
	int x = 0, digits = 0;
	while (*s >= '0' && *s <= '9' && digits < 4) {
		x = x * 10 + (*s++ - '0');
		digits++;
	}
	if (!digits || x < lo || x > hi)
		return -EINVAL;
	*out = x;
	*p = s;
	return 0;
}

static int parse_rule_date(const char **p, struct rule_date *rd)
{
	const char *s = *p;
	int r;
	if (*s == 'J') {
		s++;
		rd->kind = 'J';
		r = parse_num(&s, 1, 365, &rd->day);
	} else if (*s == 'M') {
		s++;
		rd->kind = 'M';
		r = parse_num(&s, 1, 12, &rd->mon);
		if (!r && *s++ != '.')
			r = -EINVAL;
		if (!r)
			r = parse_num(&s, 1, 5, &rd->wk);
		if (!r && *s++ != '.')
			r = -EINVAL;
		if (!r)
			r = parse_num(&s, 0, 6, &rd->wd);
	} else {
		rd->kind = 'N';
		r = parse_num(&s, 0, 365, &rd->day);
	}
	if (r)
		return r;
	rd->secs = 2 * 3600;
	if (*s == '/') {
		s++;
		/* RFC 8536 3.3.1: -167..167 hours */
		r = parse_hms(&s, 167, &rd->secs);
		if (r)
			return r;
	}
	*p = s;
	return 0;
}

/* Parses a footer TZ string ("" is not accepted here). */
static int parse_posix_tz(const char *s, struct posix_rule *pr)
{
	int32_t off;
	memset(pr, 0, sizeof(*pr));
	if (parse_abbr(&s) || parse_hms(&s, 24, &off))
		return -EINVAL;
	pr->std_off = -off; /* POSIX offsets are west of UTC */
	if (!*s)
		return 0;
	if (parse_abbr(&s))
		return -EINVAL;
	pr->has_dst = true;
	pr->dst_off = pr->std_off + 3600;
	if (*s && *s != ',') {
		if (parse_hms(&s, 24, &off))
			return -EINVAL;
		pr->dst_off = -off;
	}
	/* zic always writes the rules; without them the dates are unknown */
	if (*s++ != ',' || parse_rule_date(&s, &pr->start) || *s++ != ',' ||
	    parse_rule_date(&s, &pr->end) || *s)
		return -EINVAL;
	return 0;
}

/* the day (days since the epoch) a rule date falls on in year y */
static int64_t rule_day(const struct rule_date *rd, int64_t y)
{
	int64_t jan1 = sb_days_from_civil(y, 1, 1);
	switch (rd->kind) {
	case 'J':
		/* Feb 29 is never counted: day 60 is always March 1 */
		return jan1 + rd->day - 1 + (is_leap(y) && rd->day >= 60);
	case 'N':
		return jan1 + rd->day;
	default: {
		int64_t first = sb_days_from_civil(y, (unsigned)rd->mon, 1);
		unsigned wd1 = sb_weekday_from_days(first);
		int64_t day = 1 + ((unsigned)rd->wd + 7 - wd1) % 7 + (int64_t)(rd->wk - 1) * 7;
		while (day > sb_days_in_month(y, (unsigned)rd->mon))
			day -= 7;
		return first + day - 1;
	}
	}
}

struct rule_change {
	int64_t at;
	int32_t utoff;
};

static void rule_year(const struct posix_rule *pr, int64_t y, struct rule_change out[2])
{
	/* the start is given in standard time, the end in daylight time */
	out[0].at = rule_day(&pr->start, y) * 86400 + pr->start.secs - pr->std_off;
	out[0].utoff = pr->dst_off;
	out[1].at = rule_day(&pr->end, y) * 86400 + pr->end.secs - pr->dst_off;
	out[1].utoff = pr->std_off;
}

static void rule_lookup(const struct posix_rule *pr, int64_t t, int32_t *utoff, int64_t *next)
{
	if (!pr->has_dst) {
		*utoff = pr->std_off;
		*next = INT64_MAX;
		return;
	}
	int64_t y;
	unsigned m, d;
	sb_civil_from_days(floor_div(t + pr->std_off, 86400), &y, &m, &d);
	/* the changes of the years around t, in time order */
	struct rule_change ch[8];
	size_t n = 0;
	for (int64_t yy = y - 1; yy <= y + 2; yy++, n += 2)
		rule_year(pr, yy, &ch[n]);
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && ch[j - 1].at > ch[j].at; j--) {
			struct rule_change tmp = ch[j];
			ch[j] = ch[j - 1];
			ch[j - 1] = tmp;
		}
	*utoff = pr->std_off;
	*next = INT64_MAX;
	for (size_t i = 0; i < n; i++) {
		if (ch[i].at <= t) {
			*utoff = ch[i].utoff;
		} else {
			*next = ch[i].at;
			break;
		}
	}
}

/* ---- TZif ---- */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be64(const unsigned char *p)
{
	return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

struct tzif_hdr {
	char version;
	uint32_t isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt;
};

static int read_hdr(const unsigned char *p, size_t len, struct tzif_hdr *h, const char **why)
{
	if (len < 4 || memcmp(p, "TZif", 4) != 0) {
		*why = len < 4 ? "truncated header" : "not a TZif file (bad magic)";
		return -EINVAL;
	}
	if (len < 44) {
		*why = "truncated header";
		return -EINVAL;
	}
	h->version = (char)p[4];
	h->isutcnt = be32(p + 20);
	h->isstdcnt = be32(p + 24);
	h->leapcnt = be32(p + 28);
	h->timecnt = be32(p + 32);
	h->typecnt = be32(p + 36);
	h->charcnt = be32(p + 40);
	if (h->typecnt == 0 || h->typecnt > 256 || h->charcnt == 0 || h->charcnt > 65536 ||
	    (h->isutcnt && h->isutcnt != h->typecnt) ||
	    (h->isstdcnt && h->isstdcnt != h->typecnt) || h->timecnt > TZ_TRANS_MAX ||
	    h->leapcnt > TZ_TRANS_MAX) {
		*why = "inconsistent counts in the header";
		return -EINVAL;
	}
	return 0;
}

static size_t block_len(const struct tzif_hdr *h, size_t tsize)
{
	return (size_t)h->timecnt * tsize + h->timecnt + (size_t)h->typecnt * 6 + h->charcnt +
	       (size_t)h->leapcnt * (tsize + 4) + h->isstdcnt + h->isutcnt;
}

void sb_tz_free(struct sb_tz *tz)
{
	if (!tz)
		return;
	free(tz->trans);
	free(tz->idx);
	free(tz->utoff);
	free(tz);
}

const char *sb_tz_name(const struct sb_tz *tz)
{
	return tz->name;
}

static struct sb_tz *tz_alloc(const char *name)
{
	struct sb_tz *tz = calloc(1, sizeof(*tz));
	if (tz)
		snprintf(tz->name, sizeof(tz->name), "%s", name);
	return tz;
}

static int tz_parse(struct sb_tz *tz, const unsigned char *buf, size_t len, const char **why)
{
	struct tzif_hdr h;
	int r = read_hdr(buf, len, &h, why);
	if (r)
		return r;
	const unsigned char *p = buf + 44;
	size_t left = len - 44, tsize = 4;
	size_t blen = block_len(&h, 4);
	if (h.version) {
		if (h.version < '2') {
			*why = "unknown TZif version";
			return -EINVAL;
		}
		/* skip the 32-bit block for the 64-bit one */
		if (left < blen) {
			*why = "truncated data";
			return -EINVAL;
		}
		p += blen;
		left -= blen;
		struct tzif_hdr h2;
		r = read_hdr(p, left, &h2, why);
		if (r)
			return r;
		if (h2.version != h.version) {
			*why = "the two headers disagree on the version";
			return -EINVAL;
		}
		h = h2;
		p += 44;
		left -= 44;
		tsize = 8;
		blen = block_len(&h, 8);
	}
	if (left < blen) {
		*why = "truncated data";
		return -EINVAL;
	}
	tz->ntrans = h.timecnt;
	tz->ntypes = h.typecnt;
	tz->trans = calloc(h.timecnt ? h.timecnt : 1, sizeof(*tz->trans));
	tz->idx = calloc(h.timecnt ? h.timecnt : 1, 1);
	tz->utoff = calloc(h.typecnt, sizeof(*tz->utoff));
	if (!tz->trans || !tz->idx || !tz->utoff)
		return -ENOMEM;
	for (size_t i = 0; i < h.timecnt; i++) {
		tz->trans[i] = tsize == 8 ? be64(p + i * 8) : (int64_t)(int32_t)be32(p + i * 4);
		if (i > 0 && tz->trans[i] <= tz->trans[i - 1]) {
			*why = "transition times not in ascending order";
			return -EINVAL;
		}
	}
	p += (size_t)h.timecnt * tsize;
	for (size_t i = 0; i < h.timecnt; i++) {
		tz->idx[i] = p[i];
		if (p[i] >= h.typecnt) {
			*why = "a transition names a time type that does not exist";
			return -EINVAL;
		}
	}
	p += h.timecnt;
	for (size_t i = 0; i < h.typecnt; i++, p += 6) {
		int32_t off = (int32_t)be32(p);
		if (off < -TZ_UTOFF_MAX || off > TZ_UTOFF_MAX || p[4] > 1 || p[5] >= h.charcnt) {
			*why = "a time type is out of range";
			return -EINVAL;
		}
		tz->utoff[i] = off;
	}
	p += h.charcnt + (size_t)h.leapcnt * (tsize + 4) + h.isstdcnt + h.isutcnt;
	left -= blen;
	if (!h.version)
		return 0;
	/* the footer: "\n" TZ "\n" (TZ may be empty) */
	if (left < 2 || p[0] != '\n') {
		*why = "missing footer";
		return -EINVAL;
	}
	const unsigned char *nl = memchr(p + 1, '\n', left - 1);
	if (!nl || nl - (p + 1) > 128) {
		*why = "bad footer";
		return -EINVAL;
	}
	if (nl == p + 1)
		return 0;
	char footer[130];
	memcpy(footer, p + 1, (size_t)(nl - (p + 1)));
	footer[nl - (p + 1)] = 0;
	if (parse_posix_tz(footer, &tz->rule)) {
		*why = "the footer's TZ rule is not valid";
		return -EINVAL;
	}
	tz->has_rule = true;
	return 0;
}

int sb_tz_parse(const char *name, const unsigned char *buf, size_t len, struct sb_tz **out,
		char *err, size_t errlen)
{
	*out = NULL;
	struct sb_tz *tz = tz_alloc(name);
	if (!tz) {
		sb_errf(err, errlen, 0, "time zone '%s': out of memory", name);
		return -ENOMEM;
	}
	const char *why = "out of memory";
	int r = tz_parse(tz, buf, len, &why);
	if (r) {
		sb_errf(err, errlen, 0, "time zone '%s': %s", name, why);
		sb_tz_free(tz);
		return r;
	}
	*out = tz;
	return 0;
}

static bool name_ok(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > TZ_NAME_MAX)
		return false;
	const char *comp = name;
	for (const char *s = name;; s++) {
		if (*s == '/' || !*s) {
			size_t cl = (size_t)(s - comp);
			/* only [A-Za-z0-9_+-]: so never "." or ".." */
			if (cl == 0)
				return false;
			if (!*s)
				return true;
			comp = s + 1;
			continue;
		}
		char c = *s;
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '+' || c == '-'))
			return false;
	}
}

static int read_file(const char *path, unsigned char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	int r = 0;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		r = -ENOENT; /* "Europe" is a directory of zones, not a zone */
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > TZ_FILE_MAX) {
		r = -EINVAL;
		goto out;
	}
	*buf = malloc((size_t)st.st_size + 1);
	if (!*buf) {
		r = -ENOMEM;
		goto out;
	}
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t k = read(fd, *buf + got, (size_t)st.st_size - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			r = -errno;
			break;
		}
		if (k == 0)
			break;
		got += (size_t)k;
	}
	*len = got;
	if (r) {
		free(*buf);
		*buf = NULL;
	}
out:
	close(fd);
	return r;
}

int sb_tz_load(const char *name, const char *dir, struct sb_tz **out, char *err, size_t errlen)
{
	*out = NULL;
	if (!name)
		name = "";
	if (!*name || strcmp(name, "UTC") == 0) {
		struct sb_tz *tz = tz_alloc(*name ? name : "UTC");
		if (!tz) {
			sb_errf(err, errlen, 0, "time zone '%s': out of memory", name);
			return -ENOMEM;
		}
		tz->has_rule = true; /* the rule "UTC0": offset 0, no changes */
		*out = tz;
		return 0;
	}
	if (!name_ok(name)) {
		sb_errf(err, errlen, 0,
			"time zone '%.64s': not a zone name (expected an IANA name like "
			"'Europe/Berlin')",
			name);
		return -EINVAL;
	}
	if (!dir)
		dir = SB_TZ_DIR_DEFAULT;
	char path[4096];
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path)) {
		sb_errf(err, errlen, 0, "time zone '%s': path too long", name);
		return -ENAMETOOLONG;
	}
	unsigned char *buf = NULL;
	size_t len = 0;
	int r = read_file(path, &buf, &len);
	if (r == -ENOENT || r == -ENOTDIR) {
		sb_errf(err, errlen, 0, "time zone '%s': unknown zone (no file %s)", name, path);
		return -ENOENT;
	}
	if (r == -EINVAL) {
		sb_errf(err, errlen, 0, "time zone '%s': %s is not a zone file", name, path);
		return r;
	}
	if (r) {
		sb_errf(err, errlen, 0, "time zone '%s': cannot read %s: %s", name, path,
			strerror(-r));
		return r;
	}
	r = sb_tz_parse(name, buf, len, out, err, errlen);
	free(buf);
	return r;
}

void sb_tz_lookup(const struct sb_tz *tz, int64_t t, int32_t *utoff, int64_t *next)
{
	int64_t nx = INT64_MAX;
	int32_t off;
	if (tz->ntrans == 0 || t >= tz->trans[tz->ntrans - 1]) {
		if (tz->has_rule)
			rule_lookup(&tz->rule, t, &off, &nx);
		else
			off = tz->ntrans ? tz->utoff[tz->idx[tz->ntrans - 1]] : tz->utoff[0];
	} else if (t < tz->trans[0]) {
		/* RFC 8536 3.2: before the first transition, time type 0 */
		off = tz->utoff[0];
		nx = tz->trans[0];
	} else {
		/* the last transition at or before t: trans[lo] <= t < trans[hi] */
		size_t lo = 0, hi = tz->ntrans - 1;
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			if (tz->trans[mid] <= t)
				lo = mid;
			else
				hi = mid;
		}
		off = tz->utoff[tz->idx[lo]];
		nx = tz->trans[hi];
	}
	*utoff = off;
	if (next)
		*next = nx;
}
