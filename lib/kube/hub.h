/* SPDX-License-Identifier: MIT */
/*
 * The hub: the watches' transfers on one curl multi handle and thread
 * (hub.c). Private to lib/kube (its files, unit tests and fuzzers).
 */
#ifndef SB_LIB_KUBE_HUB_H
#define SB_LIB_KUBE_HUB_H

#include <curl/curl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

struct kube_hub;

/*
 * One transfer on the client's hub (hub.c): one curl multi handle driven by
 * one thread, shared by every watch so that they multiplex over one HTTP/2
 * connection. The owner (one thread) starts the transfer, takes the bytes
 * as they arrive with kube_xfer_wait (the hub thread never runs watch code)
 * and ends it with kube_xfer_end. Fields are private to hub.c; those below
 * `cond` are guarded by the hub's lock.
 */
struct kube_xfer {
	struct kube_hub *hub; /* set by init, never changed */
	CURL *easy;	      /* the owner's; in the multi handle between start and end */
	pthread_cond_t cond;
	bool cond_ok;
	char *buf; /* bytes received, not yet taken (written by the hub thread) */
	size_t len, cap;
	char *spare; /* the bytes last taken (read by the owner) */
	size_t spare_cap;
	long code;	 /* HTTP status, once the first bytes arrived */
	CURLcode result; /* of the ended transfer */
	bool done;	 /* ended (or never started) and out of the multi handle */
	bool in_multi, paused, nomem, kicked, acked, pending;
	bool want_add, want_remove, want_cont; /* requests for the hub thread */
	struct kube_xfer *next;		       /* in the hub's list of requests */
};

/* Sets up x for easy (which stays the caller's) on hub h (kube_client_hub;
 * NULL: -ENOMEM). 0 or -ENOMEM; release x either way. */
int kube_xfer_init(struct kube_xfer *x, struct kube_hub *h, CURL *easy);
/* Frees x's buffers (the transfer must have ended). */
void kube_xfer_release(struct kube_xfer *x);
/* Sets the write callback of the easy handle (its other options are the
 * caller's) and hands it to the hub thread. 0 or -ENOMEM. */
int kube_xfer_start(struct kube_xfer *x);
/* The bytes x's two buffers hold allocated (under the hub's lock). */
size_t kube_xfer_buffer_bytes(struct kube_xfer *x);
/*
 * Waits (real time, at most timeout_ms) for bytes, the end of the transfer,
 * *stop or a kick. *data and *len: the bytes received since the last call (the
 * buffer stays x's, valid until the next call), *code the HTTP status once
 * known. Returns 1 when the transfer has ended and every byte was taken,
 * else 0.
 */
int kube_xfer_wait(struct kube_xfer *x, const atomic_bool *stop, long timeout_ms, char **data,
		   size_t *len, long *code);
/* Waits ms (real time) or until *stop or a kick. */
void kube_xfer_sleep(struct kube_xfer *x, const atomic_bool *stop, long ms);
/* Wakes the owner's wait (any thread). */
void kube_xfer_kick(struct kube_xfer *x);
/* Ends the transfer (removed when still running) and waits until the hub
 * thread let go of it; the transfer's result and *code its HTTP status. */
CURLcode kube_xfer_end(struct kube_xfer *x, long *code);
/* A hub and its thread; the hub stores into *h2 whether an answer came over
 * HTTP/2 (and reads it to choose PIPEWAIT). NULL on ENOMEM. */
struct kube_hub *kube_hub_new(atomic_bool *h2);
/* Stops the hub's thread and closes its connections (no transfer left). */
void kube_hub_free(struct kube_hub *h);

#endif
