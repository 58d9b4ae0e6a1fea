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
 * signed request on a reused easy handle, the XML reader), s3/data.c
 * (each object's content and size), s3/bench.c (bucket safety, prepare,
 * the timed workers, autoterm, cleanup), s3/analyse.c (warp's analysis),
 * s3/out.c (text and JSON), s3/cli.c (the subcommand).
 */
#ifndef SB_RUNNER_S3_S3_H
#define SB_RUNNER_S3_S3_H

#include "s3opts/opts.h"
#include "stats/hist.h"
#include "stats/stats.h"

#include <curl/curl.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- measurements ---- */

#define SB_S3_MAX_STATUS 16 /* distinct HTTP statuses (and 0 = transport) counted */

/*
 * One request as the analysis sees it (32 bytes; a run keeps every one):
 * monotonic start and end of the request (a multipart upload: its first
 * request's start, its last one's end), what it moved, who sent it.
 */
struct sb_s3_oprec {
	uint64_t start_ns, end_ns;
	uint64_t bytes;	  /* payload moved (0 when it failed) */
	uint32_t objects; /* objects it touched (a batch delete: its keys) */
	uint16_t worker;
	bool ok;
};

/* A growing list of requests; {0} is empty. */
struct sb_s3_oplog {
	struct sb_s3_oprec *v;
	size_t n, cap;
};

/* Appends *r (copied). 0 or -ENOMEM. */
int sb_s3_oplog_add(struct sb_s3_oplog *l, const struct sb_s3_oprec *r);
/* Appends src's requests to dst. 0 or -ENOMEM. */
int sb_s3_oplog_append(struct sb_s3_oplog *dst, const struct sb_s3_oplog *src);
void sb_s3_oplog_release(struct sb_s3_oplog *l);

/* What one segment of time holds: bytes and objects spread into it. */
struct sb_s3_segment {
	uint64_t bytes;
	double objects;
};

/*
 * warp's analysis of one operation's requests (s3/analyse.c, docs/s3.md
 * "Analysis"). [from_ns, to_ns) is the span when every worker that sent
 * such requests was active: from the latest end of a worker's first
 * request to the earliest start of a worker's last one. When there is no
 * such span (too few requests), active is false and the span is the whole
 * range, first start to last end. bytes/objects: spread into the span.
 * seg[0..nseg): segments of seg_ns from from_ns, each ending before to_ns
 * (warp's cut), time order; fastest/median/slowest index them, ranked by
 * bytes when the operation moved any (by_bytes), else by objects; the
 * median is warp's element round(nseg / 2) of the ranking.
 */
struct sb_s3_analysis {
	bool active;
	uint64_t from_ns, to_ns;
	uint64_t bytes;
	double objects;
	uint64_t seg_ns;
	size_t nseg;
	struct sb_s3_segment *seg; /* owned */
	size_t fastest, median, slowest;
	bool by_bytes;
};

/*
 * Analyses ops[0..n) (one operation's, any order) into *a with segments of
 * seg_ns. 0 or -ENOMEM (*a then empty). Release with sb_s3_analysis_release.
 */
int sb_s3_analyse(const struct sb_s3_oprec *ops, size_t n, uint64_t seg_ns,
		  struct sb_s3_analysis *a);
void sb_s3_analysis_release(struct sb_s3_analysis *a);

/* The span when every worker was active: 1 and [*from, *to), 0 none, -ENOMEM. */
int sb_s3_active_span(const struct sb_s3_oprec *ops, size_t n, uint64_t *from, uint64_t *to);

/* warp's autoterm: the active span in 25 segments, the last 7 compared */
#define SB_S3_AUTOTERM_SPLIT 25
#define SB_S3_AUTOTERM_CHECK 7

/*
 * warp's autoterm rule on ops[0..n): true when the active span is longer
 * than min_ns x 25 / 7, and, cut into 25 segments, each of the 6 segments
 * before the last is within pct percent of the last one's throughput
 * (bytes when it moved any, else objects). *rate: the last segment's per
 * second, *by_bytes which it is.
 */
bool sb_s3_autoterm_stable(const struct sb_s3_oprec *ops, size_t n, uint64_t min_ns, double pct,
			   double *rate, bool *by_bytes);

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
	struct sb_s3_oplog log;	  /* every request, ok or not */
	struct sb_s3_analysis an; /* of log, after the run */
};

struct sb_s3_result {
	enum sb_s3_bench bench;
	unsigned concurrent;
	uint64_t runtime_us;  /* the timed phase, to the last worker's end */
	uint64_t interval_us; /* the analysis' segment */
	uint64_t prepared;    /* objects uploaded by the prepare phase */
	struct sb_s3_opstat op[SB_S3_NOPS];
	char bucket[64];
	bool bucket_created;
	bool bucket_removed;
	bool autoterm;	  /* the run ended early: warp's autoterm found it stable */
	uint64_t cleaned; /* objects deleted by the cleanup */
};

