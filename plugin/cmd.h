/* SPDX-License-Identifier: MIT */
/*
 * The plugin's commands and what they share: the connection to the API
 * server (struct sbp_ctx), messages on stderr, reading BenchmarkRuns and
 * their reports. Commands return the process exit status: 0 done, 1 an
 * operational failure (already explained on stderr).
 */
#ifndef SB_PLUGIN_CMD_H
#define SB_PLUGIN_CMD_H

#include "kube/kube.h"
#include "plugin/args.h"

#include <jansson.h>
#include <stdbool.h>

/* storagebench.io/v1alpha1 benchmarkruns. */
extern const struct kube_resource sbp_res_benchmarkruns;

struct sbp_ctx {
	struct kube_config cfg;
	struct kube_client *kc;
	const char *ns; /* -n, else the context's namespace (borrowed) */
};

/*
 * Loads the kubeconfig (--kubeconfig, $KUBECONFIG, in-cluster,
 * ~/.kube/config) and makes the client. Prints the reason and returns
 * -errno on failure; x is then closed. Close with sbp_ctx_close().
 */
int sbp_ctx_open(struct sbp_ctx *x, const struct sbp_args *a);
void sbp_ctx_close(struct sbp_ctx *x);

/* "error: <message>" and "warning: <message>" lines on stderr. */
void sbp_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sbp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Prints an API failure as "error: <what>: <details>", with a plain
 * explanation for the usual cases (server unreachable, credentials refused,
 * forbidden, the BenchmarkRun API not installed).
 */
void sbp_api_err(const struct sbp_ctx *x, int ret, const struct kube_error *err, const char *fmt,
		 ...) __attribute__((format(printf, 4, 5)));

/* True when a 404 says the resource type is not served (CRD missing). */
bool sbp_api_missing(int ret, const struct kube_error *err);

/*
 * GETs the BenchmarkRun ref (its ns "" means x->ns) into *run (new
 * reference). A missing run prints "benchmarkrun 'NAME' not found in
 * namespace 'NS'". Returns 0 or -errno (printed).
 */
int sbp_get_run(struct sbp_ctx *x, const struct sbp_ref *ref, json_t **run);

/* status.phase of run, "" when the controller has not set it (borrowed). */
const char *sbp_run_phase(const json_t *run);

/*
 * A run and its report. doc is the parsed report.json of the report
 * ConfigMap, or NULL; data is that ConfigMap's data (to fall back on a
 * stored rendering), or NULL. References are owned by the struct.
 */
struct sbp_report {
	struct sbp_ref ref;
	json_t *run, *cm, *doc;
	const json_t *data; /* borrowed from cm */
	bool failed;	    /* phase Failed: the report is partial */
	char cm_name[64];
};

/*
 * Fetches the run ref and, when it has finished, its report ConfigMap.
 * Returns 0 with r->doc set (or NULL with r->data set when report.json is
 * missing or malformed: printed as a warning); -EAGAIN when the run has not
 * finished, -ENOENT when it has no report, other -errno: all printed, naming
 * the run. Release with sbp_report_release().
 */
int sbp_fetch_report(struct sbp_ctx *x, const struct sbp_ref *ref, struct sbp_report *r);
void sbp_report_release(struct sbp_report *r);

/* Prints why a Failed run failed (status.message, then each failed class). */
void sbp_print_failure(const json_t *run, const char *name);

/*
 * Writes text to path (NULL or "-": stdout). 0, or -errno printed with the
 * file name.
 */
int sbp_write_output(const char *path, const char *text);

int sbp_cmd_list(struct sbp_ctx *x, const struct sbp_args *a);
int sbp_cmd_report(struct sbp_ctx *x, const struct sbp_args *a);
int sbp_cmd_compare(struct sbp_ctx *x, const struct sbp_args *a);
int sbp_cmd_logs(struct sbp_ctx *x, const struct sbp_args *a);
int sbp_cmd_history(struct sbp_ctx *x, const struct sbp_args *a);

/*
 * logs -f of a run that has not ended (run: its object, borrowed): streams
 * each runner pod's log as it is written, in the run's order (waiting for a
 * pod that has not started), until the run ends; then the run's phase and
 * message on stderr. The exit status: 0 when it Succeeded (or the reader
 * of stdout went away), 1 when it Failed (why, on stderr) or on an error.
 */
int sbp_logs_follow(struct sbp_ctx *x, const struct sbp_args *a, const struct sbp_ref *ref,
		    json_t *run);

/* The run's per-iteration results (from its result ConfigMaps) as a table,
 * for when its runner pods and their logs are gone. The exit status. */
int sbp_logs_results(struct sbp_ctx *x, const struct sbp_args *a, const char *ns, const char *name,
		     const json_t *run);

/* How an ended run ended, on stderr: "benchmarkrun 'NAME' Succeeded: <message>"
 * and 0, or the reasons it failed (sbp_print_failure) and 1. */
int sbp_logs_ending(const json_t *run, const char *name);

#endif
