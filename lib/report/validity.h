/* SPDX-License-Identifier: MIT */
/*
 * Validity checks: warnings that say, in words, when a figure of a report
 * should not be trusted, each with its evidence and the fix.
 *
 * Fed the same job objects as the aggregation (sb_validity_add next to
 * sb_agg_add, by the runner's local --iterations and by the controller),
 * then given the report document to add its "warnings" array:
 *
 *   "warnings": [{"check": "page-cache", "target": "fast", "workload": "randread",
 *                 "message": "...", "evidence": "...", "fix": "..."}, ...]
 *
 * The checks (SB_VALIDITY_* names are the "check" values, one definition
 * for the report, the status and the docs):
 *   page-cache       buffered I/O (direct=0) on a working set smaller than
 *                    the node's memory (the runner's storagebench.node_mem_bytes)
 *   unwritten-read   a read-only workload on a block device that no earlier
 *                    workload of the iteration wrote (thin or fresh devices
 *                    answer reads of never-written blocks without I/O)
 *   high-cv          the coefficient of variation over iterations of a
 *                    headline metric above the threshold (default 10%)
 *   few-iterations   fewer than 3 iterations behind a standard deviation
 *   no-ramp          ramp_time 0, and the first second's rate differs from
 *                    the median second's by more than 25% in an iteration
 *   engine-fallback  the engine that ran is not the one asked for
 *                    (io_uring refused by the seccomp profile: psync ran)
 *   no-latency       gtod_reduce: latencies were not measured
 *   implausible      faster than the baseline class by more than a
 *                    plausible factor (default 10x) on the same workload
 * and those of distributed runs (controller/distrib/distrib.c, docs/distributed.md):
 *   late-start       a member started measuring more than SB_MERGE_LATE_MS
 *                    after the first (named with its pod and node)
 *   index-merge      members' series merged by position (results of an
 *                    older runner without the series' start)
 *   run-latency      latency over the members' whole runs, not the window
 *                    (per-interval latency dropped to fit a ConfigMap)
 *   clock-offset     a member's node clock is off the controller's by more
 *                    than the tolerance
 * A check without the data it needs (no node memory, no baseline, one
 * iteration for the CV) does not warn.
 */
#ifndef SB_LIB_REPORT_VALIDITY_H
#define SB_LIB_REPORT_VALIDITY_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define SB_VALIDITY_PAGE_CACHE	    "page-cache"
#define SB_VALIDITY_UNWRITTEN_READ  "unwritten-read"
#define SB_VALIDITY_HIGH_CV	    "high-cv"
#define SB_VALIDITY_FEW_ITERATIONS  "few-iterations"
#define SB_VALIDITY_NO_RAMP	    "no-ramp"
#define SB_VALIDITY_ENGINE_FALLBACK "engine-fallback"
#define SB_VALIDITY_NO_LATENCY	    "no-latency"
#define SB_VALIDITY_IMPLAUSIBLE	    "implausible"
#define SB_VALIDITY_LATE_START	    "late-start"
#define SB_VALIDITY_INDEX_MERGE	    "index-merge"
#define SB_VALIDITY_RUN_LATENCY	    "run-latency"
#define SB_VALIDITY_CLOCK_OFFSET    "clock-offset"

/* The runner's extra with the node's memory (storagebench.node_mem_bytes). */
#define SB_VALIDITY_NODE_MEM_KEY "node_mem_bytes"

struct sb_validity_opts {
	double cv_max;		 /* high-cv above this (0.10 = 10%) */
	unsigned min_iterations; /* few-iterations below this (3) */
	double ramp_jump;	 /* no-ramp: first second off the median by more (0.25) */
	const char *baseline;	 /* baseline target (borrowed; NULL: no implausible check) */
	double max_factor;	 /* implausible above this ratio to the baseline (10) */
};

#define SB_VALIDITY_OPTS_INIT             \
	{                                 \
		0.10, 3, 0.25, NULL, 10.0 \
	}

struct sb_validity;

/* A new checker with a copy of o (NULL: defaults; baseline copied); NULL on ENOMEM. */
struct sb_validity *sb_validity_new(const struct sb_validity_opts *o);
/* Frees v; NULL is fine. */
void sb_validity_free(struct sb_validity *v);

/*
 * Records the facts of one iteration's job on target (job borrowed, not
 * kept; the same object given to sb_agg_add). Jobs of one iteration and
 * target must come in the order they ran (unwritten-read looks back).
 * Returns 0, -EINVAL with err naming the field when the job has no
 * "jobname", -ENOMEM.
 */
int sb_validity_add(struct sb_validity *v, const char *target, unsigned iteration,
		    const json_t *job, char *err, size_t errlen);

/*
 * The warnings (a new JSON array, see above; NULL on ENOMEM) from the
 * recorded facts and the report document (borrowed; its results' metrics
 * give the CV, n and the means). Ordered by target, workload, check.
 */
json_t *sb_validity_warnings(const struct sb_validity *v, const json_t *report);

/* Sets report["warnings"] to sb_validity_warnings(). 0 or -ENOMEM. */
int sb_validity_annotate(const struct sb_validity *v, json_t *report);

#endif
