/* SPDX-License-Identifier: MIT */
#include "format.h"

#include "core/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

char *sb_report_fmt_value(double v, const char *unit, char *buf, size_t len)
{
	if (!strcmp(unit, "B/s"))
		return sb_fmt_rate(v, buf, len);
	if (!strcmp(unit, "ns"))
		return sb_fmt_ns(v, buf, len);
	/* counts: whole numbers from 100 up, two significant digits below */
	if (fabs(v) >= 99.5)
		snprintf(buf, len, "%.0f %s", v, unit);
	else if (fabs(v) >= 9.95)
		snprintf(buf, len, "%.0f %s", v, unit);
	else
		snprintf(buf, len, "%.2g %s", v, unit);
	return buf;
}

char *sb_report_fmt_short(double v, const char *unit, char *buf, size_t len)
{
	if (!strcmp(unit, "B/s"))
		return sb_fmt_rate(v, buf, len);
	if (!strcmp(unit, "ns"))
		return sb_fmt_ns(v, buf, len);
	if (fabs(v) < 9.95 && v != floor(v))
		snprintf(buf, len, "%.2g", v);
	else if (fabs(v) < 10000)
		snprintf(buf, len, "%.0f", v);
	else
		sb_fmt_si(v, 3, buf, len);
	return buf;
}

void sb_report_metric_words(const char *m, char *buf, size_t len)
{
	const char *dash = strchr(m, '-');
	int dl = dash ? (int)(dash - m) : (int)strlen(m);
	const char *what = dash ? dash + 1 : "";
	if (!strcmp(what, "iops"))
		snprintf(buf, len, "%.*s IOPS", dl, m);
	else if (!strcmp(what, "bw"))
		snprintf(buf, len, "%.*s bandwidth", dl, m);
	else if (!strcmp(what, "lat-mean"))
		snprintf(buf, len, "mean %.*s latency", dl, m);
	else if (!strncmp(what, "lat-", 4))
		snprintf(buf, len, "%s %.*s latency", what + 4, dl, m);
	else
		snprintf(buf, len, "%s", m);
}

void sb_report_csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void sb_report_md_cell(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '|' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

void sb_report_cell(FILE *f, const char *s, bool md)
{
	if (md)
		sb_report_md_cell(f, s);
	else
		fputs(s, f);
}

size_t sb_report_text_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}
