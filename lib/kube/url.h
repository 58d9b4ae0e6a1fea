/* SPDX-License-Identifier: MIT */
/*
 * Resource URLs (url.c). Private to lib/kube (its files, unit tests and fuzzers).
 */
#ifndef SB_LIB_KUBE_URL_H
#define SB_LIB_KUBE_URL_H

#include "kube/resource.h"

#include <stddef.h>

/*
 * Builds the URL of a resource on server:
 *   <server>/api/<version>            (core group)
 *   <server>/apis/<group>/<version>   (other groups)
 * then [/namespaces/<ns>]/<resource>[/<name>[/<subresource>]] and the query.
 * Path segments and query values are URL-encoded (with curl_easy_escape and
 * curl_url_set). ns NULL or "" leaves out the namespace; name NULL the name.
 * *out is a new string the caller frees. 0, -EINVAL (bad server URL or
 * resource), -ENOMEM.
 */
int kube_url_build(const char *server, const struct kube_resource *r, const char *ns,
		   const char *name, const char *subresource, const struct kube_query *q, size_t nq,
		   char **out);

#endif
