/* SPDX-License-Identifier: MIT */
#include "runner/io/run.h"

#include "core/log.h"
#include "runner/engine/engine.h"
#include "runner/io/files.h"
#include "runner/mode/stop.h"
#include "runner/io/loop.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sb_results_push(struct sb_results *out, struct sb_job_result *r)
{
	if (out->n == out->cap) {
		size_t cap = out->cap ? out->cap * 2 : 8;
		struct sb_job_result **v = realloc(out->v, cap * sizeof(*v));
		if (!v) {
			sb_job_result_free(r);
			return -ENOMEM;
		}
		out->v = v;
		out->cap = cap;
	}
	out->v[out->n++] = r;
	return 0;
}

void sb_results_release(struct sb_results *r)
{
	for (size_t i = 0; i < r->n; i++)
		sb_job_result_free(r->v[i]);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

const struct sb_engine_ops *sb_pick_engine(const struct sb_job_opts *o, char *why, size_t len)
{
	char probe[256];
	why[0] = '\0';
	switch (o->engine) {
	case SB_ENGINE_NULL:
		return &sb_engine_null;
	case SB_ENGINE_PSYNC:
		return &sb_engine_psync;
	case SB_ENGINE_IO_URING:
	case SB_ENGINE_AUTO:
		break;
	}
	if (sb_io_uring_available(probe, sizeof(probe))) {
		if (o->ioengine_asked[0] && strcmp(o->ioengine_asked, "io_uring") != 0)
			snprintf(why, len, "%s is served by the io_uring engine",
				 o->ioengine_asked);
		return &sb_engine_io_uring;
	}
	snprintf(why, len, "fell back to psync: %s", probe);
	return &sb_engine_psync;
}

static unsigned client_index, client_count = 1;

void sb_run_set_client(unsigned index, unsigned count)
{
	client_index = index;
	client_count = count ? count : 1;
}

static int (*start_hook)(void *ctx, unsigned group);
static void *start_hook_ctx;

void sb_run_set_start_hook(int (*fn)(void *ctx, unsigned group), void *ctx)
{
	start_hook = fn;
	start_hook_ctx = ctx;
}

struct group_job {
	const struct sb_job *job;
	struct sb_worker_cfg cfg;
	struct sb_worker *workers;
	unsigned nworkers;
	int resolve_error;
	char resolve_msg[512];
};

/* A worker of job g that cannot start because its size cannot be worked out: its result. */
static int unresolved_worker(struct group_job *g, struct sb_worker *w)
{
	w->res = sb_job_result_new();
	if (w->res) {
		snprintf(w->res->name, sizeof(w->res->name), "%s", g->job->o.name);
		w->res->groupid = g->job->group;
		w->res->njobs = 1;
		w->res->job = g->job;
		snprintf(w->res->errmsg, sizeof(w->res->errmsg), "%s", g->resolve_msg);
	}
	return g->resolve_error;
}

/*
 * Sets up job i of the group (l->jobs[first + i]) and its numjobs workers,
 * before any starts, as fio lays out files first. A worker that cannot
 * start is marked in its result (and out's error flags). 0 or -ENOMEM.
 */
static int setup_job(const struct sb_joblist *l, size_t first, size_t i, struct group_job *g,
		     struct sb_gate *gate, struct sb_results *out)
{
	g->job = &l->jobs[first + i];
	g->cfg.start = gate;
	/* fio numbers every job clone of the run from 1 (log file names) */
	g->cfg.first_thread = 1;
	for (size_t k = 0; k < first + i; k++)
		g->cfg.first_thread += l->jobs[k].o.numjobs * client_count;
	g->cfg.clone_base = client_index * g->job->o.numjobs;
	g->cfg.clients = client_count;
	g->cfg.eng = sb_pick_engine(&g->job->o, g->cfg.engine_reason, sizeof(g->cfg.engine_reason));
	if (g->cfg.eng == &sb_engine_psync && g->job->o.engine != SB_ENGINE_PSYNC &&
	    g->job->o.iodepth > 1)
		sb_warn("Fell back to psync, so iodepth is 1", "job=%s reason=\"%s\"",
			g->job->o.name, g->cfg.engine_reason);
	g->resolve_error = sb_files_resolve_size(g->job, &g->cfg.per_file, g->resolve_msg,
						 sizeof(g->resolve_msg));
	g->workers = calloc(g->job->o.numjobs, sizeof(*g->workers));
	if (!g->workers)
		return -ENOMEM;
	g->nworkers = g->job->o.numjobs;
	for (unsigned c = 0; c < g->nworkers; c++) {
		struct sb_worker *w = &g->workers[c];
		bool usage = false;
		int r;
		if (g->resolve_error) {
			r = unresolved_worker(g, w);
			usage = true;
		} else {
			r = sb_worker_setup(w, g->job, c, &g->cfg, &usage);
		}
		if (!w->res)
			return -ENOMEM;
		if (r) {
			w->setup_error = r;
			w->res->error = -r;
			if (usage)
				out->usage_error = true;
			else
				out->io_error = true;
			sb_error("Job could not start", "job=%s clone=%u error=\"%s\"",
				 g->job->o.name, g->cfg.clone_base + c, w->res->errmsg);
		}
	}
	return 0;
}

/* Starts every worker that was set up (total in all) together, and waits for them. */
static int start_and_join(struct group_job *gj, size_t njobs, unsigned total, struct sb_gate *gate)
{
	unsigned started = 0;
	pthread_t *threads = calloc(total, sizeof(*threads));
	bool *running = calloc(total, sizeof(*running));
	if (!threads || !running) {
		free(threads);
		free(running);
		return -ENOMEM;
	}
	for (size_t i = 0; i < njobs; i++) {
		for (unsigned c = 0; c < gj[i].nworkers; c++, started++) {
			struct sb_worker *w = &gj[i].workers[c];
			if (w->setup_error)
				continue;
			if (pthread_create(&threads[started], NULL, sb_worker_main, w) == 0) {
				running[started] = true;
			} else {
				w->setup_error = -EAGAIN;
				w->res->error = EAGAIN;
				snprintf(w->res->errmsg, sizeof(w->res->errmsg),
					 "cannot start a thread for the job");
			}
		}
	}
	sb_gate_open(gate);
	for (unsigned t = 0; t < started; t++)
		if (running[t])
			pthread_join(threads[t], NULL);
	free(threads);
	free(running);
	return 0;
}

/* The workers' results into out: per clone, or the whole group when group_reporting. */
static int collect(bool grouped, struct group_job *gj, size_t njobs, struct sb_results *out)
{
	struct sb_job_result *merged = NULL;
	int ret = 0;
	for (size_t i = 0; i < njobs; i++) {
		for (unsigned c = 0; c < gj[i].nworkers; c++) {
			struct sb_worker *w = &gj[i].workers[c];
			sb_worker_release(w);
			if (w->res->error && !w->setup_error)
				out->io_error = true;
			if (!grouped) {
				int r = sb_results_push(out, w->res);
				w->res = NULL;
				if (r)
					ret = r;
				continue;
			}
			if (!merged) {
				merged = sb_job_result_new();
				if (!merged) {
					ret = -ENOMEM;
					continue;
				}
			}
			if (sb_job_result_merge(merged, w->res))
				ret = -ENOMEM;
			sb_job_result_free(w->res);
			w->res = NULL;
		}
	}
	if (merged && sb_results_push(out, merged))
		ret = -ENOMEM;
	return ret;
}

static int run_group(const struct sb_joblist *l, size_t first, size_t last, unsigned gidx,
		     struct sb_results *out)
{
	size_t njobs = last - first;
	struct group_job *gj = calloc(njobs, sizeof(*gj));
	struct sb_gate gate;
	unsigned total = 0;
	int ret = 0;

	if (!gj)
		return -ENOMEM;
	for (size_t i = 0; i < njobs; i++)
		total += l->jobs[first + i].o.numjobs;
	sb_gate_init(&gate);

	for (size_t i = 0; i < njobs && !ret; i++)
		ret = setup_job(l, first, i, &gj[i], &gate, out);
	/* laid out: a distributed run waits for its start time here */
	if (!ret && start_hook)
		ret = start_hook(start_hook_ctx, gidx);
	if (!ret && sb_stop_requested()) {
		/* stopped while laying out or waiting: the group does not start */
		out->interrupted = sb_stop_signal();
		goto out;
	}
	if (!ret)
		ret = start_and_join(gj, njobs, total, &gate);
	if (ret)
		goto out;
	if (sb_stop_requested())
		out->interrupted = sb_stop_signal();
	ret = collect(l->jobs[first].o.group_reporting, gj, njobs, out);
out:
	for (size_t i = 0; i < njobs; i++) {
		for (unsigned c = 0; gj[i].workers && c < gj[i].nworkers; c++) {
			sb_worker_release(&gj[i].workers[c]);
			sb_job_result_free(gj[i].workers[c].res);
		}
		free(gj[i].workers);
	}
	sb_gate_destroy(&gate);
	free(gj);
	return ret;
}

int sb_run_jobs(const struct sb_joblist *l, struct sb_results *out)
{
	size_t i = 0;
	unsigned gidx = 0;
	while (i < l->n) {
		if (sb_stop_requested()) {
			out->interrupted = sb_stop_signal();
			break;
		}
		size_t j = i + 1;
		while (j < l->n && l->jobs[j].group == l->jobs[i].group)
			j++;
		int r = run_group(l, i, j, gidx++, out);
		if (r)
			return r;
		if (out->interrupted)
			break;
		i = j;
	}
	return 0;
}
