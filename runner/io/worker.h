/* SPDX-License-Identifier: MIT */
/*
 * A worker: one clone of one job (numjobs makes several), run in its own
 * thread. It owns its files' descriptors, io_us, buffers, engine state,
 * random generators and result; nothing is shared with other workers but
 * the start barrier. This header holds the types the engines and the loop
 * share; what runs a worker is in runner/io/loop.h.
 */
#ifndef SB_RUNNER_IO_WORKER_H
#define SB_RUNNER_IO_WORKER_H

#include "runner/engine/engine.h"
#include "fiojob/job.h"
#include "runner/io/rand.h"
#include "runner/io/result.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct sb_file {
	char path[4096];
	int fd;
	bool is_blockdev;
	bool shared;	  /* used by several clones (filename=) */
	uint64_t start;	  /* first byte of the I/O region */
	uint64_t size;	  /* bytes in the region */
	uint64_t nblocks; /* random slots in the region */
	uint64_t seq_pos[2];
	struct sb_perm perm;
	uint64_t perm_i;	 /* next index in the permutation */
	uint64_t pass;		 /* completed random passes */
	struct sb_dist *dist[3]; /* random_distribution per direction; NULL = uniform */
	uint64_t *map;		 /* fio's random map, with varying block sizes; owned */
	uint64_t mapped;	 /* slots marked in this pass */
	uint64_t served;	 /* bytes issued since the file was picked (file_service_type) */
};

struct sb_worker {
	const struct sb_job *job; /* borrowed */
	const struct sb_job_opts *o;
	unsigned clone;	  /* 0..numjobs-1, plus the client's base (sb_run_set_client) */
	unsigned clients; /* runner processes running this job (sb_worker_cfg) */

	struct sb_file *files;
	unsigned nfiles;
	unsigned next_file;

	const struct sb_engine_ops *eng;
	void *eng_data;
	unsigned depth;

	struct sb_io_u *io_us;
	struct sb_io_u **free_io_us;
	unsigned nfree;
	struct sb_io_u **pending; /* queued since the last commit */
	unsigned npending;
	struct sb_io_u **done; /* reap buffer */
	void *bufmem;
	size_t buflen; /* per io_u */

	struct sb_rand rng_off;	 /* offsets, directions, block sizes */
	struct sb_rand rng_data; /* buffer contents */
	struct sb_rand rng_rate; /* rate_process=poisson gaps */
	uint64_t seed;

	/* issue bookkeeping */
	uint64_t bytes_issued;
	uint64_t ios_issued[3];
	uint64_t rate_bytes[3];
	uint64_t rate_due[2]; /* poisson: ns after the start when the next I/O may go */
	uint64_t writes_since_sync;
	bool sync_pending;
	bool sync_pending_data;

	/* measurement */
	bool measuring;
	uint64_t t_begin;	  /* ns: the job started issuing */
	uint64_t t_measure;	  /* ns: measurement (after ramp) started */
	uint64_t t_last_complete; /* ns */
	uint64_t interval_ns;
	uint64_t next_boundary;
	uint64_t slot_ios[3], slot_bytes[3];
	uint64_t slot_clat[3], slot_lat[3]; /* ns: latency sums of the interval */
	struct sb_hist *slot_hist;	    /* [3]: the interval's clat histograms; owned */
	unsigned file_ios;		    /* I/Os on the current file (file_service_type) */
	struct sb_dist *file_dist;	    /* file_service_type zipf/pareto/normal; owned */
	bool trim_then_write; /* trimwrite: the next I/O writes the block just trimmed */
	uint64_t tw_offset;   /* ... at this offset of file tw_file */
	uint32_t tw_len;
	uint16_t tw_file;
	unsigned thread_number;	  /* fio's job number, from 1 (log names) */
	bool said_first_interval; /* the "Measured the first second" debug line */
	struct sb_ss *ss;	  /* steady-state tracking; owned, NULL when off */
	struct sb_iolog *logs;	  /* fio log files; owned, NULL when none */

	struct sb_job_result *res; /* owned until handed to the group */

	struct sb_gate *start; /* borrowed, may be NULL */
	int setup_error;       /* -errno from setup, the job does not run */
	bool verify_phase;
	uint64_t t_verify;	  /* ns: the verify read phase started */
	uint64_t verify_target;	  /* bytes to read back */
	uint64_t write_bytes_all; /* written in every phase, for the verify replay */
	uint32_t min_bs, max_bs;
	uint32_t align;	   /* random offsets are multiples of it (blockalign, else min_bs) */
	bool nomap;	   /* random offsets may repeat: norandommap, or blockalign != min_bs */
	uint64_t io_total; /* bytes to do after ramp (non-time-based) */
	uint64_t rusage_usr_us, rusage_sys_us, rusage_ctx, rusage_majf, rusage_minf;
};

/* Start gate: workers wait until the group opens it, so all start together. */
struct sb_gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool open;
};

/* What the group decided for all clones of a job. */
struct sb_worker_cfg {
	uint64_t per_file; /* from sb_files_resolve_size */
	const struct sb_engine_ops *eng;
	char engine_reason[256]; /* why this engine, when not what was asked */
	struct sb_gate *start;
	unsigned first_thread; /* thread_number of clone 0 */
	unsigned clone_base;   /* added to the clone number (sb_run_set_client) */
	unsigned clients;      /* runner processes sharing the files (sb_run_set_client) */
};

#endif
