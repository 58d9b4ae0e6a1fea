/* SPDX-License-Identifier: MIT */
/*
 * kube: a thin Kubernetes API client on libcurl, jansson, libyaml and
 * OpenSSL.
 *
 * Conventions (the whole header follows them):
 *  - Functions returning int return 0 on success or a negative errno.
 *    HTTP answers map to: 404 -ENOENT, 409 AlreadyExists -EEXIST,
 *    409 Conflict -EAGAIN, 410 Gone -ESTALE, 403 -EACCES, 401 -EPERM,
 *    400 and 422 -EINVAL, 429 and 5xx -EAGAIN (after the retries),
 *    transport failure (connect, TLS, reset, timeout) -EIO, malformed
 *    answer -EPROTO, other 4xx -EPROTO, memory -ENOMEM.
 *  - Every function taking a `struct kube_error *err` accepts NULL; when not
 *    NULL it is cleared on entry and filled on failure with the HTTP code,
 *    the Status reason and message and libcurl's error text.
 *  - Objects are jansson json_t. An argument `const json_t *` or
 *    `json_t *` is borrowed (the caller keeps its reference). An output
 *    `json_t **out` receives a new reference the caller must json_decref();
 *    out may be NULL when the caller does not want the answer. On failure
 *    *out is set to NULL.
 *  - Strings passed in are copied when they are kept; the caller may free
 *    them after the call returns.
 *  - Free functions accept NULL.
 *  - Nothing is printed except through lib/log (sb_log), at debug level for
 *    each request and at warn level for retries and insecure TLS.
 *
 * Threads: a struct kube_client may be shared by any number of threads.
 * Each thread that issues requests through a client gets its own curl easy
 * handle (kept in a pthread key of the client), reused for all its requests
 * so the TCP connection and TLS session are reused; it is cleaned up when
 * the thread exits or when the client is freed. A watch uses an easy handle
 * of its own (it holds its connection for as long as it runs). Free a client
 * only after every thread using it has stopped using it (joined, or
 * informers and leader electors stopped).
 */
#ifndef SB_LIB_KUBE_KUBE_H
#define SB_LIB_KUBE_KUBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

/* ---------------------------------------------------------------- errors */

struct kube_error {
	long http_code;	   /* HTTP status, 0 when there was no HTTP answer */
	char reason[64];   /* Status.reason ("NotFound", "Conflict"...) or "" */
	char message[512]; /* Status.message, or what went wrong locally */
	char curl[256];	   /* libcurl's error text, "" when none */
};

#define KUBE_ERROR_INIT \
	{               \
		0       \
	}

/* Clears err (accepts NULL). */
void kube_error_clear(struct kube_error *err);

/*
 * Formats err into buf as one line: "<message> (http 404 NotFound; curl: ...)".
 * Returns buf (never NULL; buf must hold at least 1 byte).
 */
const char *kube_error_str(const struct kube_error *err, char *buf, size_t size);

/*
 * Maps an HTTP status code and Status reason (may be NULL) to 0 (2xx) or a
 * negative errno, as listed at the top of this header.
 */
int kube_errno_from_http(long http_code, const char *reason);

/*
 * Fills err from an HTTP answer: the code and, when body is a Status object
 * (JSON text of len bytes, may be NULL), its reason and message. Returns
 * kube_errno_from_http() of the result.
 */
int kube_error_from_status(struct kube_error *err, long http_code, const char *body, size_t len);

/* ------------------------------------------------------------ configuration */

/*
 * Where to reach the API server and how to authenticate. Filled by one of the
 * kube_config_load* functions; all strings and buffers are owned by the
 * struct and freed by kube_config_release(). Binary fields (PEM) are
 * NUL-terminated as well, for convenience.
 */
/*
 * An exec credential plugin (users[].user.exec): run to get a bearer token,
 * as kubectl does for EKS, GKE, AKS and OIDC helpers. Owned by struct
 * kube_config; every string is owned by this struct.
 */
