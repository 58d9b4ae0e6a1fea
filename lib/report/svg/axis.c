/* SPDX-License-Identifier: MIT */
/*
 * Value axes of lib/report_svg: linear (1-2-5 steps from zero) and
 * logarithmic ticks, positions on the plot, tick labels and gridlines.
 */
#include "report/svg/internal.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Linear axis from 0 to a 1-2-5 step above max, about maxticks ticks. */
void svg_axis_linear(struct axis *a, double max, enum ukind u, int maxticks)
{
	memset(a, 0, sizeof(*a));
	a->u = u;
	a->div = 1;
	if (u == U_BYTES)
		a->div = svg_scale_of(max, u, &a->k);
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
void svg_axis_log(struct axis *a, double min, double max, enum ukind u)
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

double svg_axis_pos(const struct axis *a, double v, double p0, double p1)
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
		svg_fmt_trim(v / a->div, dec, buf, len);
		return;
	}
	double div = svg_scale_of(v, a->u, &k);
	double step = a->log ? v : a->step;
	double sk = step / div;
	int dec = sk >= 1 ? 0 : (int)ceil(-log10(sk) - 1e-9);
	svg_fmt_trim(v / div, dec > 3 ? 3 : dec, n, sizeof(n));
	snprintf(buf, len, "%s%s%s", n, a->u == U_COUNT ? "" : " ", svg_unit_name(a->u, k));
}

double svg_ticks_width(const struct axis *a, double px)
{
	double w = 0;
	char b[48];
	for (size_t i = 0; i < a->nt; i++) {
		tick_label(a, a->t[i], b, sizeof(b));
		if (svg_text_w(b, px) > w)
			w = svg_text_w(b, px);
	}
	return w;
}

/* Vertical gridlines and tick labels of a horizontal value axis. */
void svg_xgrid(struct svg *s, const struct axis *a, double x0, double x1, double top, double bottom)
{
	char b[48];
	svg_out(s, "<g class=\"axis\" font-size=\"11\" fill=\"" C_MUTED "\">\n");
	for (size_t i = 0; i < a->nt; i++) {
		double x = svg_axis_pos(a, a->t[i], x0, x1);
		svg_out(s, "<path d=\"M%.1f %.1fV%.1f\" stroke=\"%s\"/>\n", x, top, bottom,
			i == 0 && !a->log ? C_AXIS : C_GRID);
		tick_label(a, a->t[i], b, sizeof(b));
		svg_text(s, x, bottom + 15, "middle", NULL, 11, 0, b);
	}
	svg_out(s, "</g>\n");
}

/* Horizontal gridlines and tick labels of a vertical value axis. */
void svg_ygrid(struct svg *s, const struct axis *a, double x0, double x1, double top, double bottom)
{
	char b[48];
	svg_out(s, "<g class=\"axis\" font-size=\"11\" fill=\"" C_MUTED "\">\n");
	for (size_t i = 0; i < a->nt; i++) {
		double y = svg_axis_pos(a, a->t[i], bottom, top);
		svg_out(s, "<path d=\"M%.1f %.1fH%.1f\" stroke=\"%s\"/>\n", x0, y, x1,
			i == 0 && !a->log ? C_AXIS : C_GRID);
		tick_label(a, a->t[i], b, sizeof(b));
		svg_text(s, x0 - 6, y + 4, "end", NULL, 11, 0, b);
	}
	svg_out(s, "</g>\n");
}
