/* SPDX-License-Identifier: MIT */
/*
 * The "distributed" section of a report (a run with several runner pods
 * per class, docs/distributed.md): the start skew of each iteration (and
 * of each later workload group, when the runs had several), one
 * row per pod and one per node, stragglers flagged. Rendered after the
 * txt/md report, and on its own as CSV (report-pods.csv). Values of the
 * wrong type are skipped, never trusted.
 */
#ifndef SB_LIB_REPORT_DIST_H
#define SB_LIB_REPORT_DIST_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* Writes the section of report (nothing when it has none) as text or Markdown. */
void sb_report_dist_text(FILE *f, const json_t *report, bool md);

/*
 * Writes the per-pod rows as CSV: target, workload, iteration, member, pod,
 * node, read-iops, write-iops, read-bw, write-bw, straggler. Returns 0, or
 * -ENOENT when the report has no distributed section.
 */
int sb_report_dist_csv(FILE *f, const json_t *report);

#endif