struct kube_exec_config {
	char *command; /* a path, or a name looked up in PATH */
	char **args;   /* nargs arguments after the command */
	size_t nargs;
	char **env; /* nenv "NAME=VALUE" added to the plugin's environment */
	size_t nenv;
	char *api_version;	   /* client.authentication.k8s.io/v1 or v1beta1 */
	char *install_hint;	   /* shown when the command is not found, or NULL */
	bool provide_cluster_info; /* put the cluster in KUBERNETES_EXEC_INFO */
};

struct kube_config {
	char *server;	   /* "https://host:port[/prefix]", no trailing '/' */
	char *ca_pem;	   /* CA bundle (PEM) from -data or the file, or NULL */
	size_t ca_pem_len; /* (NULL: the system's trust store) */
	char *cert_pem;	   /* client certificate (PEM) or NULL */
	size_t cert_pem_len;
	char *key_pem; /* client private key (PEM) or NULL */
	size_t key_pem_len;
	char *token;		       /* static bearer token or NULL */
	char *token_file;	       /* bearer token file, re-read when it changes, or NULL */
	struct kube_exec_config *exec; /* exec credential plugin, or NULL */
	bool insecure;		       /* insecure-skip-tls-verify: true was set explicitly */
	char *namespace;	       /* context namespace, "default" when not set */
	char *source;		       /* where it came from: a file path or "in-cluster" */
};

#define KUBE_CONFIG_INIT \
	{                \
		0        \
	}

void kube_config_init(struct kube_config *cfg);
/* Frees what cfg holds (clearing the key and token first) and re-inits it. */
void kube_config_release(struct kube_config *cfg);

/*
 * Parses the kubeconfig file at path (its current-context; relative file
 * names inside are resolved against the file's directory). A malformed file
 * is -EINVAL with err->message naming the file and the field, e.g.
 * "kubeconfig 'x': users[0].user.client-certificate-data: not valid base64".
 * A missing file is -ENOENT. auth-provider users are -ENOTSUP; an exec
 * user gets its token from the plugin when the client needs one (and again
 * before it expires, and after a 401).
 */
int kube_config_load_file(struct kube_config *cfg, const char *path, struct kube_error *err);

/*
 * In-cluster configuration: KUBERNETES_SERVICE_HOST and _PORT (an IPv6
 * host is put in brackets), and the ServiceAccount files
 * <root>/var/run/secrets/kubernetes.io/serviceaccount/{token,ca.crt,namespace}.
 * root is "" or NULL for the real root; tests pass a fake one. The token is
 * used as a token file (re-read when it rotates). -ENOENT when the
 * variables or the token file are absent.
 */
int kube_config_load_in_cluster(struct kube_config *cfg, const char *root, struct kube_error *err);

/*
 * The loading order of client-go / controller-runtime: path when not NULL,
 * else the files of $KUBECONFIG merged as client-go merges them (a ':'
 * list: the first file that sets current-context names it; each context,
 * cluster and user comes from the first file that defines its name; files
 * that do not exist are passed over, unless none does), else in-cluster
 * (root as above), else $HOME/.kube/config. -ENOENT when none exists.
 */
int kube_config_load(struct kube_config *cfg, const char *path, const char *root,
		     struct kube_error *err);

/*
 * kube_config_load with the context named context (NULL: the current one)
 * instead of current-context, as kubectl --context: a kubeconfig is then
 * needed (in-cluster configuration has no contexts); a context no file
 * defines is -EINVAL naming it.
 */
int kube_config_load_context(struct kube_config *cfg, const char *path, const char *context,
			     const char *root, struct kube_error *err);

/* ------------------------------------------------------------------ client */

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
 * The clock lib/kube times itself by: retry backoff and Retry-After pauses,
 * token file re-checks, watch idling and reconnect delays, leader election
 * (lease expiry as observed locally, renew deadline, retry period). By
 * default CLOCK_MONOTONIC and real waits. A test installs its own so that
 * these timers run on a time it advances, without real sleeps.
 *
 * now_ms: monotonic milliseconds.
 * wait_until: blocks until now_ms() >= deadline_ms; may return earlier (the
 *   callers look at the time and their stop flags again and wait anew).
 * wake: makes current wait_until calls return (kube_watch_stop and
 *   kube_leader_stop call it, so a stop is seen at once); may be NULL.
 * The functions are called from any thread. Informer sync waits
 * (kube_informer_wait_synced) and libcurl's own timeouts stay on the real
 * clock.
 */
