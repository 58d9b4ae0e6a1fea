/* SPDX-License-Identifier: MIT */
/* Results as Prometheus gauges. See result_metrics.h. */
#include "controller/serve/result_metrics.h"
#include "core/jsonobj.h"

#include "controller/core/controller.h"
#include "controller/run/manifests.h"
#include "core/labels.h"
#include "core/names.h"
#include "stats/verdict.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* the metrics exported (of status.summary's) */
static const char *const exported[] = {
	"read-iops",	"write-iops",	  "read-bw",	   "write-bw",	   "read-lat-mean",
	"read-lat-p99", "write-lat-mean", "write-lat-p99", "sync-lat-p99",
};

static bool is_exported(const char *m)
{
	for (size_t i = 0; m && i < sizeof(exported) / sizeof(exported[0]); i++)
		if (!strcmp(m, exported[i]))
			return true;
	return false;
}

/* a label value, escaped as the exposition format wants */
static void lv(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

struct group {
	const json_t *run; /* the newest successful run */
	time_t when;
};

static time_t activation(const json_t *run)
{
	const json_t *md = json_object_get(run, "metadata");
	time_t t = br_time_parse(jstr(json_object_get(md, "annotations"), SB_ANNOT_SCHEDULED_AT));
	return t ? t : br_time_parse(jstr(md, "creationTimestamp"));
}

static bool succeeded(const json_t *run)
{
	const char *p = jstr(json_object_get(run, "status"), "phase");
	return p && !strcmp(p, "Succeeded") &&
	       !jstr(json_object_get(run, "metadata"), "deletionTimestamp");
}

/* "storagebench_<kind>_<what>{namespace="..",<kind>=".."" */
static void head(FILE *f, const char *kind, const char *what, const char *ns, const char *name)
{
	fprintf(f, "storagebench_%s_%s{namespace=\"", kind, what);
	lv(f, ns);
	fprintf(f, "\",%s=\"", kind);
	lv(f, name);
	fputc('"', f);
}

static void write_results(FILE *f, const char *kind, const char *ns, const char *name,
			  const json_t *run)
{
	static const char *const what[] = {"result_mean", "result_stddev", "result_samples"};
	static const char *const key[] = {"mean", "stddev", "n"};
	size_t i;
	const json_t *e;
	for (size_t w = 0; w < 3; w++) {
		json_array_foreach(json_object_get(json_object_get(run, "status"), "summary"), i, e)
		{
			const json_t *v = json_object_get(e, key[w]);
			if (!is_exported(jstr(e, "metric")) || !json_is_number(v) ||
			    !isfinite(json_number_value(v)))
				continue;
			head(f, kind, what[w], ns, name);
			fputs(",class=\"", f);
			lv(f, jstr(e, "class"));
			fputs("\",workload=\"", f);
			lv(f, jstr(e, "workload"));
			fputs("\",metric=\"", f);
			lv(f, jstr(e, "metric"));
			fputs("\",unit=\"", f);
			lv(f, jstr(e, "unit"));
			fprintf(f, "\"} %.17g\n", json_number_value(v));
		}
	}
}

static void write_verdict(FILE *f, const char *kind, const char *ns, const char *name,
			  const json_t *run, br_cm_lookup get_cm, void *arg)
{
	char cmname[64];
	const char *rn = jstr(json_object_get(run, "metadata"), "name");
	if (!rn || sb_name_report(cmname, sizeof(cmname), rn))
		return;
	json_t *cm = get_cm(arg, ns, cmname);
	const char *text = jstr(json_object_get(cm, "data"), BR_COMPARE_KEY);
	json_t *cmp = text ? json_loads(text, 0, NULL) : NULL;
	const char *a = jstr(json_object_get(json_object_get(run, "metadata"), "annotations"),
			     SB_ANNOT_REGRESSION_THRESHOLD);
	char *end = NULL;
	double thr = a ? strtod(a, &end) : SB_VERDICT_DEFAULT_THRESHOLD;
	if (a && (end == a || *end || !isfinite(thr) || thr < 0))
		thr = SB_VERDICT_DEFAULT_THRESHOLD;
	json_t *v = NULL;
	char err[128];
	if (cmp && sb_verdict(cmp, thr, &v, err, sizeof(err)) == 0) {
		const json_t *reg = json_object_get(v, "regressions");
		head(f, kind, "regressed", ns, name);
		fprintf(f, "} %d\n", json_array_size(reg) ? 1 : 0);
		static const char *const lists[] = {"regressions", "improvements"};
		static const char *const verdicts[] = {"regression", "improvement"};
		for (size_t l = 0; l < 2; l++) {
			size_t i;
			const json_t *e;
			json_array_foreach(json_object_get(v, lists[l]), i, e)
			{
				head(f, kind, "change_percent", ns, name);
				fputs(",class=\"", f);
				lv(f, jstr(e, "target"));
				fputs("\",workload=\"", f);
				lv(f, jstr(e, "workload"));
				fputs("\",metric=\"", f);
				lv(f, jstr(e, "metric"));
				fprintf(f, "\",verdict=\"%s\"} %.6g\n", verdicts[l],
					json_number_value(json_object_get(e, "change_pct")));
			}
		}
	}
	json_decref(v);
	json_decref(cmp);
	json_decref(cm);
}

int br_result_metrics_write(FILE *f, const json_t *runs, br_cm_lookup get_cm, void *arg)
{
	size_t n = json_array_size(runs);
	struct group *g = calloc(n ? n : 1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	fputs("# HELP storagebench_schedule_result_mean Mean over the iterations of the newest "
	      "successful run of a schedule.\n"
	      "# TYPE storagebench_schedule_result_mean gauge\n"
	      "# HELP storagebench_schedule_result_stddev Sample standard deviation over the "
	      "iterations of the newest successful run of a schedule.\n"
	      "# TYPE storagebench_schedule_result_stddev gauge\n"
	      "# HELP storagebench_schedule_result_samples Iterations behind the figures of a "
	      "schedule.\n"
	      "# TYPE storagebench_schedule_result_samples gauge\n"
	      "# HELP storagebench_schedule_last_success_timestamp_seconds Activation of the "
	      "newest successful run of a schedule.\n"
	      "# TYPE storagebench_schedule_last_success_timestamp_seconds gauge\n"
	      "# HELP storagebench_schedule_regressed Whether the newest successful run of a "
	      "schedule regressed against its baseline (1) or not (0).\n"
	      "# TYPE storagebench_schedule_regressed gauge\n"
	      "# HELP storagebench_schedule_change_percent Significant changes against the "
	      "baseline beyond the schedule's threshold, in percent.\n"
	      "# TYPE storagebench_schedule_change_percent gauge\n",
	      f);
	/* the newest successful run of each schedule */
	size_t ng = 0;
	size_t i;
	const json_t *r;
	json_array_foreach(runs, i, r)
	{
		const char *sched = jstr(json_object_get(json_object_get(r, "metadata"), "labels"),
					 SB_LABEL_SCHEDULE);
		if (!sched || !succeeded(r))
			continue;
		const char *ns = jstr(json_object_get(r, "metadata"), "namespace");
		time_t when = activation(r);
		size_t k;
		for (k = 0; k < ng; k++) {
			const json_t *md = json_object_get(g[k].run, "metadata");
			if (!strcmp(jstr(json_object_get(md, "labels"), SB_LABEL_SCHEDULE),
				    sched) &&
			    ns && jstr(md, "namespace") && !strcmp(jstr(md, "namespace"), ns))
				break;
		}
		if (k == ng) {
			g[ng].run = r;
			g[ng++].when = when;
		} else if (when > g[k].when) {
			g[k].run = r;
			g[k].when = when;
		}
	}
	for (size_t k = 0; k < ng; k++) {
		const json_t *md = json_object_get(g[k].run, "metadata");
		const char *ns = jstr(md, "namespace") ? jstr(md, "namespace") : "";
		const char *sched = jstr(json_object_get(md, "labels"), SB_LABEL_SCHEDULE);
		write_results(f, "schedule", ns, sched, g[k].run);
		head(f, "schedule", "last_success_timestamp_seconds", ns, sched);
		fprintf(f, "} %lld\n", (long long)g[k].when);
		write_verdict(f, "schedule", ns, sched, g[k].run, get_cm, arg);
	}
	fputs("# HELP storagebench_run_result_mean Mean over the iterations of a successful run "
	      "(runs outside schedules).\n"
	      "# TYPE storagebench_run_result_mean gauge\n"
	      "# HELP storagebench_run_result_stddev Sample standard deviation over the "
	      "iterations of a successful run.\n"
	      "# TYPE storagebench_run_result_stddev gauge\n"
	      "# HELP storagebench_run_result_samples Iterations behind the figures of a run.\n"
	      "# TYPE storagebench_run_result_samples gauge\n"
	      "# HELP storagebench_run_regressed Whether a run with a baseline regressed (1) or "
	      "not (0).\n"
	      "# TYPE storagebench_run_regressed gauge\n"
	      "# HELP storagebench_run_change_percent Significant changes of a run against its "
	      "baseline beyond the threshold, in percent.\n"
	      "# TYPE storagebench_run_change_percent gauge\n",
	      f);
	json_array_foreach(runs, i, r)
	{
		const json_t *md = json_object_get(r, "metadata");
		if (jstr(json_object_get(md, "labels"), SB_LABEL_SCHEDULE) || !succeeded(r))
			continue;
		const char *ns = jstr(md, "namespace") ? jstr(md, "namespace") : "";
		const char *name = jstr(md, "name") ? jstr(md, "name") : "";
		write_results(f, "run", ns, name, r);
		write_verdict(f, "run", ns, name, r, get_cm, arg);
	}
	free(g);
	return 0;
}

static json_t *cache_cm(void *arg, const char *ns, const char *name)
{
	struct br_controller *c = arg;
	for (size_t i = 0; i < c->nwatches; i++)
		if (!c->watches[i].ns || !strcmp(c->watches[i].ns, ns))
			return kube_informer_get(c->watches[i].cms, ns, name);
	return NULL;
}

/* kube_informer_foreach callback: a successful run's metadata and status
 * (all the metrics read) appended to the array arg; other runs are left
 * out. One parsed run at a time: with a list of every run, each scrape held
 * 1,000 parsed runs at once (the controller's peak heap, heaptrack). */
static int collect_succeeded(const json_t *run, void *arg)
{
	if (!succeeded(run))
		return 0;
	json_t *slim = json_object();
	if (!slim || json_object_set(slim, "metadata", json_object_get(run, "metadata")) ||
	    json_object_set(slim, "status", json_object_get(run, "status")) ||
	    json_array_append_new(arg, slim))
		return -ENOMEM;
	return 0;
}

char *br_result_metrics_render(struct br_controller *c)
{
	json_t *all = json_array();
	if (!all)
		return NULL;
	for (size_t w = 0; w < c->nwatches; w++) {
		if (kube_informer_foreach(c->watches[w].runs, collect_succeeded, all)) {
			json_decref(all);
			return NULL;
		}
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r = f ? br_result_metrics_write(f, all, cache_cm, c) : -ENOMEM;
	json_decref(all);
	if (f && fclose(f) != 0)
		r = -ENOMEM;
	if (r) {
		free(buf);
		return NULL;
	}
	return buf;
}
