/* SPDX-License-Identifier: MIT */
/*
 * Retry delays: capped exponential backoff with jitter, and
 * Retry-After (backoff.c). Private to lib/kube (its files, unit tests and fuzzers).
 */
#ifndef SB_LIB_KUBE_BACKOFF_H
#define SB_LIB_KUBE_BACKOFF_H

#include <time.h>

/*
 * The delay before retry number attempt (0 for the first retry): full
 * jitter over a capped exponential, base * 2^attempt capped at cap, of which
 * a random half is kept: delay = d/2 + rnd * d/2 with rnd in [0, 1).
 */
long kube_backoff_ms(unsigned attempt, long base_ms, long cap_ms, double rnd);

/*
 * Parses a Retry-After header value: delta-seconds ("120") or an HTTP-date
 * (relative to now). Returns the delay in ms (0 for a date in the past), or
 * -1 when the value is not valid.
 */
long kube_parse_retry_after(const char *value, time_t now);

#endif
