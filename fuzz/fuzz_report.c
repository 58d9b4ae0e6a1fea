/* SPDX-License-Identifier: MIT */
/*
 * A report document someone else wrote (a report ConfigMap) into the
 * renderers (lib/report/report.c, lib/report/svg/svg.c) and the comparison
 * (lib/report/compare.c) with itself.
 */
#include "fuzz/fuzz.h"
#include "report/compare.h"
#include "report/report.h"

#include <jansson.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *doc = json_loadb((const char *)data, size, 0, NULL);
	char err[512];
	if (!doc)
		return 0;
	static const char *const fmts[] = {"txt", "md", "csv", "svg"};
	for (size_t f = 0; f < 4; f++) {
		char *s = sb_report_render(doc, fmts[f], err, sizeof(err));
		free(s);
	}
	json_t *cmp = NULL;
	if (sb_compare(doc, doc, &cmp, err, sizeof(err)) == 0) {
		char *s = sb_compare_render(cmp, "txt", err, sizeof(err));
		free(s);
		json_decref(cmp);
	}
	json_decref(doc);
	return 0;
}
