/* SPDX-License-Identifier: MIT */
/*
 * The API resources of the controller's own kinds and of the Events it
 * records, defined once for the informers, the reconcilers and the status
 * writer (lib/kube/resource.h has the built-in ones).
 */
#ifndef SB_CONTROLLER_CORE_RESOURCES_H
#define SB_CONTROLLER_CORE_RESOURCES_H

#include "kube/kube.h"

extern const struct kube_resource br_res_benchmarkruns;
extern const struct kube_resource br_res_benchmarkschedules;
extern const struct kube_resource br_res_events;

#endif
