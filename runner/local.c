/* SPDX-License-Identifier: MIT */
#include "runner/local.h"

#include "runner/clients.h"
#include "runner/iolog.h"

#include "aggregate.h"
#include "log.h"
#include "report.h"
#include "runner/out_json.h"
#include "runner/out_text.h"
#include "runner/run.h"
#include "runner/stop.h"
#include "validity.h"

#include "labels.h"

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
	json_array_foreach(json_object_get(doc, "jobs"), i, jj)
	{
		char err[256];
		int r = sb_agg_add(agg, label, it, jj, err, sizeof(err));
		if (!r)
			r = sb_validity_add(val, label, it, jj, err, sizeof(err));
		if (r) {
			sb_error("Could not aggregate a result", "workload=%s error=\"%s\"",
				 json_string_value(json_object_get(jj, "jobname")), err);
			return r;
		}
	}
	return 0;
}

int sb_local_run(const struct sb_cli *cli, const struct sb_joblist *jobs)
{
	FILE *out = stdout;
	int status = 0;
	bool json = cli->format != SB_OUT_NORMAL, plus = cli->format == SB_OUT_JSON_PLUS;
	unsigned n = cli->iterations;
	const char *label = cli->label ? cli->label : default_label(jobs);
	struct sb_agg *agg = NULL;
	struct sb_validity *val = NULL;
	json_t *docs = NULL, *single = NULL;
	unsigned complete = 0; /* iterations that ran to their end */

	if (cli->output && !(out = fopen(cli->output, "w"))) {
		fprintf(stderr, "storagebench-runner: --output: cannot write '%s': %s\n",
			cli->output, strerror(errno));
		return 2;
	}
	if (cli->output && strchr(cli->output, '/')) {
		/* fio log files with relative names go next to the result */
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s", cli->output);
		char *slash = strrchr(dir, '/');
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
		sb_iolog_set_dir(dir);
	}
	if (n > 1 &&
	    (!(agg = sb_agg_new()) || !(val = sb_validity_new(NULL)) || !(docs = json_array()))) {
		status = 1;
		goto out;
	}
	for (unsigned it = 1; it <= n; it++) {
		struct sb_results res = SB_RESULTS_INIT;
		if (n > 1)
			sb_info("Started iteration", "iteration=%u of=%u", it, n);
		if (cli->clients > 1) {
			/* several processes (runner/clients.h): their merged result */
			json_t *cdoc = NULL;
			int cs = sb_clients_iteration(jobs, cli->clients, plus,
						      cli->barrier_timeout_us, &cdoc);
			bool intr = cs > SB_EXIT_INTERRUPTED_BASE;
			if (cs == SB_EXIT_USAGE || intr || (cs && status == 0))
				status = cs;
			if (!cdoc)
				status = status ? status : 1;
			if (!json && cdoc) {
				if (n > 1)
					fprintf(out, "%s=== iteration %u of %u\n",
						it > 1 ? "\n" : "", it, n);
				sb_clients_text(out, cdoc);
			}
			if (agg && cdoc && !intr && aggregate_doc(agg, val, label, it, cdoc))
				status = status ? status : 1;
			if (!intr)
				complete++;
			if (json && cdoc && n == 1) {
				single = cdoc;
				cdoc = NULL;
			} else if (json && cdoc) {
				if (json_array_append_new(docs, cdoc))
					status = status ? status : 1;
				cdoc = NULL;
			}
			json_decref(cdoc);
			if (status == 2 || intr)
				break;
			continue;
		}
		int r = sb_run_jobs(jobs, &res);
		if (r)
			status = 1;
		if (res.usage_error)
			status = 2;
		else if (res.io_error && status == 0)
			status = 1;
		if (res.interrupted) {
			/* what ran is printed, marked; it is not a result of the iteration */
			status = SB_EXIT_INTERRUPTED(res.interrupted);
			sb_warn("Stopped by a signal: the iteration is incomplete, not summarised",
				"signal=%s iteration=%u", sb_stop_name(res.interrupted), it);
		}
		if (!json) {
			if (n > 1)
				fprintf(out, "%s=== iteration %u of %u\n", it > 1 ? "\n" : "", it,
					n);
			if (res.interrupted)
				fprintf(out,
					"=== interrupted by %s: partial results of an incomplete "
					"iteration\n",
					sb_stop_name(res.interrupted));
			sb_out_text(out, &res);
		} else {
			json_t *doc = sb_out_json_doc(&res, plus);
			if (doc && res.interrupted &&
			    json_object_set_new(doc, "interrupted",
						json_string(sb_stop_name(res.interrupted)))) {
				json_decref(doc);
				doc = NULL;
			}
			if (!doc) {
				/* not silently: an empty output would look like a result lost */
				fprintf(stderr,
					"storagebench-runner: iteration %u: cannot build the JSON "
					"output (a text that is not UTF-8, or out of memory)\n",
					it);
				status = 1;
			} else if (n == 1)
				single = doc;
			else if (json_array_append_new(docs, doc))
				status = 1;
		}
		if (agg && !res.interrupted && aggregate_iteration(agg, val, label, it, &res))
			status = status ? status : 1;
		if (!res.interrupted)
			complete++;
		bool stop = res.interrupted != 0;
		sb_results_release(&res);
		if (status == 2 || stop)
			break; /* a configuration problem will not go away */
	}

	json_t *report = NULL;
	if (agg && complete) {
		char aerr[512] = "";
		if (sb_agg_report_checked(agg, label, &report, aerr, sizeof(aerr))) {
			fprintf(stderr, "storagebench-runner: no report: %s\n", aerr);
			status = status ? status : 1;
		} else if (sb_validity_annotate(val, report)) {
			status = status ? status : 1;
		}
	}
	if (json) {
		json_t *doc = single;
		if (n > 1)
			doc = json_pack("{s:s,s:I,s:O,s:O}", "storagebench version", SB_VERSION,
					"iterations", (json_int_t)n, "runs", docs, "report",
					report ? report : json_null());
		if (!doc || json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
			status = status ? status : 1;
		fputc('\n', out);
		if (doc != single)
			json_decref(doc);
	}
	if (report && (!json || cli->report_file)) {
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
			status = status ? status : 1;
		} else if (!cli->report_file) {
			fprintf(out, "\n=== summary over %u iterations\n%s", complete, txt);
		} else if (!(rf = fopen(cli->report_file, "w"))) {
			fprintf(stderr, "storagebench-runner: --report: cannot write '%s': %s\n",
				cli->report_file, strerror(errno));
			status = status ? status : 2;
		} else {
			fputs(txt, rf);
			if (fclose(rf) != 0) {
				fprintf(stderr,
					"storagebench-runner: --report: writing '%s' failed\n",
					cli->report_file);
				status = status ? status : 1;
			}
		}
		free(txt);
	}
	json_decref(report);
out:
	json_decref(single);
	json_decref(docs);
	sb_agg_free(agg);
	sb_validity_free(val);
	if (out != stdout && fclose(out) != 0) {
		fprintf(stderr, "storagebench-runner: --output: writing '%s' failed\n",
			cli->output);
		status = status ? status : 1;
	}
	if (out == stdout && fflush(stdout) != 0)
		status = status ? status : 1;
	return status;
}
