/* SPDX-License-Identifier: MIT */
/*
 * Small helpers of lib/kube (util.c): base64, whole-file reads,
 * randomness for jitter, clearing secrets. Private to lib/kube (its files, unit tests and fuzzers).
 */
#ifndef SB_LIB_KUBE_UTIL_H
#define SB_LIB_KUBE_UTIL_H

#include <stddef.h>

/*
 * Decodes base64 text (whitespace and newlines allowed) with OpenSSL's EVP
 * decoder into a new NUL-terminated buffer *out of *out_len bytes (caller
 * frees). -EINVAL when it is not valid base64, -ENOMEM.
 */
int kube_base64_decode(const char *in, size_t in_len, char **out, size_t *out_len);

/* Reads a whole file into a new NUL-terminated buffer. 0 or -errno. */
int kube_read_file(const char *path, char **out, size_t *len);

/* Clears and frees a secret string. */
void kube_free_secret(char *s);

/* A random double in [0, 1) (thread-safe). */
double kube_random(void);

#endif
