/* SPDX-License-Identifier: MIT */
/*
 * I/O engines: a const table of operations, as fio's. The worker prepares
 * an sb_io_u, queues it, commits what is queued, and reaps completions.
 *
 *	queue   Q_QUEUED (will complete through reap), Q_COMPLETED (done
 *	        already: res is set), Q_BUSY (try again after a reap), or a
 *	        negative errno for a fatal engine error.
 *	commit  submits everything queued; 0 or -errno.
 *	reap    waits for at least `min` completions (0: don't wait), stores
 *	        up to `max` finished io_us in out[] with res set; returns the
 *	        count or -errno.
 *
 * Engines allocate nothing per I/O: io_us and buffers are the worker's,
 * set up before the job starts.
 */
#ifndef SB_RUNNER_ENGINE_ENGINE_H
#define SB_RUNNER_ENGINE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sb_worker;

struct sb_io_u {
	uint64_t offset;
	uint64_t t_start; /* ns: prepared */
	uint64_t t_issue; /* ns: submitted */
	void *buf;
	uint32_t len;
	int32_t res;	    /* bytes transferred, or -errno */
	uint16_t ddir;	    /* enum sb_ddir */
	uint16_t file;	    /* index in the worker's files */
	uint16_t buf_index; /* registered buffer */
	uint8_t ramp;	    /* issued during ramp_time: not measured */
	uint8_t datasync;   /* SB_SYNC: fdatasync instead of fsync */
	uint8_t verify;	    /* a read of the verify phase */
};

enum { SB_Q_QUEUED = 0, SB_Q_COMPLETED = 1, SB_Q_BUSY = 2 };

struct sb_engine_ops {
	const char *name;
	int (*init)(struct sb_worker *w);
	int (*queue)(struct sb_worker *w, struct sb_io_u *u);
	int (*commit)(struct sb_worker *w);
	int (*reap)(struct sb_worker *w, unsigned min, struct sb_io_u **out, unsigned max);
	void (*cleanup)(struct sb_worker *w);
	unsigned max_depth; /* 1 for synchronous engines */
	/*
	 * While refilling the queue, commit every this many queued I/Os
	 * rather than all of them at the end (0: at the end).
	 */
	unsigned submit_batch;
	/* Completes every I/O, trims included, without touching a file (null). */
	bool no_io;
};

extern const struct sb_engine_ops sb_engine_io_uring;
extern const struct sb_engine_ops sb_engine_psync;
extern const struct sb_engine_ops sb_engine_null;

/*
 * Whether io_uring can be used in this process (probed once: ring setup
 * and the opcodes we need). Returns true, or false with the reason in why.
 */
bool sb_io_uring_available(char *why, size_t len);

#endif
