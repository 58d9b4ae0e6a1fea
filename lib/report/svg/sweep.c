/* SPDX-License-Identifier: MIT */
/*
 * The saturation sweep panel (report/svg/svg.h SB_SVG_SWEEP), from the
 * report's "sweep" section (lib/report/sweep.h): left, the aggregate IOPS
 * against the swept parameter (runner pods per class), a line and a
 * marker per class and workload with +-1 standard deviation error bars;
 * right, p99 latency (logarithmic) against the aggregate IOPS of the same
 * steps, where the knee of the curve shows. Malformed points are skipped.
 */
#include "report/svg/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SERIES 16
#define MAX_POINTS 16
#define PLOTH	   220.0

struct spoint {
	double x, iops, sd, p99; /* p99 < 0: none */
};

struct series {
	const char *target, *workload;
	struct spoint p[MAX_POINTS];
	size_t n;
};

static bool get_num(const json_t *o, const char *k, double *v)
{
	const json_t *j = json_object_get(o, k);
	if (!json_is_number(j))
		return false;
	*v = json_number_value(j);
	return isfinite(*v);
}

/* The curve's points grouped per (target, workload), in order of appearance. */
static size_t collect(const json_t *sweep, struct series *sv)
{
	size_t ns = 0, i;
	const json_t *v;
	json_array_foreach(json_object_get(sweep, "curve"), i, v)
	{
		const char *t = json_string_value(json_object_get(v, "target"));
		const char *w = json_string_value(json_object_get(v, "workload"));
		struct spoint p;
		if (!t || !w || !get_num(v, "value", &p.x) ||
		    !get_num(json_object_get(v, "iops"), "mean", &p.iops) ||
		    !get_num(json_object_get(v, "iops"), "stddev", &p.sd) || p.iops < 0 || p.sd < 0)
			continue;
		if (!get_num(v, "lat-p99", &p.p99) || p.p99 <= 0)
			p.p99 = -1;
		size_t k;
		for (k = 0; k < ns; k++)
			if (!strcmp(sv[k].target, t) && !strcmp(sv[k].workload, w))
				break;
		if (k == ns) {
			if (ns == MAX_SERIES)
				continue;
			sv[ns] = (struct series){.target = t, .workload = w};
			ns++;
		}
		if (sv[k].n < MAX_POINTS)
			sv[k].p[sv[k].n++] = p;
	}
	return ns;
}

static void series_open(struct svg *s, const struct series *sv)
{
	svg_out(s, "<g class=\"series\" data-target=\"");
	svg_esc(s, sv->target);
	svg_out(s, "\" data-workload=\"");
	svg_esc(s, sv->workload);
	svg_out(s, "\">\n");
}

static void point_title(struct svg *s, const struct series *sv, const char *param, double x,
			const char *what)
{
	char b[64];
	svg_out(s, "<title>");
	svg_esc(s, sv->target);
	svg_out(s, " ");
	svg_esc(s, sv->workload);
	snprintf(b, sizeof(b), ", %.0f ", x);
	svg_esc(s, b);
	svg_esc(s, param);
	svg_out(s, ": ");
	svg_esc(s, what);
	svg_out(s, "</title>");
}

/*
 * A panel's frame at ox (width w), its plot from top to top + PLOTH: the
 * chart group opened (data-chart=name; the caller closes it), both grids,
 * the rotated y title and the x title. The plot's x range into *x0, *x1.
 */
static void chart_frame(struct svg *s, const char *name, const struct axis *ax,
			const struct axis *ay, double ox, double w, double top, const char *ytitle,
			const char *xtitle, double *x0, double *x1)
{
	double bottom = top + PLOTH;
	*x0 = ox + MARGIN + 22 + svg_ticks_width(ay, 11) + 8;
	*x1 = ox + w - MARGIN - 10;
	svg_out(s, "<g class=\"chart\" data-chart=\"%s\">\n", name);
	svg_ygrid(s, ay, *x0, *x1, top, bottom);
	svg_xgrid(s, ax, *x0, *x1, top, bottom);
	svg_out(s,
		"<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\" "
		"fill=\"" C_MUTED "\">%s</text>\n",
		ox + MARGIN + 8, (top + bottom) / 2, ytitle);
	svg_text(s, (*x0 + *x1) / 2, bottom + 34, "middle", "fill=\"" C_MUTED "\"", 12, 0, xtitle);
}

