/* SPDX-License-Identifier: MIT */
/* The environment names a run may not set (lib/core/envdeny.h). */
#include "tests/unit/harness.h"
#include "core/envdeny.h"

static int test_matches(void)
{
	char buf[32];
	CHECK(sb_env_denied("LD_PRELOAD") != NULL);
	CHECK_STR(sb_env_rule_str(sb_env_denied("LD_AUDIT"), buf, sizeof(buf)), "LD_*");
	CHECK_STR(sb_env_rule_str(sb_env_denied("https_proxy"), buf, sizeof(buf)), "*_proxy");
	CHECK_STR(sb_env_rule_str(sb_env_denied("HTTPS_PROXY"), buf, sizeof(buf)), "*_proxy");
	CHECK_STR(sb_env_rule_str(sb_env_denied("KUBECONFIG"), buf, sizeof(buf)), "KUBECONFIG");
	CHECK(sb_env_denied("KUBECONFIGX") == NULL); /* exact names are exact */
	CHECK(sb_env_denied("XLD_PRELOAD") == NULL); /* prefixes are prefixes */
	CHECK(sb_env_denied("_proxy") != NULL);
	CHECK(sb_env_denied("proxy") == NULL);
	CHECK(sb_env_denied("") == NULL);
	CHECK(sb_env_denied(NULL) == NULL);
	CHECK(sb_env_denied("BS") == NULL);
	return T_PASS;
}

/* Every rule says why, and its pattern is one docs/security.md can list. */
static int test_rules_say_why(void)
{
	size_t n = 0;
	const struct sb_env_rule *r = sb_env_denied_rules(&n);
	CHECK(n >= 15);
	for (size_t i = 0; i < n; i++) {
		CHECK(r[i].pattern && r[i].pattern[0]);
		CHECK(r[i].why && r[i].why[0]);
		CHECK(sb_env_denied(r[i].pattern) == &r[i] || r[i].match == SB_ENV_SUFFIX);
	}
	return T_PASS;
}

static const struct test_case cases[] = {
	{"envdeny/matches", test_matches},
	{"envdeny/rules-say-why", test_rules_say_why},
};
TEST_MAIN(cases)
