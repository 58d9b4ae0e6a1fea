/* SPDX-License-Identifier: MIT */
#include "fiojob/opts.h"
#include "fiojob/patfile.h"

#include "core/units.h"
#include "core/errfmt.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum opt_type {
	T_NAME,	    /* char[SB_NAME_MAX] */
	T_DESC,	    /* char[256] */
	T_STRDUP,   /* char *, owned */
	T_SIZE,	    /* uint64_t bytes */
	T_SIZE_PCT, /* size or N% */
	T_BS,	    /* bs or "r,w" */
	T_BSSPLIT,
	T_UINT,	 /* unsigned within [min, max] */
	T_BOOL,	 /* bool; a bare flag means 1 */
	T_NBOOL, /* bool stored negated (buffered=1 -> direct=0) */
	T_TIME_S,
	T_TIME_US,
	T_RW,
	T_ENGINE,
	T_VERIFY,
	T_PCTLIST,
	T_RATE,
	T_RATE_IOPS,
	T_KBBASE,
	T_RWMIXWRITE,
	T_RANDSEED,
	T_FALLOCATE,
	T_FILE_SERVICE,
	T_RANDOM_DIST,
	T_RANDGEN,
	T_BSRANGE,
	T_BLOCKALIGN,
	T_RATE_PROCESS,
	T_PATTERN,
	T_SS,
	T_LOGNAME,
	T_OFFSET,
	T_NOOP,
	T_REFUSED,
};

struct opt_def {
	const char *name;
	const char *alias;
	enum opt_type type;
	size_t off;
	unsigned min, max;
	const char *help;
};

#define O(f) offsetof(struct sb_job_opts, f)

