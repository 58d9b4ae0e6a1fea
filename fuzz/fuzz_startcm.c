/* SPDX-License-Identifier: MIT */
/*
 * A distributed member's start ConfigMap as the runner reads it
 * (runner/mode/pod.c, runner/mode/startwait.c): the start time with its
 * bound, then the clock exchange over its sentUnixNano and
 * readySeenUnixNano; the input is the ConfigMap as JSON.
 */
#include "fuzz/fuzz.h"
#include "core/labels.h"
#include "runner/mode/pod.h"
#include "runner/mode/startwait.h"

#include <jansson.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *cm = json_loadb((const char *)data, size, 0, NULL);
	if (!cm)
		return 0;
	const int64_t now = 1800000000LL * 1000000000LL;
	const char *start =
		json_string_value(json_object_get(json_object_get(cm, "data"), SB_START_KEY));
	char err[256];
	int64_t when = 0;
	if (start)
		(void)sb_pod_start_time("r-fast-1-a1-start", 1, start, now, 300, &when, err,
					sizeof(err));
	struct sb_clock_est est = {0};
	for (unsigned m = 1; m <= 3; m++)
		(void)sb_clock_exchange(cm, m, now - 5000000, now, &est);
	json_decref(cm);
	return 0;
}
