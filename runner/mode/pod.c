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
 * A distributed run (SB_MEMBERS > 1, docs/distributed.md): this pod is
 * member SB_MEMBER of its class. It skips the iterations in
 * SB_DONE_ITERATIONS, records its results as
 * <run>-<class>-<iteration>-a<attempt>-m<member>, and before measuring an
 * iteration (files laid out) creates its "ready" ConfigMap and waits for
 * the controller's "start" ConfigMap, then for the start time it holds.
 *
 * Exit status (lib/core/labels.h SB_EXIT_*): 0 every iteration recorded; 1 an
 * I/O or API failure (the controller retries the remaining iterations in
 * a new pod); 2 the workloads cannot run here (unaligned direct I/O, ...;
 * not retried); 128 + the signal (143) when SIGTERM stopped it (the pod
 * was deleted or evicted): the iterations recorded stay, the one that was
 * running is not recorded, and a new attempt (if any) runs it again. The
 * reason is also written to the termination message.
 */
#include "runner/mode/pod.h"

#include "kube/kube.h"
#include "core/invocation.h"
#include "core/labels.h"
#include "core/log.h"
#include "core/names.h"
#include "result/owner.h"
#include "result/resultdoc.h"
#include "runner/mode/cmdline.h"
#include "fiojob/patfile.h"
#include "runner/out/iolog.h"
#include "runner/out/json.h"
#include "runner/out/text.h"
#include "runner/io/run.h"
#include "result/sign.h"
#include "core/units.h"
#include "runner/s3/pod.h"
#include "runner/mode/startwait.h"
#include "runner/mode/stop.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_RESULT_BYTES SB_RESULT_MAX_BYTES /* lib/core/labels.h */
#define MAX_LOG_BYTES	 (256 * 1024)	     /* fio log files kept in one result */
#define BARRIER_LATE_MS	 1000		     /* a start time further past is missed */

struct pod_env {
	struct sb_invocation inv;	      /* what the controller says (lib/core/invocation.h) */
	unsigned char key[SB_SIGN_KEY_BYTES]; /* the run's signing key (lib/result/sign.h) */
	/* a test hook: this member starts group 0 so much later (docs/distributed.md) */
	unsigned late_start_ms;
};

/* Start times kept per workload group of an iteration (more groups: not reported) */
#define BARRIER_MAX_GROUPS 64

/* The start barrier of one iteration (the run's start hook). */
struct barrier {
	const struct pod_env *e;
	struct kube_client *kc;
	unsigned it;
	int64_t planned_ns, actual_ns; /* group 0's: the iteration's start */
	struct {
		int64_t planned_ns, actual_ns;
	} groups[BARRIER_MAX_GROUPS]; /* 0..ngroups-1 */
	unsigned ngroups;
	struct sb_clock_est clock; /* this node's clock against the controller's */
	char err[512];
};

/*
 * context.start of a member's result (new reference, NULL on ENOMEM):
 * {"planned_ns", "actual_ns"} of group 0 and "groups": [{"group",
 * "planned_ns", "actual_ns"}] for each workload group that started.
 */
static json_t *start_context(const struct barrier *b)
{
	json_t *groups = json_array();
	for (unsigned g = 0; groups && g < b->ngroups; g++)
		if (json_array_append_new(groups, json_pack("{s:I,s:I,s:I}", SB_RK_CTX_GROUP,
							    (json_int_t)g, SB_RK_CTX_PLANNED_NS,
							    (json_int_t)b->groups[g].planned_ns,
							    SB_RK_CTX_ACTUAL_NS,
							    (json_int_t)b->groups[g].actual_ns))) {
			json_decref(groups);
			groups = NULL;
		}
	if (!groups)
		return NULL;
	return json_pack("{s:I,s:I,s:o}", SB_RK_CTX_PLANNED_NS, (json_int_t)b->planned_ns,
			 SB_RK_CTX_ACTUAL_NS, (json_int_t)b->actual_ns, SB_RK_CTX_GROUPS, groups);
}

/*
 * context.clock of a member's result (new reference; NULL on ENOMEM):
 * {"offset_ns", "uncertainty_ns", "round_trip_ns", "exchanges"}, the best
 * exchange so far; {"exchanges": n} alone when none was usable.
 */
static json_t *clock_context(const struct sb_clock_est *c)
{
	if (!c->have)
		return json_pack("{s:I}", SB_RK_CTX_EXCHANGES, (json_int_t)c->exchanges);
	return json_pack("{s:I,s:I,s:I,s:I}", SB_RK_CTX_OFFSET_NS, (json_int_t)c->offset_ns,
			 SB_RK_CTX_UNCERTAINTY_NS, (json_int_t)c->uncertainty_ns,
			 SB_RK_CTX_ROUND_TRIP_NS, (json_int_t)c->round_trip_ns, SB_RK_CTX_EXCHANGES,
			 (json_int_t)c->exchanges);
}

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
		sb_error(SB_LOG_RUNNER_STOPPED, "status=%d reason=\"%s\"", status, msg);
	else
		sb_info(SB_LOG_RUNNER_FINISHED, "detail=\"%s\"", msg);
	return status;
}