struct kube_clock {
	int64_t (*now_ms)(void *arg);
	void (*wait_until)(void *arg, int64_t deadline_ms);
	void (*wake)(void *arg);
	void *arg;
};
/*
 * Installs c for the whole process (NULL: back to the real clock). c is
 * borrowed: it must stay valid until replaced. Install it while no client
 * thread, watch or elector is running.
 */
void kube_clock_set(const struct kube_clock *c);

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

/* -------------------------------------------------------------- resources */

/*
 * A resource type: group ("" for the core group), version, plural resource
 * name, and whether objects live in a namespace. Strings are borrowed.
 */
struct kube_resource {
	const char *group;
	const char *version;
	const char *resource;
	bool namespaced;
};

extern const struct kube_resource kube_res_configmaps;
extern const struct kube_resource kube_res_secrets;
extern const struct kube_resource kube_res_namespaces;
extern const struct kube_resource kube_res_pods;
extern const struct kube_resource kube_res_serviceaccounts;
extern const struct kube_resource kube_res_pvcs;
extern const struct kube_resource kube_res_pvs;
extern const struct kube_resource kube_res_storageclasses;
extern const struct kube_resource kube_res_jobs;
extern const struct kube_resource kube_res_leases;
extern const struct kube_resource kube_res_crds;

/*
 * In every operation below, ns is the namespace for namespaced resources
 * (NULL: the client's context namespace) and is ignored for cluster-scoped
 * ones; name is the object's name.
 */

/* GET one object into *out (new reference). */
int kube_get(struct kube_client *c, const struct kube_resource *r, const char *ns, const char *name,
	     json_t **out, struct kube_error *err);
/* GET the status subresource. */
int kube_get_status(struct kube_client *c, const struct kube_resource *r, const char *ns,
		    const char *name, json_t **out, struct kube_error *err);

struct kube_list_opts {
	const char *label_selector;   /* NULL: none */
	const char *field_selector;   /* NULL: none */
	long limit;		      /* page size; 0: one unpaged request */
	const char *resource_version; /* NULL: most recent */
};

/*
 * LIST objects (ns NULL for namespaced resources means all namespaces, not
 * the context namespace; pass kube_client_namespace(c) for that). All pages
 * (limit/continue) are fetched and their items concatenated: *out is the
 * List object of the first page with "items" holding every item and
 * metadata.resourceVersion the list's version (the one to watch from);
 * metadata.continue is removed. opts may be NULL.
 */
int kube_list(struct kube_client *c, const struct kube_resource *r, const char *ns,
	      const struct kube_list_opts *opts, json_t **out, struct kube_error *err);

/*
 * POST obj (borrowed). The namespace is ns, else obj's metadata.namespace,
 * else the context namespace. Retried on 5xx and transport errors only when
 * obj has metadata.name (a repeat then answers AlreadyExists: -EEXIST).
 */
int kube_create(struct kube_client *c, const struct kube_resource *r, const char *ns,
		const json_t *obj, json_t **out, struct kube_error *err);

/*
 * POST obj (borrowed) to a subresource of the object name, e.g.
 * serviceaccounts/<name>/token (a TokenRequest) or pods/<name>/eviction.
 * Not retried on 5xx or transport errors (a POST may have had effects).
 */
int kube_create_subresource(struct kube_client *c, const struct kube_resource *r, const char *ns,
			    const char *name, const char *subresource, const json_t *obj,
			    json_t **out, struct kube_error *err);

/*
 * PUT obj (borrowed) to its metadata.name. With metadata.resourceVersion set
 * the update is conditional: a stale version answers -EAGAIN (Conflict).
 */
int kube_update(struct kube_client *c, const struct kube_resource *r, const char *ns,
		const json_t *obj, json_t **out, struct kube_error *err);
/* PUT obj to the status subresource. */
int kube_update_status(struct kube_client *c, const struct kube_resource *r, const char *ns,
		       const json_t *obj, json_t **out, struct kube_error *err);

