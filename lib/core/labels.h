/* SPDX-License-Identifier: MIT */
/*
 * Labels and annotations on the objects a BenchmarkRun owns. The controller
 * selects its objects by them; the runner puts them on the result
 * ConfigMaps it writes; users filter with them (kubectl get cm -l ...).
 */
#ifndef SB_LIB_CORE_LABELS_H
#define SB_LIB_CORE_LABELS_H

#define SB_API_GROUP	    "storagebench.io"
#define SB_API_VERSION_ONLY "v1alpha1"
#define SB_API_VERSION	    SB_API_GROUP "/" SB_API_VERSION_ONLY
/* the custom resources' plural names (URL paths, RBAC rules) */
#define SB_PLURAL_RUNS	    "benchmarkruns"
#define SB_PLURAL_SCHEDULES "benchmarkschedules"
#define SB_KIND		    "BenchmarkRun"

/* SB_LABEL_NAME's value on everything the project makes */
#define SB_APP_NAME	    "storagebench"
#define SB_LABEL_NAME	    "app.kubernetes.io/name"
#define SB_LABEL_COMPONENT  "app.kubernetes.io/component"
#define SB_LABEL_MANAGED_BY "app.kubernetes.io/managed-by"
/* SB_LABEL_COMPONENT values of what the controller and the runner write */
#define SB_COMPONENT_RUNNER "runner" /* runner pods */
#define SB_COMPONENT_RESULT "result" /* an iteration's result ConfigMap */
#define SB_COMPONENT_REPORT "report" /* the run's report ConfigMap */
#define SB_COMPONENT_SPEC   "spec"   /* the run's job file ConfigMap */
/* the runner pod's container (the plugin reads its log) */
#define SB_CONTAINER_RUNNER "runner"
#define SB_LABEL_RUN	    "storagebench.io/run"
#define SB_LABEL_CLASS	    "storagebench.io/class"
#define SB_LABEL_ITERATION  "storagebench.io/iteration"
#define SB_LABEL_ATTEMPT    "storagebench.io/attempt"

/* BenchmarkSchedule (docs/schedules.md): its kind, the label on the runs it
 * creates (value: the schedule's name), the activation a run was made for
 * (RFC 3339) and the regression threshold the run's verdict uses (percent) */
#define SB_KIND_SCHEDULE	      "BenchmarkSchedule"
#define SB_LABEL_SCHEDULE	      "storagebench.io/schedule"
#define SB_ANNOT_SCHEDULED_AT	      "storagebench.io/scheduled-at"
#define SB_ANNOT_REGRESSION_THRESHOLD "storagebench.io/regression-threshold-percent"
/* a schedule's run: the runs its baseline pools (newest first, comma-separated) */
#define SB_ANNOT_BASELINE_RUNS "storagebench.io/baseline-runs"
/* a schedule's run made while the schedule was Regressed: since when (RFC 3339) and which run */
#define SB_ANNOT_REGRESSED_SINCE     "storagebench.io/regressed-since"
#define SB_ANNOT_REGRESSED_SINCE_RUN "storagebench.io/regressed-since-run"

/* A Secret lends its keys to runs (spec.objectStores[].secretRef) only with this
 * label set to SB_CREDENTIALS_CONSENT: its owner's consent (docs/security.md) */
#define SB_LABEL_CREDENTIALS   "storagebench.io/credentials"
#define SB_CREDENTIALS_CONSENT "true"

#define SB_ANNOT_RUN   "storagebench.io/run-name"
#define SB_ANNOT_CLASS "storagebench.io/class-name"

#define SB_MANAGER "storagebench-controller"
/* Every object the controller creates for a run: its proof of authorship
 * (controller/core/proof.h); without it an object is not the controller's */
#define SB_ANNOT_PROOF "storagebench.io/proof"

/* The runner's test file in the class' volume, unless a job names its own. */
#define SB_TESTFILE "storagebench.testfile"

/* The report ConfigMap's keys others read: the report document (the
 * plugin, baselines, sweeps, the controller itself once written) and its text */
#define SB_REPORT_JSON_KEY "report.json"
#define SB_REPORT_TXT_KEY  "report.txt"

/* The key of the runner's result in a result ConfigMap. */
#define SB_RESULT_KEY "result.json"
/* The most the runner writes there (a ConfigMap holds at most 1 MiB); the controller
 * refuses a larger result. */
#define SB_RESULT_MAX_BYTES (900 * 1024)

/*
 * The rw of an object-storage job in a result (runner/s3/out.c writes
 * "s3-get", "s3-put", ... for warp's operations): the aggregation keeps it
 * as the report row's rw, and the reports render such rows as object
 * operations (docs/s3.md).
 */
#define SB_RW_OBJECT_PREFIX "s3-"

/*
 * The runner's log lines that mark an iteration (lib/core/log.h messages; the
 * fields follow as key=value): written by runner/mode/pod.c, local.c and
 * s3/cli.c, searched for by the plugin's `logs --iteration`
 * (plugin/logslice.c), which also needs SB_LOG_ITERATION_FIELD.
 */
#define SB_LOG_STARTED_ITERATION  "Started iteration"
#define SB_LOG_SKIPPED_ITERATION  "Skipped iteration already recorded"
#define SB_LOG_RECORDED_ITERATION "Recorded iteration"
#define SB_LOG_RUNNER_FINISHED	  "Runner finished"
#define SB_LOG_RUNNER_STOPPED	  "Runner stopped"
#define SB_LOG_ITERATION_FIELD	  "iteration="

