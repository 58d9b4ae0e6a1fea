/* SPDX-License-Identifier: MIT */
/*
 * lib/kube request, retry and watch logic against a local scripted HTTP
 * server (libmicrohttpd on 127.0.0.1, plain HTTP), so they are tested without
 * a cluster: retries of 500 and 429 (Retry-After timing), no retry of a
 * non-idempotent create, 401 with a rotated token file, connection reuse,
 * pagination, watch lines spanning chunks with a dropped connection resumed
 * from the last resourceVersion, 410 both ways, idle restart, stop from
 * another thread. The real-cluster versions live in tests/kube/.
 */
#include "tests/unit/harness.h"
#include "tests/unit/fakeclock.h"
#include "kube/internal.h"
#include "core/log.h"

#include <errno.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

static struct MHD_Daemon *daemon_;
static char server_url[64];
static atomic_int hits[16];
static atomic_bool quitting;
static char valid_token[64] = "token-1";
static pthread_mutex_t tok_lock = PTHREAD_MUTEX_INITIALIZER;
static char last_watch_query[256];
static atomic_int watch_conns;

enum { H_FLAKY, H_THROTTLED, H_POST_NAMED, H_POST_GEN, H_AUTH, H_LIST, H_PLAIN, H_PATCH, H_LOG };

static const char *status_json(int code, const char *reason)
{
	static _Thread_local char buf[256];
	snprintf(buf, sizeof(buf),
		 "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
		 "\"message\":\"scripted %d\",\"reason\":\"%s\",\"code\":%d}",
		 code, reason, code);
	return buf;
}

static enum MHD_Result reply(struct MHD_Connection *c, int code, const char *body,
			     const char *retry_after)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
	MHD_add_response_header(r, "Content-Type", "application/json");
	if (retry_after)
		MHD_add_response_header(r, "Retry-After", retry_after);
	enum MHD_Result ret = MHD_queue_response(c, (unsigned)code, r);
	MHD_destroy_response(r);
	return ret;
}

/* A 200 answer of unknown length produced by reader(state) (state freed
 * with free() when the answer is done). */
static enum MHD_Result reply_stream(struct MHD_Connection *c, MHD_ContentReaderCallback reader,
				    void *state, const char *content_type)
{
	struct MHD_Response *r =
		MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, reader, state, free);
	if (!r) {
		free(state);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", content_type);
	enum MHD_Result ret = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	return ret;
}

/* ------------------------------------------------------------ watch stream */

struct stream {
	int conn;  /* which connection this is (1-based) */
	int piece; /* next piece */
	int mode;  /* 0: drop-then-resume script, 1: ERROR 410 event, 2: ticks, 3: burst */
	long start_rv;
	size_t sent; /* mode 3: bytes of the large event sent */
};

/* Mode 2 (from rv >= 1000): an event every 20 ms, rv counting up from the
 * one asked for, until the client goes away or the test ends (at most 20 s). */
static ssize_t tick_read(struct stream *s, char *buf, size_t max)
{
	if (s->piece >= 1000 || atomic_load(&quitting))
		return MHD_CONTENT_READER_END_OF_STREAM;
	if (s->piece)
		usleep(20000);
	s->piece++;
	int n = snprintf(buf, max,
			 "{\"type\":\"ADDED\",\"object\":{\"kind\":\"ConfigMap\",\"metadata\":"
			 "{\"name\":\"tick\",\"namespace\":\"t\",\"resourceVersion\":\"%ld\"}}}\n",
			 s->start_rv + s->piece);
	return n > 0 && (size_t)n < max ? (ssize_t)n : MHD_CONTENT_READER_END_WITH_ERROR;
}

#define EV(rv)                                                                           \
	"{\"type\":\"ADDED\",\"object\":{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":" \
	"\"cm" #rv "\",\"namespace\":\"t\",\"resourceVersion\":\"" #rv "\"}}}\n"

/* Connection 1 (from rv 10): 11, 12, 13 cut at odd places, then dropped.
 * Connection 2 (from rv 13): 14, 15 in one chunk, a bookmark, 16, then idle. */
static const char *const conn1[] = {EV(11) "{\"type\":\"ADD",
				    "ED\",\"object\":{\"kind\":"
				    "\"ConfigMap\",\"metadata\":{\"name\":\"cm12\",\"namespace\":"
				    "\"t\",\"resourceVersion\":\"12\"}}}",
				    "\n" EV(13) "{\"type\":\"ADDED\",\"obj", NULL};
static const char *const conn2[] = {
	EV(14) EV(15),
	"{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"ConfigMap\",\"metadata\":"
	"{\"resourceVersion\":\"15\"}}}\n",
	EV(16), NULL};

/* Mode 3 (rv "burst"): a small event, one event of BURST_BYTES, then, once
 * the client's callback saw that (burst_seen), one small event, then idle. */
#define BURST_BYTES (200 * 1024)
static atomic_bool burst_seen;

static ssize_t burst_read(struct stream *s, char *buf, size_t max)
{
	static const char head[] = "{\"type\":\"ADDED\",\"object\":{\"kind\":\"ConfigMap\","
				   "\"metadata\":{\"name\":\"big\",\"namespace\":\"t\","
				   "\"resourceVersion\":\"2\"},\"data\":{\"x\":\"";
	static const char tail[] = "\"}}}\n";
	size_t n = 0;
	if (s->piece == 0) {
		s->piece++;
		n = (size_t)snprintf(buf, max, "%s", EV(1));
		return n < max ? (ssize_t)n : MHD_CONTENT_READER_END_WITH_ERROR;
	}
	while (s->sent < BURST_BYTES && n < max) {
		size_t hl = sizeof(head) - 1, tl = sizeof(tail) - 1, at = s->sent;
		buf[n++] = at < hl		    ? head[at]
			   : at >= BURST_BYTES - tl ? tail[at - (BURST_BYTES - tl)]
						    : 'x';
		s->sent++;
	}
	if (n)
		return (ssize_t)n;
	if (s->piece++ == 1) {
		for (int i = 0; i < 1000 && !atomic_load(&burst_seen) && !atomic_load(&quitting);
		     i++)
			usleep(10000);
		n = (size_t)snprintf(buf, max, "%s", EV(3));
		return n < max ? (ssize_t)n : MHD_CONTENT_READER_END_WITH_ERROR;
	}
	for (int i = 0; i < 1000 && !atomic_load(&quitting); i++)
		usleep(10000);
	return MHD_CONTENT_READER_END_OF_STREAM;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct stream *s = cls;
	(void)pos;
	if (s->mode == 2)
		return tick_read(s, buf, max);
	if (s->mode == 3)
		return burst_read(s, buf, max);
	const char *const *script = s->mode == 1 ? NULL : s->start_rv < 13 ? conn1 : conn2;
	if (s->mode == 1) {
		if (s->piece++ == 0) {
			const char *e = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\","
					"\"status\":\"Failure\",\"message\":\"too old resource "
					"version\",\"reason\":\"Expired\",\"code\":410}}\n";
			size_t n = strlen(e) < max ? strlen(e) : max;
			memcpy(buf, e, n);
			return (ssize_t)n;
		}
		return MHD_CONTENT_READER_END_OF_STREAM;
	}
	if (script[s->piece]) {
		usleep(20000); /* separate chunks */
		const char *p = script[s->piece++];
		size_t n = strlen(p) < max ? strlen(p) : max;
		memcpy(buf, p, n);
		return (ssize_t)n;
	}
	if (script == conn1)
		return MHD_CONTENT_READER_END_WITH_ERROR; /* drop mid-line */
	/* Idle until the client goes away or the test ends (at most 3 s). */
	for (int i = 0; i < 150 && !atomic_load(&quitting); i++)
		usleep(20000);
	return MHD_CONTENT_READER_END_OF_STREAM;
}

