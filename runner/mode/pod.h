/* SPDX-License-Identifier: MIT */
/* The runner inside a runner pod (see pod.c). */
#ifndef SB_RUNNER_MODE_POD_H
#define SB_RUNNER_MODE_POD_H

#include "kube/config.h"

/*
 * The runner's API configuration in pod mode: in a pod (KUBERNETES_SERVICE_HOST
 * set) the in-cluster configuration under root (NULL: "/") and nothing else,
 * KUBECONFIG ignored (with a warning), so a variable of the pod's environment
 * cannot choose what the runner trusts or where its token goes; outside a pod
 * (the tests' fake API server) kube_config_load's order. Returns 0 or -errno
 * (details in err); cfg is the caller's to release either way.
 */
int sb_pod_kube_config(struct kube_config *cfg, const char *root, struct kube_error *err);

/* argv[0] is "pod"; the rest are runner options. Returns the exit status. */
int sb_pod_main(int argc, char **argv);

#endif
