/* SPDX-License-Identifier: MIT */
/*
 * Declarations shared by the files of lib/kube and its unit tests. Not part
 * of the public API (kube.h); names still start with kube_ because they are
 * visible to the linker. Same conventions as kube.h.
 */
#ifndef SB_LIB_KUBE_INTERNAL_H
#define SB_LIB_KUBE_INTERNAL_H

#include "kube/kube.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* Formats into err->message (err may be NULL). Returns ret, for one-line
 * "return kube_errorf(err, -EINVAL, ...)". */
int kube_errorf(struct kube_error *err, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Copies curl's error text (or curl_easy_strerror(code) when errbuf is empty)
 * into err. */
void kube_error_set_curl(struct kube_error *err, CURLcode code, const char *errbuf);

/* ------------------------------------------------------------------ base64 */

/*
 * Decodes base64 text (whitespace and newlines allowed) with OpenSSL's EVP
 * decoder into a new NUL-terminated buffer *out of *out_len bytes (caller
 * frees). -EINVAL when it is not valid base64, -ENOMEM.
 */
int kube_base64_decode(const char *in, size_t in_len, char **out, size_t *out_len);

/* ------------------------------------------------------------------- files */

/* Reads a whole file into a new NUL-terminated buffer. 0 or -errno. */
int kube_read_file(const char *path, char **out, size_t *len);

/* ------------------------------------------------------------------- token */

/*
 * A bearer token file re-read when its inode, size, mtime or ctime change
 * (looked at with stat(2) at most every recheck_ms), or when forced (after a
 * 401). Thread-safe.
 */
struct kube_token_file {
	pthread_mutex_t lock;
	char *path;
	char *value; /* trimmed contents, or NULL before the first read */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	unsigned long reads; /* how many times the file was read */
	long recheck_ms;
	int64_t checked_ms; /* when stat(2) was last called */
};

int kube_token_file_init(struct kube_token_file *t, const char *path, long recheck_ms);
void kube_token_file_release(struct kube_token_file *t);
/* Copies the current token into a new string *out (caller frees, after
 * clearing it). Re-reads the file when it changed or when force. */
int kube_token_file_get(struct kube_token_file *t, bool force, char **out);

/* -------------------------------------------------------------------- exec */

/* Frees x and what it holds (accepts NULL). */
void kube_exec_config_free(struct kube_exec_config *x);
/* A deep copy of x, or NULL on ENOMEM. */
struct kube_exec_config *kube_exec_config_dup(const struct kube_exec_config *x);

/*
 * Parses an exec plugin's output (an ExecCredential of api_version):
 * *token (new string, caller frees with kube_free_secret) from
 * status.token, *expiry from status.expirationTimestamp (0: none). 0,
 * -ENOMEM, or -EINVAL with why naming the field.
 */
int kube_exec_credential_parse(const char *text, size_t len, const char *api_version, char **token,
			       time_t *expiry, char *why, size_t whylen);

/* The token of an exec plugin, kept until it is about to expire. Thread-safe. */
struct kube_exec_token {
	pthread_mutex_t lock;
	char *token;
	time_t expiry;	    /* 0: none given */
	unsigned long runs; /* how many times the plugin ran */
};

int kube_exec_token_init(struct kube_exec_token *t);
void kube_exec_token_release(struct kube_exec_token *t);
/*
 * Copies the token into a new string *out (caller frees with
 * kube_free_secret), running plugin x first (cfg gives the cluster for
 * provideClusterInfo) when there is none yet, when it expires within 10 s,
 * or when force (after a 401). 0 or -errno with err saying why (the
 * plugin not found, its exit status, a malformed ExecCredential...).
 */
int kube_exec_token_get(struct kube_exec_token *t, const struct kube_exec_config *x,
			const struct kube_config *cfg, bool force, char **out,
			struct kube_error *err);

/* -------------------------------------------------------------------- urls */

/*
 * Builds the URL of a resource on server:
 *   <server>/api/<version>            (core group)
 *   <server>/apis/<group>/<version>   (other groups)
 * then [/namespaces/<ns>]/<resource>[/<name>[/<subresource>]] and the query.
 * Path segments and query values are URL-encoded (with curl_easy_escape and
 * curl_url_set). ns NULL or "" leaves out the namespace; name NULL the name.
 * *out is a new string the caller frees. 0, -EINVAL (bad server URL or
 * resource), -ENOMEM.
 */
int kube_url_build(const char *server, const struct kube_resource *r, const char *ns,
		   const char *name, const char *subresource, const struct kube_query *q, size_t nq,
		   char **out);

/* ---------------------------------------------------------- retry / backoff */

/*
 * The delay before retry number attempt (0 for the first retry): full
 * jitter over a capped exponential, base * 2^attempt capped at cap, of which
 * a random half is kept: delay = d/2 + rnd * d/2 with rnd in [0, 1).
 */
long kube_backoff_ms(unsigned attempt, long base_ms, long cap_ms, double rnd);

/*
 * Parses a Retry-After header value: delta-seconds ("120") or an HTTP-date
 * (relative to now). Returns the delay in ms (0 for a date in the past), or
 * -1 when the value is not valid.
 */
long kube_parse_retry_after(const char *value, time_t now);

/* ------------------------------------------------------------ line decoder */

/*
 * Splits a byte stream into '\n'-terminated lines as chunks arrive: a line
 * may span chunks and a chunk may hold many lines. Empty lines (and a
 * trailing '\r') are skipped.
 */
struct kube_line_decoder {
	char *buf; /* bytes of an unfinished line */
	size_t len, cap;
	size_t max_line; /* longest line accepted; 0: 64 MiB */
};

void kube_line_decoder_init(struct kube_line_decoder *d, size_t max_line);
void kube_line_decoder_release(struct kube_line_decoder *d);
/* Drops a partial line (after a reconnect). */
void kube_line_decoder_reset(struct kube_line_decoder *d);

/* Called per complete line (line NUL-terminated, without the newline). A
 * non-zero return stops the feeding and is returned by feed. */
typedef int (*kube_line_cb)(char *line, size_t len, void *arg);

/*
 * Feeds n bytes; calls cb for each line completed. Returns 0, cb's non-zero
 * value, -E2BIG for a line longer than max_line, -ENOMEM.
 */
int kube_line_decoder_feed(struct kube_line_decoder *d, const char *data, size_t n, kube_line_cb cb,
			   void *arg);

/* Parses one watch event line {"type":..., "object":{...}} into its type and
 * a new reference to its object. 0 or -EPROTO. */
int kube_watch_parse_event(const char *line, size_t len, enum kube_event_type *type,
			   json_t **object);

/* --------------------------------------------------------------------- hub */

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

/* ------------------------------------------------------------------ client */

struct kube_thread_handle;

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

/* One HTTP request, retried per the rules in kube.h. */
struct kube_request {
	const char *method; /* "GET", "POST", "PUT", "PATCH", "DELETE" */
	bool list;	    /* a GET of a collection (counted as a list) */
	const char *url;
	const char *content_type; /* of body, or NULL */
	const char *body;	  /* or NULL */
	size_t body_len;
	bool idempotent; /* retry 5xx and transport errors */
	size_t max_body; /* 0: the default limit */
	char **raw_out;	 /* when set: the 2xx answer as text (NUL-terminated), not JSON */
	size_t *raw_len;
	/* when set: a 2xx answer goes to sink as it arrives (nothing is kept,
	 * no total timeout); a nonzero return of sink stops the transfer and
	 * is returned. Once data has reached sink, nothing is retried. */
	int (*sink)(void *arg, const char *data, size_t len);
	void *sink_arg;
};

/*
 * Performs req with the calling thread's handle. On 2xx parses the answer
 * into *out (when out is not NULL; an empty body gives json null). On
 * failure returns -errno with err filled.
 */
int kube_request_do(struct kube_client *c, const struct kube_request *req, json_t **out,
		    struct kube_error *err);

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
/* Clears and frees a secret string. */
void kube_free_secret(char *s);

/* The client's hub (kube_hub_new), started on first use. NULL on ENOMEM. */
struct kube_hub *kube_client_hub(struct kube_client *c);

/* The namespace to use: ns when given, else the client's. */
const char *kube_client_ns(const struct kube_client *c, const char *ns);

/* Monotonic milliseconds (the installed kube_clock's, if any). */
int64_t kube_now_ms(void);
/* *ts set to the real-time clock ms milliseconds from now: the absolute
 * deadline pthread_cond_timedwait takes. */
void kube_deadline_in(struct timespec *ts, long ms);
/* Sleeps ms milliseconds (restarts on EINTR; on the installed clock, if any). */
void kube_sleep_ms(long ms);
/* The installed clock, or NULL for the real one. */
const struct kube_clock *kube_clock_get(void);
/* Wakes the installed clock's waits (kube_clock.wake); nothing without one. */
void kube_clock_wake(void);
/* A random double in [0, 1) (thread-safe). */
double kube_random(void);

#endif
