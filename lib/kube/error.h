/* SPDX-License-Identifier: MIT */
/*
 * A failed request's error: the HTTP code, the Status reason and message,
 * libcurl's text (lib/kube, conventions in kube/kube.h), and the mapping of
 * HTTP answers to negative errno values.
 */
#ifndef SB_LIB_KUBE_ERROR_H
#define SB_LIB_KUBE_ERROR_H

#include <stddef.h>

struct kube_error {
	long http_code;	   /* HTTP status, 0 when there was no HTTP answer */
	char reason[64];   /* Status.reason ("NotFound", "Conflict"...) or "" */
	char message[512]; /* Status.message, or what went wrong locally */
	char curl[256];	   /* libcurl's error text, "" when none */
};

#define KUBE_ERROR_INIT \
	{               \
		0       \
	}

/* Clears err (accepts NULL). */
void kube_error_clear(struct kube_error *err);

/*
 * Formats err into buf as one line: "<message> (http 404 NotFound; curl: ...)".
 * Returns buf (never NULL; buf must hold at least 1 byte).
 */
const char *kube_error_str(const struct kube_error *err, char *buf, size_t size);

/*
 * Maps an HTTP status code and Status reason (may be NULL) to 0 (2xx) or a
 * negative errno, as the conventions of kube/kube.h list them.
 */
int kube_errno_from_http(long http_code, const char *reason);

/*
 * Fills err from an HTTP answer: the code and, when body is a Status object
 * (JSON text of len bytes, may be NULL), its reason and message. Returns
 * kube_errno_from_http() of the result.
 */
int kube_error_from_status(struct kube_error *err, long http_code, const char *body, size_t len);

#endif
