/* SPDX-License-Identifier: MIT */
/*
 * Cron expressions (lib/time/cron.c), as a BenchmarkSchedule's spec.schedule
 * brings them: parse, and when accepted, the next activations after a few
 * times (UTC), each strictly later than the one before.
 */
#include "time/cron.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	if (!s)
		return 0;
	struct sb_cron c;
	char err[256];
	if (sb_cron_parse(s, &c, err, sizeof(err)) == 0) {
		static const int64_t starts[] = {0, 951782400 /* 2000-02-29 */, 1796094000,
						 -2208988800 /* 1900 */, 4102444800 /* 2100 */};
		for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
			int64_t t = starts[i], nx;
			for (int k = 0; k < 4 && sb_cron_next(&c, NULL, t, &nx) == 0; k++) {
				if (nx <= t || !sb_cron_matches_wall(&c, nx))
					abort(); /* not after, or not a match */
				t = nx;
			}
		}
	}
	free(s);
	return 0;
}
