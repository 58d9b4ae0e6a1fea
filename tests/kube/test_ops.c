/* SPDX-License-Identifier: MIT */
/* lib/kube against the real API server: every operation and every error
 * mapping, namespaced and cluster-scoped, a custom resource with its status
 * subresource, connection reuse. */
#include "tests/kube/common.h"

KT_FIXTURE("kt-ops")

static int test_crud_and_conflicts(void)
{
	struct kube_error err;
	json_t *cm, *got = NULL, *out = NULL;
	KT_SETUP();
	cm = kt_configmap("crud", "k", "v1");
	EXPECT(kube_create(C, &kube_res_configmaps, NS, cm, &out, &err), 0, &err);
	CHECK_STR(kt_meta(out, "name"), "crud");
	CHECK_STR(kt_meta(out, "namespace"), NS);
	char uid[64], rv1[32];
	snprintf(uid, sizeof(uid), "%s", kt_meta(out, "uid"));
	snprintf(rv1, sizeof(rv1), "%s", kt_meta(out, "resourceVersion"));
	json_decref(out);

	/* 409 AlreadyExists */
	EXPECT(kube_create(C, &kube_res_configmaps, NS, cm, NULL, &err), -EEXIST, &err);
	CHECK_INT(err.http_code, 409);
	CHECK_STR(err.reason, "AlreadyExists");
	CHECK(strstr(err.message, "already exists") != NULL);

	EXPECT(kube_get(C, &kube_res_configmaps, NS, "crud", &got, &err), 0, &err);
	CHECK_STR(json_string_value(json_object_get(json_object_get(got, "data"), "k")), "v1");

	/* update with the current resourceVersion */
	json_object_set_new(json_object_get(got, "data"), "k", json_string("v2"));
	EXPECT(kube_update(C, &kube_res_configmaps, NS, got, &out, &err), 0, &err);
	CHECK(strcmp(kt_meta(out, "resourceVersion"), rv1) != 0);
	json_decref(out);
	/* again with the now stale version: 409 Conflict */
	json_object_set_new(json_object_get(got, "data"), "k", json_string("v3"));
	EXPECT(kube_update(C, &kube_res_configmaps, NS, got, NULL, &err), -EAGAIN, &err);
	CHECK_INT(err.http_code, 409);
	CHECK_STR(err.reason, "Conflict");
	json_decref(got);

	/* delete with a failing uid precondition: 409 Conflict */
	struct kube_delete_opts d = KUBE_DELETE_OPTS_INIT;
	d.precondition_uid = "00000000-0000-0000-0000-000000000000";
	EXPECT(kube_delete(C, &kube_res_configmaps, NS, "crud", &d, NULL, &err), -EAGAIN, &err);
	CHECK_INT(err.http_code, 409);
	d.precondition_resource_version = rv1; /* stale */
	d.precondition_uid = uid;
	EXPECT(kube_delete(C, &kube_res_configmaps, NS, "crud", &d, NULL, &err), -EAGAIN, &err);
	/* right uid, propagation policy */
	d.precondition_resource_version = NULL;
	d.propagation_policy = "Background";
	d.grace_period_seconds = 0;
	EXPECT(kube_delete(C, &kube_res_configmaps, NS, "crud", &d, &out, &err), 0, &err);
	json_decref(out);
	/* 404 */
	EXPECT(kube_get(C, &kube_res_configmaps, NS, "crud", NULL, &err), -ENOENT, &err);
	CHECK_INT(err.http_code, 404);
	CHECK_STR(err.reason, "NotFound");
	EXPECT(kube_delete(C, &kube_res_configmaps, NS, "crud", NULL, NULL, &err), -ENOENT, &err);
	json_decref(cm);
	return T_PASS;
}