/* clang-format off */
static const struct opt_def opt_defs[] = {
	{ "name", NULL, T_NAME, O(name), 0, 0, "job name; starts a new job on the command line" },
	{ "description", NULL, T_DESC, O(description), 0, 0, "free text describing the job" },
	{ "filename", NULL, T_STRDUP, O(filename), 0, 0, "file or block device to use; several separated by ':'" },
	{ "directory", NULL, T_STRDUP, O(directory), 0, 0, "directory for the job's files (named NAME.JOB.FILE)" },
	{ "size", NULL, T_SIZE_PCT, O(size), 0, 0, "total bytes of I/O per job, or N% of the free space (directories) or of the device" },
	{ "filesize", NULL, T_SIZE, O(filesize), 0, 0, "size of each file (default size/nrfiles)" },
	{ "io_size", "io_limit", T_SIZE, O(io_size), 0, 0, "bytes of I/O to do, if different from size" },
	{ "nrfiles", "nr_files", T_UINT, O(nrfiles), 1, 1u << 20, "files per job" },
	{ "offset", NULL, T_OFFSET, O(offset), 0, 0, "start offset in each file, or N% of each file's size (aligned down to the block size)" },
	{ "offset_increment", NULL, T_SIZE, O(offset_increment), 0, 0, "added to offset for each clone of numjobs" },
	{ "rw", "readwrite", T_RW, O(rw), 0, 0, "read, write, randread, randwrite, rw/readwrite, randrw, trim, randtrim, trimwrite (trim: discard on block devices, punch-hole on files)" },
	{ "rwmixread", NULL, T_UINT, O(rwmixread), 0, 100, "percentage of reads in a mixed workload" },
	{ "rwmixwrite", NULL, T_RWMIXWRITE, O(rwmixread), 0, 100, "percentage of writes in a mixed workload" },
	{ "bs", "blocksize", T_BS, O(bs), 0, 0, "block size; \"r,w,t\" per direction (fio reads 4k-16k as 4k reads, 16k writes: use bsrange for ranges)" },
	{ "bsrange", "blocksize_range", T_BSRANGE, O(bs), 0, 0, "block sizes MIN-MAX (\"r,w,t\" per direction): uniform multiples of MIN" },
	{ "blockalign", "ba", T_BLOCKALIGN, O(blockalign), 0, 0, "boundary random offsets are aligned to (default: the smallest bs); \"r,w,t\" per direction, all equal; turns off the random map as in fio" },
	{ "bssplit", NULL, T_BSSPLIT, O(bssplit), 0, 0, "weighted block sizes: bs/percent:bs/percent[,writes[,trims]]" },
	{ "iodepth", NULL, T_UINT, O(iodepth), 1, 65536, "I/Os in flight per job" },
	{ "iodepth_batch_submit", "iodepth_batch", T_UINT, O(iodepth_batch_submit), 0, 65536, "I/Os submitted together while refilling the queue (io_uring): 1, the default as in fio, submits each as soon as it is prepared; 0 means 1" },
	{ "numjobs", NULL, T_UINT, O(numjobs), 1, 4096, "clones of this job, each in its own thread" },
	{ "direct", NULL, T_BOOL, O(direct), 0, 0, "O_DIRECT: bypass the page cache" },
	{ "buffered", NULL, T_NBOOL, O(direct), 0, 0, "opposite of direct" },
	{ "ioengine", NULL, T_ENGINE, O(engine), 0, 0, "io_uring (libaio, posixaio map to it), psync (sync, pvsync, pvsync2), null" },
	{ "fsync", NULL, T_UINT, O(fsync), 0, ~0u, "fsync after every N writes issued" },
	{ "fdatasync", NULL, T_UINT, O(fdatasync), 0, ~0u, "fdatasync after every N writes issued" },
	{ "end_fsync", NULL, T_BOOL, O(end_fsync), 0, 0, "fsync the files when the job ends" },
	{ "fsync_on_close", NULL, T_BOOL, O(fsync_on_close), 0, 0, "fsync each file before closing it" },
	{ "sync", NULL, T_BOOL, O(sync_io), 0, 0, "open files with O_SYNC (sync=1 or sync=sync only)" },
	{ "runtime", "timeout", T_TIME_S, O(runtime_us), 0, 0, "run for at most this long (seconds unless a unit is given)" },
	{ "ramp_time", NULL, T_TIME_S, O(ramp_us), 0, 0, "run this long before measuring; its I/O is excluded" },
	{ "startdelay", NULL, T_TIME_S, O(startdelay_us), 0, 0, "wait this long before starting the job" },
	{ "thinktime", NULL, T_TIME_US, O(thinktime_us), 0, 0, "pause between I/Os (microseconds unless a unit is given)" },
	{ "thinktime_blocks", NULL, T_UINT, O(thinktime_blocks), 1, ~0u, "I/Os issued between thinktime pauses" },
	{ "time_based", NULL, T_BOOL, O(time_based), 0, 0, "run for runtime even when size is done (wrap around)" },
	{ "loops", NULL, T_UINT, O(loops), 1, ~0u, "repeat the job this many times" },
	{ "group_reporting", NULL, T_BOOL, O(group_reporting), 0, 0, "report the jobs of a group together" },
	{ "stonewall", "wait_for_previous", T_BOOL, O(stonewall), 0, 0, "wait for the preceding jobs to finish; starts a new group" },
	{ "new_group", NULL, T_BOOL, O(new_group), 0, 0, "start a new reporting group" },
	{ "randrepeat", NULL, T_BOOL, O(randrepeat), 0, 0, "same random sequence every run (seeded predictably)" },
	{ "allrandrepeat", NULL, T_BOOL, O(randrepeat), 0, 0, "as randrepeat (all our randomness uses one seed)" },
	{ "randseed", NULL, T_RANDSEED, O(randseed), 0, 0, "seed of the random generators" },
	{ "norandommap", NULL, T_BOOL, O(norandommap), 0, 0, "random offsets may repeat within a pass" },
	{ "softrandommap", NULL, T_NOOP, 0, 0, 0, "our random map never fails, so there is nothing to soften" },
	{ "random_distribution", NULL, T_RANDOM_DIST, O(dist), 0, 0, "random, zipf:theta, pareto:h, normal:dev (each [:center]), zoned:P/R:..., zoned_abs:P/SIZE:...; \"r,w,t\" per direction" },
	{ "random_generator", NULL, T_RANDGEN, O(randgen), 0, 0, "tausworthe, tausworthe64, lfsr (lfsr: offsets never repeat within a pass, even with norandommap)" },
	{ "percentile_list", NULL, T_PCTLIST, O(percentiles), 0, 0, "latency percentiles to report, ':'-separated" },
	{ "clat_percentiles", NULL, T_BOOL, O(clat_percentiles), 0, 0, "report completion-latency percentiles (default on)" },
	{ "lat_percentiles", NULL, T_BOOL, O(lat_percentiles), 0, 0, "also report total-latency percentiles" },
	{ "refill_buffers", NULL, T_BOOL, O(refill_buffers), 0, 0, "new random data for every write" },
	{ "scramble_buffers", NULL, T_NOOP, 0, 0, 0, "buffers are always random (or refilled); nothing to scramble" },
	{ "zero_buffers", NULL, T_BOOL, O(zero_buffers), 0, 0, "write zeros" },
	{ "buffer_compress_percentage", NULL, T_UINT, O(buffer_compress_percentage), 0, 100, "make buffers this compressible (zero-filled share)" },
	{ "buffer_pattern", NULL, T_PATTERN, O(buffer_pattern), 0, 0, "fill write buffers with this pattern: 0xHEX, decimal, \"string\", 'file', combined" },
	{ "verify_pattern", NULL, T_PATTERN, O(verify_pattern), 0, 0, "write this pattern and check it on read-back (verify=pattern unless another verify is set)" },
	{ "verify", NULL, T_VERIFY, O(verify), 0, 0, "0, crc32c, md5, sha256, pattern: checksum (or pattern) each written block and read it back" },
	{ "do_verify", NULL, T_BOOL, O(do_verify), 0, 0, "run the verify read phase after writing (default 1)" },
	{ "verify_only", NULL, T_BOOL, O(verify_only), 0, 0, "do not write: only read back and check what an earlier run wrote" },
	{ "gtod_reduce", NULL, T_BOOL, O(gtod_reduce), 0, 0, "measure only IOPS and bandwidth, no per-I/O latency" },
	{ "invalidate", NULL, T_BOOL, O(invalidate), 0, 0, "drop the files' page cache before the job (default 1)" },
	{ "kb_base", NULL, T_KBBASE, O(kb_base), 0, 0, "1024 (default) or 1000: meaning of k, m, g in sizes" },
	{ "unified_rw_reporting", NULL, T_BOOL, O(unified_rw_reporting), 0, 0, "report reads and writes together as 'mixed'" },
	{ "rate", NULL, T_RATE, O(rate_bps), 0, 0, "bandwidth cap in bytes/s, \"r,w\" per direction" },
	{ "rate_iops", NULL, T_RATE_IOPS, O(rate_iops), 0, 0, "IOPS cap, \"r,w\" per direction" },
	{ "rate_process", NULL, T_RATE_PROCESS, O(rate_poisson), 0, 0, "linear (default): I/Os evenly spaced at rate/rate_iops; poisson: exponentially distributed gaps of the same mean (seeded by randseed)" },
	{ "unlink", NULL, T_BOOL, O(unlink), 0, 0, "delete the job's files when it ends" },
	{ "overwrite", NULL, T_BOOL, O(overwrite), 0, 0, "lay out files with data before write jobs too" },
	{ "fallocate", NULL, T_FALLOCATE, O(fallocate), 0, 0, "none, native, posix, keep: preallocate files of write jobs" },
	{ "readonly", NULL, T_BOOL, O(readonly), 0, 0, "refuse to start jobs that write" },
	{ "file_service_type", NULL, T_FILE_SERVICE, O(fst), 0, 0, "roundrobin, sequential, random (each [:N] I/Os per switch), zipf, pareto, normal/gauss [:param]" },
	{ "steadystate", "ss", T_SS, O(ss_state), 0, 0, "stop when steady: iops, iops_slope, bw, bw_slope with a limit (N or N%)" },
	{ "ss_dur", "steadystate_duration", T_TIME_S, O(ss_dur_us), 0, 0, "the rolling window judged for steady state" },
	{ "ss_ramp", "steadystate_ramp_time", T_TIME_S, O(ss_ramp_us), 0, 0, "time before steady-state samples are collected" },
	{ "write_bw_log", NULL, T_LOGNAME, O(bw_log), 0, 0, "write fio's bandwidth log NAME_bw.N.log" },
	{ "write_lat_log", NULL, T_LOGNAME, O(lat_log), 0, 0, "write fio's latency logs NAME_lat/_clat/_slat.N.log" },
	{ "write_iops_log", NULL, T_LOGNAME, O(iops_log), 0, 0, "write fio's IOPS log NAME_iops.N.log" },
	{ "log_avg_msec", NULL, T_UINT, O(log_avg_msec), 0, 86400000, "average log entries over this many milliseconds (0: one per I/O)" },
	{ "log_offset", NULL, T_BOOL, O(log_offset), 0, 0, "add each I/O's offset to the log entries" },
	{ "log_prio", NULL, T_NOOP, 0, 0, 0, "I/O priorities are never changed: the logs' priority column is always 0" },
	/* accepted, no effect on what is measured */
	{ "thread", "threads", T_NOOP, 0, 0, 0, "jobs are always threads here" },
	{ "iodepth_batch_complete_min", "iodepth_batch_complete", T_NOOP, 0, 0, 0, "we reap whatever has completed" },
	{ "iodepth_batch_complete_max", NULL, T_NOOP, 0, 0, 0, "we reap whatever has completed" },
	{ "iodepth_low", NULL, T_NOOP, 0, 0, 0, "the queue is refilled as soon as an I/O completes" },
	{ "disk_util", NULL, T_NOOP, 0, 0, 0, "disk utilisation statistics are not collected" },
	{ "clocksource", NULL, T_NOOP, 0, 0, 0, "we always use clock_gettime(CLOCK_MONOTONIC)" },
	{ "gtod_cpu", NULL, T_NOOP, 0, 0, 0, "no timekeeping thread is used" },
	{ "fixedbufs", NULL, T_NOOP, 0, 0, 0, "io_uring buffers are always registered" },
	{ "registerfiles", NULL, T_NOOP, 0, 0, 0, "io_uring files are always registered" },
	{ "userspace_reap", NULL, T_NOOP, 0, 0, 0, "libaio detail; completions are reaped from the ring" },
	{ "iomem", "mem", T_NOOP, 0, 0, 0, "buffers are always page-aligned anonymous memory" },
	{ "iomem_align", "mem_align", T_NOOP, 0, 0, 0, "buffers are always page-aligned" },
	{ "openfiles", NULL, T_NOOP, 0, 0, 0, "all files of a job stay open" },
	{ "allow_file_create", NULL, T_NOOP, 0, 0, 0, "files are always created when missing" },
	{ "unique_filename", NULL, T_NOOP, 0, 0, 0, "file names never include a host name" },
	{ "eta", NULL, T_NOOP, 0, 0, 0, "no progress line is printed" },
	{ "eta_newline", NULL, T_NOOP, 0, 0, 0, "no progress line is printed" },
	{ "per_job_logs", NULL, T_NOOP, 0, 0, 0, "no log files are written" },
	{ "significant_figures", NULL, T_NOOP, 0, 0, 0, "output precision is fixed" },
	{ "exitall_on_error", NULL, T_NOOP, 0, 0, 0, "a failed job never stops the others; its error is reported" },
	{ "io_submit_mode", NULL, T_NOOP, 0, 0, 0, "I/O is always submitted inline" },
	/* known, refused, with the reason */
	{ "minimal", NULL, T_REFUSED, 0, 0, 0, "terse output is not implemented; use --output-format=json" },
	{ "write_hist_log", NULL, T_REFUSED, 0, 0, 0, "log files are not written; json+ output holds the latency histogram" },
	{ "bwavgtime", NULL, T_REFUSED, 0, 0, 0, "bandwidth samples are always per second" },
	{ "iopsavgtime", NULL, T_REFUSED, 0, 0, 0, "IOPS samples are always per second" },
	{ "status-interval", NULL, T_REFUSED, 0, 0, 0, "periodic status output is not implemented" },
	{ "exitall", NULL, T_REFUSED, 0, 0, 0, "stopping all jobs when one ends would change what is measured" },
	{ "wait_for", NULL, T_REFUSED, 0, 0, 0, "job dependencies by name are not implemented; use stonewall" },
	{ "flow", NULL, T_REFUSED, 0, 0, 0, "flow control between jobs is not implemented" },
	{ "continue_on_error", NULL, T_REFUSED, 0, 0, 0, "errors are always counted and the job stops; the others go on" },
	{ "ignore_error", NULL, T_REFUSED, 0, 0, 0, "errors are never ignored" },
	{ "cpus_allowed", "cpumask", T_REFUSED, 0, 0, 0, "CPU pinning is not implemented" },
	{ "cpus_allowed_policy", NULL, T_REFUSED, 0, 0, 0, "CPU pinning is not implemented" },
	{ "numa_cpu_nodes", NULL, T_REFUSED, 0, 0, 0, "NUMA placement is not implemented" },
	{ "numa_mem_policy", NULL, T_REFUSED, 0, 0, 0, "NUMA placement is not implemented" },
	{ "nice", NULL, T_REFUSED, 0, 0, 0, "scheduling priority is not changed" },
	{ "prio", NULL, T_REFUSED, 0, 0, 0, "I/O priority is not changed" },
	{ "prioclass", NULL, T_REFUSED, 0, 0, 0, "I/O priority is not changed" },
	{ "cmdprio_percentage", NULL, T_REFUSED, 0, 0, 0, "I/O priority is not changed" },
	{ "ioscheduler", NULL, T_REFUSED, 0, 0, 0, "the device's scheduler is never changed" },
	{ "hipri", NULL, T_REFUSED, 0, 0, 0, "polled I/O is not implemented" },
	{ "sqthread_poll", NULL, T_REFUSED, 0, 0, 0, "SQ polling is not implemented" },
	{ "sqthread_poll_cpu", NULL, T_REFUSED, 0, 0, 0, "SQ polling is not implemented" },
	{ "nonvectored", NULL, T_REFUSED, 0, 0, 0, "we always use fixed-buffer reads and writes" },
	{ "uncached", NULL, T_REFUSED, 0, 0, 0, "RWF_UNCACHED is not implemented" },
	{ "nowait", NULL, T_REFUSED, 0, 0, 0, "RWF_NOWAIT is not implemented" },
	{ "force_async", NULL, T_REFUSED, 0, 0, 0, "IOSQE_ASYNC is not implemented" },
	{ "atomic", NULL, T_REFUSED, 0, 0, 0, "atomic writes are not implemented" },
	{ "zonemode", NULL, T_REFUSED, 0, 0, 0, "zoned block devices are not supported" },
	{ "zonesize", NULL, T_REFUSED, 0, 0, 0, "zoned workloads are not supported" },
	{ "zonerange", NULL, T_REFUSED, 0, 0, 0, "zoned workloads are not supported" },
	{ "zoneskip", NULL, T_REFUSED, 0, 0, 0, "zoned workloads are not supported" },
	{ "bs_unaligned", "blocksize_unaligned", T_REFUSED, 0, 0, 0, "unaligned block sizes are not implemented" },
	{ "bs_is_seq_rand", NULL, T_REFUSED, 0, 0, 0, "not implemented" },
	{ "rw_sequencer", NULL, T_REFUSED, 0, 0, 0, "not implemented" },
	{ "percentage_random", NULL, T_REFUSED, 0, 0, 0, "mixing sequential and random I/O is not implemented" },
	{ "file_append", NULL, T_REFUSED, 0, 0, 0, "appending is not implemented" },
	{ "filename_format", NULL, T_REFUSED, 0, 0, 0, "file names are always NAME.JOB.FILE" },
	{ "lockfile", NULL, T_REFUSED, 0, 0, 0, "file locking is not implemented" },
	{ "create_serialize", NULL, T_REFUSED, 0, 0, 0, "files are laid out one after another anyway" },
	{ "create_on_open", NULL, T_REFUSED, 0, 0, 0, "files are always created before the job starts" },
	{ "create_only", NULL, T_REFUSED, 0, 0, 0, "not implemented" },
	{ "pre_read", NULL, T_REFUSED, 0, 0, 0, "pre-reading into the page cache is not implemented" },
	{ "fadvise_hint", NULL, T_REFUSED, 0, 0, 0, "access-pattern hints are not given" },
	{ "unit_base", NULL, T_REFUSED, 0, 0, 0, "output is always in bytes" },
	{ "max_latency", NULL, T_REFUSED, 0, 0, 0, "latency targets are not implemented" },
	{ "latency_target", NULL, T_REFUSED, 0, 0, 0, "latency targets are not implemented" },
	{ "latency_window", NULL, T_REFUSED, 0, 0, 0, "latency targets are not implemented" },
	{ "latency_percentile", NULL, T_REFUSED, 0, 0, 0, "latency targets are not implemented" },
	{ "rate_min", NULL, T_REFUSED, 0, 0, 0, "minimum rates are not enforced" },
	{ "rate_iops_min", NULL, T_REFUSED, 0, 0, 0, "minimum rates are not enforced" },
	{ "rate_cycle", NULL, T_REFUSED, 0, 0, 0, "minimum rates are not enforced" },
	{ "rate_ignore_thinktime", NULL, T_REFUSED, 0, 0, 0, "not implemented" },
	{ "thinktime_spin", NULL, T_REFUSED, 0, 0, 0, "thinktime always sleeps" },
	{ "thinktime_iotime", NULL, T_REFUSED, 0, 0, 0, "not implemented" },
	{ "disable_lat", NULL, T_REFUSED, 0, 0, 0, "use gtod_reduce to measure without latency" },
	{ "disable_clat", NULL, T_REFUSED, 0, 0, 0, "use gtod_reduce to measure without latency" },
	{ "disable_slat", NULL, T_REFUSED, 0, 0, 0, "use gtod_reduce to measure without latency" },
	{ "disable_bw_measurement", "disable_bw", T_REFUSED, 0, 0, 0, "bandwidth is always measured" },
	{ "slat_percentiles", NULL, T_REFUSED, 0, 0, 0, "submission-latency percentiles are not reported" },
	{ "stats", NULL, T_REFUSED, 0, 0, 0, "statistics are always collected" },
	{ "verify_interval", NULL, T_REFUSED, 0, 0, 0, "verify checks each block as a whole" },
	{ "verify_offset", NULL, T_REFUSED, 0, 0, 0, "the verify header is always at the start of the block" },
	{ "verify_backlog", NULL, T_REFUSED, 0, 0, 0, "verification always runs after the write phase" },
	{ "verify_async", NULL, T_REFUSED, 0, 0, 0, "verification runs in the job's thread" },
	{ "verify_fatal", NULL, T_REFUSED, 0, 0, 0, "mismatches are counted and reported, never fatal" },
	{ "verify_dump", NULL, T_REFUSED, 0, 0, 0, "mismatching blocks are reported by offset, not dumped" },
	{ "verify_state_save", NULL, T_REFUSED, 0, 0, 0, "not implemented" },
	{ "verify_state_load", NULL, T_REFUSED, 0, 0, 0, "not implemented" },
	{ "experimental_verify", NULL, T_REFUSED, 0, 0, 0, "not implemented" },
	{ "trim_percentage", NULL, T_REFUSED, 0, 0, 0, "trim verification is not implemented" },
	{ "trim_verify_zero", NULL, T_REFUSED, 0, 0, 0, "trim verification is not implemented" },
	{ "trim_backlog", NULL, T_REFUSED, 0, 0, 0, "trim verification is not implemented" },
	{ "buffer_compress_chunk", NULL, T_REFUSED, 0, 0, 0, "compressible data is laid out per block" },
	{ "dedupe_percentage", NULL, T_REFUSED, 0, 0, 0, "dedupable data is not implemented" },
	{ "cpuload", NULL, T_REFUSED, 0, 0, 0, "the cpuio engine is not implemented" },
	{ "cpuchunks", NULL, T_REFUSED, 0, 0, 0, "the cpuio engine is not implemented" },
	{ "uid", NULL, T_REFUSED, 0, 0, 0, "jobs run as the runner's user" },
	{ "gid", NULL, T_REFUSED, 0, 0, 0, "jobs run as the runner's user" },
	{ "exec_prerun", NULL, T_REFUSED, 0, 0, 0, "running commands is not implemented" },
	{ "exec_postrun", NULL, T_REFUSED, 0, 0, 0, "running commands is not implemented" },
	{ "hugepage-size", NULL, T_REFUSED, 0, 0, 0, "huge pages are not used" },
	{ "lat_log", NULL, T_REFUSED, 0, 0, 0, "log files are not written" },
	{ "include", NULL, T_REFUSED, 0, 0, 0, "job-file includes are not implemented" },
};
/* clang-format on */

