/* SPDX-License-Identifier: MIT */
/*
 * The watch stream decoder (lib/kube/lines.c): the input arrives in chunks
 * whose sizes come from its first bytes, is split into lines, and each line
 * is parsed as a watch event.
 */
#include "fuzz/fuzz.h"
#include "kube/internal.h"

static int on_line(char *line, size_t len, void *arg)
{
	enum kube_event_type type;
	json_t *obj = NULL;
	(void)arg;
	if (kube_watch_parse_event(line, len, &type, &obj) == 0)
		json_decref(obj);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kube_line_decoder d;
	if (size < 2)
		return 0;
	/* a small line limit, so the -E2BIG path is reached too */
	kube_line_decoder_init(&d, (size_t)data[0] * 64 + 16);
	size_t chunk = (size_t)data[1] % 32 + 1;
	data += 2;
	size -= 2;
	for (size_t off = 0; off < size; off += chunk) {
		size_t n = size - off < chunk ? size - off : chunk;
		if (kube_line_decoder_feed(&d, (const char *)data + off, n, on_line, NULL))
			kube_line_decoder_reset(&d);
	}
	kube_line_decoder_release(&d);
	return 0;
}
