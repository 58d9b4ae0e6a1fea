/* SPDX-License-Identifier: MIT */
/*
 * The runner policy: what a BenchmarkRun may ask of its runner pods. The
 * cluster admin sets it (the chart's runnerPolicy values, passed as the
 * controller's --runner-* flags); the controller enforces it when it
 * validates a run, before it creates anything, so creating a BenchmarkRun
 * gives no more power than creating a BenchmarkRun. docs/security.md has
 * the why.
 *
 * Safe defaults: the runner image is the controller's own; the runner
 * ServiceAccount is the runner's own; runner pods meet the "restricted" Pod
 * Security Standard (no privileged, no host namespaces, no added
 * capabilities but NET_BIND_SERVICE, runAsNonRoot, seccomp set, no
 * privilege escalation). The admin widens it with an image repository
 * allowlist, a ServiceAccount allowlist, a higher pod security level
 * (baseline, privileged) and, apart, hostNetwork.
 */
#ifndef SB_CONTROLLER_RUN_POLICY_H
#define SB_CONTROLLER_RUN_POLICY_H

#include "controller/run/spec.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The Pod Security Standards' levels, from the narrowest. */
enum br_pss_level { BR_PSS_RESTRICTED, BR_PSS_BASELINE, BR_PSS_PRIVILEGED };

#define BR_POLICY_MAX_LIST 32

struct br_policy {
	enum br_pss_level pod_security; /* the widest level a runner pod may reach */
	bool allow_host_network;	/* hostNetwork below the privileged level */
	const char *runner_image;	/* the controller's own runner image; NULL: none */
	const char *runner_sa; /* the runner's own ServiceAccount; NULL: storagebench-runner */
	/* allowed image repositories: "reg/path/" (every repository under it),
	 * "reg/path/name" (that repository, any tag or digest) or "*" */
	const char *images[BR_POLICY_MAX_LIST];
	size_t nimages;
	const char *service_accounts[BR_POLICY_MAX_LIST]; /* names, or "*" */
	size_t nservice_accounts;
	char *owned[8]; /* the flag values the lists point into */
	size_t nowned;
};

/* The default (narrowest) policy; strings borrowed. */
#define BR_POLICY_INIT                                                                \
	{                                                                             \
		BR_PSS_RESTRICTED, false, NULL, NULL, {NULL}, 0, {NULL}, 0, {NULL}, 0 \
	}

/* "restricted", "baseline" or "privileged". */
const char *br_pss_level_name(enum br_pss_level l);
/* Parses a level name. Returns 0 or -EINVAL. */
int br_pss_level_parse(const char *s, enum br_pss_level *out);

/*
 * Applies one of the controller's policy flags (name without "--": e.g.
 * "runner-allowed-images", value "reg/a/,reg/b") to p. List flags append;
 * a list value is copied (p owns the copy). Returns 0, 1 when name is not
 * a policy flag, -EINVAL with err naming the flag, or -ENOMEM.
 */
int br_policy_flag(struct br_policy *p, const char *name, const char *value, char *err,
		   size_t errlen);

/* Frees what br_policy_flag copied; p is the default policy again. */
void br_policy_release(struct br_policy *p);

/* True when image (a reference: repo[:tag][@digest]) may run under p. */
bool br_policy_image_allowed(const struct br_policy *p, const char *image);

/*
 * Checks a parsed spec against the policy. Returns 0, or -EACCES with err
 * naming the field, what the policy allows and how an admin widens it
 * ("spec.runner.hostNetwork: true is not allowed by the runner policy
 * ..."). Borrowed arguments.
 */
int br_policy_check(const struct br_policy *p, const struct br_spec *s, char *err, size_t errlen);

/*
 * The Pod Security Standard level a pod (a manifest, borrowed) meets: the
 * narrowest of restricted, baseline, privileged whose checks it passes.
 * why (may be NULL) gets the first check that kept it from the narrower
 * level ("" for restricted).
 */
enum br_pss_level br_pss_evaluate(const json_t *pod, char *why, size_t whylen);

/*
 * The provenance of a run's runner pods, for the report: what the runner
 * ran as (image, ServiceAccount, hostNetwork, the security contexts and
 * the Pod Security level of the pod the controller creates) and the policy
 * it was checked against. pod is one of the run's runner pod manifests
 * (borrowed). Returns a new reference, or NULL on ENOMEM.
 */
json_t *br_policy_provenance(const struct br_policy *p, const json_t *pod);

#endif
