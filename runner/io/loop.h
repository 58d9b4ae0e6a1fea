/* SPDX-License-Identifier: MIT */
/*
 * One worker's life (loop.c): setup (io_us, buffers, files), fio's do_io
 * loop in the worker's thread, release; the start gate the group opens and
 * the monotonic clock the loop reads. The worker's state is in
 * runner/io/worker.h, which the engines include without depending on this
 * file.
 */
#ifndef SB_RUNNER_IO_LOOP_H
#define SB_RUNNER_IO_LOOP_H

#include "runner/io/worker.h"

#include <stdbool.h>
#include <stdint.h>

void sb_gate_init(struct sb_gate *g);
void sb_gate_open(struct sb_gate *g);
void sb_gate_wait(struct sb_gate *g);
void sb_gate_destroy(struct sb_gate *g);

/*
 * Prepares a worker: allocates io_us and buffers, resolves and opens files
 * (laying them out when the workload reads). w->res is always allocated
 * when this returns anything but -ENOMEM. On failure returns -errno with
 * the message in w->res->errmsg; *usage is set when the cause is the
 * job's configuration (exit status 2), else it is an I/O failure (1).
 */
int sb_worker_setup(struct sb_worker *w, const struct sb_job *job, unsigned clone,
		    const struct sb_worker_cfg *cfg, bool *usage);

/* Thread body: runs the job; the result is in w->res. */
void *sb_worker_main(void *arg);

/* Releases everything but w->res (the caller takes it). */
void sb_worker_release(struct sb_worker *w);

/* Monotonic nanoseconds. */
uint64_t sb_now_ns(void);

#endif
