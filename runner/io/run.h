/* SPDX-License-Identifier: MIT */
/*
 * Running a job list: groups one after another, the jobs of a group (and
 * their numjobs clones) at the same time, one thread each. A job that
 * cannot start or fails half way keeps its error in its result; the other
 * jobs run on and their results are kept.
 */
#ifndef SB_RUNNER_IO_RUN_H
#define SB_RUNNER_IO_RUN_H

#include "fiojob/job.h"
#include "runner/io/result.h"

#include <stdbool.h>

struct sb_results {
	struct sb_job_result **v; /* owned */
	size_t n;
	size_t cap;
	bool usage_error; /* a job's configuration was unusable (exit 2) */
	bool io_error;	  /* a job failed while running (exit 1) */
	/*
	 * The signal that stopped the run (runner/mode/stop.h), or 0. The results
	 * are then partial: the groups that ran are in v, the one that was
	 * running with what it did until the stop; later groups did not run.
	 */
	int interrupted;
};

#define SB_RESULTS_INIT \
	{               \
		0       \
	}

/*
 * Runs every group of l. Results are appended to out in job order: one per
 * clone, or one per group when its first job sets group_reporting.
 * Returns 0, or -ENOMEM (results so far stay in out).
 */
int sb_run_jobs(const struct sb_joblist *l, struct sb_results *out);

void sb_results_release(struct sb_results *r);

/*
 * A function sb_run_jobs calls for each group (numbered from 0) once its
 * workers are set up (files laid out) and before any starts: a distributed
 * run's start barrier (runner/mode/pod.c). Nonzero from it stops the run:
 * sb_run_jobs returns it. NULL removes the hook. Process-wide; not
 * thread-safe.
 */
void sb_run_set_start_hook(int (*fn)(void *ctx, unsigned group), void *ctx);

/*
 * Several processes running the same jobs (--clients, runner/mode/clients.c):
 * this process is client index (0..count-1). Clone c of a job with
 * numjobs N becomes clone index * N + c, so generated file names, random
 * seeds, offset_increment and log file numbers are those fio gives
 * count * N clones of the job. (0, 1) is the default. Process-wide.
 */
void sb_run_set_client(unsigned index, unsigned count);

/* Appends r (taking ownership). 0 or -ENOMEM (r is freed). */
int sb_results_push(struct sb_results *out, struct sb_job_result *r);

/*
 * Picks the engine for a job: what was asked, or io_uring falling back to
 * psync when io_uring is unavailable (the reason is written to why).
 */
const struct sb_engine_ops *sb_pick_engine(const struct sb_job_opts *o, char *why, size_t len);

#endif
