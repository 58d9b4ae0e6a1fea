/* SPDX-License-Identifier: MIT */
/*
 * A saturation sweep's reconcile step (controller/sweep/sweep.h): a run with
 * spec.sweep is not run itself; its steps are runs of their own,
 * "<run>-p<N>", created one after another, and when every step ended its
 * report is the last successful step's with the sweep section
 * (lib/report/sweep.h) built from every step's report.
 */
#ifndef SB_CONTROLLER_SWEEP_RECONCILE_H
#define SB_CONTROLLER_SWEEP_RECONCILE_H

#include "controller/core/controller.h"
#include "controller/run/manifests.h"

#include <jansson.h>

/*
 * Reconciles the sweeping run (borrowed, from the runs' cache) of ref,
 * through c->ops (controller/core/ops.h); gen its
 * metadata.generation. Sets *requeue_ms while a step runs (its status is
 * not watched from here). Returns 0 or -errno (retried).
 */
int br_sweep_reconcile(struct br_controller *c, const struct br_ref *ref, const json_t *run,
		       json_int_t gen, long *requeue_ms);

#endif
