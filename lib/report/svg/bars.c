/* SPDX-License-Identifier: MIT */
/* The IOPS and bandwidth panels of lib/report_svg: grouped horizontal bars. */
#include "report/svg/internal.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static long long max_n(const struct doc *d, const char *const *metrics, const size_t *wis, size_t n)
{
	long long mx = 0;
	for (size_t c = 0; c < n; c++)
		for (size_t t = 0; t < d->ntg; t++) {
			struct val v;
			if (svg_metric(svg_find(d, t, wis[c]), metrics[c], &v) && v.n > mx)
				mx = v.n;
		}
	return mx;
}

int svg_panel_bars(struct svg *s, const struct doc *d, bool bw, double *height)
{
	struct cat *c = NULL;
	size_t nc;
	int ret = svg_collect_cats(d, bw ? "-bw" : "-iops", &c, &nc);
	char b[96], sub[160], it[32];

	*height = 0;
	if (ret || nc == 0)
		goto out;

	/* value axis and label widths */
	double max = 0, labw = 0, valw = 0;
	for (size_t i = 0; i < nc; i++) {
		if (svg_cat_label_w(d, &c[i], 12) > labw)
			labw = svg_cat_label_w(d, &c[i], 12);
		for (size_t t = 0; t < d->ntg; t++) {
			struct val v;
			if (!svg_metric(svg_find(d, t, c[i].wi), c[i].metric, &v))
				continue;
			if (v.mean + v.sd > max)
				max = v.mean + v.sd;
			svg_fmt_val(v.mean, v.sd, v.n > 1, bw ? U_BYTES : U_COUNT, b, sizeof(b));
			if (svg_text_w(b, 11) > valw)
				valw = svg_text_w(b, 11);
		}
	}
	labw = fmin(fmax(labw + 14, 90), 260);
	valw = fmin(fmax(valw + 12, 50), 240);
	double x0 = MARGIN + labw, x1 = WIDTH - MARGIN - valw;
	struct axis a;
	svg_axis_linear(&a, max, bw ? U_BYTES : U_COUNT, (int)((x1 - x0) / 80));

	double bh = d->ntg <= 4 ? 16 : 11, gap = 3, pad = 14;
	double group = (double)d->ntg * (bh + gap) - gap + pad;
	const char *metrics[64];
	size_t wis[64], nm = nc < 64 ? nc : 64;
	for (size_t i = 0; i < nm; i++) {
		metrics[i] = c[i].metric;
		wis[i] = c[i].wi;
	}
	long long nmax = max_n(d, metrics, wis, nm);
	svg_iter_words(nmax, it, sizeof(it));
	snprintf(sub, sizeof(sub), "mean per workload and target over %s%s", it,
		 nmax > 1 ? "; error bars: \xc2\xb1"
			    "1 standard deviation"
			  : " (no standard deviation)");
	svg_out(s, "<g class=\"panel\" data-panel=\"%s\">\n", bw ? "bandwidth" : "iops");
	svg_panel_head(s, MARGIN, WIDTH - 2 * MARGIN, bw ? "Bandwidth" : "IOPS", sub);
	double top = 58 + svg_legend(s, d, x0, 60, x1 - x0, LG_BOX) + 4;
	double bottom = top + group * (double)nc;

	svg_cat_rows(s, d, c, nc, top, group, x0, labw);
	svg_xgrid(s, &a, x0, x1, top, bottom);
	for (size_t t = 0; t < d->ntg; t++) {
		svg_out(s, "<g class=\"series\" data-target=\"");
		svg_esc(s, d->tg[t]);
		svg_out(s, "\" fill=\"%s\">\n", svg_colour(t));
		for (size_t i = 0; i < nc; i++) {
			struct val v;
			double y = top + group * (double)i + pad / 2 + (double)t * (bh + gap);
			if (!svg_metric(svg_find(d, t, c[i].wi), c[i].metric, &v)) {
				svg_text(s, x0 + 4, y + bh - 4, "start",
					 "class=\"missing\" fill=\"#999\" font-style=\"italic\"",
					 10, 0, "no data");
				continue;
			}
			double xm = svg_axis_pos(&a, v.mean, x0, x1);
			svg_fmt_val(v.mean, v.sd, v.n > 1, bw ? U_BYTES : U_COUNT, b, sizeof(b));
			svg_out(s,
				"<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"%.1f\"><title>",
				x0, y, xm - x0, bh);
			svg_esc(s, d->tg[t]);
			svg_out(s, ", ");
			svg_esc(s, d->wl[c[i].wi]);
			svg_out(s, " %s: ", c[i].metric);
			svg_esc(s, b);
			svg_out(s, " (n=%lld)</title></rect>\n", v.n);
			double xe = xm;
			if (v.n > 1) {
				double xl = svg_axis_pos(&a, v.mean - v.sd, x0, x1);
				double xr = svg_axis_pos(&a, v.mean + v.sd, x0, x1),
				       yc = y + bh / 2;
				svg_out(s,
					"<path class=\"errorbar\" d=\"M%.1f %.1fH%.1fM%.1f "
					"%.1fv%.1fM%.1f "
					"%.1fv%.1f\" stroke=\"#333\" stroke-width=\"1.2\" "
					"fill=\"none\"/>\n",
					xl, yc, xr, xl, yc - bh * 0.3, bh * 0.6, xr, yc - bh * 0.3,
					bh * 0.6);
				xe = xr;
			}
			svg_text(s, xe + 5, y + bh / 2 + 4, "start",
				 "class=\"value\" fill=\"" C_TEXT "\"", 11, 0, b);
		}
		svg_out(s, "</g>\n");
	}
	if (bw) {
		snprintf(b, sizeof(b), "bandwidth (%s)", svg_rate_unit[a.k]);
		svg_text(s, (x0 + x1) / 2, bottom + 33, "middle", "fill=\"" C_MUTED "\"", 12, 0, b);
	} else {
		svg_text(s, (x0 + x1) / 2, bottom + 33, "middle", "fill=\"" C_MUTED "\"", 12, 0,
			 "I/O operations per second");
	}
	svg_out(s, "</g>\n");
	*height = bottom + 48;
out:
	free(c);
	return ret;
}