static enum MHD_Result watch(struct MHD_Connection *c)
{
	const char *rv = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "resourceVersion");
	const char *bm =
		MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "allowWatchBookmarks");
	snprintf(last_watch_query, sizeof(last_watch_query), "rv=%s bookmarks=%s", rv ? rv : "",
		 bm ? bm : "");
	if (rv && strcmp(rv, "gone") == 0)
		return reply(c, 410, status_json(410, "Expired"), NULL);
	struct stream *s = calloc(1, sizeof(*s));
	if (!s)
		return MHD_NO;
	s->conn = atomic_fetch_add(&watch_conns, 1) + 1;
	s->mode = rv && strcmp(rv, "gone-event") == 0 ? 1 : 0;
	s->start_rv = rv ? strtol(rv, NULL, 10) : 0;
	if (s->start_rv >= 1000)
		s->mode = 2;
	if (rv && strcmp(rv, "burst") == 0)
		s->mode = 3;
	return reply_stream(c, stream_read, s, "application/json");
}

/* ------------------------------------------------------- pod log (follow) */

/* "Runner started" ... in three pieces 150 ms apart (one line split across
 * two), then the end of the answer; "broken" drops the connection after the
 * first piece. */
static const char *const log_pieces[] = {"line 1\n", "line 2 sp", "lit\nline 3\n", NULL};

struct logstream {
	int piece;
	bool broken;
};

static ssize_t log_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct logstream *s = cls;
	(void)pos;
	if (s->piece > 0)
		usleep(150000);
	if (s->broken && s->piece == 1)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	const char *p = log_pieces[s->piece];
	if (!p)
		return MHD_CONTENT_READER_END_OF_STREAM;
	s->piece++;
	size_t n = strlen(p) < max ? strlen(p) : max;
	memcpy(buf, p, n);
	return (ssize_t)n;
}

static enum MHD_Result pod_log(struct MHD_Connection *c, const char *pod)
{
	const char *f = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "follow");
	if (!f || strcmp(f, "true") != 0)
		return reply(c, 400, status_json(400, "BadRequest"), NULL);
	/* the first try of "p1" meets a 503: retried, nothing streamed yet */
	if (atomic_fetch_add(&hits[H_LOG], 1) == 0 && strcmp(pod, "p1") == 0)
		return reply(c, 503, status_json(503, "ServiceUnavailable"), NULL);
	struct logstream *s = calloc(1, sizeof(*s));
	if (!s)
		return MHD_NO;
	s->broken = strcmp(pod, "broken") == 0;
	return reply_stream(c, log_read, s, "text/plain");
}

