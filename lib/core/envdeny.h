/* SPDX-License-Identifier: MIT */
/*
 * The environment names a run may not give its runner pods
 * (spec.runner.env, docs/security.md "The runner's environment"): every
 * name that changes what the runner's binary loads (the dynamic loader, the
 * C library's modules and allocator), what it trusts (TLS configuration and
 * certificates, the kubeconfig) or where it connects (proxies, the resolver,
 * the API server's address), and the project's own SB_ names (labels.h),
 * which are the controller's to set. The one definition: the controller's
 * spec check refuses them, the docs list them, the tests read this table.
 */
#ifndef SB_LIB_CORE_ENVDENY_H
#define SB_LIB_CORE_ENVDENY_H

#include <stddef.h>

/* How a rule matches a name. */
enum sb_env_match {
	SB_ENV_EXACT,  /* the name is the pattern */
	SB_ENV_PREFIX, /* the name starts with the pattern */
	SB_ENV_SUFFIX, /* the name ends with the pattern, in either case (curl reads both) */
};

struct sb_env_rule {
	const char *pattern;
	enum sb_env_match match;
	const char *why; /* "changes ...": what a value could make the runner do */
};

/* The rules, in the order the docs list them; *n is set to their count. Static storage. */
const struct sb_env_rule *sb_env_denied_rules(size_t *n);

/*
 * The rule that refuses name, or NULL when a run may set it. Borrowed from
 * the static table. A NULL or empty name matches nothing.
 */
const struct sb_env_rule *sb_env_denied(const char *name);

/*
 * Writes the rule's pattern as people read it ("LD_*", "*_proxy", "KUBECONFIG")
 * into out; returns out.
 */
char *sb_env_rule_str(const struct sb_env_rule *r, char *out, size_t len);

#endif
