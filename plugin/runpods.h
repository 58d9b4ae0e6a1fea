/* SPDX-License-Identifier: MIT */
/*
 * The runner pods of a BenchmarkRun, as `logs` finds them: by the labels
 * the controller puts on them, then checked against the annotations (a
 * label value may be a hash shared by two long names), in the run's order.
 */
#ifndef SB_PLUGIN_RUNPODS_H
#define SB_PLUGIN_RUNPODS_H

#include "plugin/cmd.h"

#include <jansson.h>
#include <stddef.h>

/* metadata.<map>.<key> of o (metadata.<map> itself when key is NULL) when
 * it is a string, else NULL (borrowed). */
const char *sbp_meta_str(const json_t *o, const char *map, const char *key);

/* metadata.name of o, "" when absent (borrowed). */
const char *sbp_obj_name(const json_t *o);

/* The storage class of an object the run owns (annotation, else label), or NULL. */
const char *sbp_obj_class(const json_t *o);

/*
 * The label selector of the run's objects of one component ("runner",
 * "result"), of one class when cls is not NULL, into buf. 0, -EINVAL (a
 * name that cannot be a label), -ENAMETOOLONG.
 */
int sbp_selector(char *buf, size_t len, const char *run, const char *component, const char *cls);

/*
 * The pods of list (a PodList) that belong to the run named name (and to
 * class cls when not NULL), sorted by class in spec order, attempt, name:
 * a new array the caller releases, NULL on ENOMEM.
 */
json_t *sbp_runner_pods(const json_t *list, const json_t *run, const char *name, const char *cls);

/*
 * Lists the runner pods of run (named name, in namespace ns) through x,
 * into *pods (a new sorted array, as sbp_runner_pods). 0, or -errno after
 * printing why.
 */
int sbp_list_runner_pods(struct sbp_ctx *x, const char *ns, const json_t *run, const char *name,
			 const char *cls, json_t **pods);

#endif
