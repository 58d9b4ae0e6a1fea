/* SPDX-License-Identifier: MIT */
/* Runtimes and rates as fio counts them (see fiotime.h). */
#include "fiotime.h"

uint64_t sb_fio_runtime_ms(uint64_t us, uint64_t ios)
{
	uint64_t ms;

	if (!ios)
		return 0;
	ms = us / 1000 + (us % 1000 != 0);
	return ms ? ms : 1;
}

double sb_fio_rate(double count, uint64_t ms)
{
	return ms ? 1000.0 * count / (double)ms : 0.0;
}
