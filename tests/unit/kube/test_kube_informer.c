/* SPDX-License-Identifier: MIT */
/*
 * The informer's label selector and transform (issue 16) against a local
 * scripted API server (libmicrohttpd on 127.0.0.1, plain HTTP): the list and
 * the watch carry the selector; the controller's transform
 * (br_cache_transform) keeps an object without the managed-by label out of
 * the cache, whether it comes from the list or a watch, removes a cached one
 * that loses the label (a DELETE event), and keeps the fields the reconcile
 * reads while dropping managedFields and kubectl's last-applied annotation.
 */
#include "tests/unit/harness.h"
#include "controller/core/memory.h"
#include "controller/core/proof.h"
#include "kube/internal.h"
#include "core/labels.h"

#include <errno.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

static struct MHD_Daemon *daemon_;
static char server_url[64];
static atomic_bool quitting;
static char list_selector[256], watch_selector[256], watch_rv[64];
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;

#define OWNED_LABELS(run)                                                                        \
	"\"labels\":{\"" SB_LABEL_MANAGED_BY "\":\"" SB_MANAGER "\",\"" SB_LABEL_RUN "\":\"" run \
	"\"}"
#define MF "\"managedFields\":[{\"manager\":\"kubectl\",\"fieldsV1\":{\"f:data\":{}}}]"
#define LA                                          \
	"\"annotations\":{\"kubectl.kubernetes.io/" \
	"last-applied-configuration\":\"{...}\",\"" SB_ANNOT_RUN "\":\"r1\"}"
#define CM(name, rv, labels)                                                                   \
	"{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"inf\",\"resourceVersion\":\"" rv \
	"\"," labels "," MF "," LA "},\"data\":{\"" SB_RESULT_KEY "\":\"{}\"}}"

static const char list_body[] =
	"{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\","
	"\"metadata\":{\"resourceVersion\":\"100\"},\"items\":[" CM(
		"a", "10",
		OWNED_LABELS("r1")) "," CM("b", "11",
					   OWNED_LABELS(
						   "r2")) "," CM("foreign", "12",
								 "\"labels\":{\"app\":\"x\"}") "]}";

/* The watch from 100: a modified (and moved from run r1 to r3), a second
 * foreign object, b loses its label. */
static const char *const events[] = {
	"{\"type\":\"MODIFIED\",\"object\":" CM("a", "101", OWNED_LABELS("r3")) "}\n",
	"{\"type\":\"ADDED\",\"object\":" CM("foreign2", "102", "\"labels\":{}") "}\n",
	"{\"type\":\"MODIFIED\",\"object\":" CM("b", "103", "\"labels\":{\"app\":\"y\"}") "}\n",
	NULL};

struct stream {
	int piece;
};

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct stream *s = cls;
	(void)pos;
	if (events[s->piece]) {
		const char *p = events[s->piece++];
		size_t n = strlen(p) < max ? strlen(p) : max;
		memcpy(buf, p, n);
		return (ssize_t)n;
	}
	for (int i = 0; i < 250 && !atomic_load(&quitting); i++)
		usleep(20000);
	return MHD_CONTENT_READER_END_OF_STREAM;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **con_cls)
{
	(void)cls;
	(void)version;
	(void)upload;
	(void)upload_size;
	(void)con_cls;
	(void)method;
	const char *sel = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "labelSelector");
	const char *w = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "watch");
	const char *rv = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "resourceVersion");
	struct MHD_Response *r;
	if (strcmp(url, "/api/v1/namespaces/inf/configmaps") != 0) {
		r = MHD_create_response_from_buffer(2, "{}", MHD_RESPMEM_PERSISTENT);
		enum MHD_Result ret = MHD_queue_response(c, 404, r);
		MHD_destroy_response(r);
		return ret;
	}
	pthread_mutex_lock(&q_lock);
	if (w) {
		snprintf(watch_selector, sizeof(watch_selector), "%s", sel ? sel : "");
		snprintf(watch_rv, sizeof(watch_rv), "%s", rv ? rv : "");
	} else {
		snprintf(list_selector, sizeof(list_selector), "%s", sel ? sel : "");
	}
	pthread_mutex_unlock(&q_lock);
	if (w) {
		struct stream *s = calloc(1, sizeof(*s));
		if (s && rv && strcmp(rv, "100") != 0)
			s->piece = 3; /* a reconnect after the script: idle */
		r = s ? MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, stream_read, s,
							  free)
		      : NULL;
	} else {
		r = MHD_create_response_from_buffer(strlen(list_body), (void *)list_body,
						    MHD_RESPMEM_PERSISTENT);
	}
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", "application/json");
	enum MHD_Result ret = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	return ret;
}

static int start_server(void)
{
	if (daemon_)
		return 0;
	daemon_ = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION,
				   0, NULL, NULL, handle, NULL, MHD_OPTION_END);
	if (!daemon_)
		return -1;
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT);
	snprintf(server_url, sizeof(server_url), "http://127.0.0.1:%u", info->port);
	return 0;
}

