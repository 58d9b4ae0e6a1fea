/* SPDX-License-Identifier: MIT */
#include "runner/mode/local.h"

#include "runner/mode/clients.h"
#include "runner/out/iolog.h"

#include "stats/aggregate.h"
#include "core/log.h"
#include "report/report.h"
#include "runner/out/json.h"
#include "runner/out/text.h"
#include "runner/io/run.h"
#include "runner/mode/stop.h"
#include "report/validity.h"

#include "core/labels.h"
#include "result/resultdoc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *default_label(const struct sb_joblist *jobs)
{
	const struct sb_job_opts *o = &jobs->jobs[0].o;
	if (o->directory)
		return o->directory;
	if (o->filename)
		return o->filename;
	return "local";
}

/*
 * Feeds one iteration into the aggregation: clones of a job (and jobs of
 * one name) are merged, so each workload counts once per iteration.
 */
static int aggregate_iteration(struct sb_agg *agg, struct sb_validity *val, const char *label,
			       unsigned it, const struct sb_results *res)
{
	for (size_t i = 0; i < res->n; i++) {
		bool seen = false;
		for (size_t k = 0; k < i; k++)
			if (!strcmp(res->v[k]->name, res->v[i]->name))
				seen = true;
		if (seen)
			continue;
		struct sb_job_result *m = sb_job_result_new();
		if (!m)
			return -ENOMEM;
		for (size_t k = i; k < res->n; k++)
			if (!strcmp(res->v[k]->name, res->v[i]->name) &&
			    sb_job_result_merge(m, res->v[k])) {
				sb_job_result_free(m);
				return -ENOMEM;
			}
		json_t *jj = sb_out_json_job(res, m, false);
		sb_job_result_free(m);
		if (!jj)
			return -ENOMEM;
		char err[256];
		int r = sb_agg_add(agg, label, it, jj, err, sizeof(err));
		if (!r)
			r = sb_validity_add(val, label, it, jj, err, sizeof(err));
		json_decref(jj);
		if (r) {
			sb_error("Could not aggregate a result", "workload=%s error=\"%s\"",
				 res->v[i]->name, err);
			return r;
		}
	}
	return 0;
}

/* Feeds the merged jobs of a --clients iteration into the aggregation. */
static int aggregate_doc(struct sb_agg *agg, struct sb_validity *val, const char *label,
			 unsigned it, const json_t *doc)
{
	size_t i;
	const json_t *jj;
	json_array_foreach(json_object_get(doc, SB_RK_JOBS), i, jj)
	{
		char err[256];
		int r = sb_agg_add(agg, label, it, jj, err, sizeof(err));
		if (!r)
			r = sb_validity_add(val, label, it, jj, err, sizeof(err));
		if (r) {
			sb_error("Could not aggregate a result", "workload=%s error=\"%s\"",
				 json_string_value(json_object_get(jj, SB_RK_JOBNAME)), err);
			return r;
		}
	}
	return 0;
}

/* A local run: what the iterations share. */
struct local {
	const struct sb_cli *cli;
	const struct sb_joblist *jobs;
	FILE *out;
	int status;
	bool json, plus;
	unsigned n;
	const char *label;
	struct sb_agg *agg;
	struct sb_validity *val;
	json_t *docs, *single;
	unsigned complete; /* iterations that ran to their end */
};

/* fio log files with relative names go next to the result (--output) */
static void local_log_dir(const char *output)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", output);
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	sb_iolog_set_dir(dir);
}

