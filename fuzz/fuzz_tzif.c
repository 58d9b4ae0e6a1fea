/* SPDX-License-Identifier: MIT */
/*
 * TZif zone files (lib/time/tz.c): the input is the file. When accepted, the
 * offset and the next change at a few times, the changes strictly later,
 * and a cron search through the zone.
 */
#include "time/cron.h"
#include "fuzz/fuzz.h"
#include "time/tz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sb_tz *tz = NULL;
	char err[256];
	if (sb_tz_parse("Fuzz/Zone", data, size, &tz, err, sizeof(err)) != 0)
		return 0;
	static const int64_t at[] = {INT32_MIN, -1, 0, 1796094000, 4102444800, INT64_MAX / 8};
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		int32_t off;
		int64_t next;
		sb_tz_lookup(tz, at[i], &off, &next);
		if (next <= at[i] || off < -26 * 3600 || off > 26 * 3600)
			abort();
	}
	struct sb_cron c;
	if (sb_cron_parse("30 2 * * *", &c, err, sizeof(err)) == 0) {
		int64_t t = 1796094000, nx;
		for (int k = 0; k < 3 && sb_cron_next(&c, tz, t, &nx) == 0; k++) {
			if (nx <= t)
				abort();
			t = nx;
		}
	}
	sb_tz_free(tz);
	return 0;
}
