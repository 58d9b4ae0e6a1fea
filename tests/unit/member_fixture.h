/* SPDX-License-Identifier: MIT */
/*
 * Test fixtures for distributed runs (spec.runner.pods > 1): the ConfigMaps
 * a member runner pod writes, in the shape runner/mode/pod.c writes them: its
 * result (signed with the run's key, controller/run/runkey.h: the caller sets
 * the master key first) and its start-barrier "ready" mark. Used by
 * test_distrib.c and test_reconcile.c.
 */
#ifndef SB_TEST_MEMBER_FIXTURE_H
#define SB_TEST_MEMBER_FIXTURE_H

#include "controller/run/runkey.h"
#include "core/labels.h"
#include "core/names.h"
#include "result/sign.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* Which member of which run wrote it. */
struct fx_member {
	const char *ns, *run, *uid, *cls;
	unsigned iteration, attempt, member;
};

/* name, labels (component comp, run, class, iteration, attempt, member) and the run as owner */
static inline json_t *fx_member_cm(const struct fx_member *m, const char *name, const char *comp)
{
	char run_label[64], cls_label[64], it[16], at[16], mb[16];
	if (sb_name_label(run_label, sizeof(run_label), m->run) ||
	    sb_name_label(cls_label, sizeof(cls_label), m->cls))
		return NULL;
	snprintf(it, sizeof(it), "%u", m->iteration);
	snprintf(at, sizeof(at), "%u", m->attempt);
	snprintf(mb, sizeof(mb), "%u", m->member);
	return json_pack("{s:{s:s,s:s,s:s,s:{s:s,s:s,s:s,s:s,s:s,s:s,s:s},"
			 "s:[{s:s,s:s,s:s,s:s}]},s:{}}",
			 "metadata", "name", name, "namespace", m->ns, "creationTimestamp",
			 "2026-12-01T10:00:00Z", "labels", SB_LABEL_COMPONENT, comp, SB_LABEL_RUN,
			 run_label, SB_LABEL_CLASS, cls_label, SB_LABEL_ITERATION, it,
			 SB_LABEL_ATTEMPT, at, SB_LABEL_MEMBER, mb, SB_LABEL_MANAGED_BY, SB_MANAGER,
			 "ownerReferences", "apiVersion", SB_API_VERSION, "kind", SB_KIND, "name",
			 m->run, "uid", m->uid, "data");
}

/*
 * Member m's result ConfigMap holding text (result.json); signed with the
 * run's key when sign (a forgery otherwise). A new reference, NULL on
 * failure.
 */
static inline json_t *fx_member_result(const struct fx_member *m, const char *text, bool sign)
{
	char name[64];
	if (sb_name_member_result(name, sizeof(name), m->run, m->cls, m->iteration, m->attempt,
				  m->member))
		return NULL;
	json_t *cm = fx_member_cm(m, name, "result");
	json_t *data = json_object_get(cm, "data");
	if (!data || json_object_set_new(data, SB_RESULT_KEY, json_string(text))) {
		json_decref(cm);
		return NULL;
	}
	if (sign) {
		unsigned char key[SB_SIGN_KEY_BYTES];
		char mac[SB_SIGN_HEX_LEN + 1];
		if (br_runkey_derive(m->uid, key) ||
		    sb_sign_result(key, sizeof(key),
				   &(struct sb_sign_subject){m->uid, m->cls, m->iteration,
							     m->member, m->attempt},
				   text, strlen(text), mac) ||
		    json_object_set_new(data, SB_RESULT_MAC_KEY, json_string(mac))) {
			json_decref(cm);
			return NULL;
		}
	}
	return cm;
}

/* Member m's mark at the start barrier of workload group 0. A new reference, NULL on failure. */
static inline json_t *fx_member_ready(const struct fx_member *m)
{
	char name[64];
	if (sb_name_ready(name, sizeof(name), m->run, m->cls, m->iteration, m->attempt, m->member,
			  0))
		return NULL;
	return fx_member_cm(m, name, SB_COMPONENT_READY);
}

#endif