/* The invocation the controller wrote (lib/core/invocation.h) into e. 0 or -EINVAL with err. */
static int read_env(struct pod_env *e, char *err, size_t len)
{
	int r = sb_invocation_from_env(&e->inv, err, len);
	if (r)
		return r;
	/* STORAGEBENCH_TEST_LATE_START=<member>:<ms>, 1..5000 ms: that member late */
	const char *ls = getenv("STORAGEBENCH_TEST_LATE_START");
	unsigned lm = 0, lms = 0;
	if (ls && sscanf(ls, "%u:%u", &lm, &lms) == 2 && lm == e->inv.member && lms <= 5000)
		e->late_start_ms = lms;
	return 0;
}

/* Whether iteration it is in the comma-separated list done. */
static bool in_list(const char *done, unsigned it)
{
	for (const char *p = done; p && *p;) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);
		if (end == p)
			return false;
		if (v == it)
			return true;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return false;
	}
	return false;
}

static int64_t now_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A ConfigMap of this pod's run and class (labels, owner), new reference or NULL. */
static json_t *pod_cm(const struct pod_env *e, const char *name, const char *component, unsigned it)
{
	char cls_label[64], run_label[64], itbuf[16], at[16];
	if (sb_name_label(cls_label, sizeof(cls_label), e->inv.cls) ||
	    sb_name_label(run_label, sizeof(run_label), e->inv.run))
		return NULL;
	snprintf(itbuf, sizeof(itbuf), "%u", it);
	snprintf(at, sizeof(at), "%u", e->inv.attempt);
	json_t *cm = json_pack(
		"{s:s,s:s,s:{s:s,s:s,s:{s:s,s:s,s:s,s:s,s:s,s:s},s:{s:s,s:s},s:[{s:s,"
		"s:s,s:s,s:s,s:b,s:b}]},s:{}}",
		"apiVersion", "v1", "kind", "ConfigMap", "metadata", "name", name, "namespace",
		e->inv.ns, "labels", SB_LABEL_NAME, SB_APP_NAME, SB_LABEL_COMPONENT, component,
		SB_LABEL_MANAGED_BY, SB_MANAGER, SB_LABEL_RUN, run_label, SB_LABEL_CLASS, cls_label,
		SB_LABEL_ITERATION, itbuf, "annotations", SB_ANNOT_RUN, e->inv.run, SB_ANNOT_CLASS,
		e->inv.cls, "ownerReferences", "apiVersion", SB_API_VERSION, "kind", SB_KIND,
		"name", e->inv.run, "uid", e->inv.uid, "controller", 1, "blockOwnerDeletion", 1,
		"data");
	json_t *labels = json_object_get(json_object_get(cm, "metadata"), "labels");
	/* the attempt (and a distributed pod's member): what a result's MAC binds */
	if (cm && json_object_set_new(labels, SB_LABEL_ATTEMPT, json_string(at))) {
		json_decref(cm);
		return NULL;
	}
	if (cm && e->inv.members > 1) {
		char mb[16];
		snprintf(mb, sizeof(mb), "%u", e->inv.member);
		if (json_object_set_new(labels, SB_LABEL_MEMBER, json_string(mb))) {
			json_decref(cm);
			return NULL;
		}
	}
	return cm;
}

int sb_pod_start_time(const char *cm, unsigned it, const char *value, int64_t now, long barrier_s,
		      int64_t *when, char *err, size_t errlen)
{
	char *end = NULL;
	errno = 0;
	long long w = value ? strtoll(value, &end, 10) : 0;
	*when = 0;
	if (!value || !*value || *end || errno || w <= 0) {
		snprintf(err, errlen, "configmap %s: data.%s: '%s' is not a time in ns", cm,
			 SB_START_KEY, value ? value : "");
		return -EINVAL;
	}
	*when = w;
	/* no further ahead than the barrier's timeout: the controller starts members
	 * BR_DIST_START_DELAY_MS ahead, so a later time is not its own */
	if (barrier_s > 0 && (w - now) / 1000000000 > barrier_s) { /* no product to overflow */
		snprintf(err, errlen,
			 "configmap %s: data.%s: iteration %u would start in %lld s, beyond the "
			 "barrier timeout (%ld s): not a start time the controller sets",
			 cm, SB_START_KEY, it, (long long)((w - now) / 1000000000), barrier_s);
		return -ERANGE;
	}
	/* a start long past: the others measured without this pod (it was restarted
	 * after the barrier); its iteration would not overlap theirs */
	if (now - w > (int64_t)BARRIER_LATE_MS * 1000000) {
		snprintf(err, errlen,
			 "iteration %u started %lld ms ago without this pod (restarted after the "
			 "start barrier?)",
			 it, (long long)((now - w) / 1000000));
		return -ETIME;
	}
	return 0;
}

