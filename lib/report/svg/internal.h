/* SPDX-License-Identifier: MIT */
/*
 * Declarations shared by the files of lib/report/svg (the SVG charts of a
 * report; the public API is report/svg/svg.h, which only svg.c includes:
 * the panels do not depend on the entry point that calls them). Not part
 * of the public API; names start with svg_ because they are visible to the
 * linker.
 *
 *   writer.c      output with a sticky error, XML escaping, text widths,
 *                 <text>, the palette, marker shapes
 *   doc.c         the report document parsed and validated, metric lookups
 *   format.c      unit kinds, prefixes, "844k ± 12k"
 *   axis.c        linear and logarithmic axes, tick labels, gridlines
 *   frame.c       a panel's heading and legend
 *   categories.c  the rows of the bar and latency panels
 *   bars.c, fsync.c, latency.c, lifecycle.c, sweep.c   one panel each
 *   svg.c         the public entry points: the panels stacked into one
 *                 document under its title
 *
 * Conventions: drawing functions write to a struct svg and do not report
 * write errors; the first one is kept in svg.err (sticky) for the caller of
 * the whole document to check. Functions that return int return 0 or a
 * negative errno. Strings in struct doc, struct res and struct cat are borrowed (from
 * the report's JSON, which must outlive them, or static): never freed.
 */
#ifndef SB_LIB_REPORT_SVG_INTERNAL_H
#define SB_LIB_REPORT_SVG_INTERNAL_H

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* ---- Layout constants (pixels) ---- */

#define WIDTH	960.0
#define MARGIN	20.0
#define FONT	"'DejaVu Sans', Verdana, Arial, sans-serif"
#define C_TEXT	"#222"
#define C_MUTED "#555"
#define C_GRID	"#e3e3e3"
#define C_AXIS	"#888"
#define C_ZEBRA "#f6f6f6"

/* ------------------------------------------------------------ writer.c */

/* Output with a sticky error. */
struct svg {
	FILE *f;
	int err; /* first -errno, 0 while fine */
};

/* printf to s->f; does nothing once s->err is set, sets it to -ENOMEM when
 * the write fails. */