/* Iteration it in several processes (runner/mode/clients.h): their merged result. False: stop. */
static bool local_clients_iteration(struct local *l, unsigned it)
{
	json_t *cdoc = NULL;
	int cs = sb_clients_iteration(l->jobs, l->cli->clients, l->plus, l->cli->barrier_timeout_us,
				      &cdoc);
	bool intr = cs > SB_EXIT_INTERRUPTED_BASE;
	if (cs == SB_EXIT_USAGE || intr || (cs && l->status == 0))
		l->status = cs;
	if (!cdoc)
		l->status = l->status ? l->status : 1;
	if (!l->json && cdoc) {
		if (l->n > 1)
			fprintf(l->out, "%s=== iteration %u of %u\n", it > 1 ? "\n" : "", it, l->n);
		sb_clients_text(l->out, cdoc);
	}
	if (l->agg && cdoc && !intr && aggregate_doc(l->agg, l->val, l->label, it, cdoc))
		l->status = l->status ? l->status : 1;
	if (!intr)
		l->complete++;
	if (l->json && cdoc && l->n == 1) {
		l->single = cdoc;
		cdoc = NULL;
	} else if (l->json && cdoc) {
		if (json_array_append_new(l->docs, cdoc))
			l->status = l->status ? l->status : 1;
		cdoc = NULL;
	}
	json_decref(cdoc);
	return !(l->status == 2 || intr);
}

/* The JSON document of one iteration's results, kept for the output. */
static void local_keep_doc(struct local *l, unsigned it, const struct sb_results *res)
{
	json_t *doc = sb_out_json_doc(res, l->plus);
	if (doc && res->interrupted &&
	    json_object_set_new(doc, "interrupted", json_string(sb_stop_name(res->interrupted)))) {
		json_decref(doc);
		doc = NULL;
	}
	if (!doc) {
		/* not silently: an empty output would look like a result lost */
		fprintf(stderr,
			"storagebench-runner: iteration %u: cannot build the JSON "
			"output (a text that is not UTF-8, or out of memory)\n",
			it);
		l->status = 1;
	} else if (l->n == 1)
		l->single = doc;
	else if (json_array_append_new(l->docs, doc))
		l->status = 1;
}

/* Iteration it of the jobs in this process. False: stop. */
static bool local_jobs_iteration(struct local *l, unsigned it)
{
	struct sb_results res = SB_RESULTS_INIT;
	int r = sb_run_jobs(l->jobs, &res);
	if (r)
		l->status = 1;
	if (res.usage_error)
		l->status = 2;
	else if (res.io_error && l->status == 0)
		l->status = 1;
	if (res.interrupted) {
		/* what ran is printed, marked; it is not a result of the iteration */
		l->status = SB_EXIT_INTERRUPTED(res.interrupted);
		sb_warn("Stopped by a signal: the iteration is incomplete, not summarised",
			"signal=%s iteration=%u", sb_stop_name(res.interrupted), it);
	}
	if (!l->json) {
		if (l->n > 1)
			fprintf(l->out, "%s=== iteration %u of %u\n", it > 1 ? "\n" : "", it, l->n);
		if (res.interrupted)
			fprintf(l->out,
				"=== interrupted by %s: partial results of an incomplete "
				"iteration\n",
				sb_stop_name(res.interrupted));
		sb_out_text(l->out, &res);
	} else {
		local_keep_doc(l, it, &res);
	}
	if (l->agg && !res.interrupted && aggregate_iteration(l->agg, l->val, l->label, it, &res))
		l->status = l->status ? l->status : 1;
	if (!res.interrupted)
		l->complete++;
	bool stop = res.interrupted != 0;
	sb_results_release(&res);
	return !(l->status == 2 || stop); /* a configuration problem will not go away */
}

