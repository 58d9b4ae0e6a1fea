/* SPDX-License-Identifier: MIT */
/*
 * storagebench-runner pod: the runner inside a BenchmarkRun's runner pod.
 *
 * The controller passes the run in the environment (SB_RUN, SB_RUN_UID,
 * SB_CLASS, SB_ITERATIONS, SB_NAMESPACE, SB_POD_NAME, SB_ATTEMPT) and the
 * workloads as ordinary runner options. For each iteration that has no
 * result yet, the runner runs every workload and records the result as a
 * ConfigMap <run>-<class>-<iteration> owned by the BenchmarkRun. A result
 * already present is never overwritten (a restarted pod skips it). Talks
 * to the API with lib/kube's in-cluster configuration.
 *
 * Exit status: 0 every iteration recorded; 1 an I/O or API failure (the
 * controller retries the remaining iterations in a new pod); 2 the
 * workloads cannot run here (unaligned direct I/O, ...; not retried). The
 * reason is also written to the termination message.
 */
#include "runner/pod.h"

#include "kube/kube.h"
#include "labels.h"
#include "log.h"
#include "names.h"
#include "runner/cmdline.h"
#include "runner/iolog.h"
#include "runner/out_json.h"
#include "runner/out_text.h"
#include "runner/run.h"
#include "runner/s3_pod.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_RESULT_BYTES SB_RESULT_MAX_BYTES /* lib/labels.h */
#define MAX_LOG_BYTES	 (256 * 1024)	     /* fio log files kept in one result */

struct pod_env {
	const char *run, *uid, *cls, *ns, *pod;
	unsigned iterations, attempt;
};

