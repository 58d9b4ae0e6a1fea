/* SPDX-License-Identifier: MIT */
#include "owner.h"
#include "core/errfmt.h"
#include "core/jsonobj.h"

#include "core/labels.h"
#include "core/names.h"
#include "core/units.h"
#include "resultdoc.h"
#include "sign.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum sb_owner_verdict sb_owner_check(const json_t *obj, const char *run, const char *uid, char *why,
				     size_t whylen)
{
	const json_t *md = json_object_get(obj, "metadata");
	const json_t *refs = json_object_get(md, "ownerReferences");
	const json_t *r;
	size_t i;
	bool stale = false;
	char first[256] = "";

	sb_errf(why, whylen, 0, "no ownerReference");
	json_array_foreach(refs, i, r)
	{
		const char *u = jstr(r, "uid"), *k = jstr(r, "kind"), *n = jstr(r, "name");
		const char *av = jstr(r, "apiVersion");
		bool run_kind = k && !strcmp(k, SB_KIND) && av &&
				!strncmp(av, SB_API_GROUP "/", strlen(SB_API_GROUP "/"));
		if (run_kind && u && uid && *uid && !strcmp(u, uid)) {
			sb_errf(why, whylen, 0, "owned by this run");
			if (jstr(md, "deletionTimestamp")) {
				sb_errf(why, whylen, 0, "being deleted");
				return SB_OWNER_DELETING;
			}
			return SB_OWNER_OURS;
		}
		if (run_kind && n && run && !strcmp(n, run))
			stale = true;
		if (!first[0])
			snprintf(first, sizeof(first), "owned by %s %s uid %s", k ? k : "(no kind)",
				 n ? n : "(no name)", u ? u : "(none)");
	}
	if (first[0])
		sb_errf(why, whylen, 0, "%s", first);
	if (jstr(md, "deletionTimestamp")) {
		sb_errf(why, whylen, 0, "being deleted");
		return SB_OWNER_DELETING;
	}
	return stale ? SB_OWNER_STALE : SB_OWNER_FOREIGN;
}

const char *sb_owner_verdict_str(enum sb_owner_verdict v)
{
	switch (v) {
	case SB_OWNER_OURS:
		return "ours";
	case SB_OWNER_DELETING:
		return "being deleted";
	case SB_OWNER_STALE:
		return "left by an earlier run of the same name";
	case SB_OWNER_FOREIGN:
		break;
	}
	return "not this run's";
}

static int label_is(const json_t *cm, const char *key, const char *want, char *why, size_t len)
{
	const char *v = jstr(json_object_get(json_object_get(cm, "metadata"), "labels"), key);
	if (!v || strcmp(v, want)) {
		sb_errf(why, len, 0, "label %s: '%s', not '%s'", key, v ? v : "(missing)", want);
		return -EINVAL;
	}
	return 0;
}

/* Label key of cm as a number 1..max into *out; absent: 0. 0, or -EINVAL with why. */
static int label_number(const json_t *cm, const char *key, uint64_t max, unsigned *out, char *why,
			size_t len)
{
	const char *v = jstr(json_object_get(json_object_get(cm, "metadata"), "labels"), key);
	uint64_t n = 0;
	*out = 0;
	if (!v)
		return 0;
	if (sb_parse_uint(v, max, &n) || n < 1) {
		sb_errf(why, len, 0, "label %s: '%s' is not a number from 1 to %llu", key, v,
			(unsigned long long)max);
		return -EINVAL;
	}
	*out = (unsigned)n;
	return 0;
}

/* The result's MAC under the key, for the member and attempt its labels name; 0 or -EINVAL. */
static int check_mac(const json_t *cm, const struct sb_result_want *w, const json_t *tv, char *why,
		     size_t whylen)
{
	struct sb_sign_subject subj = {w->uid, w->cls, w->iteration, 0, 0};
	if (label_number(cm, SB_LABEL_MEMBER, 64, &subj.member, why, whylen) ||
	    label_number(cm, SB_LABEL_ATTEMPT, UINT32_MAX, &subj.attempt, why, whylen))
		return -EINVAL;
	const json_t *mv = json_object_get(json_object_get(cm, "data"), SB_RESULT_MAC_KEY);
	int vr = json_is_string(mv)
			 ? sb_sign_verify(w->key, SB_SIGN_KEY_BYTES, &subj, json_string_value(tv),
					  json_string_length(tv), json_string_value(mv))
			 : -ENOENT;
	if (!vr)
		return 0;
	sb_errf(why, whylen, 0, "data.%s: %s", SB_RESULT_MAC_KEY,
		vr == -ENOENT	 ? "missing (not signed by the run's runner)"
		: vr == -EBADMSG ? "does not match the result, its member and attempt (forged, "
				   "changed or relabelled)"
		: vr == -EINVAL	 ? "not 64 hex digits"
				 : "cannot be checked");
	return -EINVAL;
}

