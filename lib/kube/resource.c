/* SPDX-License-Identifier: MIT */
/* The resource types lib/kube's users name most (kube/resource.h). */
#include "kube/resource.h"

#include <stdbool.h>

const struct kube_resource kube_res_configmaps = {"", "v1", "configmaps", true};
const struct kube_resource kube_res_secrets = {"", "v1", "secrets", true};
const struct kube_resource kube_res_namespaces = {"", "v1", "namespaces", false};
const struct kube_resource kube_res_pods = {"", "v1", "pods", true};
const struct kube_resource kube_res_serviceaccounts = {"", "v1", "serviceaccounts", true};
const struct kube_resource kube_res_pvcs = {"", "v1", "persistentvolumeclaims", true};
const struct kube_resource kube_res_pvs = {"", "v1", "persistentvolumes", false};
const struct kube_resource kube_res_storageclasses = {"storage.k8s.io", "v1", "storageclasses",
						      false};
const struct kube_resource kube_res_jobs = {"batch", "v1", "jobs", true};
const struct kube_resource kube_res_leases = {"coordination.k8s.io", "v1", "leases", true};
const struct kube_resource kube_res_crds = {"apiextensions.k8s.io", "v1",
					    "customresourcedefinitions", false};
