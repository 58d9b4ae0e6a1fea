/* SPDX-License-Identifier: MIT */
/*
 * Options of the S3 benchmark: warp's flag names on the command line and
 * warp's YAML run file ("warp: api: v1 ..."), refusing by name what we do
 * not support.
 */
#include "core/log.h"
#include "s3opts/opts.h"
#include "core/units.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

static const char *const op_names[SB_S3_NOPS] = {"GET", "PUT", "DELETE", "STAT", "LIST"};
static const char *const bench_names[SB_S3_B_NONE] = {"get",  "put",  "delete",
						      "stat", "list", "mixed"};

const char *sb_s3_op_name(enum sb_s3_op op)
{
	return op < SB_S3_NOPS ? op_names[op] : "?";
}

const char *sb_s3_bench_name(enum sb_s3_bench b)
{
	return b < SB_S3_B_NONE ? bench_names[b] : "?";
}

const char *sb_s3_host(const struct sb_s3_opts *o, unsigned i)
{
	return o->nhosts ? o->hosts[i % o->nhosts] : o->host;
}

int sb_s3_bench_parse(const char *s, enum sb_s3_bench *out)
{
	for (int i = 0; i < SB_S3_B_NONE; i++) {
		if (!strcasecmp(s, bench_names[i])) {
			*out = (enum sb_s3_bench)i;
			return 0;
		}
	}
	return -EINVAL;
}

void sb_s3_opts_init(struct sb_s3_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->bench = SB_S3_B_NONE;
	snprintf(o->region, sizeof(o->region), "us-east-1");
	o->path_style = true;
	o->obj_size = 10ull << 20; /* warp's default 10MiB */
	o->concurrent = 20;
	o->duration_us = 5ull * 60 * 1000000;
	o->objects = 2500;
	o->part_size = 5ull << 20;
	o->multipart_threshold = 64ull << 20;
	o->distrib[SB_S3_GET] = 45;
	o->distrib[SB_S3_STAT] = 30;
	o->distrib[SB_S3_PUT] = 15;
	o->distrib[SB_S3_DELETE] = 10;
	o->max_keys = 1000;
	o->batch = 100; /* warp's delete --batch */
	o->timeout_s = 60;
	o->interval_ms = 1000;
	o->autoterm_dur_us = 15ull * 1000000; /* warp's --autoterm.dur */
	o->autoterm_pct = 7.5;		      /* and --autoterm.pct */
}

static int bad(char *err, size_t errlen, const char *where, const char *name, const char *val,
	       const char *why)
{
	snprintf(err, errlen, "%s%s--%s: '%s' %s", where ? where : "", where && *where ? ": " : "",
		 name, val ? val : "", why);
	return -EINVAL;
}

static int set_str(char *dst, size_t cap, const char *where, const char *name, const char *val,
		   char *err, size_t errlen)
{
	if (!val || !*val)
		return bad(err, errlen, where, name, val, "is empty");
	if (strlen(val) >= cap)
		return bad(err, errlen, where, name, val, "is too long");
	memcpy(dst, val, strlen(val) + 1);
	return 0;
}

static int set_secret(char *dst, size_t cap, const char *where, const char *name, const char *val,
		      char *err, size_t errlen)
{
	/* the value is a secret: never echo it */
	if (!val || !*val || strlen(val) >= cap) {
		snprintf(err, errlen, "%s%s--%s: %s", where ? where : "",
			 where && *where ? ": " : "", name,
			 !val || !*val ? "is empty" : "is too long");
		return -EINVAL;
	}
	memcpy(dst, val, strlen(val) + 1);
	return 0;
}

/* warp's sizes: KB/MB are powers of 1000, KiB/MiB of 1024 (as its humanize). */
static int parse_size(const char *val, uint64_t *out)
{
	return sb_parse_size(val, 1000, out);
}

