/* SPDX-License-Identifier: MIT */
/*
 * What `kubectl storagebench logs` shows once a run's runner pods are gone
 * or the run has ended, with or without -f: the per-iteration results from
 * the result ConfigMaps, and how the run ended. cmd_logs.c and
 * logfollow.c both end here.
 */
#include "plugin/cmd.h"
#include "plugin/term.h"
#include "plugin/runpods.h"
#include "plugin/table.h"

#include "core/labels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* No pods: the per-iteration results. The exit status. */
int sbp_logs_results(struct sbp_ctx *x, const struct sbp_args *a, const char *ns, const char *name,
		     const json_t *run)
{
	struct kube_error err = KUBE_ERROR_INIT;
	json_t *list = NULL;
	char sel[512];
	size_t n = 0;
	char *text = NULL;
	int status = 1;

	if (sbp_selector(sel, sizeof(sel), name, SB_COMPONENT_RESULT, a->cls)) {
		sbp_err("cannot make a label selector for '%s'", name);
		return 1;
	}
	struct kube_list_opts lo = {.label_selector = sel};
	int ret = kube_list(x->kc, &kube_res_configmaps, ns, &lo, &list, &err);
	if (ret) {
		sbp_api_err(x, ret, &err, "cannot list the results of benchmarkrun '%s'", name);
		goto out;
	}
	text = sbp_results_format(list, name, a->cls, a->iteration, &n);
	if (!text) {
		sbp_err("out of memory");
		goto out;
	}
	const json_t *st = json_object_get(run, "status");
	const char *phase = sbp_run_phase(run);
	const char *prog = json_string_value(json_object_get(st, "progress"));
	const char *cleanup =
		json_string_value(json_object_get(json_object_get(run, "spec"), "cleanup"));
	bool ended = !strcmp(phase, "Succeeded") || !strcmp(phase, "Failed");
	if (n == 0) {
		char what[160] = "", itw[32] = "";
		if (a->iteration)
			snprintf(itw, sizeof(itw), " iteration %u", a->iteration);
		if (a->cls || a->iteration)
			snprintf(what, sizeof(what), " for%s%s%s", a->cls ? " class " : "",
				 a->cls ? a->cls : "", itw);
		sbp_err("benchmarkrun '%s' has no runner pods and no results%s (phase %s, "
			"progress %s)",
			name, what, *phase ? phase : "none", prog ? prog : "0/?");
		goto out;
	}
	if (ended && (!cleanup || !strcmp(cleanup, "Always") ||
		      (!strcmp(cleanup, "OnSuccess") && !strcmp(phase, "Succeeded"))))
		fprintf(stderr,
			"The runner pods of benchmarkrun '%s' were cleaned up when the run ended "
			"(spec.cleanup: %s); these are the per-iteration results from its "
			"result configmaps.\n",
			name, cleanup ? cleanup : "Always");
	else
		fprintf(stderr,
			"Benchmarkrun '%s' has no runner pods (phase %s); these are the "
			"per-iteration results from its result configmaps.\n",
			name, *phase ? phase : "none");
	if (sbp_write_output(NULL, text) == 0)
		status = 0;
out:
	free(text);
	json_decref(list);
	return status;
}

int sbp_logs_ending(const json_t *run, const char *name)
{
	const char *phase = sbp_run_phase(run);
	if (!strcmp(phase, "Failed")) {
		sbp_print_failure(run, name);
		return 1;
	}
	const char *msg =
		json_string_value(json_object_get(json_object_get(run, "status"), "message"));
	char line[2048];
	snprintf(line, sizeof(line), "benchmarkrun '%s' %s: %s\n", name, phase, msg ? msg : "");
	(void)sbp_term_out(stderr, line, strlen(line)); /* the message may quote others' text */
	return 0;
}
