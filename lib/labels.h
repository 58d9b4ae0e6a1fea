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

#define SB_ANNOT_RUN   "storagebench.io/run-name"
#define SB_ANNOT_CLASS "storagebench.io/class-name"

#define SB_MANAGER "storagebench-controller"

/* The key of the runner's result in a result ConfigMap. */
#define SB_RESULT_KEY "result.json"
/* The most the runner writes there (a ConfigMap holds at most 1 MiB); the controller
 * refuses a larger result. */
#define SB_RESULT_MAX_BYTES (900 * 1024)

/* The result's HMAC-SHA256 (lib/sign.h), hex, beside it in the result ConfigMap. */
#define SB_RESULT_MAC_KEY "result.json.hmac-sha256"
/* The run's key Secret (<run>-key): its data key, and where runner pods have it. */
#define SB_SIGN_SECRET_KEY "key"
#define SB_SIGN_DIR	   "/var/run/secrets/storagebench.io/run-key"
#define SB_SIGN_PATH	   SB_SIGN_DIR "/" SB_SIGN_SECRET_KEY
/* The runner's subcommand that only waits for SIGTERM (the consumer pod of a
 * lifecycle measurement, controller/lifecycle.c): storagebench-runner idle */
#define SB_RUNNER_IDLE "idle"

/* Selects every object a controller manages. */
#define SB_SELECTOR_MANAGED SB_LABEL_MANAGED_BY "=" SB_MANAGER

#endif