#define NOPTS (sizeof(opt_defs) / sizeof(opt_defs[0]))

static const struct {
	const char *name;
	enum sb_rw rw;
} rw_names[] = {
	{"read", SB_RW_READ},		{"write", SB_RW_WRITE}, {"randread", SB_RW_RANDREAD},
	{"randwrite", SB_RW_RANDWRITE}, {"rw", SB_RW_RW},	{"readwrite", SB_RW_RW},
	{"randrw", SB_RW_RANDRW},	{"trim", SB_RW_TRIM},	{"randtrim", SB_RW_RANDTRIM},
	{"trimwrite", SB_RW_TRIMWRITE},
};

/* fio's engines: ours, the ones mapped onto ours, and the ones refused. */
static const struct {
	const char *name;
	enum sb_engine engine;
	const char *refused; /* non-NULL: why we cannot honour it */
} engine_names[] = {
	{"io_uring", SB_ENGINE_IO_URING, NULL},
	{"libaio", SB_ENGINE_IO_URING, NULL},
	{"posixaio", SB_ENGINE_IO_URING, NULL},
	{"psync", SB_ENGINE_PSYNC, NULL},
	{"sync", SB_ENGINE_PSYNC, NULL},
	{"pvsync", SB_ENGINE_PSYNC, NULL},
	{"pvsync2", SB_ENGINE_PSYNC, NULL},
	{"vsync", SB_ENGINE_PSYNC, NULL},
	{"null", SB_ENGINE_NULL, NULL},
	{"mmap", 0, "memory-mapped I/O measures the page cache, not the storage path we model"},
	{"splice", 0, "splice I/O is not implemented"},
	{"sg", 0, "SCSI generic passthrough is not implemented"},
	{"io_uring_cmd", 0, "NVMe passthrough is not implemented"},
	{"net", 0, "network engines do not measure storage"},
	{"netsplice", 0, "network engines do not measure storage"},
	{"rdma", 0, "RDMA is not implemented"},
	{"http", 0, "HTTP/S3 is not implemented"},
	{"libhdfs", 0, "HDFS is not implemented"},
	{"rbd", 0, "Ceph RBD is not implemented; benchmark an RBD storage class instead"},
	{"rados", 0, "Ceph RADOS is not implemented"},
	{"nfs", 0, "libnfs is not implemented; benchmark an NFS storage class instead"},
	{"gfapi", 0, "GlusterFS API is not implemented"},
	{"libiscsi", 0, "libiscsi is not implemented"},
	{"nbd", 0, "NBD is not implemented"},
	{"dev-dax", 0, "DAX is not implemented"},
	{"libpmem", 0, "PMEM is not implemented"},
	{"windowsaio", 0, "Windows engines do not exist on Linux"},
	{"solarisaio", 0, "Solaris engines do not exist on Linux"},
	{"cpuio", 0, "the cpuio engine does no I/O"},
	{"e4defrag", 0, "not implemented"},
	{"falloc", 0, "not implemented"},
	{"filecreate", 0, "not implemented"},
	{"filestat", 0, "not implemented"},
	{"filedelete", 0, "not implemented"},
	{"dircreate", 0, "not implemented"},
	{"exec", 0, "not implemented"},
	{"xnvme", 0, "not implemented"},
	{"libblkio", 0, "not implemented"},
	{"external", 0, "external engines cannot be loaded"},
};

static const double default_percentiles[] = {1.0,  5.0,	 10.0, 20.0, 30.0, 40.0, 50.0,	60.0, 70.0,
					     80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99};

void sb_job_opts_init(struct sb_job_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->nrfiles = 1;
	o->rw = SB_RW_READ;
	o->rwmixread = 50;
	o->bs[0] = o->bs[1] = o->bs[2] = 4096;
	for (int d = 0; d < 3; d++)
		o->dist[d].center = -1;
	o->iodepth = 1;
	o->numjobs = 1;
	o->loops = 1;
	o->randrepeat = true;
	o->thinktime_blocks = 1;
	o->clat_percentiles = true;
	o->do_verify = true;
	o->invalidate = true;
	o->kb_base = 1024;
	o->fallocate = true;
	memcpy(o->percentiles, default_percentiles, sizeof(default_percentiles));
	o->npercentiles = sizeof(default_percentiles) / sizeof(default_percentiles[0]);
}

int sb_job_opts_copy(struct sb_job_opts *dst, const struct sb_job_opts *src)
{
	*dst = *src;
	dst->filename = NULL;
	dst->directory = NULL;
	if (src->filename && !(dst->filename = strdup(src->filename)))
		return -ENOMEM;
	if (src->directory && !(dst->directory = strdup(src->directory))) {
		free(dst->filename);
		dst->filename = NULL;
		return -ENOMEM;
	}
	return 0;
}

void sb_job_opts_release(struct sb_job_opts *o)
{
	free(o->filename);
	free(o->directory);
	o->filename = NULL;
	o->directory = NULL;
}

const char *sb_rw_name(enum sb_rw rw)
{
	static const char *const n[] = {"read",	  "write", "randread", "randwrite", "rw",
					"randrw", "trim",  "randtrim", "trimwrite"};
	return (unsigned)rw < sizeof(n) / sizeof(n[0]) ? n[rw] : "?";
}

