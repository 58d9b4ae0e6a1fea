/* SPDX-License-Identifier: MIT */
/*
 * Bearer token files, re-read when they change (token.c). Private to lib/kube (its files, unit tests and fuzzers).
 */
#ifndef SB_LIB_KUBE_TOKEN_H
#define SB_LIB_KUBE_TOKEN_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/*
 * A bearer token file re-read when its inode, size, mtime or ctime change
 * (looked at with stat(2) at most every recheck_ms), or when forced (after a
 * 401). Thread-safe.
 */
struct kube_token_file {
	pthread_mutex_t lock;
	char *path;
	char *value; /* trimmed contents, or NULL before the first read */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	unsigned long reads; /* how many times the file was read */
	long recheck_ms;
	int64_t checked_ms; /* when stat(2) was last called */
};

int kube_token_file_init(struct kube_token_file *t, const char *path, long recheck_ms);
void kube_token_file_release(struct kube_token_file *t);
/* Copies the current token into a new string *out (caller frees, after
 * clearing it). Re-reads the file when it changed or when force. */
int kube_token_file_get(struct kube_token_file *t, bool force, char **out);

#endif
