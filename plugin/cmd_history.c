/* SPDX-License-Identifier: MIT */
/* `kubectl storagebench history SCHEDULE [--metric M]`. */
#include "core/labels.h"
#include "plugin/cmd.h"
#include "plugin/history.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static const struct kube_resource res_schedules = {SB_API_GROUP, SB_API_VERSION_ONLY,
						   SB_PLURAL_SCHEDULES, true};

int sbp_cmd_history(struct sbp_ctx *x, const struct sbp_args *a)
{
	struct kube_error err = KUBE_ERROR_INIT;
	struct sbp_ref ref;
	char perr[256], sel[400];
	json_t *sched = NULL, *list = NULL;
	char *text = NULL;
	size_t n = 0;
	int status = 1;

	if (sbp_ref_parse(a->names[0], x->ns, &ref, perr, sizeof(perr))) {
		sbp_err("%s", perr);
		return 1;
	}
	int ret = kube_get(x->kc, &res_schedules, ref.ns, ref.name, &sched, &err);
	if (ret == -ENOENT && !sbp_api_missing(ret, &err)) {
		sbp_err("benchmarkschedule '%s' not found in namespace '%s'", ref.name, ref.ns);
		goto out;
	}
	if (ret) {
		sbp_api_err(x, ret, &err, "cannot get benchmarkschedule '%s'", ref.name);
		goto out;
	}
	snprintf(sel, sizeof(sel), "%s=%s", SB_LABEL_SCHEDULE, ref.name);
	kube_error_clear(&err);
	struct kube_list_opts lo = {0};
	lo.label_selector = sel;
	ret = kube_list(x->kc, &sbp_res_benchmarkruns, ref.ns, &lo, &list, &err);
	if (ret) {
		sbp_api_err(x, ret, &err, "cannot list the runs of benchmarkschedule '%s'",
			    ref.name);
		goto out;
	}
	text = sbp_history_format(list, a->metric, &n);
	if (!text) {
		sbp_err("out of memory");
		goto out;
	}
	if (n == 0) {
		fprintf(stderr, "benchmarkschedule '%s' has no runs yet.\n", ref.name);
		status = 0;
		goto out;
	}
	if (sbp_write_output(NULL, text) == 0)
		status = 0;
out:
	free(text);
	json_decref(list);
	json_decref(sched);
	return status;
}
