/* SPDX-License-Identifier: MIT */
/*
 * The files (or block devices) a job works on: names as fio makes them,
 * sizes (including size=N%), layout before the job, direct-I/O alignment.
 */
#ifndef SB_RUNNER_IO_FILES_H
#define SB_RUNNER_IO_FILES_H

#include "runner/io/worker.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Resolves the per-file size of a job once for all its clones: filesize,
 * size/nrfiles, N% of the free space of the directory (shared between
 * the clones that create their own files) or of an existing file or
 * device, or the size of an existing file or device. Writes 0 when every
 * file is an existing file or device whose own size is to be used.
 * Returns 0 or -errno with err set (naming the option).
 */
int sb_files_resolve_size(const struct sb_job *job, uint64_t *per_file, char *err, size_t errlen);

/*
 * Names, opens and (when the workload reads, or for verify) lays out the
 * worker's files; checks O_DIRECT support and alignment. per_file as
 * resolved above. Returns 0 or -errno, with w->res->errmsg set and *usage
 * true when the cause is the job's configuration.
 */
int sb_files_setup(struct sb_worker *w, uint64_t per_file, bool *usage);

/* fsync (end_fsync, fsync_on_close) then close; unlink when asked. */
int sb_files_close(struct sb_worker *w);

/* Smallest and largest block size the job uses. */
uint32_t sb_job_min_bs(const struct sb_job_opts *o);
uint32_t sb_job_max_bs(const struct sb_job_opts *o);

/*
 * The boundary random offsets are multiples of: blockalign of the
 * directions used (validated equal), else the smallest block size.
 */
uint32_t sb_job_align(const struct sb_job_opts *o);

/* Logical block size that O_DIRECT I/O must be aligned to, for an open fd. */
int sb_dio_alignment(int fd, bool blockdev, unsigned *align);

#endif