const char *sb_engine_name(enum sb_engine e)
{
	static const char *const n[] = {"auto", "io_uring", "psync", "null"};
	return (unsigned)e < 4 ? n[e] : "?";
}

const char *sb_verify_name(enum sb_verify v)
{
	static const char *const n[] = {"0", "crc32c", "md5", "sha256", "pattern"};
	return (unsigned)v < 5 ? n[v] : "?";
}

const char *sb_ddir_name(enum sb_ddir d)
{
	static const char *const n[] = {"read", "write", "trim", "sync"};
	return (unsigned)d < 4 ? n[d] : "?";
}

const char *sb_rw_accepted(size_t i)
{
	return i < sizeof(rw_names) / sizeof(rw_names[0]) ? rw_names[i].name : NULL;
}

const char *sb_engine_known(size_t i, const char **refused)
{
	if (i >= sizeof(engine_names) / sizeof(engine_names[0]))
		return NULL;
	*refused = engine_names[i].refused;
	return engine_names[i].name;
}

/* A bad value: the message into err, SB_OPT_BADVAL (lib/core/errfmt.h). */
#define bad(err, errlen, ...) ((enum sb_opt_status)sb_errf(err, errlen, SB_OPT_BADVAL, __VA_ARGS__))

static const struct opt_def *find_opt(const char *key)
{
	for (size_t i = 0; i < NOPTS; i++) {
		if (strcmp(opt_defs[i].name, key) == 0 ||
		    (opt_defs[i].alias && strcmp(opt_defs[i].alias, key) == 0))
			return &opt_defs[i];
	}
	return NULL;
}

/*
 * Splits fio's per-direction list "r[,w[,t]]": a part left empty keeps the
 * default (set[i] false); a list not ending in a comma carries its last
 * value on to the directions after it ("8k,32k" gives trims 32k too).
 */
static int split3(const char *v, char out[3][512], bool set[3])
{
	const char *p = v;
	unsigned n = 0;

	for (int i = 0; i < 3; i++) {
		out[i][0] = '\0';
		set[i] = false;
	}
	while (n < 3) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len >= 512)
			return -EINVAL;
		memcpy(out[n], p, len);
		out[n][len] = '\0';
		set[n] = len > 0;
		n++;
		if (!comma)
			break;
		p = comma + 1;
		if (n == 3 && *p)
			return -EINVAL; /* a fourth value */
	}
	/* not ending in a comma: the last value applies to the rest */
	if (v[0] && v[strlen(v) - 1] != ',' && set[n - 1]) {
		for (unsigned i = n; i < 3; i++) {
			snprintf(out[i], 512, "%s", out[n - 1]);
			set[i] = true;
		}
	}
	return 0;
}

/* Splits "a,b" (reads, writes; a third value, for trims, is ignored). */
static int split_rw_pair(const char *v, char *a, char *b, size_t len)
{
	char part[3][512];
	bool set[3];
	if (split3(v, part, set) || strlen(part[0]) >= len || strlen(part[1]) >= len)
		return -EINVAL;
	snprintf(a, len, "%s", set[0] ? part[0] : "");
	snprintf(b, len, "%s", set[1] ? part[1] : (set[0] ? part[0] : ""));
	return 0;
}

/* "4k" or "4k-16k" (either order, as fio) into min and max (max 0: not a range). */
static int parse_bs_range(const char *s, unsigned kb_base, uint32_t *min, uint32_t *max)
{
	char a[256];
	const char *dash = strchr(s, '-');
	uint64_t lo, hi;
	if (strlen(s) >= sizeof(a))
		return -EINVAL;
	if (!dash) {
		if (sb_parse_size(s, kb_base, &lo) || lo == 0 || lo > (1u << 30))
			return -EINVAL;
		*min = (uint32_t)lo;
		*max = 0;
		return 0;
	}
	snprintf(a, sizeof(a), "%.*s", (int)(dash - s), s);
	if (sb_parse_size(a, kb_base, &lo) || sb_parse_size(dash + 1, kb_base, &hi) || lo == 0 ||
	    hi == 0 || lo > (1u << 30) || hi > (1u << 30))
		return -EINVAL;
	if (hi < lo) {
		uint64_t t = lo;
		lo = hi;
		hi = t;
	}
	*min = (uint32_t)lo;
	*max = hi > lo ? (uint32_t)hi : 0;
	return 0;
}

static enum sb_opt_status parse_bs(struct sb_job_opts *o, const char *key, const char *v,
				   bool range_only, char *err, size_t errlen)
{
	if (!range_only && strchr(v, '-') && strchr(v, ','))
		return bad(err, errlen, "%s: '%s': use bsrange for block size ranges", key, v);
	char part[3][512];
	bool set[3];
	uint32_t mn[3], mx[3];
	if (!range_only && strchr(v, '-') && !strchr(v, ',')) {
		/* fio 3.33 reads bs=4k-16k as 4k reads, 16k writes and trims: so do we */
		char as_fio[512];
		const char *dash = strchr(v, '-');
		if (strlen(v) >= sizeof(as_fio))
			return bad(err, errlen, "%s: value too long", key);
		snprintf(as_fio, sizeof(as_fio), "%.*s,%s", (int)(dash - v), v, dash + 1);
		if (strchr(dash + 1, '-') ||
		    parse_bs(o, key, as_fio, false, err, errlen) != SB_OPT_OK)
			return bad(err, errlen, "%s: '%s' is not a block size", key, v);
		snprintf(err, errlen,
			 "%s=%s means %.*s reads and %s writes and trims, as fio reads it; for "
			 "sizes "
			 "from %.*s to %s use bsrange=%s",
			 key, v, (int)(dash - v), v, dash + 1, (int)(dash - v), v, dash + 1, v);
		return SB_OPT_NOOP;
	}
	if (split3(v, part, set))
		return bad(err, errlen, "%s: '%s' is not a block size list (at most r,w,t)", key,
			   v);
	for (int d = 0; d < 3; d++) {
		if (!set[d])
			continue;
		if (parse_bs_range(part[d], o->kb_base, &mn[d], &mx[d]))
			return bad(err, errlen,
				   "%s: '%s' is not a block size (1 byte to 1g) or a range MIN-MAX",
				   key, part[d]);
		if (range_only && !strchr(part[d], '-'))
			return bad(err, errlen, "%s: '%s' is not a range MIN-MAX (e.g. 4k-16k)",
				   key, part[d]);
	}
	for (int d = 0; d < 3; d++) {
		if (!set[d])
			continue;
		o->bs[d] = mn[d];
		o->bs_max[d] = mx[d];
		o->nbssplit[d] = 0;
	}
	return SB_OPT_OK;
}

static enum sb_opt_status parse_bssplit(struct sb_job_opts *o, const char *key, const char *v,
					char *err, size_t errlen)
{
	char part[3][512];
	bool set[3];
	if (split3(v, part, set))
		return bad(err, errlen, "%s: value too long or more than 3 lists", key);
	for (int d = 0; d < 3; d++) {
		unsigned n = 0, total = 0, unset = 0;
		char *save = NULL;
		char buf[512];
		if (!set[d])
			continue;
		snprintf(buf, sizeof(buf), "%s", part[d]);
		for (char *tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
			if (n == SB_MAX_BSSPLIT)
				return bad(err, errlen, "%s: more than %d entries", key,
					   SB_MAX_BSSPLIT);
			char *slash = strchr(tok, '/');
			uint64_t bs, perc = 0;
			if (slash)
				*slash = '\0';
			if (sb_parse_size(tok, o->kb_base, &bs) || bs == 0 || bs > (1u << 30))
				return bad(err, errlen, "%s: '%s' is not a block size", key, tok);
			if (slash && slash[1] && (sb_parse_u64(slash + 1, &perc) || perc > 100))
				return bad(err, errlen, "%s: '%s' is not a percentage", key,
					   slash + 1);
			if (!slash || perc == 0)
				unset++;
			o->bssplit[d][n].bs = (uint32_t)bs;
			o->bssplit[d][n].perc = (uint32_t)perc;
			total += (unsigned)perc;
			n++;
		}
		if (total > 100)
			return bad(err, errlen, "%s: percentages add up to %u, more than 100", key,
				   total);
		if (unset) {
			unsigned share = (100 - total) / unset, extra = (100 - total) % unset;
			for (unsigned i = 0; i < n; i++) {
				if (o->bssplit[d][i].perc == 0) {
					o->bssplit[d][i].perc = share + (extra ? 1 : 0);
					if (extra)
						extra--;
				}
			}
		} else if (total != 100) {
			return bad(err, errlen, "%s: percentages add up to %u, not 100", key,
				   total);
		}
		o->nbssplit[d] = n;
		o->bs_max[d] = 0;
	}
	return SB_OPT_OK;
}

/* "P/R:P/R:..." zones (R empty: the rest of the region). */
static enum sb_opt_status parse_zones(struct sb_dist_opts *dd, const char *key, const char *list,
				      bool absolute, unsigned kb_base, char *err, size_t errlen)
{
	char buf[4096], *save = NULL;
	unsigned n = 0, acc = 0, blank = 0;
	uint64_t range_total = 0;

	if (strlen(list) >= sizeof(buf))
		return bad(err, errlen, "%s: value too long", key);
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		char *slash = strchr(tok, '/');
		uint64_t p, r = 0;
		if (n == SB_MAX_ZONES)
			return bad(err, errlen, "%s: more than %d zones", key, SB_MAX_ZONES);
		if (!slash)
			return bad(err, errlen, "%s: zone '%s' is not ACCESS%%/RANGE", key, tok);
		*slash = '\0';
		if (sb_parse_u64(tok, &p) || p > 100)
			return bad(err, errlen, "%s: '%s' is not an access percentage", key, tok);
		if (!slash[1]) {
			blank++;
		} else if (absolute ? sb_parse_size(slash + 1, kb_base, &r) || r == 0
				    : sb_parse_u64(slash + 1, &r) || r == 0 || r > 100) {
			return bad(err, errlen, "%s: '%s' is not a %s", key, slash + 1,
				   absolute ? "size" : "range percentage (1 to 100)");
		}
		dd->zones[n].access = (uint32_t)p;
		dd->zones[n].range = r;
		acc += (unsigned)p;
		range_total += r;
		n++;
	}
	if (n == 0)
		return bad(err, errlen, "%s: no zones", key);
	if (acc != 100)
		return bad(err, errlen, "%s: zone access percentages add up to %u, not 100", key,
			   acc);
	if (!absolute && range_total > 100)
		return bad(err, errlen, "%s: zone ranges add up to %llu%%, more than 100", key,
			   (unsigned long long)range_total);
	if (blank > 1 || (blank && absolute))
		return bad(err, errlen, "%s: %s", key,
			   absolute ? "every zoned_abs zone needs a size"
				    : "only one zone may leave its range blank");
	for (unsigned i = 0; i < n; i++)
		if (!dd->zones[i].range)
			dd->zones[i].range = 100 - range_total;
	dd->nzones = n;
	return SB_OPT_OK;
}

