/* SPDX-License-Identifier: MIT */
/* Results as Prometheus gauges. See result_metrics.h. */
#include "controller/serve/result_metrics.h"
#include "core/jsonobj.h"

#include "controller/core/controller.h"
#include "controller/run/manifests.h"
#include "controller/run/regression.h"
#include "controller/serve/metrics.h"
#include "core/labels.h"
#include "core/names.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/*
 * The report's metrics as families in base units: name, unit suffix ("" for
 * counts and rates of operations), the label that tells them apart within
 * the family and its value, the scale to base units.
 */
static const struct figure {
	const char *metric; /* status.summary's metric */
	const char *base, *unit;
	const char *label, *value, *label2, *value2;
	double scale;
	const char *help;
} figures[] = {
	{"read-iops", "iops", "", "op", "read", NULL, NULL, 1,
	 "I/O operations (S3: requests) per second"},
	{"write-iops", "iops", "", "op", "write", NULL, NULL, 1, NULL},
	{"read-bw", "bandwidth", "bytes_per_second", "op", "read", NULL, NULL, 1, "Bandwidth"},
	{"write-bw", "bandwidth", "bytes_per_second", "op", "write", NULL, NULL, 1, NULL},
	{"read-lat-mean", "latency", "seconds", "op", "read", "statistic", "mean", 1e-9,
	 "Completion latency (mean or percentile of each iteration)"},
	{"read-lat-p50", "latency", "seconds", "op", "read", "statistic", "p50", 1e-9, NULL},
	{"read-lat-p99", "latency", "seconds", "op", "read", "statistic", "p99", 1e-9, NULL},
	{"read-lat-p99.9", "latency", "seconds", "op", "read", "statistic", "p99.9", 1e-9, NULL},
	{"write-lat-mean", "latency", "seconds", "op", "write", "statistic", "mean", 1e-9, NULL},
	{"write-lat-p50", "latency", "seconds", "op", "write", "statistic", "p50", 1e-9, NULL},
	{"write-lat-p99", "latency", "seconds", "op", "write", "statistic", "p99", 1e-9, NULL},
	{"write-lat-p99.9", "latency", "seconds", "op", "write", "statistic", "p99.9", 1e-9, NULL},
	{"sync-lat-mean", "latency", "seconds", "op", "sync", "statistic", "mean", 1e-9, NULL},
	{"sync-lat-p99", "latency", "seconds", "op", "sync", "statistic", "p99", 1e-9, NULL},
	{"ttfb-p50", "ttfb", "seconds", "statistic", "p50", NULL, NULL, 1e-9,
	 "Object store time to first byte (median of each iteration)"},
	{"errors", "failed_requests", "", NULL, NULL, NULL, NULL, 1,
	 "Object store requests that failed, per iteration"},
	{"steady", "steady_state_reached", "ratio", NULL, NULL, NULL, NULL, 0.01,
	 "Share of the iterations that reached steady state (fio's steadystate)"},
	{"steady-after", "steady_state", "seconds", NULL, NULL, NULL, NULL, 1,
	 "Time to reach steady state"},
};
#define NFIG (sizeof(figures) / sizeof(figures[0]))

/* a lifecycle timing (summary workload "lifecycle", metric the phase) */
static const struct figure lifecycle = {NULL,	 "lifecycle", "seconds",
					"phase", NULL,	      NULL,
					NULL,	 1e-9,	      "Volume and pod lifecycle timings"};

static const struct figure *figure_of(const char *workload, const char *metric)
{
	if (workload && !strcmp(workload, "lifecycle"))
		return &lifecycle;
	for (size_t i = 0; metric && i < NFIG; i++)
		if (!strcmp(figures[i].metric, metric))
			return &figures[i];
	return NULL;
}

/* ---- families: each rendered as one group (HELP, TYPE, its samples) ---- */

#define MAX_FAMILIES 48

struct family {
	char name[96];
	char help[200];
	char *buf;
	size_t len;
	FILE *f;
};

struct out {
	struct family fam[MAX_FAMILIES];
	size_t n;
	bool oom;
};

/* The stream of family name (created with help on first use), NULL on ENOMEM. */
static FILE *fam(struct out *o, const char *name, const char *help)
{
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->fam[i].name, name))
			return o->fam[i].f;
	if (o->n == MAX_FAMILIES) {
		o->oom = true;
		return NULL;
	}
	struct family *f = &o->fam[o->n];
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(f->help, sizeof(f->help), "%s", help);
	f->f = open_memstream(&f->buf, &f->len);
	if (!f->f) {
		o->oom = true;
		return NULL;
	}
	o->n++;
	return f->f;
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

static void lab(FILE *f, const char *k, const char *v)
{
	fprintf(f, ",%s=\"", k);
	lv(f, v);
	fputc('"', f);
}

