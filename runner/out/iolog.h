/* SPDX-License-Identifier: MIT */
/*
 * fio's log files (write_bw_log, write_lat_log, write_iops_log with
 * log_avg_msec and log_offset), same names and columns as fio 3.33:
 *
 *	PREFIX_bw.N.log  PREFIX_iops.N.log  PREFIX_lat.N.log
 *	PREFIX_clat.N.log  PREFIX_slat.N.log      (N: fio's job number, from 1)
 *
 * one line per entry: "time, value, ddir, bs[, offset], prio" with time in
 * milliseconds since measuring began. Without log_avg_msec every I/O is an
 * entry (bw = bytes * 10^6 / clat in ns, i.e. KB/s of that I/O; iops = 1;
 * latencies in ns); with it, each window of that many milliseconds is one
 * entry per direction that had I/O (bw in KiB/s, IOPS, mean latency), with
 * bs and offset 0. Lines go through a stdio buffer set up front, so
 * nothing is allocated per I/O.
 */
#ifndef SB_RUNNER_OUT_IOLOG_H
#define SB_RUNNER_OUT_IOLOG_H

#include "fiojob/opts.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum { SB_LOG_BW, SB_LOG_IOPS, SB_LOG_LAT, SB_LOG_CLAT, SB_LOG_SLAT, SB_NLOGS };

struct sb_iolog_acc {
	uint64_t ios, bytes;
	double lat, clat, slat;
};

struct sb_iolog {
	FILE *f[SB_NLOGS];
	char *buf[SB_NLOGS]; /* stdio buffers; owned */
	char path[SB_NLOGS][4096];
	unsigned avg_ms;
	bool offset;
	bool slat; /* the engine submits asynchronously: slat is meaningful */
	uint64_t t0;
	uint64_t win_end; /* ns */
	struct sb_iolog_acc acc[3];
};

/*
 * Sets the directory relative log names go to (the --output file's
 * directory in local runs); NULL: the current directory. Not thread-safe:
 * call before running jobs. dir is copied.
 */
void sb_iolog_set_dir(const char *dir);

/*
 * Opens the logs o asks for, for job number `thread`. Returns a new log
 * (free with sb_iolog_close), or NULL with *err set to -errno and the
 * reason in why; *err 0 with NULL means no log was asked for.
 */
struct sb_iolog *sb_iolog_open(const struct sb_job_opts *o, unsigned thread, bool slat, int *err,
			       char *why, size_t whylen);

/* Starts the clock: times are milliseconds after t0 (ns). */
void sb_iolog_start(struct sb_iolog *l, uint64_t t0);

/* One completed I/O at tc (ns). */
void sb_iolog_add(struct sb_iolog *l, uint64_t tc, int ddir, uint32_t bs, uint64_t offset,
		  uint64_t lat_ns, uint64_t clat_ns, uint64_t slat_ns);

/*
 * Flushes what is due and closes the files. Returns 0 or -errno (a write
 * failed). Accepts NULL. The paths stay readable in l->path until freed.
 */
int sb_iolog_close(struct sb_iolog *l, uint64_t t_end);

/*
 * For pod runs: reads the log files in dir into {"files": {name: text},
 * "truncated": [names]} (a new reference; NULL on ENOMEM) and deletes
 * them. At most cap bytes in all: a file that does not fit is cut at a
 * line boundary and named in "truncated". *found says whether there were any.
 */
json_t *sb_iolog_collect(const char *dir, size_t cap, bool *found);

/* Frees l (after sb_iolog_close). Accepts NULL. */
void sb_iolog_free(struct sb_iolog *l);

#endif