/*
 * The start hook: this member is ready (its files laid out); wait for the
 * start ConfigMap of the iteration, then for the time it says.
 */
static int barrier_wait(void *ctx, unsigned group)
{
	struct barrier *b = ctx;
	const struct pod_env *e = b->e;
	struct kube_error kerr = KUBE_ERROR_INIT;
	char ready[64], start[64], eb[512];
	json_t *cm = NULL;

	if (sb_name_ready(ready, sizeof(ready), e->inv.run, e->inv.cls, b->it, e->inv.attempt,
			  e->inv.member, group) ||
	    sb_name_start(start, sizeof(start), e->inv.run, e->inv.cls, b->it, e->inv.attempt,
			  group)) {
		snprintf(b->err, sizeof(b->err), "cannot name the barrier of iteration %u", b->it);
		return -EINVAL;
	}
	json_t *rc = pod_cm(e, ready, SB_COMPONENT_READY, b->it);
	char gb[16];
	snprintf(gb, sizeof(gb), "%u", group);
	if (rc && json_object_set_new(json_object_get(json_object_get(rc, "metadata"), "labels"),
				      SB_LABEL_GROUP, json_string(gb))) {
		json_decref(rc);
		rc = NULL;
	}
	/* t1 of the clock exchange (runner/mode/startwait.h) */
	int64_t t1 = now_ns(CLOCK_REALTIME), t4 = 0;
	char sent[32];
	snprintf(sent, sizeof(sent), "%lld", (long long)t1);
	if (rc && json_object_set_new(json_object_get(rc, "data"), SB_START_SENT_KEY,
				      json_string(sent))) {
		json_decref(rc);
		rc = NULL;
	}
	int r = rc ? kube_create(b->kc, &kube_res_configmaps, e->inv.ns, rc, NULL, &kerr) : -ENOMEM;
	json_decref(rc);
	if (r == -EEXIST)
		t1 = 0; /* made earlier (a restart): not this exchange's */
	if (r && r != -EEXIST) {
		snprintf(b->err, sizeof(b->err), "cannot record configmap %s: %s", ready,
			 kube_error_str(&kerr, eb, sizeof(eb)));
		return r;
	}
	sb_info("Reached the start barrier", "iteration=%u group=%u member=%u of=%u node=%s", b->it,
		group, e->inv.member, e->inv.members, e->inv.node);
	/* the controller answers within its barrier timeout or fails the class;
	 * one watch of the start ConfigMap, not polling (runner/mode/startwait.h) */
	int64_t give_up = now_ns(CLOCK_MONOTONIC) + ((int64_t)e->inv.barrier_s + 30) * 1000000000;
	kube_error_clear(&kerr);
	r = sb_start_wait(b->kc, e->inv.ns, start, give_up, &cm, &t4, &kerr);
	if (r == -EINTR) {
		snprintf(b->err, sizeof(b->err),
			 "stopped by %s at the start barrier of iteration %u",
			 sb_stop_name(sb_stop_signal()), b->it);
		return -EINTR;
	}
	if (r) {
		snprintf(b->err, sizeof(b->err),
			 "no start time for iteration %u within %lds (configmap %s: %s)", b->it,
			 e->inv.barrier_s + 30, start,
			 r == -ETIMEDOUT ? "not found" : kube_error_str(&kerr, eb, sizeof(eb)));
		return r;
	}
	const json_t *v = json_object_get(json_object_get(cm, "data"), SB_START_KEY);
	(void)sb_clock_exchange(cm, e->inv.member, t1, t4, &b->clock);
	/* checked in the controller's time: this node's clock less its offset */
	int64_t when = 0;
	int sr = sb_pod_start_time(start, b->it, json_is_string(v) ? json_string_value(v) : NULL,
				   now_ns(CLOCK_REALTIME) - sb_clock_applied(&b->clock),
				   e->inv.barrier_s, &when, b->err, sizeof(b->err));
	json_decref(cm);
	if (sr == -EINVAL || sr == -ERANGE)
		return sr;
	if (group == 0) /* the iteration's start: its skew is reported */
		b->planned_ns = when;
	if (group == 0)
		b->ngroups = 0; /* a new iteration */
	if (group < BARRIER_MAX_GROUPS)
		b->groups[group].planned_ns = when;
	if (sr)
		return sr;
	when += sb_clock_applied(&b->clock); /* the controller's time on this node's clock */
	/* to the start time, in steps of at most 20 ms so that a stop is seen */
	for (int64_t t = now_ns(CLOCK_REALTIME); t < when; t = now_ns(CLOCK_REALTIME)) {
		if (sb_stop_requested()) {
			snprintf(b->err, sizeof(b->err),
				 "stopped by %s waiting for the start time of iteration %u",
				 sb_stop_name(sb_stop_signal()), b->it);
			return -EINTR;
		}
		/* relative: an absolute CLOCK_REALTIME sleep would be on the kernel's
		 * clock, which a shifted clock of this process's (a preload) is not */
		int64_t step = when - t > 20000000 ? 20000000 : when - t;
		struct timespec d = {0, (long)step};
		(void)nanosleep(&d, NULL);
	}
	if (group == 0 && e->late_start_ms) {
		sb_warn("Starting late (test hook STORAGEBENCH_TEST_LATE_START)", "ms=%u",
			e->late_start_ms);
		(void)sb_stop_sleep_ns((uint64_t)e->late_start_ms * 1000000);
	}
	int64_t actual = now_ns(CLOCK_REALTIME);
	if (group == 0)
		b->actual_ns = actual;
	if (group < BARRIER_MAX_GROUPS) {
		b->groups[group].actual_ns = actual;
		b->ngroups = group + 1;
	}
	sb_info("Started at the barrier", "iteration=%u group=%u late_us=%lld", b->it, group,
		(long long)((actual - when) / 1000));
	return 0;
}

