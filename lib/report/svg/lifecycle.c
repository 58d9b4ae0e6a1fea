/* SPDX-License-Identifier: MIT */
/*
 * The lifecycle panel of lib/report_svg: the report's "lifecycle" section
 * (controller/lifecycle/lifecycle.c) as grouped horizontal bars, one group per phase
 * and one bar per class, as the IOPS panel draws workloads and targets:
 * the mean, whiskers +-1 standard deviation, a tick at p95. A skipped
 * phase says why in its row; failed iterations are listed under the axis.
 */
#include "report/svg/internal.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FAILURES 6

/* A failed iteration: an entry without statistics or a reason to skip. */
static bool failure(const struct lc *e)
{
	return !e->stats && !e->skipped;
}

/* The entry of target t and phase p with statistics or a reason, or NULL. */
static const struct lc *entry(const struct doc *d, size_t t, const char *p)
{
	for (size_t i = 0; i < d->nlc; i++)
		if (d->lc[i].ti == t && !failure(&d->lc[i]) && !strcmp(d->lc[i].phase, p))
			return &d->lc[i];
	return NULL;
}

/*
 * The phases to draw into ph (room for d->nlc + 4): the four of
 * controller/lifecycle/lifecycle.c in their order when the section has them, then
 * any other in order of mention. Returns how many.
 */
static size_t phases(const struct doc *d, const char **ph)
{
	static const char *const order[] = {"provision", "attach", "resize", "delete"};
	size_t n = 0;
	for (size_t k = 0; k < 4; k++)
		for (size_t i = 0; i < d->nlc; i++)
			if (!failure(&d->lc[i]) && !strcmp(d->lc[i].phase, order[k])) {
				ph[n++] = order[k];
				break;
			}
	for (size_t i = 0; i < d->nlc; i++) {
		bool seen = failure(&d->lc[i]);
		for (size_t k = 0; k < n && !seen; k++)
			seen = !strcmp(ph[k], d->lc[i].phase);
		if (!seen)
			ph[n++] = d->lc[i].phase;
	}
	return n;
}

/* "512 ms ± 12 ms, p95 530 ms" into buf. */
static void label(const struct lc *e, char *buf, size_t len)
{
	char v[96], p[48];
	svg_fmt_val(e->mean, e->sd, e->n > 1, U_NS, v, sizeof(v));
	if (e->p95 < 0) {
		snprintf(buf, len, "%s", v);
		return;
	}
	svg_fmt_val(e->p95, 0, false, U_NS, p, sizeof(p));
	snprintf(buf, len, "%s, p95 %s", v, p);
}

