/* SPDX-License-Identifier: MIT */
/*
 * How lib/kube's files fill a struct kube_error (error.c). Private to lib/kube (its files, unit tests and fuzzers).
 */
#ifndef SB_LIB_KUBE_ERROR_INTERNAL_H
#define SB_LIB_KUBE_ERROR_INTERNAL_H

#include "kube/error.h"

#include <curl/curl.h>

/* Formats into err->message (err may be NULL). Returns ret, for one-line
 * "return kube_errorf(err, -EINVAL, ...)". */
int kube_errorf(struct kube_error *err, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Copies curl's error text (or curl_easy_strerror(code) when errbuf is empty)
 * into err. */
void kube_error_set_curl(struct kube_error *err, CURLcode code, const char *errbuf);

#endif