static int test_list_selectors_pages(void)
{
	struct kube_error err;
	json_t *l = NULL;
	char name[32];
	KT_SETUP();
	for (int i = 0; i < 7; i++) {
		snprintf(name, sizeof(name), "page-%d", i);
		json_t *cm = kt_configmap(name, "i", "x");
		json_object_set_new(json_object_get(json_object_get(cm, "metadata"), "labels"),
				    "set", json_string(NS));
		EXPECT(kube_create(C, &kube_res_configmaps, NS, cm, NULL, &err), 0, &err);
		json_decref(cm);
	}
	char sel[128];
	snprintf(sel, sizeof(sel), "set=%s,app in (kt)", NS);
	struct kube_list_opts lo = {.label_selector = sel, .limit = 3};
	struct kube_client_stats before, after;
	kube_client_stats(C, &before);
	EXPECT(kube_list(C, &kube_res_configmaps, NS, &lo, &l, &err), 0, &err);
	kube_client_stats(C, &after);
	CHECK_INT(json_array_size(json_object_get(l, "items")), 7);
	CHECK_INT(after.requests - before.requests, 3); /* 3 + 3 + 1 */
	CHECK(json_string_value(
		      json_object_get(json_object_get(l, "metadata"), "resourceVersion")) != NULL);
	CHECK(json_object_get(json_object_get(l, "metadata"), "continue") == NULL);
	json_decref(l);

	lo = (struct kube_list_opts){.field_selector = "metadata.name=page-3"};
	EXPECT(kube_list(C, &kube_res_configmaps, NS, &lo, &l, &err), 0, &err);
	CHECK_INT(json_array_size(json_object_get(l, "items")), 1);
	CHECK_STR(kt_meta(json_array_get(json_object_get(l, "items"), 0), "name"), "page-3");
	json_decref(l);

	/* All namespaces: ours are among them (the label is unique to this run). */
	lo = (struct kube_list_opts){.label_selector = sel};
	EXPECT(kube_list(C, &kube_res_configmaps, NULL, &lo, &l, &err), 0, &err);
	CHECK_INT(json_array_size(json_object_get(l, "items")), 7);
	json_decref(l);

	/* 400 BadRequest: an unparsable selector */
	lo = (struct kube_list_opts){.label_selector = "app in (kt"};
	EXPECT(kube_list(C, &kube_res_configmaps, NS, &lo, &l, &err), -EINVAL, &err);
	CHECK_INT(err.http_code, 400);
	CHECK(l == NULL);
	return T_PASS;
}

static const char *data_of(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(json_object_get(o, "data"), k));
}