enum kube_patch_type {
	KUBE_PATCH_MERGE = 0, /* application/merge-patch+json (RFC 7386) */
	KUBE_PATCH_JSON,      /* application/json-patch+json (RFC 6902), not retried */
	KUBE_PATCH_STRATEGIC, /* application/strategic-merge-patch+json (built-in types) */
	KUBE_PATCH_APPLY,     /* server-side apply, application/apply-patch+yaml */
};

struct kube_patch_opts {
	enum kube_patch_type type;
	const char *field_manager; /* required for APPLY; optional otherwise */
	bool force;		   /* APPLY: take ownership of conflicting fields */
};

/* One query parameter; value NULL means the parameter is left out. */
struct kube_query {
	const char *key;
	const char *value;
};

/*
 * GET an answer that is not JSON, such as pods/<name>/log: the object
 * name's subresource (may be NULL) with query parameters q[0..nq) (values
 * NULL are left out), retried like every idempotent request. On success
 * *body is the answer (NUL-terminated, *len bytes; caller frees), an empty
 * answer an empty string. An answer over max_bytes is -EFBIG (0: 256 MiB).
 */
int kube_get_raw(struct kube_client *c, const struct kube_resource *r, const char *ns,
		 const char *name, const char *subresource, const struct kube_query *q, size_t nq,
		 size_t max_bytes, char **body, size_t *len, struct kube_error *err);

/*
 * Like kube_get_raw, for an answer that lasts (pods/<name>/log with
 * follow=true): the 2xx answer is passed to sink(arg, data, len) as it
 * arrives, with no total timeout, and nothing is kept. Returns 0 when the
 * server ended the answer; the sink's nonzero return, which stops the
 * transfer; the errors of kube_get_raw before any data arrived (retried as
 * usual); -EIO when the connection broke after data reached the sink (not
 * retried: the data would be passed twice).
 */
int kube_stream_raw(struct kube_client *c, const struct kube_resource *r, const char *ns,
		    const char *name, const char *subresource, const struct kube_query *q,
		    size_t nq, int (*sink)(void *arg, const char *data, size_t len), void *arg,
		    struct kube_error *err);

/* PATCH name with patch (borrowed). opts NULL means a merge patch. */
int kube_patch(struct kube_client *c, const struct kube_resource *r, const char *ns,
	       const char *name, const json_t *patch, const struct kube_patch_opts *opts,
	       json_t **out, struct kube_error *err);
/* PATCH the status subresource. */
int kube_patch_status(struct kube_client *c, const struct kube_resource *r, const char *ns,
		      const char *name, const json_t *patch, const struct kube_patch_opts *opts,
		      json_t **out, struct kube_error *err);

struct kube_delete_opts {
	const char *propagation_policy; /* "Foreground", "Background", "Orphan" or NULL */
	const char *precondition_uid;	/* delete only this incarnation, or NULL */
	const char *precondition_resource_version; /* or NULL */
	long grace_period_seconds;		   /* <0: not set (use KUBE_DELETE_OPTS_INIT) */
};
#define KUBE_DELETE_OPTS_INIT        \
	{                            \
		NULL, NULL, NULL, -1 \
	}

/*
 * DELETE name. *out receives the answer (the object being deleted, or a
 * Status). A failed precondition is -EAGAIN (Conflict). opts may be NULL.
 * Retried like other idempotent requests: a retry of a delete that did
 * happen answers -ENOENT.
 */
int kube_delete(struct kube_client *c, const struct kube_resource *r, const char *ns,
		const char *name, const struct kube_delete_opts *opts, json_t **out,
		struct kube_error *err);

/* ------------------------------------------------------------------- watch */

enum kube_event_type {
	KUBE_EVENT_ADDED = 0,
	KUBE_EVENT_MODIFIED,
	KUBE_EVENT_DELETED,
	KUBE_EVENT_BOOKMARK,
	KUBE_EVENT_ERROR,
};

/* "ADDED", ... ; NULL for an unknown value. */
const char *kube_event_type_name(enum kube_event_type t);

/*
 * Called for each event with the event's object (borrowed: json_incref it to
 * keep it). Bookmarks are passed too (their object carries only
 * metadata.resourceVersion). Return 0 to go on, anything else to end the
 * watch: kube_watch_run() then returns that value.
 */
typedef int (*kube_watch_cb)(enum kube_event_type type, json_t *object, void *arg);

