/* SPDX-License-Identifier: MIT */
/* lib/kube retry rules through the cluster's fault-injecting proxy: 500 then
 * success, 429 with Retry-After (timed), 503 until the retries run out, a
 * dropped connection, refused connections, a watch cut mid-stream resumed
 * without losing or repeating events, 410 on a watch. */
#include "tests/kube/common.h"
#include "tests/unit/fakeclock.h"

#include <pthread.h>

static struct kube_client *C, *P; /* direct, and through the proxy */
static char NS[64];

static int setup(void)
{
	if (C)
		return 0;
	if (!kt_kubeconfig() || !kt_proxy_kubeconfig() || !kt_proxy_control())
		return -1;
	C = kt_client(kt_kubeconfig());
	struct kube_client_opts o = {
		.max_retries = 3, .backoff_base_ms = 100, .backoff_cap_ms = 800};
	P = kt_client_opts(kt_proxy_kubeconfig(), &o);
	if (!C || !P || kt_proxy_reset())
		return -2;
	if (kt_namespace(C, "kt-faults", NS, sizeof(NS)))
		return -2;
	json_t *cm = kt_configmap("target", "k", "v");
	int r = kube_create(C, &kube_res_configmaps, NS, cm, NULL, NULL);
	json_decref(cm);
	return r ? -2 : 0;
}

/* common.h's KT_SETUP, then a proxy without rules and quiet retries. */
#define SETUP()                                 \
	do {                                    \
		KT_SETUP();                     \
		CHECK_INT(kt_proxy_reset(), 0); \
		sb_log_set_level(SB_LOG_ERROR); \
	} while (0)

#include <stdarg.h>

__attribute__((format(printf, 1, 2))) static int rule(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return kt_proxy_rule(buf);
}

static int test_500_then_success(void)
{
	struct kube_error err;
	json_t *o = NULL;
	SETUP();
	CHECK_INT(rule("{\"method\":\"GET\",\"path\":\"/namespaces/%s/configmaps/target$\","
		       "\"action\":\"status\",\"status\":500,\"count\":%s}",
		       NS, "1"),
		  0);
	EXPECT(kube_get(P, &kube_res_configmaps, NS, "target", &o, &err), 0, &err);
	CHECK_STR(kt_meta(o, "name"), "target");
	json_decref(o);
	CHECK_INT(kt_proxy_count("/configmaps/target", "status"), 1);
	CHECK_INT(kt_proxy_count("/configmaps/target", "forward"), 1);
	return T_PASS;
}

static struct fakeclock fc;

static int test_429_retry_after(void)
{
	struct kube_error err;
	SETUP();
	CHECK_INT(rule("{\"method\":\"GET\",\"path\":\"/namespaces/%s/configmaps/target$\","
		       "\"action\":\"status\",\"status\":429,\"retry_after\":%s,\"count\":1}",
		       NS, "2"),
		  0);
	/* the pause on the fake clock (auto mode): recorded, not slept */
	fc_install(&fc, true);
	int r = kube_get(P, &kube_res_configmaps, NS, "target", NULL, &err);
	fc_uninstall(&fc);
	EXPECT(r, 0, &err);
	CHECK_INT(fc.nwaits, 1);
	CHECK_INT(fc.waits[0], 2000); /* the server's delay, not our 100 ms backoff */
	CHECK_INT(kt_proxy_count("/configmaps/target", NULL), 2);
	return T_PASS;
}

static int test_503_exhausted(void)
{
	struct kube_error err;
	SETUP();
	CHECK_INT(rule("{\"method\":\"GET\",\"path\":\"/namespaces/%s/configmaps/target$\","
		       "\"action\":\"status\",\"status\":503,\"count\":%s}",
		       NS, "-1"),
		  0);
	int r = kube_get(P, &kube_res_configmaps, NS, "target", NULL, &err);
	CHECK_INT(kt_proxy("DELETE", "/rules", NULL, NULL), 200);
	CHECK(kt_expect(r, -EAGAIN, &err, __LINE__));
	CHECK_INT(err.http_code, 503);
	CHECK_STR(err.reason, "ServiceUnavailable");
	CHECK_INT(kt_proxy_count("/configmaps/target", "status"), 4); /* 1 + 3 retries */
	return T_PASS;
}

