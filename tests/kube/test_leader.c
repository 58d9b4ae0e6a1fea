/* SPDX-License-Identifier: MIT */
/* Leader election on a real Lease: of two candidates exactly one leads; when
 * it stops (releasing the lease) the other takes over; when a leader dies
 * without releasing, the other takes over after the lease duration. */
#include "tests/kube/common.h"

#include <stdatomic.h>

KT_FIXTURE("kt-lease")

struct cand {
	atomic_int started, stopped;
};

static void started(void *arg)
{
	atomic_fetch_add(&((struct cand *)arg)->started, 1);
}

static void stopped(void *arg)
{
	atomic_fetch_add(&((struct cand *)arg)->stopped, 1);
}

static struct kube_leader *candidate(const char *lease, const char *id, struct cand *cd)
{
	struct kube_leader_opts o = {.ns = NS,
				     .name = lease,
				     .identity = id,
				     .lease_duration_ms = 3000,
				     .renew_deadline_ms = 2000,
				     .retry_period_ms = 300,
				     .on_started_leading = started,
				     .on_stopped_leading = stopped,
				     .arg = cd};
	struct kube_error err;
	struct kube_leader *l = kube_leader_new(C, &o, &err);
	if (!l)
		fprintf(stderr, "    %s\n", err.message);
	return l;
}

/* Waits up to ms for pred; returns how long it took or -1. */
#define WAIT_FOR(pred, ms)                              \
	({                                              \
		int64_t t0_ = kt_now_ms(), r_ = -1;     \
		while (kt_now_ms() - t0_ < (ms)) {      \
			if (pred) {                     \
				r_ = kt_now_ms() - t0_; \
				break;                  \
			}                               \
			usleep(50000);                  \
		}                                       \
		r_;                                     \
	})

static json_t *lease_spec(const char *name)
{
	json_t *l = NULL;
	if (kube_get(C, &kube_res_leases, NS, name, &l, NULL))
		return NULL;
	json_t *s = json_incref(json_object_get(l, "spec"));
	json_decref(l);
	return s;
}

static int test_one_leads_other_takes_over(void)
{
	struct cand ca = {0}, cb = {0};
	KT_SETUP();
	struct kube_leader *a = candidate("lock", "cand-a", &ca);
	struct kube_leader *b = candidate("lock", "cand-b", &cb);
	CHECK(a && b);
	CHECK_INT(kube_leader_start(a), 0);
	CHECK_INT(kube_leader_start(b), 0);
	CHECK(WAIT_FOR(kube_leader_is_leader(a) || kube_leader_is_leader(b), 5000) >= 0);
	/* Watch them for 3 s (10 renewals): never two leaders, never a change. */
	struct kube_leader *first = kube_leader_is_leader(a) ? a : b;
	struct kube_leader *second = first == a ? b : a;
	struct cand *cf = first == a ? &ca : &cb, *cs = first == a ? &cb : &ca;
	for (int i = 0; i < 60; i++) {
		CHECK(!(kube_leader_is_leader(a) && kube_leader_is_leader(b)));
		CHECK(kube_leader_is_leader(first));
		usleep(50000);
	}
	CHECK_INT(atomic_load(&cf->started), 1);
	CHECK_INT(atomic_load(&cs->started), 0);
	json_t *s = lease_spec("lock");
	CHECK(s);
	CHECK_STR(json_string_value(json_object_get(s, "holderIdentity")),
		  first == a ? "cand-a" : "cand-b");
	CHECK_INT(json_integer_value(json_object_get(s, "leaseDurationSeconds")), 3);
	json_int_t transitions = json_integer_value(json_object_get(s, "leaseTransitions"));
	json_decref(s);

	/* The leader stops: it releases, the other takes over well before the
	 * 3 s lease duration would have expired. */
	kube_leader_stop(first);
	CHECK_INT(atomic_load(&cf->stopped), 1);
	CHECK(!kube_leader_is_leader(first));
	int64_t took = WAIT_FOR(kube_leader_is_leader(second), 5000);
	fprintf(stderr, "    takeover after release: %lld ms\n", (long long)took);
	CHECK(took >= 0);
	CHECK(took < 2500);
	CHECK_INT(atomic_load(&cs->started), 1);
	s = lease_spec("lock");
	CHECK(s);
	CHECK_STR(json_string_value(json_object_get(s, "holderIdentity")),
		  second == a ? "cand-a" : "cand-b");
	CHECK_INT(json_integer_value(json_object_get(s, "leaseTransitions")), transitions + 1);
	json_decref(s);
	kube_leader_free(first);
	kube_leader_free(second); /* releases */
	s = lease_spec("lock");
	CHECK(s);
	CHECK_STR(json_string_value(json_object_get(s, "holderIdentity")), "");
	json_decref(s);
	return T_PASS;
}

static int test_takeover_after_expiry(void)
{
	struct kube_error err;
	struct cand cb = {0};
	KT_SETUP();
	/* A leader that vanished without releasing: a Lease held by "ghost",
	 * renewed just now, for 3 s. */
	char now[64];
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%S.000000Z", &tm);
	json_t *lease =
		json_pack("{s:s, s:s, s:{s:s}, s:{s:s, s:i, s:s, s:s, s:i}}", "apiVersion",
			  "coordination.k8s.io/v1", "kind", "Lease", "metadata", "name",
			  "ghostlock", "spec", "holderIdentity", "ghost", "leaseDurationSeconds", 3,
			  "acquireTime", now, "renewTime", now, "leaseTransitions", 4);
	EXPECT(kube_create(C, &kube_res_leases, NS, lease, NULL, &err), 0, &err);
	json_decref(lease);
	struct kube_leader *b = candidate("ghostlock", "cand-b", &cb);
	CHECK(b);
	CHECK_INT(kube_leader_start(b), 0);
	int64_t took = WAIT_FOR(kube_leader_is_leader(b), 8000);
	fprintf(stderr, "    takeover after expiry: %lld ms\n", (long long)took);
	CHECK(took >= 2500); /* not before the lease duration (3 s) passed */
	json_t *s = lease_spec("ghostlock");
	CHECK(s);
	CHECK_STR(json_string_value(json_object_get(s, "holderIdentity")), "cand-b");
	CHECK_INT(json_integer_value(json_object_get(s, "leaseTransitions")), 5);
	json_decref(s);
	kube_leader_free(b);
	CHECK_INT(atomic_load(&cb.stopped), 1);
	return T_PASS;
}

static int test_bad_options(void)
{
	struct kube_error err;
	KT_SETUP();
	struct kube_leader_opts o = {
		.name = "x", .identity = "y", .lease_duration_ms = 1000, .renew_deadline_ms = 2000};
	CHECK(kube_leader_new(C, &o, &err) == NULL);
	CHECK(strstr(err.message, "renew deadline") != NULL);
	o.identity = NULL;
	CHECK(kube_leader_new(C, &o, &err) == NULL);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"kube-leader/one-leads-other-takes-over", test_one_leads_other_takes_over},
	{"kube-leader/takeover-after-expiry", test_takeover_after_expiry},
	{"kube-leader/bad-options", test_bad_options},
};

int main(void)
{
	int r = test_run_all(cases, sizeof(cases) / sizeof(cases[0]));
	if (C) {
		kt_namespace_delete(C, NS);
		kube_client_free(C);
	}
	return r;
}