struct kube_watch_opts {
	const char *label_selector;
	const char *field_selector;
	const char *resource_version; /* start after this version; NULL: now, with
					 synthetic ADDED events for what exists */
	bool bookmarks;		      /* allowWatchBookmarks */
	long idle_timeout_ms;	      /* restart when no event (incl. bookmark) came for
					 this long; 0: never */
	long server_timeout_s;	      /* timeoutSeconds per connection; 0: server's */
	int max_failures;	      /* consecutive failed reconnects before giving up
					 with -EIO/-errno; 0: default 10 */
};

struct kube_watch;

/*
 * Prepares a watch of resource r in ns (NULL for namespaced resources: all
 * namespaces). opts may be NULL. cb is called from kube_watch_run()'s thread.
 * Returns NULL on -ENOMEM. Free with kube_watch_free().
 */
struct kube_watch *kube_watch_new(struct kube_client *c, const struct kube_resource *r,
				  const char *ns, const struct kube_watch_opts *opts,
				  kube_watch_cb cb, void *arg);

/*
 * Streams events until the watch is stopped (returns 0), the callback returns
 * non-zero (returns that), the server answers 410 Gone or sends an ERROR
 * event with code 410 (-ESTALE: list again and watch from the new list's
 * resourceVersion), or a non-retryable error (-errno, err filled). A dropped
 * connection, a server-side timeout and an idle watch are resumed from the
 * last resourceVersion seen (no event lost or repeated), with backoff between
 * failing attempts. May be called again after it returns.
 */
int kube_watch_run(struct kube_watch *w, struct kube_error *err);

/*
 * Asks a running kube_watch_run() to return 0 soon (it wakes the transfer
 * at once). Safe from any thread and from the callback. A stop requested
 * before kube_watch_run() starts makes it return at once; kube_watch_run()
 * clears the request when it returns.
 */
void kube_watch_stop(struct kube_watch *w);

/*
 * The last resourceVersion seen (from an event or a bookmark) copied into buf
 * (always NUL-terminated). Returns buf.
 */
const char *kube_watch_resource_version(struct kube_watch *w, char *buf, size_t size);

/* How many times the watch connected (1 + resumes), for tests. */
unsigned long kube_watch_connects(struct kube_watch *w);
/* The bytes the watch's receive buffers hold allocated now (for tests). */
size_t kube_watch_buffer_bytes(struct kube_watch *w);

/* Frees w; it must not be running. */
void kube_watch_free(struct kube_watch *w);

/* ---------------------------------------------------------------- informer */

/*
 * An informer keeps an in-memory cache of the objects of one resource
 * (one namespace or all, optionally a label/field selector), filled by a
 * list and kept current by a watch from the list's resourceVersion; on 410
 * Gone it lists again and reconciles the cache (synthesising add, update and
 * delete events). It runs in a thread of its own.
 *
 * Cached objects are shared, read-only jansson values: never modify an
 * object you get from the informer (json_deep_copy it first).
 */
struct kube_informer;

enum kube_informer_event {
	KUBE_INFORMER_ADD = 0,
	KUBE_INFORMER_UPDATE,
	KUBE_INFORMER_DELETE,
};

/*
 * Called from the informer thread after the cache was changed, without any
 * informer lock held (the callback may call kube_informer_get/list). obj is
 * the new object (for DELETE: the last known state), old the previous one for
 * UPDATE (NULL otherwise); both borrowed.
 */
typedef void (*kube_informer_cb)(enum kube_informer_event ev, const json_t *obj, const json_t *old,
				 void *arg);

/*
 * A transform (as client-go's TransformFunc), called on the informer thread
 * for every object from a list or a watch event before it is cached or
 * handed to the callback (after strip_managed_fields and after the list's
 * kind/apiVersion were added). *obj is an owned reference the transform may
 * change in place, or replace (json_decref the old one, store a new
 * reference: a smaller copy of the fields you read). Returns 0 to cache it,
 * 1 to leave it out of the cache (as if the selector had not matched: no
 * ADD; a cached object with the same key is removed with a DELETE event),
 * or -errno: the informer then warns and caches the object as it came, so
 * nothing is lost. For a DELETED event the result only shapes the object the
 * callback sees.
 */
