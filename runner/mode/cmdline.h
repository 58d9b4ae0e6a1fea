/* SPDX-License-Identifier: MIT */
/*
 * The runner's command line, in fio's words: job options as --key=value
 * (or -key=value); those before the first --name are global; each --name
 * starts a job; other arguments are job files. Our own flags:
 * --output-format, --output, --parse-only, --profile, --iterations,
 * --clients, --barrier-timeout, --label, --report-format, --version, --help, --cmdhelp.
 */
#ifndef SB_RUNNER_MODE_CMDLINE_H
#define SB_RUNNER_MODE_CMDLINE_H

#include "fiojob/job.h"

#include <stdbool.h>
#include <stdint.h>

enum sb_out_format { SB_OUT_NORMAL, SB_OUT_JSON, SB_OUT_JSON_PLUS };

/* --clients: at most this many processes (as many as a class's runner pods) */
#define SB_CLIENTS_MAX 64u

struct sb_cli {
	enum sb_out_format format;
	const char *output; /* borrowed from argv */
	bool parse_only;
	const char *profile;
	unsigned iterations;
	unsigned clients; /* --clients=N: N processes run the jobs together (mode/clients.h) */
	uint64_t barrier_timeout_us; /* --barrier-timeout (0: the default) */
	const char *label;
	const char *report_format; /* txt, md, csv, json, svg */
	const char *report_file;   /* --report=FILE: the summary goes there */
	bool version;
	bool help;
	const char *cmdhelp; /* "" for all */
	const char *log_level;

	struct sb_job global;	/* options before the first --name */
	struct sb_joblist jobs; /* --name jobs */
	const char **jobfiles;	/* borrowed strings, owned array */
	size_t njobfiles;
	/* the one job file's SHA-256 as the pod's creator wrote it (SB_ENV_JOBFILE_SHA256 in
	 * a pod), NULL: not checked */
	const char *jobfile_sha256;
};

/*
 * Loads job file path, checked first against want (the SHA-256 its pod
 * names, 64 hex digits, any case) when want is not NULL: one read, so the
 * text checked is the text parsed. A mismatch is -EBADMSG with d->msg
 * "path: SHA-256 <got>, not <want> ...". Otherwise as sb_jobfile_load.
 */
int sb_cli_load_jobfile(const char *path, const char *want, const struct sb_job *base,
			struct sb_joblist *out, struct sb_diag *d);

/*
 * Parses argv. Returns 0, or -EINVAL with d->msg naming the argument.
 * Release with sb_cli_release either way.
 */
int sb_cli_parse(int argc, char **argv, struct sb_cli *cli, struct sb_diag *d);
void sb_cli_release(struct sb_cli *cli);

/*
 * The job list the command line asks for: a profile, job files, or --name
 * jobs; validated, with group ids assigned. Returns 0, or -EINVAL with the
 * message in d->msg (a usage error), -ENOMEM.
 */
int sb_cli_jobs(const struct sb_cli *cli, struct sb_joblist *jobs, struct sb_diag *d);

#endif
