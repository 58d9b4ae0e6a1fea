/* SPDX-License-Identifier: MIT */
/*
 * What a request names: a resource type (group, version, plural, whether
 * namespaced), the resource types lib/kube's users name most, and the
 * query parameters of a request (lib/kube, conventions in kube/kube.h).
 */
#ifndef SB_LIB_KUBE_RESOURCE_H
#define SB_LIB_KUBE_RESOURCE_H

#include <stdbool.h>

/*
 * A resource type: group ("" for the core group), version, plural resource
 * name, and whether objects live in a namespace. Strings are borrowed.
 */
struct kube_resource {
	const char *group;
	const char *version;
	const char *resource;
	bool namespaced;
};

extern const struct kube_resource kube_res_configmaps;
extern const struct kube_resource kube_res_secrets;
extern const struct kube_resource kube_res_namespaces;
extern const struct kube_resource kube_res_pods;
extern const struct kube_resource kube_res_serviceaccounts;
extern const struct kube_resource kube_res_pvcs;
extern const struct kube_resource kube_res_pvs;
extern const struct kube_resource kube_res_storageclasses;
extern const struct kube_resource kube_res_jobs;
extern const struct kube_resource kube_res_leases;
extern const struct kube_resource kube_res_crds;

/* One query parameter; value NULL means the parameter is left out. */
struct kube_query {
	const char *key;
	const char *value;
};

#endif
