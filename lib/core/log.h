/* SPDX-License-Identifier: MIT */
/*
 * Logging: one line per event on stderr (or the fd set with
 * sb_log_set_fd), with a UTC timestamp, a level, a message that starts with
 * a capital letter in past tense, and key=value fields:
 *
 *	2026-11-30T18:24:08.123Z info Created PVC ns=default name=run-fast
 *
 * Thread-safe: each line is formatted into a local buffer and written with
 * one write(2). The library code of storagebench prints nothing except
 * through this module.
 */
#ifndef SB_LIB_CORE_LOG_H
#define SB_LIB_CORE_LOG_H

#include <stdbool.h>

enum sb_log_level { SB_LOG_DEBUG = 0, SB_LOG_INFO, SB_LOG_WARN, SB_LOG_ERROR, SB_LOG_OFF };

/* Sets the lowest level that is printed (default SB_LOG_INFO). */
void sb_log_set_level(enum sb_log_level level);
enum sb_log_level sb_log_get_level(void);

/* Parses "debug", "info", "warn", "error", "off". Returns 0 or -EINVAL. */
int sb_log_parse_level(const char *s, enum sb_log_level *out);

/* Sets the file descriptor lines are written to (default 2). */
void sb_log_set_fd(int fd);

/* When on, lines are JSON objects {"ts","level","msg",...fields as strings}. */
void sb_log_set_json(bool on);

/*
 * Logs msg with fields given as a printf format producing "k=v k=v"
 * (may be NULL). In JSON mode the fields are split on spaces and '='.
 */
void sb_log(enum sb_log_level level, const char *msg, const char *fields_fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define sb_debug(msg, ...) sb_log(SB_LOG_DEBUG, msg, __VA_ARGS__)
#define sb_info(msg, ...)  sb_log(SB_LOG_INFO, msg, __VA_ARGS__)
#define sb_warn(msg, ...)  sb_log(SB_LOG_WARN, msg, __VA_ARGS__)
#define sb_error(msg, ...) sb_log(SB_LOG_ERROR, msg, __VA_ARGS__)

#endif
