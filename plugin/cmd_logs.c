/* SPDX-License-Identifier: MIT */
/*
 * `kubectl storagebench logs NAME [--class C] [--iteration N]`: the logs of
 * the run's runner pods or, once they are gone, the per-iteration results
 * from the result ConfigMaps.
 */
#include "plugin/cmd.h"
#include "plugin/podlog.h"
#include "plugin/table.h"

#include "labels.h"
#include "names.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUNNER_CONTAINER "runner"

static const char *meta_str(const json_t *o, const char *map, const char *key)
{
	const json_t *m = json_object_get(json_object_get(o, "metadata"), map);
	const json_t *v = key ? json_object_get(m, key) : m;
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static const char *name_of(const json_t *o)
{
	const json_t *v = json_object_get(json_object_get(o, "metadata"), "name");
	return json_is_string(v) ? json_string_value(v) : "";
}

/* The storage class of an object the run owns (annotation, else label). */
static const char *class_of(const json_t *o)
{
	const char *c = meta_str(o, "annotations", SB_ANNOT_CLASS);
	return c ? c : meta_str(o, "labels", SB_LABEL_CLASS);
}

/* "storagebench.io/run=<run>,app.kubernetes.io/component=<comp>[,storagebench.io/class=<c>]" */
static int selector(char *buf, size_t len, const char *run, const char *component, const char *cls)
{
	char rl[64], cl[64];
	if (sb_name_label(rl, sizeof(rl), run) || (cls && sb_name_label(cl, sizeof(cl), cls)))
		return -EINVAL;
	int n = snprintf(buf, len, "%s=%s,%s=%s%s%s%s%s", SB_LABEL_RUN, rl, SB_LABEL_COMPONENT,
			 component, cls ? "," : "", cls ? SB_LABEL_CLASS : "", cls ? "=" : "",
			 cls ? cl : "");
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Index of class c in the run's spec.storageClasses (unknown ones last). */
static size_t class_index(const json_t *run, const char *c)
{
	const json_t *arr = json_object_get(json_object_get(run, "spec"), "storageClasses");
	size_t i;
	const json_t *v;
	json_array_foreach(arr, i, v)
	{
		if (c && json_is_string(v) && !strcmp(json_string_value(v), c))
			return i;
	}
	return (size_t)-1;
}

/* Pods by class (in the run's order), attempt, name. arg: the run. */
static int pod_cmp(const void *a, const void *b, void *arg)
{
	const json_t *run = arg;
	const json_t *pa = *(const json_t *const *)a, *pb = *(const json_t *const *)b;
	size_t ca = class_index(run, class_of(pa)), cb = class_index(run, class_of(pb));
	if (ca != cb)
		return ca < cb ? -1 : 1;
	const char *aa = meta_str(pa, "labels", SB_LABEL_ATTEMPT);
	const char *ab = meta_str(pb, "labels", SB_LABEL_ATTEMPT);
	unsigned long na = aa ? strtoul(aa, NULL, 10) : 0, nb = ab ? strtoul(ab, NULL, 10) : 0;
	if (na != nb)
		return na < nb ? -1 : 1;
	return strcmp(name_of(pa), name_of(pb));
}

/* The pods of list that belong to run (and class cls), sorted; a new array. */
static json_t *runner_pods(const json_t *list, const json_t *run, const char *name, const char *cls)
{
	json_t *out = json_array();
	size_t i;
	const json_t *p;
	if (!out)
		return NULL;
	json_array_foreach(json_object_get(list, "items"), i, p)
	{
		const char *r = meta_str(p, "annotations", SB_ANNOT_RUN);
		const char *c = class_of(p);
		if ((r && strcmp(r, name)) || (cls && (!c || strcmp(c, cls))))
			continue; /* a label value shared after hashing: not ours */
		if (json_array_append(out, (json_t *)p)) {
			json_decref(out);
			return NULL;
		}
	}
	size_t n = json_array_size(out);
	const json_t **v = calloc(n ? n : 1, sizeof(*v));
	if (!v) {
		json_decref(out);
		return NULL;
	}
	for (i = 0; i < n; i++)
		v[i] = json_array_get(out, i);
	qsort_r(v, n, sizeof(*v), pod_cmp, (void *)run);
	json_t *sorted = json_array();
	for (i = 0; sorted && i < n; i++)
		if (json_array_append(sorted, (json_t *)v[i])) {
			json_decref(sorted);
			sorted = NULL;
		}
	free(v);
	json_decref(out);
	return sorted;
}

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
		const char *pn = name_of(p), *c = class_of(p);
		const char *att = meta_str(p, "labels", SB_LABEL_ATTEMPT);
		const char *phase =
			json_string_value(json_object_get(json_object_get(p, "status"), "phase"));
		int ret = sbp_pod_log(x->kc, ns, pn, RUNNER_CONTAINER, &log, &len, &err);
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
			fputs(text, stdout);
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

/* No pods: the per-iteration results. The exit status. */
static int print_results(struct sbp_ctx *x, const struct sbp_args *a, const char *ns,
			 const char *name, const json_t *run)
{
	struct kube_error err = KUBE_ERROR_INIT;
	json_t *list = NULL;
	char sel[512];
	size_t n = 0;
	char *text = NULL;
	int status = 1;

	if (selector(sel, sizeof(sel), name, "result", a->cls)) {
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

int sbp_cmd_logs(struct sbp_ctx *x, const struct sbp_args *a)
{
	struct kube_error err = KUBE_ERROR_INIT;
	struct sbp_ref ref;
	json_t *run = NULL, *list = NULL, *pods = NULL;
	char sel[512], e[512];
	int status = 1;

	if (sbp_ref_parse(a->names[0], x->ns, &ref, e, sizeof(e))) {
		sbp_err("%s", e);
		return 1;
	}
	if (sbp_get_run(x, &ref, &run))
		goto out;
	if (selector(sel, sizeof(sel), ref.name, "runner", a->cls)) {
		sbp_err("cannot make a label selector for '%s'", ref.name);
		goto out;
	}
	struct kube_list_opts lo = {.label_selector = sel};
	int ret = kube_list(x->kc, &kube_res_pods, ref.ns, &lo, &list, &err);
	if (ret) {
		sbp_api_err(x, ret, &err, "cannot list the runner pods of benchmarkrun '%s'",
			    ref.name);
		goto out;
	}
	pods = runner_pods(list, run, ref.name, a->cls);
	if (!pods) {
		sbp_err("out of memory");
		goto out;
	}
	status = json_array_size(pods) ? print_pod_logs(x, ref.ns, ref.name, pods, a->iteration)
				       : -1;
	if (status < 0) /* no pods, or none with a log left: what they recorded */
		status = print_results(x, a, ref.ns, ref.name, run);
out:
	json_decref(pods);
	json_decref(list);
	json_decref(run);
	return status;
}
