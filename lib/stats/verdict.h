/* SPDX-License-Identifier: MIT */
/*
 * Regression verdicts: from a comparison with a baseline (lib/report/compare.h)
 * and a threshold in percent, which results got significantly slower
 * (regressions) or faster (improvements) by at least the threshold.
 *
 * An entry counts when the comparison's verdict is "significant" (Welch's
 * t-test, p < 0.05), its change_pct is a number with |change_pct| >=
 * threshold, and its direction is "slower" (a regression) or "faster" (an
 * improvement). Latencies are lower-is-better: their "slower" is a higher
 * mean, as compare.c decides. Results with too few samples never count.
 */
#ifndef SB_LIB_STATS_VERDICT_H
#define SB_LIB_STATS_VERDICT_H

#include <jansson.h>
#include <stddef.h>

#define SB_VERDICT_DEFAULT_THRESHOLD 10.0

/*
 * *out: a new document
 *   {"threshold_pct": T, "alpha": 0.05, "baseline": NAME, "current": NAME,
 *    "regressions": [{"target", "workload", "metric", "unit", "change_pct",
 *                     "p", "baseline_mean", "current_mean"}],
 *    "improvements": [...same...]}
 * in the comparison's order. Returns 0, -EINVAL (cmp is not a comparison
 * document; err says which field), -ENOMEM.
 */
int sb_verdict(const json_t *cmp, double threshold_pct, json_t **out, char *err, size_t errlen);

/*
 * A one-line summary of a verdict document into buf (len bytes, always
 * terminated, cut with "..." when too long):
 *   "2 regressions beyond 10%: fast/rr read-iops -23.4% (p=0.003), ...;
 *    1 improvement: ..."  or "no significant change beyond 10%".
 * Returns buf.
 */
char *sb_verdict_summary(const json_t *verdict, char *buf, size_t len);

#endif
