/* SPDX-License-Identifier: MIT */
/*
 * The report layer's shared formatting: a metric value with its unit, its
 * compact table form, a metric's name in words, one CSV field, one
 * Markdown cell, the display width of UTF-8 text. Every renderer of
 * lib/report/ (report.c, dist.c, object.c, sweep.c, compare.c,
 * validity.c) and the plugin's tables use these, and these use nothing of
 * the renderers: the one file they all depend on, no circle between them.
 */
#ifndef SB_LIB_REPORT_FORMAT_H
#define SB_LIB_REPORT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Formats a metric value with its unit ("22748 IOPS", "2.13 GiB/s", "587us"). */
char *sb_report_fmt_value(double v, const char *unit, char *buf, size_t len);

/* Compact form for tables ("22.7k", "2.13 GiB/s", "587us"). */
char *sb_report_fmt_short(double v, const char *unit, char *buf, size_t len);

/*
 * A metric's name in words: "read-iops" -> "read IOPS", "write-bw" ->
 * "write bandwidth", "read-lat-mean" -> "mean read latency",
 * "read-lat-p99" -> "p99 read latency".
 */
void sb_report_metric_words(const char *metric, char *buf, size_t len);

/* One CSV field: quoted (quotes doubled) when it holds a comma, quote or line break. */
void sb_report_csv_field(FILE *f, const char *s);

/* A Markdown table cell's text: pipes and line breaks from the data written as spaces. */
void sb_report_md_cell(FILE *f, const char *s);

/* s as a Markdown cell (sb_report_md_cell) when md, as it is otherwise. */
void sb_report_cell(FILE *f, const char *s, bool md);

/* Characters on screen of UTF-8 text ("±" is two bytes, one column). */
size_t sb_report_text_width(const char *s);

#endif