static int test_patch_kinds(void)
{
	struct kube_error err;
	json_t *out = NULL, *p;
	KT_SETUP();
	json_t *cm = kt_configmap("patched", "a", "1");
	EXPECT(kube_create(C, &kube_res_configmaps, NS, cm, NULL, &err), 0, &err);
	json_decref(cm);

	p = json_pack("{s:{s:s}}", "data", "b", "2");
	EXPECT(kube_patch(C, &kube_res_configmaps, NS, "patched", p, NULL, &out, &err), 0, &err);
	CHECK_STR(data_of(out, "a"), "1");
	CHECK_STR(data_of(out, "b"), "2");
	json_decref(out);
	json_decref(p);

	struct kube_patch_opts po = {.type = KUBE_PATCH_JSON};
	p = json_pack("[{s:s, s:s, s:s}, {s:s, s:s}]", "op", "replace", "path", "/data/a", "value",
		      "10", "op", "remove", "path", "/data/b");
	EXPECT(kube_patch(C, &kube_res_configmaps, NS, "patched", p, &po, &out, &err), 0, &err);
	CHECK_STR(data_of(out, "a"), "10");
	CHECK(data_of(out, "b") == NULL);
	json_decref(out);
	json_decref(p);
	/* A JSON patch that does not apply: 422 Invalid */
	p = json_pack("[{s:s, s:s}]", "op", "remove", "path", "/data/nope");
	int r = kube_patch(C, &kube_res_configmaps, NS, "patched", p, &po, NULL, &err);
	json_decref(p);
	CHECK(kt_expect(r, -EINVAL, &err, __LINE__));
	CHECK(err.http_code == 422 || err.http_code == 400);

	po.type = KUBE_PATCH_STRATEGIC;
	p = json_pack("{s:{s:s}}", "data", "c", "3");
	EXPECT(kube_patch(C, &kube_res_configmaps, NS, "patched", p, &po, &out, &err), 0, &err);
	CHECK_STR(data_of(out, "c"), "3");
	json_decref(out);
	json_decref(p);

	/* Server-side apply: manager A owns data.owned ... */
	po = (struct kube_patch_opts){.type = KUBE_PATCH_APPLY, .field_manager = "kt-a"};
	p = json_pack("{s:s, s:s, s:{s:s}, s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
		      "metadata", "name", "patched", "data", "owned", "by-a");
	EXPECT(kube_patch(C, &kube_res_configmaps, NS, "patched", p, &po, &out, &err), 0, &err);
	CHECK_STR(data_of(out, "owned"), "by-a");
	json_decref(out);
	json_decref(p);
	/* ... manager B conflicts without force (409) and wins with it. */
	po.field_manager = "kt-b";
	p = json_pack("{s:s, s:s, s:{s:s}, s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
		      "metadata", "name", "patched", "data", "owned", "by-b");
	EXPECT(kube_patch(C, &kube_res_configmaps, NS, "patched", p, &po, NULL, &err), -EAGAIN,
	       &err);
	CHECK_INT(err.http_code, 409);
	po.force = true;
	EXPECT(kube_patch(C, &kube_res_configmaps, NS, "patched", p, &po, &out, &err), 0, &err);
	CHECK_STR(data_of(out, "owned"), "by-b");
	json_decref(out);
	po.field_manager = NULL; /* apply needs a manager: refused locally */
	EXPECT(kube_patch(C, &kube_res_configmaps, NS, "patched", p, &po, NULL, &err), -EINVAL,
	       &err);
	CHECK_INT(err.http_code, 0);
	json_decref(p);
	/* Patch of something missing: 404 */
	p = json_pack("{s:{s:s}}", "data", "x", "y");
	EXPECT(kube_patch(C, &kube_res_configmaps, NS, "nope", p, NULL, NULL, &err), -ENOENT, &err);
	json_decref(p);
	return T_PASS;
}

static const struct kube_resource res_crd_objs = {"kube.storagebench.io", "v1", "widgets", true};

static int ensure_crd(void)
{
	struct kube_error err;
	json_t *crd = json_pack(
		"{s:s, s:s, s:{s:s}, s:{s:s, s:s, s:{s:s, s:s, s:s}, s:[{s:s, s:b, s:b, "
		"s:{s:{}}, s:{s:{s:s, s:b}}}]}}",
		"apiVersion", "apiextensions.k8s.io/v1", "kind", "CustomResourceDefinition",
		"metadata", "name", "widgets.kube.storagebench.io", "spec", "group",
		"kube.storagebench.io", "scope", "Namespaced", "names", "plural", "widgets",
		"singular", "widget", "kind", "Widget", "versions", "name", "v1", "served", 1,
		"storage", 1, "subresources", "status", "schema", "openAPIV3Schema", "type",
		"object", "x-kubernetes-preserve-unknown-fields", 1);
	if (!crd)
		return -ENOMEM;
	int r = kube_create(C, &kube_res_crds, NULL, crd, NULL, &err);
	json_decref(crd);
	if (r && r != -EEXIST)
		return r;
	/* Wait until the new resource is served. */
	for (int i = 0; i < 100; i++) {
		r = kube_list(C, &res_crd_objs, NS, NULL, NULL, &err);
		if (r != -ENOENT)
			return r;
		usleep(100000);
	}
	return -ETIMEDOUT;
}