static int parse_uint(const char *val, unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(val, &end, 10);
	if (errno || end == val || *end || val[0] == '-' || v < lo || v > hi)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

static int parse_bool_val(const char *val, bool *out)
{
	if (!val) {
		*out = true;
		return 0;
	}
	return sb_parse_bool(val, out);
}

/* a valid S3 bucket name: 3-63 of [a-z0-9.-], starting and ending alphanumeric */
static bool bucket_name_ok(const char *b)
{
	size_t n = strlen(b);
	if (n < 3 || n > 63 || !isalnum((unsigned char)b[0]) || !isalnum((unsigned char)b[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(islower((unsigned char)b[i]) || isdigit((unsigned char)b[i]) || b[i] == '-' ||
		      b[i] == '.'))
			return false;
	return true;
}

/* warp's --host list "host1:9000,host2:9000" into o->hosts. */
static int split_hosts(struct sb_s3_opts *o, const char *where, const char *val, char *err,
		       size_t errlen)
{
	const char *p = val;
	o->nhosts = 0;
	if (strstr(val, "..."))
		return bad(err, errlen, where, "host", val,
			   "uses warp's {1...N} expansion, which is not supported: list the hosts "
			   "(host1:port,host2:port)");
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		while (n && (*p == ' ' || *p == '\t')) {
			p++;
			n--;
		}
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (!n)
			return bad(err, errlen, where, "host", val,
				   "has an empty host in its list");
		if (o->nhosts == SB_S3_MAX_HOSTS)
			return bad(err, errlen, where, "host", val, "names more than 16 hosts");
		if (n >= sizeof(o->hosts[0]))
			return bad(err, errlen, where, "host", val, "has a host name too long");
		memcpy(o->hosts[o->nhosts], p, n);
		o->hosts[o->nhosts][n] = '\0';
		if (strchr(o->hosts[o->nhosts], ' ') || strchr(o->hosts[o->nhosts], '/'))
			return bad(err, errlen, where, "host", val,
				   "is not a list of host[:port] (no spaces or paths)");
		o->nhosts++;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/* One option being set: its name and value, where messages go. */
struct s3_set {
	const char *where, *name, *val;
	char *err;
	size_t errlen;
};

static int s3_bad(const struct s3_set *s, const char *why)
{
	return bad(s->err, s->errlen, s->where, s->name, s->val, why);
}

struct s3_opt;
typedef int (*s3_setter)(struct sb_s3_opts *o, const struct s3_opt *d, const struct s3_set *s);

/*
 * An option of the table: its warp name, its typed setter, the field it
 * sets (offset into struct sb_s3_opts, with its size for strings), the
 * range of a number and what a bad value is told.
 */
struct s3_opt {
	const char *name;
	s3_setter set;
	size_t off, cap;
	unsigned lo, hi;
	const char *why;
};

#define FIELD(o, d, type) ((type *)((char *)(o) + (d)->off))

static int set_text(struct sb_s3_opts *o, const struct s3_opt *d, const struct s3_set *s)
{
	return set_str(FIELD(o, d, char), d->cap, s->where, s->name, s->val, s->err, s->errlen);
}

static int set_key(struct sb_s3_opts *o, const struct s3_opt *d, const struct s3_set *s)
{
	return set_secret(FIELD(o, d, char), d->cap, s->where, s->name, s->val, s->err, s->errlen);
}

static int set_flag(struct sb_s3_opts *o, const struct s3_opt *d, const struct s3_set *s)
{
	bool b;
	if (parse_bool_val(s->val, &b))
		return s3_bad(s, "is not a boolean");
	*FIELD(o, d, bool) = b;
	return 0;
}

/* --keep-data and warp's --noclear: either keeps the data */
static int set_keep(struct sb_s3_opts *o, const struct s3_opt *d, const struct s3_set *s)
{
	bool b;
	if (parse_bool_val(s->val, &b))
		return s3_bad(s, "is not a boolean");
	*FIELD(o, d, bool) = *FIELD(o, d, bool) || b;
	return 0;
}

static int set_count(struct sb_s3_opts *o, const struct s3_opt *d, const struct s3_set *s)
{
	unsigned n;
	if (!s->val || parse_uint(s->val, d->lo, d->hi, &n))
		return s3_bad(s, d->why);
	*FIELD(o, d, unsigned) = n;
	return 0;
}

static int set_batch(struct sb_s3_opts *o, const struct s3_opt *d, const struct s3_set *s)
{
	int r = set_count(o, d, s);
	if (!r)
		o->batch_set = true;
	return r;
}

static int set_bytes(struct sb_s3_opts *o, const struct s3_opt *d, const struct s3_set *s)
{
	uint64_t u;
	if (!s->val || parse_size(s->val, &u) || u == 0)
		return s3_bad(s, "is not a size above 0");
	*FIELD(o, d, uint64_t) = u;
	return 0;
}

static int set_host(struct sb_s3_opts *o, const struct s3_opt *d, const struct s3_set *s)
{
	if (set_text(o, d, s))
		return -EINVAL;
	if (strstr(s->val, "://"))
		return s3_bad(s, "has a scheme; give host[:port] and --tls for https");
	return split_hosts(o, s->where, s->val, s->err, s->errlen);
}

static int set_bucket(struct sb_s3_opts *o, const struct s3_opt *d, const struct s3_set *s)
{
	if (set_text(o, d, s))
		return -EINVAL;
	if (!bucket_name_ok(s->val))
		return s3_bad(s, "is not a bucket name (3-63 of a-z, 0-9, '.', '-')");
	return 0;
}

/* a region (and radosgw's zonegroup api name): letters, digits, '-', '_', '.', ':' */
static int set_region(struct sb_s3_opts *o, const struct s3_opt *d, const struct s3_set *s)
{
	if (set_text(o, d, s))
		return -EINVAL;
	for (const char *p = s->val; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-_.:", *p))
			return s3_bad(s,
				      "is not a region name (letters, digits, '-', '_', '.', ':')");
	return 0;
}

static int set_prefix(struct sb_s3_opts *o, const struct s3_opt *d, const struct s3_set *s)
{
	(void)d;
	if (!s->val || strlen(s->val) >= sizeof(o->prefix) || strstr(s->val, ".."))
		return s3_bad(s, "is not a usable prefix");
	memcpy(o->prefix, s->val, strlen(s->val) + 1);
	return 0;
}

static int set_lookup(struct sb_s3_opts *o, const struct s3_opt *d, const struct s3_set *s)
{
	(void)d;
	if (s->val && !strcmp(s->val, "path"))
		o->path_style = true;
	else if (s->val && !strcmp(s->val, "dns"))
		o->path_style = false;
	else
		return s3_bad(s, "is not one of path, dns");
	return 0;
}

/* warp's fixed size, or our range MIN-MAX (random within it) */
static int set_obj_size(struct sb_s3_opts *o, const struct s3_opt *d, const struct s3_set *s)
{
	const char *val = s->val;
	const char *dash = val ? strchr(val, '-') : NULL;
	if (!val)
		return s3_bad(s, "needs a value");
	if (!dash) {
		o->size_range = false; /* a fixed size replaces a range given before */
		o->obj_size_min = 0;
		return set_bytes(o, d, s);
	}
	char lo[64];
	size_t ln = (size_t)(dash - val);
	uint64_t a, z;
	if (ln == 0 || ln >= sizeof(lo))
		return s3_bad(s, "is not a size range");
	memcpy(lo, val, ln);
	lo[ln] = '\0';
	if (parse_size(lo, &a) || parse_size(dash + 1, &z) || a == 0 || z < a)
		return s3_bad(s, "is not a size range MIN-MAX with 0 < MIN <= MAX");
	o->obj_size_min = a;
	o->obj_size = z;
	o->size_range = true;
	return 0;
}

/* Go's compound duration "1m30s" (h, m, s, ms) in microseconds; 0 when it is not one. */
static uint64_t go_duration_us(const char *p)
{
	uint64_t total = 0;
	if (!p || !*p)
		return 0;
	while (*p) {
		char *end;
		errno = 0;
		unsigned long long x = strtoull(p, &end, 10);
		if (errno || end == p)
			return 0;
		uint64_t mul = 0;
		if (!strncmp(end, "ms", 2)) {
			mul = 1000;
			end += 2;
		} else if (*end == 'h') {
			mul = 3600000000ull;
			end++;
		} else if (*end == 'm') {
			mul = 60000000ull;
			end++;
		} else if (*end == 's') {
			mul = 1000000ull;
			end++;
		} else {
			return 0;
		}
		total += x * mul;
		p = end;
	}
	return total;
}

/* warp's durations: 5m, 30s, 1m30s (Go's), or ours (--duration, --autoterm.dur) */
static int set_duration(struct sb_s3_opts *o, const struct s3_opt *d, const struct s3_set *s)
{
	uint64_t u;
	if (!s->val || sb_parse_duration_us(s->val, 1000000, &u) || u == 0) {
		u = go_duration_us(s->val);
		if (!u)
			return s3_bad(s, "is not a duration (e.g. 30s, 5m, 1m30s)");
	}
	*FIELD(o, d, uint64_t) = u;
	return 0;
}

static int set_timeout(struct sb_s3_opts *o, const struct s3_opt *d, const struct s3_set *s)
{
	uint64_t u;
	(void)d;
	if (!s->val || sb_parse_duration_us(s->val, 1000000, &u) || u < 1000000 ||
	    u > 3600ull * 1000000)
		return s3_bad(s, "is not a duration between 1s and 1h");
	o->timeout_s = (unsigned)(u / 1000000);
	return 0;
}

static int set_payload_hash(struct sb_s3_opts *o, const struct s3_opt *d, const struct s3_set *s)
{
	static const char *const names[] = {"auto", "sha256", "unsigned"};
	(void)d;
	for (size_t i = 0; s->val && i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s->val, names[i])) {
			o->payload_hash = (enum sb_s3_payload_hash)i;
			return 0;
		}
	}
	return s3_bad(s, "is not one of auto, sha256, unsigned");
}

/*
 * warp's --disable-sha256-payload: true signs UNSIGNED-PAYLOAD (as
 * --payload-hash unsigned); false undoes a true before it and leaves any
 * other --payload-hash as it is (warp's default is our auto).
 */
static int set_no_sha256(struct sb_s3_opts *o, const struct s3_opt *d, const struct s3_set *s)
{
	bool b;
	(void)d;
	if (parse_bool_val(s->val, &b))
		return s3_bad(s, "is not a boolean");
	if (b)
		o->payload_hash = SB_S3_HASH_UNSIGNED;
	else if (o->payload_hash == SB_S3_HASH_UNSIGNED)
		o->payload_hash = SB_S3_HASH_AUTO;
	return 0;
}

/* warp's --autoterm.pct: a percentage above 0 and at most 100 */
static int set_autoterm_pct(struct sb_s3_opts *o, const struct s3_opt *d, const struct s3_set *s)
{
	char *end;
	(void)d;
	errno = 0;
	double v = s->val ? strtod(s->val, &end) : 0;
	if (!s->val || errno || end == s->val || *end || !(v > 0 && v <= 100))
		return s3_bad(s, "is not a percentage above 0 and at most 100");
	o->autoterm_pct = v;
	return 0;
}

static int set_bench(struct sb_s3_opts *o, const struct s3_opt *d, const struct s3_set *s)
{
	enum sb_s3_bench bb;
	(void)d;
	if (!s->val || sb_s3_bench_parse(s->val, &bb))
		return s3_bad(s, "is not a supported benchmark (get, put, delete, stat, list, "
				 "mixed)");
	o->bench = bb;
	return 0;
}

#define AT(field)   offsetof(struct sb_s3_opts, field), sizeof(((struct sb_s3_opts *)0)->field)
#define PERCENT(op) AT(distrib[op]), 0, 100, "is not a percentage 0..100"

static const struct s3_opt s3_opts[] = {
	{"host", set_host, AT(host)},
	{"access-key", set_key, AT(access_key)},
	{"secret-key", set_key, AT(secret_key)},
	{"region", set_region, AT(region)},
	{"bucket", set_bucket, AT(bucket)},
	{"prefix", set_prefix, AT(prefix)},
	{"label", set_text, AT(label)},
	{"cacert", set_text, AT(cacert)},
	{"tls", set_flag, AT(tls)},
	{"insecure", set_flag, AT(insecure)},
	{"keep-data", set_keep, AT(keep_data)},
	{"noclear", set_keep, AT(keep_data)},
	{"obj.randsize", set_flag, AT(randsize)},
	{"lookup", set_lookup, AT(path_style)},
	{"obj.size", set_obj_size, AT(obj_size)},
	{"part.size", set_bytes, AT(part_size)},
	{"multipart-threshold", set_bytes, AT(multipart_threshold)},
	{"duration", set_duration, AT(duration_us)},
	{"concurrent", set_count, AT(concurrent), 1, 4096, "is not a number in 1..4096"},
	{"objects", set_count, AT(objects), 1, 10000000, "is not a number in 1..10000000"},
	{"max-keys", set_count, AT(max_keys), 1, 1000, "is not a number in 1..1000"},
	/* S3's DeleteObjects takes at most 1000 keys */
	{"batch", set_batch, AT(batch), 1, 1000, "is not a number in 1..1000"},
	{"timeout", set_timeout, AT(timeout_s)},
	{"get-distrib", set_count, PERCENT(SB_S3_GET)},
	{"put-distrib", set_count, PERCENT(SB_S3_PUT)},
	{"delete-distrib", set_count, PERCENT(SB_S3_DELETE)},
	{"stat-distrib", set_count, PERCENT(SB_S3_STAT)},
	{"benchmark", set_bench, AT(bench)},
	{"payload-hash", set_payload_hash, AT(payload_hash)},
	{"disable-sha256-payload", set_no_sha256, AT(payload_hash)},
	{"autoterm", set_flag, AT(autoterm)},
	{"autoterm.dur", set_duration, AT(autoterm_dur_us)},
	{"autoterm.pct", set_autoterm_pct, AT(autoterm_pct)},
};

int sb_s3_opt_set(struct sb_s3_opts *o, const char *where, const char *name, const char *val,
		  char *err, size_t errlen)
{
	const struct s3_set s = {where, name, val, err, errlen};
	for (size_t i = 0; i < sizeof(s3_opts) / sizeof(s3_opts[0]); i++)
		if (!strcmp(name, s3_opts[i].name))
			return s3_opts[i].set(o, &s3_opts[i], &s);
	snprintf(err, errlen, "%s%s--%s: unknown or unsupported option", where ? where : "",
		 where && *where ? ": " : "", name);
	return -ENOENT;
}

bool sb_s3_opt_is_bool(const char *name)
{
	for (size_t i = 0; i < sizeof(s3_opts) / sizeof(s3_opts[0]); i++)
		if (!strcmp(name, s3_opts[i].name))
			return s3_opts[i].set == set_flag || s3_opts[i].set == set_keep ||
			       s3_opts[i].set == set_no_sha256;
	return false;
}

int sb_s3_opts_check(const struct sb_s3_opts *o, char *err, size_t errlen)
{
	if (o->bench == SB_S3_B_NONE) {
		snprintf(err, errlen,
			 "no benchmark: name one of get, put, delete, stat, list, mixed");
		return -EINVAL;
	}
	if (!o->host[0]) {
		snprintf(err, errlen, "--host: missing (host[:port] of the S3 endpoint)");
		return -EINVAL;
	}
	if (o->size_range && o->obj_size_min > o->obj_size) {
		snprintf(err, errlen, "--obj.size: the range's minimum is above its maximum");
		return -EINVAL;
	}
	if (o->randsize && o->obj_size < 256) {
		snprintf(err, errlen,
			 "--obj.randsize: random sizes need --obj.size of at least 256 bytes (%llu "
			 "given; warp's rule)",
			 (unsigned long long)o->obj_size);
		return -EINVAL;
	}
	if (o->part_size < (5ull << 20) && o->multipart_threshold < o->obj_size) {
		snprintf(err, errlen,
			 "--part.size: %llu bytes is below S3's 5 MiB minimum part size",
			 (unsigned long long)o->part_size);
		return -EINVAL;
	}
	if (o->batch_set && o->bench != SB_S3_B_DELETE) {
		snprintf(err, errlen,
			 "--batch: only the delete benchmark deletes in batches (this is %s)",
			 sb_s3_bench_name(o->bench));
		return -EINVAL;
	}
	if (o->bench == SB_S3_B_MIXED) {
		unsigned sum = 0;
		for (int i = 0; i < SB_S3_NOPS; i++)
			sum += o->distrib[i];
		if (sum != 100) {
			snprintf(err, errlen,
				 "--get-distrib, --stat-distrib, --put-distrib, --delete-distrib: "
				 "they add up to %u, not 100",
				 sum);
			return -EINVAL;
		}
	}
	return 0;
}

/* ---- warp's YAML run file ---- */

/* keys we accept but that change nothing here, with why */
static const struct {
	const char *key;
	const char *why;
} yaml_ignored[] = {
	{"warp-client", "distributed warp clients: this runner drives all the concurrency "
			"itself (a BenchmarkRun spreads runner pods instead)"},
	{"api", NULL},
	{"no-color", "output option"},
	{"debug", "output option"},
	{"quiet", "output option"},
};

/* YAML keys whose flag has another name */
static const struct {
	const char *yaml;
	const char *flag;
} yaml_alias[] = {
	{"obj.rand-size", "obj.randsize"},
	{"autoterm.enabled", "autoterm"},
	{"params.autoterm.enabled", "autoterm"},
	{"params.autoterm.dur", "autoterm.dur"},
	{"params.autoterm.pct", "autoterm.pct"},
	{"remote.host", "host"},
	{"remote.access-key", "access-key"},
	{"remote.secret-key", "secret-key"},
	{"remote.region", "region"},
	{"remote.tls", "tls"},
	{"remote.insecure", "insecure"},
	{"remote.lookup", "lookup"},
	{"remote.bucket", "bucket"},
	{"params.duration", "duration"},
	{"params.concurrent", "concurrent"},
	{"params.objects", "objects"},
	{"params.obj.size", "obj.size"},
	{"params.obj.rand-size", "obj.randsize"},
	{"params.obj.part-size", "part.size"},
	{"params.batch", "batch"},
	{"obj.part-size", "part.size"},
	{"io.prefix", "prefix"},
	{"io.disable-sha256-payload", "disable-sha256-payload"},
	{"params.distribution.get", "get-distrib"},
	{"params.distribution.stat", "stat-distrib"},
	{"params.distribution.put", "put-distrib"},
	{"params.distribution.delete", "delete-distrib"},
	{"distribution.get", "get-distrib"},
	{"distribution.stat", "stat-distrib"},
	{"distribution.put", "put-distrib"},
	{"distribution.delete", "delete-distrib"},
};

struct yctx {
	yaml_parser_t p;
	const char *path;
	struct sb_s3_opts *o;
	char *err;
	size_t errlen;
	bool saw_api;
};

static int yerr(struct yctx *y, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int yerr(struct yctx *y, size_t line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(y->err, y->errlen, "%s:%zu: %s", y->path, line, msg);
	return -EINVAL;
}

static int next_event(struct yctx *y, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&y->p, ev)) {
		snprintf(y->err, y->errlen, "%s:%zu: not valid YAML: %s", y->path,
			 y->p.problem_mark.line + 1, y->p.problem ? y->p.problem : "?");
		return -EINVAL;
	}
	return 0;
}

/* Skips the rest of a node whose start event ev is (a sequence or mapping). */
static int skip_node(struct yctx *y, const yaml_event_t *start)
{
	if (start->type != YAML_SEQUENCE_START_EVENT && start->type != YAML_MAPPING_START_EVENT)
		return 0;
	int depth = 1;
	while (depth) {
		yaml_event_t ev;
		if (next_event(y, &ev))
			return -EINVAL;
		if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT)
			depth++;
		else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT)
			depth--;
		else if (ev.type == YAML_STREAM_END_EVENT)
			depth = 0;
		yaml_event_delete(&ev);
	}
	return 0;
}

