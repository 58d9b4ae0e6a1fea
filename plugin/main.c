/* SPDX-License-Identifier: MIT */
/*
 * kubectl-storagebench: the kubectl plugin of storagebench. kubectl runs it
 * for `kubectl storagebench ...` when it is on PATH.
 *
 *	kubectl storagebench list [-A]
 *	kubectl storagebench report NAME [--format txt|md|csv|json|svg] [-o FILE]
 *	kubectl storagebench compare BASELINE CURRENT [--format txt|md|json]
 *	kubectl storagebench logs NAME [--class C] [--iteration N]
 *	kubectl storagebench history SCHEDULE [--metric M]
 *	kubectl storagebench version
 *
 * Exit status: 0 done, 1 an operational failure (explained on stderr),
 * 2 a usage error.
 */
#include "core/log.h"
#include "plugin/args.h"
#include "plugin/cmd.h"

#include <signal.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	struct sbp_args a;
	struct sbp_ctx x;
	char err[512];
	int status;

	/* lib/kube logs retries at warn level: keep a person's terminal quiet */
	sb_log_set_level(SB_LOG_ERROR);
	signal(SIGPIPE, SIG_IGN);
	if (sbp_args_parse(argc, argv, &a, err, sizeof(err))) {
		fprintf(stderr, "error: %s\n", err);
		if (a.cmd != SBP_CMD_NONE && a.cmd != SBP_CMD_HELP)
			fprintf(stderr, "See 'kubectl storagebench %s --help' for usage.\n",
				sbp_cmd_name(a.cmd));
		else
			fprintf(stderr, "See 'kubectl storagebench --help' for usage.\n");
		return 2;
	}
	if (a.help) {
		sbp_usage(stdout, a.help_cmd);
		return fflush(stdout) ? 1 : 0;
	}
	if (a.cmd == SBP_CMD_VERSION) {
		printf("kubectl-storagebench %s\n", SB_VERSION);
		return fflush(stdout) ? 1 : 0;
	}
	if (sbp_ctx_open(&x, &a))
		return 1;
	switch (a.cmd) {
	case SBP_CMD_LIST:
		status = sbp_cmd_list(&x, &a);
		break;
	case SBP_CMD_REPORT:
		status = sbp_cmd_report(&x, &a);
		break;
	case SBP_CMD_COMPARE:
		status = sbp_cmd_compare(&x, &a);
		break;
	case SBP_CMD_LOGS:
		status = sbp_cmd_logs(&x, &a);
		break;
	case SBP_CMD_HISTORY:
		status = sbp_cmd_history(&x, &a);
		break;
	default:
		sbp_usage(stderr, SBP_CMD_NONE);
		status = 2;
		break;
	}
	sbp_ctx_close(&x);
	return status;
}