static int test_status_subresource(void)
{
	struct kube_error err;
	json_t *out = NULL, *st = NULL;
	KT_SETUP();
	CHECK_INT(ensure_crd(), 0);
	json_t *w =
		json_pack("{s:s, s:s, s:{s:s}, s:{s:i}}", "apiVersion", "kube.storagebench.io/v1",
			  "kind", "Widget", "metadata", "name", "w1", "spec", "size", 3);
	EXPECT(kube_create(C, &res_crd_objs, NS, w, &out, &err), 0, &err);
	json_decref(w);
	/* update_status: status changes, spec changes are ignored there */
	json_object_set_new(out, "status", json_pack("{s:s}", "phase", "Ready"));
	json_object_set_new(json_object_get(out, "spec"), "size", json_integer(99));
	EXPECT(kube_update_status(C, &res_crd_objs, NS, out, &st, &err), 0, &err);
	CHECK_STR(json_string_value(json_object_get(json_object_get(st, "status"), "phase")),
		  "Ready");
	CHECK_INT(json_integer_value(json_object_get(json_object_get(st, "spec"), "size")), 3);
	json_decref(st);
	json_decref(out);
	/* patch_status */
	json_t *p = json_pack("{s:{s:s}}", "status", "message", "patched");
	EXPECT(kube_patch_status(C, &res_crd_objs, NS, "w1", p, NULL, NULL, &err), 0, &err);
	json_decref(p);
	EXPECT(kube_get_status(C, &res_crd_objs, NS, "w1", &st, &err), 0, &err);
	CHECK_STR(json_string_value(json_object_get(json_object_get(st, "status"), "message")),
		  "patched");
	CHECK_STR(json_string_value(json_object_get(json_object_get(st, "status"), "phase")),
		  "Ready");
	/* a patch carrying a resourceVersion is conditional: a stale one is a
	 * Conflict and writes nothing (the controller relies on this) */
	p = json_pack("{s:{s:s},s:{s:s}}", "metadata", "resourceVersion",
		      kt_meta(st, "resourceVersion"), "status", "message", "current");
	EXPECT(kube_patch_status(C, &res_crd_objs, NS, "w1", p, NULL, NULL, &err), 0, &err);
	json_decref(p);
	p = json_pack("{s:{s:s},s:{s:s}}", "metadata", "resourceVersion",
		      kt_meta(st, "resourceVersion"), "status", "message", "stale");
	EXPECT(kube_patch_status(C, &res_crd_objs, NS, "w1", p, NULL, NULL, &err), -EAGAIN, &err);
	CHECK_INT(err.http_code, 409);
	CHECK_STR(err.reason, "Conflict");
	json_decref(p);
	json_decref(st);
	EXPECT(kube_get_status(C, &res_crd_objs, NS, "w1", &st, &err), 0, &err);
	CHECK_STR(json_string_value(json_object_get(json_object_get(st, "status"), "message")),
		  "current");
	json_decref(st);
	/* a plain update does not touch status */
	EXPECT(kube_get(C, &res_crd_objs, NS, "w1", &out, &err), 0, &err);
	json_object_set_new(out, "status", json_pack("{s:s}", "phase", "Ignored"));
	EXPECT(kube_update(C, &res_crd_objs, NS, out, &st, &err), 0, &err);
	CHECK_STR(json_string_value(json_object_get(json_object_get(st, "status"), "phase")),
		  "Ready");
	json_decref(st);
	json_decref(out);
	EXPECT(kube_get_status(C, &res_crd_objs, NS, "nope", NULL, &err), -ENOENT, &err);
	return T_PASS;
}

static int test_cluster_scoped(void)
{
	struct kube_error err;
	json_t *o = NULL;
	KT_SETUP();
	EXPECT(kube_get(C, &kube_res_namespaces, "ignored", NS, &o, &err), 0, &err);
	CHECK_STR(kt_meta(o, "name"), NS);
	CHECK(kt_meta(o, "namespace") == NULL);
	json_decref(o);
	EXPECT(kube_list(C, &kube_res_namespaces, NULL, NULL, &o, &err), 0, &err);
	CHECK(json_array_size(json_object_get(o, "items")) >= 4);
	json_decref(o);
	EXPECT(kube_list(C, &kube_res_storageclasses, NULL, NULL, &o, &err), 0, &err);
	CHECK(json_is_array(json_object_get(o, "items")));
	json_decref(o);
	return T_PASS;
}

static int test_invalid_422(void)
{
	struct kube_error err;
	KT_SETUP();
	json_t *cm = kt_configmap("Bad_Name!", "k", "v");
	EXPECT(kube_create(C, &kube_res_configmaps, NS, cm, NULL, &err), -EINVAL, &err);
	CHECK_INT(err.http_code, 422);
	CHECK_STR(err.reason, "Invalid");
	json_decref(cm);
	return T_PASS;
}

