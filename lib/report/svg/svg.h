/* SPDX-License-Identifier: MIT */
/*
 * Charts of a report document (see aggregate.h) as one self-contained SVG:
 * no scripts, no external fonts or images, valid XML (UTF-8), written by
 * this module alone.
 *
 * Panels, stacked top to bottom:
 *   SB_SVG_IOPS     horizontal grouped bars, one group per workload whose
 *                   headline is an IOPS metric, one bar per target (storage
 *                   class), error bars +-1 sample standard deviation, the
 *                   value printed at the end of each bar;
 *   SB_SVG_BW       the same for workloads whose headline is bandwidth;
 *   SB_SVG_FSYNC    for each family of workloads that differ only by a
 *                   "-fsyncN" suffix (write-iops, write-iops-fsync1, ...),
 *                   the headline metric against the fsync frequency (fsync=1,
 *                   32, 128, no fsync) as one line per target with a shaded
 *                   +-1 standard deviation band, side by side;
 *   SB_SVG_LATENCY  for workloads whose headline is a latency, p50, p99 and
 *                   p99.9 per target (from "merged", the histogram over all
 *                   iterations) on a logarithmic axis;
 *   SB_SVG_LIFECYCLE  from the report's "lifecycle" section (volume
 *                   lifecycle timings, controller/lifecycle/lifecycle.h): one group
 *                   per phase (provision, attach, resize, delete), one bar
 *                   per class for the mean, whiskers +-1 standard deviation,
 *                   a diamond at p95; skipped phases and failed iterations
 *                   in words;
 *   SB_SVG_SWEEP    from the report's "sweep" section (lib/report/sweep.h):
 *                   aggregate IOPS against the swept parameter (runner pods
 *                   per class), a line per class and workload with +-1
 *                   standard deviation error bars, and beside it p99
 *                   latency (logarithmic) against IOPS at the same steps.
 * A panel without data is left out. Line and latency charts switch to a
 * logarithmic axis when the values span more than a factor of 20 (latency:
 * always); bars always start at zero.
 *
 * Elements carry classes for tools and tests: <g class="panel"
 * data-panel="iops|bandwidth|fsync|latency|lifecycle|sweep">, one <g class="series"
 * data-target="NAME"> per target in each chart, <rect class="bar">,
 * <path class="errorbar">, <path class="band">, <path class="line">,
 * <path class="p95">, <text class="skipped">, <text class="failure">.
 */
#ifndef SB_LIB_REPORT_SVG_SVG_H
#define SB_LIB_REPORT_SVG_SVG_H

#include <jansson.h>
#include <stddef.h>

enum sb_svg_panel {
	SB_SVG_IOPS = 1u << 0,
	SB_SVG_BW = 1u << 1,
	SB_SVG_FSYNC = 1u << 2,
	SB_SVG_LATENCY = 1u << 3,
	SB_SVG_LIFECYCLE = 1u << 4,
	SB_SVG_SWEEP = 1u << 5,
	SB_SVG_ALL = (1u << 6) - 1,
};

/*
 * Renders the panels in the mask `panels` of report (borrowed) into *out,
 * a NUL-terminated string the caller frees. Returns 0; -EINVAL with err
 * naming the field when the report is malformed or panels has no known
 * bit; -ENODATA when none of the requested panels has data (with
 * SB_SVG_ALL a report without any chartable result still renders, as a
 * title and a note); -ENOMEM. On error *out is NULL.
 */
int sb_report_svg(const json_t *report, unsigned panels, char **out, char *err, size_t errlen);

/* All panels, for sb_report_render(report, "svg"): the string or NULL with err set. */
char *sb_report_svg_render(const json_t *report, char *err, size_t errlen);

/*
 * Sets *mask to the panels that have data in report (for writing one file
 * per family: "iops.svg", ...). Returns 0, or -EINVAL with err naming the
 * field of a malformed report, -ENOMEM.
 */
int sb_report_svg_panels(const json_t *report, unsigned *mask, char *err, size_t errlen);

/* A panel's name ("iops", "bandwidth", "fsync", "latency", "lifecycle", "sweep"), NULL for
 * others. */
const char *sb_report_svg_panel_name(unsigned panel);

#endif