int sb_result_check(const json_t *cm, const struct sb_result_want *w, json_t **doc, char *why,
		    size_t whylen)
{
	char run_label[64], cls_label[64], itb[16], owner[300];
	const json_t *md = json_object_get(cm, "metadata");
	const char *ns = jstr(md, "namespace");

	if (doc)
		*doc = NULL;
	if (!json_is_object(cm) || !w || !w->run || !w->uid || !w->cls) {
		sb_errf(why, whylen, 0, "not an object");
		return -EINVAL;
	}
	if (sb_name_label(run_label, sizeof(run_label), w->run) ||
	    sb_name_label(cls_label, sizeof(cls_label), w->cls))
		return -EINVAL;
	snprintf(itb, sizeof(itb), "%u", w->iteration);
	if (w->ns && (!ns || strcmp(ns, w->ns))) {
		sb_errf(why, whylen, 0, "namespace '%s', not '%s'", ns ? ns : "(none)", w->ns);
		return -EINVAL;
	}
	enum sb_owner_verdict v = sb_owner_check(cm, w->run, w->uid, owner, sizeof(owner));
	if (v != SB_OWNER_OURS) {
		sb_errf(why, whylen, 0, "not a result of this run (%s)", owner);
		return -EINVAL;
	}
	if (label_is(cm, SB_LABEL_COMPONENT, SB_COMPONENT_RESULT, why, whylen) ||
	    label_is(cm, SB_LABEL_RUN, run_label, why, whylen) ||
	    label_is(cm, SB_LABEL_CLASS, cls_label, why, whylen) ||
	    label_is(cm, SB_LABEL_ITERATION, itb, why, whylen))
		return -EINVAL;
	const json_t *tv = json_object_get(json_object_get(cm, "data"), SB_RESULT_KEY);
	if (!json_is_string(tv)) {
		sb_errf(why, whylen, 0, "data.%s: missing", SB_RESULT_KEY);
		return -EINVAL;
	}
	if (json_string_length(tv) > SB_RESULT_MAX_BYTES) {
		sb_errf(why, whylen, 0, "data.%s: %zu bytes, more than a runner writes (%d)",
			SB_RESULT_KEY, json_string_length(tv), SB_RESULT_MAX_BYTES);
		return -EINVAL;
	}
	if (w->key && check_mac(cm, w, tv, why, whylen))
		return -EINVAL;
	json_error_t je;
	json_t *d = json_loadb(json_string_value(tv), json_string_length(tv), 0, &je);
	if (!d) {
		sb_errf(why, whylen, 0, "data.%s: not JSON (%s at line %d)", SB_RESULT_KEY, je.text,
			je.line);
		return -EINVAL;
	}
	int ret = 0;
	const json_t *ctx = json_object_get(d, SB_RK_CONTEXT);
	const json_t *cit = json_object_get(ctx, SB_RK_CTX_ITERATION);
	if (!json_is_object(d) || !json_is_array(json_object_get(d, SB_RK_JOBS))) {
		sb_errf(why, whylen, 0, "data.%s: %s: missing or not a list", SB_RESULT_KEY,
			SB_RK_JOBS);
		ret = -EINVAL;
	} else if (ctx &&
		   (!json_is_object(ctx) || !jstr(ctx, SB_RK_CTX_RUN) ||
		    strcmp(jstr(ctx, SB_RK_CTX_RUN), w->run) || !jstr(ctx, SB_RK_CTX_CLASS) ||
		    strcmp(jstr(ctx, SB_RK_CTX_CLASS), w->cls) || !json_is_integer(cit) ||
		    json_integer_value(cit) != (json_int_t)w->iteration)) {
		sb_errf(why, whylen, 0, "data.%s: context: not run '%s', class '%s', iteration %u",
			SB_RESULT_KEY, w->run, w->cls, w->iteration);
		ret = -EINVAL;
	}
	if (ret || !doc)
		json_decref(d);
	else
		*doc = d;
	return ret;
}
