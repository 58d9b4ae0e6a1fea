/* SPDX-License-Identifier: MIT */
/* Incremental JSON-lines decoding of a watch stream. */
#include "kube/lines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_LINE ((size_t)64 << 20)

void kube_line_decoder_init(struct kube_line_decoder *d, size_t max_line)
{
	memset(d, 0, sizeof(*d));
	d->max_line = max_line ? max_line : DEFAULT_MAX_LINE;
}

void kube_line_decoder_release(struct kube_line_decoder *d)
{
	free(d->buf);
	kube_line_decoder_init(d, d->max_line);
}

void kube_line_decoder_reset(struct kube_line_decoder *d)
{
	d->len = 0;
}

static int emit(char *line, size_t len, kube_line_cb cb, void *arg)
{
	if (len && line[len - 1] == '\r')
		len--;
	if (!len)
		return 0;
	line[len] = '\0';
	return cb(line, len, arg);
}

/* Appends n bytes to the pending partial line. */
static int append(struct kube_line_decoder *d, const char *data, size_t n)
{
	if (d->len + n > d->max_line)
		return -E2BIG;
	if (d->len + n + 1 > d->cap) {
		size_t ncap = d->cap ? d->cap : 4096;
		while (ncap < d->len + n + 1)
			ncap *= 2;
		char *nb = realloc(d->buf, ncap);
		if (!nb)
			return -ENOMEM;
		d->buf = nb;
		d->cap = ncap;
	}
	memcpy(d->buf + d->len, data, n);
	d->len += n;
	return 0;
}

int kube_line_decoder_feed(struct kube_line_decoder *d, const char *data, size_t n, kube_line_cb cb,
			   void *arg)
{
	while (n) {
		const char *nl = memchr(data, '\n', n);
		if (!nl)
			return append(d, data, n);
		size_t take = (size_t)(nl - data);
		int ret = append(d, data, take);
		if (ret)
			return ret;
		data = nl + 1;
		n -= take + 1;
		size_t len = d->len;
		d->len = 0; /* before cb, so a reset from cb is harmless */
		if (len == 0)
			continue;
		ret = emit(d->buf, len, cb, arg);
		if (ret)
			return ret;
	}
	return 0;
}
