/* SPDX-License-Identifier: MIT */
/*
 * How the controller invokes a runner pod, described once: the
 * environment of every runner pod (the SB_ENV_* names of labels.h) as one
 * struct, written by the controller (sb_invocation_env: its pod
 * manifests) and read back by the runner (sb_invocation_from_env: pod
 * mode). The arguments are the job's (controller/run/spec.h).
 */
#ifndef SB_LIB_CORE_INVOCATION_H
#define SB_LIB_CORE_INVOCATION_H

#include <jansson.h>
#include <stddef.h>

#define SB_INVOCATION_BARRIER_DEFAULT_S 300

/* Borrowed strings. */
struct sb_invocation {
	const char *run, *uid, *cls;
	const char *ns, *pod; /* read back only: the downward API gives them */
	unsigned iterations;  /* 1..100000 */
	unsigned attempt;     /* 1.. */
	/* the job file's SHA-256 (hex), NULL: no job file (a profile, an object store) */
	const char *jobfile_sha256;
	/* a distributed class's member (members > 1; else 0 of 1, and nothing below is set) */
	unsigned member, members;
	const char *done; /* "1,2,5": iterations already recorded */
	long barrier_s;	  /* the start barrier's timeout */
	const char *node; /* read back only: spec.nodeName through the downward API */
};

/*
 * Appends the invocation's environment to env (a JSON array of a
 * container's env entries): the run's variables, SB_NAMESPACE and
 * SB_POD_NAME (and a member's SB_NODE_NAME) from the downward API, the job
 * file's digest when there is one, and a member's variables when
 * members > 1. Returns 0, -EINVAL (run, uid or cls missing), -ENOMEM.
 */
int sb_invocation_env(const struct sb_invocation *inv, json_t *env);

/*
 * Reads the invocation from the process environment (strings borrowed
 * from it). Returns 0, or -EINVAL with err naming the variable and what
 * is wrong with it.
 */
int sb_invocation_from_env(struct sb_invocation *inv, char *err, size_t errlen);

#endif
