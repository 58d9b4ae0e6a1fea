/* SPDX-License-Identifier: MIT */
#include "controller/core/controller.h"
#include "controller/core/memory.h"
#include "controller/distrib/clock.h"

#include "core/labels.h"
#include "core/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * A run's lane in the queue (controller/core/queue.h): high while it is in
 * progress (its status says Pending or Running: the controller has
 * created its children), low when it is new (no status yet: a bulk of
 * creates) or has ended (its own terminal status coming back).
 */
static enum br_queue_lane run_lane(const json_t *run)
{
	const char *phase =
		json_string_value(json_object_get(json_object_get(run, "status"), "phase"));
	return phase && (!strcmp(phase, "Pending") || !strcmp(phase, "Running")) ? BR_QUEUE_HIGH
										 : BR_QUEUE_LOW;
}

/* Bookkeeping of every event of the run and owned-object informers. */
static void note_event(enum kube_informer_event ev, const json_t *obj)
{
	if (ev == KUBE_INFORMER_DELETE)
		br_memory_deleted();
	if (ev == KUBE_INFORMER_ADD) { /* a barrier's ready mark: its sighting, now */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		br_clock_ready_event(obj, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
	}
}

/* Queues "ns/name" in a kind's queue; what names the kind in the log. */
static void queue_key(struct br_queue *q, const char *what, const char *ns, const char *name)
{
	char key[600];
	snprintf(key, sizeof(key), "%s/%s", ns, name);
	if (br_queue_add(q, key))
		sb_error("Could not queue an object", "kind=%s key=%s", what, key);
}

/* A run changed: queue it (in its lane). */
static void on_run(enum kube_informer_event ev, const json_t *obj, const json_t *old, void *arg)
{
	struct br_controller *c = arg;
	const json_t *md = json_object_get(obj, "metadata");
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	const char *name = json_string_value(json_object_get(md, "name"));
	char key[600];
	(void)old;
	note_event(ev, obj);
	if (!ns || !name)
		return;
	snprintf(key, sizeof(key), "%s/%s", ns, name);
	if (br_queue_add_lane(c->queues[BR_KIND_RUN], key, run_lane(obj), 0))
		sb_error("Could not queue a run", "key=%s", key);
	/* a run of a schedule: the schedule looks again (history, baseline, verdict) */
	const char *sched = json_string_value(
		json_object_get(json_object_get(md, "labels"), SB_LABEL_SCHEDULE));
	if (sched)
		queue_key(c->queues[BR_KIND_SCHEDULE], "schedule", ns, sched);
}

/* A schedule changed: queue it. */
static void on_schedule(enum kube_informer_event ev, const json_t *obj, const json_t *old,
			void *arg)
{
	struct br_controller *c = arg;
	const json_t *md = json_object_get(obj, "metadata");
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	const char *name = json_string_value(json_object_get(md, "name"));
	(void)ev;
	(void)old;
	if (ns && name)
		queue_key(c->queues[BR_KIND_SCHEDULE], "schedule", ns, name);
}

/* An object the controller owns changed: queue its BenchmarkRun. */
static void on_owned(enum kube_informer_event ev, const json_t *obj, const json_t *old, void *arg)
{
	struct br_controller *c = arg;
	const json_t *md = json_object_get(obj, "metadata");
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	size_t i;
	const json_t *r;
	(void)old;
	note_event(ev, obj);
	json_array_foreach(json_object_get(md, "ownerReferences"), i, r)
	{
		const char *kind = json_string_value(json_object_get(r, "kind"));
		const char *api = json_string_value(json_object_get(r, "apiVersion"));
		const char *name = json_string_value(json_object_get(r, "name"));
		if (!ns || !kind || !api || !name || strcmp(kind, SB_KIND) ||
		    strcmp(api, SB_API_VERSION))
			continue;
		queue_key(c->queues[BR_KIND_RUN], "run", ns, name);
	}
}

/* A runner pod changed: it is no longer in flight (controller.h); its run is queued. */
static void on_pod(enum kube_informer_event ev, const json_t *obj, const json_t *old, void *arg)
{
	struct br_controller *c = arg;
	const json_t *md = json_object_get(obj, "metadata");
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	const char *name = json_string_value(json_object_get(md, "name"));
	if (ns && name)
		br_inflight_drop(c, ns, name);
	on_owned(ev, obj, old, arg);
}

static void inflight_key(char *key, size_t len, const char *ns, const char *name)
{
	snprintf(key, len, "%s/%s", ns, name);
}

void br_inflight_add(struct br_controller *c, const char *ns, const char *name, time_t now)
{
	char key[sizeof(c->inflight[0].key)];
	struct br_inflight *slot = NULL;
	inflight_key(key, sizeof(key), ns, name);
	pthread_mutex_lock(&c->mu);
	for (size_t i = 0; i < BR_INFLIGHT; i++) {
		struct br_inflight *f = &c->inflight[i];
		if (!strcmp(f->key, key) || (!slot && !f->key[0]))
			slot = f;
		if (!strcmp(f->key, key))
			break;
	}
	if (!slot) {
		/* full: the oldest goes (taken as gone, as after BR_INFLIGHT_MAX_S) */
		slot = &c->inflight[0];
		for (size_t i = 1; i < BR_INFLIGHT; i++)
			if (c->inflight[i].since < slot->since)
				slot = &c->inflight[i];
	}
	snprintf(slot->key, sizeof(slot->key), "%s", key);
	slot->since = now;
	pthread_mutex_unlock(&c->mu);
}

void br_inflight_drop(struct br_controller *c, const char *ns, const char *name)
{
	char key[sizeof(c->inflight[0].key)];
	inflight_key(key, sizeof(key), ns, name);
	pthread_mutex_lock(&c->mu);
	for (size_t i = 0; i < BR_INFLIGHT; i++)
		if (!strcmp(c->inflight[i].key, key))
			c->inflight[i].key[0] = '\0';
	pthread_mutex_unlock(&c->mu);
}

bool br_inflight_has(struct br_controller *c, const char *ns, const char *name, time_t now)
{
	char key[sizeof(c->inflight[0].key)];
	bool has = false;
	inflight_key(key, sizeof(key), ns, name);
	pthread_mutex_lock(&c->mu);
	for (size_t i = 0; i < BR_INFLIGHT; i++) {
		struct br_inflight *f = &c->inflight[i];
		if (!f->key[0] || strcmp(f->key, key))
			continue;
		if (now - f->since > BR_INFLIGHT_MAX_S)
			f->key[0] = '\0'; /* the informer missed it: taken as gone */
		else
			has = true;
	}
	pthread_mutex_unlock(&c->mu);
	return has;
}

static int queue_run(const json_t *run, void *arg)
{
	on_run(KUBE_INFORMER_UPDATE, run, NULL, arg);
	return 0;
}

/* A storage class appeared or went: every run may care. */
static void on_sc(enum kube_informer_event ev, const json_t *obj, const json_t *old, void *arg)
{
	struct br_controller *c = arg;
	(void)ev;
	(void)obj;
	(void)old;
	for (size_t w = 0; w < c->nwatches; w++)
		if (kube_informer_foreach(c->watches[w].runs, queue_run, c))
			sb_error("Could not queue the runs", NULL);
}

static struct kube_informer *informer(struct br_controller *c, const struct kube_resource *res,
				      const char *ns, const char *selector, kube_informer_cb cb,
				      struct kube_error *err)
{
	struct kube_informer_opts o;
	memset(&o, 0, sizeof(o));
	o.resource = res;
	o.ns = ns;
	o.label_selector = selector;
	/* cache only what the reconcile reads (controller/core/memory.c) */
	o.transform = br_cache_transform;
	/* every object kept as deflated text (kube.h), read one at a time: runs
	 * against a typical run's text (~300 bytes a run, not 1.5 KB) */
	o.compact = true;
	o.compact_dict = res == &br_res_benchmarkruns ? br_run_dict : br_obj_dict;
	/* a run's pods, PVCs and ConfigMaps are read together by the run's
	 * label (ops.h cache_list): the pass parses its own, not the namespace's */
	if (res == &kube_res_pods || res == &kube_res_pvcs || res == &kube_res_configmaps)
		o.index_label = SB_LABEL_RUN;
	o.transform_arg =
		(void *)&br_cache_kinds[res == &kube_res_pvcs		  ? BR_CACHE_PVCS
					: res == &kube_res_pods		  ? BR_CACHE_PODS
					: res == &kube_res_configmaps	  ? BR_CACHE_CMS
					: res == &kube_res_storageclasses ? BR_CACHE_SCS
									  : BR_CACHE_RUNS];
	o.cb = cb;
	o.arg = c;
	return kube_informer_new(c->kc, &o, err);
}

int br_controller_init_ops(struct br_controller *c, const struct br_ops *ops,
			   const struct br_controller_opts *opts, struct br_metrics *m)
{
	c->ops = *ops;
	c->opts = *opts;
	c->metrics = m;
	if (!c->opts.max_attempts)
		c->opts.max_attempts = 3;
	if (!c->opts.workers)
		c->opts.workers = 2;
	if (c->opts.workers > BR_MAX_WORKERS)
		c->opts.workers = BR_MAX_WORKERS;
	if (opts->policy)
		c->policy = *opts->policy;
	else
		c->policy = (struct br_policy)BR_POLICY_INIT;
	c->policy.runner_image = opts->runner_image;
	c->policy.runner_sa = opts->runner_service_account;
	c->policy.nowned = 0; /* never freed here: the caller owns them */
	pthread_mutex_init(&c->mu, NULL);
	for (int k = 0; k < BR_KIND_N; k++)
		if (!(c->queues[k] = br_queue_new()))
			return -ENOMEM;
	return 0;
}

int br_controller_init(struct br_controller *c, struct kube_client *kc, const struct br_ops *ops,
		       const struct br_controller_opts *opts, struct br_metrics *m,
		       struct kube_error *err)
{
	int r = br_controller_init_ops(c, ops, opts, m);
	if (r)
		return r;
	c->kc = kc;
	size_t n = opts->nnamespaces ? opts->nnamespaces : 1;
	for (size_t i = 0; i < n; i++) {
		struct br_watch *w = &c->watches[c->nwatches++];
		w->ns = opts->nnamespaces ? opts->namespaces[i] : NULL;
		w->runs = informer(c, &br_res_benchmarkruns, w->ns, NULL, on_run, err);
		w->pvcs = informer(c, &kube_res_pvcs, w->ns, SB_SELECTOR_MANAGED, on_owned, err);
		w->pods = informer(c, &kube_res_pods, w->ns, SB_SELECTOR_MANAGED, on_pod, err);
		w->cms = informer(c, &kube_res_configmaps, w->ns, SB_SELECTOR_MANAGED, on_owned,
				  err);
		if (!w->runs || !w->pvcs || !w->pods || !w->cms)
			return -ENOMEM;
		w->schedules =
			informer(c, &br_res_benchmarkschedules, w->ns, NULL, on_schedule, err);
		if (!w->schedules)
			return -ENOMEM;
	}
	c->scs = informer(c, &kube_res_storageclasses, NULL, NULL, on_sc, err);
	return c->scs ? 0 : -ENOMEM;
}

int br_controller_start_informers(struct br_controller *c, long timeout_ms)
{
	struct kube_informer *all[4 * BR_MAX_NAMESPACES + 1];
	size_t n = 0;
	for (size_t i = 0; i < c->nwatches; i++) {
		all[n++] = c->watches[i].runs;
		all[n++] = c->watches[i].pvcs;
		all[n++] = c->watches[i].pods;
		all[n++] = c->watches[i].cms;
	}
	all[n++] = c->scs;
	for (size_t i = 0; i < n; i++) {
		int r = kube_informer_start(all[i]);
		if (r && r != -EALREADY)
			return r;
	}
	/* schedules: started, not waited for (a cluster without their CRD still runs runs) */
	for (size_t i = 0; i < c->nwatches; i++) {
		int r = kube_informer_start(c->watches[i].schedules);
		if (r && r != -EALREADY)
			return r;
	}
	for (size_t i = 0; i < n; i++) {
		int r = kube_informer_wait_synced(all[i], timeout_ms);
		if (r)
			return r;
	}
	return 0;
}

bool br_controller_ready(struct br_controller *c)
{
	for (size_t i = 0; i < c->nwatches; i++) {
		struct br_watch *w = &c->watches[i];
		if (!kube_informer_has_synced(w->runs) || !kube_informer_has_synced(w->pvcs) ||
		    !kube_informer_has_synced(w->pods) || !kube_informer_has_synced(w->cms))
			return false;
	}
	return c->scs && kube_informer_has_synced(c->scs);
}

void br_controller_set_reconcilers(struct br_controller *c, const struct br_reconcilers *r)
{
	c->reconcilers = *r;
}

/* Keys due in every kind's queue and not being worked on. */
static size_t due_keys(struct br_controller *c)
{
	size_t n = 0;
	for (int k = 0; k < BR_KIND_N; k++)
		n += br_queue_due(c->queues[k]);
	return n;
}

/* One key of a kind's queue (br_queue_handler), to that kind's reconciler. */
static int handle_key(void *arg, const char *key, long *requeue_ms)
{
	struct br_worker *w = arg;
	struct br_controller *c = w->c;
	char ns[300], name[300];
	const char *slash = strchr(key, '/');
	*requeue_ms = 0;
	if (!slash)
		return 0;
	snprintf(ns, sizeof(ns), "%.*s", (int)(slash - key), key);
	snprintf(name, sizeof(name), "%s", slash + 1);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int (*fn)(struct br_controller *, const char *, const char *, long *) =
		w->kind == BR_KIND_SCHEDULE ? c->reconcilers.schedule : c->reconcilers.run;
	if (!fn)
		return 0;
	int r = fn(c, ns, name, requeue_ms);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	br_metrics_reconcile(c->metrics, secs, r ? "error" : *requeue_ms ? "requeue" : "ok");
	br_memory_worked();
	/* caught up after deletions or a burst of work: give the freed heap back */
	if (!r && due_keys(c) == 0)
		br_memory_idle();
	return r;
}

/* A reconcile worker: its kind's queue hands it keys, and backs a failing key off (queue.h). */
static void *worker(void *arg)
{
	struct br_worker *w = arg;
	br_queue_work(w->c->queues[w->kind], handle_key, w);
	return NULL;
}

static void shutdown_queues(struct br_controller *c)
{
	for (int k = 0; k < BR_KIND_N; k++)
		if (c->queues[k])
			br_queue_shutdown(c->queues[k]);
}

static void join_workers(struct br_controller *c)
{
	for (unsigned i = 0; i < c->nworkers; i++)
		pthread_join(c->workers[i].thread, NULL);
	c->nworkers = 0;
}

int br_controller_start_workers(struct br_controller *c)
{
	if (c->running)
		return -EALREADY;
	unsigned n = c->opts.workers + BR_SCHEDULE_WORKERS;
	for (unsigned i = 0; i < n; i++) {
		struct br_worker *w = &c->workers[i];
		w->c = c;
		w->kind = i < c->opts.workers ? BR_KIND_RUN : BR_KIND_SCHEDULE;
		if (pthread_create(&w->thread, NULL, worker, w) != 0) {
			shutdown_queues(c);
			join_workers(c);
			return -EAGAIN;
		}
		c->nworkers++;
	}
	c->running = true;
	/* queue every known run: a new leader picks up where the old one left */
	on_sc(KUBE_INFORMER_UPDATE, NULL, NULL, c);
	return 0;
}

void br_controller_stop(struct br_controller *c)
{
	shutdown_queues(c);
	join_workers(c);
	c->running = false;
	for (size_t i = 0; i < c->nwatches; i++) {
		kube_informer_stop(c->watches[i].runs);
		kube_informer_stop(c->watches[i].pvcs);
		kube_informer_stop(c->watches[i].pods);
		kube_informer_stop(c->watches[i].cms);
		kube_informer_stop(c->watches[i].schedules);
	}
	if (c->scs)
		kube_informer_stop(c->scs);
}

void br_controller_release(struct br_controller *c)
{
	br_controller_stop(c);
	for (size_t i = 0; i < c->nwatches; i++) {
		kube_informer_free(c->watches[i].runs);
		kube_informer_free(c->watches[i].pvcs);
		kube_informer_free(c->watches[i].pods);
		kube_informer_free(c->watches[i].cms);
		kube_informer_free(c->watches[i].schedules);
	}
	kube_informer_free(c->scs);
	for (int k = 0; k < BR_KIND_N; k++)
		br_queue_free(c->queues[k]);
	pthread_mutex_destroy(&c->mu);
	memset(c, 0, sizeof(*c));
}

struct phase_acc {
	struct br_phase_count *out;
	size_t n;
};

static int count_phase(const json_t *r, void *arg)
{
	struct phase_acc *a = arg;
	const char *p = json_string_value(json_object_get(json_object_get(r, "status"), "phase"));
	if (!p)
		p = "Pending";
	for (size_t k = 0; k < a->n; k++)
		if (!strcmp(p, a->out[k].phase))
			a->out[k].n++;
	return 0;
}

size_t br_controller_phase_counts(struct br_controller *c, struct br_phase_count *out, size_t max)
{
	static const char *const phases[] = {"Pending", "Running", "Succeeded", "Failed"};
	size_t n = max < 4 ? max : 4;
	for (size_t i = 0; i < n; i++) {
		out[i].phase = phases[i];
		out[i].n = 0;
	}
	struct phase_acc acc = {out, n};
	for (size_t w = 0; w < c->nwatches; w++)
		kube_informer_foreach(c->watches[w].runs, count_phase, &acc);
	return n;
}
