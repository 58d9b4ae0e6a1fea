/* SPDX-License-Identifier: MIT */
/*
 * The real operations table (controller/core/ops.h): the controller's
 * client and informers. main.c builds it and hands it to
 * br_controller_init; the unit tests hand theirs (tests/unit/fakeops.h).
 */
#ifndef SB_CONTROLLER_CORE_KUBEOPS_H
#define SB_CONTROLLER_CORE_KUBEOPS_H

#include "controller/core/ops.h"

struct br_controller;

/* The table over c's client and informers into *out (arg is c): c need not be initialised yet. */
void br_ops_kube(struct br_controller *c, struct br_ops *out);

#endif
