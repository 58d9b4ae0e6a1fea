/* SPDX-License-Identifier: MIT */
/* Text tables, kubectl's AGE and timestamps (see table.h). */
#include "plugin/table.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PADDING	  3 /* kubectl's tabwriter: padding 3, minimum width 6 */
#define MIN_WIDTH 6

void sbp_table_init(struct sbp_table *t, size_t ncols)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
}

void sbp_table_release(struct sbp_table *t)
{
	if (!t->cells)
		return;
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = t->cap = 0;
}

int sbp_table_add(struct sbp_table *t, const char *const *cells)
{
	if (t->ncols == 0)
		return -EINVAL;
	if (t->nrows == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 16;
		char **n = realloc(t->cells, ncap * t->ncols * sizeof(*n));
		if (!n)
			return -ENOMEM;
		t->cells = n;
		t->cap = ncap;
	}
	char **row = t->cells + t->nrows * t->ncols;
	for (size_t c = 0; c < t->ncols; c++) {
		row[c] = strdup(cells[c] ? cells[c] : "");
		if (!row[c]) {
			while (c--)
				free(row[c]);
			return -ENOMEM;
		}
	}
	t->nrows++;
	return 0;
}

struct sort_ctx {
	const size_t *keys;
	size_t nkeys, ncols;
};

static int row_cmp(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *sc = arg;
	char *const *ra = *(char **const *)a, *const *rb = *(char **const *)b;
	for (size_t k = 0; k < sc->nkeys; k++) {
		size_t c = sc->keys[k];
		if (c >= sc->ncols)
			continue;
		int r = strcmp(ra[c], rb[c]);
		if (r)
			return r;
	}
	/* equal keys keep their order (qsort is not stable): rows point into
	 * one array in their original order */
	return ra < rb ? -1 : ra > rb;
}

void sbp_table_sort(struct sbp_table *t, size_t skip, const size_t *keys, size_t nkeys)
{
	if (t->nrows <= skip + 1)
		return;
	size_t n = t->nrows - skip;
	char ***rows = calloc(n, sizeof(*rows));
	char **copy = calloc(n * t->ncols, sizeof(*copy));
	if (!rows || !copy) {
		free(rows);
		free(copy);
		return; /* left unsorted: only the order suffers */
	}
	for (size_t i = 0; i < n; i++)
		rows[i] = t->cells + (skip + i) * t->ncols;
	struct sort_ctx sc = {keys, nkeys, t->ncols};
	qsort_r(rows, n, sizeof(*rows), row_cmp, &sc);
	for (size_t i = 0; i < n; i++)
		memcpy(copy + i * t->ncols, rows[i], t->ncols * sizeof(*copy));
	memcpy(t->cells + skip * t->ncols, copy, n * t->ncols * sizeof(*copy));
	free(rows);
	free(copy);
}

char *sbp_table_render(const struct sbp_table *t)
{
	size_t width[16] = {0};
	size_t total = 1;
	if (t->ncols == 0 || t->ncols > 16)
		return NULL;
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncols; c++) {
			size_t l = strlen(t->cells[r * t->ncols + c]) + PADDING;
			if (l < MIN_WIDTH)
				l = MIN_WIDTH;
			if (l > width[c])
				width[c] = l;
		}
	for (size_t c = 0; c < t->ncols; c++)
		total += width[c];
	total *= t->nrows ? t->nrows : 1;
	char *out = malloc(total + 1);
	if (!out)
		return NULL;
	size_t len = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		size_t start = len;
		for (size_t c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r * t->ncols + c];
			size_t l = strlen(s);
			memcpy(out + len, s, l);
			len += l;
			if (c + 1 < t->ncols) {
				memset(out + len, ' ', width[c] - l);
				len += width[c] - l;
			}
		}
		while (len > start && out[len - 1] == ' ')
			len--; /* empty last cells leave no padding */
		out[len++] = '\n';
	}
	out[len] = '\0';
	return out;
}

/* "<a><ua><b><ub>", leaving out "<b><ub>" when b is 0. */
static char *two_units(char *buf, size_t len, long long a, const char *ua, long long b,
		       const char *ub)
{
	if (b)
		snprintf(buf, len, "%lld%s%lld%s", a, ua, b, ub);
	else
		snprintf(buf, len, "%lld%s", a, ua);
	return buf;
}

char *sbp_age(long long s, char *buf, size_t len)
{
	/* the rules of k8s.io/apimachinery's duration.HumanDuration */
	long long m = s / 60, h = s / 3600, d = h / 24;
	if (s < -1)
		snprintf(buf, len, "<invalid>");
	else if (s < 0)
		snprintf(buf, len, "0s");
	else if (s < 120)
		snprintf(buf, len, "%llds", s);
	else if (m < 10)
		two_units(buf, len, m, "m", s % 60, "s");
	else if (m < 180)
		snprintf(buf, len, "%lldm", m);
	else if (h < 8)
		two_units(buf, len, h, "h", m % 60, "m");
	else if (h < 48)
		snprintf(buf, len, "%lldh", h);
	else if (h < 24 * 8)
		two_units(buf, len, d, "d", h % 24, "h");
	else if (h < 24 * 365 * 2)
		snprintf(buf, len, "%lldd", d);
	else if (h < 24 * 365 * 8)
		two_units(buf, len, d / 365, "y", d % 365, "d");
	else
		snprintf(buf, len, "%lldy", d / 365);
	return buf;
}
