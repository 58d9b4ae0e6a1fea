/* SPDX-License-Identifier: MIT */
/*
 * fio job files: "[global]" and "[jobname]" sections of "key=value" or bare
 * "key" lines; ';' or '#' start a comment line; ${VAR} expands from the
 * environment (an unset variable is an error). Options of a [global]
 * section apply to the jobs after it.
 */
#ifndef SB_RUNNER_JOBFILE_H
#define SB_RUNNER_JOBFILE_H

#include "runner/job.h"

/*
 * Parses text (the contents of a job file called `path`, used in
 * messages). Each job starts from a copy of *base (the command line's
 * global options), then the file's globals, then its own section. Jobs are
 * appended to out. Returns 0, or -EINVAL with d->msg "path:line: ..." and
 * out unchanged beyond the jobs already complete, -ENOMEM.
 */
int sb_jobfile_parse(const char *text, const char *path, const struct sb_job *base,
		     struct sb_joblist *out, struct sb_diag *d);

/* Reads and parses a job file. Errors as above, plus -errno of reading. */
int sb_jobfile_load(const char *path, const struct sb_job *base, struct sb_joblist *out,
		    struct sb_diag *d);

#endif