static const struct {
	const char *name;
	enum sb_dist_type type;
} dist_names[] = {
	{"random", SB_DIST_RANDOM}, {"zipf", SB_DIST_ZIPF},    {"pareto", SB_DIST_PARETO},
	{"normal", SB_DIST_NORMAL}, {"gauss", SB_DIST_NORMAL}, {"zoned_abs", SB_DIST_ZONED_ABS},
	{"zoned", SB_DIST_ZONED},
};

/* "zipf:theta[:center]", "pareto:h[:center]", "normal:dev[:center]". */
static enum sb_opt_status parse_dist_params(struct sb_dist_opts *dd, const char *key,
					    const char *name, const char *params, char *err,
					    size_t errlen)
{
	char *end;
	dd->center = -1;
	if (!params || !*params) {
		if (dd->type == SB_DIST_NORMAL) {
			dd->param = 0;
			return SB_OPT_OK;
		}
		return bad(err, errlen, "%s: %s needs a parameter (%s:VALUE)", key, name, name);
	}
	errno = 0;
	dd->param = strtod(params, &end);
	if (end == params || errno || (*end && *end != ':'))
		return bad(err, errlen, "%s: '%s' is not a number", key, params);
	if (dd->type == SB_DIST_ZIPF && (dd->param <= 0.0 || dd->param == 1.0))
		return bad(err, errlen, "%s: zipf theta must be above 0 and not 1 (got %g)", key,
			   dd->param);
	if (dd->type == SB_DIST_PARETO && !(dd->param > 0.0 && dd->param < 1.0))
		return bad(err, errlen, "%s: pareto h must be between 0 and 1 (got %g)", key,
			   dd->param);
	if (dd->type == SB_DIST_NORMAL && !(dd->param >= 0.0 && dd->param <= 100.0))
		return bad(err, errlen, "%s: normal deviation must be from 0 to 100 (got %g)", key,
			   dd->param);
	if (*end == ':') {
		const char *c = end + 1;
		errno = 0;
		dd->center = strtod(c, &end);
		if (end == c || *end || errno || !(dd->center >= 0.0 && dd->center <= 1.0))
			return bad(err, errlen, "%s: center '%s' is not a number from 0 to 1", key,
				   c);
	}
	return SB_OPT_OK;
}

static enum sb_opt_status parse_distribution(struct sb_job_opts *o, const char *key, const char *v,
					     char *err, size_t errlen)
{
	size_t i, nl = 0;
	for (i = 0; i < sizeof(dist_names) / sizeof(dist_names[0]); i++) {
		nl = strlen(dist_names[i].name);
		if (!strncmp(v, dist_names[i].name, nl) &&
		    (v[nl] == '\0' || v[nl] == ':' || v[nl] == '='))
			break;
	}
	if (i == sizeof(dist_names) / sizeof(dist_names[0]))
		return bad(
			err, errlen,
			"%s: '%s' is not random, zipf, pareto, normal, gauss, zoned or zoned_abs",
			key, v);
	const char *params = v[nl] ? v + nl + 1 : NULL;
	struct sb_dist_opts dd;
	memset(&dd, 0, sizeof(dd));
	dd.type = dist_names[i].type;
	dd.center = -1;
	if (dd.type == SB_DIST_RANDOM) {
		for (int d = 0; d < 3; d++)
			o->dist[d] = dd;
		return SB_OPT_OK;
	}
	if (dd.type == SB_DIST_ZONED || dd.type == SB_DIST_ZONED_ABS) {
		char part[3][512];
		bool set[3];
		if (!params || split3(params, part, set))
			return bad(err, errlen, "%s: %s needs zones (e.g. %s:60/10:40/90)", key,
				   dist_names[i].name, dist_names[i].name);
		for (int d = 0; d < 3; d++) {
			if (!set[d])
				continue;
			struct sb_dist_opts z = dd;
			enum sb_opt_status st =
				parse_zones(&z, key, part[d], dd.type == SB_DIST_ZONED_ABS,
					    o->kb_base, err, errlen);
			if (st != SB_OPT_OK)
				return st;
			o->dist[d] = z;
		}
		return SB_OPT_OK;
	}
	enum sb_opt_status st =
		parse_dist_params(&dd, key, dist_names[i].name, params, err, errlen);
	if (st != SB_OPT_OK)
		return st;
	for (int d = 0; d < 3; d++)
		o->dist[d] = dd;
	return SB_OPT_OK;
}

/*
 * fio's pattern syntax: 0xHEX, a decimal number (its bytes, little-endian,
 * as wide as needed), "string", 'file' (its first bytes), in any sequence.
 */
static enum sb_opt_status parse_pattern(const char *key, const char *v, unsigned char *out,
					unsigned *outlen, char *err, size_t errlen)
{
	unsigned n = 0;
	const char *p = v;
	while (*p) {
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
			const char *h = p + 2, *e = h;
			while (isxdigit((unsigned char)*e))
				e++;
			size_t nd = (size_t)(e - h);
			if (nd == 0)
				return bad(err, errlen, "%s: '0x' without hex digits", key);
			/* big-endian digit order, as written: 0xdeadface -> de ad fa ce */
			size_t nbytes = (nd + 1) / 2;
			if (n + nbytes > SB_MAX_PATTERN)
				goto too_long;
			for (size_t k = 0; k < nbytes; k++) {
				char byte[3] = {0};
				size_t first = nd % 2 && k == 0 ? 1 : 2;
				size_t at = k == 0 ? 0 : (nd % 2 ? 1 + (k - 1) * 2 : k * 2);
				memcpy(byte, h + at, first);
				out[n++] = (unsigned char)strtoul(byte, NULL, 16);
			}
			p = e;
		} else if (*p == '"') {
			const char *e = strchr(p + 1, '"');
			if (!e)
				return bad(err, errlen, "%s: unterminated string in '%s'", key, v);
			size_t len = (size_t)(e - p - 1);
			if (n + len > SB_MAX_PATTERN)
				goto too_long;
			memcpy(out + n, p + 1, len);
			n += (unsigned)len;
			p = e + 1;
		} else if (*p == '\'') {
			const char *e = strchr(p + 1, '\'');
			char path[4096];
			if (!e || (size_t)(e - p - 1) >= sizeof(path))
				return bad(err, errlen, "%s: unterminated file name in '%s'", key,
					   v);
			snprintf(path, sizeof(path), "%.*s", (int)(e - p - 1), p + 1);
			size_t got = 0;
			/* where a file may be read is the process's (patfile.h) */
			if (sb_patfile_read(key, path, out + n, SB_MAX_PATTERN - n, &got, err,
					    errlen))
				return SB_OPT_BADVAL;
			n += (unsigned)got;
			p = e + 1;
		} else if (*p == '-' || isdigit((unsigned char)*p)) {
			char *e;
			errno = 0;
			long long d = strtoll(p, &e, 10);
			if (errno || e == p)
				return bad(err, errlen, "%s: '%s' is not a number", key, p);
			uint64_t u = (uint64_t)d;
			unsigned width = 1;
			if (d < 0) /* as fio: an int, or a long long when it needs one */
				width = d >= INT32_MIN ? 4 : 8;
			else
				while (width < 8 && (u >> (8 * width)))
					width++;
			if (n + width > SB_MAX_PATTERN)
				goto too_long;
			for (unsigned k = 0; k < width; k++)
				out[n++] = (unsigned char)(u >> (8 * k));
			p = e;
		} else if (*p == '%' && p[1] == 'o') {
			return bad(
				err, errlen,
				"%s: the %%o (block offset) format is not supported; use a fixed "
				"pattern with verify=crc32c to check offsets",
				key);
		} else {
			return bad(err, errlen, "%s: unexpected '%c' in '%s'", key, *p, v);
		}
	}
	if (n == 0)
		return bad(err, errlen, "%s: empty pattern", key);
	*outlen = n;
	return SB_OPT_OK;
too_long:
	return bad(err, errlen, "%s: pattern longer than %d bytes", key, SB_MAX_PATTERN);
}

/* A size (4k, 1g) or a percentage (1% to 100%) of each file's size, for size= and offset=. */
static enum sb_opt_status parse_size_pct(const struct sb_job_opts *o, const char *key,
					 const char *value, uint64_t *u, unsigned *pct, char *err,
					 size_t errlen)
{
	int r = sb_parse_size_or_percent(value, o->kb_base, u, pct);
	if (r == -ERANGE && strchr(value, '%'))
		return bad(err, errlen, "%s: '%s' must be between 1%% and 100%%", key, value);
	if (r)
		return bad(err, errlen, "%s: '%s' is not a size (e.g. 1g) or a percentage", key,
			   value);
	return SB_OPT_OK;
}

