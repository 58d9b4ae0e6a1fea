/* SPDX-License-Identifier: MIT */
/*
 * storagebench-runner: a fio-equivalent I/O benchmark on io_uring.
 *
 * Exit status (lib/core/labels.h SB_EXIT_*): 0 when every job ran without
 * error, 1 when a job failed while doing I/O (its partial results and the
 * other jobs' are still printed), 2 for a usage error (bad option, bad job
 * file, unusable configuration such as unaligned direct I/O or a missing
 * directory), 128 + the signal when SIGTERM (143) or SIGINT (130) stopped
 * it (what ran is printed, marked interrupted; runner/mode/stop.h).
 */
#include "core/log.h"
#include "runner/mode/cmdline.h"
#include "runner/mode/local.h"
#include "runner/out/json.h"
#include "runner/out/text.h"
#include "runner/mode/pod.h"
#include "fiojob/patfile.h"
#include "fiojob/profiles.h"
#include "runner/io/run.h"
#include "runner/s3/s3.h"
#include "runner/mode/stop.h"

#include "core/labels.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: storagebench-runner [options] [jobfile ...]\n"
		"       storagebench-runner --name=NAME --rw=randread --bs=4k ... [--name=...]\n"
		"       storagebench-runner --profile=NAME [--iterations=N] [job options]\n"
		"       storagebench-runner pod [options]   (in a BenchmarkRun's runner pod)\n"
		"       storagebench-runner idle            (wait for SIGTERM: a lifecycle "
		"consumer pod)\n"
		"       storagebench-runner s3 [flags] get|put|delete|stat|list|mixed   (S3, "
		"warp's "
		"flags;\n"
		"                                   s3 --help)\n"
		"\n"
		"Job options are fio's (--cmdhelp lists them): options before the first --name\n"
		"apply to every job; each --name starts a job. Jobs in a job file run at the same\n"
		"time unless stonewall is set, as in fio.\n"
		"\n"
		"  --output-format=normal|json|json+   output format (default normal)\n"
		"  --output=FILE          write the output to FILE instead of stdout\n"
		"  --parse-only           check options and job files, run nothing\n"
		"  --profile=NAME|list    run a built-in profile (its workloads one after "
		"another)\n"
		"  --iterations=N         repeat everything N times, then print mean, stddev,\n"
		"                         min, max and CV per workload and metric\n"
		"  --clients=N            N processes run the jobs together, each on its own\n"
		"                         files, started at a barrier; prints their sum per\n"
		"                         workload (per-second series) and a row per client\n"
		"  --barrier-timeout=DUR  with --clients: a client not at a start barrier DUR\n"
		"                         after another fails the iteration (default 5m)\n"
		"  --label=NAME           what the summary calls the target (default: the "
		"directory)\n"
		"  --report-format=txt|md|csv|json|svg   summary format with --iterations (default "
		"txt,\n"
		"                         or from the --report file's extension)\n"
		"  --report=FILE          write the summary to FILE instead of after the output\n"
		"  --log-level=debug|info|warn|error  messages on stderr (default info)\n"
		"  --cmdhelp[=OPTION]     list the fio options we know, or one of them\n"
		"  --version, --help\n"
		"\n"
		"Exit status: 0 success, 1 an I/O failure (results still printed), 2 usage "
		"error,\n"
		"143 (130) stopped by SIGTERM (SIGINT): partial results printed, marked.\n");
}

static void cmdhelp(FILE *f, const char *which)
{
	const struct sb_opt_info *t;
	size_t n = sb_opt_table(&t);
	static const char *const st[] = {"supported", "no-op", "refused"};
	bool found = false;
	for (size_t i = 0; i < n; i++) {
		if (*which && strcmp(which, t[i].name) &&
		    (!t[i].alias || strcmp(which, t[i].alias)))
			continue;
		found = true;
		fprintf(f, "%-28s %-9s %s%s%s%s\n", t[i].name, st[t[i].status], t[i].help,
			t[i].alias ? " (alias: " : "", t[i].alias ? t[i].alias : "",
			t[i].alias ? ")" : "");
	}
	if (!found)
		fprintf(f, "no option '%s'\n", which);
}