/* "storagebench_<scope>_<what>{namespace="..",<scope>=".."" into the family's stream */
static FILE *head(struct out *o, const char *scope, const char *what, const char *help,
		  const char *ns, const char *name)
{
	char full[96];
	snprintf(full, sizeof(full), "storagebench_%s_%s", scope, what);
	FILE *f = fam(o, full, help);
	if (!f)
		return NULL;
	fprintf(f, "%s{namespace=\"", full);
	lv(f, ns);
	fputc('"', f);
	lab(f, scope, name);
	return f;
}

static void value(FILE *f, double v)
{
	fprintf(f, "} %.17g\n", v);
}

/* ---- one run's figures ---- */

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

static void one_figure(struct out *o, const char *scope, const char *ns, const char *name,
		       const json_t *e, const struct figure *fg, bool sd)
{
	const json_t *v = json_object_get(e, sd ? "stddev" : "mean");
	if (!json_is_number(v) || !isfinite(json_number_value(v)))
		return;
	char what[64], help[200];
	snprintf(what, sizeof(what), "%s%s%s%s", fg->base, sd ? "_stddev" : "",
		 *fg->unit ? "_" : "", fg->unit);
	const char *fh = fg->help; /* a family's help is on its first figure */
	for (size_t k = NFIG; !fh && k-- > 0;)
		if (&figures[k] == fg)
			for (size_t j = k + 1; !fh && j-- > 0;)
				fh = figures[j].help;
	snprintf(help, sizeof(help),
		 "%s: %s over the iterations (of a schedule: its newest "
		 "successful run).",
		 fh ? fh : fg->base, sd ? "sample standard deviation" : "mean");
	FILE *f = head(o, scope, what, help, ns, name);
	if (!f)
		return;
	lab(f, "class", jstr(e, "class"));
	if (fg != &lifecycle)
		lab(f, "workload", jstr(e, "workload"));
	if (fg->label)
		lab(f, fg->label, fg->value ? fg->value : jstr(e, "metric"));
	if (fg->label2)
		lab(f, fg->label2, fg->value2);
	value(f, json_number_value(v) * fg->scale);
}

static void write_results(struct out *o, const char *scope, const char *ns, const char *name,
			  const json_t *run)
{
	size_t i;
	const json_t *e;
	json_array_foreach(json_object_get(json_object_get(run, "status"), "summary"), i, e)
	{
		const struct figure *fg = figure_of(jstr(e, "workload"), jstr(e, "metric"));
		if (!fg)
			continue;
		one_figure(o, scope, ns, name, e, fg, false);
		one_figure(o, scope, ns, name, e, fg, true);
		/* the iterations of a result: once per class and workload (its first metric) */
		const json_t *prev =
			i ? json_array_get(
				    json_object_get(json_object_get(run, "status"), "summary"),
				    i - 1)
			  : NULL;
		const json_t *n = json_object_get(e, "n");
		if (fg == &lifecycle || !json_is_integer(n) ||
		    (prev && jstr(prev, "class") && jstr(e, "class") &&
		     !strcmp(jstr(prev, "class"), jstr(e, "class")) && jstr(prev, "workload") &&
		     jstr(e, "workload") && !strcmp(jstr(prev, "workload"), jstr(e, "workload"))))
			continue;
		FILE *f = head(o, scope, "iterations",
			       "Iterations behind the figures of a class and workload.", ns, name);
		if (!f)
			continue;
		lab(f, "class", jstr(e, "class"));
		lab(f, "workload", jstr(e, "workload"));
		value(f, (double)json_integer_value(n));
	}
}

static const json_t *regressed_condition(const json_t *run)
{
	size_t i;
	const json_t *c;
	json_array_foreach(json_object_get(json_object_get(run, "status"), "conditions"), i, c)
	{
		if (jstr(c, "type") && !strcmp(jstr(c, "type"), "Regressed"))
			return c;
	}
	return NULL;
}

