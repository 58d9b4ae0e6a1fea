/* SPDX-License-Identifier: MIT */
/* Holm-Bonferroni and Benjamini-Hochberg adjusted p-values. See multitest.h. */
#include "multitest.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ranked {
	double p;
	size_t at;
};

static int by_p(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at; /* stable: ties keep their order */
}

int sb_p_adjust(const double *p, size_t n, enum sb_padjust method, double *adj)
{
	if (method != SB_PADJ_NONE && method != SB_PADJ_HOLM && method != SB_PADJ_BH)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]) && !(p[i] >= 0 && p[i] <= 1))
			return -EINVAL;
	struct ranked *r = malloc((n ? n : 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			r[m++] = (struct ranked){p[i], i};
	qsort(r, m, sizeof(*r), by_p);
	if (adj != p)
		for (size_t i = 0; i < n; i++)
			adj[i] = isnan(p[i]) ? NAN : p[i];
	if (method == SB_PADJ_HOLM) {
		double run = 0;
		for (size_t j = 0; j < m; j++) {
			double v = (double)(m - j) * r[j].p;
			run = v > run ? v : run; /* monotone: never below an earlier one */
			adj[r[j].at] = run < 1 ? run : 1;
		}
	} else if (method == SB_PADJ_BH) {
		double run = 1;
		for (size_t j = m; j-- > 0;) {
			double v = (double)m * r[j].p / (double)(j + 1);
			run = v < run ? v : run; /* monotone: never above a later one */
			adj[r[j].at] = run;
		}
	}
	free(r);
	return 0;
}

int sb_padjust_parse(const char *s)
{
	if (!s)
		return -1;
	if (!strcmp(s, "holm"))
		return SB_PADJ_HOLM;
	if (!strcmp(s, "bh") || !strcmp(s, "benjamini-hochberg"))
		return SB_PADJ_BH;
	if (!strcmp(s, "none"))
		return SB_PADJ_NONE;
	return -1;
}

const char *sb_padjust_name(enum sb_padjust m)
{
	return m == SB_PADJ_HOLM ? "holm" : m == SB_PADJ_BH ? "bh" : "none";
}
