/* SPDX-License-Identifier: MIT */
/* The S3 side of a runner pod (s3/pod.c; docs/s3.md). */
#ifndef SB_RUNNER_S3_POD_H
#define SB_RUNNER_S3_POD_H

#include "runner/s3/s3.h"

#include <jansson.h>
#include <stdio.h>

/* The workloads of an object-store target. */
struct sb_s3_pod {
	struct sb_s3_opts *w; /* owned */
	size_t n;
};

/*
 * Parses "s3 [common flags] --label NAME [flags] ..." (argv[0] is "s3"),
 * keys from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY. Returns 0, -EINVAL
 * with err naming the flag, -ENOMEM. Release with sb_s3_pod_release.
 */
int sb_s3_pod_parse(int argc, char **argv, struct sb_s3_pod *p, char *err, size_t errlen);
void sb_s3_pod_release(struct sb_s3_pod *p);

/*
 * Runs every workload once (each in a bucket of its own, removed after),
 * warp's text to `text` (may be NULL); *out the iteration's result document
 * {"jobs": [...], "s3": [...]}. Returns 0; when the endpoint refused a
 * workload (err names it and says why) sb_s3_run's error: -EACCES (403),
 * -EPROTO (TLS), -ENOTEMPTY (bucket holds data), -EHOSTUNREACH, -EIO;
 * -ENOMEM.
 */
int sb_s3_pod_iteration(const struct sb_s3_pod *p, FILE *text, json_t **out, char *err,
			size_t errlen);

#endif
