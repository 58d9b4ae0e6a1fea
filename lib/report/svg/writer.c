/* SPDX-License-Identifier: MIT */
/*
 * The SVG writer of lib/report_svg: output with a sticky error, XML escaping
 * of UTF-8 text, text width estimates, <text> elements, the palette and the
 * marker shapes. Knows nothing of reports.
 */
#include "report/svg/internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Okabe & Ito's palette, distinguishable with the common colour-vision deficiencies. */
static const char *const palette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
				      "#CC79A7", "#56B4E9", "#8C7A00", "#000000"};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

const char *svg_colour(size_t i)
{
	return palette[i % NPALETTE];
}

/* ---- Output with a sticky error ---- */

void svg_out(struct svg *s, const char *fmt, ...)
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
void svg_esc_n(struct svg *s, const char *str, size_t n)
{
	const unsigned char *p = (const unsigned char *)str;
	size_t i = 0;

	while (i < n && !s->err) {
		long cp;
		size_t l = utf8_next(p + i, n - i, &cp);
		if (cp < 0)
			svg_out(s, "?");
		else if (cp == '<')
			svg_out(s, "&lt;");
		else if (cp == '>')
			svg_out(s, "&gt;");
		else if (cp == '&')
			svg_out(s, "&amp;");
		else if (cp == '"')
			svg_out(s, "&quot;");
		else if (cp == '\'')
			svg_out(s, "&apos;");
		else if (cp == '\n' || cp == '\r' || cp == '\t')
			svg_out(s, "&#%ld;", cp);
		else if (fwrite(p + i, 1, l, s->f) != l)
			s->err = -ENOMEM;
		i += l;
	}
}

void svg_esc(struct svg *s, const char *str)
{
	svg_esc_n(s, str, strlen(str));
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

double svg_text_w(const char *str, double px)
{
	return text_wn(str, strlen(str), px);
}

/* Writes str escaped, cut with an ellipsis to fit maxw at size px. */
void svg_esc_fit(struct svg *s, const char *str, double px, double maxw)
{
	const unsigned char *p = (const unsigned char *)str;
	size_t n = strlen(str), i = 0;
	double w = 0, ell = char_w(0x2026) * px;

	if (text_wn(str, n, px) <= maxw) {
		svg_esc_n(s, str, n);
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
	svg_esc_n(s, str, i);
	svg_out(s, "\xe2\x80\xa6");
}

/* <text x y anchor attrs>str</text>, str escaped and fitted to maxw (0: no limit). */
void svg_text(struct svg *s, double x, double y, const char *anchor, const char *attrs, double px,
	      double maxw, const char *str)
{
	svg_out(s, "<text x=\"%.1f\" y=\"%.1f\"", x, y);
	if (anchor && strcmp(anchor, "start") != 0)
		svg_out(s, " text-anchor=\"%s\"", anchor);
	if (px != 12)
		svg_out(s, " font-size=\"%g\"", px);
	svg_out(s, "%s%s>", attrs && *attrs ? " " : "", attrs ? attrs : "");
	if (maxw > 0)
		svg_esc_fit(s, str, px, maxw);
	else
		svg_esc(s, str);
	svg_out(s, "</text>\n");
}

/* ---- Markers ---- */

/* A marker of shape i (circle, square, diamond, triangles) centred at x, y. */
void svg_marker(struct svg *s, size_t shape, double x, double y, double r, const char *fill)
{
	switch (shape % 5) {
	case 0:
		svg_out(s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"", x, y, r);
		break;
	case 1:
		svg_out(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"",
			x - r * 0.9, y - r * 0.9, r * 1.8, r * 1.8);
		break;
	case 2:
		svg_out(s, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\"", x, y - r * 1.25,
			x + r * 1.25, y, x, y + r * 1.25, x - r * 1.25, y);
		break;
	case 3:
		svg_out(s, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\"", x, y - r * 1.2,
			x + r * 1.1, y + r * 0.8, x - r * 1.1, y + r * 0.8);
		break;
	default:
		svg_out(s, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\"", x, y + r * 1.2,
			x + r * 1.1, y - r * 0.8, x - r * 1.1, y - r * 0.8);
		break;
	}
	svg_out(s, " fill=\"%s\" stroke=\"#fff\" stroke-width=\"1\"/>\n", fill);
}