/*
 * storagebench-runner idle: waits for SIGTERM or SIGINT and exits 0 (a
 * lifecycle measurement's consumer pod: it holds the volume mounted).
 */
static int idle_main(void)
{
	sigset_t set;
	int sig = 0;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &set, NULL) || sigwait(&set, &sig)) {
		fprintf(stderr, "storagebench-runner: idle: cannot wait for signals\n");
		return 1;
	}
	return 0;
}

/* FILE.yaml / FILE.yml: warp's run files (fio job files are .fio or anything else) */
static bool s3_run_file(const char *path)
{
	size_t n = strlen(path);
	return (n > 5 && !strcmp(path + n - 5, ".yaml")) ||
	       (n > 4 && !strcmp(path + n - 4, ".yml"));
}

static void warn_cb(void *ctx, const char *msg)
{
	(void)ctx;
	sb_warn("Accepted option without effect", "detail=\"%s\"", msg);
}

int main(int argc, char **argv)
{
	struct sb_cli cli;
	struct sb_diag diag = {.warn = warn_cb};
	struct sb_joblist jobs = SB_JOBLIST_INIT;
	int status = 0;

	/* every mode stops cleanly on SIGTERM/SIGINT (as PID 1 of a runner
	 * container, a signal without a handler would be ignored) */
	int sr = sb_stop_install();
	if (sr) {
		fprintf(stderr, "storagebench-runner: cannot handle SIGTERM: %s\n", strerror(-sr));
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "pod"))
		return sb_pod_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], SB_RUNNER_IDLE))
		return idle_main();
	if (argc > 1 && !strcmp(argv[1], "s3"))
		return sb_s3_main(argc - 1, argv + 1);
	if (argc == 3 && !strcmp(argv[1], "--parse-only") && s3_run_file(argv[2])) {
		/* a warp run file: checked by the S3 side */
		char *s3argv[] = {argv[0], "--parse-only", "run", argv[2], NULL};
		return sb_s3_main(4, s3argv);
	}
	/* the command line's user names their own pattern files, as with fio (patfile.h) */
	(void)sb_patfile_set_mode(SB_PATFILE_ANY, NULL);
	if (sb_cli_parse(argc, argv, &cli, &diag)) {
		fprintf(stderr, "storagebench-runner: %s\n",
			diag.msg[0] ? diag.msg : "out of memory");
		fprintf(stderr, "Try 'storagebench-runner --help'.\n");
		sb_cli_release(&cli);
		return 2;
	}
	if (cli.log_level) {
		enum sb_log_level lvl;
		if (sb_log_parse_level(cli.log_level, &lvl)) {
			fprintf(stderr,
				"storagebench-runner: --log-level: '%s' is not one of debug, "
				"info, warn, error, off\n",
				cli.log_level);
			status = 2;
			goto out;
		}
		sb_log_set_level(lvl);
	}
	if (cli.help) {
		usage(stdout);
		goto out;
	}
	if (cli.version) {
		printf("storagebench-runner %s\n", SB_VERSION);
		goto out;
	}
	if (cli.cmdhelp) {
		cmdhelp(stdout, cli.cmdhelp);
		goto out;
	}
	if (cli.profile && !strcmp(cli.profile, "list")) {
		sb_profile_list(stdout);
		goto out;
	}

	/* the job list: a profile, job files, or --name jobs */
	int jr = sb_cli_jobs(&cli, &jobs, &diag);
	if (jr) {
		fprintf(stderr, "storagebench-runner: %s\n",
			jr == -ENOMEM ? "out of memory" : diag.msg);
		status = jr == -ENOMEM ? 1 : 2;
		goto out;
	}
	if (cli.parse_only) {
		fprintf(stderr, "storagebench-runner: %zu job(s) parsed, every option understood\n",
			jobs.n);
		goto out;
	}
	status = sb_local_run(&cli, &jobs);
out:
	sb_joblist_release(&jobs);
	sb_cli_release(&cli);
	return status;
}
