/* SPDX-License-Identifier: MIT */
/*
 * Runtimes and rates as fio counts them, one definition for the runner's
 * outputs (JSON, text) and the report's aggregation.
 *
 * fio keeps each direction's runtime in whole milliseconds, rounded up from
 * the microseconds measured: a job that ran 0.3 ms reports runtime 1 and its
 * rate over that millisecond (fio 3.33: 4 KiB of 4k randwrite -> runtime 1,
 * iops 1000; 64 KiB -> iops 16000), 1.2 ms reports 2. Rates are per second
 * over that runtime, so nothing that did I/O divides by 0.
 */
#ifndef SB_LIB_STATS_FIOTIME_H
#define SB_LIB_STATS_FIOTIME_H

#include <stdint.h>

/*
 * Milliseconds fio reports for `us` microseconds of a direction that did
 * `ios` I/Os: us rounded up to a whole millisecond, at least 1 when ios > 0
 * (a clock that saw no time pass still ran the I/O), 0 when ios is 0.
 */
uint64_t sb_fio_runtime_ms(uint64_t us, uint64_t ios);

/* count per second over ms milliseconds (fio: 1000 * count / runtime); 0 when ms is 0. */
double sb_fio_rate(double count, uint64_t ms);

#endif
