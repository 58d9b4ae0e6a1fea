/* SPDX-License-Identifier: MIT */
/* The runner inside a runner pod (see pod.c). */
#ifndef SB_RUNNER_MODE_POD_H
#define SB_RUNNER_MODE_POD_H

/* argv[0] is "pod"; the rest are runner options. Returns the exit status. */
int sb_pod_main(int argc, char **argv);

#endif
