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
 *
 * Judged are the headline metrics of each result (the figure its workload
 * measures: IOPS, bandwidth for blocks of 128 KiB or more, latency at queue
 * depth 1; the report's "headline"), every metric when a result names none.
 *
 * Multiple comparisons: the p-values of every metric judged in one
 * comparison (all targets, workloads and metrics) are one family, adjusted
 * with Holm-Bonferroni by default (multitest.h), so the chance of any false
 * alarm in a verdict stays at alpha however many metrics it has; an entry
 * counts when its adjusted p is below alpha.
 *
 * Hysteresis (was_regressed: the schedule is Regressed since an earlier
 * run): a metric slower by at least the threshold stays a regression even
 * when it is not significant ("held": true): the verdict clears only when
 * every metric is back within the threshold of the baseline.
 *
 * Workloads that changed (the comparison's "not_comparable") are listed,
 * never judged.
 */
#ifndef SB_LIB_STATS_VERDICT_H
#define SB_LIB_STATS_VERDICT_H

#include "multitest.h"

#include <jansson.h>
#include <stdbool.h>
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

struct sb_verdict_opts {
	double threshold_pct;
	enum sb_padjust correction; /* SB_PADJ_HOLM for sb_verdict */
	bool was_regressed;	    /* hysteresis: see above */
};

/*
 * sb_verdict with options. The document also has "correction" (holm, bh,
 * none), "tests" (the family's size), each entry's "p_adjusted" (and
 * "held": true when kept by the hysteresis), "not_comparable" when the
 * comparison has it, "was_regressed": true when given.
 */
int sb_verdict_ex(const json_t *cmp, const struct sb_verdict_opts *o, json_t **out, char *err,
		  size_t errlen);

/*
 * A one-line summary of a verdict document into buf (len bytes, always
 * terminated, cut with "..." when too long):
 *   "2 regressions beyond 10%: fast/rr read-iops -23.4% (p=0.003), ...;
 *    1 improvement: ..."  or "no significant change beyond 10%".
 * Returns buf.
 */
char *sb_verdict_summary(const json_t *verdict, char *buf, size_t len);

#endif
