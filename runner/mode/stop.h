/* SPDX-License-Identifier: MIT */
/*
 * Stopping on SIGTERM and SIGINT, in every mode (docs/runner.md,
 * "Signals"). A runner container runs the runner as PID 1, which the
 * kernel does not kill for a signal it has no handler for: without these
 * handlers a deleted runner pod waited for its whole grace period.
 *
 * The first signal only records itself (an atomic store in the handler):
 * the workers stop issuing I/O, reap what is in flight (a bounded wait),
 * and each mode keeps what was complete and exits with
 * SB_EXIT_INTERRUPTED(signal) (lib/core/labels.h). A second signal exits at
 * once with the same status. Both handlers first pass the signal on to
 * the processes registered with sb_stop_forward (--clients).
 */
#ifndef SB_RUNNER_MODE_STOP_H
#define SB_RUNNER_MODE_STOP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Installs the handlers for SIGTERM and SIGINT (SA_RESTART). 0 or -errno. */
int sb_stop_install(void);

/* The signal that asked to stop (SIGTERM, SIGINT), or 0. Any thread. */
int sb_stop_signal(void);

static inline bool sb_stop_requested(void)
{
	return sb_stop_signal() != 0;
}

/* Records a stop as the handler would (tests, and a child told by its parent). */
void sb_stop_request(int sig);

/* Forgets a recorded stop (tests). */
void sb_stop_reset(void);

/*
 * Sleeps ns nanoseconds, waking within 20 ms when a stop is requested.
 * Returns true when it was cut short by a stop.
 */
bool sb_stop_sleep_ns(uint64_t ns);

/*
 * The processes the handlers pass a signal on to: pids[0..n) (borrowed
 * until replaced; NULL/0 forgets them). Set it before the processes can
 * receive signals from us and clear it before pids goes away.
 */
void sb_stop_forward(const pid_t *pids, unsigned n);

/* "SIGTERM", "SIGINT", or "signal N". */
const char *sb_stop_name(int sig);

#endif
