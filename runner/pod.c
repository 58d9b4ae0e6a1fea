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
 * Exit status (lib/labels.h SB_EXIT_*): 0 every iteration recorded; 1 an
 * I/O or API failure (the controller retries the remaining iterations in
 * a new pod); 2 the workloads cannot run here (unaligned direct I/O, ...;
 * not retried); 128 + the signal (143) when SIGTERM stopped it (the pod
 * was deleted or evicted): the iterations recorded stay, the one that was
 * running is not recorded, and a new attempt (if any) runs it again. The
 * reason is also written to the termination message.
 */
#include "runner/pod.h"

#include "kube/kube.h"
#include "labels.h"
#include "log.h"
#include "names.h"
#include "owner.h"
#include "runner/cmdline.h"
#include "runner/iolog.h"
#include "runner/out_json.h"
#include "runner/out_text.h"
#include "runner/run.h"
#include "sign.h"
#include "runner/s3_pod.h"
#include "runner/stop.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_RESULT_BYTES SB_RESULT_MAX_BYTES /* lib/labels.h */
#define MAX_LOG_BYTES	 (256 * 1024)	     /* fio log files kept in one result */
#define BARRIER_LATE_MS	 1000		     /* a start time further past is missed */

struct pod_env {
	const char *run, *uid, *cls, *ns, *pod;
	unsigned iterations, attempt;
	unsigned char key[SB_SIGN_KEY_BYTES]; /* the run's signing key (lib/sign.h) */
	/* distributed runs */
	unsigned member, members; /* members 1: not distributed */
	const char *done, *node;
	long barrier_s;
};

/* The start barrier of one iteration (the run's start hook). */
struct barrier {
	const struct pod_env *e;
	struct kube_client *kc;
	unsigned it;
	int64_t planned_ns, actual_ns;
	char err[512];
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
	static const char *const names[] = {SB_ENV_RUN, SB_ENV_RUN_UID, SB_ENV_CLASS,
					    SB_ENV_NAMESPACE, SB_ENV_POD_NAME};
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
	const char *it = getenv(SB_ENV_ITERATIONS), *at = getenv(SB_ENV_ATTEMPT);
	char *end;
	unsigned long n = it ? strtoul(it, &end, 10) : 0;
	if (!it || *end || n < 1 || n > 100000) {
		snprintf(err, len, "%s: '%s' is not a count from 1 to 100000", SB_ENV_ITERATIONS,
			 it ? it : "");
		return -EINVAL;
	}
	e->iterations = (unsigned)n;
	e->attempt = at ? (unsigned)strtoul(at, NULL, 10) : 1;
	const char *ms = getenv(SB_ENV_MEMBERS), *m = getenv(SB_ENV_MEMBER);
	const char *bt = getenv(SB_ENV_BARRIER_TIMEOUT);
	e->members = 1;
	if (ms && *ms) {
		unsigned long nm = strtoul(ms, &end, 10), mm = m ? strtoul(m, NULL, 10) : 0;
		if (*end || nm < 1 || nm > 64 || mm < 1 || mm > nm) {
			snprintf(err, len, "%s/%s: '%s' of '%s' is not a member of 1 to 64",
				 SB_ENV_MEMBER, SB_ENV_MEMBERS, m ? m : "", ms);
			return -EINVAL;
		}
		e->members = (unsigned)nm;
		e->member = (unsigned)mm;
	}
	e->done = getenv(SB_ENV_DONE) ? getenv(SB_ENV_DONE) : "";
	e->node = getenv(SB_ENV_NODE_NAME) ? getenv(SB_ENV_NODE_NAME) : "";
	e->barrier_s = bt ? strtol(bt, NULL, 10) : 300;
	if (e->barrier_s <= 0)
		e->barrier_s = 300;
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
	if (sb_name_label(cls_label, sizeof(cls_label), e->cls) ||
	    sb_name_label(run_label, sizeof(run_label), e->run))
		return NULL;
	snprintf(itbuf, sizeof(itbuf), "%u", it);
	snprintf(at, sizeof(at), "%u", e->attempt);
	json_t *cm = json_pack(
		"{s:s,s:s,s:{s:s,s:s,s:{s:s,s:s,s:s,s:s,s:s,s:s},s:{s:s,s:s},s:[{s:s,"
		"s:s,s:s,s:s,s:b,s:b}]},s:{}}",
		"apiVersion", "v1", "kind", "ConfigMap", "metadata", "name", name, "namespace",
		e->ns, "labels", SB_LABEL_NAME, "storagebench", SB_LABEL_COMPONENT, component,
		SB_LABEL_MANAGED_BY, SB_MANAGER, SB_LABEL_RUN, run_label, SB_LABEL_CLASS, cls_label,
		SB_LABEL_ITERATION, itbuf, "annotations", SB_ANNOT_RUN, e->run, SB_ANNOT_CLASS,
		e->cls, "ownerReferences", "apiVersion", SB_API_VERSION, "kind", SB_KIND, "name",
		e->run, "uid", e->uid, "controller", 1, "blockOwnerDeletion", 1, "data");
	json_t *labels = json_object_get(json_object_get(cm, "metadata"), "labels");
	if (cm && e->members > 1) {
		char mb[16];
		snprintf(mb, sizeof(mb), "%u", e->member);
		if (json_object_set_new(labels, SB_LABEL_ATTEMPT, json_string(at)) ||
		    json_object_set_new(labels, SB_LABEL_MEMBER, json_string(mb))) {
			json_decref(cm);
			return NULL;
		}
	}
	return cm;
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

