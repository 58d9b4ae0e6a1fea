/* SPDX-License-Identifier: MIT */
/* A pod's log through the lib/kube client (see podlog.h). */
#include "plugin/podlog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LOG ((size_t)64 << 20)

int sbp_pod_log(struct kube_client *c, const char *ns, const char *pod, const char *container,
		char **out, size_t *len, struct kube_error *err)
{
	struct kube_query q[] = {{"container", container}};
	int ret;

	*out = NULL;
	*len = 0;
	if (!pod || !*pod) {
		kube_error_clear(err);
		if (err)
			snprintf(err->message, sizeof(err->message), "pod log: no pod name");
		return -EINVAL;
	}
	ret = kube_get_raw(c, &kube_res_pods, ns, pod, "log", q, 1, MAX_LOG, out, len, err);
	if (ret == -EFBIG && err)
		snprintf(err->message, sizeof(err->message),
			 "the log of pod '%s' is over %zu bytes", pod, MAX_LOG);
	return ret;
}

static bool starts_with(const char *data, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return data && len >= n && !memcmp(data, prefix, n);
}

bool sbp_log_gone(const char *data, size_t len)
{
	return starts_with(data, len, "unable to retrieve container logs for ");
}

bool sbp_log_kubelet_error(const char *data, size_t len)
{
	return sbp_log_gone(data, len) ||
	       starts_with(data, len, "failed to try resolving symlinks in path ") ||
	       starts_with(data, len, "failed to open log file ");
}