void sb_s3_opstat_init(struct sb_s3_opstat *s);
void sb_s3_opstat_release(struct sb_s3_opstat *s);
/* Counts a failed request with its HTTP status (0: no response). */
void sb_s3_opstat_error(struct sb_s3_opstat *s, int status, const char *msg);
/* dst += src (the requests' log appended). 0 or -ENOMEM. */
int sb_s3_opstat_merge(struct sb_s3_opstat *dst, const struct sb_s3_opstat *src);
/* Analyses every operation's log (segments of r->interval_us). 0 or -ENOMEM. */
int sb_s3_result_analyse(struct sb_s3_result *r);
void sb_s3_result_release(struct sb_s3_result *r);

/* ---- what a PUT sends (s3/data.c) ---- */

#define SB_S3_CONTENT_KEY 16 /* AES-128 */

/*
 * The content of object id's part `part` (0 for a single PUT) into
 * buf[0..len): the AES-128-CTR keystream of key with IV (id, part, 0).
 * Unique per (key, id, part), incompressible. ctx is the caller's (one per
 * thread). 0 or -EIO (OpenSSL refused).
 */
int sb_s3_content_fill(EVP_CIPHER_CTX *ctx, const unsigned char key[SB_S3_CONTENT_KEY], uint64_t id,
		       uint32_t part, void *buf, size_t len);

/*
 * An object's size: fixed; --obj.randsize: warp's distribution (log2
 * scale up to --obj.size, mean about 0.179 x it; from MIN with MIN-MAX);
 * MIN-MAX alone: uniform in it (ours).
 */
uint64_t sb_s3_pick_size(const struct sb_s3_opts *o, uint64_t *rng);

/* xorshift64*: the next value of the generator state *s (not 0). */
uint64_t sb_s3_rand(uint64_t *s);

/*
 * Test seams of a run (tests/unit/runner/test_s3_run.c): the clock every
 * timer reads, a call after each payload hash (a slow hash), the content
 * key. NULL members: the monotonic clock, nothing, a random key.
 */
struct sb_s3_hooks {
	uint64_t (*now_ns)(void *ctx);
	void (*after_hash)(void *ctx);
	void *ctx;
	const unsigned char *key; /* SB_S3_CONTENT_KEY bytes */
};

/* The hooks' clock (h may be NULL: CLOCK_MONOTONIC). */
uint64_t sb_s3_now(const struct sb_s3_hooks *h);

/* ---- the client: one per worker thread ---- */

struct sb_s3_client {
	CURL *curl;
	const struct sb_s3_opts *o;
	const struct sb_s3_hooks *hooks; /* may be NULL */
	unsigned next_host; /* the host list's entry the next request goes to (round robin) */
	bool sticky;	    /* stay on next_host; move on only when a request gets no response */
	const char *host;   /* the host of the last request (NULL before the first) */
	char errbuf[CURL_ERROR_SIZE];
	/* the last response */
	long status;
	uint64_t rx_bytes;
	uint64_t ttfb_ns, total_ns;
	uint64_t start_ns, end_ns; /* the request's own start and end (the hooks' clock) */
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

/*
 * The text of the first <tag>...</tag> of body after *pos, its XML
 * references decoded (&amp; &lt; &gt; &quot; &apos;, &#NN; and &#xNN; as
 * UTF-8), into out (NUL-terminated); *pos moves past it. Returns 1 found,
 * 0 none, -EINVAL a malformed or unknown reference or a character XML
 * forbids (err says which, naming the tag), -ENOSPC the text does not fit
 * in outlen. err may be NULL.
 */
int sb_s3_xml_text(const char *body, const char *tag, size_t *pos, char *out, size_t outlen,
		   char *err, size_t errlen);

/* How many <tag> elements body holds. */
size_t sb_s3_xml_count(const char *body, const char *tag);

/* ---- the benchmark ---- */

/*
 * Runs the benchmark the options describe: makes (or checks) the bucket,
 * prepares objects, runs concurrent workers for the duration, cleans up.
 * Fills r. Returns 0 when it ran (errors during the run are counted in r),
 * or a negative errno with err saying what stopped it (unreachable,
 * 403, the bucket not empty, TLS...).
 */
int sb_s3_run(const struct sb_s3_opts *o, struct sb_s3_result *r, char *err, size_t errlen);

/* The same with test seams (h may be NULL). */
int sb_s3_run_hooked(const struct sb_s3_opts *o, const struct sb_s3_hooks *h,
		     struct sb_s3_result *r, char *err, size_t errlen);

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
