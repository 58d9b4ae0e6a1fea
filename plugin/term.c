/* SPDX-License-Identifier: MIT */
/* Terminal-safe output (term.h). */
#include "plugin/term.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool sbp_term_is(FILE *f)
{
	int fd = fileno(f);
	return fd >= 0 && isatty(fd);
}

/*
 * The length of the valid UTF-8 character at p (n bytes available): 1..4;
 * 0 when the bytes there are not one; -1 when they are the start of one cut
 * by the end of the data.
 */
static int utf8_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	int want;
	unsigned lo = 0x80, hi = 0xbf; /* the second byte's range */
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		want = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		want = 3;
		lo = c == 0xe0 ? 0xa0 : 0x80; /* no overlong form */
		hi = c == 0xed ? 0x9f : 0xbf; /* no surrogate */
	} else if (c >= 0xf0 && c <= 0xf4) {
		want = 4;
		lo = c == 0xf0 ? 0x90 : 0x80;
		hi = c == 0xf4 ? 0x8f : 0xbf; /* at most U+10FFFF */
	} else
		return 0;
	for (int k = 1; k < want; k++) {
		if ((size_t)k >= n)
			return -1;
		unsigned b = p[k];
		if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xbf))
			return 0;
	}
	return want;
}

/*
 * Escapes in[0..n) into out (at least 6 * n + 1 bytes); *used is how much of
 * in was consumed: all of it when final, else up to a cut character.
 * Returns the bytes written (out is NUL-terminated).
 */
static size_t escape(const unsigned char *in, size_t n, bool final, char *out, size_t *used)
{
	size_t o = 0, i = 0;
	while (i < n) {
		unsigned c = in[i];
		int l = utf8_len(in + i, n - i);
		if (l < 0 && !final)
			break;
		if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f)) {
			out[o++] = (char)c;
			i++;
		} else if (l == 2 && c == 0xc2 && in[i + 1] <= 0x9f) {
			o += (size_t)snprintf(out + o, 7, "\\u%04x", (unsigned)in[i + 1]); /* C1 */
			i += 2;
		} else if (l > 1) {
			memcpy(out + o, in + i, (size_t)l);
			o += (size_t)l;
			i += (size_t)l;
		} else {
			o += (size_t)snprintf(out + o, 7, "\\x%02x", c);
			i++;
		}
	}
	out[o] = '\0';
	*used = i;
	return o;
}

char *sbp_term_escape(const char *s, size_t len)
{
	if (len > (SIZE_MAX - 1) / 6)
		return NULL;
	char *out = malloc(6 * len + 1);
	size_t used;
	if (out)
		(void)escape((const unsigned char *)s, len, true, out, &used);
	return out;
}

static int put(FILE *f, const char *s, size_t n)
{
	return fwrite(s, 1, n, f) == n ? 0 : -(errno ? errno : EIO);
}

int sbp_term_write(struct sbp_term *t, FILE *f, const char *data, size_t len)
{
	size_t n = t->ncarry + len, used = 0;
	if (len > (SIZE_MAX - 8) / 7)
		return -ENOMEM;
	unsigned char *in = malloc(n ? n : 1);
	char *out = malloc(6 * n + 1);
	int r = -ENOMEM;
	if (in && out) {
		memcpy(in, t->carry, t->ncarry);
		memcpy(in + t->ncarry, data, len);
		size_t o = escape(in, n, false, out, &used);
		/* a cut character is at most 3 bytes: the rest waits for the next part */
		t->ncarry = n - used;
		memcpy(t->carry, in + used, t->ncarry);
		r = put(f, out, o);
	}
	free(in);
	free(out);
	return r;
}

int sbp_term_flush(struct sbp_term *t, FILE *f)
{
	char out[6 * sizeof(t->carry) + 1];
	size_t used;
	size_t o = escape(t->carry, t->ncarry, true, out, &used);
	t->ncarry = 0;
	return put(f, out, o);
}

int sbp_term_out(FILE *f, const char *s, size_t len)
{
	if (!sbp_term_is(f))
		return put(f, s, len);
	char *e = sbp_term_escape(s, len);
	if (!e)
		return -ENOMEM;
	int r = put(f, e, strlen(e));
	free(e);
	return r;
}
