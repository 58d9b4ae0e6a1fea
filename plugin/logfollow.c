/* SPDX-License-Identifier: MIT */
/*
 * `kubectl storagebench logs NAME -f`: the logs of a run's runner pods as
 * they are written, pod after pod in the run's order, until the run ends.
 */
#include "plugin/cmd.h"
#include "plugin/term.h"
#include "plugin/podlog.h"
#include "plugin/runpods.h"

#include "core/labels.h"
#include "time/rfc3339.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define POLL_MS 1000

/* One pod's log stream to stdout; the header goes out with the first byte. */
struct follow {
	const json_t *pod;
	bool header_done;
	bool kubelet_err; /* the kubelet answered an error, not the log */
	size_t *printed;  /* pods printed so far (a blank line between them) */
	bool ends_nl;	  /* the last byte written was a newline */
	bool tty;	  /* stdout is a terminal: the log goes out escaped (term.h) */
	struct sbp_term term;
};

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static const char *pod_phase(const json_t *pod)
{
	const char *p = json_string_value(json_object_get(json_object_get(pod, "status"), "phase"));
	return p ? p : "";
}

static bool pod_ended(const json_t *pod)
{
	return !strcmp(pod_phase(pod), "Succeeded") || !strcmp(pod_phase(pod), "Failed");
}

static bool run_ended(const json_t *run)
{
	const char *p = sbp_run_phase(run);
	return !strcmp(p, "Succeeded") || !strcmp(p, "Failed");
}

/* Writes what arrives; -EPIPE when stdout is gone (stops the stream). */
static int to_stdout(void *arg, const char *data, size_t len)
{
	struct follow *f = arg;
	if (!len)
		return 0;
	if (!f->header_done && sbp_log_kubelet_error(data, len)) {
		f->kubelet_err = true; /* not the runner's words (follow_pod) */
		return 0;
	}
	if (f->kubelet_err)
		return 0;
	if (!f->header_done) {
		const json_t *p = f->pod;
		const char *c = sbp_obj_class(p),
			   *att = sbp_meta_str(p, "labels", SB_LABEL_ATTEMPT);
		printf("%s==> pod/%s (class %s, attempt %s) <==\n", *f->printed ? "\n" : "",
		       sbp_obj_name(p), c ? c : "?", att ? att : "?");
		f->header_done = true;
		(*f->printed)++;
	}
	int wr = f->tty				       ? sbp_term_write(&f->term, stdout, data, len)
		 : fwrite(data, 1, len, stdout) == len ? 0
						       : -EIO;
	if (wr || fflush(stdout))
		return -EPIPE;
	f->ends_nl = data[len - 1] == '\n';
	return 0;
}

/*
 * Streams the log of pod from the start (since NULL) or from an RFC 3339
 * time. Returns 0 when the stream ended, 1 when the container has not
 * started (try later), -ENOENT when the pod is gone, -EPIPE when stdout is
 * gone, other -errno printed.
 */
static int stream_pod(struct sbp_ctx *x, const char *ns, struct follow *f, const char *since)
{
	struct kube_error err = KUBE_ERROR_INIT;
	struct kube_query q[] = {
		{"container", SB_CONTAINER_RUNNER}, {"follow", "true"}, {"sinceTime", since}};
	int ret = kube_stream_raw(x->kc, &kube_res_pods, ns, sbp_obj_name(f->pod), "log", q, 3,
				  to_stdout, f, &err);
	if (f->tty)
		(void)sbp_term_flush(&f->term, stdout); /* a character the stream cut */
	if (f->header_done && !f->ends_nl && !ret) {
		putchar('\n');
		f->ends_nl = true;
	}
	if (ret == -EINVAL && err.http_code == 400)
		return 1; /* "container ... is waiting to start" */
	if (ret && ret != -ENOENT && ret != -EPIPE)
		sbp_api_err(x, ret, &err, "cannot follow the log of pod '%s'",
			    sbp_obj_name(f->pod));
	return ret;
}

/* The pod named name now (a new reference), NULL when it is gone. */
static json_t *get_pod(struct sbp_ctx *x, const char *ns, const char *name)
{
	json_t *pod = NULL;
	if (kube_get(x->kc, &kube_res_pods, ns, name, &pod, NULL))
		return NULL;
	return pod;
}

/* The runner container's state "terminated" in pod, or NULL. */
static const json_t *runner_terminated(const json_t *pod)
{
	size_t i;
	const json_t *cs;
	json_array_foreach(json_object_get(json_object_get(pod, "status"), "containerStatuses"), i,
			   cs)
	{
		const char *n = json_string_value(json_object_get(cs, "name"));
		if (n && !strcmp(n, SB_CONTAINER_RUNNER))
			return json_object_get(json_object_get(cs, "state"), "terminated");
	}
	return NULL;
}

