/* SPDX-License-Identifier: MIT */
/*
 * Leader election on a coordination.k8s.io/v1 Lease, following client-go's
 * leaderelection package: tryAcquireOrRenew with expiry judged on the local
 * clock from when the record was last seen to change, conditional updates,
 * renew deadline, release on stop.
 */
#include "kube/leader.h"
#include "kube/ops.h"
#include "kube/client_internal.h"
#include "kube/error_internal.h"
#include "kube/util.h"
#include "kube/clock.h"
#include "core/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

struct kube_leader {
	struct kube_client *c;
	char *ns, *name, *identity;
	long lease_s, renew_deadline_ms, retry_ms;
	void (*on_started)(void *);
	void (*on_stopped)(void *);
	void (*on_new_leader)(const char *, void *);
	void *arg;

	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool started;
	atomic_bool stop, leading;

	/* Only touched by the elector thread. */
	char *observed_holder, *observed_renew;
	int64_t observed_ms;
	char *reported_leader;
};

static int dup_to(char **dst, const char *s)
{
	*dst = strdup(s ? s : "");
	return *dst ? 0 : -ENOMEM;
}

struct kube_leader *kube_leader_new(struct kube_client *c, const struct kube_leader_opts *opts,
				    struct kube_error *err)
{
	kube_error_clear(err);
	if (!opts || !opts->name || !*opts->name || !opts->identity || !*opts->identity) {
		kube_errorf(err, -EINVAL, "leader election: name and identity are required");
		return NULL;
	}
	long dur = opts->lease_duration_ms > 0 ? opts->lease_duration_ms : 15000;
	long dl = opts->renew_deadline_ms > 0 ? opts->renew_deadline_ms : 10000;
	long rp = opts->retry_period_ms > 0 ? opts->retry_period_ms : 2000;
	if (dl >= dur || rp >= dl) {
		kube_errorf(err, -EINVAL,
			    "leader election: need retry period (%ld ms) < renew "
			    "deadline (%ld ms) < lease duration (%ld ms)",
			    rp, dl, dur);
		return NULL;
	}
	struct kube_leader *l = calloc(1, sizeof(*l));
	if (!l)
		goto nomem;
	l->c = c;
	l->lease_s = (dur + 999) / 1000;
	l->renew_deadline_ms = dl;
	l->retry_ms = rp;
	l->on_started = opts->on_started_leading;
	l->on_stopped = opts->on_stopped_leading;
	l->on_new_leader = opts->on_new_leader;
	l->arg = opts->arg;
	if (pthread_mutex_init(&l->lock, NULL)) {
		free(l);
		goto nomem;
	}
	if (pthread_cond_init(&l->cond, NULL)) {
		pthread_mutex_destroy(&l->lock);
		free(l);
		goto nomem;
	}
	if (dup_to(&l->ns, kube_client_ns(c, opts->ns)) || dup_to(&l->name, opts->name) ||
	    dup_to(&l->identity, opts->identity)) {
		kube_leader_free(l);
		goto nomem;
	}
	return l;
nomem:
	kube_errorf(err, -ENOMEM, "leader election: out of memory");
	return NULL;
}

/* Now as a MicroTime: 2006-01-02T15:04:05.000000Z. */
static void micro_now(char *buf, size_t size)
{
	struct timespec ts;
	struct tm tm;
	char base[32];
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	(void)strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	(void)snprintf(buf, size, "%s.%06ldZ", base, ts.tv_nsec / 1000);
}

static const char *spec_str(const json_t *lease, const char *field)
{
	return json_string_value(json_object_get(json_object_get(lease, "spec"), field));
}

/* Remembers the record and when (local clock) it last changed. */
static void observe(struct kube_leader *l, const json_t *lease)
{
	const char *holder = spec_str(lease, "holderIdentity");
	const char *renew = spec_str(lease, "renewTime");
	holder = holder ? holder : "";
	renew = renew ? renew : "";
	if (!l->observed_holder || strcmp(holder, l->observed_holder) != 0 || !l->observed_renew ||
	    strcmp(renew, l->observed_renew) != 0) {
		char *h = strdup(holder), *r = strdup(renew);
		if (h && r) {
			free(l->observed_holder);
			free(l->observed_renew);
			l->observed_holder = h;
			l->observed_renew = r;
			l->observed_ms = kube_now_ms();
		} else {
			free(h);
			free(r);
		}
	}
	if (*holder && (!l->reported_leader || strcmp(holder, l->reported_leader) != 0)) {
		char *h = strdup(holder);
		if (h) {
			free(l->reported_leader);
			l->reported_leader = h;
			sb_info("Observed new leader", "lease=%s/%s holder=%s", l->ns, l->name,
				holder);
			if (l->on_new_leader)
				l->on_new_leader(holder, l->arg);
		}
	}
}

