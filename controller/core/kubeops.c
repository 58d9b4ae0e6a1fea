/* SPDX-License-Identifier: MIT */
/* The operations table over lib/kube and the controller's informers (controller/core/kubeops.h). */
#include "controller/core/kubeops.h"
#include "controller/core/controller.h"
#include "controller/lifecycle/lifecycle.h"

#include <errno.h>
#include <string.h>

static int k_create(void *arg, const struct kube_resource *r, const char *ns, const json_t *obj,
		    struct kube_error *err)
{
	struct br_controller *c = arg;
	return kube_create(c->kc, r, ns, obj, NULL, err);
}

static int k_get(void *arg, const struct kube_resource *r, const char *ns, const char *name,
		 json_t **out, struct kube_error *err)
{
	struct br_controller *c = arg;
	return kube_get(c->kc, r, ns, name, out, err);
}

static int k_del(void *arg, const struct kube_resource *r, const char *ns, const char *name,
		 struct kube_error *err)
{
	struct br_controller *c = arg;
	struct kube_delete_opts d = KUBE_DELETE_OPTS_INIT;
	d.propagation_policy = "Background";
	return kube_delete(c->kc, r, ns, name, &d, NULL, err);
}

static int k_patch_status(void *arg, const struct kube_resource *r, const char *ns,
			  const char *name, const json_t *patch, char *rv, size_t rvlen,
			  struct kube_error *err)
{
	struct br_controller *c = arg;
	json_t *out = NULL;
	int ret = kube_patch_status(c->kc, r, ns, name, patch, NULL, rv ? &out : NULL, err);
	if (rv && rvlen) {
		const char *v = json_string_value(
			json_object_get(json_object_get(out, "metadata"), "resourceVersion"));
		snprintf(rv, rvlen, "%s", !ret && v ? v : "");
	}
	json_decref(out);
	return ret;
}

static int k_list(void *arg, const struct kube_resource *r, const char *ns,
		  const char *field_selector, json_t **out, struct kube_error *err)
{
	struct br_controller *c = arg;
	struct kube_list_opts lo = {0};
	lo.field_selector = field_selector;
	return kube_list(c->kc, r, ns, &lo, out, err);
}

static int k_list_labeled(void *arg, const struct kube_resource *r, const char *ns,
			  const char *label_selector, json_t **out, struct kube_error *err)
{
	struct br_controller *c = arg;
	struct kube_list_opts lo = {0};
	lo.label_selector = label_selector;
	return kube_list(c->kc, r, ns, &lo, out, err);
}

/* The informer of kind k that watches ns (the storage classes' for BR_CACHE_SCS). */
static struct kube_informer *informer_for(struct br_controller *c, enum br_cache_kind k,
					  const char *ns)
{
	if (k == BR_CACHE_SCS)
		return c->scs;
	for (size_t i = 0; ns && i < c->nwatches; i++) {
		struct br_watch *w = &c->watches[i];
		if (w->ns && strcmp(w->ns, ns))
			continue;
		return k == BR_CACHE_RUNS	 ? w->runs
		       : k == BR_CACHE_PVCS	 ? w->pvcs
		       : k == BR_CACHE_PODS	 ? w->pods
		       : k == BR_CACHE_SCHEDULES ? w->schedules
						 : w->cms;
	}
	return NULL;
}

static json_t *k_cache_get(void *arg, enum br_cache_kind k, const char *ns, const char *name)
{
	struct kube_informer *inf = informer_for(arg, k, ns);
	return inf ? kube_informer_get(inf, k == BR_CACHE_SCS ? NULL : ns, name) : NULL;
}

static json_t *k_cache_list(void *arg, enum br_cache_kind k, const char *ns, const char *run_label)
{
	struct kube_informer *inf = informer_for(arg, k, ns);
	if (!inf)
		return json_array();
	return run_label ? kube_informer_list_by(inf, run_label) : kube_informer_list(inf);
}

static time_t k_now(void *arg)
{
	(void)arg;
	return time(NULL);
}

static int k_lifecycle_measure(void *arg, const struct br_ref *ref,
			       const struct br_lifecycle_spec *ls, const char *cls,
			       const json_t *sc, const json_t *pod_template, unsigned iteration,
			       json_t **result, char *err, size_t errlen)
{
	struct br_controller *c = arg;
	return br_lifecycle_measure(c->kc, ref, ls, cls, sc, pod_template, iteration, result, err,
				    errlen);
}

void br_ops_kube(struct br_controller *c, struct br_ops *out)
{
	*out = (struct br_ops){
		.arg = c,
		.create = k_create,
		.get = k_get,
		.del = k_del,
		.patch_status = k_patch_status,
		.list = k_list,
		.cache_get = k_cache_get,
		.cache_list = k_cache_list,
		.now = k_now,
		.lifecycle_measure = k_lifecycle_measure,
		.list_labeled = k_list_labeled,
	};
}