static int test_unauthorized_401(void)
{
	struct kube_config cfg;
	struct kube_error err;
	KT_SETUP();
	CHECK_INT(kube_config_load_file(&cfg, kt_kubeconfig(), &err), 0);
	free(cfg.token);
	cfg.token = strdup("not-a-valid-token");
	struct kube_client *c = kube_client_new(&cfg, NULL, &err);
	kube_config_release(&cfg);
	CHECK(c);
	EXPECT(kube_get(c, &kube_res_namespaces, NULL, "default", NULL, &err), -EPERM, &err);
	CHECK_INT(err.http_code, 401);
	CHECK_STR(err.reason, "Unauthorized");
	kube_client_free(c);
	return T_PASS;
}

static int test_forbidden_403(void)
{
	struct kube_config cfg;
	struct kube_error err;
	char *tok = NULL;
	KT_SETUP();
	CHECK_INT(kt_service_account(C, NS, "nobody", false), 0);
	CHECK_INT(kt_sa_token(C, NS, "nobody", NULL, &tok), 0);
	CHECK_INT(kube_config_load_file(&cfg, kt_kubeconfig(), &err), 0);
	free(cfg.token);
	cfg.token = tok;
	struct kube_client *c = kube_client_new(&cfg, NULL, &err);
	kube_config_release(&cfg);
	CHECK(c);
	EXPECT(kube_get(c, &kube_res_configmaps, NS, "x", NULL, &err), -EACCES, &err);
	CHECK_INT(err.http_code, 403);
	CHECK_STR(err.reason, "Forbidden");
	CHECK(strstr(err.message, "system:serviceaccount:") != NULL);
	kube_client_free(c);
	return T_PASS;
}

static int test_transport_eio(void)
{
	struct kube_config cfg;
	struct kube_error err;
	KT_SETUP();
	CHECK_INT(kube_config_load_file(&cfg, kt_kubeconfig(), &err), 0);
	free(cfg.server);
	cfg.server = strdup("https://127.0.2.1:1"); /* nothing listens */
	struct kube_client_opts o = {.max_retries = 2, .backoff_base_ms = 10};
	struct kube_client *c = kube_client_new(&cfg, &o, &err);
	kube_config_release(&cfg);
	CHECK(c);
	sb_log_set_level(SB_LOG_ERROR);
	int r = kube_get(c, &kube_res_namespaces, NULL, "default", NULL, &err);
	sb_log_set_level(SB_LOG_INFO);
	CHECK(kt_expect(r, -EIO, &err, __LINE__));
	CHECK_INT(err.http_code, 0);
	CHECK(err.curl[0] != '\0');
	struct kube_client_stats st;
	kube_client_stats(c, &st);
	CHECK_INT(st.requests, 3); /* refused connections are retried */
	kube_client_free(c);
	return T_PASS;
}

static int test_connection_reuse(void)
{
	struct kube_client_stats a, b;
	KT_SETUP();
	CHECK_INT(kube_get(C, &kube_res_namespaces, NULL, "default", NULL, NULL), 0);
	kube_client_stats(C, &a);
	for (int i = 0; i < 20; i++)
		CHECK_INT(kube_get(C, &kube_res_namespaces, NULL, "default", NULL, NULL), 0);
	kube_client_stats(C, &b);
	CHECK_INT(b.requests - a.requests, 20);
	CHECK_INT(b.connects - a.connects, 0);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"kube-ops/crud-and-conflicts", test_crud_and_conflicts},
	{"kube-ops/list-selectors-pages", test_list_selectors_pages},
	{"kube-ops/patch-merge-json-strategic-apply", test_patch_kinds},
	{"kube-ops/status-subresource", test_status_subresource},
	{"kube-ops/cluster-scoped", test_cluster_scoped},
	{"kube-ops/invalid-422", test_invalid_422},
	{"kube-ops/unauthorized-401", test_unauthorized_401},
	{"kube-ops/forbidden-403", test_forbidden_403},
	{"kube-ops/transport-eio", test_transport_eio},
	{"kube-ops/connection-reuse", test_connection_reuse},
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
