/* SPDX-License-Identifier: MIT */
/*
 * JSON output with fio's field names (fio 3.33's --output-format=json), so
 * fio tooling reads it, plus an "engine" object and a "storagebench"
 * object per job (per-second series, the latency histogram in compact
 * form, error and verify counts).
 */
#ifndef SB_RUNNER_OUT_JSON_H
#define SB_RUNNER_OUT_JSON_H

#include "runner/io/run.h"

#include <jansson.h>
#include <stdbool.h>

/*
 * Builds the document for one run: {"fio version", "timestamp", ...,
 * "jobs": [...]}. plus adds fio's json+ histogram bins. Returns a new
 * reference (caller decrefs) or NULL on ENOMEM.
 */
json_t *sb_out_json_doc(const struct sb_results *r, bool plus);

/* One job entry of "jobs" (new reference, NULL on ENOMEM). */
json_t *sb_out_json_job(const struct sb_results *all, const struct sb_job_result *r, bool plus);

/* fio's "steadystate" block of a job (new reference, NULL on ENOMEM). */
json_t *sb_out_json_steadystate(const struct sb_ss_result *ss);

#endif