/* The summary report rendered to --report FILE, or after the iterations' text. */
static void local_summary(struct local *l, const json_t *report)
{
	const struct sb_cli *cli = l->cli;
	char err[256];
	const char *fmt = cli->report_format;
	const char *ext = cli->report_file ? strrchr(cli->report_file, '.') : NULL;
	if (!fmt && ext &&
	    (!strcmp(ext, ".md") || !strcmp(ext, ".csv") || !strcmp(ext, ".json") ||
	     !strcmp(ext, ".svg")))
		fmt = ext + 1;
	char *txt = sb_report_render(report, fmt ? fmt : "txt", err, sizeof(err));
	FILE *rf = NULL;
	if (!txt) {
		fprintf(stderr, "storagebench-runner: summary: %s\n", err);
		l->status = l->status ? l->status : 1;
	} else if (!cli->report_file) {
		fprintf(l->out, "\n=== summary over %u iterations\n%s", l->complete, txt);
	} else if (!(rf = fopen(cli->report_file, "w"))) {
		fprintf(stderr, "storagebench-runner: --report: cannot write '%s': %s\n",
			cli->report_file, strerror(errno));
		l->status = l->status ? l->status : 2;
	} else {
		fputs(txt, rf);
		if (fclose(rf) != 0) {
			fprintf(stderr, "storagebench-runner: --report: writing '%s' failed\n",
				cli->report_file);
			l->status = l->status ? l->status : 1;
		}
	}
	free(txt);
}

/* After the iterations: the report over them, the JSON output, the summary. */
static void local_output(struct local *l)
{
	json_t *report = NULL;
	if (l->agg && l->complete) {
		char aerr[512] = "";
		if (sb_agg_report_checked(l->agg, l->label, &report, aerr, sizeof(aerr))) {
			fprintf(stderr, "storagebench-runner: no report: %s\n", aerr);
			l->status = l->status ? l->status : 1;
		} else if (sb_validity_annotate(l->val, report)) {
			l->status = l->status ? l->status : 1;
		}
	}
	if (l->json) {
		json_t *doc = l->single;
		if (l->n > 1)
			doc = json_pack("{s:s,s:I,s:O,s:O}", "storagebench version", SB_VERSION,
					"iterations", (json_int_t)l->n, "runs", l->docs, "report",
					report ? report : json_null());
		if (!doc || json_dumpf(doc, l->out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
			l->status = l->status ? l->status : 1;
		fputc('\n', l->out);
		if (doc != l->single)
			json_decref(doc);
	}
	if (report && (!l->json || l->cli->report_file))
		local_summary(l, report);
	json_decref(report);
}

int sb_local_run(const struct sb_cli *cli, const struct sb_joblist *jobs)
{
	struct local l = {
		.cli = cli,
		.jobs = jobs,
		.out = stdout,
		.json = cli->format != SB_OUT_NORMAL,
		.plus = cli->format == SB_OUT_JSON_PLUS,
		.n = cli->iterations,
		.label = cli->label ? cli->label : default_label(jobs),
	};

	if (cli->output && !(l.out = fopen(cli->output, "w"))) {
		fprintf(stderr, "storagebench-runner: --output: cannot write '%s': %s\n",
			cli->output, strerror(errno));
		return 2;
	}
	if (cli->output && strchr(cli->output, '/'))
		local_log_dir(cli->output);
	if (l.n > 1 && (!(l.agg = sb_agg_new()) || !(l.val = sb_validity_new(NULL)) ||
			!(l.docs = json_array()))) {
		l.status = 1;
		goto out;
	}
	for (unsigned it = 1; it <= l.n; it++) {
		if (l.n > 1)
			sb_info(SB_LOG_STARTED_ITERATION, SB_LOG_ITERATION_FIELD "%u of=%u", it,
				l.n);
		if (!(cli->clients > 1 ? local_clients_iteration(&l, it)
				       : local_jobs_iteration(&l, it)))
			break;
	}
	local_output(&l);
out:
	json_decref(l.single);
	json_decref(l.docs);
	sb_agg_free(l.agg);
	sb_validity_free(l.val);
	if (l.out != stdout && fclose(l.out) != 0) {
		fprintf(stderr, "storagebench-runner: --output: writing '%s' failed\n",
			cli->output);
		l.status = l.status ? l.status : 1;
	}
	if (l.out == stdout && fflush(stdout) != 0)
		l.status = l.status ? l.status : 1;
	return l.status;
}
