/* SPDX-License-Identifier: MIT */
/*
 * Trim (rw=trim, randtrim, trimwrite), kept apart from the engines' submit
 * and reap loops: a discard (BLKDISCARD) on block devices, a punched hole
 * (fallocate PUNCH_HOLE | KEEP_SIZE) on files, done synchronously in the
 * job's thread, as fio's synchronous engines do.
 */
#ifndef SB_RUNNER_IO_TRIM_H
#define SB_RUNNER_IO_TRIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Whether fd can be trimmed, without changing any data: for a block device
 * its queue's discard_max_bytes, for a file a hole punched past its end.
 * Returns 0, or -EOPNOTSUPP (or another -errno) with the reason in why.
 */
int sb_trim_probe(int fd, bool blockdev, char *why, size_t whylen);

/* Trims len bytes at off. Returns len, or -errno. */
int64_t sb_trim(int fd, bool blockdev, uint64_t off, uint64_t len);

#endif
