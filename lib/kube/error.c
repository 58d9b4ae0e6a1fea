/* SPDX-License-Identifier: MIT */
/* Error struct and the HTTP/Status to errno mapping. */
#include "kube/error_internal.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void kube_error_clear(struct kube_error *err)
{
	if (err)
		memset(err, 0, sizeof(*err));
}

int kube_errorf(struct kube_error *err, int ret, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		/* clang 14's analyzer reports this va_list as uninitialized when
		 * several files are checked in one run: a false positive. */
		// NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	return ret;
}

void kube_error_set_curl(struct kube_error *err, CURLcode code, const char *errbuf)
{
	if (!err)
		return;
	const char *text = errbuf && *errbuf ? errbuf : curl_easy_strerror(code);
	(void)snprintf(err->curl, sizeof(err->curl), "%s", text);
}

const char *kube_error_str(const struct kube_error *err, char *buf, size_t size)
{
	if (!err) {
		(void)snprintf(buf, size, "no error details");
		return buf;
	}
	const char *msg = err->message[0] ? err->message : "request failed";
	if (err->http_code && err->curl[0])
		(void)snprintf(buf, size, "%s (http %ld %s; curl: %s)", msg, err->http_code,
			       err->reason, err->curl);
	else if (err->http_code)
		(void)snprintf(buf, size, "%s (http %ld%s%s)", msg, err->http_code,
			       err->reason[0] ? " " : "", err->reason);
	else if (err->curl[0])
		(void)snprintf(buf, size, "%s (curl: %s)", msg, err->curl);
	else
		(void)snprintf(buf, size, "%s", msg);
	return buf;
}

int kube_errno_from_http(long code, const char *reason)
{
	if (code >= 200 && code < 300)
		return 0;
	switch (code) {
	case 400:
	case 422:
		return -EINVAL;
	case 401:
		return -EPERM;
	case 403:
		return -EACCES;
	case 404:
		return -ENOENT;
	case 409:
		return reason && strcmp(reason, "AlreadyExists") == 0 ? -EEXIST : -EAGAIN;
	case 410:
		return -ESTALE;
	case 429:
		return -EAGAIN;
	default:
		break;
	}
	if (code >= 500 && code < 600)
		return -EAGAIN;
	return -EPROTO;
}

int kube_error_from_status(struct kube_error *err, long code, const char *body, size_t len)
{
	const char *reason = NULL;
	json_t *st = NULL;
	bool is_status = false;

	if (body && len) {
		st = json_loadb(body, len, 0, NULL);
		const char *kind = json_string_value(json_object_get(st, "kind"));
		is_status = kind && strcmp(kind, "Status") == 0;
		if (is_status)
			reason = json_string_value(json_object_get(st, "reason"));
	}
	if (err) {
		err->http_code = code;
		(void)snprintf(err->reason, sizeof(err->reason), "%s", reason ? reason : "");
		const char *msg =
			is_status ? json_string_value(json_object_get(st, "message")) : NULL;
		if (msg && *msg)
			(void)snprintf(err->message, sizeof(err->message), "%s", msg);
		else if (body && len && !is_status)
			/* Not a Status (a proxy's page?): keep the start of the body. */
			(void)snprintf(err->message, sizeof(err->message), "http %ld: %.*s", code,
				       (int)(len < 200 ? len : 200), body);
		else
			(void)snprintf(err->message, sizeof(err->message), "http %ld", code);
	}
	int ret = kube_errno_from_http(code, reason);
	json_decref(st);
	return ret;
}
