/* SPDX-License-Identifier: MIT */
/*
 * The client's state and what its requests and watches share with it
 * (client.c). Private to lib/kube (its files, unit tests and fuzzers).
 */
#ifndef SB_LIB_KUBE_CLIENT_INTERNAL_H
#define SB_LIB_KUBE_CLIENT_INTERNAL_H

#include "kube/client.h"
#include "kube/config.h"
#include "kube/error.h"
#include "kube/exec.h"
#include "kube/token.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

struct kube_thread_handle;
struct kube_hub; /* kube/hub.h */

struct kube_client {
	struct kube_config cfg;
	struct kube_client_opts opts;
	char *user_agent;
	struct kube_token_file token_file; /* used when cfg.token_file */
	bool has_token_file;
	struct kube_exec_token exec_token; /* used when cfg.exec */
	bool has_exec;
	pthread_key_t key;
	pthread_mutex_t handles_lock;
	struct kube_thread_handle *handles; /* every thread's handle */
	struct kube_hub *hub;		    /* the watches' connections (under handles_lock) */
	atomic_bool h2;			    /* the last answer came over HTTP/2 */
	atomic_ulong n_requests, n_retries, n_reauths, n_connects;
	atomic_ulong n_verb[KUBE_NVERBS];
};

/*
 * Sets the options every request and watch share on h: TLS material and
 * verification, HTTP/2, NOSIGNAL, error buffer, connect timeout, user agent.
 * *headers receives a new list (Accept, Authorization, content type) the
 * caller frees after the transfer. token may be NULL.
 */
int kube_client_setup_handle(struct kube_client *c, CURL *h, char *errbuf, const char *token,
			     const char *content_type, struct curl_slist **headers);

/*
 * The calling thread's easy handle for c (made on first use, then reset so it
 * is ready for options; connections and TLS sessions are kept), its error
 * buffer, and whether the thread asked for fresh connections. NULL on ENOMEM.
 */
CURL *kube_client_thread_easy(struct kube_client *c, char **errbuf, bool *fresh);

/* The bearer token to send now (new string, caller frees with
 * kube_free_secret), or NULL when none. force re-reads a token file or runs
 * the exec plugin again. err (may be NULL) says why it failed. */
int kube_client_token(struct kube_client *c, bool force, char **out, struct kube_error *err);
/* True when a 401 may be cured by a fresh token (a token file or an exec
 * plugin): the request is then tried once more with force. */
bool kube_client_token_renewable(const struct kube_client *c);
/* The client's hub (kube_hub_new), started on first use. NULL on ENOMEM. */
struct kube_hub *kube_client_hub(struct kube_client *c);

/* The namespace to use: ns when given, else the client's. */
const char *kube_client_ns(const struct kube_client *c, const char *ns);

#endif
