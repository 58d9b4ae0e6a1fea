/* SPDX-License-Identifier: MIT */
/*
 * The rows of the bar and latency panels of lib/report_svg: each workload
 * with a headline metric of one kind, and its label.
 */
#include "report/svg/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Workloads (and their headline metrics) whose headline ends in suffix. */
int svg_collect_cats(const struct doc *d, const char *suffix, struct cat **out_c, size_t *nc)
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
				if (!svg_has_suffix(m, suffix))
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

double svg_cat_label_w(const struct doc *d, const struct cat *c, double px)
{
	return svg_text_w(d->wl[c->wi], px) + svg_text_w(c->dir, px);
}

void svg_cat_label(struct svg *s, const struct doc *d, const struct cat *c, double x, double y,
		   double maxw)
{
	double dw = svg_text_w(c->dir, 12);
	svg_out(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", x, y);
	svg_esc_fit(s, d->wl[c->wi], 12, maxw - dw);
	svg_esc(s, c->dir);
	svg_out(s, "</text>\n");
}

void svg_cat_rows(struct svg *s, const struct doc *d, const struct cat *c, size_t nc, double top,
		  double group, double x0, double labw)
{
	for (size_t i = 0; i < nc; i++) {
		double gy = top + group * (double)i;
		if (i % 2 == 0)
			svg_out(s,
				"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				"fill=\"" C_ZEBRA "\"/>\n",
				MARGIN, gy, WIDTH - 2 * MARGIN, group);
		svg_cat_label(s, d, &c[i], x0 - 8, gy + group / 2 + 4, labw - 10);
	}
}
