/* SPDX-License-Identifier: MIT */
/*
 * The entry points of report/svg/svg.h: the report parsed (report/svg/doc.c),
 * each requested panel drawn (report/svg/bars.c, fsync.c, latency.c,
 * lifecycle.c, sweep.c) and
 * the ones with data stacked under the document's title. The files of
 * lib/report/svg/ are listed in svg/internal.h.
 */
#include "svg.h"
#include "report/svg/internal.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- The document ---- */

static const struct {
	unsigned bit;
	const char *name;
} panel_names[] = {
	{SB_SVG_IOPS, "iops"},	     {SB_SVG_BW, "bandwidth"},	      {SB_SVG_FSYNC, "fsync"},
	{SB_SVG_LATENCY, "latency"}, {SB_SVG_LIFECYCLE, "lifecycle"}, {SB_SVG_SWEEP, "sweep"},
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
	svg_out(s, "<g transform=\"translate(0 %.1f)\">\n", y);
	switch (bit) {
	case SB_SVG_IOPS:
		ret = svg_panel_bars(s, d, false, h);
		break;
	case SB_SVG_BW:
		ret = svg_panel_bars(s, d, true, h);
		break;
	case SB_SVG_FSYNC:
		ret = svg_panel_fsync(s, d, h);
		break;
	case SB_SVG_LIFECYCLE:
		ret = svg_panel_lifecycle(s, d, h);
		break;
	case SB_SVG_SWEEP:
		ret = svg_panel_sweep(s, d, h);
		break;
	default:
		ret = svg_panel_latency(s, d, h);
		break;
	}
	svg_out(s, "</g>\n");
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
			svg_out(&body, "%s", pbuf);
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
			svg_text(&body, MARGIN, y + 20, "start",
				 "class=\"note\" fill=\"" C_MUTED "\"", 13, 0,
				 "No results to chart.");
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
	svg_out(&s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	svg_out(&s,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"" FONT "\" "
		"font-size=\"12\" fill=\"" C_TEXT "\">\n",
		WIDTH, h, WIDTH, h);
	svg_out(&s, "<title>storagebench report");
	if (*d->name) {
		svg_out(&s, " ");
		svg_esc(&s, d->name);
	}
	svg_out(&s, "</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
	svg_out(&s,
		"<text x=\"%.1f\" y=\"30\" font-size=\"20\" font-weight=\"bold\">storagebench "
		"report",
		MARGIN);
	if (*d->name) {
		svg_out(&s, ": ");
		svg_esc_fit(&s, d->name, 20, WIDTH - 2 * MARGIN - 220);
	}
	svg_out(&s, "</text>\n");
	char sub[160];
	snprintf(sub, sizeof(sub), "%zu target%s, %zu workload%s", d->ntg, d->ntg == 1 ? "" : "s",
		 d->nwl, d->nwl == 1 ? "" : "s");
	svg_text(&s, MARGIN, 50, "start", "fill=\"" C_MUTED "\"", 12, 0, sub);
	svg_out(&s, "%s</svg>\n", bbuf ? bbuf : "");
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
	if ((ret = svg_doc_parse(report, &d, err, errlen))) {
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
	svg_doc_release(&d);
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
	int ret = svg_doc_parse(report, &d, err, errlen);

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
	svg_doc_release(&d);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	return ret;
}
