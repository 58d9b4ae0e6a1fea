/* SPDX-License-Identifier: MIT */
/*
 * fio job files: "[global]" and "[jobname]" sections of "key=value" or bare
 * "key" lines; ';' or '#' start a comment line; ${VAR} expands from the
 * environment (an unset variable is an error). Options of a [global]
 * section apply to the jobs after it.
 */
#ifndef SB_LIB_FIOJOB_JOBFILE_H
#define SB_LIB_FIOJOB_JOBFILE_H

#include "fiojob/job.h"

/*
 * Parses text (the contents of a job file called `path`, used in
 * messages). Each job starts from a copy of *base (the command line's
 * global options), then the file's globals, then its own section. Jobs are
 * appended to out. Returns 0, or -EINVAL with d->msg "path:line: ..." and
 * out unchanged beyond the jobs already complete, -ENOMEM.
 */
int sb_jobfile_parse(const char *text, const char *path, const struct sb_job *base,
		     struct sb_joblist *out, struct sb_diag *d);

/* At most this many [job] sections in one job file (-E2BIG beyond). */
#define SB_JOBFILE_MAX_JOBS 4096

/* The value of ${name}, or NULL when the name is not defined. */
typedef const char *(*sb_jobfile_lookup_fn)(const char *name, void *ctx);

/*
 * As sb_jobfile_parse, but ${VAR} expands only through lookup (the
 * controller passes the run's spec.runner.env, never its own environment);
 * an undefined name is "variable 'X' is not set in <vars_where>".
 */
int sb_jobfile_parse_vars(const char *text, const char *path, const struct sb_job *base,
			  sb_jobfile_lookup_fn lookup, void *ctx, const char *vars_where,
			  struct sb_joblist *out, struct sb_diag *d);

/* Reads and parses a job file. Errors as above, plus -errno of reading. */
int sb_jobfile_load(const char *path, const struct sb_job *base, struct sb_joblist *out,
		    struct sb_diag *d);

/*
 * Reads a job file's text (at most 64 MiB, no NUL bytes) into *text (a new
 * NUL-terminated string) and *len: what sb_jobfile_load parses, for a
 * caller that checks the text first. 0, or -errno / -EFBIG / -EINVAL /
 * -ENOMEM with d->msg "path: ...".
 */
int sb_jobfile_read(const char *path, char **text, size_t *len, struct sb_diag *d);

#endif