typedef int (*kube_informer_transform_fn)(json_t **obj, void *arg);

struct kube_informer_opts {
	const struct kube_resource *resource; /* required, borrowed for the
						 informer's lifetime */
	const char *ns;			      /* NULL: all namespaces */
	const char *label_selector;
	const char *field_selector;
	long page_size;		   /* list limit; 0: 500 */
	long idle_timeout_ms;	   /* watch idle restart; 0: 5 minutes */
	bool strip_managed_fields; /* drop metadata.managedFields before caching */
	/* keep each object as its compact JSON text (a parsed jansson tree is
	 * about 12 times larger): get and list then parse a fresh copy on each
	 * call (still a new reference, the caller's; never shared), callbacks
	 * get the parsed object as before. For large caches read rarely. */
	bool compact;
	/* with compact: the text is stored deflated (zlib, raw, a 4 KiB
	 * window) against this preset dictionary (borrowed for the informer's
	 * lifetime: text like the objects, e.g. a typical one with its field
	 * names and common values); NULL: kept as plain text */
	const char *compact_dict;
	kube_informer_transform_fn transform; /* may be NULL */
	void *transform_arg;
	/* a label key (e.g. the owner's name label): the cache also keeps an
	 * index of the objects by this label's value (after the transform), so
	 * kube_informer_list_by reads only the objects with one value (with
	 * compact: parses only those); NULL: no index */
	const char *index_label;
	kube_informer_cb cb; /* may be NULL */
	void *arg;
};

/* Returns NULL with err filled on failure. opts is copied. */
struct kube_informer *kube_informer_new(struct kube_client *c,
					const struct kube_informer_opts *opts,
					struct kube_error *err);
/* Starts the informer thread. -EALREADY when started. */
int kube_informer_start(struct kube_informer *inf);
/* Stops the thread and waits for it; the cache stays readable. */
void kube_informer_stop(struct kube_informer *inf);
/* True once the first list has been put into the cache. */
bool kube_informer_has_synced(struct kube_informer *inf);
/* Waits for has_synced up to timeout_ms. 0 or -ETIMEDOUT. */
int kube_informer_wait_synced(struct kube_informer *inf, long timeout_ms);
/*
 * The cached object ns/name (ns "" or NULL for cluster-scoped), a new
 * reference the caller must json_decref(), or NULL when not cached.
 */
json_t *kube_informer_get(struct kube_informer *inf, const char *ns, const char *name);
/* A new array (caller decrefs) of references to every cached object. */
json_t *kube_informer_list(struct kube_informer *inf);
/* A new array (caller decrefs) of the cached objects whose index_label has
 * this value (an empty array when none); NULL with errno EINVAL when the
 * informer has no index_label or value is NULL, ENOMEM. */
json_t *kube_informer_list_by(struct kube_informer *inf, const char *value);
/*
 * Calls fn for each cached object (borrowed for the call), outside the
 * informer's lock; with compact, one object is parsed at a time (list would
 * parse them all at once). Stops at fn's first nonzero return and returns
 * it; 0, or -ENOMEM.
 */
int kube_informer_foreach(struct kube_informer *inf, int (*fn)(const json_t *obj, void *arg),
			  void *arg);
/* Number of cached objects. */
size_t kube_informer_count(struct kube_informer *inf);
/* With compact: the bytes of text (deflated with compact_dict) the cached
 * objects take, without the allocator's and the table's overhead; 0
 * otherwise. */
size_t kube_informer_bytes(struct kube_informer *inf);
/* How many times the informer listed (1 + relists), for tests. */
unsigned long kube_informer_lists(struct kube_informer *inf);
/* Objects the transform left out of the cache so far (returned 1). */
unsigned long kube_informer_dropped(struct kube_informer *inf);
/* The informer's resource (borrowed) and namespace (NULL: all), for metrics. */
const struct kube_resource *kube_informer_resource(const struct kube_informer *inf);
const char *kube_informer_ns(const struct kube_informer *inf);
/* Stops it if running, then frees it with its cache. */
void kube_informer_free(struct kube_informer *inf);

/* ------------------------------------------------------- leader election */

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
