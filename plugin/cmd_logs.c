/* SPDX-License-Identifier: MIT */
/*
 * `kubectl storagebench logs NAME [--class C] [--iteration N | -f]`: the
 * logs of the run's runner pods or, once they are gone, the per-iteration
 * results from the result ConfigMaps (logresults.c). -f on a run that has
 * not ended: logfollow.c.
 */
#include "plugin/cmd.h"
#include "plugin/term.h"
#include "plugin/podlog.h"
#include "plugin/runpods.h"
#include "plugin/table.h"

#include "core/labels.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Prints the log of each pod; the exit status, or -1 when every pod's log
 * is gone (pods being deleted at the end of a run): the caller then shows
 * the results instead.
 */
static int print_pod_logs(struct sbp_ctx *x, const char *ns, const char *name, const json_t *pods,
			  unsigned iteration)
{
	size_t i, printed = 0, failed = 0, gone = 0;
	const json_t *p;
	json_array_foreach(pods, i, p)
	{
		struct kube_error err = KUBE_ERROR_INIT;
		char *log = NULL, *part = NULL, detail[1024];
		size_t len = 0;
		const char *pn = sbp_obj_name(p), *c = sbp_obj_class(p);
		const char *att = sbp_meta_str(p, "labels", SB_LABEL_ATTEMPT);
		const char *phase =
			json_string_value(json_object_get(json_object_get(p, "status"), "phase"));
		int ret = sbp_pod_log(x->kc, ns, pn, SB_CONTAINER_RUNNER, &log, &len, &err);
		if (!ret && sbp_log_gone(log, len)) {
			ret = -ENOENT; /* the kubelet's 200 for a removed container */
			snprintf(err.message, sizeof(err.message), "%.*s", (int)strcspn(log, "\n"),
				 log);
			free(log);
			log = NULL;
		}
		if (ret) {
			sbp_warn("no log from pod '%s': %s", pn,
				 kube_error_str(&err, detail, sizeof(detail)));
			failed++;
			/* 404, or 400 "container ... is terminated": the pod is going away */
			gone += ret == -ENOENT || ret == -EINVAL;
			continue;
		}
		const char *text = log;
		if (iteration) {
			part = sbp_log_slice(log, len, iteration);
			if (!part) {
				free(log);
				sbp_err("out of memory");
				return 1;
			}
			text = part;
		}
		if (!iteration || *text) {
			printf("%s==> pod/%s (class %s, attempt %s, %s) <==\n", printed ? "\n" : "",
			       pn, c ? c : "?", att ? att : "?", phase ? phase : "?");
			(void)sbp_term_out(stdout, text, strlen(text)); /* escaped on a terminal */
			if (*text && text[strlen(text) - 1] != '\n')
				putchar('\n');
			printed++;
		}
		free(part);
		free(log);
	}
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE) /* a reader that stopped (| head) is no news */
			sbp_err("cannot write to stdout: %s", strerror(errno));
		return 1;
	}
	if (iteration && !printed && !failed) {
		sbp_err("iteration %u is not in the logs of the runner pods of benchmarkrun '%s'",
			iteration, name);
		return 1;
	}
	if (!printed && failed == json_array_size(pods) && gone == failed)
		return -1;
	return printed || !failed ? 0 : 1;
}

int sbp_cmd_logs(struct sbp_ctx *x, const struct sbp_args *a)
{
	struct sbp_ref ref;
	json_t *run = NULL, *pods = NULL;
	char e[512];
	int status = 1;

	if (sbp_ref_parse(a->names[0], x->ns, &ref, e, sizeof(e))) {
		sbp_err("%s", e);
		return 1;
	}
	if (sbp_get_run(x, &ref, &run))
		goto out;
	const char *phase = sbp_run_phase(run);
	if (a->follow && strcmp(phase, "Succeeded") && strcmp(phase, "Failed")) {
		status = sbp_logs_follow(x, a, &ref, run);
		goto out;
	}
	if (sbp_list_runner_pods(x, ref.ns, run, ref.name, a->cls, &pods))
		goto out;
	status = json_array_size(pods) ? print_pod_logs(x, ref.ns, ref.name, pods, a->iteration)
				       : -1;
	if (status < 0) /* no pods, or none with a log left: what they recorded */
		status = sbp_logs_results(x, a, ref.ns, ref.name, run);
	if (a->follow && !status) /* an ended run: how it ended, as when followed */
		status = sbp_logs_ending(run, ref.name);
out:
	json_decref(pods);
	json_decref(run);
	return status;
}
