/* SPDX-License-Identifier: MIT */
/* Leader election on a real Lease: of two candidates exactly one leads; when
 * it stops (releasing the lease) the other takes over; when a leader dies
 * without releasing, the other takes over after the lease duration; on a
 * fake clock stepped by the test. */
#include "tests/kube/common.h"
#include "tests/unit/fakeclock.h"

#include <stdatomic.h>

KT_FIXTURE("kt-lease")

#define PERIOD 300 /* the retry period, ms */

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
				     .retry_period_ms = PERIOD,
				     .on_started_leading = started,
				     .on_stopped_leading = stopped,
				     .arg = cd};
	struct kube_error err;
	struct kube_leader *l = kube_leader_new(C, &o, &err);
	if (!l)
		fprintf(stderr, "    %s\n", err.message);
	return l;
}

/*
 * Election time is the fake clock's (tests/unit/fakeclock.h): it moves only
 * by step(), one retry period at a time, after both candidates have done
 * all they could (fc_quiet). The API server's speed therefore cannot move a
 * renew deadline or a lease expiry; the Lease itself is the real one.
 */
static struct fakeclock fc;

/* One retry period on, then waits (real time, at most 30 s) until n
 * candidates wait again. */
static int step(int n)
{
	fc_step(&fc, PERIOD);
	return fc_quiet(&fc, n, 30000);
}

/* The Lease's spec, read by a client that does not retry (a retry would
 * wait on the fake clock, which only this thread moves). */
static json_t *lease_spec(const char *name)
{
	json_t *l = NULL;
	struct kube_client_opts o = {.max_retries = -1};
	struct kube_client *c = kt_client_opts(kt_kubeconfig(), &o);
	int r = c ? kube_get(c, &kube_res_leases, NS, name, &l, NULL) : -ENOMEM;
	kube_client_free(c);
	if (r)
		return NULL;
	json_t *s = json_incref(json_object_get(l, "spec"));
	json_decref(l);
	return s;
}

/* The candidates of a case, reachable from here (no leak report when a
 * CHECK fails); stopped and freed by cands_free(), which also puts the real
 * clock back. */
static struct kube_leader *cands[2];

static bool clock_on;

static void cands_free(bool after_failure)
{
	/* a candidate of a failed case may be in a request's retry pause, which
	 * a stop does not cut short: let the fake time run out for it */
	if (after_failure && clock_on)
		fc_step(&fc, 3600000);
	for (int i = 0; i < 2; i++) {
		kube_leader_free(cands[i]);
		cands[i] = NULL;
	}
	if (clock_on)
		fc_uninstall(&fc);
	clock_on = false;
}

static int test_one_leads_other_takes_over(void)
{
	struct cand ca = {0}, cb = {0};
	KT_SETUP();
	cands_free(true);
	fc_install(&fc, false);
	clock_on = true;
	struct kube_leader *a = cands[0] = candidate("lock", "cand-a", &ca);
	struct kube_leader *b = cands[1] = candidate("lock", "cand-b", &cb);
	CHECK(a && b);
	CHECK_INT(kube_leader_start(a), 0);
	CHECK_INT(kube_leader_start(b), 0);
	/* both tried once: exactly one leads */
	CHECK_INT(fc_quiet(&fc, 2, 30000), 0);
	CHECK(kube_leader_is_leader(a) != kube_leader_is_leader(b));
	/* 10 retry periods (3 s, the lease duration): never two leaders,
	 * never a change */
	struct kube_leader *first = kube_leader_is_leader(a) ? a : b;
	struct kube_leader *second = first == a ? b : a;
	struct cand *cf = first == a ? &ca : &cb, *cs = first == a ? &cb : &ca;
	for (int i = 0; i < 10; i++) {
		CHECK_INT(step(2), 0);
		CHECK(!(kube_leader_is_leader(a) && kube_leader_is_leader(b)));
		CHECK(kube_leader_is_leader(first));
	}
	CHECK_INT(atomic_load(&cf->started), 1);
	CHECK_INT(atomic_load(&cf->stopped), 0);
	CHECK_INT(atomic_load(&cs->started), 0);
	json_t *s = lease_spec("lock");
	CHECK(s);
	CHECK_STR(json_string_value(json_object_get(s, "holderIdentity")),
		  first == a ? "cand-a" : "cand-b");
	CHECK_INT(json_integer_value(json_object_get(s, "leaseDurationSeconds")), 3);
	json_int_t transitions = json_integer_value(json_object_get(s, "leaseTransitions"));
	json_decref(s);
	/* The leader stops: it releases, and the other takes over at its next
	 * try (a retry period plus jitter, at most 2.2 periods), well before
	 * the 3 s lease duration (10 periods) would have expired. */
	kube_leader_stop(first);
	CHECK_INT(atomic_load(&cf->stopped), 1);
	CHECK(!kube_leader_is_leader(first));
	int steps = 0;
	while (!kube_leader_is_leader(second) && steps < 20) {
		CHECK_INT(step(1), 0);
		steps++;
	}
	fprintf(stderr, "    takeover after release: %d ms (fake)\n", steps * PERIOD);
	CHECK(kube_leader_is_leader(second));
	CHECK(steps >= 1 && steps <= 3);
	CHECK_INT(atomic_load(&cs->started), 1);
	s = lease_spec("lock");
	CHECK(s);
	CHECK_STR(json_string_value(json_object_get(s, "holderIdentity")),
		  second == a ? "cand-a" : "cand-b");
	CHECK_INT(json_integer_value(json_object_get(s, "leaseTransitions")), transitions + 1);
	json_decref(s);
	cands_free(false); /* releases */
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
	cands_free(true);
	fc_install(&fc, false);
	clock_on = true;
	struct kube_leader *b = cands[1] = candidate("ghostlock", "cand-b", &cb);
	CHECK(b);
	CHECK_INT(kube_leader_start(b), 0);
	/* it saw the ghost's record at fake time 0 of the case */
	CHECK_INT(fc_quiet(&fc, 1, 30000), 0);
	CHECK(!kube_leader_is_leader(b));
	int steps = 0;
	while (!kube_leader_is_leader(b) && steps < 30) {
		CHECK_INT(step(1), 0);
		steps++;
	}
	fprintf(stderr, "    takeover after expiry: %d ms (fake)\n", steps * PERIOD);
	CHECK(kube_leader_is_leader(b));
	/* not before the lease duration (3 s) passed on its clock; at its first
	 * try after that (a period plus jitter later at most) */
	CHECK(steps * PERIOD >= 3000);
	CHECK(steps * PERIOD <= 3000 + 3 * PERIOD);
	json_t *s = lease_spec("ghostlock");
	CHECK(s);
	CHECK_STR(json_string_value(json_object_get(s, "holderIdentity")), "cand-b");
	CHECK_INT(json_integer_value(json_object_get(s, "leaseTransitions")), 5);
	json_decref(s);
	cands_free(false);
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
	cands_free(true);
	if (C) {
		kt_namespace_delete(C, NS);
		kube_client_free(C);
	}
	return r;
}
