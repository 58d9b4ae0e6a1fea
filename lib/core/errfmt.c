/* SPDX-License-Identifier: MIT */
#include "errfmt.h"

#include <stdarg.h>
#include <stdio.h>

int sb_errf(char *err, size_t len, int ret, const char *fmt, ...)
{
	if (err && len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return ret;
}
