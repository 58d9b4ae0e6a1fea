/* SPDX-License-Identifier: MIT */
/*
 * A job list: what a command line, a job file or a profile asks for. Each
 * job holds its resolved options and the options as the user wrote them
 * (for fio's "job options" in JSON). Jobs run in groups: a job with
 * stonewall (or new_group) starts a new group; jobs of one group run at
 * the same time, groups one after another.
 */
#ifndef SB_LIB_FIOJOB_JOB_H
#define SB_LIB_FIOJOB_JOB_H

#include "fiojob/opts.h"

#include <stddef.h>

struct sb_job {
	struct sb_job_opts o;
	struct sb_kv *kv; /* options as given, in order; owned */
	size_t nkv;
	unsigned group;	  /* reporting group id, from 0 */
	char origin[256]; /* "job.fio:12" or "command line" or "profile quick" */
};

struct sb_joblist {
	struct sb_job *jobs; /* owned */
	size_t n;
	size_t cap;
};

#define SB_JOBLIST_INIT \
	{               \
		0       \
	}

/* Appends a job (taking ownership of j's contents). 0 or -ENOMEM. */
int sb_joblist_push(struct sb_joblist *l, struct sb_job *j);
void sb_joblist_release(struct sb_joblist *l);

/* Records "key=value" in a job's kv list (later keys replace earlier). */
int sb_job_kv_set(struct sb_job *j, const char *key, const char *value);
void sb_job_release(struct sb_job *j);

/* Deep copy of a job. 0 or -ENOMEM. */
int sb_job_copy(struct sb_job *dst, const struct sb_job *src);

/* Assigns group ids from stonewall/new_group, in order. */
void sb_joblist_assign_groups(struct sb_joblist *l);

/*
 * Diagnostics while reading jobs: warnings (e.g. no-op options) are
 * collected by calling warn; the first error is kept in msg.
 */
struct sb_diag {
	void (*warn)(void *ctx, const char *msg);
	void *ctx;
	char msg[1024];
};

/*
 * Applies key=value to job j, recording it in j->kv. `where` prefixes
 * messages ("job.fio:12" or "--bs"). Returns 0, or -EINVAL with d->msg
 * set (unknown, refused or bad value); no-op options warn and return 0.
 */
int sb_job_apply(struct sb_job *j, const char *key, const char *value, const char *where,
		 struct sb_diag *d);

#endif