/* Writes the reason the pod ends to the termination message, then logs it. */
static int finish(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int finish(int status, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	const char *path = getenv("SB_TERMINATION_LOG");
	FILE *f = fopen(path ? path : "/dev/termination-log", "w");
	if (f) {
		fputs(msg, f);
		if (fclose(f) != 0)
			sb_debug("Could not write the termination message", NULL);
	}
	if (status)
		sb_error("Runner stopped", "status=%d reason=\"%s\"", status, msg);
	else
		sb_info("Runner finished", "detail=\"%s\"", msg);
	return status;
}

static int read_env(struct pod_env *e, char *err, size_t len)
{
	static const char *const names[] = {"SB_RUN", "SB_RUN_UID", "SB_CLASS", "SB_NAMESPACE",
					    "SB_POD_NAME"};
	const char **dst[] = {&e->run, &e->uid, &e->cls, &e->ns, &e->pod};
	for (size_t i = 0; i < 5; i++) {
		*dst[i] = getenv(names[i]);
		if (!*dst[i] || !**dst[i]) {
			snprintf(err, len,
				 "environment variable %s is not set (pod mode runs in a "
				 "runner pod created by the controller)",
				 names[i]);
			return -EINVAL;
		}
	}
	const char *it = getenv("SB_ITERATIONS"), *at = getenv("SB_ATTEMPT");
	char *end;
	unsigned long n = it ? strtoul(it, &end, 10) : 0;
	if (!it || *end || n < 1 || n > 100000) {
		snprintf(err, len, "SB_ITERATIONS: '%s' is not a count from 1 to 100000",
			 it ? it : "");
		return -EINVAL;
	}
	e->iterations = (unsigned)n;
	e->attempt = at ? (unsigned)strtoul(at, NULL, 10) : 1;
	return 0;
}

/* The result ConfigMap of one iteration (new reference), NULL on ENOMEM. */
static json_t *result_cm(const struct pod_env *e, unsigned it, const char *name, const char *text)
{
	char cls_label[64], run_label[64], itbuf[16];
	if (sb_name_label(cls_label, sizeof(cls_label), e->cls) ||
	    sb_name_label(run_label, sizeof(run_label), e->run))
		return NULL;
	snprintf(itbuf, sizeof(itbuf), "%u", it);
	return json_pack("{s:s,s:s,s:{s:s,s:s,s:{s:s,s:s,s:s,s:s,s:s,s:s},s:{s:s,s:s},s:[{s:s,s:s,"
			 "s:s,s:s,s:b,s:b}]},s:{s:s}}",
			 "apiVersion", "v1", "kind", "ConfigMap", "metadata", "name", name,
			 "namespace", e->ns, "labels", SB_LABEL_NAME, "storagebench",
			 SB_LABEL_COMPONENT, "result", SB_LABEL_MANAGED_BY, SB_MANAGER,
			 SB_LABEL_RUN, run_label, SB_LABEL_CLASS, cls_label, SB_LABEL_ITERATION,
			 itbuf, "annotations", SB_ANNOT_RUN, e->run, SB_ANNOT_CLASS, e->cls,
			 "ownerReferences", "apiVersion", SB_API_VERSION, "kind", SB_KIND, "name",
			 e->run, "uid", e->uid, "controller", 1, "blockOwnerDeletion", 1, "data",
			 SB_RESULT_KEY, text);
}

/* Drops the per-second series when a result would not fit in a ConfigMap. */
static char *dump_fitting(json_t *doc)
{
	char *text = json_dumps(doc, JSON_COMPACT);
	if (text && strlen(text) <= MAX_RESULT_BYTES)
		return text;
	free(text);
	if (json_object_get(doc, "logs")) {
		/* the fio log files go first */
		json_object_del(doc, "logs");
		sb_warn("Dropped the fio log files to fit the result in a ConfigMap", NULL);
		text = json_dumps(doc, JSON_COMPACT);
		if (text && strlen(text) <= MAX_RESULT_BYTES)
			return text;
		free(text);
	}
	size_t i;
	json_t *j;
	json_array_foreach(json_object_get(doc, "jobs"), i, j)
	{
		json_t *x = json_object_get(j, "storagebench");
		for (int d = 0; d < 2; d++) {
			json_t *dj = json_object_get(x, d ? "write" : "read");
			json_object_del(dj, "ios_series");
			json_object_del(dj, "bytes_series");
		}
	}
	sb_warn("Dropped per-second series to fit the result in a ConfigMap", NULL);
	text = json_dumps(doc, JSON_COMPACT);
	if (text && strlen(text) > MAX_RESULT_BYTES) {
		free(text);
		return NULL;
	}
	return text;
}

static void warn_cb(void *ctx, const char *msg)
{
	(void)ctx;
	sb_warn("Accepted option without effect", "detail=\"%s\"", msg);
}

int sb_pod_main(int argc, char **argv)
{
	struct pod_env e;
	struct sb_cli cli;
	struct sb_diag diag = {.warn = warn_cb};
	struct sb_joblist jobs = SB_JOBLIST_INIT;
	struct kube_config cfg = KUBE_CONFIG_INIT;
	struct kube_client *kc = NULL;
	struct kube_error kerr = KUBE_ERROR_INIT;
	char err[1024], ebuf[1024], logdir[4096] = "";
	int status = 0;
	unsigned recorded = 0, skipped = 0;

	struct sb_s3_pod s3 = {0}; /* an object-store target: "pod s3 ..." (docs/s3.md) */
	memset(&cli, 0, sizeof(cli));
	if (read_env(&e, err, sizeof(err)))
		return finish(2, "%s", err);
	if (argc > 1 && !strcmp(argv[1], "s3")) {
		int sr = sb_s3_pod_parse(argc - 1, argv + 1, &s3, err, sizeof(err));
		if (sr)
			return finish(sr == -ENOMEM ? 1 : 2, "%s", err);
		goto kube;
	}
	if (sb_cli_parse(argc, argv, &cli, &diag)) {
		status = finish(2, "%s", diag.msg);
		goto out;
	}
	int jr = sb_cli_jobs(&cli, &jobs, &diag);
	if (jr) {
		status = finish(jr == -ENOMEM ? 1 : 2, "%s",
				jr == -ENOMEM ? "out of memory" : diag.msg);
		goto out;
	}
	for (size_t i = 0; i < jobs.n && !logdir[0]; i++) {
		const struct sb_job_opts *o = &jobs.jobs[i].o;
		if ((o->bw_log[0] || o->lat_log[0] || o->iops_log[0]) && o->directory) {
			/* the root filesystem is read-only: log files go on the volume */
			snprintf(logdir, sizeof(logdir), "%s/.storagebench-logs", o->directory);
			if (mkdir(logdir, 0700) != 0 && errno != EEXIST) {
				status = finish(2, "cannot create '%s' for the log files: %s",
						logdir, strerror(errno));
				goto out;
			}
			sb_iolog_set_dir(logdir);
		}
	}
kube:
	if (kube_config_load(&cfg, NULL, NULL, &kerr) ||
	    !(kc = kube_client_new(&cfg, NULL, &kerr))) {
		status = finish(1, "cannot reach the Kubernetes API: %s",
				kube_error_str(&kerr, ebuf, sizeof(ebuf)));
		goto out;
	}
	sb_info("Runner started", "run=%s class=%s iterations=%u attempt=%u pod=%s", e.run, e.cls,
		e.iterations, e.attempt, e.pod);

	for (unsigned it = 1; it <= e.iterations; it++) {
		char name[64];
		if (sb_name_result(name, sizeof(name), e.run, e.cls, it)) {
			status = finish(2, "cannot name the result of iteration %u", it);
			goto out;
		}
		int r = kube_get(kc, &kube_res_configmaps, e.ns, name, NULL, &kerr);
		if (r == 0) {
			sb_info("Skipped iteration already recorded", "iteration=%u configmap=%s",
				it, name);
			skipped++;
			continue;
		}
		if (r != -ENOENT) {
			status = finish(1, "iteration %u: cannot check for configmap %s: %s", it,
					name, kube_error_str(&kerr, ebuf, sizeof(ebuf)));
			goto out;
		}
		sb_info("Started iteration", "iteration=%u of=%u", it, e.iterations);
		json_t *doc = NULL;
		if (s3.n) {
			fprintf(stderr, "=== %s, iteration %u of %u\n", e.cls, it, e.iterations);
			r = sb_s3_pod_iteration(&s3, stderr, &doc, err, sizeof(err));
			fflush(stderr);
			if (r) {
				/* wrong keys, TLS, a bucket with data: a retry will not help */
				bool final = r == -EACCES || r == -EPROTO || r == -ENOTEMPTY;
				status = finish(final ? 2 : 1, "iteration %u: %s", it, err);
				goto out;
			}
			goto have_doc;
		}
		struct sb_results res = SB_RESULTS_INIT;
		r = sb_run_jobs(&jobs, &res);
		/* on stderr, the log lines' stream: one pipe keeps the order in the
		 * container log (containerd reads stdout and stderr separately, so
		 * a block on stdout could land after the next "Started iteration") */
		fprintf(stderr, "=== %s, iteration %u of %u\n", e.cls, it, e.iterations);
		sb_out_text(stderr, &res);
		fflush(stderr);
		const char *why = NULL;
		for (size_t i = 0; i < res.n && !why; i++)
			if (res.v[i]->error)
				why = res.v[i]->errmsg;
		if (r || res.usage_error || res.io_error) {
			status = finish(res.usage_error ? 2 : 1, "iteration %u: %s", it,
					why ? why
					: r ? "out of memory"
					    : "a job failed");
			sb_results_release(&res);
			goto out;
		}
		doc = sb_out_json_doc(&res, false);
		sb_results_release(&res);
	have_doc:;
		json_t *ctx = json_pack("{s:s,s:s,s:I,s:s,s:I}", "run", e.run, "class", e.cls,
					"iteration", (json_int_t)it, "pod", e.pod, "attempt",
					(json_int_t)e.attempt);
		char *text = NULL;
		if (doc && logdir[0]) {
			/* fio log files (write_*_log) travel in the result, size-capped */
			bool found;
			json_t *logs = sb_iolog_collect(logdir, MAX_LOG_BYTES, &found);
			if (!logs || (found && json_object_set(doc, "logs", logs))) {
				json_decref(logs);
				json_decref(doc);
				json_decref(ctx);
				status = finish(1, "iteration %u: out of memory", it);
				goto out;
			}
			json_decref(logs);
		}
		if (!doc || !ctx || json_object_set_new(doc, "context", ctx)) {
			json_decref(doc);
			status = finish(1, "iteration %u: out of memory", it);
			goto out;
		}
		text = dump_fitting(doc);
		json_decref(doc);
		if (!text) {
			status = finish(1, "iteration %u: the result does not fit in a ConfigMap",
					it);
			goto out;
		}
		json_t *cm = result_cm(&e, it, name, text);
		free(text);
		if (!cm) {
			status = finish(1, "iteration %u: out of memory", it);
			goto out;
		}
		r = kube_create(kc, &kube_res_configmaps, e.ns, cm, NULL, &kerr);
		json_decref(cm);
		if (r == -EEXIST) {
			/* another pod recorded it first: never overwrite a result */
			sb_warn("Kept the result already recorded", "iteration=%u configmap=%s", it,
				name);
			skipped++;
		} else if (r) {
			status = finish(1, "iteration %u: cannot record configmap %s: %s", it, name,
					kube_error_str(&kerr, ebuf, sizeof(ebuf)));
			goto out;
		} else {
			sb_info("Recorded iteration", "iteration=%u configmap=%s", it, name);
			recorded++;
		}
	}
	status = finish(0, "%u iterations recorded, %u already present", recorded, skipped);
out:
	if (logdir[0])
		(void)rmdir(logdir);
	kube_client_free(kc);
	kube_config_release(&cfg);
	sb_joblist_release(&jobs);
	sb_cli_release(&cli);
	sb_s3_pod_release(&s3);
	return status;
}