void svg_out(struct svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes the first n bytes of str as XML character data or attribute value:
 * markup characters as entities, tab/CR/LF as character references, an
 * invalid UTF-8 sequence or a character XML does not allow as '?'. */
void svg_esc_n(struct svg *s, const char *str, size_t n);

/* svg_esc_n() of the whole NUL-terminated str. */
void svg_esc(struct svg *s, const char *str);

/* Estimated width in pixels of str drawn in DejaVu Sans at font size px. */
double svg_text_w(const char *str, double px);

/* Writes str escaped, cut with an ellipsis to fit maxw at size px. */
void svg_esc_fit(struct svg *s, const char *str, double px, double maxw);

/* <text x y anchor attrs>str</text>, str escaped and fitted to maxw (0: no
 * limit). anchor NULL or "start" is left out, as is font-size 12 (the
 * document's); attrs (may be NULL) is written as it is. */
void svg_text(struct svg *s, double x, double y, const char *anchor, const char *attrs, double px,
	      double maxw, const char *str);

/* Colour of target i from Okabe & Ito's palette (a static string). */
const char *svg_colour(size_t i);

/* A marker of shape i (circle, square, diamond, triangles; i modulo 5)
 * centred at x, y, radius about r, filled with fill. */
void svg_marker(struct svg *s, size_t shape, double x, double y, double r, const char *fill);

/* --------------------------------------------------------------- doc.c */

/* One result: a target and a workload. */
struct res {
	const char *target, *workload;
	size_t ti, wi;
	const json_t *metrics; /* object */
	const json_t *merged;  /* object or NULL */
	const char *head[4];
	size_t nhead;
	long long fsync; /* "fsync" field, -1 when absent */
};

/* One entry of the "lifecycle" section: statistics of a class and phase
 * (stats true), a skipped phase (skipped set) or a failed iteration
 * (message set). */
struct lc {
	const char *target, *phase;
	size_t ti;
	bool stats;
	double mean, sd, p95; /* sd 0 when n < 2, p95 -1 when absent */
	long long n;
	const char *skipped, *message;
	long long iteration; /* -1 when absent */
};

/* The report: targets and workloads in order of first mention (the
 * "targets" and "workloads" lists, then the results, then the lifecycle
 * section), the results and the lifecycle entries. */
struct doc {
	const char *name;
	const char **tg;
	size_t ntg;
	const char **wl;
	size_t nwl;
	struct res *r;
	size_t nr;
	struct lc *lc;
	size_t nlc;
	const json_t *sweep; /* the "sweep" section (lib/report/sweep.h) or NULL */
};

/*
 * Writes the message to err and is -EINVAL. A macro, not a variadic
 * function, so the static analyzer sees the value (it does not inline
 * variadic functions). Needs err and errlen in scope.
 */
#define BAD(...) (snprintf(err, errlen, __VA_ARGS__), -EINVAL)

/*
 * Parses and validates the report rep (borrowed; it must outlive *d) into
 * *d, whose arrays svg_doc_release() frees. Returns 0; -EINVAL with err
 * naming the field; -ENOMEM (err not set). On error *d is released.
 */
int svg_doc_parse(const json_t *rep, struct doc *d, char *err, size_t errlen);

/* Frees the arrays of d and zeroes it. */
void svg_doc_release(struct doc *d);

/* The result of target ti and workload wi (pointing into d), or NULL. */
const struct res *svg_find(const struct doc *d, size_t ti, size_t wi);

/* A metric's summary: the mean, the standard deviation and the number of
 * iterations n (1 when "n" or "stddev" is absent; sd is 0 when n < 2). */
struct val {
	double mean, sd;
	long long n;
};

/* Sets *v to the metric's summary; false when r (may be NULL) or its metric
 * name is absent. */
bool svg_metric(const struct res *r, const char *name, struct val *v);

/* Whether s ends in suf. */
bool svg_has_suffix(const char *s, const char *suf);

/* ------------------------------------------------------------ format.c */

/* What a metric counts: operations, bytes (per second), nanoseconds. */
enum ukind { U_COUNT, U_BYTES, U_NS };

/* "B/s", "KiB/s" ... "PiB/s": the unit of bytes at scale index 0..5. */
extern const char *const svg_rate_unit[];

/* The unit kind of a metric name: ending in "-bw" bytes, with "-lat"
 * nanoseconds, else a count. */
enum ukind svg_kind_of(const char *metric);

/* The scale for v: returns the divisor and sets *k to the unit index
 * (1000s, 1024s for bytes, ns..s). */
double svg_scale_of(double v, enum ukind u, size_t *k);

/* The unit (or prefix) at index k of kind u (a static string). */
const char *svg_unit_name(enum ukind u, size_t k);

/* "%.*f" of v into buf without trailing zeros ("-0" is "0"). */
void svg_fmt_trim(double v, int dec, char *buf, size_t len);

/* "844k ± 12k", "6.35 ± 0.5 GiB/s", "45.8 µs" into buf: the mean with 3
 * significant digits, with with_sd the deviation in the same unit with 2. */
void svg_fmt_val(double mean, double sd, bool with_sd, enum ukind u, char *buf, size_t len);

/* -------------------------------------------------------------- axis.c */

#define MAXTICKS 48

/* A value axis and its ticks. */
struct axis {
	double lo, hi;
	bool log;
	enum ukind u;
	double div; /* linear bytes: labels in this unit (unit index k) */
	size_t k;
	double step; /* linear: tick step in label units */
	double t[MAXTICKS];
	size_t nt;
};

/* Sets *a to a linear axis from 0 to a 1-2-5 step above max, about maxticks
 * ticks (at least 2). */
void svg_axis_linear(struct axis *a, double max, enum ukind u, int maxticks);

/* Sets *a to a logarithmic axis over [min, max] (both > 0), ticks at 1, 10,
 * 100 (and 2, 5 over two decades or less) per unit. */
void svg_axis_log(struct axis *a, double min, double max, enum ukind u);

/* The position of v on the axis drawn from p0 (a->lo) to p1 (a->hi),
 * clamped to the axis. */
double svg_axis_pos(const struct axis *a, double v, double p0, double p1);

/* The width of the widest tick label at font size px. */
double svg_ticks_width(const struct axis *a, double px);

/* Vertical gridlines and tick labels of a horizontal value axis from x0 to
 * x1, the labels below bottom. */
void svg_xgrid(struct svg *s, const struct axis *a, double x0, double x1, double top,
	       double bottom);

/* Horizontal gridlines and tick labels of a vertical value axis from bottom
 * to top, the labels left of x0. */
void svg_ygrid(struct svg *s, const struct axis *a, double x0, double x1, double top,
	       double bottom);

/* ------------------------------------------------------------- frame.c */

/* Legend items: a colour box (bars) or a line with a marker (line charts). */
enum legend_style { LG_BOX, LG_LINE };

/* The legend of d's targets at (x, y), wrapping within maxw. Returns its
 * height. */
double svg_legend(struct svg *s, const struct doc *d, double x, double y, double maxw,
		  enum legend_style st);

/* The same for the targets t with show[t] (show NULL: all). */
double svg_legend_of(struct svg *s, const struct doc *d, const bool *show, double x, double y,
		     double maxw, enum legend_style st);

/* A panel's title and subtitle at x, each fitted to maxw. */
void svg_panel_head(struct svg *s, double x, double maxw, const char *title, const char *sub);

/* "1 iteration", "5 iterations" into buf. */
void svg_iter_words(long long n, char *buf, size_t len);

/* -------------------------------------------------------- categories.c */

/* A row of the bar and latency panels: a workload and one headline metric. */
struct cat {
	size_t wi;
	const char *metric;
	const char *dir; /* " (read)" when the workload has both directions here */
};

/*
 * The workloads of d whose headline metrics end in suffix, one row per
 * direction (read first), in workload order: *out_c, an array of *nc rows
 * (at most 2 per workload) the caller frees. Returns 0 or -ENOMEM (then
 * *out_c is not set and *nc is 0).
 */
int svg_collect_cats(const struct doc *d, const char *suffix, struct cat **out_c, size_t *nc);

/* Width of a row's label (workload name and direction) at font size px. */
double svg_cat_label_w(const struct doc *d, const struct cat *c, double px);

/* A row's label, right-aligned at x, the workload name cut to fit maxw. */
void svg_cat_label(struct svg *s, const struct doc *d, const struct cat *c, double x, double y,
		   double maxw);

/* The rows c[0..nc) from top, group high each: every other one on a zebra
 * stripe across the panel, each labelled right-aligned before x0 within labw
 * (the label column's width). */
void svg_cat_rows(struct svg *s, const struct doc *d, const struct cat *c, size_t nc, double top,
		  double group, double x0, double labw);

/* ------------------------------------------------------ the panels */

/*
 * Each draws its panel of d at y = 0 (the caller translates it) and sets
 * *height to its height, 0 when d has no data for it (it then writes
 * nothing). Returns 0 or -ENOMEM; write errors are in s->err.
 */

/* bars.c: IOPS (bw false) or bandwidth (bw true), grouped horizontal bars. */
int svg_panel_bars(struct svg *s, const struct doc *d, bool bw, double *height);

/* fsync.c: line charts of each "-fsyncN" family, two a row. */
int svg_panel_fsync(struct svg *s, const struct doc *d, double *height);

/* latency.c: p50, p99 and p99.9 per target on a log axis. */
int svg_panel_latency(struct svg *s, const struct doc *d, double *height);

/* lifecycle.c: the lifecycle section, grouped bars per phase (mean, stddev
 * whiskers, p95), skipped phases and failed iterations in words. */
int svg_panel_lifecycle(struct svg *s, const struct doc *d, double *height);

/* sweep.c: the saturation sweep, IOPS against the swept parameter with
 * stddev bars, and p99 latency against IOPS. */
int svg_panel_sweep(struct svg *s, const struct doc *d, double *height);

#endif