/* The result ConfigMap of one iteration, signed (new reference), NULL on ENOMEM. */
static json_t *result_cm(const struct pod_env *e, unsigned it, const char *name, const char *text)
{
	char mac[SB_SIGN_HEX_LEN + 1];
	/* bound to this pod's member (0: not distributed) and attempt, as its labels say */
	struct sb_sign_subject subj = {e->inv.uid, e->inv.cls, it,
				       e->inv.members > 1 ? e->inv.member : 0, e->inv.attempt};
	if (sb_sign_result(e->key, sizeof(e->key), &subj, text, strlen(text), mac))
		return NULL;
	json_t *cm = pod_cm(e, name, SB_COMPONENT_RESULT, it);
	json_t *data = json_object_get(cm, "data");
	if (cm && (json_object_set_new(data, SB_RESULT_KEY, json_string(text)) ||
		   json_object_set_new(data, SB_RESULT_MAC_KEY, json_string(mac)))) {
		json_decref(cm);
		return NULL;
	}
	return cm;
}

/*
 * The name of iteration it's result: <run>-<class>-<it>, or, when
 * attempt > 0, <run>-<class>-<it>-a<attempt>: the name attempt uses when
 * a ConfigMap that is not this run's result holds the first one (the
 * controller finds results by their labels, not their names).
 */
static int result_name(const struct pod_env *e, unsigned it, unsigned attempt, char *out,
		       size_t len)
{
	char itb[16], ab[16];
	if (!attempt)
		return sb_name_result(out, len, e->inv.run, e->inv.cls, it);
	snprintf(itb, sizeof(itb), "%u", it);
	snprintf(ab, sizeof(ab), "a%u", attempt);
	const char *parts[] = {e->inv.run, e->inv.cls, itb, ab};
	return sb_name_join(out, len, 63, parts, 4);
}

/*
 * Looks at ConfigMap name: 0 with *valid telling whether it is this run's
 * valid result of iteration it (lib/result/owner.h, the controller's rule), or
 * -ENOENT, or another -errno from the API (kerr says). One that is not is
 * logged and its name added to foreign.
 */
static int look(struct kube_client *kc, const struct pod_env *e, unsigned it, const char *name,
		bool *valid, char *foreign, size_t flen, struct kube_error *kerr)
{
	json_t *cm = NULL;
	char why[512];
	*valid = false;
	int r = kube_get(kc, &kube_res_configmaps, e->inv.ns, name, &cm, kerr);
	if (r)
		return r;
	struct sb_result_want want = {e->inv.ns, e->inv.run, e->inv.uid, e->inv.cls, it, e->key};
	r = sb_result_check(cm, &want, NULL, why, sizeof(why));
	json_decref(cm);
	if (r == -ENOMEM)
		return r;
	*valid = r == 0;
	if (*valid) {
		sb_info(SB_LOG_SKIPPED_ITERATION, SB_LOG_ITERATION_FIELD "%u configmap=%s", it,
			name);
		return 0;
	}
	sb_warn("Ignored a configmap that is not this run's result",
		"iteration=%u configmap=%s reason=\"%s\"", it, name, why);
	size_t n = strlen(foreign);
	if (n + strlen(name) + 3 < flen)
		snprintf(foreign + n, flen - n, "%s%s", n ? ", " : "", name);
	return 0;
}

/* Deletes keys[0..n) from each direction's storagebench extras of job j. */
static void drop_series(json_t *j, const char *const *keys, size_t n)
{
	for (int d = 0; d < SB_RDIR_COUNT; d++)
		for (size_t k = 0; k < n; k++)
			json_object_del(json_object_get(json_object_get(j, SB_RK_SB),
							sb_result_dir_keys[d]),
					keys[k]);
}