	if (sb_name_ready(ready, sizeof(ready), e->run, e->cls, b->it, e->attempt, e->member,
			  group) ||
	    sb_name_start(start, sizeof(start), e->run, e->cls, b->it, e->attempt, group)) {
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
	int r = rc ? kube_create(b->kc, &kube_res_configmaps, e->ns, rc, NULL, &kerr) : -ENOMEM;
	json_decref(rc);
	if (r && r != -EEXIST) {
		snprintf(b->err, sizeof(b->err), "cannot record configmap %s: %s", ready,
			 kube_error_str(&kerr, eb, sizeof(eb)));
		return r;
	}
	sb_info("Reached the start barrier", "iteration=%u group=%u member=%u of=%u node=%s", b->it,
		group, e->member, e->members, e->node);
	/* the controller answers within its barrier timeout or fails the class */
	int64_t give_up = now_ns(CLOCK_MONOTONIC) + ((int64_t)e->barrier_s + 30) * 1000000000;
	for (;;) {
		kube_error_clear(&kerr);
		r = kube_get(b->kc, &kube_res_configmaps, e->ns, start, &cm, &kerr);
		if (r == 0)
			break;
		if (sb_stop_requested()) {
			snprintf(b->err, sizeof(b->err),
				 "stopped by %s at the start barrier of iteration %u",
				 sb_stop_name(sb_stop_signal()), b->it);
			return -EINTR;
		}
		if (now_ns(CLOCK_MONOTONIC) > give_up) {
			snprintf(b->err, sizeof(b->err),
				 "no start time for iteration %u within %lds (configmap %s: %s)",
				 b->it, e->barrier_s + 30, start,
				 r == -ENOENT ? "not found"
					      : kube_error_str(&kerr, eb, sizeof(eb)));
			return -ETIMEDOUT;
		}
		struct timespec ts = {0, 50 * 1000000};
		nanosleep(&ts, NULL);
	}
	const json_t *v = json_object_get(json_object_get(cm, "data"), SB_START_KEY);
	const char *sv = json_is_string(v) ? json_string_value(v) : NULL;
	char *end = NULL;
	long long when = sv ? strtoll(sv, &end, 10) : 0;
	if (!sv || *end || when <= 0) {
		snprintf(b->err, sizeof(b->err), "configmap %s: data.%s: '%s' is not a time in ns",
			 start, SB_START_KEY, sv ? sv : "");
		json_decref(cm);
		return -EINVAL;
	}
	json_decref(cm);
	if (group == 0) /* the iteration's start: its skew is reported */
		b->planned_ns = when;
	/* a start long past: the others measured without this pod (it was restarted
	 * after the barrier); its iteration would not overlap theirs */
	int64_t late = now_ns(CLOCK_REALTIME) - when;
	if (late > (int64_t)BARRIER_LATE_MS * 1000000) {
		snprintf(b->err, sizeof(b->err),
			 "iteration %u started %lld ms ago without this pod (restarted after the "
			 "start barrier?)",
			 b->it, (long long)(late / 1000000));
		return -ETIME;
	}
	/* to the start time, in steps of at most 20 ms so that a stop is seen */
	for (int64_t t = now_ns(CLOCK_REALTIME); t < when; t = now_ns(CLOCK_REALTIME)) {
		if (sb_stop_requested()) {
			snprintf(b->err, sizeof(b->err),
				 "stopped by %s waiting for the start time of iteration %u",
				 sb_stop_name(sb_stop_signal()), b->it);
			return -EINTR;
		}
		int64_t until = when - t > 20000000 ? t + 20000000 : when;
		struct timespec at = {(time_t)(until / 1000000000), (long)(until % 1000000000)};
		(void)clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, NULL);
	}
	int64_t actual = now_ns(CLOCK_REALTIME);
	if (group == 0)
		b->actual_ns = actual;
	sb_info("Started at the barrier", "iteration=%u group=%u late_us=%lld", b->it, group,
		(long long)((actual - when) / 1000));
	return 0;
}

