/* SPDX-License-Identifier: MIT */
#include "report_svg.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Layout constants (pixels) ---- */

#define WIDTH	   960.0
#define MARGIN	   20.0
#define FONT	   "'DejaVu Sans', Verdana, Arial, sans-serif"
#define C_TEXT	   "#222"
#define C_MUTED	   "#555"
#define C_GRID	   "#e3e3e3"
#define C_AXIS	   "#888"
#define C_ZEBRA	   "#f6f6f6"
#define LOG_RATIO  20.0 /* line charts go logarithmic beyond this max/min */
#define LINE_PLOTH 220.0

/* Okabe & Ito's palette, distinguishable with the common colour-vision deficiencies. */
static const char *const palette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
				      "#CC79A7", "#56B4E9", "#8C7A00", "#000000"};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

static const char *colour(size_t i)
{
	return palette[i % NPALETTE];
}

/* ---- Output with a sticky error ---- */

struct svg {
	FILE *f;
	int err; /* first -errno, 0 while fine */
};

static void out(struct svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(struct svg *s, const char *fmt, ...)
{
	va_list ap;
	if (s->err)
		return;
	va_start(ap, fmt);
	/* clang 14's analyzer reports this va_list as uninitialized when
	 * several files are checked in one run: a false positive. */
	// NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
	if (vfprintf(s->f, fmt, ap) < 0)
		s->err = -ENOMEM;
	va_end(ap);
}

/*
 * Decodes one UTF-8 character at p (n bytes left). Returns its length and
 * sets *cp; an invalid or overlong sequence, a surrogate, or a character
 * XML 1.0 does not allow (controls other than tab/newline, U+FFFE/U+FFFF)
 * has length 1 and *cp = -1.
 */
static size_t utf8_next(const unsigned char *p, size_t n, long *cp)
{
	unsigned char c = p[0];
	size_t len;
	long v;

	*cp = -1;
	if (c < 0x80) {
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
			return 1;
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		v = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		v = c & 0x07;
	} else {
		return 1;
	}
	if (n < len)
		return 1;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 1;
		v = (v << 6) | (p[i] & 0x3f);
	}
	if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10ffff)) ||
	    (v >= 0xd800 && v <= 0xdfff) || v == 0xfffe || v == 0xffff)
		return 1;
	*cp = v;
	return len;
}

/* Writes the first n bytes of str as XML character data or attribute value. */
static void esc_n(struct svg *s, const char *str, size_t n)
{
	const unsigned char *p = (const unsigned char *)str;
	size_t i = 0;

	while (i < n && !s->err) {
		long cp;
		size_t l = utf8_next(p + i, n - i, &cp);
		if (cp < 0)
			out(s, "?");
		else if (cp == '<')
			out(s, "&lt;");
		else if (cp == '>')
			out(s, "&gt;");
		else if (cp == '&')
			out(s, "&amp;");
		else if (cp == '"')
			out(s, "&quot;");
		else if (cp == '\'')
			out(s, "&apos;");
		else if (cp == '\n' || cp == '\r' || cp == '\t')
			out(s, "&#%ld;", cp);
		else if (fwrite(p + i, 1, l, s->f) != l)
			s->err = -ENOMEM;
		i += l;
	}
}

static void esc(struct svg *s, const char *str)
{
	esc_n(s, str, strlen(str));
}

/* Advance widths of DejaVu Sans in em, printable ASCII from ' '. */
static const unsigned char ascii_w[95] = {
	32,  40, 46, 84, 64, 95, 78, 28, 39, 39, 50, 84, 32, 36, 32, 34, /*  !"#$%&'()*+,-./ */
	64,  64, 64, 64, 64, 64, 64, 64, 64, 64, 34, 34, 84, 84, 84, 53, /* 0-9 :;<=>? */
	100, 68, 69, 70, 77, 63, 58, 78, 75, 30, 30, 66, 56, 86, 75, 79, /* @A-O */
	60,  79, 70, 63, 61, 73, 68, 99, 69, 61, 69, 39, 34, 39, 84, 50, /* P-Z [\]^_ */
	50,  61, 64, 55, 64, 62, 35, 64, 63, 28, 28, 58, 28, 97, 63, 61, /* `a-o */
	64,  64, 41, 52, 39, 63, 59, 82, 59, 59, 53, 64, 34, 64, 84,	 /* p-z {|}~ */
};

static double char_w(long cp)
{
	if (cp >= 32 && cp < 127)
		return ascii_w[cp - 32] / 100.0;
	if (cp == 0xb7) /* middle dot */
		return 0.32;
	if (cp == 0x2026) /* ellipsis */
		return 1.0;
	return 0.84; /* ±, µ and the rest: wide enough */
}

/* Estimated width of n bytes of str at font size px. */
static double text_wn(const char *str, size_t n, double px)
{
	const unsigned char *p = (const unsigned char *)str;
	double w = 0;
	for (size_t i = 0; i < n;) {
		long cp;
		i += utf8_next(p + i, n - i, &cp);
		w += char_w(cp < 0 ? '?' : cp);
	}
	return w * px;
}

static double text_w(const char *str, double px)
{
	return text_wn(str, strlen(str), px);
}

/* Writes str escaped, cut with an ellipsis to fit maxw at size px. */
static void esc_fit(struct svg *s, const char *str, double px, double maxw)
{
	const unsigned char *p = (const unsigned char *)str;
	size_t n = strlen(str), i = 0;
	double w = 0, ell = char_w(0x2026) * px;

	if (text_wn(str, n, px) <= maxw) {
		esc_n(s, str, n);
		return;
	}
	while (i < n) {
		long cp;
		size_t l = utf8_next(p + i, n - i, &cp);
		double cw = char_w(cp < 0 ? '?' : cp) * px;
		if (w + cw + ell > maxw)
			break;
		w += cw;
		i += l;
	}
	esc_n(s, str, i);
	out(s, "\xe2\x80\xa6");
}

/* <text x y anchor attrs>str</text>, str escaped and fitted to maxw (0: no limit). */
static void text(struct svg *s, double x, double y, const char *anchor, const char *attrs,
		 double px, double maxw, const char *str)
{
	out(s, "<text x=\"%.1f\" y=\"%.1f\"", x, y);
	if (anchor && strcmp(anchor, "start") != 0)
		out(s, " text-anchor=\"%s\"", anchor);
	if (px != 12)
		out(s, " font-size=\"%g\"", px);
	out(s, "%s%s>", attrs && *attrs ? " " : "", attrs ? attrs : "");
	if (maxw > 0)
		esc_fit(s, str, px, maxw);
	else
		esc(s, str);
	out(s, "</text>\n");
}

/* ---- The report, validated ---- */

struct res {
	const char *target, *workload;
	size_t ti, wi;
	const json_t *metrics; /* object */
	const json_t *merged;  /* object or NULL */
	const char *head[4];
	size_t nhead;
	long long fsync; /* "fsync" field, -1 when absent */
};

struct doc {
	const char *name;
	const char **tg;
	size_t ntg;
	const char **wl;
	size_t nwl;
	struct res *r;
	size_t nr;
};

static void doc_release(struct doc *d)
{
	free(d->tg);
	free(d->wl);
	free(d->r);
	memset(d, 0, sizeof(*d));
}

/*
 * Writes the message to err and is -EINVAL. A macro, not a variadic
 * function, so the static analyzer sees the value (it does not inline
 * variadic functions). Needs err and errlen in scope.
 */
#define BAD(...) (snprintf(err, errlen, __VA_ARGS__), -EINVAL)

