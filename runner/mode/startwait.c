/* SPDX-License-Identifier: MIT */
#include "runner/mode/startwait.h"

#include "runner/mode/stop.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define WATCHDOG_NS	 20000000 /* how often the stop flag and deadline are looked at */
#define MAX_WATCH_STARTS 3	  /* a watch started again after 410 Gone */

struct wait {
	const char *name;
	json_t *found; /* the ConfigMap, once seen */
	struct kube_watch *w;
	int64_t give_up_ns;
	atomic_bool done;  /* the watch returned: the watchdog ends */
	atomic_int reason; /* what the watchdog stopped it for: -EINTR, -ETIMEDOUT */
};

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The watch's events: the named ConfigMap ends the watch (returns 1). */
static int on_event(enum kube_event_type type, json_t *obj, void *arg)
{
	struct wait *wt = arg;
	if (type != KUBE_EVENT_ADDED && type != KUBE_EVENT_MODIFIED)
		return 0;
	const char *n =
		json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
	if (!n || strcmp(n, wt->name))
		return 0;
	wt->found = json_incref(obj);
	return 1;
}

/* Stops the watch when a stop is requested or the deadline passes. */
static void *watchdog(void *arg)
{
	struct wait *wt = arg;
	while (!atomic_load(&wt->done)) {
		int why = sb_stop_requested()	       ? -EINTR
			  : mono_ns() > wt->give_up_ns ? -ETIMEDOUT
						       : 0;
		if (why) {
			atomic_store(&wt->reason, why);
			kube_watch_stop(wt->w);
			break;
		}
		struct timespec ts = {0, WATCHDOG_NS};
		(void)nanosleep(&ts, NULL);
	}
	return NULL;
}

/* One watch from "now" until the object, a stop, the deadline or an error. */
static int watch_once(struct kube_client *kc, const char *ns, struct wait *wt,
		      struct kube_error *err)
{
	char sel[320];
	snprintf(sel, sizeof(sel), "metadata.name=%s", wt->name);
	int64_t left_s = (wt->give_up_ns - mono_ns()) / 1000000000 + 1;
	struct kube_watch_opts o = {.field_selector = sel,
				    .server_timeout_s = left_s > 1 ? (long)left_s : 1};
	pthread_t th;
	wt->w = kube_watch_new(kc, &kube_res_configmaps, ns, &o, on_event, wt);
	if (!wt->w)
		return -ENOMEM;
	atomic_store(&wt->done, false);
	if (pthread_create(&th, NULL, watchdog, wt)) {
		kube_watch_free(wt->w);
		return -EAGAIN;
	}
	int r = kube_watch_run(wt->w, err);
	atomic_store(&wt->done, true);
	pthread_join(th, NULL);
	kube_watch_free(wt->w);
	wt->w = NULL;
	if (r == 1 && wt->found)
		return 0;
	if (r == 0) /* stopped by the watchdog */
		return atomic_load(&wt->reason) ? atomic_load(&wt->reason) : -EINTR;
	return r;
}

int sb_start_wait(struct kube_client *kc, const char *ns, const char *name, int64_t give_up_ns,
		  json_t **cm, struct kube_error *err)
{
	struct wait wt = {.name = name, .give_up_ns = give_up_ns};
	int r = -ESTALE;
	*cm = NULL;
	atomic_init(&wt.done, false);
	atomic_init(&wt.reason, 0);
	for (int i = 0; i < MAX_WATCH_STARTS && r == -ESTALE; i++)
		r = watch_once(kc, ns, &wt, err);
	if (r == 0)
		*cm = wt.found;
	else
		json_decref(wt.found);
	return r;
}
