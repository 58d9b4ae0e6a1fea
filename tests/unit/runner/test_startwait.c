/* SPDX-License-Identifier: MIT */
/*
 * The start barrier's wait (runner/mode/startwait.c) against a scripted API
 * server (libmicrohttpd on 127.0.0.1): one watch of the start ConfigMap by
 * name, however long it waits, and the API requests it makes counted by the
 * client (kube_client_stats): one watch when the object is there or comes
 * on the connection, two when the server ends the first connection without
 * it; a stop (SIGTERM) or the deadline ends the wait without further
 * requests.
 */
#include "tests/unit/harness.h"
#include "core/log.h"
#include "kube/kube.h"
#include "runner/mode/startwait.h"
#include "runner/mode/stop.h"

#include <errno.h>
#include <stdlib.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

static struct MHD_Daemon *daemon_;
static char url_[64];
static atomic_int conns;     /* watch connections */
static atomic_int holding;   /* connections held open without an event */
static atomic_bool quitting; /* the test ends: held connections close */
static char selector[128];

/* What a watch connection sends, by the name watched. */
enum script { S_AT_ONCE, S_SECOND_CONN, S_HOLD };

struct stream {
	enum script script;
	int conn, piece;
};

#define START_EV(name)                                                                          \
	"{\"type\":\"ADDED\",\"object\":{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" name \
	"\",\"namespace\":\"t\",\"resourceVersion\":\"7\"},\"data\":{\"startUnixNano\":"        \
	"\"1700000000000000000\"}}}\n"

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct stream *s = cls;
	const char *ev = NULL;
	(void)pos;
	if (s->script == S_AT_ONCE && !s->piece)
		ev = START_EV("at-once");
	else if (s->script == S_SECOND_CONN && s->conn == 1 && !s->piece)
		ev = "{\"type\":\"ADDED\",\"object\":{\"kind\":\"ConfigMap\",\"metadata\":"
		     "{\"name\":\"other\",\"resourceVersion\":\"5\"}}}\n";
	else if (s->script == S_SECOND_CONN && s->conn == 1)
		return MHD_CONTENT_READER_END_OF_STREAM; /* a server-side timeout */
	else if (s->script == S_SECOND_CONN && !s->piece)
		ev = START_EV("second");
	if (ev) {
		s->piece++;
		size_t n = strlen(ev) < max ? strlen(ev) : max;
		memcpy(buf, ev, n);
		return (ssize_t)n;
	}
	/* nothing more to say: hold the connection until the client leaves */
	if (!s->piece++)
		atomic_fetch_add(&holding, 1);
	for (int i = 0; i < 50 && !atomic_load(&quitting); i++)
		usleep(2000);
	return atomic_load(&quitting) ? MHD_CONTENT_READER_END_OF_STREAM : 0;
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned code, const char *body)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
			       const char *method, const char *version, const char *upload,
			       size_t *upload_size, void **con_cls)
{
	(void)cls;
	(void)version;
	(void)upload;
	(void)upload_size;
	if (!*con_cls) {
		*con_cls = (void *)1;
		return MHD_YES;
	}
	const char *w = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "watch");
	const char *fs = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "fieldSelector");
	if (strcmp(method, "GET") || strcmp(url, "/api/v1/namespaces/t/configmaps") || !w || !fs)
		return answer(c, 400, "{\"kind\":\"Status\",\"code\":400}");
	snprintf(selector, sizeof(selector), "%s", fs);
	struct stream *s = calloc(1, sizeof(*s));
	if (!s)
		return MHD_NO;
	s->conn = atomic_fetch_add(&conns, 1) + 1;
	s->script = strstr(fs, "at-once")  ? S_AT_ONCE
		    : strstr(fs, "second") ? S_SECOND_CONN
					   : S_HOLD;
	struct MHD_Response *r =
		MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, stream_read, s, free);
	enum MHD_Result ret = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	return ret;
}

/* At exit: held connections close, the server stops. */
static void stop_server(void)
{
	atomic_store(&quitting, true);
	if (daemon_)
		MHD_stop_daemon(daemon_);
	daemon_ = NULL;
}

static struct kube_client *client(void)
{
	if (!daemon_) {
		daemon_ = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION |
						   MHD_USE_INTERNAL_POLLING_THREAD,
					   0, NULL, NULL, handler, NULL, MHD_OPTION_END);
		if (!daemon_)
			return NULL;
		const union MHD_DaemonInfo *i =
			MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT);
		snprintf(url_, sizeof(url_), "http://127.0.0.1:%u", (unsigned)i->port);
		atexit(stop_server);
	}
	struct kube_config cfg = KUBE_CONFIG_INIT;
	cfg.server = url_;
	cfg.namespace = (char *)"t";
	atomic_store(&conns, 0);
	atomic_store(&holding, 0);
	return kube_client_new(&cfg, NULL, NULL);
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#define LATER (mono_ns() + INT64_C(600) * 1000000000) /* a deadline no test reaches */

