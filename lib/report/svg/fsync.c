/* SPDX-License-Identifier: MIT */
/*
 * The fsync panel of lib/report_svg: for each family of workloads that differ
 * by a "-fsyncN" suffix, a line chart of its headline metric by fsync
 * frequency, with +-1 standard deviation bands.
 */
#include "report/svg/internal.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_RATIO  20.0 /* line charts go logarithmic beyond this max/min */
#define LINE_PLOTH 220.0

struct member {
	size_t wi;
	long long every; /* fsync after every N writes; 0: never */
};

struct family {
	const char *base; /* borrowed from a workload name; baselen bytes */
	size_t baselen;
	const char *metric;
	struct member *m;
	size_t nm;
};

/* "write-iops-fsync32": base length and 32. False when the name has no such suffix. */
static bool fsync_suffix(const char *name, size_t *baselen, long long *every)
{
	const char *p = strstr(name, "-fsync"), *q;
	if (!p)
		return false;
	while ((q = strstr(p + 1, "-fsync")))
		p = q;
	const char *digits = p + 6;
	if (!*digits || strspn(digits, "0123456789") != strlen(digits) || strlen(digits) > 9)
		return false;
	*every = strtoll(digits, NULL, 10);
	*baselen = (size_t)(p - name);
	return *every > 0 && *baselen > 0;
}

static void families_release(struct family *f, size_t n)
{
	for (size_t i = 0; f && i < n; i++)
		free(f[i].m);
	free(f);
}

static int member_cmp(const void *a, const void *b)
{
	long long x = ((const struct member *)a)->every, y = ((const struct member *)b)->every;
	if (x == 0)
		x = INT64_MAX; /* "no fsync" last */
	if (y == 0)
		y = INT64_MAX;
	return (x > y) - (x < y);
}

/* The headline metric a family charts: write IOPS or bandwidth of its first member. */
static const char *family_metric(const struct doc *d, const struct family *f)
{
	for (size_t k = 0; k < f->nm; k++) {
		const char *pick = NULL;
		for (size_t i = 0; i < d->nr; i++) {
			if (d->r[i].wi != f->m[k].wi)
				continue;
			for (size_t h = 0; h < d->r[i].nhead; h++) {
				const char *m = d->r[i].head[h];
				if (!svg_has_suffix(m, "-iops") && !svg_has_suffix(m, "-bw"))
					continue;
				if (!pick || !strncmp(m, "write", 5))
					pick = m;
			}
			if (pick)
				return pick;
		}
	}
	return NULL;
}

static long long result_fsync(const struct doc *d, size_t wi)
{
	for (size_t i = 0; i < d->nr; i++)
		if (d->r[i].wi == wi && d->r[i].fsync >= 0)
			return d->r[i].fsync;
	return -1;
}

static int collect_families(const struct doc *d, struct family **out_f, size_t *nf)
{
	struct family *f = calloc(d->nwl + 1, sizeof(*f));
	*nf = 0;
	if (!f)
		return -ENOMEM;
	for (size_t w = 0; w < d->nwl; w++) {
		size_t bl;
		long long every;
		if (!fsync_suffix(d->wl[w], &bl, &every))
			continue;
		size_t k;
		for (k = 0; k < *nf; k++)
			if (f[k].baselen == bl && !strncmp(f[k].base, d->wl[w], bl))
				break;
		if (k == *nf) {
			f[k].base = d->wl[w];
			f[k].baselen = bl;
			if (!(f[k].m = calloc(d->nwl, sizeof(*f[k].m)))) {
				families_release(f, *nf + 1);
				return -ENOMEM;
			}
			(*nf)++;
			/* the workload without the suffix is "no fsync" */
			for (size_t b = 0; b < d->nwl; b++)
				if (strlen(d->wl[b]) == bl && !strncmp(d->wl[b], d->wl[w], bl))
					f[k].m[f[k].nm++] = (struct member){b, 0};
		}
		f[k].m[f[k].nm++] = (struct member){w, every};
	}
	/* the report's fsync field, when present, wins over the name */
	size_t keep = 0;
	for (size_t k = 0; k < *nf; k++) {
		for (size_t i = 0; i < f[k].nm; i++) {
			long long v = result_fsync(d, f[k].m[i].wi);
			if (v >= 0)
				f[k].m[i].every = v;
		}
		qsort(f[k].m, f[k].nm, sizeof(*f[k].m), member_cmp);
		/* one member per frequency */
		size_t u = 0;
		for (size_t i = 0; i < f[k].nm; i++)
			if (u == 0 || f[k].m[i].every != f[k].m[u - 1].every)
				f[k].m[u++] = f[k].m[i];
		f[k].nm = u;
		f[k].metric = family_metric(d, &f[k]);
		if (f[k].nm < 2 || !f[k].metric) {
			free(f[k].m);
			continue;
		}
		f[keep++] = f[k];
	}
	*nf = keep;
	*out_f = f;
	return 0;
}

