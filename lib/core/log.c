/* SPDX-License-Identifier: MIT */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static _Atomic int log_level = SB_LOG_INFO;
static _Atomic int log_fd = 2;
static _Atomic bool log_json;

static const char *const level_names[] = {"debug", "info", "warn", "error", "off"};

void sb_log_set_level(enum sb_log_level level)
{
	log_level = (int)level;
}

enum sb_log_level sb_log_get_level(void)
{
	return (enum sb_log_level)log_level;
}

int sb_log_parse_level(const char *s, enum sb_log_level *out)
{
	for (size_t i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++) {
		if (strcasecmp(s, level_names[i]) == 0) {
			*out = (enum sb_log_level)i;
			return 0;
		}
	}
	return -EINVAL;
}

void sb_log_set_fd(int fd)
{
	log_fd = fd;
}

void sb_log_set_json(bool on)
{
	log_json = on;
}

/* Appends s to buf at *len as a JSON string body, escaping as needed. */
static void put_json_str(char *buf, size_t cap, size_t *len, const char *s, size_t n)
{
	for (size_t i = 0; i < n && *len + 7 < cap; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			buf[(*len)++] = '\\';
			buf[(*len)++] = (char)c;
		} else if (c < 0x20) {
			*len += (size_t)snprintf(buf + *len, cap - *len, "\\u%04x", c);
		} else {
			buf[(*len)++] = (char)c;
		}
	}
}

static void put_raw(char *buf, size_t cap, size_t *len, const char *s)
{
	/* keeps two bytes free for the newline the caller appends */
	int n = snprintf(buf + *len, cap - 1 - *len, "%s", s);
	if (n > 0)
		*len += (size_t)n < cap - 2 - *len ? (size_t)n : cap - 2 - *len;
}

void sb_log(enum sb_log_level level, const char *msg, const char *fields_fmt, ...)
{
	char line[4096], fields[3072] = "", ts[64];
	size_t len = 0;
	struct timespec now;
	struct tm tm;

	if ((int)level < log_level || level >= SB_LOG_OFF)
		return;
	if (fields_fmt) {
		va_list ap;
		va_start(ap, fields_fmt);
		vsnprintf(fields, sizeof(fields), fields_fmt, ap);
		va_end(ap);
	}
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	snprintf(ts, sizeof(ts), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (int)(now.tv_nsec / 1000000));

	if (!log_json) {
		len = (size_t)snprintf(line, sizeof(line) - 2, "%s %s %s%s%s", ts,
				       level_names[level], msg, fields[0] ? " " : "", fields);
		if (len > sizeof(line) - 2)
			len = sizeof(line) - 2;
	} else {
		put_raw(line, sizeof(line), &len, "{\"ts\":\"");
		put_raw(line, sizeof(line), &len, ts);
		put_raw(line, sizeof(line), &len, "\",\"level\":\"");
		put_raw(line, sizeof(line), &len, level_names[level]);
		put_raw(line, sizeof(line), &len, "\",\"msg\":\"");
		put_json_str(line, sizeof(line), &len, msg, strlen(msg));
		put_raw(line, sizeof(line), &len, "\"");
		/* fields: "k=v k=v"; a value runs to the next " key=" or the end */
		const char *p = fields;
		while (*p) {
			while (*p == ' ')
				p++;
			const char *eq = strchr(p, '=');
			if (!eq)
				break;
			const char *end = eq + 1, *next;
			for (next = strchr(end, ' '); next; next = strchr(next + 1, ' ')) {
				const char *e2 = strchr(next + 1, '=');
				const char *s2 = strchr(next + 1, ' ');
				if (e2 && (!s2 || e2 < s2))
					break;
			}
			end = next ? next : eq + 1 + strlen(eq + 1);
			put_raw(line, sizeof(line), &len, ",\"");
			put_json_str(line, sizeof(line), &len, p, (size_t)(eq - p));
			put_raw(line, sizeof(line), &len, "\":\"");
			put_json_str(line, sizeof(line), &len, eq + 1, (size_t)(end - eq - 1));
			put_raw(line, sizeof(line), &len, "\"");
			p = end;
		}
		put_raw(line, sizeof(line), &len, "}");
	}
	line[len++] = '\n';
	/* A log line that cannot be written has nowhere else to go. */
	ssize_t w = write(log_fd, line, len);
	(void)w;
}