static int apply_key(struct yctx *y, const char *key, const char *val, size_t line)
{
	const char *flag = key;
	for (size_t i = 0; i < sizeof(yaml_alias) / sizeof(yaml_alias[0]); i++)
		if (!strcmp(key, yaml_alias[i].yaml))
			flag = yaml_alias[i].flag;
	if (!strcmp(flag, "api")) {
		y->saw_api = true;
		if (strcmp(val, "v1"))
			return yerr(y, line, "api: '%s' is not v1", val);
		return 0;
	}
	char where[600];
	snprintf(where, sizeof(where), "%s:%zu", y->path, line);
	int r = sb_s3_opt_set(y->o, where, flag, val, y->err, y->errlen);
	if (r == -ENOENT)
		return yerr(y, line, "%s: not supported by storagebench's S3 runner", key);
	return r;
}

/* Reads a mapping's entries (the MAPPING_START has been read) under prefix. */
static int read_mapping(struct yctx *y, const char *prefix)
{
	for (;;) {
		yaml_event_t kev, vev;
		if (next_event(y, &kev))
			return -EINVAL;
		if (kev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&kev);
			return 0;
		}
		if (kev.type != YAML_SCALAR_EVENT) {
			size_t line = kev.start_mark.line + 1;
			yaml_event_delete(&kev);
			return yerr(y, line, "a key is not a plain name");
		}
		char key[256];
		size_t line = kev.start_mark.line + 1;
		snprintf(key, sizeof(key), "%s%s%s", prefix, *prefix ? "." : "",
			 (const char *)kev.data.scalar.value);
		yaml_event_delete(&kev);
		if (next_event(y, &vev))
			return -EINVAL;
		int r = 0;
		bool ignored = false;
		for (size_t i = 0; i < sizeof(yaml_ignored) / sizeof(yaml_ignored[0]); i++) {
			if (!strcmp(key, yaml_ignored[i].key) && strcmp(key, "api")) {
				ignored = true;
				sb_warn("Ignored warp key", "file=%s line=%zu key=%s reason=\"%s\"",
					y->path, line, key, yaml_ignored[i].why);
			}
		}
		if (ignored) {
			r = skip_node(y, &vev);
		} else if (vev.type == YAML_MAPPING_START_EVENT) {
			r = read_mapping(y, key);
		} else if (vev.type == YAML_SCALAR_EVENT) {
			r = apply_key(y, key, (const char *)vev.data.scalar.value, line);
		} else if (vev.type == YAML_SEQUENCE_START_EVENT) {
			r = yerr(y, line, "%s: a list is not supported here", key);
		} else {
			r = yerr(y, line, "%s: unexpected value", key);
		}
		yaml_event_delete(&vev);
		if (r)
			return r;
	}
}

