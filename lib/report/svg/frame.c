/* SPDX-License-Identifier: MIT */
/*
 * What the panels of lib/report/svg draw around their plots: the heading,
 * the legend of targets, "N iterations" for a subtitle.
 */
#include "report/svg/internal.h"

#include <stdio.h>

/* One item per target at (x, y), wrapping within maxw. Returns its height. */
double svg_legend(struct svg *s, const struct doc *d, double x, double y, double maxw,
		  enum legend_style st)
{
	return svg_legend_of(s, d, NULL, x, y, maxw, st);
}

double svg_legend_of(struct svg *s, const struct doc *d, const bool *show, double x, double y,
		     double maxw, enum legend_style st)
{
	double cx = x, cy = y;
	svg_out(s, "<g class=\"legend\">\n");
	for (size_t t = 0; t < d->ntg; t++) {
		if (show && !show[t])
			continue;
		double w = svg_text_w(d->tg[t], 12);
		if (w > 220)
			w = 220;
		double item = (st == LG_LINE ? 30 : 18) + w + 18;
		if (cx > x && cx + item > x + maxw) {
			cx = x;
			cy += 20;
		}
		if (st == LG_BOX) {
			svg_out(s,
				"<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" rx=\"2\" "
				"fill=\"%s\"/>\n",
				cx, cy - 10, svg_colour(t));
			svg_text(s, cx + 18, cy, "start", NULL, 12, 220, d->tg[t]);
		} else {
			svg_out(s, "<path d=\"M%.1f %.1fh24\" stroke=\"%s\" stroke-width=\"2\"/>\n",
				cx, cy - 4, svg_colour(t));
			svg_marker(s, t, cx + 12, cy - 4, 4, svg_colour(t));
			svg_text(s, cx + 30, cy, "start", NULL, 12, 220, d->tg[t]);
		}
		cx += item;
	}
	svg_out(s, "</g>\n");
	return cy - y + 20;
}

void svg_panel_head(struct svg *s, double x, double maxw, const char *title, const char *sub)
{
	svg_text(s, x, 22, "start", "font-weight=\"bold\"", 15, maxw, title);
	svg_text(s, x, 40, "start", "fill=\"" C_MUTED "\"", 11, maxw, sub);
}

void svg_iter_words(long long n, char *buf, size_t len)
{
	snprintf(buf, len, "%lld iteration%s", n, n == 1 ? "" : "s");
}
