/* SPDX-License-Identifier: MIT */
/*
 * Job options: what one fio job section (or one --name=... group of
 * command-line options) describes, with fio's names and meanings.
 *
 * The option table in opts.c knows every fio option we have met, in one of
 * three states: supported (behaves as in fio), accepted as a no-op (tunes
 * only fio's internals; a one-line notice on stderr) or refused (with the
 * reason). An option nobody has heard of is an error naming it.
 */
#ifndef SB_LIB_FIOJOB_OPTS_H
#define SB_LIB_FIOJOB_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SB_MAX_PERCENTILES 20
#define SB_MAX_BSSPLIT	   16
#define SB_NAME_MAX	   128
#define SB_MAX_ZONES	   256
#define SB_MAX_PATTERN	   512
#define SB_LOGNAME_MAX	   256
#define SB_LOG_JOBNAME	   "\x01" /* write_*_log without a name: the job's name */
#define SB_SS_WINDOW_MAX_S 1024u  /* ss_dur limit: the window is kept in the result */

/* Directions in fio's order; option arrays [3] are indexed read, write, trim. */
enum sb_ddir { SB_READ = 0, SB_WRITE = 1, SB_TRIM = 2, SB_SYNC = 3, SB_NDDIR = 4 };

enum sb_rw {
	SB_RW_READ,
	SB_RW_WRITE,
	SB_RW_RANDREAD,
	SB_RW_RANDWRITE,
	SB_RW_RW, /* sequential mix: rw, readwrite */
	SB_RW_RANDRW,
	SB_RW_TRIM,
	SB_RW_RANDTRIM,
	SB_RW_TRIMWRITE, /* trim a block, then write it */
};

/* Engines we run. SB_ENGINE_AUTO picks io_uring, falling back to psync. */
enum sb_engine { SB_ENGINE_AUTO, SB_ENGINE_IO_URING, SB_ENGINE_PSYNC, SB_ENGINE_NULL };

enum sb_verify {
	SB_VERIFY_NONE,
	SB_VERIFY_CRC32C,
	SB_VERIFY_MD5,
	SB_VERIFY_SHA256,
	SB_VERIFY_PATTERN, /* the block holds verify_pattern, repeated */
};

/* random_distribution= (fio's names). */
enum sb_dist_type {
	SB_DIST_RANDOM,
	SB_DIST_ZIPF,
	SB_DIST_PARETO,
	SB_DIST_NORMAL,
	SB_DIST_ZONED,
	SB_DIST_ZONED_ABS,
};

struct sb_zone {
	uint32_t access; /* percent of the accesses */
	uint64_t range;	 /* zoned: percent of the region; zoned_abs: bytes */
};

struct sb_dist_opts {
	enum sb_dist_type type;
	double param;  /* zipf theta, pareto h, normal deviation in percent */
	double center; /* [0, 1], or -1 when not given */
	unsigned nzones;
	struct sb_zone zones[SB_MAX_ZONES];
};

/* file_service_type= */
enum sb_fst {
	SB_FST_ROUNDROBIN,
	SB_FST_SEQUENTIAL,
	SB_FST_RANDOM,
	SB_FST_ZIPF,
	SB_FST_PARETO,
	SB_FST_NORMAL
};

/* random_generator= */
enum sb_randgen { SB_RANDGEN_TAUSWORTHE, SB_RANDGEN_LFSR, SB_RANDGEN_TAUSWORTHE64 };

/* steadystate= criterion bits, as fio's */
enum {
	SB_SS_IOPS = 1u << 0,
	SB_SS_BW = 1u << 1,
	SB_SS_SLOPE = 1u << 2,
	SB_SS_PCT = 1u << 3,
};

struct sb_bssplit {
	uint32_t bs;
	uint32_t perc; /* 0 means "share the rest equally" until resolved */
};

struct sb_job_opts {
	char name[SB_NAME_MAX];
	char description[256];
	char *filename;	 /* owned; may hold several names separated by ':' */
	char *directory; /* owned */