/* ------------------------------------------------------------------ router */

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
			       const char *method, const char *version, const char *upload,
			       size_t *upload_size, void **con_cls)
{
	(void)cls;
	(void)version;
	(void)upload;
	if (!*con_cls) {
		*con_cls = (void *)1;
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0; /* bodies are not looked at */
		return MHD_YES;
	}
	const char *w = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "watch");
	if (w && strcmp(url, "/api/v1/namespaces/t/configmaps") == 0)
		return watch(c);
	static const char log_prefix[] = "/api/v1/namespaces/t/pods/";
	if (strncmp(url, log_prefix, sizeof(log_prefix) - 1) == 0 && strlen(url) > 4 &&
	    strcmp(url + strlen(url) - 4, "/log") == 0) {
		char pod[64];
		snprintf(pod, sizeof(pod), "%.*s", (int)(strlen(url) - sizeof(log_prefix) + 1 - 4),
			 url + sizeof(log_prefix) - 1);
		if (strcmp(pod, "p1") == 0 || strcmp(pod, "broken") == 0)
			return pod_log(c, pod);
	}
	if (strcmp(url, "/api/v1/namespaces/t/configmaps/flaky") == 0) {
		if (atomic_fetch_add(&hits[H_FLAKY], 1) < 2)
			return reply(c, 500, status_json(500, "InternalError"), NULL);
		return reply(c, 200, "{\"metadata\":{\"name\":\"flaky\"}}", NULL);
	}
	if (strcmp(url, "/api/v1/namespaces/t/configmaps/throttled") == 0) {
		if (atomic_fetch_add(&hits[H_THROTTLED], 1) < 1)
			return reply(c, 429, status_json(429, "TooManyRequests"), "1");
		return reply(c, 200, "{\"metadata\":{\"name\":\"throttled\"}}", NULL);
	}
	if (strcmp(url, "/api/v1/namespaces/t/configmaps/always500") == 0) {
		atomic_fetch_add(&hits[H_PLAIN], 1);
		return reply(c, 503, status_json(503, "ServiceUnavailable"), NULL);
	}
	if (strcmp(method, "PATCH") == 0) {
		atomic_fetch_add(&hits[H_PATCH], 1);
		return reply(c, 500, status_json(500, "InternalError"), NULL);
	}
	if (strcmp(method, "POST") == 0 &&
	    strcmp(url, "/api/v1/namespaces/named/configmaps") == 0) {
		if (atomic_fetch_add(&hits[H_POST_NAMED], 1) < 1)
			return reply(c, 500, status_json(500, "InternalError"), NULL);
		return reply(c, 409, status_json(409, "AlreadyExists"), NULL);
	}
	if (strcmp(method, "POST") == 0 && strcmp(url, "/api/v1/namespaces/gen/configmaps") == 0) {
		atomic_fetch_add(&hits[H_POST_GEN], 1);
		return reply(c, 500, status_json(500, "InternalError"), NULL);
	}
	if (strcmp(url, "/api/v1/namespaces/t/configmaps/auth") == 0) {
		atomic_fetch_add(&hits[H_AUTH], 1);
		const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
		char want[96];
		pthread_mutex_lock(&tok_lock);
		snprintf(want, sizeof(want), "Bearer %s", valid_token);
		pthread_mutex_unlock(&tok_lock);
		if (!a || strcmp(a, want) != 0)
			return reply(c, 401, status_json(401, "Unauthorized"), NULL);
		return reply(c, 200, "{\"metadata\":{\"name\":\"auth\"}}", NULL);
	}
	if (strcmp(url, "/api/v1/namespaces/t/configmaps") == 0) {
		atomic_fetch_add(&hits[H_LIST], 1);
		const char *cont =
			MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "continue");
		const char *limit = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit");
		if (!limit || strcmp(limit, "2") != 0)
			return reply(c, 400, status_json(400, "BadRequest"), NULL);
		if (!cont)
			return reply(
				c, 200,
				"{\"kind\":\"ConfigMapList\",\"metadata\":{\"resourceVersion\":"
				"\"77\",\"continue\":\"p2\",\"remainingItemCount\":1},\"items\":"
				"[{\"metadata\":{\"name\":\"a\"}},{\"metadata\":{\"name\":\"b\"}}]"
				"}",
				NULL);
		if (strcmp(cont, "p2") == 0)
			return reply(
				c, 200,
				"{\"kind\":\"ConfigMapList\",\"metadata\":{\"resourceVersion\":"
				"\"77\"},\"items\":[{\"metadata\":{\"name\":\"c\"}}]}",
				NULL);
		return reply(c, 410, status_json(410, "Expired"), NULL);
	}
	if (strcmp(url, "/api/v1/namespaces/t/configmaps/plain") == 0) {
		atomic_fetch_add(&hits[H_PLAIN], 1);
		return reply(c, 200, "{\"metadata\":{\"name\":\"plain\"}}", NULL);
	}
	return reply(c, 404, status_json(404, "NotFound"), NULL);
}

static int start_server(void)
{
	if (daemon_)
		return 0;
	daemon_ = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD,
				   0, NULL, NULL, handler, NULL, MHD_OPTION_CONNECTION_TIMEOUT,
				   (unsigned)10, MHD_OPTION_END);
	if (!daemon_)
		return -1;
	const union MHD_DaemonInfo *i = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT);
	snprintf(server_url, sizeof(server_url), "http://127.0.0.1:%u", (unsigned)i->port);
	return 0;
}

static struct kube_client *client(const char *token_file)
{
	struct kube_config cfg = KUBE_CONFIG_INIT;
	/* token_recheck_ms: a rotation is noticed through the 401 path only. */
	struct kube_client_opts o = {
		.backoff_base_ms = 20, .backoff_cap_ms = 100, .token_recheck_ms = 60000};
	if (start_server())
		return NULL;
	cfg.server = server_url;
	cfg.namespace = (char *)"t";
	cfg.token_file = (char *)token_file;
	return kube_client_new(&cfg, &o, NULL);
}

/* ------------------------------------------------------------------- tests */

/* The backoff waits are those of the rules, on a fake clock (no real sleep). */
static struct fakeclock fc;

static int test_retry_500_then_ok(void)
{
	struct kube_client *c = client(NULL);
	struct kube_client_stats st;
	json_t *o = NULL;
	CHECK(c);
	sb_log_set_level(SB_LOG_ERROR);
	fc_install(&fc, true);
	int r = kube_get(c, &kube_res_configmaps, NULL, "flaky", &o, NULL);
	fc_uninstall(&fc);
	sb_log_set_level(SB_LOG_INFO);
	CHECK_INT(r, 0);
	/* two backoffs, base 20 ms doubling: each in the upper half of 20, 40 */
	CHECK_INT(fc.nwaits, 2);
	CHECK(fc.waits[0] >= 10 && fc.waits[0] <= 20);
	CHECK(fc.waits[1] >= 20 && fc.waits[1] <= 40);
	CHECK_STR(json_string_value(json_object_get(json_object_get(o, "metadata"), "name")),
		  "flaky");
	json_decref(o);
	CHECK_INT(hits[H_FLAKY], 3);
	kube_client_stats(c, &st);
	CHECK_INT(st.retries, 2);
	/* Always failing: -EAGAIN after 1 + max_retries tries, err filled. */
	struct kube_error err;
	sb_log_set_level(SB_LOG_ERROR);
	fc_install(&fc, true);
	r = kube_get(c, &kube_res_configmaps, NULL, "always500", NULL, &err);
	fc_uninstall(&fc);
	sb_log_set_level(SB_LOG_INFO);
	CHECK_INT(r, -EAGAIN);
	CHECK_INT(hits[H_PLAIN], 5);
	/* 4 retries: 20, 40, 80, then the 100 ms cap (upper halves) */
	CHECK_INT(fc.nwaits, 4);
	CHECK(fc.waits[2] >= 40 && fc.waits[2] <= 80);
	CHECK(fc.waits[3] >= 50 && fc.waits[3] <= 100);
	CHECK_INT(err.http_code, 503);
	CHECK_STR(err.reason, "ServiceUnavailable");
	kube_client_free(c);
	return T_PASS;
}

struct sink_rec {
	char text[256];
	size_t len;
	int calls;
	int64_t first_ms, last_ms;
	int stop_after; /* return -EPIPE on this call (0: never) */
};

static int sink(void *arg, const char *data, size_t len)
{
	struct sink_rec *r = arg;
	int64_t now = kube_now_ms();
	if (!r->calls++)
		r->first_ms = now;
	r->last_ms = now;
	if (r->len + len < sizeof(r->text)) {
		memcpy(r->text + r->len, data, len);
		r->len += len;
		r->text[r->len] = '\0';
	}
	return r->stop_after && r->calls >= r->stop_after ? -EPIPE : 0;
}

