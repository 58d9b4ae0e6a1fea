/* SPDX-License-Identifier: MIT */
/*
 * Object-store targets of a BenchmarkRun (docs/s3.md, docs/benchmarkrun.md):
 * spec.objectStores (S3 endpoints next to the storage classes) and
 * spec.objectWorkloads (warp's operations) or spec.objectProfile (the
 * reference pages' warp runs, scaled by spec.objectProfileScale, expanded
 * into the same workloads), parsed and validated, and the
 * runner pod's arguments and environment for one of them. An object store
 * is a target like a storage class (same name space, same result
 * ConfigMaps and report rows) whose runner pod has no volume.
 */
#ifndef SB_CONTROLLER_RUN_OBJSTORE_H
#define SB_CONTROLLER_RUN_OBJSTORE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define BR_MAX_OBJECT_STORES	8
#define BR_MAX_OBJECT_WORKLOADS 32

struct br_object_store {
	char name[64];
	char host[256]; /* host[:port] of the endpoint */
	bool tls;	/* https:// */
	bool insecure;	/* tls.insecureSkipVerify */
	char region[64];
	char secret[254]; /* Secret with AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY */
	char bucket[64];  /* "" : a new bucket per run (bucketPolicy CreatePerRun) */
};

struct br_object_workload {
	char name[64];
	char benchmark[16]; /* get, put, delete, stat, list, mixed */
	char size[32];	    /* object size, warp's units */
	unsigned concurrent, objects;
	char duration[16];
	unsigned batch; /* delete: keys per multi-object delete; 0: the runner's default (100) */
};

struct br_objstores {
	struct br_object_store stores[BR_MAX_OBJECT_STORES];
	size_t nstores;
	struct br_object_workload wl[BR_MAX_OBJECT_WORKLOADS];
	size_t nwl;
};

/*
 * Parses spec.objectStores and spec.objectWorkloads or spec.objectProfile
 * (with spec.objectProfileScale; spec borrowed). *out
 * is NULL when the run has no object store, else a new allocation (free
 * it). classes[0..nclasses) are the run's storage classes: a store may not
 * share a name with one. Returns 0, -EINVAL with err naming the field,
 * -ENOMEM.
 */
int br_objstores_parse(const json_t *spec, char *const *classes, size_t nclasses,
		       struct br_objstores **out, char *err, size_t errlen);

/* The store called name, or NULL (o may be NULL). */
const struct br_object_store *br_objstore_find(const struct br_objstores *o, const char *name);

/* Runner arguments ("pod", "s3", ...) for store st (new array; NULL on ENOMEM). */
json_t *br_objstore_runner_args(const struct br_objstores *o, const struct br_object_store *st);

/* The env entries with the keys from the store's Secret (new array; NULL on ENOMEM). */
json_t *br_objstore_env(const struct br_object_store *st);

#endif
