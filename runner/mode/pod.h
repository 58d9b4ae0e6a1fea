/* SPDX-License-Identifier: MIT */
/* The runner inside a runner pod (see pod.c). */
#ifndef SB_RUNNER_MODE_POD_H
#define SB_RUNNER_MODE_POD_H

#include "kube/config.h"

#include <stddef.h>
#include <stdint.h>

/*
 * The runner's API configuration in pod mode: in a pod (KUBERNETES_SERVICE_HOST
 * set) the in-cluster configuration under root (NULL: "/") and nothing else,
 * KUBECONFIG ignored (with a warning), so a variable of the pod's environment
 * cannot choose what the runner trusts or where its token goes; outside a pod
 * (the tests' fake API server) kube_config_load's order. Returns 0 or -errno
 * (details in err); cfg is the caller's to release either way.
 */
int sb_pod_kube_config(struct kube_config *cfg, const char *root, struct kube_error *err);

/*
 * The start time a distributed iteration's start ConfigMap cm says (value:
 * its data.startUnixNano, may be NULL), checked against now (CLOCK_REALTIME,
 * ns; a parameter so the tests choose it) for iteration it: 0 with *when
 * set; -EINVAL when value is not a positive decimal time; -ERANGE when it is
 * more than barrier_s seconds ahead (no start the controller sets, which is
 * a few seconds ahead: a planted one would hold the pod for as long as it
 * says); -ETIME when it is more than a second past (the others started
 * without this pod). *when is set unless -EINVAL; err says why.
 */
int sb_pod_start_time(const char *cm, unsigned it, const char *value, int64_t now, long barrier_s,
		      int64_t *when, char *err, size_t errlen);

/* argv[0] is "pod"; the rest are runner options. Returns the exit status. */
int sb_pod_main(int argc, char **argv);

#endif
