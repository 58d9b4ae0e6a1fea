/* SPDX-License-Identifier: MIT */
/*
 * The client: one per API server and credentials, shared by any number
 * of threads (see Threads in kube/kube.h), with its options and counters.
 */
#ifndef SB_LIB_KUBE_CLIENT_H
#define SB_LIB_KUBE_CLIENT_H

#include "kube/config.h"
#include "kube/error.h"

#include <stdbool.h>
#include <stddef.h>

struct kube_client;

struct kube_client_opts {
	long connect_timeout_ms; /* default 10000 */
	long request_timeout_ms; /* whole non-watch request; default 30000 */
	int max_retries;	 /* retries after the first try; 0: 4, <0: none */
	long backoff_base_ms;	 /* first retry delay; default 200 */
	long backoff_cap_ms;	 /* longest delay between retries; default 5000 */
	long retry_after_max_ms; /* cap on a server's Retry-After; default 60000 */
	long token_recheck_ms;	 /* stat a token file at most this often; 0: 1000,
				    <0: before every request (a 401 always re-reads) */
	const char *user_agent;	 /* default "storagebench/<version>" */
};

/*
 * Makes a client for cfg (copied; cfg may be released afterwards). opts may
 * be NULL for the defaults; zero fields take their default. Returns NULL on
 * failure with err filled. Free with kube_client_free().
 */
struct kube_client *kube_client_new(const struct kube_config *cfg,
				    const struct kube_client_opts *opts, struct kube_error *err);
/* Frees the client and the curl handles of every thread (see Threads). */
void kube_client_free(struct kube_client *c);

/* The context namespace of the client's configuration (borrowed). */
const char *kube_client_namespace(const struct kube_client *c);

/*
 * The HTTP library linked in and what it can do, one line into buf (for
 * `--version`): "libcurl 7.88.1 ssl=OpenSSL/3.0.19 http2=nghttp2/1.52.0
 * zlib=1.2.13 protocols=http,https" ("no" for a part it lacks; protocols
 * as curl_version_info lists them). Truncated to size; returns buf.
 */
const char *kube_http_library(char *buf, size_t size);

/*
 * Counters of the client, for tests, benchmarks and metrics: requests sent
 * (every try), retries done, 401 recoveries, new connections opened (summed
 * from CURLINFO_NUM_CONNECTS), and the requests by Kubernetes verb (every
 * try, so they add up to requests): by[KUBE_VERB_x]. A GET of a collection
 * is a list, a watch (or a watch reconnect) is a watch, a GET of one object
 * (or raw text, a log) is a get, POST create, PUT update, PATCH patch.
 */
enum kube_verb {
	KUBE_VERB_GET = 0,
	KUBE_VERB_LIST,
	KUBE_VERB_WATCH,
	KUBE_VERB_CREATE,
	KUBE_VERB_UPDATE,
	KUBE_VERB_PATCH,
	KUBE_VERB_DELETE,
	KUBE_NVERBS
};
/* The verb's lower-case name ("get", "list", ...); "" when out of range. */
const char *kube_verb_name(enum kube_verb v);
struct kube_client_stats {
	unsigned long requests, retries, reauths, connects;
	unsigned long by[KUBE_NVERBS];
	unsigned long handles; /* threads' curl handles alive (each may hold a connection) */
};
void kube_client_stats(struct kube_client *c, struct kube_client_stats *out);

/*
 * Drops the calling thread's curl handle and with it its kept-alive
 * connection (TLS and HTTP/2 state: ~150 KB); the thread's next request
 * connects again. For a thread that requests rarely (an informer lists
 * only at start and after a 410).
 */
void kube_client_thread_release(struct kube_client *c);

/*
 * When set, every request of this thread uses a fresh curl handle and
 * connection (CURLOPT_FRESH_CONNECT and FORBID_REUSE). For the benchmark that
 * compares with connection reuse; never needed otherwise.
 */
void kube_client_set_fresh_connections(struct kube_client *c, bool on);

#endif
