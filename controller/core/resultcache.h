/* SPDX-License-Identifier: MIT */
/*
 * Result ConfigMaps in the informer cache without their data (issue 16).
 *
 * The ConfigMap informer's transform (br_cache_transform) checks a result
 * ConfigMap (labelled SB_LABEL_COMPONENT "result") when it arrives, by the
 * one rule for results (lib/result/owner.h sb_result_check: owner, labels, size,
 * JSON, context and the HMAC under the run's key, derived from the owning
 * run's UID), then drops its data and keeps the verdict instead, in the
 * top-level member BR_RESULT_VERDICT (no ConfigMap has one; the transform
 * always overwrites it, so one sent by the API server is never trusted):
 *
 *	{"ok": true, "uid": <the run's UID>, "class": <the class verified>,
 *	 "iteration": N, "sha256": <hex digest of data[SB_RESULT_KEY]>,
 *	 "engine": "io_uring" | "psync (fallback)" | ""}
 *	{"ok": false, "error": "<why: sb_result_check's text>"}
 *
 * observe counts iterations from the verdict; the report fetches the data
 * on demand (one LIST of the run's result ConfigMaps) and checks that each
 * fetched ConfigMap's data is still what was verified (br_result_fetched).
 * With no master key loaded a result's verdict is not ok.
 */
#ifndef SB_CONTROLLER_CORE_RESULTCACHE_H
#define SB_CONTROLLER_CORE_RESULTCACHE_H

#include "result/owner.h"

#include <jansson.h>
#include <stddef.h>

#define BR_RESULT_VERDICT "storagebenchVerdict"

/*
 * When cm is a result ConfigMap: checks it, replaces its data with
 * BR_RESULT_VERDICT. Anything else is left alone. 0 or -ENOMEM.
 */
int br_result_verdict_set(json_t *cm);

/*
 * Whether cm counts as iteration w->iteration of class w->cls of run
 * w->uid: from its verdict when it has one (the caller has matched the
 * labels), else by sb_result_check (a ConfigMap with its data: fetched, or
 * cached whole after a transform that ran out of memory). 0 or -EINVAL
 * (why, may be NULL, says why), -ENOMEM.
 */
int br_result_counts(const json_t *cm, const struct sb_result_want *w, char *why, size_t whylen);

/* The engine the verdict recorded ("" none), or NULL when cm has no verdict. */
const char *br_result_verdict_engine(const json_t *cm);

/*
 * The fetched result ConfigMaps (items, borrowed) that the report may read:
 * each one whose name has an ok verdict in cached (the informer's list,
 * borrowed) must have the data that verdict's digest was taken of; one that
 * does not (changed after it was counted) is named through warn and left
 * out. Others (not counted: the report's own check names them) are kept.
 * A new array, NULL on ENOMEM.
 */
json_t *br_result_fetched(const json_t *items, const json_t *cached,
			  void (*warn)(void *ctx, const char *msg), void *ctx);

/*
 * The engine a result document's first job ran, for the run's status:
 * "io_uring", "psync (fallback)" when it ran another than the one asked
 * for, "" when the document names none or its first job does not read.
 */
void br_result_engine(const json_t *doc, char *out, size_t len);

/* The label selector of run_label's result ConfigMaps into out. 0 or -ENAMETOOLONG. */
int br_result_selector(const char *run_label, char *out, size_t len);

#endif
