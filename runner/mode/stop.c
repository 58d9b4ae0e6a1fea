/* SPDX-License-Identifier: MIT */
#include "runner/mode/stop.h"

#include "core/labels.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* the handler touches only lock-free atomics and async-signal-safe calls */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "lock-free atomic int needed in a signal handler");
_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2, "lock-free atomic pointer needed");

static atomic_int stop_sig;
static const pid_t *_Atomic fwd_pids;
static atomic_uint fwd_n;

static void forward(int sig)
{
	const pid_t *p = atomic_load(&fwd_pids);
	unsigned n = atomic_load(&fwd_n);
	for (unsigned i = 0; p && i < n; i++)
		if (p[i] > 0)
			(void)kill(p[i], sig);
}

static void on_signal(int sig)
{
	int expected = 0;
	int saved = errno;
	forward(sig);
	if (!atomic_compare_exchange_strong(&stop_sig, &expected, sig)) {
		static const char msg[] = "storagebench-runner: a second signal: exiting at once\n";
		ssize_t w = write(STDERR_FILENO, msg, sizeof(msg) - 1);
		(void)w;
		_exit(SB_EXIT_INTERRUPTED(sig));
	}
	errno = saved;
}

int sb_stop_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGINT);
	if (sigaction(SIGTERM, &sa, NULL) != 0 || sigaction(SIGINT, &sa, NULL) != 0)
		return -errno;
	return 0;
}

int sb_stop_signal(void)
{
	return atomic_load(&stop_sig);
}

void sb_stop_request(int sig)
{
	int expected = 0;
	(void)atomic_compare_exchange_strong(&stop_sig, &expected, sig);
}

void sb_stop_reset(void)
{
	atomic_store(&stop_sig, 0);
}

bool sb_stop_sleep_ns(uint64_t ns)
{
	const uint64_t slice = 20 * 1000 * 1000;
	while (ns) {
		if (sb_stop_requested())
			return true;
		uint64_t d = ns < slice ? ns : slice;
		struct timespec ts = {.tv_sec = (time_t)(d / 1000000000u),
				      .tv_nsec = (long)(d % 1000000000u)};
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			if (sb_stop_requested())
				return true;
		ns -= d;
	}
	return sb_stop_requested();
}

void sb_stop_forward(const pid_t *pids, unsigned n)
{
	atomic_store(&fwd_n, 0);
	atomic_store(&fwd_pids, pids);
	atomic_store(&fwd_n, pids ? n : 0);
}

const char *sb_stop_name(int sig)
{
	static _Thread_local char buf[24];
	if (sig == SIGTERM)
		return "SIGTERM";
	if (sig == SIGINT)
		return "SIGINT";
	(void)snprintf(buf, sizeof(buf), "signal %d", sig);
	return buf;
}