static json_t *new_spec(const char *holder, long duration_s, const char *acquire, const char *renew,
			json_int_t transitions)
{
	return json_pack("{s:s, s:I, s:s, s:s, s:I}", "holderIdentity", holder,
			 "leaseDurationSeconds", (json_int_t)duration_s, "acquireTime", acquire,
			 "renewTime", renew, "leaseTransitions", transitions);
}

/* client-go's tryAcquireOrRenew. Returns true when we hold the lease now. */
static bool try_acquire_or_renew(struct kube_leader *l)
{
	struct kube_error err;
	json_t *lease = NULL, *out = NULL;
	char now[64], buf[800];
	bool ok = false;

	micro_now(now, sizeof(now));
	int ret = kube_get(l->c, &kube_res_leases, l->ns, l->name, &lease, &err);
	if (ret == -ENOENT) {
		json_t *spec = new_spec(l->identity, l->lease_s, now, now, 0);
		json_t *obj =
			spec ? json_pack("{s:s, s:s, s:{s:s, s:s}, s:o}", "apiVersion",
					 "coordination.k8s.io/v1", "kind", "Lease", "metadata",
					 "name", l->name, "namespace", l->ns, "spec", spec)
			     : NULL;
		if (!obj)
			return false;
		ret = kube_create(l->c, &kube_res_leases, l->ns, obj, &out, &err);
		json_decref(obj);
		if (ret == 0) {
			observe(l, out);
			ok = true;
		} else if (ret != -EEXIST) {
			sb_warn("Failed to create lease", "lease=%s/%s error=\"%s\"", l->ns,
				l->name, kube_error_str(&err, buf, sizeof(buf)));
		}
		json_decref(out);
		return ok;
	}
	if (ret) {
		sb_warn("Failed to get lease", "lease=%s/%s error=\"%s\"", l->ns, l->name,
			kube_error_str(&err, buf, sizeof(buf)));
		return false;
	}
	observe(l, lease);
	const char *holder = spec_str(lease, "holderIdentity");
	bool mine = holder && strcmp(holder, l->identity) == 0;
	json_t *spec = json_object_get(lease, "spec");
	json_int_t lease_s = json_integer_value(json_object_get(spec, "leaseDurationSeconds"));
	if (lease_s <= 0)
		lease_s = l->lease_s;
	if (holder && *holder && !mine &&
	    kube_now_ms() < l->observed_ms + (int64_t)lease_s * 1000) {
		json_decref(lease);
		return false; /* held by another and not expired */
	}
	json_int_t transitions = json_integer_value(json_object_get(spec, "leaseTransitions"));
	const char *acquire = spec_str(lease, "acquireTime");
	json_t *nspec = new_spec(l->identity, l->lease_s, mine && acquire ? acquire : now, now,
				 mine ? transitions : transitions + 1);
	if (!nspec || json_object_set_new(lease, "spec", nspec)) {
		json_decref(lease);
		return false;
	}
	/* metadata.resourceVersion makes the update conditional. */
	ret = kube_update(l->c, &kube_res_leases, l->ns, lease, &out, &err);
	if (ret == 0) {
		observe(l, out);
		ok = true;
	} else if (ret != -EAGAIN) {
		sb_warn("Failed to update lease", "lease=%s/%s error=\"%s\"", l->ns, l->name,
			kube_error_str(&err, buf, sizeof(buf)));
	}
	json_decref(out);
	json_decref(lease);
	return ok;
}

