/* SPDX-License-Identifier: MIT */
/*
 * Whose an object is: the one rule the controller and the runner apply to
 * an object of a run they find in the cluster (an object that answered
 * AlreadyExists, a result ConfigMap).
 *
 * An object belongs to a run only when an ownerReference carries the run's
 * UID: a run deleted and re-created under the same name leaves objects of
 * the old UID that the garbage collector is about to delete, and anyone
 * who can create ConfigMaps can make one with the run's labels and names.
 */
#ifndef SB_LIB_RESULT_OWNER_H
#define SB_LIB_RESULT_OWNER_H

#include <jansson.h>
#include <stddef.h>

enum sb_owner_verdict {
	SB_OWNER_OURS = 0, /* an ownerReference carries the run's UID */
	SB_OWNER_DELETING, /* metadata.deletionTimestamp is set: wait until it is gone */
	SB_OWNER_STALE,	   /* owned by an earlier BenchmarkRun of the same name (another UID) */
	SB_OWNER_FOREIGN,  /* anything else: not ours, never used or changed */
};

/*
 * The verdict on obj (borrowed) for the BenchmarkRun run with uid. why
 * (may be NULL) says in a few words what was found, e.g. "owned by
 * BenchmarkRun x uid 1234" or "no ownerReference".
 */
enum sb_owner_verdict sb_owner_check(const json_t *obj, const char *run, const char *uid, char *why,
				     size_t whylen);

/* "ours", "being deleted", "left by an earlier run of the same name", "not this run's". */
const char *sb_owner_verdict_str(enum sb_owner_verdict v);

/* What a result ConfigMap must be to count as one iteration of a run. */
struct sb_result_want {
	const char *ns, *run, *uid, *cls; /* the run (name, UID), its storage class */
	unsigned iteration;
	/* the run's signing key (lib/result/sign.h), SB_SIGN_KEY_BYTES; NULL: the MAC is not
	 * checked (a unit test of the other rules) */
	const unsigned char *key;
};

/*
 * The rule for "this result ConfigMap is iteration want->iteration of this
 * run, and valid": in want->ns, owned by want->uid (sb_owner_check: ours,
 * not being deleted), labelled component=result with the run's, class's
 * and iteration's label values, data[SB_RESULT_KEY] at most
 * SB_RESULT_MAX_BYTES of JSON with a list "jobs", and, when the document
 * has a "context" (the runner writes one), its run, class and iteration
 * are these, and, with a key, data[SB_RESULT_MAC_KEY] is the MAC of the
 * text under the key (lib/result/sign.h: signed by the run's runner, not changed
 * since). Returns 0 (with *doc the parsed document, a new reference,
 * when doc is not NULL), -EINVAL when the ConfigMap is not one (why says
 * which field and what is wrong), -ENOMEM.
 */
int sb_result_check(const json_t *cm, const struct sb_result_want *want, json_t **doc, char *why,
		    size_t whylen);

#endif
