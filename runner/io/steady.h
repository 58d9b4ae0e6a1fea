/* SPDX-License-Identifier: MIT */
/*
 * Steady-state detection as fio's steadystate=, ss_dur=, ss_ramp=: after
 * ss_ramp, one IOPS and one bandwidth sample per second go into a rolling
 * window of ss_dur seconds; once the window is full, each new second
 * checks the criterion over the window:
 *   iops / bw         the largest distance of a sample from the window's
 *                     mean is below the limit (or limit% of the mean);
 *   iops_slope / bw_slope  the least-squares slope of the samples per
 *                     second is below the limit (or limit% of the mean).
 * When it holds the job stops, as in fio.
 */
#ifndef SB_RUNNER_IO_STEADY_H
#define SB_RUNNER_IO_STEADY_H

#include "runner/io/result.h"

#include <stdbool.h>
#include <stdint.h>

struct sb_ss {
	unsigned state;
	double limit;
	unsigned dur; /* samples in the window */
	uint64_t t_next;
	bool primed; /* the counts at the end of ss_ramp are taken */
	uint64_t last_ios, last_bytes;
	uint64_t *iops, *bw; /* ring buffers of dur samples; owned */
	unsigned n, head;
	bool attained;
	double criterion, max_deviation, slope;
};

/*
 * Starts tracking at t0 (ns): the counts are taken ramp_ns later and
 * the first sample one second after that. Returns a new tracker (free with sb_ss_free), or NULL on ENOMEM.
 */
struct sb_ss *sb_ss_new(unsigned state, double limit, uint64_t dur_us, uint64_t ramp_ns,
			uint64_t t0);
void sb_ss_free(struct sb_ss *ss);

/* Restarts the clock at t0 (ns) (measuring began then). */
void sb_ss_restart(struct sb_ss *ss, uint64_t t0, uint64_t ramp_ns);

/*
 * Called with the job's total I/Os and bytes so far; takes the samples
 * due by now (ns). Returns true once steady state is attained.
 */
bool sb_ss_tick(struct sb_ss *ss, uint64_t now, uint64_t ios, uint64_t bytes);

/* Pure: evaluates the criterion over v[0..n). Sets criterion, deviation and slope. */
bool sb_ss_check(unsigned state, double limit, const uint64_t *v, unsigned n, double *criterion,
		 double *max_deviation, double *slope);

/* Fills fio's steadystate block of a result. */
void sb_ss_result_fill(const struct sb_ss *ss, uint64_t dur_us, struct sb_ss_result *out);

#endif
