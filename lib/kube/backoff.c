/* SPDX-License-Identifier: MIT */
/* Retry delays: capped exponential backoff with jitter, and Retry-After. */
#include "kube/backoff.h"

#include <curl/curl.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

long kube_backoff_ms(unsigned attempt, long base_ms, long cap_ms, double rnd)
{
	if (base_ms <= 0)
		return 0;
	if (cap_ms < base_ms)
		cap_ms = base_ms;
	long d = base_ms;
	for (unsigned i = 0; i < attempt && d < cap_ms; i++)
		d = d > cap_ms / 2 ? cap_ms : d * 2;
	if (d > cap_ms)
		d = cap_ms;
	if (rnd < 0)
		rnd = 0;
	if (rnd >= 1)
		rnd = 0.999999;
	long half = d / 2;
	return half + (long)(rnd * (double)(d - half));
}

long kube_parse_retry_after(const char *value, time_t now)
{
	if (!value)
		return -1;
	while (isspace((unsigned char)*value))
		value++;
	if (!*value)
		return -1;
	if (isdigit((unsigned char)*value)) {
		char *end;
		errno = 0;
		long long s = strtoll(value, &end, 10);
		while (isspace((unsigned char)*end))
			end++;
		if (errno || *end || s < 0)
			return -1;
		if (s > LONG_MAX / 1000)
			return LONG_MAX;
		return (long)s * 1000;
	}
	/* An HTTP-date ("Wed, 21 Oct 2015 07:28:00 GMT"). */
	time_t t = curl_getdate(value, NULL);
	if (t == (time_t)-1)
		return -1;
	if (t <= now)
		return 0;
	long long d = (long long)(t - now);
	if (d > LONG_MAX / 1000)
		return LONG_MAX;
	return (long)d * 1000;
}