/* Left: IOPS against the parameter. */
static void chart_iops(struct svg *s, const struct series *sv, size_t ns, const char *param,
		       double ox, double w, double top)
{
	double maxx = 1, maxy = 0;
	for (size_t k = 0; k < ns; k++)
		for (size_t i = 0; i < sv[k].n; i++) {
			maxx = fmax(maxx, sv[k].p[i].x);
			maxy = fmax(maxy, sv[k].p[i].iops + sv[k].p[i].sd);
		}
	struct axis ax, ay;
	svg_axis_linear(&ax, maxx, U_COUNT, (int)fmin(maxx, 8));
	svg_axis_linear(&ay, maxy, U_COUNT, 6);
	double x0, x1, bottom = top + PLOTH;
	char b[96];
	snprintf(b, sizeof(b), "%s", strcmp(param, "pods") ? param : "runner pods per class");
	chart_frame(s, "iops", &ax, &ay, ox, w, top, "aggregate IOPS", b, &x0, &x1);
	for (size_t k = 0; k < ns; k++) {
		series_open(s, &sv[k]);
		svg_out(s, "<path class=\"line\" d=\"");
		for (size_t i = 0; i < sv[k].n; i++)
			svg_out(s, "%s%.1f %.1f", i ? "L" : "M",
				svg_axis_pos(&ax, sv[k].p[i].x, x0, x1),
				svg_axis_pos(&ay, sv[k].p[i].iops, bottom, top));
		svg_out(s, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n", svg_colour(k));
		for (size_t i = 0; i < sv[k].n; i++) {
			const struct spoint *p = &sv[k].p[i];
			double x = svg_axis_pos(&ax, p->x, x0, x1);
			if (p->sd > 0)
				svg_out(s,
					"<path class=\"errorbar\" d=\"M%.1f %.1fV%.1fM%.1f "
					"%.1fH%.1fM%.1f "
					"%.1fH%.1f\" stroke=\"%s\" stroke-width=\"1.5\" "
					"fill=\"none\"/>\n",
					x, svg_axis_pos(&ay, p->iops + p->sd, bottom, top),
					svg_axis_pos(&ay, p->iops - p->sd, bottom, top), x - 4,
					svg_axis_pos(&ay, p->iops + p->sd, bottom, top), x + 4,
					x - 4, svg_axis_pos(&ay, p->iops - p->sd, bottom, top),
					x + 4, svg_colour(k));
			svg_out(s, "<g class=\"point\">");
			svg_marker(s, k, x, svg_axis_pos(&ay, p->iops, bottom, top), 4,
				   svg_colour(k));
			svg_fmt_val(p->iops, p->sd, p->sd > 0, U_COUNT, b, sizeof(b));
			point_title(s, &sv[k], param, p->x, b);
			svg_out(s, "</g>\n");
		}
		svg_out(s, "</g>\n");
	}
	svg_out(s, "</g>\n");
}

/* Right: p99 latency (log) against IOPS; false when no point has a latency. */
static bool chart_latency(struct svg *s, const struct series *sv, size_t ns, const char *param,
			  double ox, double w, double top)
{
	double maxx = 0, lo = INFINITY, hi = 0;
	for (size_t k = 0; k < ns; k++)
		for (size_t i = 0; i < sv[k].n; i++) {
			if (sv[k].p[i].p99 < 0)
				continue;
			maxx = fmax(maxx, sv[k].p[i].iops);
			lo = fmin(lo, sv[k].p[i].p99);
			hi = fmax(hi, sv[k].p[i].p99);
		}
	if (!isfinite(lo))
		return false;
	struct axis ax, ay;
	svg_axis_linear(&ax, maxx, U_COUNT, 6);
	svg_axis_log(&ay, lo, hi, U_NS);
	double x0, x1, bottom = top + PLOTH;
	char b[96];
	chart_frame(s, "latency", &ax, &ay, ox, w, top, "p99 latency (log scale)", "aggregate IOPS",
		    &x0, &x1);
	for (size_t k = 0; k < ns; k++) {
		series_open(s, &sv[k]);
		svg_out(s, "<path class=\"line\" d=\"");
		bool first = true;
		for (size_t i = 0; i < sv[k].n; i++) {
			if (sv[k].p[i].p99 < 0)
				continue;
			svg_out(s, "%s%.1f %.1f", first ? "M" : "L",
				svg_axis_pos(&ax, sv[k].p[i].iops, x0, x1),
				svg_axis_pos(&ay, sv[k].p[i].p99, bottom, top));
			first = false;
		}
		svg_out(s, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n", svg_colour(k));
		for (size_t i = 0; i < sv[k].n; i++) {
			const struct spoint *p = &sv[k].p[i];
			if (p->p99 < 0)
				continue;
			svg_out(s, "<g class=\"point\">");
			svg_marker(s, k, svg_axis_pos(&ax, p->iops, x0, x1),
				   svg_axis_pos(&ay, p->p99, bottom, top), 4, svg_colour(k));
			svg_fmt_val(p->p99, 0, false, U_NS, b, sizeof(b));
			point_title(s, &sv[k], param, p->x, b);
			svg_out(s, "</g>\n");
		}
		svg_out(s, "</g>\n");
	}
	svg_out(s, "</g>\n");
	return true;
}

/* The legend: a line and a marker per class and workload. Returns its height. */
static double legend(struct svg *s, const struct series *sv, size_t ns, double x0, double y,
		     double maxw)
{
	double x = x0, row = 0;
	char b[160];
	svg_out(s, "<g class=\"legend\">\n");
	for (size_t k = 0; k < ns; k++) {
		snprintf(b, sizeof(b), "%s %s", sv[k].target, sv[k].workload);
		double tw = fmin(svg_text_w(b, 12), maxw - 30);
		if (x > x0 && x + 30 + tw > x0 + maxw) {
			x = x0;
			row += 18;
		}
		svg_out(s,
			"<path d=\"M%.1f %.1fH%.1f\" stroke=\"%s\" stroke-width=\"2\" "
			"fill=\"none\"/>\n",
			x, y + row + 6, x + 20, svg_colour(k));
		svg_marker(s, k, x + 10, y + row + 6, 4, svg_colour(k));
		svg_text(s, x + 26, y + row + 10, "start", NULL, 12, maxw - 30, b);
		x += 30 + tw + 16;
	}
	svg_out(s, "</g>\n");
	return row + 18;
}

int svg_panel_sweep(struct svg *s, const struct doc *d, double *height)
{
	struct series *sv = calloc(MAX_SERIES, sizeof(*sv));
	const char *param = json_string_value(json_object_get(d->sweep, "parameter"));
	*height = 0;
	if (!sv)
		return -ENOMEM;
	size_t ns = param ? collect(d->sweep, sv) : 0;
	if (!ns) {
		free(sv);
		return 0;
	}
	long long nit = 0;
	size_t i;
	const json_t *v;
	json_array_foreach(json_object_get(d->sweep, "curve"), i, v)
	{
		const json_t *n = json_object_get(v, "iterations");
		if (json_is_integer(n) && json_integer_value(n) > nit)
			nit = json_integer_value(n);
	}
	char title[128], sub[256], it[32];
	snprintf(title, sizeof(title), "Saturation: aggregate IOPS against %s",
		 strcmp(param, "pods") ? param : "runner pods per class");
	svg_iter_words(nit, it, sizeof(it));
	snprintf(sub, sizeof(sub),
		 "mean of %s, bars \xc2\xb1"
		 "1 std. deviation; right: p99 latency against IOPS at the same steps",
		 it);
	svg_out(s, "<g class=\"panel\" data-panel=\"sweep\">\n");
	svg_panel_head(s, MARGIN, WIDTH - 2 * MARGIN, title, sub);
	double top = 58 + legend(s, sv, ns, MARGIN, 56, WIDTH - 2 * MARGIN) + 10;
	chart_iops(s, sv, ns, param, 0, WIDTH / 2, top);
	(void)chart_latency(s, sv, ns, param, WIDTH / 2, WIDTH / 2, top);
	svg_out(s, "</g>\n");
	*height = top + PLOTH + 48;
	free(sv);
	return 0;
}
