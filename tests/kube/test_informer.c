/* SPDX-License-Identifier: MIT */
/* The informer against the real API server: sync, add/update/delete events,
 * get/list, and a relist after 410 Gone (through the fault proxy) that
 * reconciles what changed while the watch was down. */
#include "tests/kube/common.h"

#include <pthread.h>

KT_FIXTURE("kt-inf")

struct events {
	pthread_mutex_t lock;
	char log[128][48]; /* "A name", "U name", "D name" */
	int n;
};

static void on_event(enum kube_informer_event ev, const json_t *obj, const json_t *old, void *arg)
{
	struct events *e = arg;
	const char *name = kt_meta(obj, "name");
	if (ev == KUBE_INFORMER_UPDATE && !old)
		name = "update-without-old";
	pthread_mutex_lock(&e->lock);
	if (e->n < 128)
		snprintf(e->log[e->n], sizeof(e->log[0]), "%c %s",
			 ev == KUBE_INFORMER_ADD      ? 'A'
			 : ev == KUBE_INFORMER_UPDATE ? 'U'
						      : 'D',
			 name ? name : "?");
	e->n++;
	pthread_mutex_unlock(&e->lock);
}

/* Waits up to 10 s for an event line. */
static bool wait_event(struct events *e, const char *line)
{
	for (int i = 0; i < 200; i++) {
		pthread_mutex_lock(&e->lock);
		bool found = false;
		for (int j = 0; j < e->n && j < 128; j++)
			if (strcmp(e->log[j], line) == 0)
				found = true;
		pthread_mutex_unlock(&e->lock);
		if (found)
			return true;
		usleep(50000);
	}
	fprintf(stderr, "    no event '%s'\n", line);
	return false;
}

static int test_sync_events_lookup(void)
{
	struct kube_error err;
	struct events ev = {.lock = PTHREAD_MUTEX_INITIALIZER};
	KT_SETUP();
	json_t *cm = kt_configmap("pre", "k", "1");
	EXPECT(kube_create(C, &kube_res_configmaps, NS, cm, NULL, &err), 0, &err);
	json_decref(cm);
	struct kube_informer_opts io = {.resource = &kube_res_configmaps,
					.ns = NS,
					.label_selector = "app=kt",
					.page_size = 2,
					.cb = on_event,
					.arg = &ev};
	struct kube_informer *inf = kube_informer_new(C, &io, &err);
	CHECK(inf);
	CHECK(!kube_informer_has_synced(inf));
	CHECK_INT(kube_informer_start(inf), 0);
	CHECK_INT(kube_informer_start(inf), -EALREADY);
	CHECK_INT(kube_informer_wait_synced(inf, 10000), 0);
	CHECK(kube_informer_has_synced(inf));
	CHECK(wait_event(&ev, "A pre"));
	CHECK_INT(kube_informer_count(inf), 1); /* kube-root-ca.crt has no app=kt label */

	cm = kt_configmap("live", "k", "1");
	EXPECT(kube_create(C, &kube_res_configmaps, NS, cm, NULL, &err), 0, &err);
	json_decref(cm);
	CHECK(wait_event(&ev, "A live"));
	json_t *p = json_pack("{s:{s:s}}", "data", "k", "2");
	EXPECT(kube_patch(C, &kube_res_configmaps, NS, "live", p, NULL, NULL, &err), 0, &err);
	json_decref(p);
	CHECK(wait_event(&ev, "U live"));
	json_t *got = kube_informer_get(inf, NS, "live");
	CHECK(got);
	CHECK_STR(json_string_value(json_object_get(json_object_get(got, "data"), "k")), "2");
	CHECK_STR(json_string_value(json_object_get(got, "kind")), "ConfigMap");
	/* managedFields kept unless strip_managed_fields */
	CHECK(json_object_get(json_object_get(got, "metadata"), "managedFields") != NULL);
	json_decref(got);
	/* The listed object got kind/apiVersion like watched ones. */
	got = kube_informer_get(inf, NS, "pre");
	CHECK(got);
	CHECK_STR(json_string_value(json_object_get(got, "kind")), "ConfigMap");
	CHECK_STR(json_string_value(json_object_get(got, "apiVersion")), "v1");
	json_decref(got);
	EXPECT(kube_delete(C, &kube_res_configmaps, NS, "pre", NULL, NULL, &err), 0, &err);
	CHECK(wait_event(&ev, "D pre"));
	CHECK(kube_informer_get(inf, NS, "pre") == NULL);
	json_t *all = kube_informer_list(inf);
	CHECK_INT(json_array_size(all), 1);
	CHECK_STR(kt_meta(json_array_get(all, 0), "name"), "live");
	json_decref(all);
	CHECK_INT(kube_informer_lists(inf), 1);
	kube_informer_stop(inf);
	/* The cache stays readable after stop. */
	CHECK_INT(kube_informer_count(inf), 1);
	kube_informer_free(inf);
	return T_PASS;
}

