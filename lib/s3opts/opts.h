/* SPDX-License-Identifier: MIT */
/*
 * The S3 benchmark's options (part of the fio job language library): the
 * operations and benchmarks, warp's flags and warp's YAML run file
 * (s3opts/opts.c). No I/O beyond reading the run file; the engine that runs
 * them is in runner/ (runner/s3/s3.h). The controller checks a run's S3
 * settings with these same parsers.
 */
#ifndef SB_LIB_S3OPTS_OPTS_H
#define SB_LIB_S3OPTS_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sb_s3_op { SB_S3_GET, SB_S3_PUT, SB_S3_DELETE, SB_S3_STAT, SB_S3_LIST, SB_S3_NOPS };

/* What a run benchmarks: one operation, or warp's mixed distribution. */
enum sb_s3_bench {
	SB_S3_B_GET,
	SB_S3_B_PUT,
	SB_S3_B_DELETE,
	SB_S3_B_STAT,
	SB_S3_B_LIST,
	SB_S3_B_MIXED,
	SB_S3_B_NONE
};

/* "GET", "PUT", ... (warp's report names) */
const char *sb_s3_op_name(enum sb_s3_op op);
/* "get", "put", "delete", "stat", "list", "mixed" */
const char *sb_s3_bench_name(enum sb_s3_bench b);
/* Parses a benchmark name (any case). 0 or -EINVAL. */
int sb_s3_bench_parse(const char *s, enum sb_s3_bench *out);

/*
 * What x-amz-content-sha256 carries for a PUT: auto (the default) is
 * UNSIGNED-PAYLOAD over https, where TLS protects the body (as the AWS
 * SDKs sign), and the body's SHA-256 over http; sha256 and unsigned force
 * one (warp's --disable-sha256-payload is unsigned). Either way no hash
 * is computed inside a request's timer.
 */
enum sb_s3_payload_hash { SB_S3_HASH_AUTO, SB_S3_HASH_SHA256, SB_S3_HASH_UNSIGNED };

#define SB_S3_MAX_STR	512
#define SB_S3_MAX_HOSTS 16 /* endpoints in one --host list */

struct sb_s3_opts {
	enum sb_s3_bench bench;
	char host[SB_S3_MAX_STR];	  /* host[:port], or warp's list host1:port,host2:port */
	char hosts[SB_S3_MAX_HOSTS][256]; /* the list, split; requests take them in turn */
	unsigned nhosts;		  /* 0: host as it is (set directly, not by --host) */
	char region[64];		  /* default us-east-1 */
	char bucket[64];		  /* empty: a new bucket per run */
	char prefix[128];		  /* object name prefix inside the bucket */
	char access_key[256];		  /* never printed */
	char secret_key[256];		  /* never printed */
	bool tls;			  /* https */
	bool insecure;			  /* do not verify the TLS certificate */
	char cacert[SB_S3_MAX_STR];	  /* CA bundle for TLS (empty: the system's) */
	bool path_style;		  /* --lookup path (default) or dns */
	uint64_t obj_size;		  /* bytes; the upper bound when random */
	uint64_t obj_size_min;		  /* --obj.size MIN-MAX: MIN (size_range) */
	bool size_range;		  /* --obj.size MIN-MAX given (ours: uniform in it) */
	bool randsize;			  /* --obj.randsize: warp's log2-scale sizes */
	enum sb_s3_payload_hash payload_hash; /* --payload-hash, --disable-sha256-payload */
	bool autoterm;			      /* warp's --autoterm */
	uint64_t autoterm_dur_us;	      /* --autoterm.dur (warp's 15s) */
	double autoterm_pct;		      /* --autoterm.pct (warp's 7.5) */
	unsigned concurrent;
	uint64_t duration_us;
	unsigned objects;	      /* prepared for get/stat/delete/list/mixed */
	uint64_t part_size;	      /* multipart part size */
	uint64_t multipart_threshold; /* put objects at least this large in parts */
	unsigned distrib[SB_S3_NOPS]; /* mixed: percent per op */
	unsigned max_keys;	      /* list page size */
	unsigned batch; /* delete: keys per DeleteObjects request (warp's 100); 1: DELETE each */
	bool batch_set; /* --batch given (only delete takes it) */
	bool keep_data;
	bool noclear;	    /* warp's --noclear: same as keep_data */
	unsigned timeout_s; /* per request */
	unsigned interval_ms;
	char label[128]; /* the job name in JSON (default: the op) */
};

void sb_s3_opts_init(struct sb_s3_opts *o);

/* The i-th endpoint of the --host list, round and round (o->host when it was not split). */
const char *sb_s3_host(const struct sb_s3_opts *o, unsigned i);

/*
 * Applies one warp flag (name without dashes, e.g. "obj.size") with its
 * value (NULL for a bare boolean). `where` prefixes messages. Returns 0,
 * -ENOENT when the flag is not one we know (err names it), -EINVAL for a
 * bad value (err names the flag and the value).
 */
int sb_s3_opt_set(struct sb_s3_opts *o, const char *where, const char *name, const char *val,
		  char *err, size_t errlen);

/* Whether flag name (without dashes) is a boolean: it may be given without a value. */
bool sb_s3_opt_is_bool(const char *name);

/*
 * Reads a warp YAML run file ("warp: {api: v1, benchmark: ..., ...}").
 * Unsupported keys are refused by name with file:line. Returns 0, -EINVAL
 * (err says why), -ENOENT/-EACCES (cannot open), -ENOMEM.
 */
int sb_s3_yaml_load(struct sb_s3_opts *o, const char *path, char *err, size_t errlen);

/* The same from text[0..len) (not NUL-terminated); path names it in messages. */
int sb_s3_yaml_parse(struct sb_s3_opts *o, const char *path, const char *text, size_t len,
		     char *err, size_t errlen);

/* Checks the options hang together (sizes, distribution sums to 100...). 0 or -EINVAL. */
int sb_s3_opts_check(const struct sb_s3_opts *o, char *err, size_t errlen);

#endif