/* steadystate=iops:10%, iops_slope:0.1%, bw:10m, bw_slope:1% */
static enum sb_opt_status parse_ss(struct sb_job_opts *o, const char *key, const char *v, char *err,
				   size_t errlen)
{
	const char *colon = strchr(v, ':');
	unsigned st = 0;
	char name[32];
	if (!colon || (size_t)(colon - v) >= sizeof(name))
		return bad(err, errlen, "%s: '%s' is not CRITERION:LIMIT (e.g. iops_slope:0.1%%)",
			   key, v);
	snprintf(name, sizeof(name), "%.*s", (int)(colon - v), v);
	if (!strcmp(name, "iops"))
		st = SB_SS_IOPS;
	else if (!strcmp(name, "iops_slope"))
		st = SB_SS_IOPS | SB_SS_SLOPE;
	else if (!strcmp(name, "bw"))
		st = SB_SS_BW;
	else if (!strcmp(name, "bw_slope"))
		st = SB_SS_BW | SB_SS_SLOPE;
	else
		return bad(err, errlen,
			   "%s: criterion '%s' is not iops, iops_slope, bw or bw_slope", key, name);
	const char *lim = colon + 1;
	size_t ll = strlen(lim);
	double limit;
	if (ll && lim[ll - 1] == '%') {
		char num[64], *e;
		if (ll >= sizeof(num))
			return bad(err, errlen, "%s: limit '%s' too long", key, lim);
		snprintf(num, sizeof(num), "%.*s", (int)(ll - 1), lim);
		errno = 0;
		limit = strtod(num, &e);
		if (e == num || *e || errno || limit < 0 || limit > 100)
			return bad(err, errlen, "%s: '%s' is not a percentage", key, lim);
		st |= SB_SS_PCT;
	} else if (st & SB_SS_BW) {
		uint64_t b;
		char *e;
		errno = 0;
		limit = strtod(lim, &e);
		if (e == lim || errno || limit < 0)
			return bad(err, errlen, "%s: '%s' is not a bandwidth limit", key, lim);
		if (*e) { /* a size with a unit: bytes per second */
			if (sb_parse_size(lim, o->kb_base, &b))
				return bad(err, errlen, "%s: '%s' is not a bandwidth limit", key,
					   lim);
			limit = (double)b;
		}
	} else {
		char *e;
		errno = 0;
		limit = strtod(lim, &e);
		if (e == lim || *e || errno || limit < 0)
			return bad(err, errlen, "%s: '%s' is not an IOPS limit", key, lim);
	}
	o->ss_state = st;
	o->ss_limit = limit;
	return SB_OPT_OK;
}

static enum sb_opt_status parse_pctlist(struct sb_job_opts *o, const char *key, const char *v,
					char *err, size_t errlen)
{
	char buf[512], *save = NULL;
	unsigned n = 0;
	double prev = 0;

	if (strlen(v) >= sizeof(buf))
		return bad(err, errlen, "%s: value too long", key);
	snprintf(buf, sizeof(buf), "%s", v);
	for (char *tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		char *end;
		errno = 0;
		double p = strtod(tok, &end);
		if (end == tok || *end || errno || !(p > 0.0 && p <= 100.0))
			return bad(err, errlen, "%s: '%s' is not a percentile in (0, 100]", key,
				   tok);
		if (n == SB_MAX_PERCENTILES)
			return bad(err, errlen, "%s: at most %d percentiles", key,
				   SB_MAX_PERCENTILES);
		if (p <= prev)
			return bad(err, errlen, "%s: percentiles must be ascending ('%s')", key,
				   tok);
		o->percentiles[n++] = p;
		prev = p;
	}
	if (n == 0)
		return bad(err, errlen, "%s: empty list", key);
	o->npercentiles = n;
	return SB_OPT_OK;
}

/*
 * The offset of the first byte that is not part of well-formed UTF-8 (no
 * overlong forms, surrogates or code points past U+10FFFF), or -1. Every
 * value ends up in JSON output, which must be UTF-8.
 */
static long utf8_bad_at(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; p[i];) {
		unsigned c = p[i];
		size_t n;
		unsigned lo = 0x80, hi = 0xbf;
		if (c < 0x80) {
			i++;
			continue;
		} else if (c >= 0xc2 && c <= 0xdf) {
			n = 1;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 2;
			if (c == 0xe0)
				lo = 0xa0;
			else if (c == 0xed)
				hi = 0x9f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3;
			if (c == 0xf0)
				lo = 0x90;
			else if (c == 0xf4)
				hi = 0x8f;
		} else {
			return (long)i;
		}
		for (size_t k = 1; k <= n; k++) {
			unsigned t = p[i + k];
			if (t < (k == 1 ? lo : 0x80) || t > (k == 1 ? hi : 0xbf))
				return (long)i;
		}
		i += n + 1;
	}
	return -1;
}

/*
 * The setters, one per option type (as fio's per-type option callbacks):
 * each parses value for the option d (key is the name it was given as,
 * for messages) into o, and returns SB_OPT_OK or an error with err set.
 * value is non-NULL and, but for T_DESC, not empty.
 */
typedef enum sb_opt_status (*opt_setter)(struct sb_job_opts *o, const struct opt_def *d,
					 const char *key, const char *value, char *err,
					 size_t errlen);

static void *opt_field(struct sb_job_opts *o, const struct opt_def *d)
{
	return (char *)o + d->off;
}

static enum sb_opt_status set_name(struct sb_job_opts *o, const struct opt_def *d, const char *key,
				   const char *value, char *err, size_t errlen)
{
	if (strlen(value) >= SB_NAME_MAX)
		return bad(err, errlen, "%s: longer than %d characters", key, SB_NAME_MAX - 1);
	for (const char *p = value; *p; p++)
		if (*p == '/' || iscntrl((unsigned char)*p))
			return bad(err, errlen, "%s: '%s' contains '/' or a control character", key,
				   value);
	snprintf(opt_field(o, d), SB_NAME_MAX, "%s", value);
	return SB_OPT_OK;
}

static enum sb_opt_status set_desc(struct sb_job_opts *o, const struct opt_def *d, const char *key,
				   const char *value, char *err, size_t errlen)
{
	(void)key;
	(void)err;
	(void)errlen;
	snprintf(opt_field(o, d), 256, "%s", value);
	return SB_OPT_OK;
}

static enum sb_opt_status set_strdup(struct sb_job_opts *o, const struct opt_def *d,
				     const char *key, const char *value, char *err, size_t errlen)
{
	char **field = opt_field(o, d);
	char *dup = strdup(value);
	if (!dup)
		return bad(err, errlen, "%s: out of memory", key);
	free(*field);
	*field = dup;
	return SB_OPT_OK;
}

static enum sb_opt_status set_size(struct sb_job_opts *o, const struct opt_def *d, const char *key,
				   const char *value, char *err, size_t errlen)
{
	uint64_t u;
	if (sb_parse_size(value, o->kb_base, &u))
		return bad(err, errlen, "%s: '%s' is not a size (e.g. 4k, 1g)", key, value);
	*(uint64_t *)opt_field(o, d) = u;
	return SB_OPT_OK;
}

static enum sb_opt_status set_size_pct(struct sb_job_opts *o, const struct opt_def *d,
				       const char *key, const char *value, char *err, size_t errlen)
{
	uint64_t u;
	unsigned pct;
	enum sb_opt_status st = parse_size_pct(o, key, value, &u, &pct, err, errlen);
	(void)d;
	if (st != SB_OPT_OK)
		return st;
	if (!pct && u == 0)
		return bad(err, errlen, "%s: must be more than 0", key);
	o->size = u;
	o->size_percent = pct;
	return SB_OPT_OK;
}

static enum sb_opt_status set_offset(struct sb_job_opts *o, const struct opt_def *d,
				     const char *key, const char *value, char *err, size_t errlen)
{
	uint64_t u;
	unsigned pct;
	enum sb_opt_status st = parse_size_pct(o, key, value, &u, &pct, err, errlen);
	(void)d;
	if (st != SB_OPT_OK)
		return st;
	o->offset = u;
	o->offset_percent = pct;
	return SB_OPT_OK;
}

static enum sb_opt_status set_bs(struct sb_job_opts *o, const struct opt_def *d, const char *key,
				 const char *value, char *err, size_t errlen)
{
	return parse_bs(o, key, value, d->type == T_BSRANGE, err, errlen);
}

/* blockalign: "4k" or "r,w,t" sizes, each at least 1 byte */
static enum sb_opt_status set_blockalign(struct sb_job_opts *o, const struct opt_def *d,
					 const char *key, const char *value, char *err,
					 size_t errlen)
{
	char part[3][512];
	bool set[3];
	uint64_t v[3] = {0, 0, 0};
	(void)d;
	if (split3(value, part, set))
		return bad(err, errlen, "%s: '%s' is not a size list (at most r,w,t)", key, value);
	for (int i = 0; i < 3; i++) {
		if (set[i] &&
		    (sb_parse_size(part[i], o->kb_base, &v[i]) || v[i] == 0 || v[i] > (1u << 30)))
			return bad(err, errlen, "%s: '%s' is not a size from 1 byte to 1g", key,
				   part[i]);
	}
	for (int i = 0; i < 3; i++)
		if (set[i])
			o->blockalign[i] = (uint32_t)v[i];
	return SB_OPT_OK;
}

static enum sb_opt_status set_bssplit(struct sb_job_opts *o, const struct opt_def *d,
				      const char *key, const char *value, char *err, size_t errlen)
{
	(void)d;
	return parse_bssplit(o, key, value, err, errlen);
}

static enum sb_opt_status set_uint(struct sb_job_opts *o, const struct opt_def *d, const char *key,
				   const char *value, char *err, size_t errlen)
{
	uint64_t u;
	if (sb_parse_u64(value, &u) || u < d->min || u > d->max)
		return bad(err, errlen, "%s: '%s' is not an integer from %u to %u", key, value,
			   d->min, d->max);
	*(unsigned *)opt_field(o, d) = (unsigned)u;
	return SB_OPT_OK;
}

static enum sb_opt_status set_bool(struct sb_job_opts *o, const struct opt_def *d, const char *key,
				   const char *value, char *err, size_t errlen)
{
	bool b;
	if (sb_parse_bool(value, &b))
		return bad(err, errlen, "%s: '%s' is not a boolean (0 or 1)", key, value);
	*(bool *)opt_field(o, d) = d->type == T_NBOOL ? !b : b;
	return SB_OPT_OK;
}

