/* SPDX-License-Identifier: MIT */
/*
 * The "sweep" section of a report: a saturation curve, one point per step
 * of a swept parameter (the runner pods per class: aggregate IOPS against
 * clients), built from the reports of the steps (each an ordinary report,
 * docs/reports.md) and rendered as a table after the txt/md report and on
 * its own as CSV (report-sweep.csv). Values of the wrong type are skipped,
 * never trusted.
 *
 *   "sweep": {"parameter": "pods", "values": [1, 2, 4],
 *             "curve": [{"target", "workload", "step" (from 1), "value",
 *                        "iterations", "iops": {"mean", "stddev"},
 *                        "bw": {"mean", "stddev"} (B/s),
 *                        "lat-p50", "lat-p99" (ns, or null)}]}
 *
 * IOPS and bandwidth are read plus write of each iteration (from the
 * metrics' samples), then mean and sample standard deviation over the
 * iterations; latency is the merged histogram's percentile of the
 * direction with the most I/Os.
 */
#ifndef SB_LIB_REPORT_SWEEP_H
#define SB_LIB_REPORT_SWEEP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * The sweep section (new reference) of n steps: values[k] of parameter
 * (e.g. "pods") gave reports[k] (borrowed). A step without a report
 * (NULL: it failed) has no points. Rows in the order of step 1's results,
 * then new ones as they appear. NULL on ENOMEM.
 */
json_t *sb_sweep_section(const char *parameter, const unsigned *values,
			 const json_t *const *reports, size_t n);

/* The section as text or Markdown (nothing when the report has none). */
void sb_report_sweep_text(FILE *f, const json_t *report, bool md);

/* The section as CSV, a row per point: 0, or -ENOENT when the report has none. */
int sb_report_sweep_csv(FILE *f, const json_t *report);

#endif
