/* SPDX-License-Identifier: MIT */
/*
 * A result document (the runner's JSON output, as a result ConfigMap holds
 * it) through the typed reader (lib/result/resultdoc.h), then into the
 * aggregation (lib/stats/aggregate.c), as two iterations on two targets, then
 * the report rendered.
 */
#include "fuzz/fuzz.h"
#include "stats/aggregate.h"
#include "report/report.h"
#include "result/resultdoc.h"

#include <jansson.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *doc = json_loadb((const char *)data, size, 0, NULL);
	if (!doc)
		return 0;
	struct sb_agg *a = sb_agg_new();
	const json_t *jobs = json_object_get(doc, SB_RK_JOBS), *job;
	size_t i;
	char err[512];
	struct sb_result res = SB_RESULT_INIT;
	(void)sb_result_parse(doc, 0, &res, err, sizeof(err));
	sb_result_release(&res);
	if (!a)
		goto out;
	for (unsigned it = 1; it <= 2; it++)
		json_array_foreach(jobs, i, job)
		{
			(void)sb_agg_add(a, "fast", it, job, err, sizeof(err));
			(void)sb_agg_add(a, it == 1 ? "slow" : "fast", it + 2, job, err,
					 sizeof(err));
		}
	json_t *rep = NULL;
	if (sb_agg_report_checked(a, "fuzz", &rep, err, sizeof(err)) == 0) {
		static const char *const fmts[] = {"txt", "csv", "svg"};
		for (size_t f = 0; f < 3; f++) {
			char *s = sb_report_render(rep, fmts[f], err, sizeof(err));
			free(s);
		}
		json_decref(rep);
	}
out:
	sb_agg_free(a);
	json_decref(doc);
	return 0;
}
