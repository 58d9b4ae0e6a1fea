/* SPDX-License-Identifier: MIT */
/* The runner pods of a BenchmarkRun, as the plugin finds them (see runpods.h). */
#include "plugin/runpods.h"

#include "core/labels.h"
#include "core/names.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sbp_meta_str(const json_t *o, const char *map, const char *key)
{
	const json_t *m = json_object_get(json_object_get(o, "metadata"), map);
	const json_t *v = key ? json_object_get(m, key) : m;
	return json_is_string(v) ? json_string_value(v) : NULL;
}

const char *sbp_obj_name(const json_t *o)
{
	const json_t *v = json_object_get(json_object_get(o, "metadata"), "name");
	return json_is_string(v) ? json_string_value(v) : "";
}

/* The storage class of an object the run owns (annotation, else label). */
const char *sbp_obj_class(const json_t *o)
{
	const char *c = sbp_meta_str(o, "annotations", SB_ANNOT_CLASS);
	return c ? c : sbp_meta_str(o, "labels", SB_LABEL_CLASS);
}

/* "storagebench.io/run=<run>,app.kubernetes.io/component=<comp>[,storagebench.io/class=<c>]" */
int sbp_selector(char *buf, size_t len, const char *run, const char *component, const char *cls)
{
	char rl[64], cl[64];
	if (sb_name_label(rl, sizeof(rl), run) || (cls && sb_name_label(cl, sizeof(cl), cls)))
		return -EINVAL;
	int n = snprintf(buf, len, "%s=%s,%s=%s%s%s%s%s", SB_LABEL_RUN, rl, SB_LABEL_COMPONENT,
			 component, cls ? "," : "", cls ? SB_LABEL_CLASS : "", cls ? "=" : "",
			 cls ? cl : "");
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Index of class c in the run's spec.storageClasses (unknown ones last). */
static size_t class_index(const json_t *run, const char *c)
{
	const json_t *arr = json_object_get(json_object_get(run, "spec"), "storageClasses");
	size_t i;
	const json_t *v;
	json_array_foreach(arr, i, v)
	{
		if (c && json_is_string(v) && !strcmp(json_string_value(v), c))
			return i;
	}
	return (size_t)-1;
}

/* Pods by class (in the run's order), attempt, name. arg: the run. */
static int pod_cmp(const void *a, const void *b, void *arg)
{
	const json_t *run = arg;
	const json_t *pa = *(const json_t *const *)a, *pb = *(const json_t *const *)b;
	size_t ca = class_index(run, sbp_obj_class(pa)), cb = class_index(run, sbp_obj_class(pb));
	if (ca != cb)
		return ca < cb ? -1 : 1;
	const char *aa = sbp_meta_str(pa, "labels", SB_LABEL_ATTEMPT);
	const char *ab = sbp_meta_str(pb, "labels", SB_LABEL_ATTEMPT);
	unsigned long na = aa ? strtoul(aa, NULL, 10) : 0, nb = ab ? strtoul(ab, NULL, 10) : 0;
	if (na != nb)
		return na < nb ? -1 : 1;
	return strcmp(sbp_obj_name(pa), sbp_obj_name(pb));
}

/* The pods of list that belong to run (and class cls), sorted; a new array. */
json_t *sbp_runner_pods(const json_t *list, const json_t *run, const char *name, const char *cls)
{
	json_t *out = json_array();
	size_t i;
	const json_t *p;
	if (!out)
		return NULL;
	json_array_foreach(json_object_get(list, "items"), i, p)
	{
		const char *r = sbp_meta_str(p, "annotations", SB_ANNOT_RUN);
		const char *c = sbp_obj_class(p);
		if ((r && strcmp(r, name)) || (cls && (!c || strcmp(c, cls))))
			continue; /* a label value shared after hashing: not ours */
		if (json_array_append(out, (json_t *)p)) {
			json_decref(out);
			return NULL;
		}
	}
	size_t n = json_array_size(out);
	const json_t **v = calloc(n ? n : 1, sizeof(*v));
	if (!v) {
		json_decref(out);
		return NULL;
	}
	for (i = 0; i < n; i++)
		v[i] = json_array_get(out, i);
	qsort_r(v, n, sizeof(*v), pod_cmp, (void *)run);
	json_t *sorted = json_array();
	for (i = 0; sorted && i < n; i++)
		if (json_array_append(sorted, (json_t *)v[i])) {
			json_decref(sorted);
			sorted = NULL;
		}
	free(v);
	json_decref(out);
	return sorted;
}

int sbp_list_runner_pods(struct sbp_ctx *x, const char *ns, const json_t *run, const char *name,
			 const char *cls, json_t **pods)
{
	struct kube_error err = KUBE_ERROR_INIT;
	json_t *list = NULL;
	char sel[512];

	*pods = NULL;
	if (sbp_selector(sel, sizeof(sel), name, SB_COMPONENT_RUNNER, cls)) {
		sbp_err("cannot make a label selector for '%s'", name);
		return -EINVAL;
	}
	struct kube_list_opts lo = {.label_selector = sel};
	int ret = kube_list(x->kc, &kube_res_pods, ns, &lo, &list, &err);
	if (ret) {
		sbp_api_err(x, ret, &err, "cannot list the runner pods of benchmarkrun '%s'", name);
		return ret;
	}
	*pods = sbp_runner_pods(list, run, name, cls);
	json_decref(list);
	if (!*pods) {
		sbp_err("out of memory");
		return -ENOMEM;
	}
	return 0;
}
