/* SPDX-License-Identifier: MIT */
/*
 * Runner pod logs: fetching a pod's log through the lib/kube client, and
 * cutting one iteration out of a runner's log.
 */
#ifndef SB_PLUGIN_PODLOG_H
#define SB_PLUGIN_PODLOG_H

#include "kube/kube.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * GET /api/v1/namespaces/NS/pods/POD/log[?container=C] through client c
 * (its TLS settings, credentials, token file and connection), retried like
 * the other idempotent requests of lib/kube (5xx, 429 and transport errors,
 * once after a 401 when the token comes from a file). On success *out is
 * the log text (NUL-terminated, *len bytes; the caller frees). Errors as in
 * kube.h (404 -ENOENT, a container still waiting -EINVAL with the server's
 * message in err, ...); a log over 64 MiB is -EFBIG. Uses kube_get_raw.
 */
int sbp_pod_log(struct kube_client *c, const char *ns, const char *pod, const char *container,
		char **out, size_t *len, struct kube_error *err);

/*
 * True when data (len bytes, the start of a log answer) is not a log but
 * the kubelet saying the container is already removed: a 1.20 kubelet
 * answers 200 "unable to retrieve container logs for <id>" for a pod being
 * deleted. A runner's log starts with a timestamp, never with this.
 */
bool sbp_log_gone(const char *data, size_t len);

/*
 * True when data (len bytes, the start of a log answer) is not a log but one
 * of the kubelet's errors about the container's log, sent with status 200
 * after the stream began: the sbp_log_gone answer, or "failed to try
 * resolving symlinks in path" / "failed to open log file" (a container
 * that has just started, its log file not yet there, or one removed). What
 * it means depends on the pod's state (the caller asks it).
 */
bool sbp_log_kubelet_error(const char *data, size_t len);

/*
 * The lines of a runner pod's log that belong to iteration it: from the
 * line that starts it ("Started iteration iteration=N", or "Skipped
 * iteration already recorded iteration=N") up to the line that starts
 * another iteration, and the runner's last line ("Runner finished" or
 * "Runner stopped") when it ends this iteration. A new string (empty when
 * the log does not have the iteration), NULL on ENOMEM.
 */
char *sbp_log_slice(const char *log, size_t len, unsigned it);

#endif