static enum sb_opt_status set_time(struct sb_job_opts *o, const struct opt_def *d, const char *key,
				   const char *value, char *err, size_t errlen)
{
	uint64_t u;
	if (sb_parse_duration_us(value, d->type == T_TIME_S ? 1000000 : 1, &u))
		return bad(err, errlen, "%s: '%s' is not a duration (e.g. 60, 60s, 2m, 500ms)", key,
			   value);
	*(uint64_t *)opt_field(o, d) = u;
	return SB_OPT_OK;
}

static enum sb_opt_status set_rw(struct sb_job_opts *o, const struct opt_def *d, const char *key,
				 const char *value, char *err, size_t errlen)
{
	(void)d;
	for (size_t i = 0; i < sizeof(rw_names) / sizeof(rw_names[0]); i++) {
		if (strcmp(value, rw_names[i].name) == 0) {
			o->rw = rw_names[i].rw;
			return SB_OPT_OK;
		}
	}
	if (strchr(value, ':'))
		return bad(err, errlen, "%s: '%s': the ':N' offset modifier is not supported", key,
			   value);
	return bad(err, errlen,
		   "%s: '%s' is not one of read, write, randread, randwrite, rw, "
		   "readwrite, randrw, trim, randtrim, trimwrite",
		   key, value);
}

static enum sb_opt_status set_engine(struct sb_job_opts *o, const struct opt_def *d,
				     const char *key, const char *value, char *err, size_t errlen)
{
	(void)d;
	for (size_t i = 0; i < sizeof(engine_names) / sizeof(engine_names[0]); i++) {
		if (strcmp(value, engine_names[i].name) != 0)
			continue;
		if (engine_names[i].refused) {
			snprintf(err, errlen, "ioengine '%s' is not supported: %s", value,
				 engine_names[i].refused);
			return SB_OPT_REFUSED;
		}
		o->engine = engine_names[i].engine;
		snprintf(o->ioengine_asked, sizeof(o->ioengine_asked), "%s", value);
		return SB_OPT_OK;
	}
	return bad(err, errlen, "%s: unknown engine '%s' (use io_uring, libaio, psync or null)",
		   key, value);
}

static enum sb_opt_status set_verify(struct sb_job_opts *o, const struct opt_def *d,
				     const char *key, const char *value, char *err, size_t errlen)
{
	(void)d;
	if (!strcmp(value, "0") || !strcmp(value, "none") || !strcmp(value, "null"))
		o->verify = SB_VERIFY_NONE;
	else if (!strcmp(value, "crc32c") || !strcmp(value, "crc32c-intel") || !strcmp(value, "1"))
		o->verify = SB_VERIFY_CRC32C;
	else if (!strcmp(value, "md5"))
		o->verify = SB_VERIFY_MD5;
	else if (!strcmp(value, "sha256"))
		o->verify = SB_VERIFY_SHA256;
	else if (!strcmp(value, "pattern"))
		o->verify = SB_VERIFY_PATTERN;
	else
		return bad(err, errlen,
			   "%s: '%s' is not supported (use 0, crc32c, md5, sha256, pattern)", key,
			   value);
	return SB_OPT_OK;
}

static enum sb_opt_status set_pctlist(struct sb_job_opts *o, const struct opt_def *d,
				      const char *key, const char *value, char *err, size_t errlen)
{
	(void)d;
	return parse_pctlist(o, key, value, err, errlen);
}

/* rate, rate_iops: "r", "r,w" or ",w" (bytes/s with units, or I/Os per second) */
static enum sb_opt_status set_rate(struct sb_job_opts *o, const struct opt_def *d, const char *key,
				   const char *value, char *err, size_t errlen)
{
	char a[64], bb[64];
	uint64_t r = 0, w = 0;
	uint64_t *dst = opt_field(o, d);
	bool iops = d->type == T_RATE_IOPS;
	if (split_rw_pair(value, a, bb, sizeof(a)))
		return bad(err, errlen, "%s: '%s' is not a rate", key, value);
	if (a[0] && (iops ? sb_parse_u64(a, &r) : sb_parse_size(a, o->kb_base, &r)))
		return bad(err, errlen, "%s: '%s' is not a rate", key, a);
	if (iops ? sb_parse_u64(bb, &w) : sb_parse_size(bb, o->kb_base, &w))
		return bad(err, errlen, "%s: '%s' is not a rate", key, bb);
	if (a[0])
		dst[0] = r;
	dst[1] = w;
	return SB_OPT_OK;
}

static enum sb_opt_status set_rate_process(struct sb_job_opts *o, const struct opt_def *d,
					   const char *key, const char *value, char *err,
					   size_t errlen)
{
	(void)d;
	if (!strcmp(value, "linear"))
		o->rate_poisson = false;
	else if (!strcmp(value, "poisson"))
		o->rate_poisson = true;
	else
		return bad(err, errlen, "%s: '%s' is not linear or poisson", key, value);
	return SB_OPT_OK;
}

static enum sb_opt_status set_kbbase(struct sb_job_opts *o, const struct opt_def *d,
				     const char *key, const char *value, char *err, size_t errlen)
{
	uint64_t u;
	(void)d;
	if (sb_parse_u64(value, &u) || (u != 1000 && u != 1024))
		return bad(err, errlen, "%s: '%s' must be 1000 or 1024", key, value);
	o->kb_base = (unsigned)u;
	return SB_OPT_OK;
}

static enum sb_opt_status set_rwmixwrite(struct sb_job_opts *o, const struct opt_def *d,
					 const char *key, const char *value, char *err,
					 size_t errlen)
{
	uint64_t u;
	(void)d;
	if (sb_parse_u64(value, &u) || u > 100)
		return bad(err, errlen, "%s: '%s' is not an integer from 0 to 100", key, value);
	o->rwmixread = (unsigned)(100 - u);
	return SB_OPT_OK;
}

static enum sb_opt_status set_randseed(struct sb_job_opts *o, const struct opt_def *d,
				       const char *key, const char *value, char *err, size_t errlen)
{
	uint64_t u;
	(void)d;
	if (sb_parse_u64(value, &u))
		return bad(err, errlen, "%s: '%s' is not an integer", key, value);
	o->randseed = u;
	o->randseed_set = true;
	return SB_OPT_OK;
}

static enum sb_opt_status set_fallocate(struct sb_job_opts *o, const struct opt_def *d,
					const char *key, const char *value, char *err,
					size_t errlen)
{
	(void)d;
	if (!strcmp(value, "none") || !strcmp(value, "0") || !strcmp(value, "truncate"))
		o->fallocate = false;
	else if (!strcmp(value, "native") || !strcmp(value, "posix") || !strcmp(value, "keep") ||
		 !strcmp(value, "1"))
		o->fallocate = true;
	else
		return bad(err, errlen, "%s: '%s' is not none, native, posix or keep", key, value);
	return SB_OPT_OK;
}

/* file_service_type's ":N" (I/Os per switch) or ":param" (the distribution's) */
static enum sb_opt_status fst_suffix(struct sb_job_opts *o, const char *key, const char *arg,
				     char *err, size_t errlen)
{
	if (o->fst <= SB_FST_RANDOM) {
		uint64_t u;
		if (sb_parse_u64(arg, &u) || u == 0 || u > UINT32_MAX)
			return bad(err, errlen, "%s: '%s' is not a positive I/O count", key, arg);
		o->fst_nr = (unsigned)u;
		return SB_OPT_OK;
	}
	char *e;
	errno = 0;
	o->fst_param = strtod(arg, &e);
	if (e == arg || *e || errno || o->fst_param <= 0)
		return bad(err, errlen, "%s: '%s' is not a positive number", key, arg);
	if (o->fst == SB_FST_ZIPF && o->fst_param == 1.0)
		return bad(err, errlen, "%s: zipf theta must not be 1", key);
	if (o->fst == SB_FST_PARETO && o->fst_param >= 1.0)
		return bad(err, errlen, "%s: pareto h must be below 1", key);
	return SB_OPT_OK;
}

static enum sb_opt_status set_file_service(struct sb_job_opts *o, const struct opt_def *d,
					   const char *key, const char *value, char *err,
					   size_t errlen)
{
	static const struct {
		const char *name;
		enum sb_fst t;
	} fst[] = {{"roundrobin", SB_FST_ROUNDROBIN}, {"sequential", SB_FST_SEQUENTIAL},
		   {"random", SB_FST_RANDOM},	      {"zipf", SB_FST_ZIPF},
		   {"pareto", SB_FST_PARETO},	      {"normal", SB_FST_NORMAL},
		   {"gauss", SB_FST_NORMAL}};
	const char *colon = strchr(value, ':');
	size_t nl = colon ? (size_t)(colon - value) : strlen(value), i;
	(void)d;
	for (i = 0; i < sizeof(fst) / sizeof(fst[0]); i++)
		if (strlen(fst[i].name) == nl && !strncmp(value, fst[i].name, nl))
			break;
	if (i == sizeof(fst) / sizeof(fst[0]))
		return bad(err, errlen,
			   "%s: '%s' is not roundrobin, sequential, random, zipf, pareto, "
			   "normal or gauss",
			   key, value);
	o->fst = fst[i].t;
	o->fst_nr = 0;
	o->fst_param = 0;
	return colon ? fst_suffix(o, key, colon + 1, err, errlen) : SB_OPT_OK;
}

static enum sb_opt_status set_random_dist(struct sb_job_opts *o, const struct opt_def *d,
					  const char *key, const char *value, char *err,
					  size_t errlen)
{
	(void)d;
	return parse_distribution(o, key, value, err, errlen);
}

static enum sb_opt_status set_randgen(struct sb_job_opts *o, const struct opt_def *d,
				      const char *key, const char *value, char *err, size_t errlen)
{
	(void)d;
	if (!strcmp(value, "tausworthe"))
		o->randgen = SB_RANDGEN_TAUSWORTHE;
	else if (!strcmp(value, "lfsr"))
		o->randgen = SB_RANDGEN_LFSR;
	else if (!strcmp(value, "tausworthe64"))
		o->randgen = SB_RANDGEN_TAUSWORTHE64;
	else
		return bad(err, errlen, "%s: '%s' is not tausworthe, lfsr or tausworthe64", key,
			   value);
	return SB_OPT_OK;
}

