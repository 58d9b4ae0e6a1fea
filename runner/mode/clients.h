/* SPDX-License-Identifier: MIT */
/*
 * --clients=N: N processes run the same jobs at the same time on this
 * host, as N runner pods of a distributed run do on N nodes
 * (docs/distributed.md, docs/runner.md "Several processes").
 *
 * Each client is a child process (fork): client k (0-based) numbers the
 * clones of a job with numjobs J as k*J .. k*J+J-1 (sb_run_set_client), so
 * generated file names differ per client (NAME.CLONE.FILE) and a shared
 * filename= gets fio's offset_increment per clone. Every client lays out
 * its files, then waits at a barrier (one per job group): a line "R<group>"
 * on its pipe to the parent, and the parent, once every client is ready,
 * writes 'G' to each. A client ends by writing its JSON document (the
 * runner's, with "context": {"client", "clients", "pid", "start":
 * {"actual_ns"}}) on the pipe. The parent merges the clients' jobs of
 * each workload with lib/stats/merge.c (the sum of the per-second series over
 * the seconds every client measured, latency from the added histograms),
 * as the controller merges runner pods.
 */
#ifndef SB_RUNNER_MODE_CLIENTS_H
#define SB_RUNNER_MODE_CLIENTS_H

#include "fiojob/job.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* --barrier-timeout's default: 5 minutes, as a distributed run's spec.timeouts.barrier */
#define SB_CLIENTS_BARRIER_US (300ull * 1000000)

/*
 * Runs one iteration of jobs on n clients (n >= 2). *doc is set (new
 * reference) to the merged document whenever the clients could be run:
 * the runner's JSON document with "jobs" merged per workload (one per job
 * name, storagebench.merge says over how many seconds), plus "clients":
 * {"count", "skew_ms", "failed": [...], "rows": [per client and workload:
 * client, workload, read-iops, write-iops, read-bw, write-bw, straggler],
 * "results": [each client's own document]}, and "interrupted" when a
 * signal stopped it. plus: json+ histogram bins in the clients' documents.
 *
 * barrier_us (0: SB_CLIENTS_BARRIER_US): once a client has waited this
 * long at a start barrier, each client that has not reached it fails the
 * iteration ("did not reach the start barrier of job group G of N within
 * T (R of N clients ready)"), is killed (SIGKILL: a stopped one too), and
 * the others are called off.
 *
 * Returns the iteration's exit status: 0; SB_EXIT_USAGE when a client
 * refused the jobs; SB_EXIT_INTERRUPTED(sig) when SIGTERM/SIGINT stopped
 * it (the clients are stopped too); else SB_EXIT_FAIL, with each failed
 * client named on stderr and in clients.failed. Not thread-safe: forks.
 */
int sb_clients_iteration(const struct sb_joblist *jobs, unsigned n, bool plus, uint64_t barrier_us,
			 json_t **doc);

/* The merged document as text: per workload the aggregate, then one row per client. */
void sb_clients_text(FILE *f, const json_t *doc);

#endif