static int test_relist_after_410(void)
{
	struct kube_error err;
	struct events ev = {.lock = PTHREAD_MUTEX_INITIALIZER};
	KT_SETUP();
	if (!kt_proxy_kubeconfig() || !kt_proxy_control())
		SKIP(KT_NO_CLUSTER);
	CHECK_INT(kt_proxy_reset(), 0);
	struct kube_client_opts o = {.backoff_base_ms = 100, .backoff_cap_ms = 500};
	struct kube_client *p = kt_client_opts(kt_proxy_kubeconfig(), &o);
	CHECK(p);
	json_t *cm = kt_configmap("old", "k", "1");
	EXPECT(kube_create(C, &kube_res_configmaps, NS, cm, NULL, &err), 0, &err);
	json_decref(cm);
	struct kube_informer_opts io = {.resource = &kube_res_configmaps,
					.ns = NS,
					.label_selector = "app=kt",
					.strip_managed_fields = true,
					.cb = on_event,
					.arg = &ev};
	struct kube_informer *inf = kube_informer_new(p, &io, &err);
	CHECK(inf);
	CHECK_INT(kube_informer_start(inf), 0);
	CHECK_INT(kube_informer_wait_synced(inf, 10000), 0);
	CHECK(wait_event(&ev, "A old"));
	CHECK_INT(kube_informer_lists(inf), 1);

	/* The next watch is answered 410; then every connection is closed and
	 * refused for 1 s while "old" is deleted and "new" created: only a
	 * relist can tell the informer. */
	char r410[512];
	snprintf(r410, sizeof(r410),
		 "{\"method\":\"GET\",\"path\":\"/namespaces/%s/configmaps\\\\?.*watch=1\","
		 "\"action\":\"status\",\"status\":410,\"count\":1}",
		 NS);
	CHECK_INT(kt_proxy_rule(r410), 0);
	sb_log_set_level(SB_LOG_ERROR);
	CHECK_INT(kt_proxy_rule("{\"method\":\"*\",\"path\":\".\",\"action\":\"refuse\","
				"\"duration_ms\":1000,\"now\":true}"),
		  0);
	EXPECT(kube_delete(C, &kube_res_configmaps, NS, "old", NULL, NULL, &err), 0, &err);
	cm = kt_configmap("new", "k", "1");
	EXPECT(kube_create(C, &kube_res_configmaps, NS, cm, NULL, &err), 0, &err);
	json_decref(cm);
	bool got_new = wait_event(&ev, "A new"), got_del = wait_event(&ev, "D old");
	sb_log_set_level(SB_LOG_INFO);
	CHECK(got_new && got_del);
	CHECK(kube_informer_lists(inf) >= 2);
	CHECK(kt_proxy_count("watch=1", "status") >= 1); /* the 410 was served */
	json_t *n = kube_informer_get(inf, NS, "new");
	CHECK(n);
	CHECK(json_object_get(json_object_get(n, "metadata"), "managedFields") == NULL);
	CHECK(json_object_get(json_object_get(n, "metadata"), "uid") != NULL);
	json_decref(n);
	CHECK(kube_informer_get(inf, NS, "old") == NULL);
	kube_informer_free(inf);
	kube_client_free(p);
	kt_proxy_reset();
	return T_PASS;
}

static const struct test_case cases[] = {
	{"kube-informer/sync-events-lookup", test_sync_events_lookup},
	{"kube-informer/relist-after-410", test_relist_after_410},
};

int main(void)
{
	int r = test_run_all(cases, sizeof(cases) / sizeof(cases[0]));
	if (C) {
		kt_namespace_delete(C, NS);
		kube_client_free(C);
	}
	return r;
}
