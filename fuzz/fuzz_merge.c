/* SPDX-License-Identifier: MIT */
/*
 * A distributed class's member results (lib/stats/merge.c): the input is a
 * JSON array of runner job objects, one per member, as signed results
 * carry them; each member gets a clock offset from the input's length, so
 * the time alignment and the late-member rule are reached too.
 */
#include "fuzz/fuzz.h"
#include "stats/merge.h"

#include <jansson.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *arr = json_loadb((const char *)data, size, 0, NULL);
	if (!arr)
		return 0;
	size_t n = json_is_array(arr) ? json_array_size(arr) : 0;
	if (n >= 1 && n <= 64) {
		const json_t *jobs[64];
		struct sb_merge_pod pods[64];
		char err[512];
		memset(pods, 0, sizeof(pods));
		for (size_t i = 0; i < n; i++) {
			jobs[i] = json_array_get(arr, i);
			pods[i].clock_offset_ns = ((int64_t)(size % 7) - 3) * 1000000 * (int64_t)i;
		}
		json_t *out = NULL;
		if (sb_merge_pods(jobs, pods, n, &out, err, sizeof(err)) == 0)
			json_decref(out);
		out = NULL;
		if (sb_merge_jobs(jobs, n, &out, err, sizeof(err)) == 0)
			json_decref(out);
	}
	json_decref(arr);
	return 0;
}
