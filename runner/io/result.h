/* SPDX-License-Identifier: MIT */
/*
 * What a job measured: per direction (read, write, sync) counts, bytes,
 * latency statistics and histograms, per-second samples; CPU usage;
 * errors; which engine ran. Results of clones (numjobs) and of the jobs of
 * a group merge exactly (group_reporting), as fio's do.
 */
#ifndef SB_RUNNER_IO_RESULT_H
#define SB_RUNNER_IO_RESULT_H

#include "stats/hist.h"
#include "stats/stats.h"
#include "fiojob/opts.h"

#include <stdbool.h>
#include <stdint.h>

#define SB_MAX_BAD_OFFSETS 16
#define SB_SS_MAX_WINDOW   SB_SS_WINDOW_MAX_S /* steady-state samples kept in a result */

/* fio's steady-state outcome (the JSON "steadystate" block). */
struct sb_ss_result {
	unsigned state; /* SB_SS_* bits; 0 = steady state was not asked for */
	double limit;
	unsigned dur_s;
	bool attained;
	uint64_t attained_ms; /* after this long from the job's start (0: not attained) */
	double criterion, max_deviation, slope;
	uint64_t bw_mean, iops_mean; /* bytes/s, IOPS over the window */
	unsigned n;		     /* samples in the window (<= SB_SS_MAX_WINDOW) */
	uint64_t iops[SB_SS_MAX_WINDOW], bw[SB_SS_MAX_WINDOW];
};

/*
 * Per-interval figures of one direction. The completion-latency histogram
 * of interval i is kept as its non-empty buckets, hb[hoff[i] ..
 * hoff[i + 1]), each SB_SERIES_PAIR(bucket, count). At most
 * SB_SERIES_MAX_PAIRS buckets are kept; the intervals after that have no
 * histogram (nhist < n) and none is written.
 */
#define SB_SERIES_MAX_PAIRS	 (1u << 18) /* 2 MiB per direction and clone */
#define SB_SERIES_PAIR(b, c)	 (((uint64_t)(b) << 48) | ((c) & ((UINT64_C(1) << 48) - 1)))
#define SB_SERIES_PAIR_BUCKET(p) ((unsigned)((p) >> 48))
#define SB_SERIES_PAIR_COUNT(p)	 ((p) & ((UINT64_C(1) << 48) - 1))

struct sb_series {
	uint64_t *ios;	    /* per interval */
	uint64_t *bytes;    /* per interval */
	uint64_t *clat_sum; /* per interval: clat of its I/Os, ns */
	uint64_t *lat_sum;  /* per interval: lat of its I/Os, ns */
	size_t n;	    /* complete intervals */
	size_t cap;
	size_t *hoff;		/* [n + 1] (NULL while n is 0) */
	uint64_t *hb;		/* SB_SERIES_PAIR()s */
	size_t hn, hcap, nhist; /* pairs kept, allocated; intervals with a histogram */
};

/* What one interval measured of a direction; hist (borrowed) may be NULL: no latency. */
struct sb_interval {
	uint64_t ios, bytes, clat_sum, lat_sum;
	const struct sb_hist *hist;
};

struct sb_dir_result {
	uint64_t ios;
	uint64_t bytes;
	uint64_t short_ios;
	uint64_t errors;
	struct sb_stat slat, clat, lat; /* nanoseconds */
	struct sb_hist clat_hist;
	struct sb_hist lat_hist;
	struct sb_stat bw_samples;   /* KiB/s per interval per job, pooled like fio */
	struct sb_stat iops_samples; /* IOPS per interval per job */
	struct sb_series series;     /* summed over merged jobs, per interval */
};

struct sb_job_result {
	char name[SB_NAME_MAX];
	unsigned groupid;
	unsigned njobs;		  /* clones merged into this result */
	const struct sb_job *job; /* borrowed */

	struct sb_dir_result dir[SB_NDDIR];
	uint64_t runtime_us;	    /* measured (after ramp), longest of merged jobs */
	uint64_t dir_runtime_us[3]; /* per direction (differ when verify reads after writing) */
	uint64_t total_runtime_us;  /* sum over merged jobs, for CPU averages */
	uint64_t interval_us;	    /* length of a series interval */
	int64_t series_start_ns;    /* CLOCK_REALTIME at interval 0's start; 0 unknown */
	double usr_s, sys_s;
	uint64_t ctx, majf, minf;

	int error;	  /* first errno (positive), 0 if none */
	char errmsg[512]; /* first error, with file and offset */
	uint64_t enospc, eio;
	uint64_t datasyncs; /* of dir[SB_SYNC].ios, the fdatasync ones */

	uint64_t verify_checked, verify_errors;
	uint64_t bad_offsets[SB_MAX_BAD_OFFSETS];
	unsigned nbad;

	char engine_asked[32];
	char engine_ran[32];
	char engine_reason[256];
	unsigned iodepth_effective;
	struct sb_ss_result ss;
};

/* Allocates a zeroed result (they are large: histograms). NULL on ENOMEM. */
struct sb_job_result *sb_job_result_new(void);
void sb_job_result_free(struct sb_job_result *r);

/* Appends one interval to a series. 0 or -ENOMEM. */
int sb_series_push(struct sb_series *s, const struct sb_interval *iv);

/* Frees what a series holds and empties it. */
void sb_series_release(struct sb_series *s);

/* One direction: counts, statistics, histograms and series of src added to dst. */
int sb_dir_result_merge(struct sb_dir_result *dst, const struct sb_dir_result *src);

/* dst += src (see the header comment). 0 or -ENOMEM. */
int sb_job_result_merge(struct sb_job_result *dst, const struct sb_job_result *src);

/* fio's figures for one direction. */
double sb_dir_iops(const struct sb_job_result *r, enum sb_ddir d);
uint64_t sb_dir_bw_bytes(const struct sb_job_result *r, enum sb_ddir d);
uint64_t sb_runtime_ms(const struct sb_job_result *r);
uint64_t sb_dir_runtime_ms(const struct sb_job_result *r, enum sb_ddir d);

#endif