/* Index of name in list, adding it when absent. -ENOMEM or the index. */
static long name_index(const char ***list, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*list)[i], name))
			return (long)i;
	const char **l = realloc(*list, (*n + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	*list = l;
	l[*n] = name;
	return (long)(*n)++;
}

static int names_from(const json_t *rep, const char *key, const char ***list, size_t *n, char *err,
		      size_t errlen)
{
	const json_t *a = json_object_get(rep, key), *v;
	size_t i;

	if (!a)
		return 0;
	if (!json_is_array(a))
		return BAD("%s: not an array", key);
	json_array_foreach(a, i, v)
	{
		if (!json_is_string(v))
			return BAD("%s[%zu]: not a string", key, i);
		if (name_index(list, n, json_string_value(v)) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int check_num(const json_t *o, const char *key, bool required, const char *path, char *err,
		     size_t errlen)
{
	const json_t *v = json_object_get(o, key);
	if (!v)
		return required ? BAD("%s.%s: missing", path, key) : 0;
	if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0)
		return BAD("%s.%s: not a non-negative number", path, key);
	return 0;
}

static int check_metrics(const json_t *m, size_t ri, char *err, size_t errlen)
{
	const char *key;
	const json_t *v;
	char path[160];

	json_object_foreach((json_t *)m, key, v)
	{
		snprintf(path, sizeof(path), "results[%zu].metrics.%s", ri, key);
		if (!json_is_object(v))
			return BAD("%s: not an object", path);
		if (check_num(v, "mean", true, path, err, errlen) ||
		    check_num(v, "stddev", false, path, err, errlen))
			return -EINVAL;
		const json_t *n = json_object_get(v, "n");
		if (n && (!json_is_integer(n) || json_integer_value(n) < 0))
			return BAD("%s.n: not a non-negative integer", path);
		const json_t *u = json_object_get(v, "unit");
		if (u && !json_is_string(u))
			return BAD("%s.unit: not a string", path);
	}
	return 0;
}

static int check_merged(const json_t *m, size_t ri, char *err, size_t errlen)
{
	const char *key;
	const json_t *v;
	char path[160];

	if (!json_is_object(m))
		return BAD("results[%zu].merged: not an object", ri);
	json_object_foreach((json_t *)m, key, v)
	{
		snprintf(path, sizeof(path), "results[%zu].merged.%s", ri, key);
		if (!json_is_object(v))
			return BAD("%s: not an object", path);
		if (check_num(v, "p50", false, path, err, errlen) ||
		    check_num(v, "p99", false, path, err, errlen) ||
		    check_num(v, "p99.9", false, path, err, errlen))
			return -EINVAL;
	}
	return 0;
}

static int res_parse(const json_t *r, size_t i, struct res *x, char *err, size_t errlen)
{
	const json_t *t = json_object_get(r, "target"), *w = json_object_get(r, "workload");
	const json_t *h, *v;
	size_t k;

	if (!json_is_object(r))
		return BAD("results[%zu]: not an object", i);
	if (!json_is_string(t))
		return BAD("results[%zu].target: missing or not a string", i);
	if (!json_is_string(w))
		return BAD("results[%zu].workload: missing or not a string", i);
	x->target = json_string_value(t);
	x->workload = json_string_value(w);
	x->metrics = json_object_get(r, "metrics");
	if (!json_is_object(x->metrics))
		return BAD("results[%zu].metrics: missing or not an object", i);
	if (check_metrics(x->metrics, i, err, errlen))
		return -EINVAL;
	x->merged = json_object_get(r, "merged");
	if (x->merged && check_merged(x->merged, i, err, errlen))
		return -EINVAL;
	x->fsync = -1;
	v = json_object_get(r, "fsync");
	if (v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return BAD("results[%zu].fsync: not a non-negative integer", i);
		x->fsync = json_integer_value(v);
	}
	h = json_object_get(r, "headline");
	if (h) {
		if (!json_is_array(h))
			return BAD("results[%zu].headline: not an array", i);
		json_array_foreach(h, k, v)
		{
			if (!json_is_string(v))
				return BAD("results[%zu].headline[%zu]: not a string", i, k);
			if (x->nhead < 4)
				x->head[x->nhead++] = json_string_value(v);
		}
	} else {
		/* older documents: lead with IOPS of each direction measured */
		static const char *const guess[2] = {"read-iops", "write-iops"};
		for (k = 0; k < 2; k++)
			if (json_object_get(x->metrics, guess[k]))
				x->head[x->nhead++] = guess[k];
	}
	return 0;
}

static int doc_parse(const json_t *rep, struct doc *d, char *err, size_t errlen)
{
	const json_t *results, *r, *name;
	size_t i;
	int ret;

	memset(d, 0, sizeof(*d));
	if (!json_is_object(rep))
		return BAD("report: not an object");
	name = json_object_get(rep, "name");
	if (name && !json_is_string(name))
		return BAD("name: not a string");
	d->name = name ? json_string_value(name) : "";
	results = json_object_get(rep, "results");
	if (!json_is_array(results))
		return BAD("results: missing or not an array");
	/* never NULL, even for an empty report */
	d->tg = calloc(1, sizeof(*d->tg));
	d->wl = calloc(1, sizeof(*d->wl));
	if (!d->tg || !d->wl) {
		ret = -ENOMEM;
		goto fail;
	}
	if ((ret = names_from(rep, "targets", &d->tg, &d->ntg, err, errlen)) ||
	    (ret = names_from(rep, "workloads", &d->wl, &d->nwl, err, errlen)))
		goto fail;
	d->r = calloc(json_array_size(results) + 1, sizeof(*d->r));
	if (!d->r) {
		ret = -ENOMEM;
		goto fail;
	}
	json_array_foreach(results, i, r)
	{
		struct res *x = &d->r[d->nr];
		if ((ret = res_parse(r, i, x, err, errlen)))
			goto fail;
		long ti = name_index(&d->tg, &d->ntg, x->target);
		long wi = name_index(&d->wl, &d->nwl, x->workload);
		if (ti < 0 || wi < 0) {
			ret = -ENOMEM;
			goto fail;
		}
		x->ti = (size_t)ti;
		x->wi = (size_t)wi;
		for (size_t k = 0; k < d->nr; k++) {
			if (d->r[k].ti == x->ti && d->r[k].wi == x->wi) {
				ret = BAD("results[%zu]: a second result for target '%s' "
					  "workload '%s'",
					  i, x->target, x->workload);
				goto fail;
			}
		}
		d->nr++;
	}
	return 0;
fail:
	doc_release(d);
	return ret;
}

static const struct res *find(const struct doc *d, size_t ti, size_t wi)
{
	for (size_t i = 0; i < d->nr; i++)
		if (d->r[i].ti == ti && d->r[i].wi == wi)
			return &d->r[i];
	return NULL;
}

struct val {
	double mean, sd;
	long long n;
};

/* The metric's summary; false when the result or the metric is absent. */
static bool metric(const struct res *r, const char *name, struct val *v)
{
	const json_t *m = r ? json_object_get(r->metrics, name) : NULL;
	if (!m)
		return false;
	const json_t *n = json_object_get(m, "n");
	v->mean = json_number_value(json_object_get(m, "mean"));
	v->sd = json_number_value(json_object_get(m, "stddev"));
	v->n = n ? json_integer_value(n) : 1;
	if (!json_object_get(m, "stddev"))
		v->n = 1; /* no deviation to show */
	if (v->n < 2)
		v->sd = 0;
	return true;
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

/* ---- Units, axes and numbers ---- */

enum ukind { U_COUNT, U_BYTES, U_NS };

static const char *const count_pfx[] = {"", "k", "M", "G", "T", "P"};
static const char *const rate_unit[] = {"B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s", "PiB/s"};
static const char *const ns_unit[] = {"ns", "\xc2\xb5s", "ms", "s"};

static enum ukind kind_of(const char *metric)
{
	if (has_suffix(metric, "-bw"))
		return U_BYTES;
	if (strstr(metric, "-lat"))
		return U_NS;
	return U_COUNT;
}

/* The scale for v: divisor and unit index (1000s, 1024s for bytes, ns..s). */
static double scale_of(double v, enum ukind u, size_t *k)
{
	double base = u == U_BYTES ? 1024.0 : 1000.0, div = 1;
	size_t max = u == U_NS ? 3 : 5;
	double a = fabs(v);

	*k = 0;
	while (*k < max && a / div >= base - 0.5) {
		div *= base;
		(*k)++;
	}
	return div;
}

static const char *unit_name(enum ukind u, size_t k)
{
	return u == U_BYTES ? rate_unit[k] : u == U_NS ? ns_unit[k] : count_pfx[k];
}

/* "%.*f" without trailing zeros. */
static void fmt_trim(double v, int dec, char *buf, size_t len)
{
	snprintf(buf, len, "%.*f", dec < 0 ? 0 : dec, v);
	if (strchr(buf, '.')) {
		char *e = buf + strlen(buf) - 1;
		while (*e == '0')
			*e-- = '\0';
		if (*e == '.')
			*e = '\0';
	}
	if (!strcmp(buf, "-0"))
		snprintf(buf, len, "0");
}

/* Decimals that show 3 significant digits of v. */
static int dec3(double v)
{
	double a = fabs(v);
	return a >= 99.95 ? 0 : a >= 9.995 ? 1 : 2;
}

/* Decimals that show 2 significant digits of v (at most 3). */
static int dec2(double v)
{
	double a = fabs(v);
	if (a == 0 || a >= 9.95)
		return 0;
	if (a >= 0.995)
		return 1;
	int d = (int)ceil(-log10(a)) + 1;
	return d > 3 ? 3 : d;
}

/*
 * "844k ± 12k", "6.35 ± 0.5 GiB/s", "45.8 µs": the mean with 3 significant
 * digits, the deviation in the same unit with 2.
 */
static void fmt_val(double mean, double sd, bool with_sd, enum ukind u, char *buf, size_t len)
{
	size_t k;
	double div = scale_of(mean, u, &k);
	char a[32], b[32];
	const char *un = unit_name(u, k);

	fmt_trim(mean / div, dec3(mean / div), a, sizeof(a));
	if (!with_sd) {
		snprintf(buf, len, "%s%s%s", a, u == U_COUNT ? "" : " ", un);
		return;
	}
	if (u == U_COUNT) {
		/* counts: each with its own prefix, "1.5k ± 12" */
		size_t ks;
		double sdiv = scale_of(sd, u, &ks);
		fmt_trim(sd / sdiv, dec2(sd / sdiv), b, sizeof(b));
		snprintf(buf, len, "%s%s \xc2\xb1 %s%s", a, un, b, count_pfx[ks]);
		return;
	}
	fmt_trim(sd / div, dec2(sd / div), b, sizeof(b));
	snprintf(buf, len, "%s \xc2\xb1 %s %s", a, b, un);
}

#define MAXTICKS 48

struct axis {
	double lo, hi;
	bool log;
	enum ukind u;
	double div; /* linear bytes: labels in this unit (unit index k) */
	size_t k;
	double step; /* linear: tick step in label units */
	double t[MAXTICKS];
	size_t nt;
};

/* Linear axis from 0 to a 1-2-5 step above max, about maxticks ticks. */
static void axis_linear(struct axis *a, double max, enum ukind u, int maxticks)
{
	memset(a, 0, sizeof(*a));
	a->u = u;
	a->div = 1;
	if (u == U_BYTES)
		a->div = scale_of(max, u, &a->k);
	double m = max / a->div;
	if (!(m > 0))
		m = 1;
	if (maxticks < 2)
		maxticks = 2;
	double raw = m / maxticks, mag = pow(10, floor(log10(raw))), nrm = raw / mag;
	a->step = (nrm <= 1 ? 1 : nrm <= 2 ? 2 : nrm <= 5 ? 5 : 10) * mag;
	double top = ceil(m / a->step - 1e-9) * a->step;
	for (double v = 0; v <= top + a->step * 1e-6 && a->nt < MAXTICKS; v += a->step)
		a->t[a->nt++] = v * a->div;
	a->lo = 0;
	a->hi = top * a->div;
}

/* Logarithmic axis over [min, max] (both > 0), ticks at 1, 10, 100 (and 2, 5) per unit. */
static void axis_log(struct axis *a, double min, double max, enum ukind u)
{
	static const double mult[] = {1, 2, 5, 10, 20, 50, 100, 200, 500};
	double base = u == U_BYTES ? 1024.0 : 1000.0;
	double cand[12 * 9];
	size_t nc = 0;

	memset(a, 0, sizeof(*a));
	a->u = u;
	a->log = true;
	a->div = 1;
	if (!(min > 0))
		min = 1;
	if (!(max > min))
		max = min;
	for (int e = -3; e <= 8; e++)
		for (size_t m = 0; m < 9; m++)
			cand[nc++] = mult[m] * pow(base, e);
	/* decades: multipliers 1, 10, 100 */
	a->lo = cand[0];
	a->hi = cand[nc - 9];
	for (size_t i = 0; i < nc; i++) {
		bool dec = i % 9 == 0 || i % 9 == 3 || i % 9 == 6;
		if (dec && cand[i] <= min * (1 + 1e-9))
			a->lo = cand[i];
	}
	for (size_t i = nc; i-- > 0;) {
		bool dec = i % 9 == 0 || i % 9 == 3 || i % 9 == 6;
		if (dec && cand[i] >= max * (1 - 1e-9))
			a->hi = cand[i];
	}
	if (a->hi <= a->lo)
		a->hi = a->lo * 10;
	bool fine = a->hi / a->lo <= 150; /* two decades or less: 2 and 5 too */
	for (size_t i = 0; i < nc && a->nt < MAXTICKS; i++) {
		bool dec = i % 9 == 0 || i % 9 == 3 || i % 9 == 6;
		if ((dec || fine) && cand[i] >= a->lo * (1 - 1e-9) && cand[i] <= a->hi * (1 + 1e-9))
			a->t[a->nt++] = cand[i];
	}
}

static double axis_pos(const struct axis *a, double v, double p0, double p1)
{
	double f;
	if (a->log) {
		if (!(v > a->lo))
			return p0;
		f = (log(v) - log(a->lo)) / (log(a->hi) - log(a->lo));
	} else {
		f = (v - a->lo) / (a->hi - a->lo);
	}
	if (f < 0)
		f = 0;
	if (f > 1)
		f = 1;
	return p0 + f * (p1 - p0);
}

static void tick_label(const struct axis *a, double v, char *buf, size_t len)
{
	size_t k;
	char n[32];

	if (v == 0) {
		snprintf(buf, len, "0");
		return;
	}
	if (!a->log && a->u == U_BYTES) {
		/* the unit is in the axis title */
		int dec = a->step >= 1 ? 0 : (int)ceil(-log10(a->step) - 1e-9);
		fmt_trim(v / a->div, dec, buf, len);
		return;
	}
	double div = scale_of(v, a->u, &k);
	double step = a->log ? v : a->step;
	double sk = step / div;
	int dec = sk >= 1 ? 0 : (int)ceil(-log10(sk) - 1e-9);
	fmt_trim(v / div, dec > 3 ? 3 : dec, n, sizeof(n));
	snprintf(buf, len, "%s%s%s", n, a->u == U_COUNT ? "" : " ", unit_name(a->u, k));
}

static double ticks_width(const struct axis *a, double px)
{
	double w = 0;
	char b[48];
	for (size_t i = 0; i < a->nt; i++) {
		tick_label(a, a->t[i], b, sizeof(b));
		if (text_w(b, px) > w)
			w = text_w(b, px);
	}
	return w;
}

/* Vertical gridlines and tick labels of a horizontal value axis. */
static void xgrid(struct svg *s, const struct axis *a, double x0, double x1, double top,
		  double bottom)
{
	char b[48];
	out(s, "<g class=\"axis\" font-size=\"11\" fill=\"" C_MUTED "\">\n");
	for (size_t i = 0; i < a->nt; i++) {
		double x = axis_pos(a, a->t[i], x0, x1);
		out(s, "<path d=\"M%.1f %.1fV%.1f\" stroke=\"%s\"/>\n", x, top, bottom,
		    i == 0 && !a->log ? C_AXIS : C_GRID);
		tick_label(a, a->t[i], b, sizeof(b));
		text(s, x, bottom + 15, "middle", NULL, 11, 0, b);
	}
	out(s, "</g>\n");
}

/* Horizontal gridlines and tick labels of a vertical value axis. */
static void ygrid(struct svg *s, const struct axis *a, double x0, double x1, double top,
		  double bottom)
{
	char b[48];
	out(s, "<g class=\"axis\" font-size=\"11\" fill=\"" C_MUTED "\">\n");
	for (size_t i = 0; i < a->nt; i++) {
		double y = axis_pos(a, a->t[i], bottom, top);
		out(s, "<path d=\"M%.1f %.1fH%.1f\" stroke=\"%s\"/>\n", x0, y, x1,
		    i == 0 && !a->log ? C_AXIS : C_GRID);
		tick_label(a, a->t[i], b, sizeof(b));
		text(s, x0 - 6, y + 4, "end", NULL, 11, 0, b);
	}
	out(s, "</g>\n");
}

/* ---- Shared pieces ---- */

/* A marker of shape i (circle, square, diamond, triangles) centred at x, y. */
static void marker(struct svg *s, size_t shape, double x, double y, double r, const char *fill)
{
	switch (shape % 5) {
	case 0:
		out(s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"", x, y, r);
		break;
	case 1:
		out(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"", x - r * 0.9,
		    y - r * 0.9, r * 1.8, r * 1.8);
		break;
	case 2:
		out(s, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\"", x, y - r * 1.25,
		    x + r * 1.25, y, x, y + r * 1.25, x - r * 1.25, y);
		break;
	case 3:
		out(s, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\"", x, y - r * 1.2, x + r * 1.1,
		    y + r * 0.8, x - r * 1.1, y + r * 0.8);
		break;
	default:
		out(s, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\"", x, y + r * 1.2, x + r * 1.1,
		    y - r * 0.8, x - r * 1.1, y - r * 0.8);
		break;
	}
	out(s, " fill=\"%s\" stroke=\"#fff\" stroke-width=\"1\"/>\n", fill);
}

enum legend_style { LG_BOX, LG_LINE };

/* One item per target at (x, y), wrapping within maxw. Returns its height. */
static double legend(struct svg *s, const struct doc *d, double x, double y, double maxw,
		     enum legend_style st)
{
	double cx = x, cy = y;
	out(s, "<g class=\"legend\">\n");
	for (size_t t = 0; t < d->ntg; t++) {
		double w = text_w(d->tg[t], 12);
		if (w > 220)
			w = 220;
		double item = (st == LG_LINE ? 30 : 18) + w + 18;
		if (cx > x && cx + item > x + maxw) {
			cx = x;
			cy += 20;
		}
		if (st == LG_BOX) {
			out(s,
			    "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" rx=\"2\" "
			    "fill=\"%s\"/>\n",
			    cx, cy - 10, colour(t));
			text(s, cx + 18, cy, "start", NULL, 12, 220, d->tg[t]);
		} else {
			out(s, "<path d=\"M%.1f %.1fh24\" stroke=\"%s\" stroke-width=\"2\"/>\n", cx,
			    cy - 4, colour(t));
			marker(s, t, cx + 12, cy - 4, 4, colour(t));
			text(s, cx + 30, cy, "start", NULL, 12, 220, d->tg[t]);
		}
		cx += item;
	}
	out(s, "</g>\n");
	return cy - y + 20;
}

static void panel_head(struct svg *s, double x, double maxw, const char *title, const char *sub)
{
	text(s, x, 22, "start", "font-weight=\"bold\"", 15, maxw, title);
	text(s, x, 40, "start", "fill=\"" C_MUTED "\"", 11, maxw, sub);
}

/* "read IOPS", "write bandwidth", "read latency" for a metric name. */
static void metric_words(const char *m, char *buf, size_t len)
{
	const char *dash = strchr(m, '-');
	int dl = dash ? (int)(dash - m) : (int)strlen(m);
	enum ukind u = kind_of(m);
	snprintf(buf, len, "%.*s %s", dl, m,
		 u == U_BYTES ? "bandwidth"
		 : u == U_NS  ? "latency"
			      : "IOPS");
}

static long long max_n(const struct doc *d, const char *const *metrics, const size_t *wis, size_t n)
{
	long long mx = 0;
	for (size_t c = 0; c < n; c++)
		for (size_t t = 0; t < d->ntg; t++) {
			struct val v;
			if (metric(find(d, t, wis[c]), metrics[c], &v) && v.n > mx)
				mx = v.n;
		}
	return mx;
}

static void iter_words(long long n, char *buf, size_t len)
{
	snprintf(buf, len, "%lld iteration%s", n, n == 1 ? "" : "s");
}

/* ---- Bars: IOPS or bandwidth per workload and target ---- */

struct cat {
	size_t wi;
	const char *metric;
	const char *dir; /* " (read)" when the workload has both directions here */
};

/* Workloads (and their headline metrics) whose headline ends in suffix. */
static int collect_cats(const struct doc *d, const char *suffix, struct cat **out_c, size_t *nc)
{
	struct cat *c = calloc(d->nwl * 2 + 1, sizeof(*c));
	*nc = 0;
	if (!c)
		return -ENOMEM;
	for (size_t w = 0; w < d->nwl; w++) {
		const char *found[2] = {NULL, NULL}; /* read, write */
		for (size_t i = 0; i < d->nr; i++) {
			if (d->r[i].wi != w)
				continue;
			for (size_t h = 0; h < d->r[i].nhead; h++) {
				const char *m = d->r[i].head[h];
				if (!has_suffix(m, suffix))
					continue;
				int k = !strncmp(m, "write", 5);
				if (!found[k])
					found[k] = m;
			}
		}
		for (int k = 0; k < 2; k++) {
			if (!found[k])
				continue;
			c[*nc].wi = w;
			c[*nc].metric = found[k];
			c[*nc].dir = found[0] && found[1] ? (k ? " (write)" : " (read)") : "";
			(*nc)++;
		}
	}
	*out_c = c;
	return 0;
}

static double cat_label_w(const struct doc *d, const struct cat *c, double px)
{
	return text_w(d->wl[c->wi], px) + text_w(c->dir, px);
}

static void cat_label(struct svg *s, const struct doc *d, const struct cat *c, double x, double y,
		      double maxw)
{
	double dw = text_w(c->dir, 12);
	out(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", x, y);
	esc_fit(s, d->wl[c->wi], 12, maxw - dw);
	esc(s, c->dir);
	out(s, "</text>\n");
}

static int panel_bars(struct svg *s, const struct doc *d, bool bw, double *height)
{
	struct cat *c = NULL;
	size_t nc;
	int ret = collect_cats(d, bw ? "-bw" : "-iops", &c, &nc);
	char b[96], sub[160], it[32];

	*height = 0;
	if (ret || nc == 0)
		goto out;

	/* value axis and label widths */
	double max = 0, labw = 0, valw = 0;
	for (size_t i = 0; i < nc; i++) {
		if (cat_label_w(d, &c[i], 12) > labw)
			labw = cat_label_w(d, &c[i], 12);
		for (size_t t = 0; t < d->ntg; t++) {
			struct val v;
			if (!metric(find(d, t, c[i].wi), c[i].metric, &v))
				continue;
			if (v.mean + v.sd > max)
				max = v.mean + v.sd;
			fmt_val(v.mean, v.sd, v.n > 1, bw ? U_BYTES : U_COUNT, b, sizeof(b));
			if (text_w(b, 11) > valw)
				valw = text_w(b, 11);
		}
	}
	labw = fmin(fmax(labw + 14, 90), 260);
	valw = fmin(fmax(valw + 12, 50), 240);
	double x0 = MARGIN + labw, x1 = WIDTH - MARGIN - valw;
	struct axis a;
	axis_linear(&a, max, bw ? U_BYTES : U_COUNT, (int)((x1 - x0) / 80));

	double bh = d->ntg <= 4 ? 16 : 11, gap = 3, pad = 14;
	double group = (double)d->ntg * (bh + gap) - gap + pad;
	const char *metrics[64];
	size_t wis[64], nm = nc < 64 ? nc : 64;
	for (size_t i = 0; i < nm; i++) {
		metrics[i] = c[i].metric;
		wis[i] = c[i].wi;
	}
	long long nmax = max_n(d, metrics, wis, nm);
	iter_words(nmax, it, sizeof(it));
	snprintf(sub, sizeof(sub), "mean per workload and target over %s%s", it,
		 nmax > 1 ? "; error bars: \xc2\xb1"
			    "1 standard deviation"
			  : " (no standard deviation)");
	out(s, "<g class=\"panel\" data-panel=\"%s\">\n", bw ? "bandwidth" : "iops");
	panel_head(s, MARGIN, WIDTH - 2 * MARGIN, bw ? "Bandwidth" : "IOPS", sub);
	double top = 58 + legend(s, d, x0, 60, x1 - x0, LG_BOX) + 4;
	double bottom = top + group * (double)nc;

	for (size_t i = 0; i < nc; i++) {
		double gy = top + group * (double)i;
		if (i % 2 == 0)
			out(s,
			    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			    "fill=\"" C_ZEBRA "\"/>\n",
			    MARGIN, gy, WIDTH - 2 * MARGIN, group);
		cat_label(s, d, &c[i], x0 - 8, gy + group / 2 + 4, labw - 10);
	}
	xgrid(s, &a, x0, x1, top, bottom);
	for (size_t t = 0; t < d->ntg; t++) {
		out(s, "<g class=\"series\" data-target=\"");
		esc(s, d->tg[t]);
		out(s, "\" fill=\"%s\">\n", colour(t));
		for (size_t i = 0; i < nc; i++) {
			struct val v;
			double y = top + group * (double)i + pad / 2 + (double)t * (bh + gap);
			if (!metric(find(d, t, c[i].wi), c[i].metric, &v)) {
				text(s, x0 + 4, y + bh - 4, "start",
				     "class=\"missing\" fill=\"#999\" font-style=\"italic\"", 10, 0,
				     "no data");
				continue;
			}
			double xm = axis_pos(&a, v.mean, x0, x1);
			fmt_val(v.mean, v.sd, v.n > 1, bw ? U_BYTES : U_COUNT, b, sizeof(b));
			out(s,
			    "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			    "height=\"%.1f\"><title>",
			    x0, y, xm - x0, bh);
			esc(s, d->tg[t]);
			out(s, ", ");
			esc(s, d->wl[c[i].wi]);
			out(s, " %s: ", c[i].metric);
			esc(s, b);
			out(s, " (n=%lld)</title></rect>\n", v.n);
			double xe = xm;
			if (v.n > 1) {
				double xl = axis_pos(&a, v.mean - v.sd, x0, x1);
				double xr = axis_pos(&a, v.mean + v.sd, x0, x1), yc = y + bh / 2;
				out(s,
				    "<path class=\"errorbar\" d=\"M%.1f %.1fH%.1fM%.1f "
				    "%.1fv%.1fM%.1f "
				    "%.1fv%.1f\" stroke=\"#333\" stroke-width=\"1.2\" "
				    "fill=\"none\"/>\n",
				    xl, yc, xr, xl, yc - bh * 0.3, bh * 0.6, xr, yc - bh * 0.3,
				    bh * 0.6);
				xe = xr;
			}
			text(s, xe + 5, y + bh / 2 + 4, "start",
			     "class=\"value\" fill=\"" C_TEXT "\"", 11, 0, b);
		}
		out(s, "</g>\n");
	}
	if (bw) {
		snprintf(b, sizeof(b), "bandwidth (%s)", rate_unit[a.k]);
		text(s, (x0 + x1) / 2, bottom + 33, "middle", "fill=\"" C_MUTED "\"", 12, 0, b);
	} else {
		text(s, (x0 + x1) / 2, bottom + 33, "middle", "fill=\"" C_MUTED "\"", 12, 0,
		     "I/O operations per second");
	}
	out(s, "</g>\n");
	*height = bottom + 48;
out:
	free(c);
	return ret;
}

/* ---- Lines: a metric by fsync frequency ---- */

struct member {
	size_t wi;
	long long every; /* fsync after every N writes; 0: never */
};

struct family {
	const char *base; /* borrowed from a workload name; baselen bytes */
	size_t baselen;
	const char *metric;
	struct member *m;
	size_t nm;
};

/* "write-iops-fsync32": base length and 32. False when the name has no such suffix. */
static bool fsync_suffix(const char *name, size_t *baselen, long long *every)
{
	const char *p = strstr(name, "-fsync"), *q;
	if (!p)
		return false;
	while ((q = strstr(p + 1, "-fsync")))
		p = q;
	const char *digits = p + 6;
	if (!*digits || strspn(digits, "0123456789") != strlen(digits) || strlen(digits) > 9)
		return false;
	*every = strtoll(digits, NULL, 10);
	*baselen = (size_t)(p - name);
	return *every > 0 && *baselen > 0;
}

static void families_release(struct family *f, size_t n)
{
	for (size_t i = 0; f && i < n; i++)
		free(f[i].m);
	free(f);
}

static int member_cmp(const void *a, const void *b)
{
	long long x = ((const struct member *)a)->every, y = ((const struct member *)b)->every;
	if (x == 0)
		x = INT64_MAX; /* "no fsync" last */
	if (y == 0)
		y = INT64_MAX;
	return (x > y) - (x < y);
}

/* The headline metric a family charts: write IOPS or bandwidth of its first member. */
static const char *family_metric(const struct doc *d, const struct family *f)
{
	for (size_t k = 0; k < f->nm; k++) {
		const char *pick = NULL;
		for (size_t i = 0; i < d->nr; i++) {
			if (d->r[i].wi != f->m[k].wi)
				continue;
			for (size_t h = 0; h < d->r[i].nhead; h++) {
				const char *m = d->r[i].head[h];
				if (!has_suffix(m, "-iops") && !has_suffix(m, "-bw"))
					continue;
				if (!pick || !strncmp(m, "write", 5))
					pick = m;
			}
			if (pick)
				return pick;
		}
	}
	return NULL;
}

static long long result_fsync(const struct doc *d, size_t wi)
{
	for (size_t i = 0; i < d->nr; i++)
		if (d->r[i].wi == wi && d->r[i].fsync >= 0)
			return d->r[i].fsync;
	return -1;
}

static int collect_families(const struct doc *d, struct family **out_f, size_t *nf)
{
	struct family *f = calloc(d->nwl + 1, sizeof(*f));
	*nf = 0;
	if (!f)
		return -ENOMEM;
	for (size_t w = 0; w < d->nwl; w++) {
		size_t bl;
		long long every;
		if (!fsync_suffix(d->wl[w], &bl, &every))
			continue;
		size_t k;
		for (k = 0; k < *nf; k++)
			if (f[k].baselen == bl && !strncmp(f[k].base, d->wl[w], bl))
				break;
		if (k == *nf) {
			f[k].base = d->wl[w];
			f[k].baselen = bl;
			if (!(f[k].m = calloc(d->nwl, sizeof(*f[k].m)))) {
				families_release(f, *nf + 1);
				return -ENOMEM;
			}
			(*nf)++;
			/* the workload without the suffix is "no fsync" */
			for (size_t b = 0; b < d->nwl; b++)
				if (strlen(d->wl[b]) == bl && !strncmp(d->wl[b], d->wl[w], bl))
					f[k].m[f[k].nm++] = (struct member){b, 0};
		}
		f[k].m[f[k].nm++] = (struct member){w, every};
	}
	/* the report's fsync field, when present, wins over the name */
	size_t keep = 0;
	for (size_t k = 0; k < *nf; k++) {
		for (size_t i = 0; i < f[k].nm; i++) {
			long long v = result_fsync(d, f[k].m[i].wi);
			if (v >= 0)
				f[k].m[i].every = v;
		}
		qsort(f[k].m, f[k].nm, sizeof(*f[k].m), member_cmp);
		/* one member per frequency */
		size_t u = 0;
		for (size_t i = 0; i < f[k].nm; i++)
			if (u == 0 || f[k].m[i].every != f[k].m[u - 1].every)
				f[k].m[u++] = f[k].m[i];
		f[k].nm = u;
		f[k].metric = family_metric(d, &f[k]);
		if (f[k].nm < 2 || !f[k].metric) {
			free(f[k].m);
			continue;
		}
		f[keep++] = f[k];
	}
	*nf = keep;
	*out_f = f;
	return 0;
}

static void every_label(long long every, char *buf, size_t len)
{
	if (every == 0)
		snprintf(buf, len, "no fsync");
	else
		snprintf(buf, len, "fsync=%lld", every);
}

/* One line chart at x offset ox, width w. Returns its height. */
static double chart_family(struct svg *s, const struct doc *d, const struct family *f, double ox,
			   double w)
{
	enum ukind u = kind_of(f->metric);
	double minpos = INFINITY, maxm = 0, maxtop = 0;
	long long nmax = 0;
	char b[96], title[128], sub[256], words[64], it[32];

	for (size_t t = 0; t < d->ntg; t++)
		for (size_t i = 0; i < f->nm; i++) {
			struct val v;
			if (!metric(find(d, t, f->m[i].wi), f->metric, &v))
				continue;
			if (v.mean > 0 && v.mean < minpos)
				minpos = v.mean;
			maxm = fmax(maxm, v.mean);
			maxtop = fmax(maxtop, v.mean + v.sd);
			if (v.n > nmax)
				nmax = v.n;
		}
	struct axis a;
	bool lg = isfinite(minpos) && maxm / minpos > LOG_RATIO;
	if (lg)
		axis_log(&a, minpos, maxtop, u);
	else
		axis_linear(&a, maxtop, u, 6);

	metric_words(f->metric, words, sizeof(words));
	words[0] = (char)(words[0] >= 'a' && words[0] <= 'z' ? words[0] - 'a' + 'A' : words[0]);
	snprintf(title, sizeof(title), "%s by fsync frequency", words);
	iter_words(nmax, it, sizeof(it));
	snprintf(sub, sizeof(sub), "%.*s-fsyncN: mean of %s%s", (int)f->baselen, f->base, it,
		 nmax > 1 ? ", band \xc2\xb1"
			    "1 std. deviation"
			  : "");

	out(s, "<g class=\"chart\" data-family=\"");
	esc_n(s, f->base, f->baselen);
	out(s, "\" data-metric=\"%s\" data-scale=\"%s\" transform=\"translate(%.1f 0)\">\n",
	    f->metric, lg ? "log" : "linear", ox);
	text(s, MARGIN, 22, "start", "font-weight=\"bold\"", 15, w - 2 * MARGIN, title);
	text(s, MARGIN, 40, "start", "fill=\"" C_MUTED "\"", 11, w - 2 * MARGIN, sub);
	double tw = ticks_width(&a, 11);
	double x0 = MARGIN + 22 + tw + 8, x1 = w - MARGIN - 10;
	double top = 58 + legend(s, d, x0, 60, x1 - x0, LG_LINE) + 10;
	double bottom = top + LINE_PLOTH;
	ygrid(s, &a, x0, x1, top, bottom);
	/* y axis title, rotated */
	metric_words(f->metric, words, sizeof(words));
	if (u == U_BYTES && !lg)
		snprintf(b, sizeof(b), "%s (%s)", words, rate_unit[a.k]);
	else
		snprintf(b, sizeof(b), "%s%s", words, lg ? " (log scale)" : "");
	out(s,
	    "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\" "
	    "fill=\"" C_MUTED "\">",
	    MARGIN + 8, (top + bottom) / 2);
	esc(s, b);
	out(s, "</text>\n");

	double step = (x1 - x0) / (double)f->nm;
	out(s, "<g class=\"axis\" font-size=\"11\" fill=\"" C_MUTED "\">\n");
	for (size_t i = 0; i < f->nm; i++) {
		every_label(f->m[i].every, b, sizeof(b));
		text(s, x0 + step * ((double)i + 0.5), bottom + 16, "middle", NULL, 11, step - 4,
		     b);
	}
	out(s, "</g>\n");
	text(s, (x0 + x1) / 2, bottom + 34, "middle", "fill=\"" C_MUTED "\"", 12, 0,
	     "fsync after every N writes");

	for (size_t t = 0; t < d->ntg; t++) {
		struct val v[64];
		bool have[64];
		size_t nm = f->nm < 64 ? f->nm : 64;
		for (size_t i = 0; i < nm; i++)
			have[i] = metric(find(d, t, f->m[i].wi), f->metric, &v[i]);
		out(s, "<g class=\"series\" data-target=\"");
		esc(s, d->tg[t]);
		out(s, "\">\n");
		/* runs of consecutive points: a band and a line each */
		for (size_t i = 0; i < nm;) {
			if (!have[i]) {
				i++;
				continue;
			}
			size_t j = i;
			while (j < nm && have[j])
				j++;
			if (j - i >= 2) {
				out(s, "<path class=\"band\" d=\"");
				for (size_t k = i; k < j; k++)
					out(s, "%s%.1f %.1f", k == i ? "M" : "L",
					    x0 + step * ((double)k + 0.5),
					    axis_pos(&a, v[k].mean + v[k].sd, bottom, top));
				for (size_t k = j; k-- > i;)
					out(s, "L%.1f %.1f", x0 + step * ((double)k + 0.5),
					    axis_pos(&a, v[k].mean - v[k].sd, bottom, top));
				out(s, "Z\" fill=\"%s\" fill-opacity=\"0.18\"/>\n", colour(t));
				out(s, "<path class=\"line\" d=\"");
				for (size_t k = i; k < j; k++)
					out(s, "%s%.1f %.1f", k == i ? "M" : "L",
					    x0 + step * ((double)k + 0.5),
					    axis_pos(&a, v[k].mean, bottom, top));
				out(s, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n",
				    colour(t));
			} else if (v[i].sd > 0) {
				double x = x0 + step * ((double)i + 0.5);
				out(s,
				    "<path class=\"errorbar\" d=\"M%.1f %.1fV%.1f\" stroke=\"%s\" "
				    "stroke-width=\"2\" fill=\"none\"/>\n",
				    x, axis_pos(&a, v[i].mean + v[i].sd, bottom, top),
				    axis_pos(&a, v[i].mean - v[i].sd, bottom, top), colour(t));
			}
			i = j;
		}
		for (size_t i = 0; i < nm; i++) {
			if (!have[i])
				continue;
			double x = x0 + step * ((double)i + 0.5);
			out(s, "<g class=\"point\">");
			marker(s, t, x, axis_pos(&a, v[i].mean, bottom, top), 4, colour(t));
			fmt_val(v[i].mean, v[i].sd, v[i].n > 1, u, b, sizeof(b));
			out(s, "<title>");
			esc(s, d->tg[t]);
			out(s, ", ");
			esc(s, d->wl[f->m[i].wi]);
			out(s, ": ");
			esc(s, b);
			out(s, "</title></g>\n");
		}
		out(s, "</g>\n");
	}
	out(s, "</g>\n");
	return bottom + 48;
}

static int panel_fsync(struct svg *s, const struct doc *d, double *height)
{
	struct family *f = NULL;
	size_t nf;
	int ret = collect_families(d, &f, &nf);

	*height = 0;
	if (ret || nf == 0)
		goto out;
	out(s, "<g class=\"panel\" data-panel=\"fsync\">\n");
	/* two charts a row */
	double y = 0;
	for (size_t i = 0; i < nf; i += 2) {
		double w = nf == 1 ? WIDTH : WIDTH / 2, rowh = 0;
		out(s, "<g transform=\"translate(0 %.1f)\">\n", y);
		for (size_t k = i; k < nf && k < i + 2; k++)
			rowh = fmax(rowh, chart_family(s, d, &f[k], w * (double)(k - i), w));
		out(s, "</g>\n");
		y += rowh;
	}
	out(s, "</g>\n");
	*height = y;
out:
	families_release(f, nf);
	return ret;
}

/* ---- Latency percentiles ---- */

static const char *const pct_key[3] = {"p50", "p99", "p99.9"};

/* p50, p99, p99.9 of a direction: the merged histogram, else the per-iteration means. */
static int percentiles(const struct res *r, const char *dir, double p[3])
{
	int have = 0;
	const json_t *m = r && r->merged ? json_object_get(r->merged, dir) : NULL;
	for (int k = 0; k < 3; k++) {
		p[k] = -1;
		const json_t *v = json_object_get(m, pct_key[k]);
		if (v) {
			p[k] = json_number_value(v);
		} else if (r) {
			char name[32];
			struct val x;
			snprintf(name, sizeof(name), "%s-lat-%s", dir, pct_key[k]);
			if (metric(r, name, &x))
				p[k] = x.mean;
		}
		have += p[k] > 0;
	}
	return have;
}

static int panel_latency(struct svg *s, const struct doc *d, double *height)
{
	struct cat *c = NULL;
	size_t nc, keep = 0;
	int ret = collect_cats(d, "-lat-mean", &c, &nc);
	char b[160];

	*height = 0;
	if (ret)
		goto out;
	/* the direction of each: "read-lat-mean" -> "read" */
	double minv = INFINITY, maxv = 0, labw = 0, valw = 0;
	for (size_t i = 0; i < nc; i++) {
		bool any = false;
		const char *dir = strncmp(c[i].metric, "write", 5) ? "read" : "write";
		for (size_t t = 0; t < d->ntg; t++) {
			double p[3];
			if (!percentiles(find(d, t, c[i].wi), dir, p))
				continue;
			any = true;
			for (int k = 0; k < 3; k++)
				if (p[k] > 0) {
					minv = fmin(minv, p[k]);
					maxv = fmax(maxv, p[k]);
				}
			for (int k = 0; k < 3; k++) {
				fmt_val(p[k], 0, false, U_NS, b, sizeof(b));
				valw = fmax(valw, text_w(b, 11));
			}
		}
		if (any) {
			c[keep++] = c[i];
			labw = fmax(labw, cat_label_w(d, &c[i], 12));
		}
	}
	nc = keep;
	if (nc == 0)
		goto out;
	labw = fmin(fmax(labw + 14, 90), 260);
	double colw = fmax(valw + 14, 48); /* a column per percentile right of the plot */
	double x0 = MARGIN + labw, x1 = WIDTH - MARGIN - 3 * colw - 12;
	struct axis a;
	axis_log(&a, minv, maxv, U_NS);
	double rh = 18, pad = 12, group = (double)d->ntg * rh + pad;

	out(s, "<g class=\"panel\" data-panel=\"latency\">\n");
	panel_head(s, MARGIN, WIDTH - 2 * MARGIN, "Latency percentiles",
		   "completion latency of all I/Os of all iterations (merged histogram); "
		   "log scale");
	double lh = legend(s, d, x0, 60, x1 - x0, LG_BOX);
	/* the shapes */
	out(s, "<g class=\"legend\">\n");
	for (int k = 0; k < 3; k++) {
		double x = x0 + 70.0 * k;
		marker(s, (size_t)k * 2, x + 5, 60 + lh - 4, 4.5, "#555");
		text(s, x + 14, 60 + lh, "start", NULL, 12, 0, pct_key[k]);
	}
	out(s, "</g>\n");
	double top = 58 + lh + 20 + 4, bottom = top + group * (double)nc;
	for (size_t i = 0; i < nc; i++) {
		double gy = top + group * (double)i;
		if (i % 2 == 0)
			out(s,
			    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			    "fill=\"" C_ZEBRA "\"/>\n",
			    MARGIN, gy, WIDTH - 2 * MARGIN, group);
		cat_label(s, d, &c[i], x0 - 8, gy + group / 2 + 4, labw - 10);
	}
	xgrid(s, &a, x0, x1, top, bottom);
	out(s, "<g class=\"columns\" font-size=\"11\" fill=\"" C_MUTED "\">\n");
	for (int k = 0; k < 3; k++)
		text(s, x1 + 12 + colw * (k + 1), top - 5, "end", NULL, 11, 0, pct_key[k]);
	out(s, "</g>\n");
	for (size_t t = 0; t < d->ntg; t++) {
		out(s, "<g class=\"series\" data-target=\"");
		esc(s, d->tg[t]);
		out(s, "\">\n");
		for (size_t i = 0; i < nc; i++) {
			double p[3], y = top + group * (double)i + pad / 2 + rh * ((double)t + 0.5);
			const char *dir = strncmp(c[i].metric, "write", 5) ? "read" : "write";
			if (!percentiles(find(d, t, c[i].wi), dir, p)) {
				text(s, x0 + 4, y + 4, "start",
				     "class=\"missing\" fill=\"#999\" font-style=\"italic\"", 10, 0,
				     "no data");
				continue;
			}
			double lo = INFINITY, hi = 0;
			for (int k = 0; k < 3; k++)
				if (p[k] > 0) {
					lo = fmin(lo, p[k]);
					hi = fmax(hi, p[k]);
				}
			out(s, "<g class=\"percentiles\">\n");
			out(s, "<path d=\"M%.1f %.1fH%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
			    axis_pos(&a, lo, x0, x1), y, axis_pos(&a, hi, x0, x1), colour(t));
			for (int k = 0; k < 3; k++)
				if (p[k] > 0)
					marker(s, (size_t)k * 2, axis_pos(&a, p[k], x0, x1), y, 4.5,
					       colour(t));
			for (int k = 0; k < 3; k++) {
				if (p[k] <= 0)
					continue;
				fmt_val(p[k], 0, false, U_NS, b, sizeof(b));
				text(s, x1 + 12 + colw * (k + 1), y + 4, "end", "class=\"value\"",
				     11, 0, b);
			}
			out(s, "</g>\n");
		}
		out(s, "</g>\n");
	}
	text(s, (x0 + x1) / 2, bottom + 33, "middle", "fill=\"" C_MUTED "\"", 12, 0,
	     "latency (log scale)");
	out(s, "</g>\n");
	*height = bottom + 48;
out:
	free(c);
	return ret;
}

/* ---- The document ---- */

static const struct {
	unsigned bit;
	const char *name;
} panel_names[] = {
	{SB_SVG_IOPS, "iops"},
	{SB_SVG_BW, "bandwidth"},
	{SB_SVG_FSYNC, "fsync"},
	{SB_SVG_LATENCY, "latency"},
};

const char *sb_report_svg_panel_name(unsigned panel)
{
	for (size_t i = 0; i < sizeof(panel_names) / sizeof(panel_names[0]); i++)
		if (panel_names[i].bit == panel)
			return panel_names[i].name;
	return NULL;
}

/* Draws one panel at y; *h is 0 when it has no data. */
static int draw(struct svg *s, const struct doc *d, unsigned bit, double y, double *h)
{
	int ret;
	out(s, "<g transform=\"translate(0 %.1f)\">\n", y);
	switch (bit) {
	case SB_SVG_IOPS:
		ret = panel_bars(s, d, false, h);
		break;
	case SB_SVG_BW:
		ret = panel_bars(s, d, true, h);
		break;
	case SB_SVG_FSYNC:
		ret = panel_fsync(s, d, h);
		break;
	default:
		ret = panel_latency(s, d, h);
		break;
	}
	out(s, "</g>\n");
	return ret;
}

static int render(const struct doc *d, unsigned panels, char **out_s, char *err, size_t errlen)
{
	struct svg body = {0}, s = {0};
	char *bbuf = NULL, *buf = NULL;
	size_t blen = 0, len = 0;
	double y = 64;
	unsigned drawn = 0;
	int ret = 0;

	body.f = open_memstream(&bbuf, &blen);
	if (!body.f)
		return -ENOMEM;
	for (size_t i = 0; i < sizeof(panel_names) / sizeof(panel_names[0]); i++) {
		double h = 0;
		if (!(panels & panel_names[i].bit))
			continue;
		/* a panel without data leaves an empty group: draw into a scratch stream */
		char *pbuf = NULL;
		size_t plen = 0;
		struct svg p = {open_memstream(&pbuf, &plen), 0};
		if (!p.f) {
			ret = -ENOMEM;
			break;
		}
		ret = draw(&p, d, panel_names[i].bit, y, &h);
		if (fclose(p.f) != 0 && !ret)
			ret = -ENOMEM;
		if (!ret && p.err)
			ret = p.err;
		if (!ret && h > 0) {
			out(&body, "%s", pbuf);
			y += h + 16;
			drawn |= panel_names[i].bit;
		}
		free(pbuf);
		if (ret)
			break;
	}
	if (!ret && !drawn) {
		if (panels != SB_SVG_ALL) {
			snprintf(err, errlen, "report has no results for the requested charts");
			ret = -ENODATA;
		} else {
			text(&body, MARGIN, y + 20, "start", "class=\"note\" fill=\"" C_MUTED "\"",
			     13, 0, "No results to chart.");
			y += 40;
		}
	}
	if (fclose(body.f) != 0 && !ret)
		ret = -ENOMEM;
	if (!ret && body.err)
		ret = body.err;
	if (ret)
		goto out;

	s.f = open_memstream(&buf, &len);
	if (!s.f) {
		ret = -ENOMEM;
		goto out;
	}
	double h = ceil(y);
	out(&s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	out(&s,
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
	    "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"" FONT "\" "
	    "font-size=\"12\" fill=\"" C_TEXT "\">\n",
	    WIDTH, h, WIDTH, h);
	out(&s, "<title>storagebench report");
	if (*d->name) {
		out(&s, " ");
		esc(&s, d->name);
	}
	out(&s, "</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
	out(&s,
	    "<text x=\"%.1f\" y=\"30\" font-size=\"20\" font-weight=\"bold\">storagebench "
	    "report",
	    MARGIN);
	if (*d->name) {
		out(&s, ": ");
		esc_fit(&s, d->name, 20, WIDTH - 2 * MARGIN - 220);
	}
	out(&s, "</text>\n");
	char sub[160];
	snprintf(sub, sizeof(sub), "%zu target%s, %zu workload%s", d->ntg, d->ntg == 1 ? "" : "s",
		 d->nwl, d->nwl == 1 ? "" : "s");
	text(&s, MARGIN, 50, "start", "fill=\"" C_MUTED "\"", 12, 0, sub);
	out(&s, "%s</svg>\n", bbuf ? bbuf : "");
	if (fclose(s.f) != 0 && !ret)
		ret = -ENOMEM;
	if (!ret && s.err)
		ret = s.err;
	if (ret)
		goto out;
	*out_s = buf;
	buf = NULL;
out:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	free(buf);
	free(bbuf);
	return ret;
}

int sb_report_svg(const json_t *report, unsigned panels, char **out_s, char *err, size_t errlen)
{
	struct doc d;
	int ret;

	*out_s = NULL;
	if (!(panels & SB_SVG_ALL) || (panels & ~(unsigned)SB_SVG_ALL))
		return BAD("panels: 0x%x is not a set of SB_SVG_* bits", panels);
	if ((ret = doc_parse(report, &d, err, errlen))) {
		if (ret == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		return ret;
	}
	/* numbers in SVG have a decimal point whatever the caller's locale */
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	locale_t old = c ? uselocale(c) : (locale_t)0;
	ret = render(&d, panels, out_s, err, errlen);
	if (c) {
		uselocale(old);
		freelocale(c);
	}
	doc_release(&d);
	return ret;
}

char *sb_report_svg_render(const json_t *report, char *err, size_t errlen)
{
	char *s = NULL;
	if (sb_report_svg(report, SB_SVG_ALL, &s, err, errlen))
		return NULL;
	return s;
}

int sb_report_svg_panels(const json_t *report, unsigned *mask, char *err, size_t errlen)
{
	struct doc d;
	int ret = doc_parse(report, &d, err, errlen);

	*mask = 0;
	if (ret)
		return ret;
	for (size_t i = 0; i < sizeof(panel_names) / sizeof(panel_names[0]) && !ret; i++) {
		char *s = NULL;
		char e[8];
		unsigned bit = panel_names[i].bit;
		ret = render(&d, bit, &s, e, sizeof(e));
		if (ret == -ENODATA)
			ret = 0;
		else if (!ret)
			*mask |= bit;
		free(s);
	}
	doc_release(&d);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	return ret;
}
