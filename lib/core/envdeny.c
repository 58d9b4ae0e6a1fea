/* SPDX-License-Identifier: MIT */
/* The environment names a run may not give its runner pods (envdeny.h). */
#include "core/envdeny.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define LOADS  "changes what the runner loads"
#define TRUSTS "changes what the runner trusts"
#define GOES   "changes where the runner connects"

static const struct sb_env_rule rules[] = {
	{"LD_", SB_ENV_PREFIX, LOADS " (the dynamic loader: LD_PRELOAD, LD_LIBRARY_PATH, ...)"},
	{"GCONV_PATH", SB_ENV_EXACT, LOADS " (the C library's character set modules)"},
	{"GLIBC_TUNABLES", SB_ENV_EXACT, LOADS " (the C library's tunables)"},
	{"MALLOC_", SB_ENV_PREFIX, LOADS " (the C library's allocator)"},
	{"LOCPATH", SB_ENV_EXACT, LOADS " (locale files)"},
	{"NLSPATH", SB_ENV_EXACT, LOADS " (message catalogues)"},
	{"TZDIR", SB_ENV_EXACT, LOADS " (time zone files)"},
	{"KUBECONFIG", SB_ENV_EXACT, TRUSTS " (its API server, credentials and CA)"},
	{"SSL_", SB_ENV_PREFIX, TRUSTS " (TLS certificates: SSL_CERT_FILE, SSL_CERT_DIR)"},
	{"OPENSSL_", SB_ENV_PREFIX, TRUSTS " (OpenSSL's configuration, modules, engines)"},
	{"CURL_", SB_ENV_PREFIX, TRUSTS " (libcurl's CA bundle and settings)"},
	{"_proxy", SB_ENV_SUFFIX, GOES " (a proxy: http_proxy, https_proxy, all_proxy, no_proxy)"},
	{"KUBERNETES_", SB_ENV_PREFIX, GOES " (the API server's address)"},
	{"HOSTALIASES", SB_ENV_EXACT, GOES " (the resolver's host aliases)"},
	{"RES_OPTIONS", SB_ENV_EXACT, GOES " (the resolver's options)"},
	{"LOCALDOMAIN", SB_ENV_EXACT, GOES " (the resolver's search domains)"},
	{"SB_", SB_ENV_PREFIX, "is the controller's (the runner's contract with it)"},
};

const struct sb_env_rule *sb_env_denied_rules(size_t *n)
{
	*n = sizeof(rules) / sizeof(rules[0]);
	return rules;
}

static int matches(const struct sb_env_rule *r, const char *name)
{
	size_t n = strlen(name), p = strlen(r->pattern);
	switch (r->match) {
	case SB_ENV_EXACT:
		return !strcmp(name, r->pattern);
	case SB_ENV_PREFIX:
		return !strncmp(name, r->pattern, p);
	case SB_ENV_SUFFIX:
		return n >= p && !strcasecmp(name + n - p, r->pattern);
	}
	return 0;
}

const struct sb_env_rule *sb_env_denied(const char *name)
{
	if (!name || !*name)
		return NULL;
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (matches(&rules[i], name))
			return &rules[i];
	return NULL;
}

char *sb_env_rule_str(const struct sb_env_rule *r, char *out, size_t len)
{
	(void)snprintf(out, len, "%s%s%s", r->match == SB_ENV_SUFFIX ? "*" : "", r->pattern,
		       r->match == SB_ENV_PREFIX ? "*" : "");
	return out;
}