	uint64_t size;	       /* bytes; 0 = unset */
	unsigned size_percent; /* size=N% */
	uint64_t filesize;
	uint64_t io_size; /* io_size/io_limit; 0 = size */
	unsigned nrfiles;
	uint64_t offset;
	unsigned offset_percent; /* offset=N%: of each file's size */
	uint64_t offset_increment;

	enum sb_rw rw;
	unsigned rwmixread; /* percent of reads in mixed workloads */
	uint32_t bs[3];	    /* per direction (read, write, trim): the smallest size */
	uint32_t bs_max[3]; /* bsrange / bs=MIN-MAX: the largest, 0 = bs only */
	struct sb_bssplit bssplit[3][SB_MAX_BSSPLIT];
	unsigned nbssplit[3];
	/* blockalign/ba per direction: random offsets are multiples of it; 0 = the
	 * smallest block size (fio's default). See sb_job_align(). */
	uint32_t blockalign[3];

	unsigned iodepth;
	/* I/Os per submission while refilling (iodepth_batch_submit); 0: the engine's
	 * default (runner/engine/engine.h submit_batch) */
	unsigned iodepth_batch_submit;
	unsigned numjobs;
	bool direct;

	enum sb_engine engine;
	char ioengine_asked[32]; /* as the user wrote it, "" = default */

	unsigned fsync;	    /* sync after every N writes */
	unsigned fdatasync; /* datasync after every N writes */
	bool end_fsync;

	uint64_t runtime_us;
	uint64_t ramp_us;
	uint64_t startdelay_us;
	uint64_t thinktime_us;
	unsigned thinktime_blocks;
	bool time_based;
	unsigned loops;

	bool group_reporting;
	bool stonewall;
	bool new_group;

	bool randrepeat;
	uint64_t randseed;
	bool randseed_set;
	bool norandommap;
	enum sb_randgen randgen;
	struct sb_dist_opts dist[3]; /* random_distribution per direction */
	enum sb_fst fst;	     /* file_service_type */
	unsigned fst_nr;	     /* I/Os before switching files (0 = the type's default) */
	double fst_param;

	double percentiles[SB_MAX_PERCENTILES];
	unsigned npercentiles;
	bool clat_percentiles;
	bool lat_percentiles;

	bool refill_buffers;
	bool zero_buffers;
	unsigned buffer_compress_percentage;
	unsigned char buffer_pattern[SB_MAX_PATTERN];
	unsigned buffer_pattern_len; /* 0 = not set */
	unsigned char verify_pattern[SB_MAX_PATTERN];
	unsigned verify_pattern_len; /* 0 = not set */

	enum sb_verify verify;
	bool do_verify;
	bool verify_only;
	bool gtod_reduce;
	bool invalidate;
	unsigned kb_base;
	bool unified_rw_reporting;
	uint64_t rate_bps[2]; /* bytes per second per direction, 0 = unlimited */
	uint64_t rate_iops[2];
	bool rate_poisson; /* rate_process=poisson: exponential gaps of the same mean */
	bool unlink;
	bool overwrite;
	bool fallocate; /* preallocate files of write jobs (fallocate=native/posix) */
	bool fsync_on_close;
	bool sync_io; /* sync=1: O_SYNC writes */
	bool readonly;

	/* steadystate= / ss_dur / ss_ramp */
	unsigned ss_state; /* SB_SS_* bits, 0 = off */
	double ss_limit;
	uint64_t ss_dur_us;
	uint64_t ss_ramp_us;

	/* fio log files: a name prefix each, "" = not written */
	char bw_log[SB_LOGNAME_MAX];
	char lat_log[SB_LOGNAME_MAX];
	char iops_log[SB_LOGNAME_MAX];
	unsigned log_avg_msec;
	bool log_offset;
};

