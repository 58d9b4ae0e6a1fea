/* SPDX-License-Identifier: MIT */
/*
 * The controller's own figures on /metrics (controller/serve/httpd.c): the
 * process (controller/core/memory.h's /proc reading) and the controller's
 * informer caches and API client.
 */
#ifndef SB_CONTROLLER_SERVE_PROCESS_METRICS_H
#define SB_CONTROLLER_SERVE_PROCESS_METRICS_H

struct br_controller;

/*
 * Renders the process_* metrics (Prometheus' standard names), the informer
 * object counts (storagebench_informer_objects{resource,namespace}), the
 * bytes the run caches' deflated texts take
 * (storagebench_informer_bytes{resource,namespace}), the
 * result ConfigMaps in the cache by verdict (storagebench_informer_results
 * {namespace,cached="verdict-ok"|"verdict-invalid"|"with-data"}), the
 * API requests by verb (storagebench_api_requests_total{verb}) and the trims
 * (storagebench_malloc_trims_total) in the text format. c may be NULL (no
 * informer or API lines). A malloc'd string, or NULL on ENOMEM.
 */
char *br_metrics_render_process(struct br_controller *c);

#endif
