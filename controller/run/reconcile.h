/* SPDX-License-Identifier: MIT */
/*
 * The BenchmarkRun reconciler: one pass over one run (controller/run/pass.h
 * has its steps), registered with the controller's workers by main.c.
 */
#ifndef SB_CONTROLLER_RUN_RECONCILE_H
#define SB_CONTROLLER_RUN_RECONCILE_H

struct br_controller;

/*
 * Reconciles the run ns/name once, through c->ops. *requeue_ms: when to
 * look again (0: on the next change). 0, or -errno (retried with backoff).
 */
int br_reconcile(struct br_controller *c, const char *ns, const char *name, long *requeue_ms);

#endif
