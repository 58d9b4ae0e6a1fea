/* SPDX-License-Identifier: MIT */
/*
 * Terminal-safe output. What the plugin prints comes from others: pod logs,
 * report text and status messages from ConfigMaps and objects anyone with
 * create rights in the namespace may have written. A terminal obeys control
 * characters in it (ESC sequences retitle the window, move the cursor, write
 * what looks like other output, or answer back), so when the output is a
 * terminal every C0 control but '\n' and '\t', DEL, every C1 control (the
 * bytes 0x80-0x9f outside a UTF-8 character, and U+0080-U+009F) and every
 * byte that is not valid UTF-8 is written escaped and visible instead:
 * "\x1b", "\u009b". Valid UTF-8 text passes unchanged. Output that is not a
 * terminal (a file, a pipe) is written as it is.
 */
#ifndef SB_PLUGIN_TERM_H
#define SB_PLUGIN_TERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A stream's state: the start of a UTF-8 character cut by the end of a write. */
struct sbp_term {
	unsigned char carry[4];
	size_t ncarry;
};
#define SBP_TERM_INIT  \
	{              \
		{0}, 0 \
	}

/* Whether f is a terminal. */
bool sbp_term_is(FILE *f);

/*
 * The escaped form of len bytes of s (rules above; an incomplete character at
 * the end is escaped too). A new NUL-terminated string; NULL on ENOMEM.
 */
char *sbp_term_escape(const char *s, size_t len);

/*
 * Writes len bytes of data to f escaped, as one part of a stream: a UTF-8
 * character cut at the end is kept in t and completed by the next call (or
 * escaped by sbp_term_flush). Returns 0 or -errno (-ENOMEM, -EIO).
 */
int sbp_term_write(struct sbp_term *t, FILE *f, const char *data, size_t len);

/* Writes what t still holds, escaped. 0 or -errno. */
int sbp_term_flush(struct sbp_term *t, FILE *f);

/*
 * Writes len bytes of s to f: escaped when f is a terminal, as they are
 * otherwise. Returns 0 or -errno.
 */
int sbp_term_out(FILE *f, const char *s, size_t len);

#endif
