/* SPDX-License-Identifier: MIT */
/* The latency panel of lib/report_svg: p50, p99 and p99.9 per target on a log axis. */
#include "report/svg/internal.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
			if (svg_metric(r, name, &x))
				p[k] = x.mean;
		}
		have += p[k] > 0;
	}
	return have;
}

int svg_panel_latency(struct svg *s, const struct doc *d, double *height)
{
	struct cat *c = NULL;
	size_t nc, keep = 0;
	int ret = svg_collect_cats(d, "-lat-mean", &c, &nc);
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
			if (!percentiles(svg_find(d, t, c[i].wi), dir, p))
				continue;
			any = true;
			for (int k = 0; k < 3; k++)
				if (p[k] > 0) {
					minv = fmin(minv, p[k]);
					maxv = fmax(maxv, p[k]);
				}
			for (int k = 0; k < 3; k++) {
				svg_fmt_val(p[k], 0, false, U_NS, b, sizeof(b));
				valw = fmax(valw, svg_text_w(b, 11));
			}
		}
		if (any) {
			c[keep++] = c[i];
			labw = fmax(labw, svg_cat_label_w(d, &c[i], 12));
		}
	}
	nc = keep;
	if (nc == 0)
		goto out;
	labw = fmin(fmax(labw + 14, 90), 260);
	double colw = fmax(valw + 14, 48); /* a column per percentile right of the plot */
	double x0 = MARGIN + labw, x1 = WIDTH - MARGIN - 3 * colw - 12;
	struct axis a;
	svg_axis_log(&a, minv, maxv, U_NS);
	double rh = 18, pad = 12, group = (double)d->ntg * rh + pad;

	svg_out(s, "<g class=\"panel\" data-panel=\"latency\">\n");
	svg_panel_head(s, MARGIN, WIDTH - 2 * MARGIN, "Latency percentiles",
		       "completion latency of all I/Os of all iterations (merged histogram); "
		       "log scale");
	double lh = svg_legend(s, d, x0, 60, x1 - x0, LG_BOX);
	/* the shapes */
	svg_out(s, "<g class=\"legend\">\n");
	for (int k = 0; k < 3; k++) {
		double x = x0 + 70.0 * k;
		svg_marker(s, (size_t)k * 2, x + 5, 60 + lh - 4, 4.5, "#555");
		svg_text(s, x + 14, 60 + lh, "start", NULL, 12, 0, pct_key[k]);
	}
	svg_out(s, "</g>\n");
	double top = 58 + lh + 20 + 4, bottom = top + group * (double)nc;
	svg_cat_rows(s, d, c, nc, top, group, x0, labw);
	svg_xgrid(s, &a, x0, x1, top, bottom);
	svg_out(s, "<g class=\"columns\" font-size=\"11\" fill=\"" C_MUTED "\">\n");
	for (int k = 0; k < 3; k++)
		svg_text(s, x1 + 12 + colw * (k + 1), top - 5, "end", NULL, 11, 0, pct_key[k]);
	svg_out(s, "</g>\n");
	for (size_t t = 0; t < d->ntg; t++) {
		svg_out(s, "<g class=\"series\" data-target=\"");
		svg_esc(s, d->tg[t]);
		svg_out(s, "\">\n");
		for (size_t i = 0; i < nc; i++) {
			double p[3], y = top + group * (double)i + pad / 2 + rh * ((double)t + 0.5);
			const char *dir = strncmp(c[i].metric, "write", 5) ? "read" : "write";
			if (!percentiles(svg_find(d, t, c[i].wi), dir, p)) {
				svg_text(s, x0 + 4, y + 4, "start",
					 "class=\"missing\" fill=\"#999\" font-style=\"italic\"",
					 10, 0, "no data");
				continue;
			}
			double lo = INFINITY, hi = 0;
			for (int k = 0; k < 3; k++)
				if (p[k] > 0) {
					lo = fmin(lo, p[k]);
					hi = fmax(hi, p[k]);
				}
			svg_out(s, "<g class=\"percentiles\">\n");
			svg_out(s,
				"<path d=\"M%.1f %.1fH%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
				svg_axis_pos(&a, lo, x0, x1), y, svg_axis_pos(&a, hi, x0, x1),
				svg_colour(t));
			for (int k = 0; k < 3; k++)
				if (p[k] > 0)
					svg_marker(s, (size_t)k * 2, svg_axis_pos(&a, p[k], x0, x1),
						   y, 4.5, svg_colour(t));
			for (int k = 0; k < 3; k++) {
				if (p[k] <= 0)
					continue;
				svg_fmt_val(p[k], 0, false, U_NS, b, sizeof(b));
				svg_text(s, x1 + 12 + colw * (k + 1), y + 4, "end",
					 "class=\"value\"", 11, 0, b);
			}
			svg_out(s, "</g>\n");
		}
		svg_out(s, "</g>\n");
	}
	svg_text(s, (x0 + x1) / 2, bottom + 33, "middle", "fill=\"" C_MUTED "\"", 12, 0,
		 "latency (log scale)");
	svg_out(s, "</g>\n");
	*height = bottom + 48;
out:
	free(c);
	return ret;
}