static int test_drop_retried_only_if_idempotent(void)
{
	struct kube_error err;
	SETUP();
	CHECK_INT(rule("{\"method\":\"GET\",\"path\":\"/namespaces/%s/configmaps/target$\","
		       "\"action\":\"drop\",\"count\":%s}",
		       NS, "1"),
		  0);
	EXPECT(kube_get(P, &kube_res_configmaps, NS, "target", NULL, &err), 0, &err);
	CHECK_INT(kt_proxy_count("/configmaps/target", "drop"), 1);
	CHECK_INT(kt_proxy_count("/configmaps/target", "forward"), 1);
	CHECK_INT(kt_proxy("DELETE", "/log", NULL, NULL), 200);
	/* A create with generateName is not retried after a drop... */
	CHECK_INT(rule("{\"method\":\"POST\",\"path\":\"/namespaces/%s/configmaps%s\","
		       "\"action\":\"drop\",\"count\":1}",
		       NS, "$"),
		  0);
	json_t *gen = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
				"metadata", "generateName", "gen-");
	int r = kube_create(P, &kube_res_configmaps, NS, gen, NULL, &err);
	CHECK(kt_expect(r, -EIO, &err, __LINE__));
	CHECK(err.curl[0] != '\0');
	char path[128];
	snprintf(path, sizeof(path), "/namespaces/%s/configmaps", NS);
	CHECK_INT(kt_proxy_count(path, "drop"), 1);
	CHECK_INT(kt_proxy_count(path, "forward"), 0);
	/* ... one with a fixed name is, and answers AlreadyExists if it got
	 * through the first time (here it did not: created). */
	CHECK_INT(rule("{\"method\":\"POST\",\"path\":\"/namespaces/%s/configmaps%s\","
		       "\"action\":\"drop\",\"count\":1}",
		       NS, "$"),
		  0);
	json_t *named = kt_configmap("named-after-drop", "k", "v");
	EXPECT(kube_create(P, &kube_res_configmaps, NS, named, NULL, &err), 0, &err);
	json_decref(named);
	json_decref(gen);
	return T_PASS;
}

static int test_refused_connections(void)
{
	struct kube_error err;
	SETUP();
	/* Make sure P has a live connection that the refusal will close. */
	EXPECT(kube_get(P, &kube_res_configmaps, NS, "target", NULL, &err), 0, &err);
	CHECK_INT(kt_proxy_rule("{\"method\":\"*\",\"path\":\".\",\"action\":\"refuse\","
				"\"duration_ms\":1200,\"now\":true}"),
		  0);
	int64_t t0 = kt_now_ms();
	struct kube_config cfg;
	CHECK_INT(kube_config_load_file(&cfg, kt_proxy_kubeconfig(), &err), 0);
	struct kube_client_opts o = {
		.max_retries = 10, .backoff_base_ms = 100, .backoff_cap_ms = 400};
	struct kube_client *c = kube_client_new(&cfg, &o, &err);
	kube_config_release(&cfg);
	CHECK(c);
	int r = kube_get(c, &kube_res_configmaps, NS, "target", NULL, &err);
	int64_t dt = kt_now_ms() - t0;
	struct kube_client_stats st;
	kube_client_stats(c, &st);
	kube_client_free(c);
	CHECK(kt_expect(r, 0, &err, __LINE__));
	CHECK(st.retries >= 1); /* refused, then retried until the proxy listened again */
	CHECK(dt >= 900);
	return T_PASS;
}

/* ------------------------------------------------------------ watch faults */

struct collector {
	pthread_mutex_t lock;
	char names[64][32];
	int n, dups;
	struct kube_watch *w;
	int want;
};

static int collect(enum kube_event_type t, json_t *obj, void *arg)
{
	struct collector *col = arg;
	if (t != KUBE_EVENT_ADDED)
		return 0;
	const char *name = kt_meta(obj, "name");
	if (!name || strncmp(name, "stream-", 7) != 0)
		return 0;
	pthread_mutex_lock(&col->lock);
	for (int i = 0; i < col->n && i < 64; i++)
		if (strcmp(col->names[i], name) == 0)
			col->dups++;
	if (col->n < 64)
		snprintf(col->names[col->n], sizeof(col->names[0]), "%s", name);
	col->n++;
	bool done = col->n >= col->want;
	pthread_mutex_unlock(&col->lock);
	if (done)
		kube_watch_stop(col->w);
	return 0;
}

struct run_args {
	struct kube_watch *w;
	int ret;
	struct kube_error err;
};

static void *watch_thread(void *arg)
{
	struct run_args *a = arg;
	a->ret = kube_watch_run(a->w, &a->err);
	return NULL;
}

