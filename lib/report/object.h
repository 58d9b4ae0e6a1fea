/* SPDX-License-Identifier: MIT */
/*
 * The object-storage rows of a report (docs/s3.md), rendered by
 * lib/report/report.c: a result whose rw is an S3 operation (SB_RW_OBJECT_PREFIX,
 * "s3-get") gets a sentence in object words and units instead of the block
 * sentences, and a table in the reference page's layout (one row per
 * target and workload: operation, object size, concurrency, ops/s mean and
 * standard deviation, throughput, request time p50/p99, TTFB p50, failed
 * requests). Every value read is type-checked by sb_report_object_validate
 * first.
 */
#ifndef SB_LIB_REPORT_OBJECT_H
#define SB_LIB_REPORT_OBJECT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* True when the result (one entry of report["results"]) is an object operation. */
bool sb_report_is_object(const json_t *result);

/*
 * Type-checks what the object renderers read of an object result (bs,
 * iodepth, errors_by_status) at path ("results[3]"): 0, or -EINVAL with err
 * naming the field. Other results: 0.
 */
int sb_report_object_validate(const json_t *result, const char *path, char *err, size_t errlen);

/*
 * "rgw: get-1m: GET 1 MiB x 16: 412 ops/s on average with a standard
 * deviation of 12 ops/s, 412 MiB/s, request p50 38.0ms, p99 95.0ms, TTFB p50
 * 3.00ms, over 3 iterations." and its per-second line, for one validated
 * object result.
 */
void sb_report_object_sentence(FILE *f, const json_t *result, bool md);

/* The object table ("=== object storage" / "## Object storage"); nothing without object rows. */
void sb_report_object_table(FILE *f, const json_t *report, bool md);

/* Formats an object size in bytes ("1048576" -> "1 MiB", "1000" -> "1 KB", "1-1024" -> "1 B-1 KiB"). */
void sb_report_object_size(const char *bs, char *buf, size_t len);

#endif
