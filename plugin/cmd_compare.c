/* SPDX-License-Identifier: MIT */
/* `kubectl storagebench compare BASELINE CURRENT`. */
#include "plugin/cmd.h"

#include "report/compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sbp_cmd_compare(struct sbp_ctx *x, const struct sbp_args *a)
{
	static const char *const side[2] = {"baseline", "current"};
	struct sbp_ref ref[2];
	struct sbp_report r[2];
	json_t *cmp = NULL;
	char err[1024];
	char *text = NULL;
	int status = 1;
	bool ok = true;

	memset(r, 0, sizeof(r));
	for (int i = 0; i < 2; i++) {
		if (sbp_ref_parse(a->names[i], x->ns, &ref[i], err, sizeof(err))) {
			sbp_err("%s: %s", side[i], err);
			return 1;
		}
	}
	/* both fetched before giving up, so every missing report is named */
	for (int i = 0; i < 2; i++) {
		if (sbp_fetch_report(x, &ref[i], &r[i])) {
			ok = false;
			continue;
		}
		if (!r[i].doc) {
			sbp_err("benchmarkrun '%s/%s' (%s) has no usable report.json in configmap "
				"'%s'",
				r[i].ref.ns, r[i].ref.name, side[i], r[i].cm_name);
			ok = false;
		}
	}
	if (!ok)
		goto out;
	/* in the output, runs of two namespaces are NAMESPACE/NAME */
	if (strcmp(r[0].ref.ns, r[1].ref.ns)) {
		for (int i = 0; i < 2; i++) {
			char full[SBP_NS_MAX + SBP_NAME_MAX + 2];
			snprintf(full, sizeof(full), "%s/%s", r[i].ref.ns, r[i].ref.name);
			if (json_object_set_new(r[i].doc, "name", json_string(full))) {
				sbp_err("out of memory");
				goto out;
			}
		}
	}
	if (sb_compare(r[0].doc, r[1].doc, &cmp, err, sizeof(err))) {
		sbp_err("cannot compare '%s' with '%s': %s", r[0].ref.name, r[1].ref.name, err);
		goto out;
	}
	text = sb_compare_render(cmp, a->format, err, sizeof(err));
	if (!text) {
		sbp_err("cannot render the comparison as %s: %s", a->format, err);
		goto out;
	}
	if (sbp_write_output(a->output, text))
		goto out;
	for (int i = 0; i < 2; i++) {
		if (!r[i].failed)
			continue;
		const char *msg = json_string_value(
			json_object_get(json_object_get(r[i].run, "status"), "message"));
		sbp_warn("benchmarkrun '%s' (%s) failed, its report is partial: %s", r[i].ref.name,
			 side[i], msg ? msg : "no message");
	}
	status = 0;
out:
	free(text);
	json_decref(cmp);
	sbp_report_release(&r[0]);
	sbp_report_release(&r[1]);
	return status;
}