/* Waits for ConfigMap name; its result, and the requests and watches the client made. */
static int wait_for(const char *name, int64_t give_up, json_t **cm, unsigned long *requests,
		    unsigned long *watches)
{
	struct kube_client *c = client();
	struct kube_error err = KUBE_ERROR_INIT;
	if (!c)
		return -ENOMEM;
	int64_t got = 0;
	int r = sb_start_wait(c, "t", name, give_up, cm, &got, &err);
	if (r == 0 && got <= 0)
		r = -EPROTO; /* the arrival time is the exchange's t4 */
	struct kube_client_stats st;
	kube_client_stats(c, &st);
	*requests = st.requests;
	*watches = st.by[KUBE_VERB_WATCH];
	kube_client_free(c);
	return r;
}

/* Already there (or created before the watch connected): its first event; one request. */
static int test_one_watch(void)
{
	json_t *cm = NULL;
	unsigned long req = 0, wat = 0;
	int r = wait_for("at-once", LATER, &cm, &req, &wat);
	const char *v =
		json_string_value(json_object_get(json_object_get(cm, "data"), "startUnixNano"));
	char vb[32];
	snprintf(vb, sizeof(vb), "%s", v ? v : "");
	json_decref(cm);
	CHECK_INT(r, 0);
	CHECK_STR(vb, "1700000000000000000");
	CHECK_STR(selector, "metadata.name=at-once");
	CHECK_INT(req, 1);
	CHECK_INT(wat, 1);
	return T_PASS;
}

/* The server ends the first connection (its timeout) after another object: two requests. */
static int test_resumed_once(void)
{
	json_t *cm = NULL;
	unsigned long req = 0, wat = 0;
	sb_log_set_level(SB_LOG_ERROR);
	int r = wait_for("second", LATER, &cm, &req, &wat);
	sb_log_set_level(SB_LOG_INFO);
	const char *n = json_string_value(json_object_get(json_object_get(cm, "metadata"), "name"));
	char nb[32];
	snprintf(nb, sizeof(nb), "%s", n ? n : "");
	json_decref(cm);
	CHECK_INT(r, 0);
	CHECK_STR(nb, "second");
	CHECK_INT(req, 2);
	CHECK_INT(wat, 2);
	CHECK_INT(atomic_load(&conns), 2);
	return T_PASS;
}

struct waiter {
	int r;
	unsigned long req, wat;
	int64_t give_up;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;
	json_t *cm = NULL;
	w->r = wait_for("held", w->give_up, &cm, &w->req, &w->wat);
	json_decref(cm);
	return NULL;
}

/* A SIGTERM while the watch is held open ends the wait (-EINTR), one request made. */
static int test_stop_ends_wait(void)
{
	struct waiter w = {.r = 1, .give_up = LATER};
	pthread_t th;
	sb_stop_reset();
	CHECK_INT(pthread_create(&th, NULL, wait_thread, &w), 0);
	/* the connection is held (bounded real-time wait, not a timing assumption) */
	for (int i = 0; i < 5000 && !atomic_load(&holding); i++)
		usleep(1000);
	int held = atomic_load(&holding);
	sb_stop_request(SIGTERM);
	pthread_join(th, NULL);
	sb_stop_reset();
	CHECK(held);
	CHECK_INT(w.r, -EINTR);
	CHECK_INT(w.req, 1);
	return T_PASS;
}

/* A deadline already past: -ETIMEDOUT. */
static int test_deadline(void)
{
	struct waiter w = {.r = 1, .give_up = mono_ns() - 1};
	wait_thread(&w);
	CHECK_INT(w.r, -ETIMEDOUT);
	CHECK(w.req <= 1);
	return T_PASS;
}

/* The start ConfigMap as the controller stamps it: sentUnixNano t3, readySeenUnixNano {member: t2}. */
static json_t *start_cm(long long t2, long long t3)
{
	char sent[32], seen[64];
	snprintf(sent, sizeof(sent), "%lld", t3);
	snprintf(seen, sizeof(seen), "{\"1\":5,\"2\":%lld}", t2);
	return json_pack("{s:{s:s,s:s,s:s}}", "data", "startUnixNano", "1", "sentUnixNano", sent,
			 "readySeenUnixNano", seen);
}

