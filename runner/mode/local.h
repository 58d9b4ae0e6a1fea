/* SPDX-License-Identifier: MIT */
/*
 * Running jobs on this host: iterations, output (normal, json, json+) and,
 * with --iterations > 1, the summary report (the same renderer as the
 * controller's). With json output, stdout holds exactly one JSON document;
 * messages go to stderr.
 */
#ifndef SB_RUNNER_MODE_LOCAL_H
#define SB_RUNNER_MODE_LOCAL_H

#include "runner/mode/cmdline.h"
#include "fiojob/job.h"

/* Runs and prints. Returns the exit status: 0, 1 (I/O failure), 2 (usage). */
int sb_local_run(const struct sb_cli *cli, const struct sb_joblist *jobs);

#endif