/* The result's HMAC-SHA256 (lib/result/sign.h), hex, beside it in the result ConfigMap. */
#define SB_RESULT_MAC_KEY "result.json.hmac-sha256"
/* The run's key Secret (<run>-key): its data key, and where runner pods have it. */
#define SB_SIGN_SECRET_KEY "key"
#define SB_SIGN_DIR	   "/var/run/secrets/storagebench.io/run-key"
#define SB_SIGN_PATH	   SB_SIGN_DIR "/" SB_SIGN_SECRET_KEY
/*
 * The runner's exit status, in every mode (command line, pod, s3; docs/runner.md).
 * The controller (controller/run/plan.c) retries a runner pod that failed with
 * anything but SB_EXIT_USAGE in a new attempt.
 */
#define SB_EXIT_OK    0 /* every job ran (pod mode: every iteration recorded) */
#define SB_EXIT_FAIL  1 /* a job failed while doing I/O, or the API failed: retried */
#define SB_EXIT_USAGE 2 /* refused: bad option, a configuration that cannot run; not retried */
/*
 * Stopped by SIGTERM or SIGINT (runner/mode/stop.h): 128 + the signal, as a shell
 * reports a process the signal ended (143 SIGTERM, 130 SIGINT). What was
 * complete is kept (printed, recorded); the interrupted iteration is not.
 */
#define SB_EXIT_INTERRUPTED_BASE 128
#define SB_EXIT_INTERRUPTED(sig) (SB_EXIT_INTERRUPTED_BASE + (sig))
/* The runner's subcommand that only waits for SIGTERM (the consumer pod of a
 * lifecycle measurement, controller/lifecycle/lifecycle.c): storagebench-runner idle */
#define SB_RUNNER_IDLE "idle"
/*
 * Distributed runs (spec.runner.pods > 1, docs/distributed.md): each runner
 * pod of a class is a member, numbered from 1. A member pod reaches the
 * start barrier of an iteration by creating a "ready" ConfigMap; when every
 * member of the attempt is ready the controller creates the iteration's
 * "start" ConfigMap holding the wall-clock start time, which every member
 * reads and waits for.
 */
#define SB_LABEL_MEMBER "storagebench.io/member"
/* ready and start ConfigMaps: the workload group of the iteration (0: the first) */
#define SB_LABEL_GROUP	   "storagebench.io/group"
#define SB_COMPONENT_READY "ready"
#define SB_COMPONENT_START "start"
/* The start ConfigMap's key: the start time in nanoseconds since the epoch (decimal). */
#define SB_START_KEY "startUnixNano"
/*
 * The clock exchange at the barrier (docs/distributed.md, "Clocks"): a ready
 * ConfigMap's sentUnixNano is the member's clock when it made it; the start
 * ConfigMap's sentUnixNano the controller's when it made it, and its
 * readySeenUnixNano {"<member>": ns, ...} (JSON text) when it first saw each
 * member's ready mark, on its clock. ns since the epoch, decimal.
 */
#define SB_START_SENT_KEY "sentUnixNano"
#define SB_START_SEEN_KEY "readySeenUnixNano"
/* The environment of every runner pod, written and read through lib/core/invocation.h. */
#define SB_ENV_RUN	  "SB_RUN"	  /* the BenchmarkRun's name */
#define SB_ENV_RUN_UID	  "SB_RUN_UID"	  /* its UID: the owner of what the runner writes */
#define SB_ENV_CLASS	  "SB_CLASS"	  /* the storage class (or object store) */
#define SB_ENV_ITERATIONS "SB_ITERATIONS" /* iterations of the run, 1..100000 */
#define SB_ENV_ATTEMPT	  "SB_ATTEMPT"	  /* this pod's attempt number */
#define SB_ENV_NAMESPACE  "SB_NAMESPACE"  /* metadata.namespace, through the downward API */
#define SB_ENV_POD_NAME	  "SB_POD_NAME"	  /* metadata.name, through the downward API */
/* The environment a member pod gets besides the run's (lib/core/invocation.h). */
#define SB_ENV_MEMBER	       "SB_MEMBER"	    /* this pod's member number, 1..SB_MEMBERS */
#define SB_ENV_MEMBERS	       "SB_MEMBERS"	    /* members of the class */
#define SB_ENV_DONE	       "SB_DONE_ITERATIONS" /* "1,2,5": iterations already recorded */
#define SB_ENV_BARRIER_TIMEOUT "SB_BARRIER_TIMEOUT" /* seconds to wait for the start time */
#define SB_ENV_NODE_NAME       "SB_NODE_NAME"	    /* spec.nodeName, through the downward API */
/* The job file's SHA-256 (hex) as the controller wrote it into the run's spec ConfigMap: the
 * runner runs the mounted file only when it matches (a pod's spec is immutable, the ConfigMap
 * is not) */
#define SB_ENV_JOBFILE_SHA256 "SB_JOBFILE_SHA256"

/* Selects every object a controller manages. */
#define SB_SELECTOR_MANAGED SB_LABEL_MANAGED_BY "=" SB_MANAGER

#endif