/* Where an option came from, for error messages. */
struct sb_opt_src {
	const char *file; /* NULL for the command line */
	unsigned line;
};

/* Sets fio's defaults. */
void sb_job_opts_init(struct sb_job_opts *o);

/* Deep copy (duplicates the owned strings). Returns 0 or -ENOMEM. */
int sb_job_opts_copy(struct sb_job_opts *dst, const struct sb_job_opts *src);

/* Frees the owned strings; o stays valid (re-init before reuse). */
void sb_job_opts_release(struct sb_job_opts *o);

enum sb_opt_status { SB_OPT_OK = 0, SB_OPT_NOOP, SB_OPT_REFUSED, SB_OPT_UNKNOWN, SB_OPT_BADVAL };

/*
 * Applies "key=value" (value NULL for a bare flag such as "direct" or
 * "time_based") to o. Returns SB_OPT_OK or SB_OPT_NOOP on success; on
 * failure one of the other statuses, with a message naming the option and
 * the problem in err (without the source location; callers prefix it).
 * Warnings (no-op notices) are also written to err with SB_OPT_NOOP.
 */
enum sb_opt_status sb_job_opts_set(struct sb_job_opts *o, const char *key, const char *value,
				   char *err, size_t errlen);

/*
 * Checks a complete job for contradictions (e.g. time_based without
 * runtime, bs larger than size). Returns 0 or -EINVAL with err set.
 */
int sb_job_opts_validate(const struct sb_job_opts *o, char *err, size_t errlen);

/* Names for output. */
const char *sb_rw_name(enum sb_rw rw);
const char *sb_engine_name(enum sb_engine e);
const char *sb_verify_name(enum sb_verify v);
const char *sb_ddir_name(enum sb_ddir d);

/*
 * The tables behind rw= and ioengine=, for the check that the CRD's enums
 * equal them (tests/unit/fiojob/test_crd_enums.c). sb_rw_accepted: the i-th value
 * rw= accepts (fio's names, aliases included), NULL past the last.
 * sb_engine_known: the i-th ioengine= name we know, NULL past the last;
 * *refused is NULL when we run it (perhaps mapped onto one of ours), else
 * why we do not.
 */
const char *sb_rw_accepted(size_t i);
const char *sb_engine_known(size_t i, const char **refused);

static inline bool sb_rw_reads(enum sb_rw rw)
{
	return rw == SB_RW_READ || rw == SB_RW_RANDREAD || rw == SB_RW_RW || rw == SB_RW_RANDRW;
}
static inline bool sb_rw_writes(enum sb_rw rw)
{
	return rw == SB_RW_WRITE || rw == SB_RW_RANDWRITE || rw == SB_RW_RW || rw == SB_RW_RANDRW ||
	       rw == SB_RW_TRIMWRITE;
}
static inline bool sb_rw_trims(enum sb_rw rw)
{
	return rw == SB_RW_TRIM || rw == SB_RW_RANDTRIM || rw == SB_RW_TRIMWRITE;
}
static inline bool sb_rw_random(enum sb_rw rw)
{
	return rw == SB_RW_RANDREAD || rw == SB_RW_RANDWRITE || rw == SB_RW_RANDRW ||
	       rw == SB_RW_RANDTRIM;
}
static inline bool sb_rw_mixed(enum sb_rw rw)
{
	return rw == SB_RW_RW || rw == SB_RW_RANDRW;
}

/* One entry of the option table, for docs and --cmdhelp. */
struct sb_opt_info {
	const char *name;
	const char *alias;
	enum sb_opt_status status; /* OK, NOOP or REFUSED */
	const char *help;	   /* what it does, or why it is refused */
};

/* The table of every option we know. Returns the entry count. */
size_t sb_opt_table(const struct sb_opt_info **out);

/*
 * Options given in a job ("key" -> original value text), kept so JSON
 * output can show "job options" as fio does.
 */
struct sb_kv {
	char *key;
	char *value; /* NULL for bare flags */
};

#endif
