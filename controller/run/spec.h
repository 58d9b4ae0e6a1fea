/* SPDX-License-Identifier: MIT */
/*
 * A BenchmarkRun's spec, parsed and validated, and what it means for the
 * runner: its command-line arguments and, for explicit workloads or a fio
 * job, the job file. Validation uses the runner's own option parser, so a
 * spec the controller accepts is a spec the runner runs; errors name the
 * field: "spec.workloads[2].bs: '3q' is not a size".
 */
#ifndef SB_CONTROLLER_RUN_SPEC_H
#define SB_CONTROLLER_RUN_SPEC_H

#include "controller/lifecycle/spec.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where the runner pod finds its volume (a file system at BR_DATA_DIR or the
 * block device BR_DEVICE) and its job file (BR_SPEC_DIR/BR_JOBFILE_KEY). */
#define BR_DATA_DIR    "/data"
#define BR_DEVICE      "/dev/storagebench"
#define BR_SPEC_DIR    "/etc/storagebench"
#define BR_JOBFILE_KEY "jobs.fio"

/* The CRD's limits, enforced by the controller too (an API server may not check them). */
#define SB_SPEC_MAX_WORKLOADS 64
#define SB_SPEC_MAX_FIOJOB    65536

enum br_cleanup { BR_CLEANUP_ALWAYS, BR_CLEANUP_ON_SUCCESS, BR_CLEANUP_NEVER };

/* Distributed runs (docs/distributed.md): the runner pods of one class. */
#define SB_SPEC_MAX_PODS 64
/* spec.runner.volume: a PVC per pod; one shared (RWX) PVC with a directory per pod, or
 * with the same files for every pod. */
enum br_volume_sharing { BR_VOLUME_PER_POD, BR_VOLUME_SHARED, BR_VOLUME_SHARED_FILE };
/* spec.runner.spread: the topology spread constraint over kubernetes.io/hostname. */
enum br_spread { BR_SPREAD_DO_NOT_SCHEDULE, BR_SPREAD_SCHEDULE_ANYWAY, BR_SPREAD_NONE };

struct br_spec {
	char **classes; /* owned */
	size_t nclasses;
	char volume_size[32];
	uint64_t volume_bytes;
	char access_mode[32];
	bool block; /* volumeMode: Block */
	unsigned iterations;
	unsigned parallelism;
	char profile[32]; /* "" when workloads or fioJob */
	char *jobfile;	  /* generated or given job file text; NULL for a profile */
	char runtime[32], ramp_time[32], test_size[48];
	enum br_cleanup cleanup;
	long pvc_bind_s, iteration_s, run_s;
	long start_s; /* spec.runner.startTimeout: a runner pod not Running by then fails */
	char baseline[254];
	/*
	 * runner pod settings; json values are new references (owned).
	 * security_context (the pod's) and container_security_context are
	 * typed subsets: only the fields listed in docs/benchmarkrun.md, each
	 * type-checked, rebuilt by the parser (never the spec's object).
	 */
	char image[512];
	char pull_policy[16];
	char service_account[254];
	bool host_network;
	char seccomp_type[32];
	char seccomp_profile[256];
	json_t *resources, *node_selector, *tolerations, *affinity, *security_context, *env;
	json_t *container_security_context;
	/* spec.lifecycle (controller/lifecycle/lifecycle.c) and spec.validity (lib/report/validity.h) */
	struct br_lifecycle_spec lifecycle;
	char validity_baseline[254]; /* a class of the run, or "" */
	double validity_cv;	     /* 0: the default */
	double validity_factor;	     /* 0: the default */
	/* distributed runs: pods per class (1: the single-pod layout, no barrier) */
	unsigned pods;
	enum br_volume_sharing volume_sharing;
	enum br_spread spread;
	long barrier_s; /* spec.timeouts.barrier */
	/* object-store targets (controller/run/objstore.h): their names are also in
	 * classes, after the storage classes; NULL when the run has none */
	struct br_objstores *obj;
};

/* The enum names as the CRD spells them. */
const char *br_volume_sharing_name(enum br_volume_sharing v);
const char *br_spread_name(enum br_spread v);

/*
 * Parses and validates spec (borrowed) into s. default_image and
 * default_sa (NULL: "storagebench-runner") are used when spec.runner does
 * not set an image or a serviceAccountName. Returns 0, or -EINVAL with err
 * naming the field, -ENOMEM. Release s with br_spec_release either way.
 */
int br_spec_parse(const json_t *spec, const char *default_image, const char *default_sa,
		  struct br_spec *s, char *err, size_t errlen);
void br_spec_release(struct br_spec *s);

/*
 * The runner's arguments after "storagebench-runner pod" (a new JSON array
 * of strings, caller decrefs; NULL on ENOMEM): the profile or the job file
 * path (jobfile_path, where the spec ConfigMap is mounted), the target
 * (--directory=<data_dir> or --filename=<device>) and the overrides.
 */
json_t *br_spec_runner_args(const struct br_spec *s, const char *jobfile_path, const char *data_dir,
			    const char *device);

/* Total iterations of the run: classes x iterations. */
unsigned br_spec_total_iterations(const struct br_spec *s);

/* Parses a duration of the form "<n>s|m|h". Returns seconds or -1. */
long br_parse_duration_s(const char *s);

#endif
