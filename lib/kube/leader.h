/* SPDX-License-Identifier: MIT */
/*
 * Leader election on a Lease, as client-go's leaderelection (lib/kube,
 * conventions in kube/kube.h).
 */
#ifndef SB_LIB_KUBE_LEADER_H
#define SB_LIB_KUBE_LEADER_H

#include "kube/client.h"
#include "kube/error.h"

#include <stdbool.h>

/*
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go's
 * leaderelection: a candidate acquires the lease when it is unheld
 * (holderIdentity empty) or its holder has not renewed it for
 * leaseDurationSeconds as observed on the local clock; the leader renews
 * every retry_period_ms and gives up leadership when it could not renew for
 * renew_deadline_ms; on stop a leader releases the lease by clearing
 * holderIdentity, so another candidate takes over at once. Writes are
 * conditional on resourceVersion, so of two racing candidates one wins.
 * leaseTransitions counts changes of holder.
 */
struct kube_leader;

struct kube_leader_opts {
	const char *ns;		/* Lease namespace; NULL: the context namespace */
	const char *name;	/* Lease name, required */
	const char *identity;	/* this candidate, required and unique */
	long lease_duration_ms; /* default 15000 (rounded up to whole seconds) */
	long renew_deadline_ms; /* default 10000; must be < lease_duration_ms */
	long retry_period_ms;	/* default 2000; must be < renew_deadline_ms */
	/* Called from the elector's thread; may be NULL. */
	void (*on_started_leading)(void *arg);
	void (*on_stopped_leading)(void *arg);
	void (*on_new_leader)(const char *identity, void *arg); /* holder changed */
	void *arg;
};

/* Returns NULL with err filled (-EINVAL for bad options). opts is copied. */
struct kube_leader *kube_leader_new(struct kube_client *c, const struct kube_leader_opts *opts,
				    struct kube_error *err);
/* Starts the elector thread. -EALREADY when started. */
int kube_leader_start(struct kube_leader *l);
/*
 * Stops the elector: when leading, releases the lease and calls
 * on_stopped_leading; waits for the thread.
 */
void kube_leader_stop(struct kube_leader *l);
/* True while this candidate holds the lease. */
bool kube_leader_is_leader(struct kube_leader *l);
/* Stops it if running, then frees it. */
void kube_leader_free(struct kube_leader *l);

#endif
