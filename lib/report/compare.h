/* SPDX-License-Identifier: MIT */
/*
 * Comparing two report documents (see aggregate.h): a baseline and a
 * current run. "Did the upgrade make it faster?" answered per target x
 * workload x metric with the change of the mean in percent and Welch's
 * unequal-variances t-test on the per-iteration samples (two-sided), and
 * a verdict at significance level alpha = 0.05.
 *
 * Matching: a result is compared when both documents have one for the
 * same target and workload; of its metrics, those present on both sides.
 * Results on one side only are listed under "only_baseline" and
 * "only_current" (never silently dropped); metrics on one side only under
 * the result's "unmatched_metrics".
 *
 * Verdicts: "significant" (p < alpha), "not significant", or "n too small"
 * when a side has fewer than 2 samples (a t-test needs a variance on each
 * side; p is then null). When both sides have zero variance, p is 0 if the
 * means differ (t infinite, shown as null) and 1 if they are equal.
 * Direction: "faster" when the change is an improvement (more IOPS or
 * bandwidth, less latency: metrics in "ns" are lower-is-better), "slower",
 * or "same" when the means are equal.
 */
#ifndef SB_LIB_REPORT_COMPARE_H
#define SB_LIB_REPORT_COMPARE_H

#include <jansson.h>
#include <stddef.h>

#define SB_COMPARE_ALPHA 0.05

/*
 * Compares current against baseline (both borrowed). On success *out is a
 * new reference to the comparison document:
 *   {"kind": "StoragebenchComparison", "version": 1, "baseline": NAME,
 *    "current": NAME, "alpha": 0.05, "test": "welch-t-two-sided",
 *    "results": [{"target", "workload", "headline": [metric names],
 *                 "metrics": {"read-iops": {"unit", "lower_is_better",
 *                     "baseline": {"mean", "stddev", "n"}, "current": {...},
 *                     "change_pct" (null when the baseline mean is 0),
 *                     "t", "df", "p" (null when not computed),
 *                     "verdict", "direction"}, ...},
 *                 "unmatched_metrics": [...] (only when not empty)}],
 *    "only_baseline": [{"target", "workload"}], "only_current": [...]}
 * Results come in the current document's order; metrics in the report's
 * metric order (read, write, sync; IOPS, bandwidth, latencies), others by
 * name. Returns 0; -EINVAL with err naming the side and the field
 * ("baseline: results[2].metrics.read-iops.samples[1]: not a number");
 * -ENOMEM.
 */
int sb_compare(const json_t *baseline, const json_t *current, json_t **out, char *err,
	       size_t errlen);

/*
 * Renders a comparison document in format "txt", "md" or "json". txt and
 * md: one line per target x workload x headline metric,
 *   "fast: iops-read: +12.4% (p=0.003, significant, faster)" (target: workload),
 * the results present on one side only, then a table of the headline
 * metrics (baseline and current mean +- stddev, change, p, verdict).
 * Returns a string the caller frees, or NULL with err set.
 */
char *sb_compare_render(const json_t *cmp, const char *format, char *err, size_t errlen);

#endif