/* Clears holderIdentity if we still hold the lease (client-go's release). */
static void release(struct kube_leader *l)
{
	struct kube_error err;
	json_t *lease = NULL;
	char now[64], buf[800];

	if (kube_get(l->c, &kube_res_leases, l->ns, l->name, &lease, &err))
		return;
	const char *holder = spec_str(lease, "holderIdentity");
	if (holder && strcmp(holder, l->identity) == 0) {
		micro_now(now, sizeof(now));
		json_int_t tr = json_integer_value(
			json_object_get(json_object_get(lease, "spec"), "leaseTransitions"));
		json_t *nspec = new_spec("", 1, now, now, tr);
		if (nspec && json_object_set_new(lease, "spec", nspec) == 0) {
			int ret = kube_update(l->c, &kube_res_leases, l->ns, lease, NULL, &err);
			if (ret)
				sb_warn("Failed to release lease", "lease=%s/%s error=\"%s\"",
					l->ns, l->name, kube_error_str(&err, buf, sizeof(buf)));
			else
				sb_info("Released lease", "lease=%s/%s identity=%s", l->ns, l->name,
					l->identity);
		}
	}
	json_decref(lease);
}

/* Sleeps ms (interrupted by stop). Returns true when stopped. */
static bool wait_ms(struct kube_leader *l, long ms)
{
	const struct kube_clock *clk = kube_clock_get();
	if (clk) {
		int64_t end = clk->now_ms(clk->arg) + ms;
		while (!atomic_load(&l->stop) && clk->now_ms(clk->arg) < end)
			clk->wait_until(clk->arg, end);
		return atomic_load(&l->stop);
	}
	struct timespec ts;
	kube_deadline_in(&ts, ms);
	pthread_mutex_lock(&l->lock);
	while (!atomic_load(&l->stop))
		if (pthread_cond_timedwait(&l->cond, &l->lock, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&l->lock);
	return atomic_load(&l->stop);
}

static void *leader_main(void *arg)
{
	struct kube_leader *l = arg;

	while (!atomic_load(&l->stop)) {
		if (!try_acquire_or_renew(l)) {
			/* client-go: JitterUntil(retryPeriod, jitter 1.2) */
			wait_ms(l, l->retry_ms + (long)(kube_random() * 1.2 * (double)l->retry_ms));
			continue;
		}
		atomic_store(&l->leading, true);
		sb_info("Started leading", "lease=%s/%s identity=%s", l->ns, l->name, l->identity);
		if (l->on_started)
			l->on_started(l->arg);
		int64_t renewed = kube_now_ms();
		while (!wait_ms(l, l->retry_ms)) {
			bool ok = try_acquire_or_renew(l);
			int64_t now = kube_now_ms();
			if (ok && now - renewed < l->renew_deadline_ms) {
				renewed = now;
				continue;
			}
			if (now - renewed >= l->renew_deadline_ms) {
				sb_warn("Lost leadership", "lease=%s/%s identity=%s reason=%s",
					l->ns, l->name, l->identity, "renew deadline passed");
				break;
			}
		}
		atomic_store(&l->leading, false);
		if (atomic_load(&l->stop))
			release(l);
		sb_info("Stopped leading", "lease=%s/%s identity=%s", l->ns, l->name, l->identity);
		if (l->on_stopped)
			l->on_stopped(l->arg);
	}
	return NULL;
}

int kube_leader_start(struct kube_leader *l)
{
	if (l->started)
		return -EALREADY;
	atomic_store(&l->stop, false);
	int r = pthread_create(&l->thread, NULL, leader_main, l);
	if (r)
		return -r;
	l->started = true;
	return 0;
}

void kube_leader_stop(struct kube_leader *l)
{
	if (!l || !l->started)
		return;
	pthread_mutex_lock(&l->lock);
	atomic_store(&l->stop, true);
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->lock);
	kube_clock_wake();
	pthread_join(l->thread, NULL);
	l->started = false;
}

bool kube_leader_is_leader(struct kube_leader *l)
{
	return atomic_load(&l->leading);
}

void kube_leader_free(struct kube_leader *l)
{
	if (!l)
		return;
	kube_leader_stop(l);
	pthread_cond_destroy(&l->cond);
	pthread_mutex_destroy(&l->lock);
	free(l->ns);
	free(l->name);
	free(l->identity);
	free(l->observed_holder);
	free(l->observed_renew);
	free(l->reported_leader);
	free(l);
}
