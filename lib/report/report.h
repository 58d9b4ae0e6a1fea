/* SPDX-License-Identifier: MIT */
/*
 * Rendering a report document (see aggregate.h) for people: txt (sentences
 * like the reference pages, then a table with one row per target and one
 * column per workload), md (the same as Markdown), csv (one row per
 * target x workload x metric) and json (the document itself). Object-storage
 * rows (rw "s3-...") have their own sentences and table in txt and md
 * (report/object.h); the per-workload table keeps the block and file rows.
 */
#ifndef SB_REPORT_H
#define SB_REPORT_H

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

/* Formats a metric value with its unit ("22748 IOPS", "2.13 GiB/s", "587us"). */
char *sb_report_fmt_value(double v, const char *unit, char *buf, size_t len);

/*
 * A metric's name in words: "read-iops" -> "read IOPS", "write-bw" ->
 * "write bandwidth", "read-lat-mean" -> "mean read latency",
 * "read-lat-p99" -> "p99 read latency".
 */
void sb_report_metric_words(const char *metric, char *buf, size_t len);

/* One CSV field: quoted (quotes doubled) when it holds a comma, quote or line break. */
void sb_report_csv_field(FILE *f, const char *s);

/* Compact form for tables ("22.7k", "2.13 GiB/s", "587us"). */
char *sb_report_fmt_short(double v, const char *unit, char *buf, size_t len);

#endif