static struct kube_client *client(void)
{
	struct kube_config cfg = KUBE_CONFIG_INIT;
	cfg.server = server_url;
	cfg.namespace = (char *)"inf";
	return kube_client_new(&cfg, NULL, NULL);
}

/* What the callback saw, in order: "ADD a", "UPDATE a", "DELETE b" ... */
struct seen {
	pthread_mutex_t mu;
	char log[16][64];
	int n;
};

static void on_ev(enum kube_informer_event ev, const json_t *obj, const json_t *old, void *arg)
{
	struct seen *s = arg;
	static const char *const names[] = {"ADD", "UPDATE", "DELETE"};
	(void)old;
	const char *name =
		json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
	pthread_mutex_lock(&s->mu);
	if (s->n < 16)
		snprintf(s->log[s->n++], sizeof(s->log[0]), "%s %s", names[ev], name ? name : "?");
	pthread_mutex_unlock(&s->mu);
}

static int nseen(struct seen *s)
{
	pthread_mutex_lock(&s->mu);
	int n = s->n;
	pthread_mutex_unlock(&s->mu);
	return n;
}

static int count_named_a(const json_t *obj, void *arg)
{
	const char *n =
		json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
	*(int *)arg += n && !strcmp(n, "a") ? 1 : 100;
	return 0;
}

/*
 * The controller's transform of what it wrote: an object with its label is
 * signed first (controller/core/proof.h), as the controller's create does;
 * the others stay unsigned, as anyone else's.
 */
static int signed_transform(json_t **obj, void *arg)
{
	const char *by = json_string_value(json_object_get(
		json_object_get(json_object_get(*obj, "metadata"), "labels"), SB_LABEL_MANAGED_BY));
	if (by && br_proof_sign(*obj, &kube_res_configmaps, "inf"))
		return -ENOMEM;
	return br_cache_transform(obj, arg);
}

