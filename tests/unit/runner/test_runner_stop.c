/* SPDX-License-Identifier: MIT */
/*
 * Stopping on SIGTERM/SIGINT (runner/mode/stop.c) and a run that is stopped
 * (runner/io/run.c, runner/io/worker.c). The signal handlers are installed only
 * in forked children, so this program's own signals stay as they were.
 */
#include "tests/unit/harness.h"

#include "core/labels.h"
#include "runner/mode/cmdline.h"
#include "runner/io/run.h"
#include "runner/mode/stop.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void quiet_stderr(void)
{
	int fd = open("/dev/null", O_WRONLY);
	if (fd >= 0) {
		dup2(fd, STDERR_FILENO);
		close(fd);
	}
}

/* Reads one byte from fd (the child's "I got this far"); -1 at EOF. */
static int read_byte(int fd)
{
	char c;
	ssize_t r;
	while ((r = read(fd, &c, 1)) < 0 && errno == EINTR)
		;
	return r == 1 ? c : -1;
}

static int wait_status(pid_t pid)
{
	int ws = 0;
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : 1000 + (WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
}

/* The first SIGTERM is recorded and the process goes on; the second exits 143 at once. */
static int test_first_records_second_exits(void)
{
	int p[2];
	CHECK(pipe(p) == 0);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		quiet_stderr();
		if (sb_stop_install() || sb_stop_signal() != 0)
			_exit(3);
		raise(SIGTERM);
		if (sb_stop_signal() != SIGTERM)
			_exit(4);
		if (write(p[1], "A", 1) != 1) /* still running after the first */
			_exit(5);
		raise(SIGTERM); /* exits inside the handler */
		_exit(6);
	}
	close(p[1]);
	int got = read_byte(p[0]);
	close(p[0]);
	int st = wait_status(pid);
	CHECK_INT(got, 'A');
	CHECK_INT(st, SB_EXIT_INTERRUPTED(SIGTERM));
	CHECK_INT(SB_EXIT_INTERRUPTED(SIGTERM), 143);
	CHECK_INT(SB_EXIT_INTERRUPTED(SIGINT), 130);
	return T_PASS;
}

/* SIGINT is handled the same way and named. */
static int test_sigint_recorded(void)
{
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		quiet_stderr();
		if (sb_stop_install())
			_exit(3);
		raise(SIGINT);
		_exit(sb_stop_signal() == SIGINT && !strcmp(sb_stop_name(SIGINT), "SIGINT") ? 0
											    : 4);
	}
	CHECK_INT(wait_status(pid), 0);
	CHECK_STR(sb_stop_name(SIGTERM), "SIGTERM");
	CHECK_STR(sb_stop_name(SIGHUP), "signal 1");
	return T_PASS;
}

/* A signal is passed on to the registered processes (--clients' children). */
static int test_forwarded(void)
{
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		int p[2];
		quiet_stderr();
		if (pipe(p) || sb_stop_install())
			_exit(3);
		pid_t b = fork();
		if (b < 0)
			_exit(3);
		if (b == 0) {
			close(p[0]);
			sb_stop_forward(NULL, 0);
			if (write(p[1], "R", 1) != 1)
				_exit(5);
			/* at most a minute: a signal that never comes fails the case */
			for (int i = 0; i < 600 && !sb_stop_requested(); i++)
				(void)sb_stop_sleep_ns(100 * 1000 * 1000);
			_exit(sb_stop_signal() == SIGTERM ? SB_EXIT_INTERRUPTED(SIGTERM) : 7);
		}
		close(p[1]);
		if (read_byte(p[0]) != 'R') /* b has its handler */
			_exit(8);
		pid_t pids[1] = {b};
		sb_stop_forward(pids, 1);
		raise(SIGTERM);
		int st = wait_status(b);
		sb_stop_forward(NULL, 0);
		_exit(st == SB_EXIT_INTERRUPTED(SIGTERM) ? 0 : 9);
	}
	CHECK_INT(wait_status(pid), 0);
	return T_PASS;
}

static int test_sleep_cut_short(void)
{
	sb_stop_reset();
	CHECK(!sb_stop_sleep_ns(1000 * 1000)); /* 1 ms, no stop */
	sb_stop_request(SIGTERM);
	double t0 = mono_s();
	CHECK(sb_stop_sleep_ns(60ull * 1000 * 1000 * 1000)); /* a minute, stopped already */
	double dt = mono_s() - t0;
	sb_stop_request(SIGINT); /* the first signal stays the one recorded */
	int sig = sb_stop_signal();
	sb_stop_reset();
	CHECK(dt < 10);
	CHECK_INT(sig, SIGTERM);
	CHECK(!sb_stop_requested());
	return T_PASS;
}

/* ------------------------------------------------ a run that is stopped */