/*
 * Hand-computed: member 2's clock is 2 s ahead. It sends at true 10 s (t1
 * = 12 s on its clock), the controller sees it at 10.010 s and starts at
 * 11 s, the start arrives at true 11.006 s (t4 = 13.006 s). Offset
 * ((12 - 10.010) + (13.006 - 11)) / 2 = 1.998 s, round trip 1.006 - 0.990
 * = 16 ms, so 1.998 s +- 8 ms, which holds the true 2 s. A later exchange
 * with a longer round trip is counted but not kept; a shorter one is.
 */
static int test_clock_exchange(void)
{
	struct sb_clock_est est = {0};
	json_t *cm = start_cm(10010000000LL, 11000000000LL);
	int r1 = sb_clock_exchange(cm, 2, 12000000000LL, 13006000000LL, &est);
	struct sb_clock_est first = est;
	json_t *slow = start_cm(20000000000LL, 21000000000LL); /* 100 ms round trip */
	int r2 = sb_clock_exchange(slow, 2, 21950000000LL, 23050000000LL, &est);
	struct sb_clock_est second = est;
	json_t *fast = start_cm(30001000000LL, 31000000000LL); /* 2 ms round trip */
	int r3 = sb_clock_exchange(fast, 2, 32000000000LL, 33001000000LL, &est);
	json_decref(cm);
	json_decref(slow);
	json_decref(fast);
	CHECK_INT(r1, 0);
	CHECK(first.have);
	CHECK_INT(first.offset_ns, 1998000000LL);
	CHECK_INT(first.round_trip_ns, 16000000LL);
	CHECK_INT(first.uncertainty_ns, 8000000LL);
	CHECK(llabs(2000000000LL - first.offset_ns) <= first.uncertainty_ns);
	CHECK_INT(sb_clock_applied(&first), 1998000000LL); /* beyond its uncertainty: applied */
	struct sb_clock_est agree = {true, -3000000, 8000000, 16000000, 1};
	CHECK_INT(sb_clock_applied(&agree), 0); /* within it of 0: the clocks agree */
	CHECK_INT(r2, 0);
	CHECK_INT(second.exchanges, 2);
	CHECK_INT(second.offset_ns, 1998000000LL); /* the better exchange is kept */
	CHECK_INT(r3, 0);
	CHECK_INT(est.exchanges, 3);
	CHECK_INT(est.uncertainty_ns, 1000000LL);
	CHECK_INT(est.offset_ns,
		  (((32000000000LL - 30001000000LL) + (33001000000LL - 31000000000LL)) / 2));
	return T_PASS;
}

/* An older controller's start (no times), a member it did not see, a negative round trip. */
static int test_clock_exchange_refused(void)
{
	struct sb_clock_est est = {0};
	json_t *old = json_pack("{s:{s:s}}", "data", "startUnixNano", "1");
	json_t *cm = start_cm(10010000000LL, 11000000000LL);
	json_t *bad = json_pack("{s:{s:s,s:s,s:s}}", "data", "startUnixNano", "1", "sentUnixNano",
				"soon", "readySeenUnixNano", "{\"2\":\"x\"}");
	int r1 = sb_clock_exchange(old, 2, 12000000000LL, 13006000000LL, &est);
	int r2 = sb_clock_exchange(cm, 3, 12000000000LL, 13006000000LL, &est);
	int r3 = sb_clock_exchange(cm, 2, 0, 13006000000LL, &est);
	int r4 =
		sb_clock_exchange(cm, 2, 12000000000LL, 12500000000LL, &est); /* came before sent */
	int r5 = sb_clock_exchange(bad, 2, 12000000000LL, 13006000000LL, &est);
	json_decref(old);
	json_decref(cm);
	json_decref(bad);
	CHECK_INT(r1, -EINVAL);
	CHECK_INT(r2, -EINVAL);
	CHECK_INT(r3, -EINVAL);
	CHECK_INT(r4, -EINVAL);
	CHECK_INT(r5, -EINVAL);
	CHECK(!est.have);
	CHECK_INT(est.exchanges, 0);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"startwait/one watch: the start configmap's first event", test_one_watch},
	{"startwait/a server-side timeout: resumed, two requests", test_resumed_once},
	{"startwait/a stop ends the wait", test_stop_ends_wait},
	{"startwait/a deadline past ends the wait", test_deadline},
	{"startwait/clock offset from the exchange, the best kept", test_clock_exchange},
	{"startwait/clock exchange without usable times refused", test_clock_exchange_refused},
};

TEST_MAIN(cases)
