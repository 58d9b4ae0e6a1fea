/* SPDX-License-Identifier: MIT */
/*
 * Units: parsing sizes and durations the way fio writes them, and
 * formatting numbers for people (SI and binary prefixes).
 */
#ifndef SB_LIB_CORE_UNITS_H
#define SB_LIB_CORE_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Parses a size: a decimal integer or decimal fraction with an optional
 * suffix k, m, g, t, p (any case), optionally followed by "i" and/or "b":
 * "4k", "1M", "1.5g", "64KiB", "4096". With kb_base 1024 (fio's default)
 * "k" and "KiB" mean 1024 and "kB" too; with kb_base 1000, "k"/"kB" mean
 * 1000 and "KiB" 1024. Returns 0, -EINVAL (not a size), -ERANGE (2^63 or more).
 */
int sb_parse_size(const char *s, unsigned kb_base, uint64_t *out);

/*
 * Like sb_parse_size, but also accepts "N%" (1..100): then *percent is set
 * to N and *out to 0. *percent is 0 for absolute sizes.
 */
int sb_parse_size_or_percent(const char *s, unsigned kb_base, uint64_t *out, unsigned *percent);

/*
 * Parses a duration as fio does: a number with an optional unit
 * (us/usec, ms/msec, s/sec, m/min, h/hour, d/day); a bare number is in
 * default_unit_us microseconds (1000000 for fio's runtime, i.e. seconds).
 * Result in microseconds. Returns 0, -EINVAL, -ERANGE.
 */
int sb_parse_duration_us(const char *s, uint64_t default_unit_us, uint64_t *out_us);

/*
 * Parses an unsigned integer with an optional k/m/g suffix (decimal: 1000)
 * the way fio reads counts like iodepth or rate_iops ("10k", "1.5k", "1e3").
 * Exact up to 2^64-1 (no double in between: a randseed above 2^53 is kept
 * as written). Returns 0, -EINVAL (not a whole number), -ERANGE (2^64 or more).
 */
int sb_parse_u64(const char *s, uint64_t *out);

/*
 * Parses a plain decimal integer (digits only: no sign, space or suffix)
 * from 0 to max, exactly. Returns 0, -EINVAL, -ERANGE (above max).
 */
int sb_parse_uint(const char *s, uint64_t max, uint64_t *out);

/*
 * Parses a Kubernetes storage quantity ("10Gi", "500M", "1.5Ti", "4096")
 * into bytes: binary suffixes Ki..Ei, decimal k, M..E, no suffix = bytes.
 * Returns 0, -EINVAL (not a quantity, or a fraction of a byte), -ERANGE.
 */
int sb_parse_quantity(const char *s, uint64_t *out);

/* Parses fio booleans: 1/0, true/false, yes/no, on/off. 0 or -EINVAL. */
int sb_parse_bool(const char *s, bool *out);

/*
 * Formats bytes with binary prefixes like fio: "4096" -> "4096B",
 * 1048576 -> "1024KiB" or "1MiB" (the shortest exact form with at most
 * 4 integer digits; otherwise 3 significant digits). Returns buf.
 */
char *sb_fmt_bytes(uint64_t v, char *buf, size_t len);

/* Formats v with SI prefixes and `sig` significant digits: 22748 -> "22.7k". */
char *sb_fmt_si(double v, int sig, char *buf, size_t len);

/*
 * Formats a rate in bytes per second with binary prefixes and 3-4
 * significant digits: "2.13 GiB/s", "130 KiB/s". Returns buf.
 */
char *sb_fmt_rate(double bytes_per_sec, char *buf, size_t len);

/* Formats nanoseconds as "587us", "11.4ms", "2.04s" (3 significant digits). */
char *sb_fmt_ns(double ns, char *buf, size_t len);

#endif