static int test_stream_pod_log(void)
{
	struct kube_config cfg = KUBE_CONFIG_INIT;
	/* a total request timeout far shorter than the stream: not applied */
	struct kube_client_opts o = {
		.backoff_base_ms = 20, .backoff_cap_ms = 100, .request_timeout_ms = 200};
	CHECK_INT(start_server(), 0);
	cfg.server = server_url;
	cfg.namespace = (char *)"t";
	struct kube_client *c = kube_client_new(&cfg, &o, NULL);
	CHECK(c);
	struct kube_query q[] = {{"follow", "true"}};
	struct kube_error err;
	struct sink_rec rec = {0};

	/* a 503 first (retried), then the answer as it arrives */
	sb_log_set_level(SB_LOG_ERROR);
	int r = kube_stream_raw(c, &kube_res_pods, NULL, "p1", "log", q, 1, sink, &rec, &err);
	sb_log_set_level(SB_LOG_INFO);
	CHECK_INT(r, 0);
	CHECK_STR(rec.text, "line 1\nline 2 split\nline 3\n");
	CHECK_INT(hits[H_LOG], 2);
	CHECK(rec.calls >= 3);			  /* piece by piece... */
	CHECK(rec.last_ms - rec.first_ms >= 250); /* ...as they were sent, 150 ms apart */

	/* the sink stops it: its return comes back */
	memset(&rec, 0, sizeof(rec));
	rec.stop_after = 1;
	r = kube_stream_raw(c, &kube_res_pods, NULL, "p1", "log", q, 1, sink, &rec, &err);
	CHECK_INT(r, -EPIPE);
	CHECK_STR(rec.text, "line 1\n");

	/* broken after data: -EIO, not retried (the data would come twice) */
	memset(&rec, 0, sizeof(rec));
	int before = hits[H_LOG];
	sb_log_set_level(SB_LOG_ERROR);
	r = kube_stream_raw(c, &kube_res_pods, NULL, "broken", "log", q, 1, sink, &rec, &err);
	sb_log_set_level(SB_LOG_INFO);
	CHECK_INT(r, -EIO);
	CHECK(strstr(err.message, "the stream broke after 7 bytes") != NULL);
	CHECK_STR(rec.text, "line 1\n");
	CHECK_INT(hits[H_LOG] - before, 1);

	/* an error answer is not streamed: it is the error */
	memset(&rec, 0, sizeof(rec));
	r = kube_stream_raw(c, &kube_res_pods, NULL, "nope", "log", q, 1, sink, &rec, &err);
	CHECK_INT(r, -ENOENT);
	CHECK_INT(rec.calls, 0);
	kube_client_free(c);
	return T_PASS;
}

static int test_retry_after_429(void)
{
	struct kube_client *c = client(NULL);
	CHECK(c);
	sb_log_set_level(SB_LOG_ERROR);
	fc_install(&fc, true);
	int r = kube_get(c, &kube_res_configmaps, NULL, "throttled", NULL, NULL);
	fc_uninstall(&fc);
	sb_log_set_level(SB_LOG_INFO);
	CHECK_INT(r, 0);
	CHECK_INT(hits[H_THROTTLED], 2);
	/* one wait of exactly Retry-After: 1, not the 20 ms backoff */
	CHECK_INT(fc.nwaits, 1);
	CHECK_INT(fc.waits[0], 1000);
	kube_client_free(c);
	return T_PASS;
}

static int test_create_retry_rules(void)
{
	struct kube_client *c = client(NULL);
	struct kube_error err;
	CHECK(c);
	json_t *named = json_pack("{s:{s:s}}", "metadata", "name", "fixed");
	json_t *gen = json_pack("{s:{s:s}}", "metadata", "generateName", "x-");
	sb_log_set_level(SB_LOG_ERROR);
	/* A fixed name: retried, and the repeat answers AlreadyExists. */
	int r1 = kube_create(c, &kube_res_configmaps, "named", named, NULL, &err);
	/* generateName: a 500 is not retried (it might have been created). */
	int r2 = kube_create(c, &kube_res_configmaps, "gen", gen, NULL, NULL);
	/* A JSON patch is not idempotent: not retried either. */
	json_t *ops = json_pack("[{s:s,s:s,s:s}]", "op", "add", "path", "/x", "value", "y");
	struct kube_patch_opts po = {.type = KUBE_PATCH_JSON};
	int r3 = kube_patch(c, &kube_res_configmaps, NULL, "p", ops, &po, NULL, NULL);
	sb_log_set_level(SB_LOG_INFO);
	json_decref(named);
	json_decref(gen);
	json_decref(ops);
	CHECK_INT(r1, -EEXIST);
	CHECK_STR(err.reason, "AlreadyExists");
	CHECK_INT(hits[H_POST_NAMED], 2);
	CHECK_INT(r2, -EAGAIN);
	CHECK_INT(hits[H_POST_GEN], 1);
	CHECK_INT(r3, -EAGAIN);
	CHECK_INT(hits[H_PATCH], 1);
	kube_client_free(c);
	return T_PASS;
}

static int test_401_rereads_token(void)
{
	char path[] = "/tmp/kubetokenXXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	CHECK(write(fd, "token-1\n", 8) == 8);
	close(fd);
	struct kube_client *c = client(path);
	struct kube_client_stats st;
	CHECK(c);
	CHECK_INT(kube_get(c, &kube_res_configmaps, NULL, "auth", NULL, NULL), 0);
	/* The server rotates and the file is rewritten; the client does not
	 * stat it again for a minute, so only the 401 path can notice. */
	pthread_mutex_lock(&tok_lock);
	snprintf(valid_token, sizeof(valid_token), "token-2");
	pthread_mutex_unlock(&tok_lock);
	FILE *f = fopen(path, "r+");
	CHECK(f);
	fputs("token-2\n", f);
	fclose(f);
	int before = hits[H_AUTH];
	sb_log_set_level(SB_LOG_WARN);
	int r = kube_get(c, &kube_res_configmaps, NULL, "auth", NULL, NULL);
	sb_log_set_level(SB_LOG_INFO);
	CHECK_INT(r, 0);
	CHECK_INT(hits[H_AUTH] - before, 2); /* 401, then the fresh token */
	kube_client_stats(c, &st);
	CHECK_INT(st.reauths, 1);
	/* A token the server rejects for good: one retry, then -EPERM. */
	pthread_mutex_lock(&tok_lock);
	snprintf(valid_token, sizeof(valid_token), "token-3");
	pthread_mutex_unlock(&tok_lock);
	before = hits[H_AUTH];
	struct kube_error err;
	sb_log_set_level(SB_LOG_WARN);
	r = kube_get(c, &kube_res_configmaps, NULL, "auth", NULL, &err);
	sb_log_set_level(SB_LOG_INFO);
	CHECK_INT(r, -EPERM);
	CHECK_INT(err.http_code, 401);
	CHECK_INT(hits[H_AUTH] - before, 2);
	kube_client_stats(c, &st);
	CHECK_INT(st.reauths, 2);
	kube_client_free(c);
	unlink(path);
	return T_PASS;
}

