/* SPDX-License-Identifier: MIT */
/*
 * The runner's result document: the one definition of its key names and
 * one typed reader of it.
 *
 * The runner writes one document per iteration (runner/out/json.c, fio
 * 3.33's --output-format=json layout plus an "engine" and a "storagebench"
 * object per job); the controller reads it from a result ConfigMap's data
 * key SB_RESULT_KEY (lib/core/labels.h, checked by sb_result_check of
 * lib/result/owner.h), the aggregator (lib/stats/aggregate.c), the distributed merge
 * (lib/stats/merge.c) and the plugin's results table (plugin/results.c) read its
 * jobs. Every one of them names the keys through the SB_RK_* macros below,
 * and reads the figures through sb_result_parse / sb_result_job_parse:
 *
 *   {"jobs": [{"jobname": "w", "error": 0,
 *              "engine": {"asked", "ran", "reason", "iodepth"},
 *              "read"|"write"|"trim"|"mixed": {"io_bytes", "bw_bytes", "bw",
 *                       "iops", "runtime", "total_ios",
 *                       "lat_ns"|"clat_ns": {"min", "max", "mean",
 *                                 "stddev", "N", "percentile": {"99.000000": ..}}},
 *              "sync": {"total_ios", "lat_ns": {...}},
 *              "storagebench": {"interval_ms", "series_start_ns",
 *                       "read"|"write"|"trim"|"sync": {"clat_hist", "ios_series",
 *                                "bytes_series", "clat_hist_series",
 *                                "clat_sum_series", "lat_sum_series"}, ...}}, ...],
 *    "context": {...}}
 */
#ifndef SB_LIB_RESULT_RESULTDOC_H
#define SB_LIB_RESULT_RESULTDOC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* ---- Key names (fio's where fio has the figure) ---- */
#define SB_RK_JOBS    "jobs"
#define SB_RK_CONTEXT "context"
/* the runner pod's "context" of a document (runner/mode/pod.c writes it, lib/result/owner.c checks it) */
#define SB_RK_CTX_RUN	    "run"
#define SB_RK_CTX_CLASS	    "class"
#define SB_RK_CTX_ITERATION "iteration"
#define SB_RK_CTX_POD	    "pod"
#define SB_RK_CTX_ATTEMPT   "attempt"
#define SB_RK_CTX_MEMBER    "member"
#define SB_RK_CTX_MEMBERS   "members"
#define SB_RK_CTX_NODE	    "node"
/* context.start: the barrier's planned and actual start of group 0, and of later groups */
#define SB_RK_CTX_PLANNED_NS "planned_ns"
#define SB_RK_CTX_ACTUAL_NS  "actual_ns"
#define SB_RK_CTX_GROUPS     "groups" /* [{"group", "planned_ns", "actual_ns"}] */
#define SB_RK_CTX_GROUP	     "group"
#define SB_RK_CTX_START	     "start"
/* context.clock: the member's node clock minus the controller's, from the barriers' exchanges */
#define SB_RK_CTX_CLOCK		 "clock"
#define SB_RK_CTX_OFFSET_NS	 "offset_ns"
#define SB_RK_CTX_UNCERTAINTY_NS "uncertainty_ns"
#define SB_RK_CTX_ROUND_TRIP_NS	 "round_trip_ns"
#define SB_RK_CTX_EXCHANGES	 "exchanges"
#define SB_RK_JOBNAME		 "jobname"
#define SB_RK_ERROR		 "error"
#define SB_RK_JOB_OPTIONS	 "job options"
#define SB_RK_ENGINE		 "engine"
#define SB_RK_ENGINE_ASKED	 "asked"
#define SB_RK_ENGINE_RAN	 "ran"
#define SB_RK_ENGINE_REASON	 "reason"
#define SB_RK_ENGINE_IODEPTH	 "iodepth"
#define SB_RK_READ		 "read"
#define SB_RK_WRITE		 "write"
#define SB_RK_TRIM		 "trim"
#define SB_RK_SYNC		 "sync"
#define SB_RK_MIXED		 "mixed" /* fio's unified_rw_reporting: reads and writes as one */
#define SB_RK_IO_BYTES		 "io_bytes"
#define SB_RK_IO_KBYTES		 "io_kbytes"
#define SB_RK_BW_BYTES		 "bw_bytes"
#define SB_RK_BW		 "bw" /* KiB/s (kb_base) */
#define SB_RK_IOPS		 "iops"
#define SB_RK_RUNTIME		 "runtime" /* ms */
#define SB_RK_TOTAL_IOS		 "total_ios"
#define SB_RK_LAT_NS		 "lat_ns"
#define SB_RK_CLAT_NS		 "clat_ns"
#define SB_RK_SLAT_NS		 "slat_ns"
#define SB_RK_MIN		 "min"
#define SB_RK_MAX		 "max"
#define SB_RK_MEAN		 "mean"
#define SB_RK_STDDEV		 "stddev"
#define SB_RK_N			 "N"
#define SB_RK_PERCENTILE	 "percentile"
#define SB_RK_STEADYSTATE	 "steadystate"
/* the storagebench extras of a job */
#define SB_RK_SB	      "storagebench"
#define SB_RK_SB_INTERVAL_MS  "interval_ms"
#define SB_RK_SB_CLAT_HIST    "clat_hist" /* [[bucket index, count], ...] (lib/stats/hist.h) */
#define SB_RK_SB_IOS_SERIES   "ios_series"
#define SB_RK_SB_BYTES_SERIES "bytes_series"
/*
 * The series' place in time and per-interval latency (results of older
 * runners lack them and are merged by position, lib/stats/merge.h):
 * series_start_ns is CLOCK_REALTIME in ns since the epoch, on the runner's
 * own clock, at the start of interval 0 of every direction's series (the
 * measurement's start, after ramp_time); per interval i of a direction,
 * clat_hist_series[i] is the completion-latency histogram of the I/Os
 * counted in ios_series[i] as [gap, count, gap, count, ...] over its
 * non-empty buckets (lib/stats/hist.h's layout; gap is the bucket index
 * minus the previous non-empty bucket's, the first gap the index itself),
 * clat_sum_series[i] and lat_sum_series[i] the sums of their clat_ns and
 * lat_ns in ns.
 */
