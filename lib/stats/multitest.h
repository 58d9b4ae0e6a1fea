/* SPDX-License-Identifier: MIT */
/*
 * Multiple comparisons: adjusted p-values for a family of tests, so that a
 * verdict over many metrics at once keeps its error rate at alpha instead
 * of multiplying it (nine metrics x ten workloads x three classes tested
 * at 0.05 each expect more than one false alarm per run).
 *
 * Holm-Bonferroni (Holm 1979) controls the family-wise error rate (the
 * chance of at least one false alarm) under any dependence between the
 * tests: with the m p-values sorted ascending p(1) <= ... <= p(m),
 *   adj(i) = min(1, max over j <= i of (m - j + 1) p(j)).
 * Benjamini-Hochberg (1995) controls the false discovery rate (the
 * expected share of false alarms among the alarms) for independent or
 * positively dependent tests:
 *   adj(i) = min(1, min over j >= i of m p(j) / j).
 * A hypothesis is rejected at level alpha when its adjusted p-value is
 * below alpha. Both give the same values as R's p.adjust (methods "holm"
 * and "BH") and statsmodels' multipletests.
 */
#ifndef SB_LIB_STATS_MULTITEST_H
#define SB_LIB_STATS_MULTITEST_H

#include <stddef.h>

enum sb_padjust { SB_PADJ_NONE = 0, SB_PADJ_HOLM, SB_PADJ_BH };

/*
 * Writes the adjusted p-values of p[0..n) to adj[0..n) (adj may be p).
 * Entries that are NaN (not tested) are not in the family: they stay NaN
 * and do not count in m. Returns 0, -EINVAL (a p-value outside [0, 1], or
 * an unknown method), -ENOMEM.
 */
int sb_p_adjust(const double *p, size_t n, enum sb_padjust method, double *adj);

/* "holm", "bh" (also "benjamini-hochberg"), "none" -> the method; -1 when unknown. */
int sb_padjust_parse(const char *s);
/* The method's name as sb_padjust_parse reads it ("holm", "bh", "none"). */
const char *sb_padjust_name(enum sb_padjust m);

#endif
