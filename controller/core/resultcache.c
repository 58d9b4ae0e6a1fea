/* SPDX-License-Identifier: MIT */
#include "controller/core/resultcache.h"

#include "controller/run/runkey.h"
#include "core/jsonobj.h"
#include "core/labels.h"
#include "result/resultdoc.h"
#include "result/sign.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The owning BenchmarkRun's name and UID (the first ownerReference of that kind). */
static void run_owner(const json_t *cm, const char **name, const char **uid)
{
	size_t i;
	const json_t *r;
	*name = *uid = NULL;
	json_array_foreach(json_object_get(json_object_get(cm, "metadata"), "ownerReferences"), i,
			   r)
	{
		const char *k = jstr(r, "kind");
		if (k && !strcmp(k, SB_KIND) && jstr(r, "name") && jstr(r, "uid")) {
			*name = jstr(r, "name");
			*uid = jstr(r, "uid");
			return;
		}
	}
}

void br_result_engine(const json_t *doc, char *out, size_t len)
{
	struct sb_result_job job;
	char e[8];
	if (!sb_result_job_parse(json_array_get(json_object_get(doc, SB_RK_JOBS), 0), "", &job, e,
				 sizeof(e)) &&
	    job.engine_ran)
		snprintf(out, len, "%s%s", job.engine_ran,
			 job.engine_reason && *job.engine_reason ? " (fallback)" : "");
	else if (len)
		*out = '\0';
}

/* The verdict on cm (with its data): a new object, NULL on ENOMEM. */
static json_t *verdict_of(const json_t *cm)
{
	char why[512] = "", digest[65] = "", engine[80] = "";
	const char *run, *uid, *ns = jstr(json_object_get(cm, "metadata"), "namespace");
	const char *it_label = label(cm, SB_LABEL_ITERATION);
	const json_t *tv = json_object_get(json_object_get(cm, "data"), SB_RESULT_KEY);
	unsigned char key[SB_SIGN_KEY_BYTES];
	json_t *doc = NULL;
	run_owner(cm, &run, &uid);
	char *end = NULL;
	unsigned long it = it_label ? strtoul(it_label, &end, 10) : 0;
	/* the class the runner signed for: its document's context, else the label */
	json_t *peek = json_is_string(tv) && json_string_length(tv) <= SB_RESULT_MAX_BYTES
			       ? json_loadb(json_string_value(tv), json_string_length(tv), 0, NULL)
			       : NULL;
	char clsbuf[256];
	const char *cls = jstr(json_object_get(peek, SB_RK_CONTEXT), SB_RK_CTX_CLASS);
	if (!cls)
		cls = label(cm, SB_LABEL_CLASS);
	if (cls) { /* a copy: peek goes below */
		snprintf(clsbuf, sizeof(clsbuf), "%s", cls);
		cls = clsbuf;
	}
	json_decref(peek);
	int r = -EINVAL;
	if (!run || !uid)
		snprintf(why, sizeof(why),
			 "not a result of a run (no BenchmarkRun ownerReference)");
	else if (!it_label || !*it_label || *end || it < 1 || it > 100000)
		snprintf(why, sizeof(why), "label %s: not an iteration", SB_LABEL_ITERATION);
	else if (!cls)
		snprintf(why, sizeof(why), "label %s: missing", SB_LABEL_CLASS);
	else if (br_runkey_derive(uid, key))
		snprintf(why, sizeof(why), "the run's signing key is not loaded");
	else {
		struct sb_result_want want = {ns, run, uid, cls, (unsigned)it, key};
		r = sb_result_check(cm, &want, &doc, why, sizeof(why));
		if (!r && sb_sha256_hex(json_string_value(tv), json_string_length(tv), digest))
			r = -ENOMEM;
	}
	if (r == -ENOMEM) {
		json_decref(doc);
		return NULL;
	}
	if (r) {
		json_decref(doc);
		return json_pack("{s:b,s:s}", "ok", 0, "error", why);
	}
	br_result_engine(doc, engine, sizeof(engine));
	json_decref(doc);
	return json_pack("{s:b,s:s,s:s,s:I,s:s,s:s}", "ok", 1, "uid", uid, "class", cls,
			 "iteration", (json_int_t)it, "sha256", digest, "engine", engine);
}