#define SB_RK_SB_SERIES_START_NS  "series_start_ns"
#define SB_RK_SB_CLAT_HIST_SERIES "clat_hist_series"
#define SB_RK_SB_CLAT_SUM_SERIES  "clat_sum_series"
#define SB_RK_SB_LAT_SUM_SERIES	  "lat_sum_series"
#define SB_RK_SB_NJOBS		  "jobs"  /* the clones (numjobs) merged into the job */
#define SB_RK_SB_MERGE		  "merge" /* lib/stats/merge.c: how the pods' results were merged */
#define SB_RK_SB_ERRORS		  "errors" /* {read, write, enospc, eio, message} */
#define SB_RK_SB_ERRORS_MSG	  "message"
/* fio's steadystate.attained, and the runner's storagebench.steadystate.attained_ms */
#define SB_RK_SS_ATTAINED    "attained"
#define SB_RK_SB_ATTAINED_MS "attained_ms"
/* an S3 job's storagebench.s3 block (docs/s3.md); the keys the aggregation reads */
#define SB_RK_SB_S3		  "s3"
#define SB_RK_S3_ERRORS		  "errors"	     /* failed requests */
#define SB_RK_S3_ERRORS_BY_STATUS "errors_by_status" /* {"503": n, ...} */
#define SB_RK_S3_TTFB_HIST	  "ttfb_hist"	     /* like SB_RK_SB_CLAT_HIST */

/* The percentiles the readers use, as fio's keys of "percentile" name them. */
enum sb_result_pct { SB_RPCT_50, SB_RPCT_99, SB_RPCT_999, SB_RPCT_COUNT };
extern const char *const sb_result_pct_keys[SB_RPCT_COUNT]; /* "50.000000", ... */

/* The directions of a job, in this order; sb_result_dir_keys[d] is d's key. */
enum sb_result_dir {
	SB_RDIR_READ,
	SB_RDIR_WRITE,
	SB_RDIR_TRIM,
	SB_RDIR_SYNC,
	SB_RDIR_MIXED,
	SB_RDIR_COUNT
};
extern const char *const sb_result_dir_keys[SB_RDIR_COUNT];

/* A latency block (lat_ns or clat_ns); have is false when the job has none. */
struct sb_result_lat {
	bool have;
	bool have_mean, have_n;
	double min, max, mean, stddev, n;
	bool have_pct[SB_RPCT_COUNT];
	double pct[SB_RPCT_COUNT];
};

/* The fields of a direction; each figure is 0 when absent (its have_ flag false). */
struct sb_result_dirv {
	bool have; /* the job has this direction's object */
	bool have_io_bytes, have_bw_bytes, have_iops, have_runtime, have_total_ios;
	double io_bytes, bw_bytes, bw, iops, runtime, total_ios;
	bool runtime_is_int;	   /* runtime written as an integer (the runner's) */
	struct sb_result_lat lat;  /* lat_ns */
	struct sb_result_lat clat; /* clat_ns */
};

/*
 * One job. The strings and json are borrowed from the parsed document
 * (valid while it is); name is never NULL after a successful parse, the
 * engine strings are NULL when absent.
 */
struct sb_result_job {
	const json_t *json; /* the job's object */
	const char *name;
	long long error; /* fio's "error" (errno of the failure), 0 when absent */
	const char *engine_asked, *engine_ran, *engine_reason;
	struct sb_result_dirv dir[SB_RDIR_COUNT];
};

/* A parsed document: njobs jobs (jobs owned: sb_result_release). */
struct sb_result {
	size_t njobs;
	struct sb_result_job *jobs;
};
#define SB_RESULT_INIT  \
	{               \
		0, NULL \
	}

/*
 * Reads one job object into *out (its strings borrowed from job). path
 * prefixes the field paths of err ("jobs[1]" gives "jobs[1].read.iops: not
 * a number"; "" gives "read.iops: ..."). Every field present must have its
 * type: a direction, a latency block or "engine" an object, a figure a
 * finite non-negative number, a name a string; an absent field is not an
 * error here (the have_ flags say what was there; a caller that needs a
 * field says it is missing). Returns 0, or -EINVAL with err naming the
 * field and the problem.
 */
int sb_result_job_parse(const json_t *job, const char *path, struct sb_result_job *out, char *err,
			size_t errlen);

/*
 * Reads a whole document (doc borrowed; keep it while *out is used) into
 * *out, which the caller releases with sb_result_release (also after an
 * error). "jobs" must be a list of jobs each with a "jobname"; at most
 * max_jobs of them (0: no limit). Returns 0, -EINVAL with err naming the
 * field ("jobs: missing or not a list", "jobs[1].jobname: missing or not
 * a string", "jobs[0].write.bw_bytes: not a number", ...), -E2BIG past
 * max_jobs (err says so), -ENOMEM.
 */
int sb_result_parse(const json_t *doc, size_t max_jobs, struct sb_result *out, char *err,
		    size_t errlen);

/* Frees what sb_result_parse allocated and empties r; r may be NULL or empty. */
void sb_result_release(struct sb_result *r);

/*
 * A job's storagebench extras of direction d (storagebench.<d>), borrowed;
 * NULL when absent.
 */
const json_t *sb_result_job_extra(const json_t *job, enum sb_result_dir d);

#endif
