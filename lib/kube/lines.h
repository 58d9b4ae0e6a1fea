/* SPDX-License-Identifier: MIT */
/*
 * Incremental JSON-lines decoding of a stream (lines.c). Private to lib/kube (its files, unit tests and fuzzers).
 */
#ifndef SB_LIB_KUBE_LINES_H
#define SB_LIB_KUBE_LINES_H

#include <stddef.h>

/*
 * Splits a byte stream into '\n'-terminated lines as chunks arrive: a line
 * may span chunks and a chunk may hold many lines. Empty lines (and a
 * trailing '\r') are skipped.
 */
struct kube_line_decoder {
	char *buf; /* bytes of an unfinished line */
	size_t len, cap;
	size_t max_line; /* longest line accepted; 0: 64 MiB */
};

void kube_line_decoder_init(struct kube_line_decoder *d, size_t max_line);
void kube_line_decoder_release(struct kube_line_decoder *d);
/* Drops a partial line (after a reconnect). */
void kube_line_decoder_reset(struct kube_line_decoder *d);

/* Called per complete line (line NUL-terminated, without the newline). A
 * non-zero return stops the feeding and is returned by feed. */
typedef int (*kube_line_cb)(char *line, size_t len, void *arg);

/*
 * Feeds n bytes; calls cb for each line completed. Returns 0, cb's non-zero
 * value, -E2BIG for a line longer than max_line, -ENOMEM.
 */
int kube_line_decoder_feed(struct kube_line_decoder *d, const char *data, size_t n, kube_line_cb cb,
			   void *arg);

#endif
