/* SPDX-License-Identifier: MIT */
/*
 * The runner's command line (runner/mode/cmdline.c): the input is split into
 * arguments at newlines. Job file arguments are dropped (they would be
 * opened); profiles and --name jobs are expanded and validated.
 */
#include "fuzz/fuzz.h"
#include "runner/mode/cmdline.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	char *argv[MAX_ARGS + 2];
	int argc = 0;
	if (!text)
		return 0;
	argv[argc++] = (char *)"storagebench-runner";
	for (char *p = text, *nl; p && argc < MAX_ARGS + 1; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		argv[argc++] = p;
	}
	argv[argc] = NULL;
	struct sb_cli cli;
	struct sb_diag d = {0};
	if (sb_cli_parse(argc, argv, &cli, &d) == 0) {
		struct sb_joblist jobs = SB_JOBLIST_INIT;
		cli.njobfiles = 0;
		(void)sb_cli_jobs(&cli, &jobs, &d);
		sb_joblist_release(&jobs);
	}
	sb_cli_release(&cli);
	free(text);
	return 0;
}