/* ------------------------------------------------- exec credential plugin */

static char exec_dir[64];

static int exec_put(const char *name, const char *text)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", exec_dir, name);
	if (!text)
		return unlink(path) && errno != ENOENT ? -1 : 0;
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* Lines in exec_dir/name (the plugin appends one per run), -1 if unreadable. */
static int exec_lines(const char *name)
{
	char path[128], line[4096];
	int n = 0;
	snprintf(path, sizeof(path), "%s/%s", exec_dir, name);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n;
}

static bool exec_file_has(const char *name, const char *needle)
{
	char path[128], buf[4096] = "";
	snprintf(path, sizeof(path), "%s/%s", exec_dir, name);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return strstr(buf, needle) != NULL;
}

/* A plugin in sh: the token from ./tok, the kind from ./kind, an expiry
 * from ./exp, exit 3 when ./fail exists; it records each run, its
 * KUBERNETES_EXEC_INFO, an env variable and its first argument. */
static const char plugin_sh[] =
	"#!/bin/sh\n"
	"d=$(dirname \"$0\")\n"
	"echo run >> \"$d/runs\"\n"
	"printf '%s\\n' \"$KUBERNETES_EXEC_INFO\" > \"$d/info\"\n"
	"printf '%s %s\\n' \"$SB_EXEC_VAR\" \"$1\" > \"$d/envargs\"\n"
	"[ -f \"$d/fail\" ] && { echo 'plugin: no credentials' >&2; exit 3; }\n"
	"exp=''; [ -f \"$d/exp\" ] && exp=\",\\\"expirationTimestamp\\\":\\\"$(cat "
	"\"$d/exp\")\\\"\"\n"
	"kind=ExecCredential; [ -f \"$d/kind\" ] && kind=$(cat \"$d/kind\")\n"
	"printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"%s\",'\\\n"
	"'\"status\":{\"token\":\"%s\"%s}}\\n' \"$kind\" \"$(cat \"$d/tok\")\" \"$exp\"\n";

