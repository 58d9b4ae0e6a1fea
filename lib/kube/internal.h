/* SPDX-License-Identifier: MIT */
/*
 * Every declaration lib/kube's files share, for its unit tests and
 * fuzzers: the public headers (kube/kube.h) and the private ones, each
 * the header of one file of lib/kube. Not part of the public API; names
 * still start with kube_ because they are visible to the linker. Same
 * conventions as kube.h. lib/kube's own files include only the headers of
 * what they use, so that no two of them depend on each other.
 */
#ifndef SB_LIB_KUBE_INTERNAL_H
#define SB_LIB_KUBE_INTERNAL_H

#include "kube/kube.h"
#include "kube/error_internal.h"
#include "kube/util.h"
#include "kube/token.h"
#include "kube/exec.h"
#include "kube/url.h"
#include "kube/backoff.h"
#include "kube/lines.h"
#include "kube/hub.h"
#include "kube/request.h"
#include "kube/client_internal.h"

#endif
