/* SPDX-License-Identifier: MIT */
/*
 * A workload's fingerprint: what the I/O of a job is, independent of how
 * its options were written, so that two runs are compared only when they
 * ran the same workload (a template whose iodepth changed is "not
 * comparable", never "regressed").
 *
 * The parameters are the job's options as the runner reports them
 * ("job options", fio's JSON), normalised:
 * - spellings: readwrite -> rw, blocksize -> bs, rwmixwrite=W -> rwmixread=100-W,
 *   buffered=B -> direct=!B, iodepth_batch -> iodepth_batch_submit;
 * - values: sizes in bytes (bs=4k and bs=4096 are one; kb_base applied, then
 *   dropped), durations in microseconds (runtime=1m and runtime=60 are one),
 *   booleans as 0/1, counts as integers (iodepth=1k = 1000), rw in lower case;
 * - defaults: an option at fio's default is the same as no option (rw=read,
 *   bs=4096, iodepth=1, numjobs=1, direct=0, nrfiles=1, loops=1,
 *   rwmixread=50, time_based=0, ...);
 * - the engine is the one that ran (the runner's fallback from io_uring to
 *   psync is a different workload), else ioengine, else psync;
 * - left out: what names, places or reports the job but does not shape its
 *   I/O (name, description, filename, directory, group_reporting,
 *   percentile_list, the log options, eta, status-interval, ...).
 * Options not known here are kept as written. The fingerprint is the first
 * 16 hex digits of SHA-256 over the sorted "key=value\n" lines.
 */
#ifndef SB_LIB_STATS_FINGERPRINT_H
#define SB_LIB_STATS_FINGERPRINT_H

#include <jansson.h>
#include <stddef.h>

#define SB_FINGERPRINT_LEN 16

/*
 * The normalised parameters of a job (options: its "job options" object,
 * borrowed; NULL is no option; engine_ran NULL or "" when unknown): *params a
 * new object {key: value string}, fp the fingerprint (SB_FINGERPRINT_LEN
 * hex digits and a NUL). Returns 0, -ENOMEM, -EIO (the digest failed).
 */
int sb_workload_fingerprint(const json_t *options, const char *engine_ran, json_t **params,
			    char fp[SB_FINGERPRINT_LEN + 1]);

/*
 * What differs between two parameter objects, into buf (always terminated):
 * "iodepth 8 -> 16, rate_iops (none) -> 100". Returns buf.
 */
char *sb_params_diff(const json_t *before, const json_t *after, char *buf, size_t len);

#endif
