/* SPDX-License-Identifier: MIT */
/*
 * Labels and annotations on the objects a BenchmarkRun owns. The controller
 * selects its objects by them; the runner puts them on the result
 * ConfigMaps it writes; users filter with them (kubectl get cm -l ...).
 */
#ifndef SB_LABELS_H
#define SB_LABELS_H

#define SB_API_GROUP   "storagebench.io"
#define SB_API_VERSION "storagebench.io/v1alpha1"
#define SB_KIND	       "BenchmarkRun"

#define SB_LABEL_NAME	    "app.kubernetes.io/name"
#define SB_LABEL_COMPONENT  "app.kubernetes.io/component"
#define SB_LABEL_MANAGED_BY "app.kubernetes.io/managed-by"
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

#define SB_ANNOT_RUN   "storagebench.io/run-name"
#define SB_ANNOT_CLASS "storagebench.io/class-name"

#define SB_MANAGER "storagebench-controller"

/* The key of the runner's result in a result ConfigMap. */
#define SB_RESULT_KEY "result.json"
/* The most the runner writes there (a ConfigMap holds at most 1 MiB); the controller
 * refuses a larger result. */
#define SB_RESULT_MAX_BYTES (900 * 1024)

/* Selects every object a controller manages. */
#define SB_SELECTOR_MANAGED SB_LABEL_MANAGED_BY "=" SB_MANAGER

#endif
