/* SPDX-License-Identifier: MIT */
#include "core/invocation.h"

#include "core/labels.h"
#include "core/units.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool add(json_t *env, const char *name, const char *value)
{
	return json_array_append_new(env, json_pack("{s:s,s:s}", "name", name, "value", value)) ==
	       0;
}

static bool add_field(json_t *env, const char *name, const char *path)
{
	return json_array_append_new(env, json_pack("{s:s,s:{s:{s:s}}}", "name", name, "valueFrom",
						    "fieldRef", "fieldPath", path)) == 0;
}

static bool add_uint(json_t *env, const char *name, unsigned long v)
{
	char b[24];
	snprintf(b, sizeof(b), "%lu", v);
	return add(env, name, b);
}

int sb_invocation_env(const struct sb_invocation *inv, json_t *env)
{
	if (!inv || !inv->run || !inv->uid || !inv->cls || !json_is_array(env))
		return -EINVAL;
	bool ok = add(env, SB_ENV_RUN, inv->run) && add(env, SB_ENV_RUN_UID, inv->uid) &&
		  add(env, SB_ENV_CLASS, inv->cls) &&
		  add_uint(env, SB_ENV_ITERATIONS, inv->iterations) &&
		  add_uint(env, SB_ENV_ATTEMPT, inv->attempt) &&
		  add_field(env, SB_ENV_NAMESPACE, "metadata.namespace") &&
		  add_field(env, SB_ENV_POD_NAME, "metadata.name");
	if (ok && inv->jobfile_sha256)
		ok = add(env, SB_ENV_JOBFILE_SHA256, inv->jobfile_sha256);
	if (ok && inv->members > 1)
		ok = add_uint(env, SB_ENV_MEMBER, inv->member) &&
		     add_uint(env, SB_ENV_MEMBERS, inv->members) &&
		     add(env, SB_ENV_DONE, inv->done ? inv->done : "") &&
		     add_uint(env, SB_ENV_BARRIER_TIMEOUT,
			      (unsigned long)(inv->barrier_s > 0
						      ? inv->barrier_s
						      : SB_INVOCATION_BARRIER_DEFAULT_S)) &&
		     add_field(env, SB_ENV_NODE_NAME, "spec.nodeName");
	return ok ? 0 : -ENOMEM;
}

int sb_invocation_from_env(struct sb_invocation *inv, char *err, size_t len)
{
	static const char *const names[] = {SB_ENV_RUN, SB_ENV_RUN_UID, SB_ENV_CLASS,
					    SB_ENV_NAMESPACE, SB_ENV_POD_NAME};
	memset(inv, 0, sizeof(*inv));
	const char **dst[] = {&inv->run, &inv->uid, &inv->cls, &inv->ns, &inv->pod};
	for (size_t i = 0; i < 5; i++) {
		*dst[i] = getenv(names[i]);
		if (!*dst[i] || !**dst[i]) {
			snprintf(err, len,
				 "environment variable %s is not set (pod mode runs in a "
				 "runner pod created by the controller)",
				 names[i]);
			return -EINVAL;
		}
	}
	const char *it = getenv(SB_ENV_ITERATIONS), *at = getenv(SB_ENV_ATTEMPT);
	uint64_t n = 0;
	if (!it || sb_parse_uint(it, 100000, &n) || n < 1) {
		snprintf(err, len, "%s: '%s' is not a count from 1 to 100000", SB_ENV_ITERATIONS,
			 it ? it : "");
		return -EINVAL;
	}
	inv->iterations = (unsigned)n;
	uint64_t u = 1;
	if (at && *at && sb_parse_uint(at, UINT32_MAX, &u)) {
		snprintf(err, len, "%s: '%s' is not an attempt number", SB_ENV_ATTEMPT, at);
		return -EINVAL;
	}
	inv->attempt = (unsigned)u;
	inv->jobfile_sha256 = getenv(SB_ENV_JOBFILE_SHA256);
	const char *ms = getenv(SB_ENV_MEMBERS), *m = getenv(SB_ENV_MEMBER);
	const char *bt = getenv(SB_ENV_BARRIER_TIMEOUT);
	inv->members = 1;
	if (ms && *ms) {
		uint64_t nm = 0, mm = 0;
		if (sb_parse_uint(ms, 64, &nm) || !m || sb_parse_uint(m, nm, &mm) || nm < 1 ||
		    mm < 1) {
			snprintf(err, len, "%s/%s: '%s' of '%s' is not a member of 1 to 64",
				 SB_ENV_MEMBER, SB_ENV_MEMBERS, m ? m : "", ms);
			return -EINVAL;
		}
		inv->members = (unsigned)nm;
		inv->member = (unsigned)mm;
	}
	inv->done = getenv(SB_ENV_DONE) ? getenv(SB_ENV_DONE) : "";
	inv->node = getenv(SB_ENV_NODE_NAME) ? getenv(SB_ENV_NODE_NAME) : "";
	inv->barrier_s = bt ? strtol(bt, NULL, 10) : SB_INVOCATION_BARRIER_DEFAULT_S;
	if (inv->barrier_s <= 0)
		inv->barrier_s = SB_INVOCATION_BARRIER_DEFAULT_S;
	return 0;
}
