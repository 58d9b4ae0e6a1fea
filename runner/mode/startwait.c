/* SPDX-License-Identifier: MIT */
#include "runner/mode/startwait.h"

#include "core/labels.h"
#include "runner/mode/stop.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WATCHDOG_NS	 20000000 /* how often the stop flag and deadline are looked at */
#define MAX_WATCH_STARTS 3	  /* a watch started again after 410 Gone */

struct wait {
	const char *name;
	json_t *found;	  /* the ConfigMap, once seen */
	int64_t found_ns; /* CLOCK_REALTIME when it came */
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
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	wt->found_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
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
		  json_t **cm, int64_t *got_ns, struct kube_error *err)
{
	struct wait wt = {.name = name, .give_up_ns = give_up_ns};
	int r = -ESTALE;
	*cm = NULL;
	atomic_init(&wt.done, false);
	atomic_init(&wt.reason, 0);
	for (int i = 0; i < MAX_WATCH_STARTS && r == -ESTALE; i++)
		r = watch_once(kc, ns, &wt, err);
	if (r == 0) {
		*cm = wt.found;
		*got_ns = wt.found_ns;
	} else
		json_decref(wt.found);
	return r;
}

/* A decimal time in ns (a ConfigMap's data value), 0 when it is not one. */
static int64_t ns_value(const json_t *v)
{
	const char *s = json_string_value(v);
	char *end = NULL;
	long long t = s ? strtoll(s, &end, 10) : 0;
	return s && *s && !*end && t > 0 && t < (INT64_C(1) << 62) ? (int64_t)t : 0;
}

int sb_clock_exchange(const json_t *cm, unsigned member, int64_t t1, int64_t t4,
		      struct sb_clock_est *est)
{
	const json_t *data = json_object_get(cm, "data");
	int64_t t3 = ns_value(json_object_get(data, SB_START_SENT_KEY));
	const char *seen = json_string_value(json_object_get(data, SB_START_SEEN_KEY));
	json_t *so = seen ? json_loads(seen, 0, NULL) : NULL;
	char mk[16];
	snprintf(mk, sizeof(mk), "%u", member);
	const json_t *t2v = json_object_get(so, mk);
	int64_t t2 = json_is_integer(t2v) && json_integer_value(t2v) > 0 &&
				     json_integer_value(t2v) < (INT64_C(1) << 62)
			     ? (int64_t)json_integer_value(t2v)
			     : 0;
	json_decref(so);
	if (!t1 || !t2 || !t3 || t1 >= (INT64_C(1) << 62) || t4 <= 0 || t4 >= (INT64_C(1) << 62))
		return -EINVAL;
	int64_t rtt = (t4 - t1) - (t3 - t2);
	if (rtt < 0 || t4 < t1 || t3 < t2)
		return -EINVAL;
	est->exchanges++;
	if (est->have && rtt / 2 >= est->uncertainty_ns)
		return 0;
	est->have = true;
	est->offset_ns = ((t1 - t2) + (t4 - t3)) / 2;
	est->uncertainty_ns = rtt / 2 + rtt % 2;
	est->round_trip_ns = rtt;
	return 0;
}