static void every_label(long long every, char *buf, size_t len)
{
	if (every == 0)
		snprintf(buf, len, "no fsync");
	else
		snprintf(buf, len, "fsync=%lld", every);
}

/* "read IOPS", "write bandwidth", "read latency" for a metric name. */
static void metric_words(const char *m, char *buf, size_t len)
{
	const char *dash = strchr(m, '-');
	int dl = dash ? (int)(dash - m) : (int)strlen(m);
	enum ukind u = svg_kind_of(m);
	snprintf(buf, len, "%.*s %s", dl, m,
		 u == U_BYTES ? "bandwidth"
		 : u == U_NS  ? "latency"
			      : "IOPS");
}

/* One line chart at x offset ox, width w. Returns its height. */
/* Where a family's chart plots: its axis and the plot area. */
struct plot {
	struct axis a;
	double x0, x1, top, bottom, step;
};

static double plot_x(const struct plot *p, size_t i)
{
	return p->x0 + p->step * ((double)i + 0.5);
}

/* The family's y axis (log when the means span more than LOG_RATIO); *nmax iterations. */
static bool family_axis(const struct doc *d, const struct family *f, enum ukind u, struct axis *a,
			long long *nmax)
{
	double minpos = INFINITY, maxm = 0, maxtop = 0;
	for (size_t t = 0; t < d->ntg; t++)
		for (size_t i = 0; i < f->nm; i++) {
			struct val v;
			if (!svg_metric(svg_find(d, t, f->m[i].wi), f->metric, &v))
				continue;
			if (v.mean > 0 && v.mean < minpos)
				minpos = v.mean;
			maxm = fmax(maxm, v.mean);
			maxtop = fmax(maxtop, v.mean + v.sd);
			if (v.n > *nmax)
				*nmax = v.n;
		}
	bool lg = isfinite(minpos) && maxm / minpos > LOG_RATIO;
	if (lg)
		svg_axis_log(a, minpos, maxtop, u);
	else
		svg_axis_linear(a, maxtop, u, 6);
	return lg;
}

/* Runs of consecutive points of target t: a band and a line each; an error bar alone. */
static void series_runs(struct svg *s, const struct plot *p, size_t t, const struct val *v,
			const bool *have, size_t nm)
{
	const struct axis *a = &p->a;
	for (size_t i = 0; i < nm;) {
		if (!have[i]) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < nm && have[j])
			j++;
		if (j - i >= 2) {
			svg_out(s, "<path class=\"band\" d=\"");
			for (size_t k = i; k < j; k++)
				svg_out(s, "%s%.1f %.1f", k == i ? "M" : "L", plot_x(p, k),
					svg_axis_pos(a, v[k].mean + v[k].sd, p->bottom, p->top));
			for (size_t k = j; k-- > i;)
				svg_out(s, "L%.1f %.1f", plot_x(p, k),
					svg_axis_pos(a, v[k].mean - v[k].sd, p->bottom, p->top));
			svg_out(s, "Z\" fill=\"%s\" fill-opacity=\"0.18\"/>\n", svg_colour(t));
			svg_out(s, "<path class=\"line\" d=\"");
			for (size_t k = i; k < j; k++)
				svg_out(s, "%s%.1f %.1f", k == i ? "M" : "L", plot_x(p, k),
					svg_axis_pos(a, v[k].mean, p->bottom, p->top));
			svg_out(s, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n",
				svg_colour(t));
		} else if (v[i].sd > 0) {
			double x = plot_x(p, i);
			svg_out(s,
				"<path class=\"errorbar\" d=\"M%.1f %.1fV%.1f\" "
				"stroke=\"%s\" "
				"stroke-width=\"2\" fill=\"none\"/>\n",
				x, svg_axis_pos(a, v[i].mean + v[i].sd, p->bottom, p->top),
				svg_axis_pos(a, v[i].mean - v[i].sd, p->bottom, p->top),
				svg_colour(t));
		}
		i = j;
	}
}

/* Target t's series: its runs, then a marker with a tooltip per point. */
static void family_series(struct svg *s, const struct doc *d, const struct family *f,
			  const struct plot *p, size_t t, enum ukind u)
{
	struct val v[64];
	bool have[64];
	char b[96];
	size_t nm = f->nm < 64 ? f->nm : 64;
	for (size_t i = 0; i < nm; i++)
		have[i] = svg_metric(svg_find(d, t, f->m[i].wi), f->metric, &v[i]);
	svg_out(s, "<g class=\"series\" data-target=\"");
	svg_esc(s, d->tg[t]);
	svg_out(s, "\">\n");
	series_runs(s, p, t, v, have, nm);
	for (size_t i = 0; i < nm; i++) {
		if (!have[i])
			continue;
		svg_out(s, "<g class=\"point\">");
		svg_marker(s, t, plot_x(p, i), svg_axis_pos(&p->a, v[i].mean, p->bottom, p->top), 4,
			   svg_colour(t));
		svg_fmt_val(v[i].mean, v[i].sd, v[i].n > 1, u, b, sizeof(b));
		svg_out(s, "<title>");
		svg_esc(s, d->tg[t]);
		svg_out(s, ", ");
		svg_esc(s, d->wl[f->m[i].wi]);
		svg_out(s, ": ");
		svg_esc(s, b);
		svg_out(s, "</title></g>\n");
	}
	svg_out(s, "</g>\n");
}