static int test_exec_credential_plugin(void)
{
	char plugin[128], a0[] = "--region=eu", e0[] = "SB_EXEC_VAR=from-kubeconfig";
	char *args[] = {a0}, *env[] = {e0};
	struct kube_exec_config x = {.args = args,
				     .nargs = 1,
				     .env = env,
				     .nenv = 1,
				     .api_version = (char *)"client.authentication.k8s.io/v1",
				     .install_hint = (char *)"install it with: apt install it",
				     .provide_cluster_info = true};
	struct kube_config cfg = KUBE_CONFIG_INIT;
	struct kube_client_opts o = {.backoff_base_ms = 20, .backoff_cap_ms = 100};
	struct kube_error err;
	struct kube_client_stats st;

	snprintf(exec_dir, sizeof(exec_dir), "/tmp/kubeexecXXXXXX");
	CHECK(mkdtemp(exec_dir) != NULL);
	snprintf(plugin, sizeof(plugin), "%s/plugin", exec_dir);
	CHECK_INT(exec_put("plugin", plugin_sh), 0);
	CHECK_INT(chmod(plugin, 0755), 0);
	CHECK_INT(exec_put("tok", "exec-1"), 0);
	pthread_mutex_lock(&tok_lock);
	snprintf(valid_token, sizeof(valid_token), "exec-1");
	pthread_mutex_unlock(&tok_lock);
	CHECK_INT(start_server(), 0);
	x.command = plugin;
	cfg.server = server_url;
	cfg.namespace = (char *)"t";
	cfg.exec = &x;
	struct kube_client *c = kube_client_new(&cfg, &o, &err);
	CHECK(c);

	/* the first request runs the plugin; the next ones reuse its token */
	CHECK_INT(kube_get(c, &kube_res_configmaps, NULL, "auth", NULL, &err), 0);
	CHECK_INT(kube_get(c, &kube_res_configmaps, NULL, "auth", NULL, &err), 0);
	CHECK_INT(exec_lines("runs"), 1);
	CHECK(exec_file_has("envargs", "from-kubeconfig --region=eu"));
	CHECK(exec_file_has("info", "\"kind\":\"ExecCredential\""));
	CHECK(exec_file_has("info", "\"interactive\":false"));
	CHECK(exec_file_has("info", server_url));

	/* a 401: the plugin runs again, the request is tried once more */
	pthread_mutex_lock(&tok_lock);
	snprintf(valid_token, sizeof(valid_token), "exec-2");
	pthread_mutex_unlock(&tok_lock);
	CHECK_INT(exec_put("tok", "exec-2"), 0);
	sb_log_set_level(SB_LOG_WARN);
	int r = kube_get(c, &kube_res_configmaps, NULL, "auth", NULL, &err);
	sb_log_set_level(SB_LOG_INFO);
	CHECK_INT(r, 0);
	CHECK_INT(exec_lines("runs"), 2);
	kube_client_stats(c, &st);
	CHECK_INT(st.reauths, 1);

	/* a token about to expire is not used again: the plugin runs each time */
	char soon[40];
	time_t t = time(NULL) + 5;
	struct tm tm;
	strftime(soon, sizeof(soon), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	CHECK_INT(exec_put("exp", soon), 0);
	kube_client_free(c); /* a new client: nothing cached */
	c = kube_client_new(&cfg, &o, &err);
	CHECK(c);
	CHECK_INT(kube_get(c, &kube_res_configmaps, NULL, "auth", NULL, &err), 0); /* 3 */
	CHECK_INT(kube_get(c, &kube_res_configmaps, NULL, "auth", NULL, &err), 0); /* 4 */
	CHECK_INT(exec_lines("runs"), 4);
	CHECK_INT(exec_put("exp", "2099-01-01T00:00:00.5+01:00"), 0);
	CHECK_INT(kube_get(c, &kube_res_configmaps, NULL, "auth", NULL, &err), 0); /* 5 */
	CHECK_INT(kube_get(c, &kube_res_configmaps, NULL, "auth", NULL, &err), 0);
	CHECK_INT(exec_lines("runs"), 5);

	/* failures say what happened, and nothing is sent */
	pthread_mutex_lock(&tok_lock);
	snprintf(valid_token, sizeof(valid_token), "exec-3");
	pthread_mutex_unlock(&tok_lock);
	CHECK_INT(exec_put("fail", "1"), 0);
	int before = hits[H_AUTH];
	sb_log_set_level(SB_LOG_ERROR);
	r = kube_get(c, &kube_res_configmaps, NULL, "auth", NULL, &err);
	CHECK_INT(r, -EPROTO);
	CHECK(strstr(err.message, "exited with status 3") != NULL);
	CHECK_INT(exec_put("fail", NULL), 0);
	CHECK_INT(exec_put("kind", "Secret"), 0);
	r = kube_get(c, &kube_res_configmaps, NULL, "auth", NULL, &err);
	sb_log_set_level(SB_LOG_INFO);
	CHECK_INT(r, -EINVAL);
	CHECK(strstr(err.message, "kind: 'Secret' is not ExecCredential") != NULL);
	/* each request: the cached token, a 401, the plugin run again and failing */
	CHECK_INT(hits[H_AUTH] - before, 2);
	kube_client_free(c);

	/* a command that is not installed: the hint */
	x.command = (char *)"storagebench-no-such-plugin";
	c = kube_client_new(&cfg, &o, &err);
	CHECK(c);
	r = kube_get(c, &kube_res_configmaps, NULL, "auth", NULL, &err);
	CHECK_INT(r, -ENOENT);
	CHECK(strstr(err.message, "exec plugin 'storagebench-no-such-plugin' not found: install "
				  "it with: apt install it") != NULL);
	kube_client_free(c);

	static const char *const files[] = {"plugin", "tok",  "exp",	"kind",
					    "runs",   "info", "envargs"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		exec_put(files[i], NULL);
	rmdir(exec_dir);
	return T_PASS;
}

static int test_connection_reuse(void)
{
	struct kube_client *c = client(NULL);
	struct kube_client_stats st;
	CHECK(c);
	for (int i = 0; i < 5; i++)
		CHECK_INT(kube_get(c, &kube_res_configmaps, NULL, "plain", NULL, NULL), 0);
	kube_client_stats(c, &st);
	CHECK_INT(st.requests, 5);
	CHECK_INT(st.connects, 1);
	kube_client_set_fresh_connections(c, true);
	for (int i = 0; i < 3; i++)
		CHECK_INT(kube_get(c, &kube_res_configmaps, NULL, "plain", NULL, NULL), 0);
	kube_client_stats(c, &st);
	CHECK_INT(st.connects, 4);
	kube_client_free(c);
	return T_PASS;
}

static void *other_thread(void *arg)
{
	struct kube_client *c = arg;
	intptr_t r = kube_get(c, &kube_res_configmaps, NULL, "plain", NULL, NULL);
	return (void *)r;
}

static int test_thread_handles(void)
{
	struct kube_client *c = client(NULL);
	struct kube_client_stats st;
	pthread_t t[3];
	void *res;
	CHECK(c);
	CHECK_INT(kube_get(c, &kube_res_configmaps, NULL, "plain", NULL, NULL), 0);
	for (int i = 0; i < 3; i++)
		CHECK_INT(pthread_create(&t[i], NULL, other_thread, c), 0);
	for (int i = 0; i < 3; i++) {
		pthread_join(t[i], &res);
		CHECK_INT((intptr_t)res, 0);
	}
	kube_client_stats(c, &st);
	CHECK_INT(st.connects, 4); /* a handle (and connection) per thread */
	kube_client_free(c);	   /* frees the main thread's handle; others freed at exit */
	return T_PASS;
}

static int test_list_pages(void)
{
	struct kube_client *c = client(NULL);
	struct kube_list_opts lo = {.limit = 2};
	json_t *l = NULL;
	CHECK(c);
	CHECK_INT(kube_list(c, &kube_res_configmaps, "t", &lo, &l, NULL), 0);
	CHECK_INT(hits[H_LIST], 2);
	json_t *items = json_object_get(l, "items");
	CHECK_INT(json_array_size(items), 3);
	CHECK_STR(json_string_value(json_object_get(
			  json_object_get(json_array_get(items, 2), "metadata"), "name")),
		  "c");
	json_t *meta = json_object_get(l, "metadata");
	CHECK_STR(json_string_value(json_object_get(meta, "resourceVersion")), "77");
	CHECK(json_object_get(meta, "continue") == NULL);
	json_decref(l);
	kube_client_free(c);
	return T_PASS;
}

struct seen {
	char rvs[32][16];
	int n, bookmarks;
	struct kube_watch *w;
	int stop_after;
};

static int on_ev(enum kube_event_type t, json_t *obj, void *arg)
{
	struct seen *s = arg;
	if (t == KUBE_EVENT_BOOKMARK) {
		s->bookmarks++;
		return 0;
	}
	const char *rv = json_string_value(
		json_object_get(json_object_get(obj, "metadata"), "resourceVersion"));
	if (s->n < 32)
		snprintf(s->rvs[s->n], sizeof(s->rvs[0]), "%s", rv ? rv : "?");
	s->n++;
	if (s->stop_after && s->n == s->stop_after)
		kube_watch_stop(s->w);
	return 0;
}

static int test_watch_resume_no_loss(void)
{
	struct kube_client *c = client(NULL);
	struct seen s = {.stop_after = 6};
	struct kube_watch_opts wo = {.resource_version = "10", .bookmarks = true};
	CHECK(c);
	atomic_store(&watch_conns, 0);
	s.w = kube_watch_new(c, &kube_res_configmaps, "t", &wo, on_ev, &s);
	CHECK(s.w);
	sb_log_set_level(SB_LOG_ERROR);
	int r = kube_watch_run(s.w, NULL);
	sb_log_set_level(SB_LOG_INFO);
	CHECK_INT(r, 0);
	CHECK_INT(s.n, 6);
	for (int i = 0; i < 6; i++) {
		char want[16];
		snprintf(want, sizeof(want), "%d", 11 + i);
		CHECK_STR(s.rvs[i], want); /* in order, none lost, none twice */
	}
	CHECK_INT(s.bookmarks, 1);
	CHECK_INT(kube_watch_connects(s.w), 2);
	CHECK_STR(last_watch_query, "rv=13 bookmarks=true"); /* resumed after 13 */
	char rv[32];
	CHECK_STR(kube_watch_resource_version(s.w, rv, sizeof(rv)), "16");
	kube_watch_free(s.w);
	kube_client_free(c);
	return T_PASS;
}

static int test_watch_gone(void)
{
	struct kube_client *c = client(NULL);
	struct seen s = {0};
	struct kube_error err;
	CHECK(c);
	struct kube_watch_opts wo = {.resource_version = "gone"};
	struct kube_watch *w = kube_watch_new(c, &kube_res_configmaps, "t", &wo, on_ev, &s);
	CHECK(w);
	CHECK_INT(kube_watch_run(w, &err), -ESTALE);
	CHECK_INT(err.http_code, 410);
	kube_watch_free(w);
	wo.resource_version = "gone-event";
	w = kube_watch_new(c, &kube_res_configmaps, "t", &wo, on_ev, &s);
	CHECK(w);
	CHECK_INT(kube_watch_run(w, &err), -ESTALE);
	CHECK_INT(s.n, 0);
	kube_watch_free(w);
	kube_client_free(c);
	return T_PASS;
}

/* Waits (real time, at most 10 s) until the watch has made `conns`
 * connections and its resourceVersion is `rv` (reached: true) or has moved
 * off it (false); then stops it from this thread. */
struct stop_when {
	struct kube_watch *w;
	unsigned long conns;
	const char *rv;
	bool reached;
};

static void *stopper(void *arg)
{
	struct stop_when *sw = arg;
	char rv[64];
	for (int i = 0; i < 1000; i++) {
		kube_watch_resource_version(sw->w, rv, sizeof(rv));
		if (kube_watch_connects(sw->w) >= sw->conns &&
		    (strcmp(rv, sw->rv) == 0) == sw->reached)
			break;
		usleep(10000);
	}
	kube_watch_stop(sw->w);
	return NULL;
}

static int test_watch_idle_restart_and_stop(void)
{
	struct kube_client *c = client(NULL);
	struct seen s = {0};
	pthread_t t;
	CHECK(c);
	/* From 13: events 14-16 then silence. The clock stands still, so the
	 * 400 ms idle timeout cannot fire: the stop from the other thread,
	 * once 16 was seen, is what ends the watch, on its first connection. */
	fc_install(&fc, false);
	struct kube_watch_opts wo = {.resource_version = "13", .idle_timeout_ms = 400};
	struct kube_watch *w = kube_watch_new(c, &kube_res_configmaps, "t", &wo, on_ev, &s);
	struct stop_when sw = {w, 1, "16", true};
	int rc = -1, created = w ? pthread_create(&t, NULL, stopper, &sw) : -1;
	if (created == 0) {
		rc = kube_watch_run(w, NULL);
		pthread_join(t, NULL);
	}
	fc_uninstall(&fc);
	CHECK(w);
	CHECK_INT(created, 0);
	CHECK_INT(rc, 0);
	CHECK_INT(s.n, 3);
	CHECK_STR(s.rvs[2], "16");
	CHECK_INT(kube_watch_connects(w), 1);
	kube_watch_free(w);
	kube_client_free(c);
	return T_PASS;
}

/* Moves the fake clock past the idle timeout once the 3rd event is seen. */
static int on_ev_then_idle(enum kube_event_type t, json_t *obj, void *arg)
{
	struct seen *s = arg;
	int r = on_ev(t, obj, arg);
	if (s->n == 3 && t != KUBE_EVENT_BOOKMARK)
		fc_step(&fc, 400);
	return r;
}

static int test_watch_idle_restart(void)
{
	struct kube_client *c = client(NULL);
	struct seen s = {0};
	pthread_t t;
	CHECK(c);
	/* Events 14-16, then 400 ms (fake) without one: the watch restarts
	 * from the last resourceVersion seen, once (time stands still after). */
	fc_install(&fc, false);
	struct kube_watch_opts wo = {.resource_version = "13", .idle_timeout_ms = 400};
	struct kube_watch *w =
		kube_watch_new(c, &kube_res_configmaps, "t", &wo, on_ev_then_idle, &s);
	struct stop_when sw = {w, 2, "16", false};
	int rc = -1, created = w ? pthread_create(&t, NULL, stopper, &sw) : -1;
	if (created == 0) {
		rc = kube_watch_run(w, NULL);
		pthread_join(t, NULL);
	}
	fc_uninstall(&fc);
	CHECK(w);
	CHECK_INT(created, 0);
	CHECK_INT(rc, 0);
	CHECK_INT(kube_watch_connects(w), 2);
	CHECK_STR(last_watch_query, "rv=16 bookmarks=");
	CHECK(s.n > 3); /* the second connection delivered */
	kube_watch_free(w);
	kube_client_free(c);
	return T_PASS;
}

/* One of several watches run at once, on its own thread. */
struct multi_watch {
	struct kube_watch *w;
	atomic_int events;
	int end_after; /* the callback returns 7 at this event (0: never) */
	pthread_t t;
	bool started;
	atomic_int ret;
	atomic_bool ended;
};

static int on_tick(enum kube_event_type t, json_t *obj, void *arg)
{
	struct multi_watch *m = arg;
	(void)t;
	(void)obj;
	int n = atomic_fetch_add(&m->events, 1) + 1;
	return m->end_after && n >= m->end_after ? 7 : 0;
}

static void *multi_run(void *arg)
{
	struct multi_watch *m = arg;
	atomic_store(&m->ret, kube_watch_run(m->w, NULL));
	atomic_store(&m->ended, true);
	return NULL;
}

/* Waits (real time, at most 10 s) until m has seen n events; true if so. */
static bool events_reach(struct multi_watch *m, int n)
{
	for (int i = 0; i < 1000 && atomic_load(&m->events) < n; i++)
		usleep(10000);
	return atomic_load(&m->events) >= n;
}

static bool ends(struct multi_watch *m)
{
	for (int i = 0; i < 1000 && !atomic_load(&m->ended); i++)
		usleep(10000);
	return atomic_load(&m->ended);
}

/*
 * Three watches at once on one client (one hub, one multi handle): C's
 * callback ends C, then A is stopped from this thread; each time the
 * others go on receiving on their first connection, and each run returns
 * its own outcome.
 */
static int test_watch_several_at_once(void)
{
	struct kube_client *c = client(NULL);
	struct multi_watch m[3] = {{.end_after = 0}, {.end_after = 0}, {.end_after = 3}};
	const char *rvs[3] = {"1000", "2000", "3000"};
	CHECK(c);
	for (int i = 0; i < 3; i++) {
		struct kube_watch_opts wo = {.resource_version = rvs[i]};
		m[i].w = kube_watch_new(c, &kube_res_configmaps, "t", &wo, on_tick, &m[i]);
		CHECK(m[i].w);
	}
	for (int i = 0; i < 3; i++)
		m[i].started = pthread_create(&m[i].t, NULL, multi_run, &m[i]) == 0;
	bool c_ended = ends(&m[2]);
	int a0 = atomic_load(&m[0].events), b0 = atomic_load(&m[1].events);
	bool a_on = events_reach(&m[0], a0 + 3), b_on = events_reach(&m[1], b0 + 3);
	kube_watch_stop(m[0].w);
	bool a_ended = ends(&m[0]);
	int b1 = atomic_load(&m[1].events);
	bool b_still = events_reach(&m[1], b1 + 3) && !atomic_load(&m[1].ended);
	kube_watch_stop(m[1].w);
	bool b_ended = ends(&m[1]);
	for (int i = 0; i < 3; i++)
		if (m[i].started)
			pthread_join(m[i].t, NULL);
	CHECK(m[0].started && m[1].started && m[2].started);
	CHECK(c_ended);
	CHECK_INT(atomic_load(&m[2].ret), 7); /* the callback's value */
	CHECK_INT(atomic_load(&m[2].events), 3);
	CHECK(a_on);
	CHECK(b_on);
	CHECK(a_ended);
	CHECK_INT(atomic_load(&m[0].ret), 0); /* stopped */
	CHECK(b_still);
	CHECK(b_ended);
	CHECK_INT(atomic_load(&m[1].ret), 0);
	for (int i = 0; i < 3; i++) {
		CHECK_INT(kube_watch_connects(m[i].w), 1); /* nobody else's end restarted it */
		kube_watch_free(m[i].w);
	}
	kube_client_free(c);
	return T_PASS;
}

/* A burst: while the first event's callback holds the watch's thread, the
 * hub buffers a 200 KB event whole (the callback waits for that); once the
 * event after it was taken, the large buffer was given back
 * (kube_watch_buffer_bytes: the two buffers, one filling and one read, are
 * back at 16 KiB at most): a watch does not keep a burst's buffers for its
 * lifetime. */
struct burst_watch {
	struct kube_watch *w;
	int events;
	size_t during, after;
};

static int on_burst(enum kube_event_type t, json_t *obj, void *arg)
{
	struct burst_watch *b = arg;
	(void)t;
	(void)obj;
	b->events++;
	if (b->events == 1) {
		/* the hub receives the large event meanwhile (at most 10 s) */
		for (int i = 0; i < 1000 && kube_watch_buffer_bytes(b->w) < BURST_BYTES; i++)
			usleep(10000);
		b->during = kube_watch_buffer_bytes(b->w);
		return 0;
	}
	if (b->events == 2) {
		atomic_store(&burst_seen, true);
		return 0;
	}
	b->after = kube_watch_buffer_bytes(b->w);
	return 7;
}

static int test_watch_burst_buffers_freed(void)
{
	struct kube_client *c = client(NULL);
	struct burst_watch b = {0};
	struct kube_watch_opts wo = {.resource_version = "burst"};
	CHECK(c);
	atomic_store(&burst_seen, false);
	b.w = kube_watch_new(c, &kube_res_configmaps, "t", &wo, on_burst, &b);
	CHECK(b.w);
	int r = kube_watch_run(b.w, NULL);
	kube_watch_free(b.w);
	kube_client_free(c);
	CHECK_INT(r, 7);
	CHECK_INT(b.events, 3);
	CHECK(b.during >= BURST_BYTES); /* the large event was buffered whole */
	/* and the large buffer given back: the two hold 16 KiB each at most */
	CHECK(b.after <= 2 * 16 * 1024);
	return T_PASS;
}

/* A watch run again after it was stopped, and a client freed while its
 * hub holds idle connections: nothing is left behind (valgrind, ASan). */
static int test_watch_rerun(void)
{
	struct kube_client *c = client(NULL);
	struct multi_watch m = {.end_after = 2};
	struct kube_watch_opts wo = {.resource_version = "5000"};
	CHECK(c);
	m.w = kube_watch_new(c, &kube_res_configmaps, "t", &wo, on_tick, &m);
	CHECK(m.w);
	CHECK_INT(kube_watch_run(m.w, NULL), 7);
	m.end_after = 4;
	CHECK_INT(kube_watch_run(m.w, NULL), 7);
	CHECK_INT(atomic_load(&m.events), 4);
	CHECK_INT(kube_watch_connects(m.w), 2);
	char rv[32];
	CHECK_STR(kube_watch_resource_version(m.w, rv, sizeof(rv)), "5004"); /* resumed at 5002 */
	kube_watch_free(m.w);
	kube_client_free(c);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"kube-http/retry-500-then-ok", test_retry_500_then_ok},
	{"kube-http/retry-after-429", test_retry_after_429},
	{"kube-http/create-retry-rules", test_create_retry_rules},
	{"kube-http/401-rereads-token", test_401_rereads_token},
	{"kube-http/connection-reuse", test_connection_reuse},
	{"kube-http/thread-handles", test_thread_handles},
	{"kube-http/list-pages", test_list_pages},
	{"kube-http/watch-resume-no-loss", test_watch_resume_no_loss},
	{"kube-http/watch-gone", test_watch_gone},
	{"kube-http/watch-stop-from-thread", test_watch_idle_restart_and_stop},
	{"kube-http/watch-idle-restart", test_watch_idle_restart},
	{"kube-http/watch-several-at-once", test_watch_several_at_once},
	{"kube-http/watch-burst-buffers-freed", test_watch_burst_buffers_freed},
	{"kube-http/watch-rerun", test_watch_rerun},
	{"kube-http/stream-pod-log", test_stream_pod_log},
	{"kube-http/exec-credential-plugin", test_exec_credential_plugin},
};

int main(void)
{
	int r = test_run_all(cases, sizeof(cases) / sizeof(cases[0]));
	atomic_store(&quitting, true);
	if (daemon_)
		MHD_stop_daemon(daemon_);
	return r;
}