/*
 * After a log stream ended: whether the runner container still runs (the
 * server closed the stream early). Its status may lag its end by a moment,
 * so it is asked a few times, a second apart, before the answer is yes.
 */
static bool still_running(struct sbp_ctx *x, const char *ns, const char *name)
{
	for (int i = 0; i < 5; i++) {
		json_t *cur = get_pod(x, ns, name);
		bool ended = !cur || pod_ended(cur) || runner_terminated(cur) ||
			     sbp_meta_str(cur, "deletionTimestamp", NULL);
		json_decref(cur);
		if (ended)
			return false;
		sleep_ms(POLL_MS);
	}
	return true;
}

/*
 * After the kubelet answered an error instead of the log, before any of it
 * was printed: 0 when the pod is gone, being deleted or ended (its
 * container removed: there is no log to wait for), 1 when it still runs (a
 * container just started, whose log file the kubelet does not see yet: the
 * log is asked again, from its start, on the next pass).
 */
static int after_kubelet_error(struct sbp_ctx *x, const char *ns, const char *name)
{
	json_t *cur = get_pod(x, ns, name);
	bool over = !cur || pod_ended(cur) || sbp_meta_str(cur, "deletionTimestamp", NULL);
	json_decref(cur);
	return over ? 0 : 1;
}

/*
 * Follows one pod's log to its end: again, from when the stream ended, if
 * the server closed it while the container still runs. 0 (done, or the pod
 * is gone), 1 (not started yet), -EPIPE, other -errno (printed).
 */
static int follow_pod(struct sbp_ctx *x, const char *ns, const json_t *pod, size_t *printed)
{
	struct follow f = {.pod = pod,
			   .printed = printed,
			   .ends_nl = true,
			   .tty = sbp_term_is(stdout),
			   .term = SBP_TERM_INIT};
	char since[32] = "";
	for (;;) {
		int ret = stream_pod(x, ns, &f, since[0] ? since : NULL);
		time_t ended_at = time(NULL);
		if (ret)
			return ret == -ENOENT ? 0 : ret;
		if (f.kubelet_err)
			return after_kubelet_error(x, ns, sbp_obj_name(pod));
		if (!still_running(x, ns, sbp_obj_name(pod)))
			return 0;
		/* from the second the stream ended in (its lines may come twice,
		 * none is lost while still_running asks) */
		if (!*sb_rfc3339_format(ended_at, since, sizeof(since)))
			return -EINVAL;
	}
}

int sbp_logs_follow(struct sbp_ctx *x, const struct sbp_args *a, const struct sbp_ref *ref,
		    json_t *run)
{
	json_t *done = json_object(); /* pods whose log was followed to its end */
	size_t printed = 0;
	int status = 1;

	if (!done) {
		sbp_err("out of memory");
		return 1;
	}
	json_incref(run);
	for (;;) {
		json_t *pods = NULL;
		if (sbp_list_runner_pods(x, ref->ns, run, ref->name, a->cls, &pods))
			goto out;
		bool ended = run_ended(run), waiting = false, live = false;
		size_t i;
		const json_t *p;
		json_array_foreach(pods, i, p)
		{
			const char *pn = sbp_obj_name(p);
			if (json_object_get(done, pn))
				continue;
			int ret = 0;
			if (ended && !pod_ended(p) && strcmp(pod_phase(p), "Running"))
				ret = -ESRCH; /* never started, and never will */
			else
				ret = follow_pod(x, ref->ns, p, &printed);
			if (ret == 1) {
				waiting = true; /* in the run's order: wait for it */
				break;
			}
			if (ret == -EPIPE) {
				status = 0; /* the reader went away (| head) */
				json_decref(pods);
				goto out;
			}
			if (ret && ret != -ESRCH) {
				json_decref(pods);
				goto out;
			}
			if (json_object_set_new(done, pn, json_true())) {
				sbp_err("out of memory");
				json_decref(pods);
				goto out;
			}
			live = live || !ret;
		}
		json_decref(pods);
		if (ended && !waiting)
			break;
		if (!live)
			sleep_ms(POLL_MS);
		json_t *now = NULL;
		if (sbp_get_run(x, ref, &now))
			goto out;
		json_decref(run);
		run = now;
	}
	/* every pod was gone before its log could be read: what they recorded
	 * (the table, or why there is none; the exit status is the ending's) */
	if (!printed)
		(void)sbp_logs_results(x, a, ref->ns, ref->name, run);
	status = sbp_logs_ending(run, ref->name);
out:
	json_decref(run);
	json_decref(done);
	return status;
}