static void write_verdict(struct out *o, const char *scope, const char *ns, const char *name,
			  const json_t *run, br_cm_lookup get_cm, void *arg)
{
	char cmname[64];
	const char *rn = jstr(json_object_get(run, "metadata"), "name");
	const json_t *rc = regressed_condition(run);
	const char *st = jstr(rc, "status");
	if (!rn || !st || sb_name_report(cmname, sizeof(cmname), rn))
		return;
	bool reg = !strcmp(st, "True");
	FILE *f = head(o, scope, "regressed",
		       "Whether the newest successful run is Regressed against its baseline (1) or "
		       "not (0).",
		       ns, name);
	if (f)
		value(f, reg ? 1 : 0);
	const json_t *an = json_object_get(json_object_get(run, "metadata"), "annotations");
	time_t since = reg ? br_time_parse(jstr(an, SB_ANNOT_REGRESSED_SINCE)) : 0;
	if (reg &&
	    (f = head(o, scope, "regressed_since_timestamp_seconds",
		      "While Regressed: the activation of the first regressed run.", ns, name)))
		value(f, (double)(since ? since : activation(run)));
	json_t *cm = get_cm(arg, ns, cmname), *v = NULL;
	if (br_regression_verdict(cm, run, &v) == 0) {
		static const char *const lists[] = {"regressions", "improvements"};
		static const char *const verdicts[] = {"regression", "improvement"};
		for (size_t l = 0; l < 2; l++) {
			size_t i;
			const json_t *e;
			json_array_foreach(json_object_get(v, lists[l]), i, e)
			{
				f = head(o, scope, "change_ratio",
					 "Changes against the baseline that are verdicts, as a "
					 "ratio "
					 "(-0.5: half).",
					 ns, name);
				if (!f)
					continue;
				lab(f, "class", jstr(e, "target"));
				lab(f, "workload", jstr(e, "workload"));
				lab(f, "metric", jstr(e, "metric"));
				lab(f, "verdict", verdicts[l]);
				value(f, json_number_value(json_object_get(e, "change_pct")) / 100);
			}
		}
	}
	json_decref(v);
	json_decref(cm);
}

/* The newest successful run of each schedule: index into runs, or -1. */
static void newest_of_schedules(const json_t *runs, long *best)
{
	size_t i, j;
	const json_t *r;
	json_array_foreach(runs, i, r)
	{
		best[i] = -1;
		const json_t *md = json_object_get(r, "metadata");
		const char *sched = jstr(json_object_get(md, "labels"), SB_LABEL_SCHEDULE);
		if (!sched || !succeeded(r))
			continue;
		/* the first run of this schedule holds the choice */
		for (j = 0; j < i; j++) {
			const json_t *q = json_array_get(runs, j);
			const json_t *qm = json_object_get(q, "metadata");
			const char *qs = jstr(json_object_get(qm, "labels"), SB_LABEL_SCHEDULE);
			if (best[j] >= 0 && qs && !strcmp(qs, sched) && jstr(qm, "namespace") &&
			    jstr(md, "namespace") &&
			    !strcmp(jstr(qm, "namespace"), jstr(md, "namespace")))
				break;
		}
		if (j == i) {
			best[i] = (long)i;
		} else if (activation(r) > activation(json_array_get(runs, (size_t)best[j]))) {
			best[j] = (long)i;
		}
	}
}

static int emit(FILE *f, struct out *o)
{
	int ret = o->oom ? -ENOMEM : 0;
	for (size_t i = 0; i < o->n; i++) {
		struct family *fm = &o->fam[i];
		if (fclose(fm->f))
			ret = -ENOMEM;
		if (!ret)
			fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n%s", fm->name, fm->help,
				fm->name, fm->buf ? fm->buf : "");
		free(fm->buf);
	}
	return ret;
}

int br_result_metrics_write(FILE *f, const json_t *runs, br_cm_lookup get_cm, void *arg)
{
	size_t n = json_array_size(runs), i;
	long *best = calloc(n ? n : 1, sizeof(*best));
	struct out *o = calloc(1, sizeof(*o));
	if (!best || !o) {
		free(best);
		free(o);
		return -ENOMEM;
	}
	newest_of_schedules(runs, best);
	const json_t *r;
	for (i = 0; i < n; i++) {
		if (best[i] < 0)
			continue; /* not the first of its schedule: the first holds the choice */
		r = json_array_get(runs, (size_t)best[i]);
		const json_t *md = json_object_get(r, "metadata");
		const char *ns = jstr(md, "namespace") ? jstr(md, "namespace") : "";
		const char *sched = jstr(json_object_get(md, "labels"), SB_LABEL_SCHEDULE);
		write_results(o, "schedule", ns, sched, r);
		FILE *s = head(o, "schedule", "last_success_timestamp_seconds",
			       "Activation of the newest successful run of a schedule.", ns, sched);
		if (s)
			value(s, (double)activation(r));
		write_verdict(o, "schedule", ns, sched, r, get_cm, arg);
	}
	json_array_foreach(runs, i, r)
	{
		const json_t *md = json_object_get(r, "metadata");
		if (jstr(json_object_get(md, "labels"), SB_LABEL_SCHEDULE) || !succeeded(r))
			continue;
		const char *ns = jstr(md, "namespace") ? jstr(md, "namespace") : "";
		const char *name = jstr(md, "name") ? jstr(md, "name") : "";
		write_results(o, "run", ns, name, r);
		write_verdict(o, "run", ns, name, r, get_cm, arg);
	}
	int ret = emit(f, o);
	free(best);
	free(o);
	return ret;
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
	/* only the leader: a waiting replica's caches hold the same results, and
	 * two replicas would export every series twice */
	if (c->metrics && !br_metrics_leading(c->metrics))
		return strdup("");
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