int sb_s3_yaml_load(struct sb_s3_opts *o, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	/* run files are small: read it whole (1 MiB at most) */
	size_t cap = 1 << 20, n;
	char *buf = malloc(cap);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(buf, 1, cap, f);
	bool big = n == cap, bad = ferror(f);
	fclose(f);
	int ret;
	if (big || bad) {
		snprintf(err, errlen, "%s: %s", path,
			 big ? "larger than 1 MiB (not a warp run file)" : "read error");
		ret = -EINVAL;
	} else {
		ret = sb_s3_yaml_parse(o, path, buf, n, err, errlen);
	}
	free(buf);
	return ret;
}

int sb_s3_yaml_parse(struct sb_s3_opts *o, const char *path, const char *text, size_t len,
		     char *err, size_t errlen)
{
	struct yctx y = {.path = path, .o = o, .err = err, .errlen = errlen};
	if (!yaml_parser_initialize(&y.p))
		return -ENOMEM;
	yaml_parser_set_input_string(&y.p, (const unsigned char *)text, len);
	int ret = 0;
	bool saw_warp = false;
	int depth = 0;
	for (;;) {
		yaml_event_t ev;
		if (next_event(&y, &ev)) {
			ret = -EINVAL;
			break;
		}
		yaml_event_type_t t = ev.type;
		if (t == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		if (t == YAML_MAPPING_START_EVENT && depth == 0) {
			depth = 1;
			yaml_event_delete(&ev);
			continue;
		}
		if (t == YAML_SCALAR_EVENT && depth == 1) {
			size_t line = ev.start_mark.line + 1;
			bool is_warp = !strcmp((const char *)ev.data.scalar.value, "warp");
			char top[128];
			snprintf(top, sizeof(top), "%s", (const char *)ev.data.scalar.value);
			yaml_event_delete(&ev);
			if (!is_warp) {
				ret = yerr(&y, line,
					   "%s: not a warp run file key (expected 'warp:')", top);
				break;
			}
			yaml_event_t v;
			if (next_event(&y, &v)) {
				ret = -EINVAL;
				break;
			}
			if (v.type != YAML_MAPPING_START_EVENT) {
				yaml_event_delete(&v);
				ret = yerr(&y, line, "warp: not a mapping");
				break;
			}
			yaml_event_delete(&v);
			saw_warp = true;
			ret = read_mapping(&y, "");
			if (ret)
				break;
			continue;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&y.p);
	if (!ret && !saw_warp) {
		snprintf(err, errlen, "%s: no 'warp:' section (not a warp run file)", path);
		ret = -EINVAL;
	}
	if (!ret && !y.saw_api) {
		snprintf(err, errlen, "%s: warp.api: missing (warp run files say 'api: v1')", path);
		ret = -EINVAL;
	}
	return ret;
}