/* The y axis title (rotated) and the x axis: the fsync frequencies. */
static void family_axes(struct svg *s, const struct family *f, const struct plot *p, enum ukind u,
			bool lg)
{
	char b[96], words[64];
	metric_words(f->metric, words, sizeof(words));
	if (u == U_BYTES && !lg)
		snprintf(b, sizeof(b), "%s (%s)", words, svg_rate_unit[p->a.k]);
	else
		snprintf(b, sizeof(b), "%s%s", words, lg ? " (log scale)" : "");
	svg_out(s,
		"<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\" "
		"fill=\"" C_MUTED "\">",
		MARGIN + 8, (p->top + p->bottom) / 2);
	svg_esc(s, b);
	svg_out(s, "</text>\n");

	svg_out(s, "<g class=\"axis\" font-size=\"11\" fill=\"" C_MUTED "\">\n");
	for (size_t i = 0; i < f->nm; i++) {
		every_label(f->m[i].every, b, sizeof(b));
		svg_text(s, plot_x(p, i), p->bottom + 16, "middle", NULL, 11, p->step - 4, b);
	}
	svg_out(s, "</g>\n");
	svg_text(s, (p->x0 + p->x1) / 2, p->bottom + 34, "middle", "fill=\"" C_MUTED "\"", 12, 0,
		 "fsync after every N writes");
}

static double chart_family(struct svg *s, const struct doc *d, const struct family *f, double ox,
			   double w)
{
	enum ukind u = svg_kind_of(f->metric);
	long long nmax = 0;
	char title[128], sub[256], words[64], it[32];
	struct plot p;
	bool lg = family_axis(d, f, u, &p.a, &nmax);

	metric_words(f->metric, words, sizeof(words));
	words[0] = (char)(words[0] >= 'a' && words[0] <= 'z' ? words[0] - 'a' + 'A' : words[0]);
	snprintf(title, sizeof(title), "%s by fsync frequency", words);
	svg_iter_words(nmax, it, sizeof(it));
	snprintf(sub, sizeof(sub), "%.*s-fsyncN: mean of %s%s", (int)f->baselen, f->base, it,
		 nmax > 1 ? ", band \xc2\xb1"
			    "1 std. deviation"
			  : "");

	svg_out(s, "<g class=\"chart\" data-family=\"");
	svg_esc_n(s, f->base, f->baselen);
	svg_out(s, "\" data-metric=\"%s\" data-scale=\"%s\" transform=\"translate(%.1f 0)\">\n",
		f->metric, lg ? "log" : "linear", ox);
	svg_text(s, MARGIN, 22, "start", "font-weight=\"bold\"", 15, w - 2 * MARGIN, title);
	svg_text(s, MARGIN, 40, "start", "fill=\"" C_MUTED "\"", 11, w - 2 * MARGIN, sub);
	double tw = svg_ticks_width(&p.a, 11);
	p.x0 = MARGIN + 22 + tw + 8;
	p.x1 = w - MARGIN - 10;
	p.top = 58 + svg_legend(s, d, p.x0, 60, p.x1 - p.x0, LG_LINE) + 10;
	p.bottom = p.top + LINE_PLOTH;
	p.step = (p.x1 - p.x0) / (double)f->nm;
	svg_ygrid(s, &p.a, p.x0, p.x1, p.top, p.bottom);
	family_axes(s, f, &p, u, lg);
	for (size_t t = 0; t < d->ntg; t++)
		family_series(s, d, f, &p, t, u);
	svg_out(s, "</g>\n");
	return p.bottom + 48;
}

int svg_panel_fsync(struct svg *s, const struct doc *d, double *height)
{
	struct family *f = NULL;
	size_t nf;
	int ret = collect_families(d, &f, &nf);

	*height = 0;
	if (ret || nf == 0)
		goto out;
	svg_out(s, "<g class=\"panel\" data-panel=\"fsync\">\n");
	/* two charts a row */
	double y = 0;
	for (size_t i = 0; i < nf; i += 2) {
		double w = nf == 1 ? WIDTH : WIDTH / 2, rowh = 0;
		svg_out(s, "<g transform=\"translate(0 %.1f)\">\n", y);
		for (size_t k = i; k < nf && k < i + 2; k++)
			rowh = fmax(rowh, chart_family(s, d, &f[k], w * (double)(k - i), w));
		svg_out(s, "</g>\n");
		y += rowh;
	}
	svg_out(s, "</g>\n");
	*height = y;
out:
	families_release(f, nf);
	return ret;
}
