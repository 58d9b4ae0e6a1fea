/* SPDX-License-Identifier: MIT */
#include "runner/io/steady.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_SEC 1000000000ull

struct sb_ss *sb_ss_new(unsigned state, double limit, uint64_t dur_us, uint64_t ramp_ns,
			uint64_t t0)
{
	struct sb_ss *ss = calloc(1, sizeof(*ss));
	if (!ss)
		return NULL;
	ss->state = state;
	ss->limit = limit;
	ss->dur = (unsigned)(dur_us / 1000000);
	if (ss->dur == 0)
		ss->dur = 1;
	ss->t_next = t0 + ramp_ns;
	ss->iops = calloc(ss->dur, sizeof(uint64_t));
	ss->bw = calloc(ss->dur, sizeof(uint64_t));
	if (!ss->iops || !ss->bw) {
		sb_ss_free(ss);
		return NULL;
	}
	return ss;
}

void sb_ss_free(struct sb_ss *ss)
{
	if (!ss)
		return;
	free(ss->iops);
	free(ss->bw);
	free(ss);
}

bool sb_ss_check(unsigned state, double limit, const uint64_t *v, unsigned n, double *criterion,
		 double *max_deviation, double *slope)
{
	double mean = 0, dev = 0, sl = 0;
	*criterion = *max_deviation = *slope = 0;
	if (n == 0)
		return false;
	for (unsigned i = 0; i < n; i++)
		mean += (double)v[i];
	mean /= n;
	double value;
	if (state & SB_SS_SLOPE) {
		/* least squares over x = 0..n-1 */
		double xm = (n - 1) / 2.0, sxy = 0, sxx = 0;
		for (unsigned i = 0; i < n; i++) {
			sxy += ((double)i - xm) * ((double)v[i] - mean);
			sxx += ((double)i - xm) * ((double)i - xm);
		}
		sl = sxx > 0 ? sxy / sxx : 0;
		value = fabs(sl);
	} else {
		for (unsigned i = 0; i < n; i++)
			if (fabs((double)v[i] - mean) > dev)
				dev = fabs((double)v[i] - mean);
		value = dev;
	}
	if (state & SB_SS_PCT)
		value = mean > 0 ? value / mean * 100.0 : 0;
	*criterion = value;
	*max_deviation = dev;
	*slope = sl;
	return value < limit || (limit == 0 && value == 0);
}

void sb_ss_restart(struct sb_ss *ss, uint64_t t0, uint64_t ramp_ns)
{
	ss->t_next = t0 + ramp_ns;
	ss->primed = false;
	ss->n = ss->head = 0;
}

bool sb_ss_tick(struct sb_ss *ss, uint64_t now, uint64_t ios, uint64_t bytes)
{
	if (!ss->primed && now >= ss->t_next) {
		/* ss_ramp is over: samples count from here */
		ss->primed = true;
		ss->last_ios = ios;
		ss->last_bytes = bytes;
		ss->t_next += NS_PER_SEC;
	}
	while (ss->primed && !ss->attained && now >= ss->t_next) {
		ss->iops[ss->head] = ios - ss->last_ios;
		ss->bw[ss->head] = bytes - ss->last_bytes;
		ss->last_ios = ios;
		ss->last_bytes = bytes;
		ss->head = (ss->head + 1) % ss->dur;
		if (ss->n < ss->dur)
			ss->n++;
		ss->t_next += NS_PER_SEC;
		if (ss->n < ss->dur)
			continue;
		/* the window in time order (dur <= SB_SS_MAX_WINDOW: validated) */
		uint64_t win[SB_SS_MAX_WINDOW];
		const uint64_t *ring = ss->state & SB_SS_IOPS ? ss->iops : ss->bw;
		for (unsigned i = 0; i < ss->dur; i++)
			win[i] = ring[(ss->head + i) % ss->dur];
		ss->attained = sb_ss_check(ss->state, ss->limit, win, ss->dur, &ss->criterion,
					   &ss->max_deviation, &ss->slope);
	}
	return ss->attained;
}

void sb_ss_result_fill(const struct sb_ss *ss, uint64_t dur_us, struct sb_ss_result *out)
{
	unsigned keep = ss->n < SB_SS_MAX_WINDOW ? ss->n : SB_SS_MAX_WINDOW;
	double im = 0, bm = 0;
	out->state = ss->state;
	out->limit = ss->limit;
	out->dur_s = (unsigned)(dur_us / 1000000);
	out->attained = ss->attained;
	out->criterion = ss->criterion;
	out->max_deviation = ss->max_deviation;
	out->slope = ss->slope;
	out->n = keep;
	/* the last `keep` samples, oldest first */
	for (unsigned i = 0; i < keep; i++) {
		unsigned at = (ss->head + ss->dur - keep + i) % ss->dur;
		out->iops[i] = ss->iops[at];
		out->bw[i] = ss->bw[at];
		im += (double)ss->iops[at];
		bm += (double)ss->bw[at];
	}
	out->iops_mean = keep ? (uint64_t)(im / keep) : 0;
	out->bw_mean = keep ? (uint64_t)(bm / keep) : 0;
}
