/* SPDX-License-Identifier: MIT */
#include "controller/serve/httpd.h"

#include "controller/serve/process_metrics.h"
#include "controller/serve/result_metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct br_httpd {
	struct MHD_Daemon *d;
	struct br_controller *c;
	struct br_metrics *m;
	unsigned port;
};

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned code, const char *type,
			     char *body, bool owned)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		strlen(body), body, owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	if (!r) {
		if (owned)
			free(body);
		return MHD_NO;
	}
	if (MHD_add_response_header(r, "Content-Type", type) != MHD_YES) {
		MHD_destroy_response(r);
		return MHD_NO;
	}
	enum MHD_Result ret = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **con_cls)
{
	struct br_httpd *h = cls;
	(void)version;
	(void)upload;
	(void)upload_size;
	(void)con_cls;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(conn, 405, "text/plain", "method not allowed\n", false);
	if (!strcmp(url, "/healthz"))
		return reply(conn, 200, "text/plain", "ok\n", false);
	if (!strcmp(url, "/readyz")) {
		if (br_controller_ready(h->c))
			return reply(conn, 200, "text/plain", "ok\n", false);
		return reply(conn, 503, "text/plain", "informers not synced\n", false);
	}
	if (!strcmp(url, "/metrics")) {
		struct br_phase_count pc[4];
		size_t n = br_controller_phase_counts(h->c, pc, 4);
		char *text = br_metrics_render(h->m, pc, n);
		/* the process and caches (memory.h), and the benchmark results
		 * (result_metrics.h) */
		char *more = text ? br_metrics_render_process(h->c) : NULL;
		char *res = text ? br_result_metrics_render(h->c) : NULL;
		char *all = NULL;
		if (text && more && res && asprintf(&all, "%s%s%s", text, more, res) < 0)
			all = NULL;
		free(text);
		free(more);
		free(res);
		text = all;
		if (!text)
			return reply(conn, 500, "text/plain", "out of memory\n", false);
		return reply(conn, 200, "text/plain; version=0.0.4", text, true);
	}
	return reply(conn, 404, "text/plain", "not found\n", false);
}

struct br_httpd *br_httpd_start(const char *addr, struct br_controller *c, struct br_metrics *m,
				char *err, size_t errlen)
{
	struct sockaddr_in sa;
	const char *colon = strrchr(addr, ':');
	char host[64] = "";
	char *end;

	if (!colon) {
		snprintf(err, errlen, "'%s' is not [host]:port", addr);
		return NULL;
	}
	long port = strtol(colon + 1, &end, 10);
	if (*end || port < 0 || port > 65535) {
		snprintf(err, errlen, "'%s': bad port", addr);
		return NULL;
	}
	snprintf(host, sizeof(host), "%.*s", (int)(colon - addr), addr);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	if (!host[0] || !strcmp(host, "0.0.0.0"))
		sa.sin_addr.s_addr = htonl(INADDR_ANY);
	else if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		snprintf(err, errlen, "'%s': host must be an IPv4 address", addr);
		return NULL;
	}
	struct br_httpd *h = calloc(1, sizeof(*h));
	if (!h) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	h->c = c;
	h->m = m;
	h->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, (uint16_t)port, NULL, NULL, handle,
				h, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10, MHD_OPTION_END);
	if (!h->d) {
		snprintf(err, errlen, "cannot serve on '%s' (address in use?)", addr);
		free(h);
		return NULL;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	h->port = info ? info->port : (unsigned)port;
	return h;
}

void br_httpd_stop(struct br_httpd *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d);
	free(h);
}

unsigned br_httpd_port(const struct br_httpd *h)
{
	return h ? h->port : 0;
}

const char *br_httpd_library(void)
{
	return MHD_get_version();
}
