/* SPDX-License-Identifier: MIT */
#ifndef SB_LIB_CORE_ERRFMT_H
#define SB_LIB_CORE_ERRFMT_H

#include <stddef.h>

/*
 * The one helper behind the "field: problem" messages every parser writes
 * into a caller's buffer: formats fmt into err[0..len) (truncated, always
 * terminated; nothing is written when err is NULL or len is 0) and returns
 * ret, so that a parser reports and returns in one line:
 *
 *	return sb_errf(err, errlen, -EINVAL, "%s.bs: '%s' is not a size", path, v);
 */
int sb_errf(char *err, size_t len, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
