/* SPDX-License-Identifier: MIT */
/*
 * The controller's HTTP endpoints on libmicrohttpd: /healthz (the process
 * answers), /readyz (informers synced), /metrics (Prometheus text).
 */
#ifndef SB_CONTROLLER_SERVE_HTTPD_H
#define SB_CONTROLLER_SERVE_HTTPD_H

#include "controller/core/controller.h"

struct br_httpd;

/*
 * Serves on addr ("[host]:port", ":8080" for every address, "0" to
 * disable). Returns NULL with err set when the address is bad or busy.
 */
struct br_httpd *br_httpd_start(const char *addr, struct br_controller *c, struct br_metrics *m,
				char *err, size_t errlen);
void br_httpd_stop(struct br_httpd *h);

/* The port actually bound (for ":0"). */
unsigned br_httpd_port(const struct br_httpd *h);

/* libmicrohttpd's version (for `--version`; static storage). */
const char *br_httpd_library(void);

#endif