/* compact: cached as text; dict: deflated against it (compact only) */
static int scenario(bool compact, const char *dict)
{
	if (start_server())
		SKIP("cannot start a local HTTP server");
	struct kube_client *c = client();
	CHECK(c);
	struct seen s = {.mu = PTHREAD_MUTEX_INITIALIZER};
	struct kube_informer_opts o = {.resource = &kube_res_configmaps,
				       .ns = "inf",
				       .label_selector = SB_SELECTOR_MANAGED,
				       .transform = signed_transform,
				       .transform_arg = (void *)&br_cache_kinds[BR_CACHE_CMS],
				       .compact = compact,
				       .compact_dict = dict,
				       .index_label = SB_LABEL_RUN,
				       .cb = on_ev,
				       .arg = &s};
	struct kube_informer *inf = kube_informer_new(c, &o, NULL);
	CHECK(inf);
	CHECK_INT(kube_informer_start(inf), 0);
	CHECK_INT(kube_informer_wait_synced(inf, 10000), 0);
	/* listed: the informer thread dropped its curl handle (and connection);
	 * only its watch's stays (this thread never requested) */
	struct kube_client_stats st;
	kube_client_stats(c, &st);
	unsigned long handles = st.handles;
	/* the three watch events arrive on the informer thread: wait for the
	 * fourth callback (ADD a, ADD b, UPDATE a, DELETE b), at most 10 s */
	for (int i = 0; i < 500 && nseen(&s) < 4; i++)
		usleep(20000);
	kube_informer_stop(inf);

	/* everything is read, then freed, then checked (a failure leaks nothing) */
	char lsel[256], wsel[256], log[4][64];
	pthread_mutex_lock(&q_lock);
	snprintf(lsel, sizeof(lsel), "%s", list_selector);
	snprintf(wsel, sizeof(wsel), "%s", watch_selector);
	pthread_mutex_unlock(&q_lock);
	int n = s.n;
	for (int i = 0; i < 4; i++)
		snprintf(log[i], sizeof(log[i]), "%s", i < n ? s.log[i] : "");
	/* foreign (list), foreign2 (watch), b (lost its label): never cached */
	size_t count = kube_informer_count(inf);
	size_t bytes = kube_informer_bytes(inf);
	unsigned long dropped = kube_informer_dropped(inf);
	json_t *f = kube_informer_get(inf, "inf", "foreign");
	json_t *f2 = kube_informer_get(inf, "inf", "foreign2");
	json_t *b = kube_informer_get(inf, "inf", "b");
	json_t *a = kube_informer_get(inf, "inf", "a");
	json_t *all = kube_informer_list(inf);
	const char *n0 = json_string_value(
		json_object_get(json_object_get(json_array_get(all, 0), "metadata"), "name"));
	bool list_ok = json_array_size(all) == 1 && n0 && !strcmp(n0, "a");
	json_decref(all);
	/* the index by run: a moved from r1 to r3, b (r2) left the cache */
	json_t *r1 = kube_informer_list_by(inf, "r1"), *r2 = kube_informer_list_by(inf, "r2");
	json_t *r3 = kube_informer_list_by(inf, "r3"), *rnull = kube_informer_list_by(inf, NULL);
	const char *n3 = json_string_value(json_object_get(
		json_object_get(json_array_get(r3, 0), "metadata"), "resourceVersion"));
	char r3rv[16];
	snprintf(r3rv, sizeof(r3rv), "%s", n3 ? n3 : "");
	bool ix_ok = r1 && r2 && r3 && !rnull && json_array_size(r1) == 0 &&
		     json_array_size(r2) == 0 && json_array_size(r3) == 1;
	json_decref(r1);
	json_decref(r2);
	json_decref(r3);
	json_decref(rnull);
	int visited = 0;
	int fe = kube_informer_foreach(inf, count_named_a, &visited);
	bool none = !f && !f2 && !b, have_a = a != NULL;
	json_decref(f);
	json_decref(f2);
	json_decref(b);
	json_t *md = json_object_get(a, "metadata");
	const char *rv = json_string_value(json_object_get(md, "resourceVersion"));
	const char *data =
		json_string_value(json_object_get(json_object_get(a, "data"), SB_RESULT_KEY));
	const char *annot = json_string_value(
		json_object_get(json_object_get(md, "annotations"), SB_ANNOT_RUN));
	bool stripped = !json_object_get(md, "managedFields") &&
			!json_object_get(json_object_get(md, "annotations"),
					 "kubectl.kubernetes.io/last-applied-configuration");
	size_t alen = a ? json_dumpb(a, NULL, 0, JSON_COMPACT) : 0;
	char rvb[16], datab[16], annotb[16];
	snprintf(rvb, sizeof(rvb), "%s", rv ? rv : "");
	snprintf(datab, sizeof(datab), "%s", data ? data : "");
	snprintf(annotb, sizeof(annotb), "%s", annot ? annot : "");
	json_decref(a);
	kube_informer_free(inf);
	kube_client_free(c);

	CHECK_INT(handles, 0);
	CHECK_STR(lsel, SB_SELECTOR_MANAGED);
	CHECK_STR(wsel, SB_SELECTOR_MANAGED);
	CHECK_INT(n, 4);
	CHECK_STR(log[0], "ADD a");
	CHECK_STR(log[1], "ADD b");
	CHECK_STR(log[2], "UPDATE a");
	CHECK_STR(log[3], "DELETE b");
	CHECK_INT(count, 1);
	CHECK_INT(dropped, 3);
	CHECK(none);
	CHECK(have_a);
	CHECK(list_ok);
	CHECK(ix_ok);
	CHECK_STR(r3rv, "101"); /* the object as cached now, parsed (compact) */
	CHECK_INT(fe, 0);
	CHECK_INT(visited, 1);
	CHECK_STR(rvb, "101");
	CHECK_STR(datab, "{}");	 /* the result the report needs */
	CHECK_STR(annotb, "r1"); /* other annotations stay */
	CHECK(stripped);
	/* what the cache's one object takes: its text, or less deflated */
	if (!compact)
		CHECK_INT(bytes, 0);
	else if (!dict)
		CHECK_INT(bytes, alen);
	else
		CHECK(bytes > 4 && bytes < alen / 2);
	return T_PASS;
}

static int test_selector_and_transform(void)
{
	return scenario(false, NULL);
}

/* the same with the cache holding compact text: get/list parse it again */
static int test_selector_and_transform_compact(void)
{
	return scenario(true, NULL);
}

/* and deflated against a dictionary like the objects: the same objects
 * come back, in less than half their text */
static int test_selector_and_transform_deflated(void)
{
	return scenario(true, CM("x", "1", OWNED_LABELS("x")));
}

static int test_transform_error_keeps_object(void)
{
	/* a transform that fails (-ENOMEM) must not lose the object */
	json_t *cm = json_loads(CM("x", "1", OWNED_LABELS("x")), 0, NULL);
	CHECK(cm);
	int r = signed_transform(&cm, (void *)&br_cache_kinds[BR_CACHE_CMS]);
	bool kept = r == 0 && json_object_get(cm, "data");
	json_decref(cm);
	CHECK(kept);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"informer/selector_and_transform", test_selector_and_transform},
	{"informer/selector_and_transform_compact", test_selector_and_transform_compact},
	{"informer/selector_and_transform_deflated", test_selector_and_transform_deflated},
	{"informer/transform_keeps_owned", test_transform_error_keeps_object},
};

int main(void)
{
	static const unsigned char master[BR_PROOF_KEY_BYTES] = {4, 2};
	if (br_proof_set_master(master))
		return 1;
	int r = test_run_all(cases, sizeof(cases) / sizeof(cases[0]));
	atomic_store(&quitting, true);
	if (daemon_)
		MHD_stop_daemon(daemon_);
	return r;
}