/* The result ConfigMap of one iteration, signed (new reference), NULL on ENOMEM. */
static json_t *result_cm(const struct pod_env *e, unsigned it, const char *name, const char *text)
{
	char mac[SB_SIGN_HEX_LEN + 1];
	if (sb_sign_result(e->key, sizeof(e->key), e->uid, e->cls, it, text, strlen(text), mac))
		return NULL;
	json_t *cm = pod_cm(e, name, "result", it);
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
		return sb_name_result(out, len, e->run, e->cls, it);
	snprintf(itb, sizeof(itb), "%u", it);
	snprintf(ab, sizeof(ab), "a%u", attempt);
	const char *parts[] = {e->run, e->cls, itb, ab};
	return sb_name_join(out, len, 63, parts, 4);
}

/*
 * Looks at ConfigMap name: 0 with *valid telling whether it is this run's
 * valid result of iteration it (lib/owner.h, the controller's rule), or
 * -ENOENT, or another -errno from the API (kerr says). One that is not is
 * logged and its name added to foreign.
 */
static int look(struct kube_client *kc, const struct pod_env *e, unsigned it, const char *name,
		bool *valid, char *foreign, size_t flen, struct kube_error *kerr)
{
	json_t *cm = NULL;
	char why[512];
	*valid = false;
	int r = kube_get(kc, &kube_res_configmaps, e->ns, name, &cm, kerr);
	if (r)
		return r;
	struct sb_result_want want = {e->ns, e->run, e->uid, e->cls, it, e->key};
	r = sb_result_check(cm, &want, NULL, why, sizeof(why));
	json_decref(cm);
	if (r == -ENOMEM)
		return r;
	*valid = r == 0;
	if (*valid) {
		sb_info("Skipped iteration already recorded", "iteration=%u configmap=%s", it,
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
	char err[1024], ebuf[1024], logdir[4096] = "", foreign[512] = "";
	int status = 0;
	unsigned recorded = 0, skipped = 0;

	struct sb_s3_pod s3 = {0}; /* an object-store target: "pod s3 ..." (docs/s3.md) */
	memset(&cli, 0, sizeof(cli));
	if (read_env(&e, err, sizeof(err)))
		return finish(2, "%s", err);
	int kr = sb_sign_read_key(SB_SIGN_PATH, e.key);
	if (kr)
		return finish(2,
			      "cannot read the run's signing key %s: %s (the controller mounts the "
			      "run's Secret)",
			      SB_SIGN_PATH, kr == -EINVAL ? "not 32 bytes" : strerror(-kr));
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
	if (cli.log_level) {
		enum sb_log_level lvl;
		if (sb_log_parse_level(cli.log_level, &lvl)) {
			status = finish(2,
					"--log-level: '%s' is not one of debug, info, warn, error, "
					"off",
					cli.log_level);
			goto out;
		}
		sb_log_set_level(lvl);
	}
	int jr = sb_cli_jobs(&cli, &jobs, &diag);
	if (jr) {
		status = finish(jr == -ENOMEM ? 1 : 2, "%s",
				jr == -ENOMEM ? "out of memory" : diag.msg);
		goto out;
	}
	if (cli.clients > 1) {
		status = finish(2, "--clients: not in a runner pod (spec.runner.pods runs several "
				   "pods per class)");
		goto out;
	}
	for (size_t i = 0; i < jobs.n && e.members > 1 && e.member; i++) {
		/* spec.runner.volume shared: each member's directory on the one volume */
		const char *d = jobs.jobs[i].o.directory;
		if (d && mkdir(d, 0700) != 0 && errno != EEXIST) {
			status = finish(2, "cannot create the directory '%s': %s", d,
					strerror(errno));
			goto out;
		}
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
	struct barrier bar = {.e = &e, .kc = kc};
	if (e.members > 1) {
		sb_info("Runner is a member of a distributed run",
			"member=%u of=%u node=%s done=%s", e.member, e.members, e.node,
			e.done[0] ? e.done : "none");
		sb_run_set_start_hook(barrier_wait, &bar);
	}

	for (unsigned it = 1; it <= e.iterations; it++) {
		char name[64];
		if (sb_stop_requested()) {
			status =
				finish(SB_EXIT_INTERRUPTED(sb_stop_signal()),
				       "stopped by %s before iteration %u; %u iterations recorded, "
				       "%u already present",
				       sb_stop_name(sb_stop_signal()), it, recorded, skipped);
			goto out;
		}
		if (e.members > 1 && in_list(e.done, it)) {
			sb_info("Skipped iteration already recorded", "iteration=%u", it);
			skipped++;
			continue;
		}
		if (e.members > 1 ? sb_name_member_result(name, sizeof(name), e.run, e.cls, it,
							  e.attempt, e.member)
				  : sb_name_result(name, sizeof(name), e.run, e.cls, it)) {
			status = finish(2, "cannot name the result of iteration %u", it);
			goto out;
		}
		/* recorded already, by the controller's rule? a ConfigMap of the name
		 * that is not this run's result is named, left alone, and this
		 * attempt writes under its own name */
		bool valid = false, taken = false;
		char cand[64];
		int r = look(kc, &e, it, name, &valid, foreign, sizeof(foreign), &kerr);
		taken = r == 0 && !valid;
		if (taken && e.members > 1) {
			/* a member's result name holds its attempt and member number:
			 * no other name to fall back to */
			status = finish(1,
					"iteration %u: configmap %s exists and is not this run's "
					"result; not recorded",
					it, name);
			goto out;
		}
		for (unsigned a = 1; taken && !valid && (r == 0 || r == -ENOENT) && a <= e.attempt;
		     a++) {
			if (result_name(&e, it, a, cand, sizeof(cand))) {
				status = finish(2, "cannot name the result of iteration %u", it);
				goto out;
			}
			r = look(kc, &e, it, cand, &valid, foreign, sizeof(foreign), &kerr);
		}
		if (valid) {
			skipped++;
			continue;
		}
		if (r && r != -ENOENT) {
			status = finish(1, "iteration %u: cannot check for configmap %s: %s", it,
					taken ? cand : name,
					kube_error_str(&kerr, ebuf, sizeof(ebuf)));
			goto out;
		}
		if (taken && result_name(&e, it, e.attempt, name, sizeof(name))) {
			status = finish(2, "cannot name the result of iteration %u", it);
			goto out;
		}
		sb_info("Started iteration", "iteration=%u of=%u", it, e.iterations);
		json_t *doc = NULL;
		if (s3.n) {
			fprintf(stderr, "=== %s, iteration %u of %u\n", e.cls, it, e.iterations);
			r = sb_s3_pod_iteration(&s3, stderr, &doc, err, sizeof(err));
			fflush(stderr);
			if (sb_stop_requested()) {
				json_decref(doc);
				status = finish(SB_EXIT_INTERRUPTED(sb_stop_signal()),
						"iteration %u interrupted by %s: not recorded; %u "
						"iterations recorded, %u already present",
						it, sb_stop_name(sb_stop_signal()), recorded,
						skipped);
				goto out;
			}
			if (r) {
				/* wrong keys, TLS, a bucket with data: a retry will not help */
				bool final = r == -EACCES || r == -EPROTO || r == -ENOTEMPTY;
				status = finish(final ? 2 : 1, "iteration %u: %s", it, err);
				goto out;
			}
			goto have_doc;
		}
		struct sb_results res = SB_RESULTS_INIT;
		bar.it = it;
		bar.err[0] = '\0';
		r = sb_run_jobs(&jobs, &res);
		if (res.interrupted || sb_stop_requested()) {
			/* what ran is logged, marked; an incomplete iteration is no result */
			int sig = res.interrupted ? res.interrupted : sb_stop_signal();
			fprintf(stderr,
				"=== %s, iteration %u of %u: interrupted by %s, partial, not "
				"recorded\n",
				e.cls, it, e.iterations, sb_stop_name(sig));
			sb_out_text(stderr, &res);
			fflush(stderr);
			sb_results_release(&res);
			status = finish(
				SB_EXIT_INTERRUPTED(sig),
				"iteration %u interrupted by %s: not recorded; %u iterations "
				"recorded, %u already present",
				it, sb_stop_name(sig), recorded, skipped);
			goto out;
		}
		if (r && bar.err[0]) {
			status = finish(1, "iteration %u: %s", it, bar.err);
			sb_results_release(&res);
			goto out;
		}
		/* on stderr, the log lines' stream: one pipe keeps the order in the
		 * container log (containerd reads stdout and stderr separately, so
		 * a block on stdout could land after the next "Started iteration") */
		fprintf(stderr, "=== %s, iteration %u of %u\n", e.cls, it, e.iterations);
		sb_out_text(stderr, &res);
		fflush(stderr);
		const struct sb_job_result *bad = NULL; /* the first job that failed */
		for (size_t i = 0; i < res.n && !bad; i++)
			if (res.v[i]->error)
				bad = res.v[i];
		if (r || res.usage_error || res.io_error) {
			status = finish(res.usage_error ? 2 : 1, "iteration %u: %s%s%s%s", it,
					bad ? "job '" : "", bad ? bad->name : "", bad ? "': " : "",
					bad ? bad->errmsg
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
		if (ctx && e.members > 1 &&
		    (json_object_set_new(ctx, "member", json_integer(e.member)) ||
		     json_object_set_new(ctx, "members", json_integer(e.members)) ||
		     json_object_set_new(ctx, "node", json_string(e.node)) ||
		     json_object_set_new(ctx, "start",
					 json_pack("{s:I,s:I}", "planned_ns",
						   (json_int_t)bar.planned_ns, "actual_ns",
						   (json_int_t)bar.actual_ns)))) {
			json_decref(ctx);
			ctx = NULL;
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
			/* another pod recorded it first: never overwrite a result; unless
			 * what holds the name is not one */
			r = look(kc, &e, it, name, &valid, foreign, sizeof(foreign), &kerr);
			if (r || !valid) {
				status = finish(1,
						"iteration %u: configmap %s exists and is not this "
						"run's result; not recorded%s%s",
						it, name, foreign[0] ? "; ignored: " : "", foreign);
				goto out;
			}
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
	status = finish(0, "%u iterations recorded, %u already present%s%s", recorded, skipped,
			foreign[0] ? "; not this run's results, ignored: " : "", foreign);
out:
	sb_run_set_start_hook(NULL, NULL);
	if (logdir[0])
		(void)rmdir(logdir);
	kube_client_free(kc);
	kube_config_release(&cfg);
	sb_joblist_release(&jobs);
	sb_cli_release(&cli);
	sb_s3_pod_release(&s3);
	return status;
}