static int parse_jobs(struct sb_cli *cli, struct sb_joblist *jobs, const char *dir,
		      const char *engine)
{
	char d[64], e[64];
	struct sb_diag diag;
	memset(&diag, 0, sizeof(diag));
	snprintf(d, sizeof(d), "--directory=%s", dir);
	snprintf(e, sizeof(e), "--ioengine=%s", engine);
	char *argv[] = {"runner",
			"--name=t",
			"--rw=randwrite",
			"--bs=4k",
			"--size=1m",
			"--time_based",
			"--runtime=60",
			e,
			d,
			NULL};
	if (sb_cli_parse(9, argv, cli, &diag))
		return -EINVAL;
	return sb_cli_jobs(cli, jobs, &diag);
}

struct stopper {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool hooked;
	bool stop_in_hook;
};

static int hook(void *ctx, unsigned group)
{
	struct stopper *s = ctx;
	(void)group;
	if (s->stop_in_hook)
		sb_stop_request(SIGTERM);
	pthread_mutex_lock(&s->mu);
	s->hooked = true;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return 0;
}

static void *stop_after_hook(void *arg)
{
	struct stopper *s = arg;
	pthread_mutex_lock(&s->mu);
	while (!s->hooked)
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
	sb_stop_request(SIGTERM);
	return NULL;
}

/*
 * A minute-long time-based job stopped once it is released: sb_run_jobs
 * returns soon, the results say interrupted by SIGTERM.
 */
static int run_stopped(const char *dir, const char *engine, bool in_hook, int *interrupted,
		       size_t *nres, double *secs)
{
	struct sb_cli cli;
	struct sb_joblist jobs = SB_JOBLIST_INIT;
	struct sb_results res = SB_RESULTS_INIT;
	struct stopper s = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, in_hook};
	pthread_t t;
	int ret = parse_jobs(&cli, &jobs, dir, engine);
	if (!ret) {
		sb_stop_reset();
		sb_run_set_start_hook(hook, &s);
		ret = pthread_create(&t, NULL, stop_after_hook, &s);
		if (!ret) {
			double t0 = mono_s();
			ret = sb_run_jobs(&jobs, &res);
			*secs = mono_s() - t0;
			pthread_mutex_lock(&s.mu);
			s.hooked = true; /* the thread ends also when no group was released */
			pthread_cond_broadcast(&s.cv);
			pthread_mutex_unlock(&s.mu);
			pthread_join(t, NULL);
		}
		sb_run_set_start_hook(NULL, NULL);
		*interrupted = res.interrupted;
		*nres = res.n;
		sb_stop_reset();
	}
	sb_results_release(&res);
	sb_joblist_release(&jobs);
	sb_cli_release(&cli);
	return ret;
}

/* The job's file and the directory (mkdtemp'd) go. */
static void remove_dir(const char *dir)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/t.0.0", dir);
	unlink(path);
	rmdir(dir);
}

static int test_run_stopped_while_running(void)
{
	static const char *const engines[] = {"io_uring", "psync", "null"};
	char dir[] = "/tmp/sb-stop-XXXXXX";
	if (!mkdtemp(dir))
		SKIP("no temporary directory");
	for (size_t i = 0; i < 3; i++) {
		int intr = 0;
		size_t n = 0;
		double secs = 0;
		int r = run_stopped(dir, engines[i], false, &intr, &n, &secs);
		if (i == 2)
			remove_dir(dir);
		if (r)
			fprintf(stderr, "    engine %s: %s\n", engines[i], strerror(-r));
		CHECK_INT(r, 0);
		CHECK_INT(intr, SIGTERM);
		CHECK(n <= 1);	  /* stopped before the group started, or its partial result */
		CHECK(secs < 30); /* not the job's minute */
	}
	return T_PASS;
}

static int test_run_stopped_at_barrier(void)
{
	char dir[] = "/tmp/sb-stop-XXXXXX";
	int intr = 0;
	size_t n = 9;
	double secs = 0;
	if (!mkdtemp(dir))
		SKIP("no temporary directory");
	int r = run_stopped(dir, "psync", true, &intr, &n, &secs);
	remove_dir(dir);
	CHECK_INT(r, 0);
	CHECK_INT(intr, SIGTERM);
	CHECK_INT(n, 0); /* the group did not start */
	return T_PASS;
}

static const struct test_case cases[] = {
	{"stop/first_records_second_exits", test_first_records_second_exits},
	{"stop/sigint_recorded", test_sigint_recorded},
	{"stop/forwarded_to_clients", test_forwarded},
	{"stop/sleep_cut_short", test_sleep_cut_short},
	{"stop/run_stopped_while_running", test_run_stopped_while_running},
	{"stop/run_stopped_at_barrier", test_run_stopped_at_barrier},
};

TEST_MAIN(cases)