static enum sb_opt_status set_pattern(struct sb_job_opts *o, const struct opt_def *d,
				      const char *key, const char *value, char *err, size_t errlen)
{
	bool vp = d->off == O(verify_pattern);
	enum sb_opt_status st =
		parse_pattern(key, value, vp ? o->verify_pattern : o->buffer_pattern,
			      vp ? &o->verify_pattern_len : &o->buffer_pattern_len, err, errlen);
	if (st == SB_OPT_OK && vp && o->verify == SB_VERIFY_NONE)
		o->verify = SB_VERIFY_PATTERN; /* as fio: a pattern alone verifies it */
	return st;
}

static enum sb_opt_status set_ss(struct sb_job_opts *o, const struct opt_def *d, const char *key,
				 const char *value, char *err, size_t errlen)
{
	(void)d;
	return parse_ss(o, key, value, err, errlen);
}

static enum sb_opt_status set_logname(struct sb_job_opts *o, const struct opt_def *d,
				      const char *key, const char *value, char *err, size_t errlen)
{
	if (strlen(value) >= SB_LOGNAME_MAX)
		return bad(err, errlen, "%s: longer than %d characters", key, SB_LOGNAME_MAX - 1);
	snprintf(opt_field(o, d), SB_LOGNAME_MAX, "%s", value);
	return SB_OPT_OK;
}

/* The setter of each option type; T_NOOP and T_REFUSED have none. */
static const opt_setter opt_setters[] = {
	[T_NAME] = set_name,
	[T_DESC] = set_desc,
	[T_STRDUP] = set_strdup,
	[T_SIZE] = set_size,
	[T_SIZE_PCT] = set_size_pct,
	[T_BS] = set_bs,
	[T_BSSPLIT] = set_bssplit,
	[T_UINT] = set_uint,
	[T_BOOL] = set_bool,
	[T_NBOOL] = set_bool,
	[T_TIME_S] = set_time,
	[T_TIME_US] = set_time,
	[T_RW] = set_rw,
	[T_ENGINE] = set_engine,
	[T_VERIFY] = set_verify,
	[T_PCTLIST] = set_pctlist,
	[T_RATE] = set_rate,
	[T_RATE_IOPS] = set_rate,
	[T_KBBASE] = set_kbbase,
	[T_RWMIXWRITE] = set_rwmixwrite,
	[T_RANDSEED] = set_randseed,
	[T_FALLOCATE] = set_fallocate,
	[T_FILE_SERVICE] = set_file_service,
	[T_RANDOM_DIST] = set_random_dist,
	[T_RANDGEN] = set_randgen,
	[T_BSRANGE] = set_bs,
	[T_BLOCKALIGN] = set_blockalign,
	[T_RATE_PROCESS] = set_rate_process,
	[T_PATTERN] = set_pattern,
	[T_SS] = set_ss,
	[T_LOGNAME] = set_logname,
	[T_OFFSET] = set_offset,
	[T_NOOP] = NULL,
	[T_REFUSED] = NULL,
};
_Static_assert(sizeof(opt_setters) / sizeof(opt_setters[0]) == T_REFUSED + 1,
	       "every option type has its entry in opt_setters");

enum sb_opt_status sb_job_opts_set(struct sb_job_opts *o, const char *key, const char *value,
				   char *err, size_t errlen)
{
	const struct opt_def *d = find_opt(key);

	err[0] = '\0';
	if (!d) {
		snprintf(err, errlen, "unknown option '%s'", key);
		return SB_OPT_UNKNOWN;
	}
	long bad_at = value ? utf8_bad_at(value) : -1;
	if (bad_at >= 0)
		return bad(err, errlen, "%s: not valid UTF-8 text (byte %ld of the value)", key,
			   bad_at + 1);
	if (d->type == T_REFUSED) {
		snprintf(err, errlen, "option '%s' is not supported: %s", key, d->help);
		return SB_OPT_REFUSED;
	}
	if (d->type == T_NOOP) {
		snprintf(err, errlen, "option '%s' accepted without effect: %s", key, d->help);
		return SB_OPT_NOOP;
	}
	/* bare flags are booleans set to 1 */
	if (!value && d->type == T_LOGNAME)
		value = SB_LOG_JOBNAME; /* the job's name, known when the logs are opened */
	if (!value) {
		if (d->type == T_BOOL || d->type == T_NBOOL) {
			value = "1";
		} else {
			return bad(err, errlen, "%s: needs a value (%s=...)", key, key);
		}
	}
	if (!value[0] && d->type != T_DESC)
		return bad(err, errlen, "%s: empty value", key);
	if ((size_t)d->type >= sizeof(opt_setters) / sizeof(opt_setters[0]) ||
	    !opt_setters[d->type])
		return bad(err, errlen, "%s: no setter for this option", key);
	return opt_setters[d->type](o, d, key, value, err, errlen);
}

int sb_job_opts_validate(const struct sb_job_opts *o, char *err, size_t errlen)
{
#define FAIL(...)                                   \
	do {                                        \
		snprintf(err, errlen, __VA_ARGS__); \
		return -EINVAL;                     \
	} while (0)

	if (o->time_based && o->runtime_us == 0)
		FAIL("time_based: needs runtime (e.g. runtime=60s)");
	if (!o->filename && !o->directory && !o->size && !o->size_percent)
		FAIL("size: needed when there is neither filename nor directory");
	if (o->readonly && sb_rw_writes(o->rw))
		FAIL("readonly: rw=%s writes", sb_rw_name(o->rw));
	if (o->zero_buffers && o->refill_buffers)
		FAIL("zero_buffers: contradicts refill_buffers");
	if (o->verify != SB_VERIFY_NONE && !sb_rw_writes(o->rw))
		FAIL("verify: needs a workload that writes (rw=%s only reads)", sb_rw_name(o->rw));
	if (o->verify != SB_VERIFY_NONE && sb_rw_mixed(o->rw))
		FAIL("verify: not supported with mixed rw=%s", sb_rw_name(o->rw));
	if (o->verify_only && o->verify == SB_VERIFY_NONE)
		FAIL("verify_only: needs verify=crc32c, md5 or sha256");
	if (o->verify != SB_VERIFY_NONE && o->norandommap && sb_rw_random(o->rw))
		FAIL("verify: needs the random map (remove norandommap), or blocks may be "
		     "overwritten");
	if (o->verify != SB_VERIFY_NONE && o->time_based)
		FAIL("verify: not supported with time_based (the verify phase needs a fixed write "
		     "set)");
	for (int d = 0; d < 2; d++) {
		uint32_t bs = o->bs[d];
		if (o->verify != SB_VERIFY_NONE && bs < 64)
			FAIL("bs: %u bytes is too small to hold a verify header", bs);
		if (o->size && !o->size_percent && bs > o->size && !o->filesize)
			FAIL("bs: %u bytes is larger than size (%llu bytes)", bs,
			     (unsigned long long)o->size);
	}
	if (o->filesize && o->size && !o->size_percent && o->filesize > o->size && o->nrfiles == 1)
		FAIL("filesize: larger than size");
	if (o->verify != SB_VERIFY_NONE && sb_rw_trims(o->rw))
		FAIL("verify: not supported with rw=%s (trimmed blocks have no data to check)",
		     sb_rw_name(o->rw));
	if (o->verify == SB_VERIFY_PATTERN && !o->verify_pattern_len)
		FAIL("verify: 'pattern' needs verify_pattern");
	if (o->verify == SB_VERIFY_PATTERN && o->time_based)
		FAIL("verify: not supported with time_based (the verify phase needs a fixed write "
		     "set)");
	uint32_t ba = 0;
	for (int d = 0; d < 3; d++) {
		bool used = d == SB_READ    ? sb_rw_reads(o->rw)
			    : d == SB_WRITE ? sb_rw_writes(o->rw)
					    : sb_rw_trims(o->rw);
		if (!used || !o->blockalign[d])
			continue;
		if (ba && o->blockalign[d] != ba)
			FAIL("blockalign: %u and %u: one alignment for every direction is "
			     "supported",
			     ba, o->blockalign[d]);
		ba = o->blockalign[d];
	}
	if (ba && o->direct && ba % 512)
		FAIL("blockalign: %u is not a multiple of 512 (direct=1 needs sector-aligned "
		     "offsets)",
		     ba);
	if (ba && o->verify != SB_VERIFY_NONE && sb_rw_random(o->rw))
		FAIL("blockalign: not supported with verify (it turns off the random map, so "
		     "blocks may be overwritten)");
	if (o->ss_state && o->ss_dur_us > (uint64_t)SB_SS_WINDOW_MAX_S * 1000000)
		FAIL("ss_dur: at most %u seconds", SB_SS_WINDOW_MAX_S);
	if (o->ss_state && o->ss_dur_us && o->ss_dur_us < 1000000)
		FAIL("ss_dur: at least 1 second (samples are taken once a second)");
	for (int d = 0; d < 3; d++) {
		if (o->dist[d].type != SB_DIST_RANDOM && o->verify != SB_VERIFY_NONE &&
		    sb_rw_random(o->rw))
			FAIL("random_distribution: not supported with verify (blocks may be "
			     "written "
			     "more than once)");
	}
	return 0;
#undef FAIL
}

size_t sb_opt_table(const struct sb_opt_info **out)
{
	static struct sb_opt_info table[NOPTS];
	static int built;

	if (!built) {
		for (size_t i = 0; i < NOPTS; i++) {
			table[i].name = opt_defs[i].name;
			table[i].alias = opt_defs[i].alias;
			table[i].status = opt_defs[i].type == T_NOOP	  ? SB_OPT_NOOP
					  : opt_defs[i].type == T_REFUSED ? SB_OPT_REFUSED
									  : SB_OPT_OK;
			table[i].help = opt_defs[i].help;
		}
		built = 1;
	}
	*out = table;
	return NOPTS;
}
