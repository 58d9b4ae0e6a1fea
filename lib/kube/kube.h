/* SPDX-License-Identifier: MIT */
/*
 * kube: a thin Kubernetes API client on libcurl, jansson, libyaml and
 * OpenSSL. This header includes every part of it; each part has a
 * header of its own:
 *   kube/error.h     errors and the errno mapping below
 *   kube/config.h    kubeconfig, in-cluster configuration, loading order
 *   kube/client.h    the client, its options and counters
 *   kube/clock.h     the clock lib/kube times itself by (tests install one)
 *   kube/resource.h  resource types and query parameters
 *   kube/ops.h       get, list, create, update, patch, delete, raw answers
 *   kube/watch.h     watches
 *   kube/informer.h  informers (cache + watch)
 *   kube/leader.h    leader election
 * lib/kube's own files include only the headers of what they use, the
 * public ones and the private ones kube/internal.h lists.
 *
 * Conventions (every header of lib/kube follows them):
 *  - Functions returning int return 0 on success or a negative errno.
 *    HTTP answers map to: 404 -ENOENT, 409 AlreadyExists -EEXIST,
 *    409 Conflict -EAGAIN, 410 Gone -ESTALE, 403 -EACCES, 401 -EPERM,
 *    400 and 422 -EINVAL, 429 and 5xx -EAGAIN (after the retries),
 *    transport failure (connect, TLS, reset, timeout) -EIO, malformed
 *    answer -EPROTO, other 4xx -EPROTO, memory -ENOMEM.
 *  - Every function taking a `struct kube_error *err` accepts NULL; when not
 *    NULL it is cleared on entry and filled on failure with the HTTP code,
 *    the Status reason and message and libcurl's error text.
 *  - Objects are jansson json_t. An argument `const json_t *` or
 *    `json_t *` is borrowed (the caller keeps its reference). An output
 *    `json_t **out` receives a new reference the caller must json_decref();
 *    out may be NULL when the caller does not want the answer. On failure
 *    *out is set to NULL.
 *  - Strings passed in are copied when they are kept; the caller may free
 *    them after the call returns.
 *  - Free functions accept NULL.
 *  - Nothing is printed except through lib/log (sb_log), at debug level for
 *    each request and at warn level for retries and insecure TLS.
 *
 * Threads: a struct kube_client may be shared by any number of threads.
 * Each thread that issues requests through a client gets its own curl easy
 * handle (kept in a pthread key of the client), reused for all its requests
 * so the TCP connection and TLS session are reused; it is cleaned up when
 * the thread exits or when the client is freed. A watch uses an easy handle
 * of its own (it holds its connection for as long as it runs). Free a client
 * only after every thread using it has stopped using it (joined, or
 * informers and leader electors stopped).
 */
#ifndef SB_LIB_KUBE_KUBE_H
#define SB_LIB_KUBE_KUBE_H

#include "kube/error.h"
#include "kube/config.h"
#include "kube/clock.h"
#include "kube/client.h"
#include "kube/resource.h"
#include "kube/ops.h"
#include "kube/watch.h"
#include "kube/informer.h"
#include "kube/leader.h"

#endif
