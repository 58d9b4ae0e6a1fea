/* SPDX-License-Identifier: MIT */
/* One iteration out of a runner pod's log (see podlog.h). */
#include "plugin/podlog.h"

#include "core/labels.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* memmem for a NUL-terminated needle within [s, s + n). */
static const char *find(const char *s, size_t n, const char *needle)
{
	return memmem(s, n, needle, strlen(needle));
}

/*
 * The iteration a line starts (the runner's SB_LOG_STARTED_ITERATION and
 * SB_LOG_SKIPPED_ITERATION lines carry iteration=N, lib/core/labels.h), or 0.
 */
static unsigned starts_iteration(const char *s, size_t n)
{
	if (!find(s, n, SB_LOG_STARTED_ITERATION) && !find(s, n, SB_LOG_SKIPPED_ITERATION))
		return 0;
	const char *p = find(s, n, " " SB_LOG_ITERATION_FIELD);
	if (!p)
		return 0;
	p += strlen(" " SB_LOG_ITERATION_FIELD);
	unsigned long v = 0;
	size_t digits = 0;
	while (p < s + n && *p >= '0' && *p <= '9' && digits < 7) {
		v = v * 10 + (unsigned long)(*p - '0');
		p++;
		digits++;
	}
	if (!digits || (p < s + n && *p != ' ' && *p != '"' && *p != ','))
		return 0;
	return (unsigned)v;
}

static bool ends_runner(const char *s, size_t n)
{
	return find(s, n, SB_LOG_RUNNER_FINISHED) || find(s, n, SB_LOG_RUNNER_STOPPED);
}

char *sbp_log_slice(const char *log, size_t len, unsigned it)
{
	char *out = malloc(len + 1);
	size_t used = 0;
	unsigned cur = 0;
	if (!out)
		return NULL;
	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(log + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - log) + 1 : len;
		const char *line = log + pos;
		size_t n = end - pos;
		unsigned k = starts_iteration(line, n);
		bool last = false;
		if (k)
			cur = k;
		else if (ends_runner(line, n))
			last = true;
		if (cur == it && it) {
			memcpy(out + used, line, n);
			used += n;
		}
		if (last)
			cur = 0;
		pos = end;
	}
	out[used] = '\0';
	return out;
}