/* A row's label: the phase name, right-aligned at x. */
static void row_label(struct svg *s, const char *phase, double x, double y, double maxw)
{
	svg_out(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", x, y);
	svg_esc_fit(s, phase, 12, maxw);
	svg_out(s, "</text>\n");
}

/* One bar: the mean, the whiskers, the p95 tick and the value. */
static void bar(struct svg *s, const struct doc *d, const struct lc *e, const struct axis *a,
		double x0, double x1, double y, double bh)
{
	char b[160];
	double xm = svg_axis_pos(a, e->mean, x0, x1), xe = xm;
	label(e, b, sizeof(b));
	svg_out(s,
		"<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>",
		x0, y, xm - x0, bh);
	svg_esc(s, d->tg[e->ti]);
	svg_out(s, ", ");
	svg_esc(s, e->phase);
	svg_out(s, ": ");
	svg_esc(s, b);
	svg_out(s, " (n=%lld)</title></rect>\n", e->n);
	if (e->n > 1) {
		double xl = svg_axis_pos(a, e->mean - e->sd, x0, x1);
		double xr = svg_axis_pos(a, e->mean + e->sd, x0, x1), yc = y + bh / 2;
		svg_out(s,
			"<path class=\"errorbar\" d=\"M%.1f %.1fH%.1fM%.1f %.1fv%.1fM%.1f "
			"%.1fv%.1f\" stroke=\"#333\" stroke-width=\"1.2\" fill=\"none\"/>\n",
			xl, yc, xr, xl, yc - bh * 0.3, bh * 0.6, xr, yc - bh * 0.3, bh * 0.6);
		xe = xr;
	}
	if (e->p95 >= 0) {
		double xp = svg_axis_pos(a, e->p95, x0, x1);
		svg_out(s,
			"<path class=\"p95\" d=\"M%.1f %.1fv%.1f\" stroke=\"" C_TEXT
			"\" stroke-width=\"2.5\"/>\n",
			xp, y - 2, bh + 4);
		xe = fmax(xe, xp);
	}
	svg_text(s, xe + 5, y + bh / 2 + 4, "start", "class=\"value\" fill=\"" C_TEXT "\"", 11, 0,
		 b);
}

/* The panel's geometry: the duration axis, the plot area, a phase's group of bars. */
struct lc_plot {
	struct axis a;
	double x0, x1, top, bottom;
	double group, bh, gap, pad; /* a phase's height; a bar's, between bars, around them */
};

/* One series per class shown: a bar per phase, or why there is none. */
static void lc_series(struct svg *s, const struct doc *d, const bool *show, const char **ph,
		      size_t np, const struct lc_plot *p)
{
	char b[160];
	for (size_t t = 0, k = 0; t < d->ntg; t++) {
		if (!show[t])
			continue;
		svg_out(s, "<g class=\"series\" data-target=\"");
		svg_esc(s, d->tg[t]);
		svg_out(s, "\" fill=\"%s\">\n", svg_colour(t));
		for (size_t i = 0; i < np; i++) {
			const struct lc *e = entry(d, t, ph[i]);
			double y = p->top + p->group * (double)i + p->pad / 2 +
				   (double)k * (p->bh + p->gap);
			if (e && e->stats) {
				bar(s, d, e, &p->a, p->x0, p->x1, y, p->bh);
			} else if (e) {
				snprintf(b, sizeof(b), "skipped: %s", e->skipped);
				svg_text(s, p->x0 + 4, y + p->bh - 4, "start",
					 "class=\"skipped\" fill=\"" C_MUTED
					 "\" font-style=\"italic\"",
					 10, p->x1 - p->x0 - 8, b);
			} else {
				svg_text(s, p->x0 + 4, y + p->bh - 4, "start",
					 "class=\"missing\" fill=\"#999\" font-style=\"italic\"",
					 10, 0, "no data");
			}
		}
		svg_out(s, "</g>\n");
		k++;
	}
}

/*
 * The failed iterations below the chart from *y (moved down), at most
 * MAX_FAILURES, then how many more; *shown of them. 0 or -ENOMEM.
 */
static int lc_failures(struct svg *s, const struct doc *d, size_t nfail, double *y, size_t *shown)
{
	char b[160];
	for (size_t i = 0; i < d->nlc && *shown < MAX_FAILURES; i++) {
		const struct lc *e = &d->lc[i];
		char *line = NULL;
		size_t len = 0;
		if (!failure(e))
			continue;
		FILE *f = open_memstream(&line, &len);
		if (!f)
			return -ENOMEM;
		fprintf(f, "%s: ", e->target);
		if (e->iteration >= 0)
			fprintf(f, "iteration %lld ", e->iteration);
		fprintf(f, "failed: %s", e->message ? e->message : "(no message)");
		if (fclose(f) != 0) {
			free(line);
			return -ENOMEM;
		}
		svg_text(s, MARGIN, *y + 12, "start", "class=\"failure\" fill=\"#a3261c\"", 11,
			 WIDTH - 2 * MARGIN, line);
		free(line);
		*y += 16;
		(*shown)++;
	}
	if (nfail > *shown) {
		snprintf(b, sizeof(b), "and %zu more failed iteration%s (see the text report)",
			 nfail - *shown, nfail - *shown == 1 ? "" : "s");
		svg_text(s, MARGIN, *y + 12, "start", "class=\"failure\" fill=\"#a3261c\"", 11, 0,
			 b);
		*y += 16;
	}
	return 0;
}

int svg_panel_lifecycle(struct svg *s, const struct doc *d, double *height)
{
	const char **ph = calloc(d->nlc + 4, sizeof(*ph));
	bool *show = calloc(d->ntg + 1, sizeof(*show));
	int ret = 0;
	char b[160], sub[200], it[32];

	*height = 0;
	if (!ph || !show) {
		ret = -ENOMEM;
		goto out;
	}
	/* the classes with an entry, the scale, the widths */
	size_t nshow = 0, nfail = 0, np = phases(d, ph);
	double max = 0, labw = 0, valw = 0;
	long long nmax = 0;
	bool any = false;
	for (size_t i = 0; i < d->nlc; i++) {
		const struct lc *e = &d->lc[i];
		if (!show[e->ti]) {
			show[e->ti] = true;
			nshow++;
		}
		nfail += failure(e);
		if (!e->stats)
			continue;
		any = true;
		max = fmax(max, fmax(e->mean + e->sd, e->p95));
		nmax = e->n > nmax ? e->n : nmax;
		label(e, b, sizeof(b));
		valw = fmax(valw, svg_text_w(b, 11));
	}
	if (!any)
		goto out; /* nothing measured: the text report has the reasons */
	for (size_t i = 0; i < np; i++)
		labw = fmax(labw, svg_text_w(ph[i], 12));
	labw = fmin(fmax(labw + 14, 90), 260);
	valw = fmin(fmax(valw + 12, 50), 300);
	struct lc_plot p = {.x0 = MARGIN + labw, .x1 = WIDTH - MARGIN - valw};
	svg_axis_linear(&p.a, max, U_NS, (int)((p.x1 - p.x0) / 80));

	p.bh = nshow <= 4 ? 16 : 11;
	p.gap = 3;
	p.pad = 14;
	p.group = (double)nshow * (p.bh + p.gap) - p.gap + p.pad;
	snprintf(it, sizeof(it), "%s%lld volume%s", nmax > 1 ? "up to " : "", nmax,
		 nmax == 1 ? "" : "s");
	snprintf(sub, sizeof(sub),
		 "time per phase and class from the API's watch events: mean over the volumes of "
		 "all iterations (%s)%s; tick: p95",
		 it,
		 nmax > 1 ? "; error bars: \xc2\xb1"
			    "1 standard deviation"
			  : "");
	svg_out(s, "<g class=\"panel\" data-panel=\"lifecycle\">\n");
	svg_panel_head(s, MARGIN, WIDTH - 2 * MARGIN, "Volume lifecycle", sub);
	p.top = 58 + svg_legend_of(s, d, show, p.x0, 60, p.x1 - p.x0, LG_BOX) + 4;
	p.bottom = p.top + p.group * (double)np;

	for (size_t i = 0; i < np; i++) {
		double gy = p.top + p.group * (double)i;
		if (i % 2 == 0)
			svg_out(s,
				"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				"fill=\"" C_ZEBRA "\"/>\n",
				MARGIN, gy, WIDTH - 2 * MARGIN, p.group);
		row_label(s, ph[i], p.x0 - 8, gy + p.group / 2 + 4, labw - 10);
	}
	svg_xgrid(s, &p.a, p.x0, p.x1, p.top, p.bottom);
	lc_series(s, d, show, ph, np, &p);
	svg_text(s, (p.x0 + p.x1) / 2, p.bottom + 33, "middle", "fill=\"" C_MUTED "\"", 12, 0,
		 "duration");
	double y = p.bottom + 48;
	size_t shown = 0;
	ret = lc_failures(s, d, nfail, &y, &shown);
	svg_out(s, "</g>\n");
	*height = shown ? y + 8 : p.bottom + 48;
out:
	free(ph);
	free(show);
	return ret;
}
