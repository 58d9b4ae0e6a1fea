/* SPDX-License-Identifier: MIT */
/*
 * Built-in profiles: the workloads of the reference benchmark pages, as
 * fio options. Each workload runs after the previous one (stonewall) on
 * one shared test file, so a profile needs `size` bytes of space, not
 * size x workloads x numjobs.
 */
#ifndef SB_LIB_FIOJOB_PROFILES_H
#define SB_LIB_FIOJOB_PROFILES_H

#include "fiojob/job.h"

#include <stddef.h>
#include <stdio.h>

struct sb_profile_job {
	const char *name;
	const char *opts; /* space-separated key=value */
};

struct sb_profile {
	const char *name;
	const char *description;
	const char *global; /* space-separated key=value for every job */
	const struct sb_profile_job *jobs;
	size_t njobs;
};

/* The profile called name, or NULL. */
const struct sb_profile *sb_profile_find(const char *name);

/* The i-th profile, NULL past the last. */
const struct sb_profile *sb_profile_at(size_t i);

/* Lists the profiles and their workloads. */
void sb_profile_list(FILE *f);

/*
 * Appends the profile's jobs to out. Each starts from defaults, gets the
 * profile's global and own options, then the overrides (the command
 * line's options, which win). Returns 0 or -EINVAL/-ENOMEM with d->msg.
 */
int sb_profile_expand(const struct sb_profile *p, const struct sb_job *overrides,
		      struct sb_joblist *out, struct sb_diag *d);

#endif
