/* SPDX-License-Identifier: MIT */
/* `kubectl storagebench report NAME`, and reading a run's report (cmd.h). */
#include "plugin/cmd.h"

#include "core/labels.h"
#include "core/names.h"
#include "report/report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *status_str(const json_t *run, const char *key)
{
	const char *s = json_string_value(json_object_get(json_object_get(run, "status"), key));
	return s && *s ? s : NULL;
}

void sbp_report_release(struct sbp_report *r)
{
	json_decref(r->run);
	json_decref(r->cm);
	json_decref(r->doc);
	r->run = r->cm = r->doc = NULL;
	r->data = NULL;
}

int sbp_fetch_report(struct sbp_ctx *x, const struct sbp_ref *ref, struct sbp_report *r)
{
	struct kube_error err = KUBE_ERROR_INIT;
	const char *name = ref->name;
	int ret;

	memset(r, 0, sizeof(*r));
	r->ref = *ref;
	if (!r->ref.ns[0])
		snprintf(r->ref.ns, sizeof(r->ref.ns), "%s", x->ns);
	if ((ret = sbp_get_run(x, &r->ref, &r->run)))
		return ret;
	const char *phase = sbp_run_phase(r->run);
	const char *progress = status_str(r->run, "progress");
	if (strcmp(phase, "Succeeded") && strcmp(phase, "Failed")) {
		if (!*phase)
			sbp_err("benchmarkrun '%s' has not started: the controller has not "
				"picked it up yet (no status)",
				name);
		else
			sbp_err("benchmarkrun '%s' has not finished: phase %s, progress %s", name,
				phase, progress ? progress : "0/?");
		return -EAGAIN;
	}
	r->failed = !strcmp(phase, "Failed");
	const char *rep = status_str(r->run, "report");
	if (rep)
		snprintf(r->cm_name, sizeof(r->cm_name), "%s", rep);
	else if (sb_name_report(r->cm_name, sizeof(r->cm_name), name))
		r->cm_name[0] = '\0';
	if (r->failed && !rep) {
		sbp_print_failure(r->run, name);
		sbp_err("benchmarkrun '%s' has no report: no iteration was recorded (progress %s)",
			name, progress ? progress : "0/?");
		return -ENOENT;
	}
	ret = r->cm_name[0]
		      ? kube_get(x->kc, &kube_res_configmaps, r->ref.ns, r->cm_name, &r->cm, &err)
		      : -ENOENT;
	if (ret == -ENOENT) {
		if (r->failed)
			sbp_print_failure(r->run, name);
		sbp_err("benchmarkrun '%s' has no report: configmap '%s' not found in namespace "
			"'%s'",
			name, r->cm_name, r->ref.ns);
		return ret;
	}
	if (ret) {
		sbp_api_err(x, ret, &err,
			    "cannot get the report configmap '%s' of benchmarkrun '%s'", r->cm_name,
			    name);
		return ret;
	}
	r->data = json_object_get(r->cm, "data");
	const json_t *text = json_object_get(r->data, SB_REPORT_JSON_KEY);
	if (!json_is_string(text)) {
		sbp_warn("configmap '%s' has no report.json", r->cm_name);
		return 0;
	}
	json_error_t je;
	r->doc = json_loads(json_string_value(text), 0, &je);
	if (!r->doc)
		sbp_warn("configmap '%s': report.json is not JSON (%s at line %d)", r->cm_name,
			 je.text, je.line);
	return 0;
}

int sbp_cmd_report(struct sbp_ctx *x, const struct sbp_args *a)
{
	struct sbp_ref ref;
	struct sbp_report r;
	char err[512], key[32];
	char *text = NULL;
	int status = 1;

	if (sbp_ref_parse(a->names[0], x->ns, &ref, err, sizeof(err))) {
		sbp_err("%s", err); /* checked by the parser already */
		return 1;
	}
	if (sbp_fetch_report(x, &ref, &r))
		goto out;
	if (r.doc) {
		text = sb_report_render(r.doc, a->format, err, sizeof(err));
		if (!text)
			sbp_warn("cannot render the report of benchmarkrun '%s' as %s: %s",
				 ref.name, a->format, err);
	}
	if (!text) {
		/* what the controller rendered, when there is such a key */
		snprintf(key, sizeof(key), "report.%s", a->format);
		const json_t *stored = json_object_get(r.data, key);
		if (json_is_string(stored)) {
			sbp_warn("printed %s of configmap '%s' as stored", key, r.cm_name);
			text = strdup(json_string_value(stored));
			if (!text) {
				sbp_err("out of memory");
				goto out;
			}
		} else {
			sbp_err("benchmarkrun '%s': no %s report (configmap '%s' has no usable "
				"report.json and no %s)",
				ref.name, a->format, r.cm_name, key);
			goto out;
		}
	}
	if (sbp_write_output(a->output, text))
		goto out;
	if (r.failed) {
		sbp_print_failure(r.run, ref.name);
		sbp_warn("the report of benchmarkrun '%s' is partial: it has only the iterations "
			 "that were recorded (progress %s)",
			 ref.name,
			 status_str(r.run, "progress") ? status_str(r.run, "progress") : "?");
		goto out;
	}
	status = 0;
out:
	free(text);
	sbp_report_release(&r);
	return status;
}
