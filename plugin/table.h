/* SPDX-License-Identifier: MIT */
/*
 * Text tables as kubectl prints them (left-aligned columns, at least three
 * spaces between them, no padding after the last column), kubectl's AGE
 * format, and the tables of the plugin: the BenchmarkRun list and the
 * per-iteration results. Pure functions of their inputs.
 */
#ifndef SB_PLUGIN_TABLE_H
#define SB_PLUGIN_TABLE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct sbp_table {
	size_t ncols, nrows, cap; /* cap: rows allocated */
	char **cells;		  /* nrows * ncols strings, owned */
};

/* Empty table of ncols columns (1..16). Nothing allocated yet. */
void sbp_table_init(struct sbp_table *t, size_t ncols);
/* Frees the cells; t may be re-initialised. */
void sbp_table_release(struct sbp_table *t);
/* Appends a row of t->ncols strings (copied; NULL prints as ""). 0 or -ENOMEM. */
int sbp_table_add(struct sbp_table *t, const char *const *cells);
/*
 * Sorts the rows after the first skip ones (the header) by the columns in
 * keys (nkeys of them, compared as strings, in order).
 */
void sbp_table_sort(struct sbp_table *t, size_t skip, const size_t *keys, size_t nkeys);
/* The table as text, each row ending with '\n'; a new string, NULL on ENOMEM. */
char *sbp_table_render(const struct sbp_table *t);

/*
 * kubectl's AGE of a duration in seconds ("45s", "3m7s", "12m", "5h3m",
 * "2d4h", "30d", "2y14d"; "<invalid>" when more than a second in the
 * future, "0s" within a second). Returns buf.
 */
char *sbp_age(long long seconds, char *buf, size_t len);

/*
 * The table of `kubectl storagebench list`: from a BenchmarkRunList (or an
 * array of BenchmarkRuns; borrowed), columns [NAMESPACE] NAME PHASE
 * PROGRESS CLASSES REPORT AGE, rows sorted by namespace and name, ages
 * relative to now, "<none>" for what the controller has not written yet.
 * A new string; NULL on ENOMEM. *nitems receives the number of runs.
 */
char *sbp_list_format(const json_t *list, bool all_ns, time_t now, size_t *nitems);

/*
 * The per-iteration results table of `logs` once the runner pods are gone:
 * from a ConfigMapList of result ConfigMaps (borrowed), one row per
 * iteration, class, workload and direction that did I/O: ITERATION CLASS
 * WORKLOAD RW IOPS BANDWIDTH LAT-MEAN LAT-P99, sorted by iteration then
 * class then the workload order of the result. Only the ConfigMaps whose
 * run annotation is run (when not NULL), whose class is cls (when not
 * NULL) and iteration is iteration (when not 0). A ConfigMap whose result
 * cannot be read gives one row saying so. *nrows receives the number of
 * ConfigMaps used. A new string (the header alone when none); NULL on
 * ENOMEM.
 */
char *sbp_results_format(const json_t *cmlist, const char *run, const char *cls, unsigned iteration,
			 size_t *nrows);

#endif
