/* SPDX-License-Identifier: MIT */
/*
 * The report's optional sections, rendered by lib/report/report.c: "lifecycle"
 * (volume lifecycle timings per class and phase, or the reason a phase was
 * skipped) and "warnings" (lib/report/validity.h). Text and Markdown get both;
 * CSV gets the lifecycle rows (workload "lifecycle", metric the phase,
 * unit ns, median = p50). Entries of the wrong shape are left out.
 */
#ifndef SB_LIB_REPORT_SECTIONS_H
#define SB_LIB_REPORT_SECTIONS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* Well-formed entries of report["warnings"]. */
size_t sb_report_warning_count(const json_t *report);
/* One line under the title saying how many warnings follow (nothing when none). */
void sb_report_warnings_note(FILE *f, const json_t *report, bool md);
/* The lifecycle and warnings sections. */
void sb_report_sections_text(FILE *f, const json_t *report, bool md);
/* The lifecycle rows of the CSV (same columns as the metric rows). */
void sb_report_sections_csv(FILE *f, const json_t *report);

#endif
