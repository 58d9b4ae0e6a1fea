/* SPDX-License-Identifier: MIT */
/*
 * Credentials from an exec plugin (exec.c). Private to lib/kube (its files, unit tests and fuzzers).
 */
#ifndef SB_LIB_KUBE_EXEC_H
#define SB_LIB_KUBE_EXEC_H

#include "kube/config.h"
#include "kube/error.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/*
 * Parses an exec plugin's output (an ExecCredential of api_version):
 * *token (new string, caller frees with kube_free_secret) from
 * status.token, *expiry from status.expirationTimestamp (0: none). 0,
 * -ENOMEM, or -EINVAL with why naming the field.
 */
int kube_exec_credential_parse(const char *text, size_t len, const char *api_version, char **token,
			       time_t *expiry, char *why, size_t whylen);

/* The token of an exec plugin, kept until it is about to expire. Thread-safe. */
struct kube_exec_token {
	pthread_mutex_t lock;
	char *token;
	time_t expiry;	    /* 0: none given */
	unsigned long runs; /* how many times the plugin ran */
};

int kube_exec_token_init(struct kube_exec_token *t);
void kube_exec_token_release(struct kube_exec_token *t);
/*
 * Copies the token into a new string *out (caller frees with
 * kube_free_secret), running plugin x first (cfg gives the cluster for
 * provideClusterInfo) when there is none yet, when it expires within 10 s,
 * or when force (after a 401). 0 or -errno with err saying why (the
 * plugin not found, its exit status, a malformed ExecCredential...).
 */
int kube_exec_token_get(struct kube_exec_token *t, const struct kube_exec_config *x,
			const struct kube_config *cfg, bool force, char **out,
			struct kube_error *err);

#endif