/* The job of jobs whose per-interval histograms are the largest; NULL when none has any. */
static json_t *largest_hist_series(const json_t *jobs)
{
	json_t *best = NULL, *j;
	size_t most = 0, i;
	json_array_foreach(jobs, i, j)
	{
		size_t sz = 0;
		for (int d = 0; d < SB_RDIR_COUNT; d++) {
			const json_t *hs = json_object_get(sb_result_job_extra(j, d),
							   SB_RK_SB_CLAT_HIST_SERIES);
			size_t k;
			const json_t *iv;
			json_array_foreach(hs, k, iv) sz += json_array_size(iv) + 1;
		}
		if (sz > most) {
			most = sz;
			best = j;
		}
	}
	return best;
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
	/* then the per-interval latency, the largest job's first (its merge takes
	 * latency from the whole runs, lib/stats/merge.h) */
	static const char *const lat_keys[] = {SB_RK_SB_CLAT_HIST_SERIES, SB_RK_SB_CLAT_SUM_SERIES,
					       SB_RK_SB_LAT_SUM_SERIES};
	static const char *const all_keys[] = {SB_RK_SB_IOS_SERIES, SB_RK_SB_BYTES_SERIES,
					       SB_RK_SB_CLAT_HIST_SERIES, SB_RK_SB_CLAT_SUM_SERIES,
					       SB_RK_SB_LAT_SUM_SERIES};
	const json_t *jobs = json_object_get(doc, SB_RK_JOBS);
	for (json_t *j; (j = largest_hist_series(jobs));) {
		drop_series(j, lat_keys, 3);
		sb_warn("Dropped a job's per-interval latency to fit the result in a ConfigMap",
			"job=%s", json_string_value(json_object_get(j, SB_RK_JOBNAME)));
		text = json_dumps(doc, JSON_COMPACT);
		if (text && strlen(text) <= MAX_RESULT_BYTES)
			return text;
		free(text);
	}
	size_t i;
	json_t *j;
	json_array_foreach(jobs, i, j)
	{
		drop_series(j, all_keys, 5);
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

/* What sb_pod_main holds from start to end; the steps below share it. */
struct pod {
	struct pod_env e;
	struct sb_cli cli;
	struct sb_diag diag;
	struct sb_joblist jobs;
	struct sb_s3_pod s3; /* an object-store target: "pod s3 ..." (docs/s3.md) */
	struct kube_client *kc;
	struct kube_error kerr;
	struct barrier bar;
	char err[1024], ebuf[1024], logdir[4096], foreign[512];
	int status;
	unsigned recorded, skipped;
};

/* The steps return 0 to go on, or -1 when the pod ends (p->status set by finish). */
static int stop(struct pod *p, int status)
{
	p->status = status;
	return -1;
}

/* The file-system target's options and jobs; each member's directory, the log directory. */
static int pod_jobs(struct pod *p, int argc, char **argv)
{
	/* the controller's arguments name no pattern file; the job's only its volume's */
	(void)sb_patfile_set_mode(SB_PATFILE_REFUSE, NULL);
	if (sb_cli_parse(argc, argv, &p->cli, &p->diag))
		return stop(p, finish(2, "%s", p->diag.msg));
	p->cli.jobfile_sha256 = p->e.inv.jobfile_sha256;
	if (p->cli.jobfile_sha256 && p->cli.njobfiles != 1)
		return stop(p,
			    finish(2, "%s: names one job file's digest; the pod has %zu job files",
				   SB_ENV_JOBFILE_SHA256, p->cli.njobfiles));
	const char *vol = p->cli.global.o.directory;
	if (vol && vol[0] == '/')
		(void)sb_patfile_set_mode(SB_PATFILE_BENEATH, vol);
	if (p->cli.log_level) {
		enum sb_log_level lvl;
		if (sb_log_parse_level(p->cli.log_level, &lvl))
			return stop(p, finish(2,
					      "--log-level: '%s' is not one of debug, info, warn, "
					      "error, off",
					      p->cli.log_level));
		sb_log_set_level(lvl);
	}
	int jr = sb_cli_jobs(&p->cli, &p->jobs, &p->diag);
	if (jr)
		return stop(p, finish(jr == -ENOMEM ? 1 : 2, "%s",
				      jr == -ENOMEM ? "out of memory" : p->diag.msg));
	if (p->cli.clients > 1)
		return stop(p, finish(2, "--clients: not in a runner pod (spec.runner.pods runs "
					 "several pods per class)"));
	for (size_t i = 0; i < p->jobs.n && p->e.inv.members > 1 && p->e.inv.member; i++) {
		/* spec.runner.volume shared: each member's directory on the one volume */
		const char *d = p->jobs.jobs[i].o.directory;
		if (d && mkdir(d, 0700) != 0 && errno != EEXIST)
			return stop(p, finish(2, "cannot create the directory '%s': %s", d,
					      strerror(errno)));
	}
	for (size_t i = 0; i < p->jobs.n && !p->logdir[0]; i++) {
		const struct sb_job_opts *o = &p->jobs.jobs[i].o;
		if ((o->bw_log[0] || o->lat_log[0] || o->iops_log[0]) && o->directory) {
			/* the root filesystem is read-only: log files go on the volume */
			snprintf(p->logdir, sizeof(p->logdir), "%s/.storagebench-logs",
				 o->directory);
			if (mkdir(p->logdir, 0700) != 0 && errno != EEXIST)
				return stop(p, finish(2, "cannot create '%s' for the log files: %s",
						      p->logdir, strerror(errno)));
			sb_iolog_set_dir(p->logdir);
		}
	}
	return 0;
}

/*
 * The name iteration it is recorded under, in name: 0, 1 when a valid result
 * is there already (skip it), -1 when the pod ends.
 */
static int pod_result_name(struct pod *p, unsigned it, char *name, size_t len)
{
	const struct pod_env *e = &p->e;
	if (e->inv.members > 1 ? sb_name_member_result(name, len, e->inv.run, e->inv.cls, it,
						       e->inv.attempt, e->inv.member)
			       : sb_name_result(name, len, e->inv.run, e->inv.cls, it))
		return stop(p, finish(2, "cannot name the result of iteration %u", it));
	/* recorded already, by the controller's rule? a ConfigMap of the name
	 * that is not this run's result is named, left alone, and this
	 * attempt writes under its own name */
	bool valid = false, taken = false;
	char cand[64];
	int r = look(p->kc, e, it, name, &valid, p->foreign, sizeof(p->foreign), &p->kerr);
	taken = r == 0 && !valid;
	if (taken && e->inv.members > 1)
		/* a member's result name holds its attempt and member number:
		 * no other name to fall back to */
		return stop(p, finish(1,
				      "iteration %u: configmap %s exists and is not this run's "
				      "result; not recorded",
				      it, name));
	for (unsigned a = 1; taken && !valid && (r == 0 || r == -ENOENT) && a <= e->inv.attempt;
	     a++) {
		if (result_name(e, it, a, cand, sizeof(cand)))
			return stop(p, finish(2, "cannot name the result of iteration %u", it));
		r = look(p->kc, e, it, cand, &valid, p->foreign, sizeof(p->foreign), &p->kerr);
	}
	if (valid) {
		p->skipped++;
		return 1;
	}
	if (r && r != -ENOENT)
		return stop(p, finish(1, "iteration %u: cannot check for configmap %s: %s", it,
				      taken ? cand : name,
				      kube_error_str(&p->kerr, p->ebuf, sizeof(p->ebuf))));
	if (taken && result_name(e, it, e->inv.attempt, name, len))
		return stop(p, finish(2, "cannot name the result of iteration %u", it));
	return 0;
}

/* The end of a pod stopped by a signal during iteration it. */
static int pod_interrupted(struct pod *p, unsigned it, int sig)
{
	return stop(p, finish(SB_EXIT_INTERRUPTED(sig),
			      "iteration %u interrupted by %s: not recorded; %u iterations "
			      "recorded, %u already present",
			      it, sb_stop_name(sig), p->recorded, p->skipped));
}

/* Iteration it against the object store: its result document in *doc. 0 or -1. */
static int pod_run_s3(struct pod *p, unsigned it, json_t **doc)
{
	fprintf(stderr, "=== %s, iteration %u of %u\n", p->e.inv.cls, it, p->e.inv.iterations);
	int r = sb_s3_pod_iteration(&p->s3, stderr, doc, p->err, sizeof(p->err));
	fflush(stderr);
	if (sb_stop_requested()) {
		json_decref(*doc);
		*doc = NULL;
		return pod_interrupted(p, it, sb_stop_signal());
	}
	if (r) {
		/* wrong keys, TLS, a bucket with data: a retry will not help */
		bool final = r == -EACCES || r == -EPROTO || r == -ENOTEMPTY;
		return stop(p, finish(final ? 2 : 1, "iteration %u: %s", it, p->err));
	}
	return 0;
}

/* Iteration it of the jobs: its result document in *doc. 0 or -1. */
static int pod_run_jobs(struct pod *p, unsigned it, json_t **doc)
{
	const struct pod_env *e = &p->e;
	struct sb_results res = SB_RESULTS_INIT;
	p->bar.it = it;
	p->bar.err[0] = '\0';
	int r = sb_run_jobs(&p->jobs, &res);
	if (res.interrupted || sb_stop_requested()) {
		/* what ran is logged, marked; an incomplete iteration is no result */
		int sig = res.interrupted ? res.interrupted : sb_stop_signal();
		fprintf(stderr,
			"=== %s, iteration %u of %u: interrupted by %s, partial, not "
			"recorded\n",
			e->inv.cls, it, e->inv.iterations, sb_stop_name(sig));
		sb_out_text(stderr, &res);
		fflush(stderr);
		sb_results_release(&res);
		return pod_interrupted(p, it, sig);
	}
	if (r && p->bar.err[0]) {
		p->status = finish(1, "iteration %u: %s", it, p->bar.err);
		sb_results_release(&res);
		return -1;
	}
	/* on stderr, the log lines' stream: one pipe keeps the order in the
	 * container log (containerd reads stdout and stderr separately, so
	 * a block on stdout could land after the next "Started iteration") */
	fprintf(stderr, "=== %s, iteration %u of %u\n", e->inv.cls, it, e->inv.iterations);
	sb_out_text(stderr, &res);
	fflush(stderr);
	const struct sb_job_result *bad = NULL; /* the first job that failed */
	for (size_t i = 0; i < res.n && !bad; i++)
		if (res.v[i]->error)
			bad = res.v[i];
	if (r || res.usage_error || res.io_error) {
		p->status = finish(res.usage_error ? 2 : 1, "iteration %u: %s%s%s%s", it,
				   bad ? "job '" : "", bad ? bad->name : "", bad ? "': " : "",
				   bad ? bad->errmsg
				   : r ? "out of memory"
				       : "a job failed");
		sb_results_release(&res);
		return -1;
	}
	*doc = sb_out_json_doc(&res, false);
	sb_results_release(&res);
	return 0;
}

/*
 * The result text of iteration it: doc (consumed) with the log files and the
 * context; NULL when the pod ends (p->status set).
 */
static char *pod_result_text(struct pod *p, unsigned it, json_t *doc)
{
	const struct pod_env *e = &p->e;
	json_t *ctx = json_pack("{s:s,s:s,s:I,s:s,s:I}", SB_RK_CTX_RUN, e->inv.run, SB_RK_CTX_CLASS,
				e->inv.cls, SB_RK_CTX_ITERATION, (json_int_t)it, SB_RK_CTX_POD,
				e->inv.pod, SB_RK_CTX_ATTEMPT, (json_int_t)e->inv.attempt);
	if (doc && p->logdir[0]) {
		/* fio log files (write_*_log) travel in the result, size-capped */
		bool found;
		json_t *logs = sb_iolog_collect(p->logdir, MAX_LOG_BYTES, &found);
		if (!logs || (found && json_object_set(doc, "logs", logs))) {
			json_decref(logs);
			json_decref(doc);
			json_decref(ctx);
			p->status = finish(1, "iteration %u: out of memory", it);
			return NULL;
		}
		json_decref(logs);
	}
	if (ctx && e->inv.members > 1 &&
	    (json_object_set_new(ctx, SB_RK_CTX_MEMBER, json_integer(e->inv.member)) ||
	     json_object_set_new(ctx, SB_RK_CTX_MEMBERS, json_integer(e->inv.members)) ||
	     json_object_set_new(ctx, SB_RK_CTX_NODE, json_string(e->inv.node)) ||
	     json_object_set_new(ctx, SB_RK_CTX_START, start_context(&p->bar)) ||
	     json_object_set_new(ctx, SB_RK_CTX_CLOCK, clock_context(&p->bar.clock)))) {
		json_decref(ctx);
		ctx = NULL;
	}
	if (!doc || !ctx || json_object_set_new(doc, SB_RK_CONTEXT, ctx)) {
		json_decref(doc);
		p->status = finish(1, "iteration %u: out of memory", it);
		return NULL;
	}
	char *text = dump_fitting(doc);
	json_decref(doc);
	if (!text)
		p->status = finish(1, "iteration %u: the result does not fit in a ConfigMap", it);
	return text;
}

/* Records iteration it's result document doc (consumed) as ConfigMap name. 0 or -1. */
static int pod_record(struct pod *p, unsigned it, const char *name, json_t *doc)
{
	char *text = pod_result_text(p, it, doc);
	if (!text)
		return -1;
	json_t *cm = result_cm(&p->e, it, name, text);
	free(text);
	if (!cm)
		return stop(p, finish(1, "iteration %u: out of memory", it));
	int r = kube_create(p->kc, &kube_res_configmaps, p->e.inv.ns, cm, NULL, &p->kerr);
	json_decref(cm);
	if (r == -EEXIST) {
		/* another pod recorded it first: never overwrite a result; unless
		 * what holds the name is not one */
		bool valid = false;
		r = look(p->kc, &p->e, it, name, &valid, p->foreign, sizeof(p->foreign), &p->kerr);
		if (r || !valid)
			return stop(p, finish(1,
					      "iteration %u: configmap %s exists and is not this "
					      "run's result; not recorded%s%s",
					      it, name, p->foreign[0] ? "; ignored: " : "",
					      p->foreign));
		sb_warn("Kept the result already recorded", "iteration=%u configmap=%s", it, name);
		p->skipped++;
	} else if (r) {
		return stop(p, finish(1, "iteration %u: cannot record configmap %s: %s", it, name,
				      kube_error_str(&p->kerr, p->ebuf, sizeof(p->ebuf))));
	} else {
		sb_info(SB_LOG_RECORDED_ITERATION, SB_LOG_ITERATION_FIELD "%u configmap=%s", it,
			name);
		p->recorded++;
	}
	return 0;
}

/* Runs and records iteration it: 0, or -1 when the pod ends. */
static int pod_iteration(struct pod *p, unsigned it)
{
	const struct pod_env *e = &p->e;
	char name[64];
	if (sb_stop_requested())
		return stop(p, finish(SB_EXIT_INTERRUPTED(sb_stop_signal()),
				      "stopped by %s before iteration %u; %u iterations recorded, "
				      "%u already present",
				      sb_stop_name(sb_stop_signal()), it, p->recorded, p->skipped));
	if (e->inv.members > 1 && in_list(e->inv.done, it)) {
		sb_info(SB_LOG_SKIPPED_ITERATION, SB_LOG_ITERATION_FIELD "%u", it);
		p->skipped++;
		return 0;
	}
	int r = pod_result_name(p, it, name, sizeof(name));
	if (r)
		return r < 0 ? -1 : 0;
	sb_info(SB_LOG_STARTED_ITERATION, SB_LOG_ITERATION_FIELD "%u of=%u", it, e->inv.iterations);
	json_t *doc = NULL;
	if (p->s3.n ? pod_run_s3(p, it, &doc) : pod_run_jobs(p, it, &doc))
		return -1;
	return pod_record(p, it, name, doc);
}

int sb_pod_kube_config(struct kube_config *cfg, const char *root, struct kube_error *err)
{
	const char *host = getenv("KUBERNETES_SERVICE_HOST");
	if (!host || !*host)
		return kube_config_load(cfg, NULL, root, err);
	if (getenv("KUBECONFIG"))
		sb_warn("Ignored KUBECONFIG in a pod",
			"reason=\"a runner pod talks to its own cluster's API server with its "
			"ServiceAccount\"");
	return kube_config_load_in_cluster(cfg, root, err);
}

/* The pod's main loop; 0 when every iteration is recorded, or -1. */
static int pod_run(struct pod *p)
{
	struct pod_env *e = &p->e;
	struct kube_config cfg = KUBE_CONFIG_INIT;
	int ret = 0;
	if (sb_pod_kube_config(&cfg, NULL, &p->kerr) ||
	    !(p->kc = kube_client_new(&cfg, NULL, &p->kerr))) {
		kube_config_release(&cfg);
		return stop(p, finish(1, "cannot reach the Kubernetes API: %s",
				      kube_error_str(&p->kerr, p->ebuf, sizeof(p->ebuf))));
	}
	sb_info("Runner started", "run=%s class=%s iterations=%u attempt=%u pod=%s", e->inv.run,
		e->inv.cls, e->inv.iterations, e->inv.attempt, e->inv.pod);
	p->bar.e = e;
	p->bar.kc = p->kc;
	if (e->inv.members > 1) {
		sb_info("Runner is a member of a distributed run",
			"member=%u of=%u node=%s done=%s", e->inv.member, e->inv.members,
			e->inv.node, e->inv.done[0] ? e->inv.done : "none");
		sb_run_set_start_hook(barrier_wait, &p->bar);
	}
	for (unsigned it = 1; it <= e->inv.iterations && !ret; it++)
		ret = pod_iteration(p, it);
	if (!ret)
		p->status = finish(0, "%u iterations recorded, %u already present%s%s", p->recorded,
				   p->skipped,
				   p->foreign[0] ? "; not this run's results, ignored: " : "",
				   p->foreign);
	sb_run_set_start_hook(NULL, NULL);
	kube_client_free(p->kc);
	p->kc = NULL;
	kube_config_release(&cfg);
	return ret;
}

int sb_pod_main(int argc, char **argv)
{
	struct pod pod = {
		.diag = {.warn = warn_cb}, .jobs = SB_JOBLIST_INIT, .kerr = KUBE_ERROR_INIT};
	struct pod *p = &pod;
	if (read_env(&p->e, p->err, sizeof(p->err))) {
		p->status = finish(2, "%s", p->err);
		goto out;
	}
	int kr = sb_sign_read_key(SB_SIGN_PATH, p->e.key);
	if (kr) {
		p->status = finish(2,
				   "cannot read the run's signing key %s: %s (the controller "
				   "mounts the run's Secret)",
				   SB_SIGN_PATH, kr == -EINVAL ? "not 32 bytes" : strerror(-kr));
		goto out;
	}
	if (argc > 1 && !strcmp(argv[1], "s3")) {
		int sr = sb_s3_pod_parse(argc - 1, argv + 1, &p->s3, p->err, sizeof(p->err));
		if (sr) {
			p->status = finish(sr == -ENOMEM ? 1 : 2, "%s", p->err);
			goto out;
		}
	} else if (pod_jobs(p, argc, argv)) {
		goto out;
	}
	(void)pod_run(p);
out:
	if (p->logdir[0])
		(void)rmdir(p->logdir);
	sb_joblist_release(&p->jobs);
	sb_cli_release(&p->cli);
	sb_s3_pod_release(&p->s3);
	return p->status;
}
