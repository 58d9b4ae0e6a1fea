/* SPDX-License-Identifier: MIT */
/* The controller's API resources (controller/core/resources.h). */
#include "controller/core/resources.h"

#include "core/labels.h"

const struct kube_resource br_res_benchmarkruns = {SB_API_GROUP, SB_API_VERSION_ONLY,
						   SB_PLURAL_RUNS, true};
const struct kube_resource br_res_benchmarkschedules = {SB_API_GROUP, SB_API_VERSION_ONLY,
							SB_PLURAL_SCHEDULES, true};
const struct kube_resource br_res_events = {"", "v1", "events", true};
