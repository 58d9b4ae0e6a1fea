/* SPDX-License-Identifier: MIT */
/*
 * One API request with the retry rules (request.c). Private to lib/kube (its files, unit tests and fuzzers).
 */
#ifndef SB_LIB_KUBE_REQUEST_H
#define SB_LIB_KUBE_REQUEST_H

#include "kube/client.h"
#include "kube/error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* One HTTP request, retried per the rules in kube.h. */
struct kube_request {
	const char *method; /* "GET", "POST", "PUT", "PATCH", "DELETE" */
	bool list;	    /* a GET of a collection (counted as a list) */
	const char *url;
	const char *content_type; /* of body, or NULL */
	const char *body;	  /* or NULL */
	size_t body_len;
	bool idempotent; /* retry 5xx and transport errors */
	size_t max_body; /* 0: the default limit */
	char **raw_out;	 /* when set: the 2xx answer as text (NUL-terminated), not JSON */
	size_t *raw_len;
	/* when set: a 2xx answer goes to sink as it arrives (nothing is kept,
	 * no total timeout); a nonzero return of sink stops the transfer and
	 * is returned. Once data has reached sink, nothing is retried. */
	int (*sink)(void *arg, const char *data, size_t len);
	void *sink_arg;
};

/*
 * Performs req with the calling thread's handle. On 2xx parses the answer
 * into *out (when out is not NULL; an empty body gives json null). On
 * failure returns -errno with err filled.
 */
int kube_request_do(struct kube_client *c, const struct kube_request *req, json_t **out,
		    struct kube_error *err);

#endif