static int test_watch_cut_resumed(void)
{
	struct kube_error err;
	json_t *l = NULL;
	struct collector col = {.lock = PTHREAD_MUTEX_INITIALIZER, .want = 20};
	SETUP();
	EXPECT(kube_list(C, &kube_res_configmaps, NS, NULL, &l, &err), 0, &err);
	const char *rv = json_string_value(
		json_object_get(json_object_get(l, "metadata"), "resourceVersion"));
	struct kube_watch_opts wo = {.resource_version = rv, .bookmarks = true};
	col.w = kube_watch_new(P, &kube_res_configmaps, NS, &wo, collect, &col);
	json_decref(l);
	CHECK(col.w);
	/* Every watch connection is cut 700 ms after it starts, three times. */
	CHECK_INT(rule("{\"method\":\"GET\",\"path\":\"/namespaces/%s/configmaps\\\\?.*watch=%s\","
		       "\"action\":\"cut_watch\",\"after_ms\":700,\"count\":3}",
		       NS, "1"),
		  0);
	struct run_args a = {.w = col.w};
	pthread_t t;
	CHECK_INT(pthread_create(&t, NULL, watch_thread, &a), 0);
	for (int i = 0; i < col.want; i++) {
		char name[32];
		snprintf(name, sizeof(name), "stream-%02d", i);
		json_t *cm = kt_configmap(name, "i", name);
		EXPECT(kube_create(C, &kube_res_configmaps, NS, cm, NULL, &err), 0, &err);
		json_decref(cm);
		usleep(120000);
	}
	/* Wait up to 15 s for the stream to catch up, then stop it. */
	for (int i = 0; i < 150; i++) {
		pthread_mutex_lock(&col.lock);
		int n = col.n;
		pthread_mutex_unlock(&col.lock);
		if (n >= col.want)
			break;
		usleep(100000);
	}
	kube_watch_stop(col.w);
	pthread_join(t, NULL);
	unsigned long connects = kube_watch_connects(col.w);
	kube_watch_free(col.w);
	fprintf(stderr, "    watch: %d events, %d repeated, %lu connections\n", col.n, col.dups,
		connects);
	CHECK(kt_expect(a.ret, 0, &a.err, __LINE__));
	CHECK_INT(col.n, col.want);
	CHECK_INT(col.dups, 0);
	CHECK(kt_proxy_count("watch=1", "cut_watch") >= 2);
	CHECK(connects >= 3);
	for (int i = 0; i < col.want; i++) { /* and in creation order */
		char name[32];
		snprintf(name, sizeof(name), "stream-%02d", i);
		CHECK_STR(col.names[i], name);
	}
	return T_PASS;
}

static int test_watch_410(void)
{
	struct kube_error err;
	json_t *l = NULL;
	SETUP();
	EXPECT(kube_list(C, &kube_res_configmaps, NS, NULL, &l, &err), 0, &err);
	const char *rv = json_string_value(
		json_object_get(json_object_get(l, "metadata"), "resourceVersion"));
	struct kube_watch_opts wo = {.resource_version = rv};
	/* As the real server does it: 200 and an ERROR event with code 410. */
	CHECK_INT(rule("{\"method\":\"GET\",\"path\":\"/namespaces/%s/configmaps\\\\?.*watch=%s\","
		       "\"action\":\"status\",\"status\":410,\"count\":1}",
		       NS, "1"),
		  0);
	struct kube_watch *w = kube_watch_new(P, &kube_res_configmaps, NS, &wo, NULL, NULL);
	CHECK(w);
	int r = kube_watch_run(w, &err);
	kube_watch_free(w);
	CHECK(kt_expect(r, -ESTALE, &err, __LINE__));
	CHECK_INT(err.http_code, 410);
	/* And as a plain HTTP 410. */
	CHECK_INT(rule("{\"method\":\"GET\",\"path\":\"/namespaces/%s/configmaps\\\\?.*watch=%s\","
		       "\"action\":\"status\",\"status\":410,\"as_watch_event\":false,\"count\":1}",
		       NS, "1"),
		  0);
	w = kube_watch_new(P, &kube_res_configmaps, NS, &wo, NULL, NULL);
	CHECK(w);
	r = kube_watch_run(w, &err);
	kube_watch_free(w);
	json_decref(l);
	CHECK(kt_expect(r, -ESTALE, &err, __LINE__));
	/* A GET answered 410 maps to -ESTALE as well. */
	CHECK_INT(rule("{\"method\":\"GET\",\"path\":\"/namespaces/%s/configmaps/target%s\","
		       "\"action\":\"status\",\"status\":410,\"count\":1}",
		       NS, "$"),
		  0);
	EXPECT(kube_get(P, &kube_res_configmaps, NS, "target", NULL, &err), -ESTALE, &err);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"kube-faults/500-then-success", test_500_then_success},
	{"kube-faults/429-retry-after", test_429_retry_after},
	{"kube-faults/503-exhausted", test_503_exhausted},
	{"kube-faults/drop-retried-if-idempotent", test_drop_retried_only_if_idempotent},
	{"kube-faults/refused-connections", test_refused_connections},
	{"kube-faults/watch-cut-resumed", test_watch_cut_resumed},
	{"kube-faults/watch-410", test_watch_410},
};

int main(void)
{
	int r = test_run_all(cases, sizeof(cases) / sizeof(cases[0]));
	sb_log_set_level(SB_LOG_INFO);
	if (C) {
		kt_proxy_reset();
		kt_namespace_delete(C, NS);
	}
	kube_client_free(C);
	kube_client_free(P);
	return r;
}
