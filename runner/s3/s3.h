/* SPDX-License-Identifier: MIT */
/*
 * The S3 object-storage benchmark (`storagebench-runner s3 ...`): warp's
 * operations (put, get, delete, list, stat, mixed; multipart put above a
 * threshold) against an S3 endpoint, on libcurl with its AWS SigV4 signing
 * and an explicit x-amz-content-sha256 header (radosgw refuses a request
 * without one). docs/s3.md describes the flags, the YAML run file and the
 * output.
 *
 * Modules: lib/s3opts/opts.c (flags, warp's YAML run file, the
 * options' header s3opts/opts.h), s3/client.c (one
 * signed request on a reused easy handle), s3/bench.c (bucket safety,
 * prepare, the timed workers, cleanup), s3/out.c (text and JSON),
 * s3/cli.c (the subcommand).
 */
#ifndef SB_RUNNER_S3_S3_H
#define SB_RUNNER_S3_S3_H

#include "s3opts/opts.h"
#include "stats/hist.h"
#include "stats/stats.h"

#include <curl/curl.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- measurements ---- */

#define SB_S3_MAX_STATUS 16 /* distinct HTTP statuses (and 0 = transport) counted */

struct sb_s3_opstat {
	uint64_t requests; /* completed requests, ok or not */
	uint64_t errors;
	uint64_t ok;
	uint64_t bytes;		 /* payload moved by successful requests */
	uint64_t objects;	 /* objects touched (a list counts the keys it returned) */
	struct sb_stat req;	 /* request time, ns, successful requests */
	struct sb_stat ttfb;	 /* time to first byte, ns */
	struct sb_hist req_hist; /* request time */
	struct sb_hist ttfb_hist;
	unsigned nstatus;
	int status[SB_S3_MAX_STATUS]; /* HTTP status of failed requests; 0: no response */
	uint64_t status_n[SB_S3_MAX_STATUS];
	char first_error[256];
	uint64_t *sec_ops; /* per interval, successful requests ending in it */
	uint64_t *sec_bytes;
	uint64_t *sec_objects;
	size_t nsec;
};

struct sb_s3_result {
	enum sb_s3_bench bench;
	unsigned concurrent;
	uint64_t runtime_us;
	uint64_t interval_us;
	uint64_t prepared; /* objects uploaded by the prepare phase */
	struct sb_s3_opstat op[SB_S3_NOPS];
	char bucket[64];
	bool bucket_created;
	bool bucket_removed;
	uint64_t cleaned; /* objects deleted by the cleanup */
};

/* Allocates the per-interval series for nsec intervals. 0 or -ENOMEM. */
int sb_s3_opstat_init(struct sb_s3_opstat *s, size_t nsec);
void sb_s3_opstat_release(struct sb_s3_opstat *s);
/* Counts a failed request with its HTTP status (0: no response). */
void sb_s3_opstat_error(struct sb_s3_opstat *s, int status, const char *msg);
/* dst += src. Series must have the same length. */
void sb_s3_opstat_merge(struct sb_s3_opstat *dst, const struct sb_s3_opstat *src);
void sb_s3_result_release(struct sb_s3_result *r);

/* ---- the client: one per worker thread ---- */

struct sb_s3_client {
	CURL *curl;
	const struct sb_s3_opts *o;
	unsigned next_host; /* the host list's entry the next request goes to (round robin) */
	bool sticky;	    /* stay on next_host; move on only when a request gets no response */
	const char *host;   /* the host of the last request (NULL before the first) */
	char errbuf[CURL_ERROR_SIZE];
	/* the last response */
	long status;
	uint64_t rx_bytes;
	uint64_t ttfb_ns, total_ns;
	char *body; /* response body kept when asked (list, errors), NUL-terminated */
	size_t body_len, body_cap;
	bool keep_body;
	char etag[128]; /* the ETag header of the last response */
	char msg[256];	/* what went wrong, for messages (no secrets) */
};

int sb_s3_client_init(struct sb_s3_client *c, const struct sb_s3_opts *o);
void sb_s3_client_release(struct sb_s3_client *c);

/*
 * Lowercase hex SHA-256 of buf[0..len) into out (65 bytes). The value of the
 * x-amz-content-sha256 header of a request with that payload.
 */
void sb_s3_sha256_hex(const void *buf, size_t len, char out[65]);

/* Lowercase hex SHA-256 of the empty payload. */
extern const char sb_s3_empty_sha256[65];

/*
 * The URL of bucket/key (key may be NULL: the bucket itself) with the query
 * string query (may be NULL, already encoded), path or virtual-host style,
 * on the first host, into out. Returns 0, -ENAMETOOLONG.
 */
int sb_s3_url(const struct sb_s3_opts *o, const char *bucket, const char *key, const char *query,
	      char *out, size_t outlen);
/* The same on host (one host[:port]). */
int sb_s3_url_at(const struct sb_s3_opts *o, const char *host, const char *bucket, const char *key,
		 const char *query, char *out, size_t outlen);

/*
 * One request: method on bucket/key?query with body (may be NULL) whose
 * SHA-256 is sha (NULL: computed here), to the next host of the list
 * (c->next_host, round robin; c->host says which). Returns 0 when a response came
 * (c->status is the HTTP status), -EIO when none did (c->msg says why),
 * -ENOMEM. extra is an optional header line ("Content-MD5: ...").
 */
int sb_s3_request(struct sb_s3_client *c, const char *method, const char *bucket, const char *key,
		  const char *query, const void *body, size_t len, const char *sha,
		  const char *extra);

/* The text of the first <tag>...</tag> in the body after *pos into out; advances *pos. */
bool sb_s3_xml_next(const char *body, const char *tag, size_t *pos, char *out, size_t outlen);

/* ---- the benchmark ---- */

/*
 * Runs the benchmark the options describe: makes (or checks) the bucket,
 * prepares objects, runs concurrent workers for the duration, cleans up.
 * Fills r. Returns 0 when it ran (errors during the run are counted in r),
 * or a negative errno with err saying what stopped it (unreachable,
 * 403, the bucket not empty, TLS...).
 */
int sb_s3_run(const struct sb_s3_opts *o, struct sb_s3_result *r, char *err, size_t errlen);

/* ---- output ---- */

/* warp's text summary. */
void sb_s3_print_text(FILE *f, const struct sb_s3_opts *o, const struct sb_s3_result *r);

/*
 * The JSON document: {"storagebench_version", "s3": {...}, "jobs": [one job
 * per operation, fio's field names where they mean the same thing, plus
 * "storagebench": {"s3": ...}]} (docs/s3.md). New reference, NULL on ENOMEM.
 */
json_t *sb_s3_json(const struct sb_s3_opts *o, const struct sb_s3_result *r);

/* `storagebench-runner s3 ...` */
int sb_s3_main(int argc, char **argv);

#endif
