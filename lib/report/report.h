/* SPDX-License-Identifier: MIT */
/*
 * Rendering a report document (see aggregate.h) for people: txt (sentences
 * like the reference pages, then a table with one row per target and one
 * column per workload), md (the same as Markdown), csv (one row per
 * target x workload x metric) and json (the document itself). Object-storage
 * rows (rw "s3-...") have their own sentences and table in txt and md
 * (report/object.h); the per-workload table keeps the block and file rows.
 */
#ifndef SB_LIB_REPORT_REPORT_H
#define SB_LIB_REPORT_REPORT_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Renders report in format "txt", "md", "csv" or "json". Returns a string
 * the caller frees, or NULL with err set (unknown format, malformed
 * report naming the field, ENOMEM).
 */
char *sb_report_render(const json_t *report, const char *format, char *err, size_t errlen);

/*
 * Type-checks every value the txt/md/csv renderers read (sb_report_render
 * calls it first): 0, or -EINVAL with err naming the path and the problem,
 * e.g. "results[0].headline[0]: not a string".
 */
int sb_report_validate(const json_t *report, char *err, size_t errlen);

/* The formatting every renderer shares (values, units, CSV fields) is report/format.h. */

#endif
