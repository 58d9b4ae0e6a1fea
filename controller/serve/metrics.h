/* SPDX-License-Identifier: MIT */
/*
 * The controller's Prometheus metrics: runs by phase (read from the cache
 * at scrape time), iterations completed, API errors, reconciles and their
 * durations, leadership. Counters are updated from any thread.
 */
#ifndef SB_CONTROLLER_SERVE_METRICS_H
#define SB_CONTROLLER_SERVE_METRICS_H

#include <stdbool.h>
#include <stddef.h>

struct br_metrics;

struct br_metrics *br_metrics_new(void);
void br_metrics_free(struct br_metrics *m);

void br_metrics_iterations(struct br_metrics *m, unsigned long n);
void br_metrics_api_error(struct br_metrics *m);
/* A reconcile that took seconds and ended in result ("ok", "error", "requeue"). */
void br_metrics_reconcile(struct br_metrics *m, double seconds, const char *result);
void br_metrics_leader(struct br_metrics *m, bool leading);
/* Whether this replica leads (as last set with br_metrics_leader). */
bool br_metrics_leading(struct br_metrics *m);

/* Runs by phase, given at scrape time (phase names, counts). */
struct br_phase_count {
	const char *phase;
	unsigned long n;
};

/*
 * Renders the text exposition format (version 0.0.4). phases may be NULL.
 * Returns a malloc'd string or NULL on ENOMEM.
 */
char *br_metrics_render(struct br_metrics *m, const struct br_phase_count *phases, size_t nphases);

#endif