int br_result_verdict_set(json_t *cm)
{
	const char *comp = label(cm, SB_LABEL_COMPONENT);
	if (!comp || strcmp(comp, SB_COMPONENT_RESULT)) {
		json_object_del(cm, BR_RESULT_VERDICT); /* never one from elsewhere */
		return 0;
	}
	json_t *v = verdict_of(cm);
	if (!v || json_object_set_new(cm, BR_RESULT_VERDICT, v))
		return -ENOMEM;
	json_object_del(cm, "data");
	json_object_del(cm, "binaryData");
	return 0;
}

int br_result_counts(const json_t *cm, const struct sb_result_want *w, char *why, size_t whylen)
{
	const json_t *v = json_object_get(cm, BR_RESULT_VERDICT);
	if (!v)
		return sb_result_check(cm, w, NULL, why, whylen);
	const json_t *it = json_object_get(v, "iteration");
	if (!json_is_true(json_object_get(v, "ok"))) {
		if (why)
			snprintf(why, whylen, "%s",
				 jstr(v, "error") ? jstr(v, "error") : "invalid");
		return -EINVAL;
	}
	if (!jstr(v, "uid") || !w->uid || strcmp(jstr(v, "uid"), w->uid) || !jstr(v, "class") ||
	    !w->cls || strcmp(jstr(v, "class"), w->cls) || !json_is_integer(it) ||
	    json_integer_value(it) != (json_int_t)w->iteration) {
		if (why)
			snprintf(why, whylen, "not run uid %s, class '%s', iteration %u",
				 w->uid ? w->uid : "", w->cls ? w->cls : "", w->iteration);
		return -EINVAL;
	}
	return 0;
}

const char *br_result_verdict_engine(const json_t *cm)
{
	const json_t *v = json_object_get(cm, BR_RESULT_VERDICT);
	if (!v)
		return NULL;
	return jstr(v, "engine") ? jstr(v, "engine") : "";
}

/* The cached ConfigMap named name in ns, NULL when not there. */
static const json_t *cached_named(const json_t *cached, const char *ns, const char *name)
{
	size_t i;
	const json_t *cm;
	json_array_foreach(cached, i, cm)
	{
		const char *n = meta(cm, "name"), *s = meta(cm, "namespace");
		if (n && s && ns && !strcmp(n, name) && !strcmp(s, ns))
			return cm;
	}
	return NULL;
}

json_t *br_result_fetched(const json_t *items, const json_t *cached,
			  void (*warn)(void *ctx, const char *msg), void *ctx)
{
	json_t *out = json_array();
	size_t i;
	const json_t *cm;
	json_array_foreach(out ? items : NULL, i, cm)
	{
		const char *name = meta(cm, "name");
		const json_t *c = name ? cached_named(cached, meta(cm, "namespace"), name) : NULL;
		const json_t *v = json_object_get(c, BR_RESULT_VERDICT);
		if (json_is_true(json_object_get(v, "ok"))) {
			const json_t *tv =
				json_object_get(json_object_get(cm, "data"), SB_RESULT_KEY);
			char digest[65] = "";
			if (json_is_string(tv) &&
			    sb_sha256_hex(json_string_value(tv), json_string_length(tv), digest)) {
				json_decref(out);
				return NULL;
			}
			if (!jstr(v, "sha256") || strcmp(digest, jstr(v, "sha256"))) {
				char msg[512];
				snprintf(msg, sizeof(msg),
					 "result %s was skipped: data.%s changed after it was "
					 "counted (not what was verified)",
					 name, SB_RESULT_KEY);
				warn(ctx, msg);
				continue;
			}
		}
		if (json_array_append(out, (json_t *)cm)) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

int br_result_selector(const char *run_label, char *out, size_t len)
{
	int n = snprintf(out, len, "%s=%s,%s=%s", SB_LABEL_COMPONENT, SB_COMPONENT_RESULT,
			 SB_LABEL_RUN, run_label);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
