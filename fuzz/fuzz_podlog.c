/* SPDX-License-Identifier: MIT */
/*
 * A runner pod's log as the plugin reads it (plugin/logslice.c,
 * plugin/podlog.c, plugin/term.c): the slice of one iteration, the
 * "gone" and kubelet-error answers, and the escaping of what reaches a
 * terminal. The first byte picks the iteration.
 */
#include "fuzz/fuzz.h"
#include "plugin/podlog.h"
#include "plugin/term.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned it = data[0] % 8;
	char *log = fuzz_cstr(data + 1, size - 1);
	if (!log)
		return 0;
	char *s = sbp_log_slice(log, size - 1, it);
	free(s);
	(void)sbp_log_gone(log, size - 1);
	(void)sbp_log_kubelet_error(log, size - 1);
	char *e = sbp_term_escape(log, size - 1);
	free(e);
	free(log);
	return 0;
}
