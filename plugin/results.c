/* SPDX-License-Identifier: MIT */
/* The per-iteration results table of `logs` (see table.h). */
#include "plugin/table.h"

#include "core/labels.h"
#include "report/format.h"
#include "result/resultdoc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCOLS 8

struct entry {
	unsigned iteration;
	const char *cls;
	size_t index; /* position in the list, for a stable order */
	const json_t *cm;
};

static const char *meta_str(const json_t *cm, const char *map, const char *key)
{
	const json_t *v =
		json_object_get(json_object_get(json_object_get(cm, "metadata"), map), key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->iteration != y->iteration)
		return x->iteration < y->iteration ? -1 : 1;
	int r = strcmp(x->cls, y->cls);
	if (r)
		return r;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The rows of one direction of one job. 0 or -ENOMEM. */
static int dir_row(struct sbp_table *t, const char *it, const char *cls, const char *job,
		   const char *dir, const struct sb_result_dirv *dv)
{
	char iops[32], bw[32], lat[32], p99[32];
	sb_report_fmt_short(dv->iops, "IOPS", iops, sizeof(iops));
	sb_report_fmt_short(dv->bw_bytes, "B/s", bw, sizeof(bw));
	sb_report_fmt_short(dv->lat.mean, "ns", lat, sizeof(lat));
	if (dv->clat.have_pct[SB_RPCT_99])
		sb_report_fmt_short(dv->clat.pct[SB_RPCT_99], "ns", p99, sizeof(p99));
	else
		snprintf(p99, sizeof(p99), "-");
	const char *row[NCOLS] = {it, cls, job, dir, iops, bw, lat, p99};
	return sbp_table_add(t, row);
}

/* The rows of one result ConfigMap. 0 or -ENOMEM. */
static int cm_rows(struct sbp_table *t, const struct entry *e)
{
	static const enum sb_result_dir dirs[] = {SB_RDIR_READ, SB_RDIR_WRITE, SB_RDIR_MIXED};
	const json_t *text = json_object_get(json_object_get(e->cm, "data"), SB_RESULT_KEY);
	char it[16], why[160] = "", perr[120];
	json_t *doc = NULL;
	struct sb_result res = SB_RESULT_INIT;
	int ret = 0;

	snprintf(it, sizeof(it), "%u", e->iteration);
	if (!json_is_string(text)) {
		snprintf(why, sizeof(why), "<no data.%s>", SB_RESULT_KEY);
	} else {
		json_error_t je;
		doc = json_loads(json_string_value(text), 0, &je);
		if (!doc)
			snprintf(why, sizeof(why), "<data.%s is not JSON: %.80s>", SB_RESULT_KEY,
				 je.text);
		else if (!json_is_array(json_object_get(doc, SB_RK_JOBS)))
			snprintf(why, sizeof(why), "<data.%s has no jobs>", SB_RESULT_KEY);
		else if ((ret = sb_result_parse(doc, 0, &res, perr, sizeof(perr))) == -ENOMEM)
			goto out;
		else if (ret)
			snprintf(why, sizeof(why), "<data.%s: %s>", SB_RESULT_KEY, perr);
		ret = 0;
	}
	for (size_t i = 0; !why[0] && i < res.njobs; i++) {
		const struct sb_result_job *job = &res.jobs[i];
		bool any = false;
		for (size_t d = 0; d < 3 && !ret; d++) {
			const struct sb_result_dirv *dv = &job->dir[dirs[d]];
			if (dv->total_ios > 0) {
				any = true;
				ret = dir_row(t, it, e->cls, job->name, sb_result_dir_keys[dirs[d]],
					      dv);
			}
		}
		if (!any && !ret) {
			const char *row[NCOLS] = {it, e->cls, job->name, "-", "0", "0", "-", "-"};
			ret = sbp_table_add(t, row);
		}
		if (ret)
			break;
	}
	if (why[0]) {
		const char *row[NCOLS] = {it, e->cls, why, "-", "-", "-", "-", "-"};
		ret = sbp_table_add(t, row);
	}
out:
	sb_result_release(&res);
	json_decref(doc);
	return ret;
}

char *sbp_results_format(const json_t *cmlist, const char *run, const char *cls, unsigned iteration,
			 size_t *nrows)
{
	static const char *const head[NCOLS] = {"ITERATION", "CLASS",	  "WORKLOAD", "RW",
						"IOPS",	     "BANDWIDTH", "LAT-MEAN", "LAT-P99"};
	const json_t *items = json_is_array(cmlist) ? cmlist : json_object_get(cmlist, "items");
	size_t n = json_array_size(items), used = 0;
	struct entry *v = calloc(n ? n : 1, sizeof(*v));
	struct sbp_table t;
	char *out = NULL;

	sbp_table_init(&t, NCOLS);
	if (!v || sbp_table_add(&t, head))
		goto out;
	for (size_t i = 0; i < n; i++) {
		const json_t *cm = json_array_get(items, i);
		const char *r = meta_str(cm, "annotations", SB_ANNOT_RUN);
		const char *c = meta_str(cm, "annotations", SB_ANNOT_CLASS);
		const char *its = meta_str(cm, "labels", SB_LABEL_ITERATION);
		char *end = NULL;
		unsigned long itn = its ? strtoul(its, &end, 10) : 0;
		if (!c)
			c = meta_str(cm, "labels", SB_LABEL_CLASS);
		if ((run && (!r || strcmp(r, run))) || !c || (cls && strcmp(c, cls)) || !its ||
		    *end || itn == 0 || itn > 100000 || (iteration && itn != iteration))
			continue;
		v[used++] = (struct entry){(unsigned)itn, c, i, cm};
	}
	qsort(v, used, sizeof(*v), entry_cmp);
	for (size_t i = 0; i < used; i++)
		if (cm_rows(&t, &v[i]))
			goto out;
	out = sbp_table_render(&t);
out:
	sbp_table_release(&t);
	free(v);
	if (nrows)
		*nrows = used;
	return out;
}
