/* SPDX-License-Identifier: MIT */
/*
 * The S3 side's offline parts: the payload hash that goes into
 * x-amz-content-sha256, request URLs (path and virtual-host style), the XML
 * field reader and its references, warp's flags and YAML run file,
 * per-status error counting, an S3 result read by the aggregation
 * (ttfb-p50, object size as bs), each object's content (unique,
 * incompressible), warp's size distribution, warp's analysis on a fixed
 * trace worked out by hand, and warp's autoterm rule.
 */
#include "stats/aggregate.h"
#include "runner/s3/s3.h"
#include "tests/unit/harness.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <unistd.h>
#include <zlib.h>

static int test_sha256(void)
{
	char h[65];
	sb_s3_sha256_hex("", 0, h);
	CHECK_STR(h, sb_s3_empty_sha256);
	/* FIPS 180-2 test vector */
	sb_s3_sha256_hex("abc", 3, h);
	CHECK_STR(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	return T_PASS;
}

static int test_urls(void)
{
	struct sb_s3_opts o;
	char u[256];
	sb_s3_opts_init(&o);
	snprintf(o.host, sizeof(o.host), "10.0.0.1:7480");
	CHECK_INT(sb_s3_url(&o, "b", "p0/12.obj", NULL, u, sizeof(u)), 0);
	CHECK_STR(u, "http://10.0.0.1:7480/b/p0/12.obj");
	CHECK_INT(sb_s3_url(&o, "b", NULL, "list-type=2&prefix=x", u, sizeof(u)), 0);
	CHECK_STR(u, "http://10.0.0.1:7480/b/?list-type=2&prefix=x");
	CHECK_INT(sb_s3_url(&o, "b", NULL, NULL, u, sizeof(u)), 0);
	CHECK_STR(u, "http://10.0.0.1:7480/b");
	CHECK_INT(sb_s3_url(&o, "b", "a b+c", NULL, u, sizeof(u)), 0);
	CHECK_STR(u, "http://10.0.0.1:7480/b/a%20b%2Bc");
	o.path_style = false;
	o.tls = true;
	snprintf(o.host, sizeof(o.host), "s3.example");
	CHECK_INT(sb_s3_url(&o, "bk", "k", "uploads=", u, sizeof(u)), 0);
	CHECK_STR(u, "https://bk.s3.example/k?uploads=");
	CHECK_INT(sb_s3_url(&o, "bk", "k", NULL, u, 10), -ENAMETOOLONG);
	return T_PASS;
}

static int test_xml(void)
{
	const char *b = "<R><Key>a</Key><Key>b/c</Key><IsTruncated>true</IsTruncated></R>";
	char out[16];
	size_t pos = 0;
	CHECK_INT(sb_s3_xml_text(b, "Key", &pos, out, sizeof(out), NULL, 0), 1);
	CHECK_STR(out, "a");
	CHECK_INT(sb_s3_xml_text(b, "Key", &pos, out, sizeof(out), NULL, 0), 1);
	CHECK_STR(out, "b/c");
	CHECK_INT(sb_s3_xml_text(b, "Key", &pos, out, sizeof(out), NULL, 0), 0);
	pos = 0;
	CHECK_INT(sb_s3_xml_text(b, "IsTruncated", &pos, out, sizeof(out), NULL, 0), 1);
	CHECK_STR(out, "true");
	CHECK_INT(sb_s3_xml_count(b, "Key"), 2);
	CHECK_INT(sb_s3_xml_count(b, "Error"), 0);
	return T_PASS;
}

static int test_flags(void)
{
	struct sb_s3_opts o;
	char err[256];
	sb_s3_opts_init(&o);
	CHECK_INT(o.obj_size, 10 << 20);
	CHECK_INT(o.concurrent, 20);
	CHECK_INT(sb_s3_opt_set(&o, "", "obj.size", "1KB", err, sizeof(err)), 0);
	CHECK_INT(o.obj_size, 1000); /* warp: KB is 1000 */
	CHECK_INT(sb_s3_opt_set(&o, "", "obj.size", "1KiB", err, sizeof(err)), 0);
	CHECK_INT(o.obj_size, 1024);
	CHECK_INT(sb_s3_opt_set(&o, "", "obj.size", "4KiB-1MiB", err, sizeof(err)), 0);
	CHECK(o.size_range && !o.randsize); /* ours: uniform in the range */
	CHECK_INT(o.obj_size_min, 4096);
	CHECK_INT(o.obj_size, 1 << 20);
	CHECK_INT(sb_s3_opt_set(&o, "", "obj.size", "64KiB", err, sizeof(err)), 0);
	CHECK(!o.size_range); /* a fixed size replaces the range */
	CHECK_INT(sb_s3_opt_set(&o, "", "payload-hash", "unsigned", err, sizeof(err)), 0);
	CHECK_INT(o.payload_hash, SB_S3_HASH_UNSIGNED);
	CHECK_INT(sb_s3_opt_set(&o, "", "payload-hash", "md5", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--payload-hash: 'md5' is not one of auto, sha256, unsigned");
	/* warp's --disable-sha256-payload: unsigned; false undoes only that */
	sb_s3_opts_init(&o);
	CHECK(sb_s3_opt_is_bool("disable-sha256-payload") && sb_s3_opt_is_bool("noclear"));
	CHECK(!sb_s3_opt_is_bool("payload-hash") && !sb_s3_opt_is_bool("obj.size"));
	CHECK(!sb_s3_opt_is_bool("no-such-flag"));
	CHECK_INT(sb_s3_opt_set(&o, "", "disable-sha256-payload", NULL, err, sizeof(err)), 0);
	CHECK_INT(o.payload_hash, SB_S3_HASH_UNSIGNED);
	CHECK_INT(sb_s3_opt_set(&o, "", "disable-sha256-payload", "false", err, sizeof(err)), 0);
	CHECK_INT(o.payload_hash, SB_S3_HASH_AUTO);
	CHECK_INT(sb_s3_opt_set(&o, "", "payload-hash", "sha256", err, sizeof(err)), 0);
	CHECK_INT(sb_s3_opt_set(&o, "", "disable-sha256-payload", "false", err, sizeof(err)), 0);
	CHECK_INT(o.payload_hash, SB_S3_HASH_SHA256);
	CHECK_INT(sb_s3_opt_set(&o, "", "disable-sha256-payload", "yes please", err, sizeof(err)),
		  -EINVAL);
	CHECK_STR(err, "--disable-sha256-payload: 'yes please' is not a boolean");
	sb_s3_opts_init(&o);
	/* warp's autoterm and its defaults */
	CHECK(!o.autoterm);
	CHECK_INT(o.autoterm_dur_us, 15000000);
	CHECK_NEAR(o.autoterm_pct, 7.5, 0);
	CHECK_INT(sb_s3_opt_set(&o, "", "autoterm", NULL, err, sizeof(err)), 0);
	CHECK_INT(sb_s3_opt_set(&o, "", "autoterm.dur", "5s", err, sizeof(err)), 0);
	CHECK_INT(sb_s3_opt_set(&o, "", "autoterm.pct", "2.5", err, sizeof(err)), 0);
	CHECK(o.autoterm);
	CHECK_INT(o.autoterm_dur_us, 5000000);
	CHECK_NEAR(o.autoterm_pct, 2.5, 0);
	CHECK_INT(o.duration_us, 300000000); /* --duration is its own (5m) */
	CHECK_INT(sb_s3_opt_set(&o, "", "autoterm.pct", "0", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--autoterm.pct: '0' is not a percentage above 0 and at most 100");
	CHECK_INT(sb_s3_opt_set(&o, "", "duration", "1m30s", err, sizeof(err)), 0);
	CHECK_INT(o.duration_us, 90000000);
	CHECK_INT(sb_s3_opt_set(&o, "", "duration", "10s", err, sizeof(err)), 0);
	CHECK_INT(o.duration_us, 10000000);
	CHECK_INT(sb_s3_opt_set(&o, "", "tls", NULL, err, sizeof(err)), 0);
	CHECK(o.tls);
	CHECK_INT(sb_s3_opt_set(&o, "", "region", "default:placement-1", err, sizeof(err)), 0);
	CHECK_INT(sb_s3_opt_set(&o, "", "region", "eu west", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--region: 'eu west' is not a region name (letters, digits, '-', '_', '.', "
		       "':')");
	CHECK_INT(sb_s3_opt_set(&o, "", "concurrent", "0", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--concurrent: '0' is not a number in 1..4096");
	CHECK_INT(sb_s3_opt_set(&o, "", "range", NULL, err, sizeof(err)), -ENOENT);
	CHECK_STR(err, "--range: unknown or unsupported option");
	/* a secret is never echoed, even when refused */
	char big[300];
	memset(big, 'S', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK_INT(sb_s3_opt_set(&o, "", "secret-key", big, err, sizeof(err)), -EINVAL);
	CHECK(!strstr(err, "SSS"));
	/* mixed: the distribution must add up to 100 */
	snprintf(o.host, sizeof(o.host), "h:1");
	o.bench = SB_S3_B_MIXED;
	CHECK_INT(sb_s3_opts_check(&o, err, sizeof(err)), 0);
	CHECK_INT(sb_s3_opt_set(&o, "", "put-distrib", "20", err, sizeof(err)), 0);
	CHECK_INT(sb_s3_opts_check(&o, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "add up to 105"));
	return T_PASS;
}

/* warp's --host list: split, taken in turn, each URL on its own host; bad lists named. */
static int test_hosts(void)
{
	struct sb_s3_opts o;
	char err[512], u[256];
	sb_s3_opts_init(&o);
	CHECK_INT(sb_s3_opt_set(&o, "", "host", "rgw1:7480, rgw2:7480,10.0.0.3", err, sizeof(err)),
		  0);
	CHECK_INT(o.nhosts, 3);
	CHECK_STR(sb_s3_host(&o, 0), "rgw1:7480");
	CHECK_STR(sb_s3_host(&o, 1), "rgw2:7480");
	CHECK_STR(sb_s3_host(&o, 2), "10.0.0.3");
	CHECK_STR(sb_s3_host(&o, 4), "rgw2:7480");
	CHECK_STR(o.host, "rgw1:7480, rgw2:7480,10.0.0.3"); /* as given: the endpoint's name */
	CHECK_INT(sb_s3_url_at(&o, sb_s3_host(&o, 1), "b", "k", NULL, u, sizeof(u)), 0);
	CHECK_STR(u, "http://rgw2:7480/b/k");
	CHECK_INT(sb_s3_url(&o, "b", NULL, NULL, u, sizeof(u)), 0);
	CHECK_STR(u, "http://rgw1:7480/b");
	/* one host: the list of one */
	CHECK_INT(sb_s3_opt_set(&o, "", "host", "h:1", err, sizeof(err)), 0);
	CHECK_INT(o.nhosts, 1);
	CHECK_STR(sb_s3_host(&o, 7), "h:1");
	static const struct {
		const char *val, *want;
	} bad[] = {
		{"a:1,", "--host: 'a:1,' has an empty host in its list"},
		{"a:1, ,b", "has an empty host in its list"},
		{"h{1...4}:9000", "uses warp's {1...N} expansion, which is not supported"},
		{"a:1,http://b:2", "has a scheme"},
		{"a:1,b/x", "is not a list of host[:port]"},
		{"a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q", "names more than 16 hosts"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		CHECK_INT(sb_s3_opt_set(&o, "", "host", bad[i].val, err, sizeof(err)), -EINVAL);
		if (!strstr(err, bad[i].want))
			fprintf(stderr, "    %s: %s\n", bad[i].val, err);
		CHECK(strstr(err, bad[i].want) != NULL);
	}
	return T_PASS;
}

/* warp's delete --batch: 100 by default, 1..1000, only for delete. */
static int test_batch(void)
{
	struct sb_s3_opts o;
	char err[512];
	sb_s3_opts_init(&o);
	CHECK_INT(o.batch, 100);
	snprintf(o.host, sizeof(o.host), "h:1");
	o.bench = SB_S3_B_GET;
	CHECK_INT(sb_s3_opts_check(&o, err, sizeof(err)), 0); /* the default: no complaint */
	CHECK_INT(sb_s3_opt_set(&o, "", "batch", "1000", err, sizeof(err)), 0);
	CHECK_INT(o.batch, 1000);
	CHECK_INT(sb_s3_opts_check(&o, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--batch: only the delete benchmark deletes in batches (this is get)");
	o.bench = SB_S3_B_DELETE;
	CHECK_INT(sb_s3_opts_check(&o, err, sizeof(err)), 0);
	CHECK_INT(sb_s3_opt_set(&o, "f.yaml:3", "batch", "0", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "f.yaml:3: --batch: '0' is not a number in 1..1000");
	CHECK_INT(sb_s3_opt_set(&o, "", "batch", "1001", err, sizeof(err)), -EINVAL);
	CHECK_INT(o.batch, 1000);
	/* in a run file, at the top or under params: as warp writes it */
	const char *text = "warp:\n  api: v1\n  benchmark: delete\n  params:\n    batch: 25\n";
	sb_s3_opts_init(&o);
	CHECK_INT(sb_s3_yaml_parse(&o, "d.yaml", text, strlen(text), err, sizeof(err)), 0);
	CHECK_INT(o.batch, 25);
	text = "warp:\n  api: v1\n  benchmark: delete\n  batch: 7\n";
	sb_s3_opts_init(&o);
	CHECK_INT(sb_s3_yaml_parse(&o, "d.yaml", text, strlen(text), err, sizeof(err)), 0);
	CHECK_INT(o.batch, 7);
	return T_PASS;
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int test_yaml(void)
{
	char path[] = "/tmp/sb-s3-yaml-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	struct sb_s3_opts o;
	char err[512];
	CHECK_INT(write_file(path, "warp:\n"
				   "  api: v1\n"
				   "  benchmark: get\n"
				   "  host: rgw.example:443\n"
				   "  bucket: benchmark\n"
				   "  duration: 5m\n"
				   "  concurrent: 150\n"
				   "  objects: 100000\n"
				   "  obj:\n"
				   "    size: 100MB\n"
				   "  tls: true\n"
				   "  io:\n"
				   "    disable-sha256-payload: true\n"),
		  0);
	sb_s3_opts_init(&o);
	int r = sb_s3_yaml_load(&o, path, err, sizeof(err));
	if (r)
		fprintf(stderr, "    %s\n", err);
	CHECK_INT(r, 0);
	CHECK_INT(o.bench, SB_S3_B_GET);
	CHECK_STR(o.host, "rgw.example:443");
	CHECK_STR(o.bucket, "benchmark");
	CHECK_INT(o.duration_us, 300000000ull);
	CHECK_INT(o.concurrent, 150);
	CHECK_INT(o.objects, 100000);
	CHECK_INT(o.obj_size, 100000000ull);
	CHECK(o.tls);
	CHECK_INT(o.payload_hash, SB_S3_HASH_UNSIGNED);

	CHECK_INT(write_file(path, "warp:\n  api: v1\n  benchmark: put\n  obj:\n    md5: true\n"),
		  0);
	sb_s3_opts_init(&o);
	CHECK_INT(sb_s3_yaml_load(&o, path, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, ":5: obj.md5: not supported"));

	CHECK_INT(write_file(path, "warp:\n  api: v2\n"), 0);
	CHECK_INT(sb_s3_yaml_load(&o, path, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, ":2: api: 'v2' is not v1"));

	CHECK_INT(write_file(path, "warp:\n  api: 'v1\n"), 0);
	CHECK_INT(sb_s3_yaml_load(&o, path, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "not valid YAML"));
	unlink(path);
	CHECK_INT(sb_s3_yaml_load(&o, path, err, sizeof(err)), -ENOENT);
	return T_PASS;
}

static int test_error_counts(void)
{
	static struct sb_s3_opstat a, b;
	sb_s3_opstat_init(&a);
	sb_s3_opstat_init(&b);
	sb_s3_opstat_error(&a, 503, "PUT x: HTTP 503");
	sb_s3_opstat_error(&a, 0, "PUT y: connection refused");
	sb_s3_opstat_error(&a, 503, NULL);
	sb_s3_opstat_error(&b, 403, "PUT z: HTTP 403");
	CHECK_INT(sb_s3_opstat_merge(&a, &b), 0);
	sb_s3_opstat_release(&b);
	CHECK_INT(a.errors, 4);
	CHECK_INT(a.requests, 4);
	CHECK_INT(a.nstatus, 3);
	CHECK_INT(a.status[0], 503);
	CHECK_INT(a.status_n[0], 2);
	CHECK_INT(a.status[1], 0);
	CHECK_INT(a.status_n[1], 1);
	CHECK_INT(a.status[2], 403);
	CHECK_STR(a.first_error, "PUT x: HTTP 503");
	/* more statuses than slots: the last slot takes the rest, nothing is lost */
	for (int s = 500; s < 540; s++)
		sb_s3_opstat_error(&a, s, NULL);
	uint64_t sum = 0;
	for (unsigned i = 0; i < a.nstatus; i++)
		sum += a.status_n[i];
	CHECK_INT(sum, 44);
	CHECK_INT(a.nstatus, SB_S3_MAX_STATUS);
	sb_s3_opstat_release(&a);
	return T_PASS;
}

/* A GET result as JSON, read back by the aggregation like a block result. */
static int test_aggregates(void)
{
	struct sb_s3_opts o;
	static struct sb_s3_result r;
	sb_s3_opts_init(&o);
	snprintf(o.host, sizeof(o.host), "h:1");
	o.obj_size = 1 << 20;
	o.concurrent = 16;
	memset(&r, 0, sizeof(r));
	r.bench = SB_S3_B_GET;
	r.concurrent = 16;
	r.runtime_us = 2000000;
	r.interval_us = 1000000;
	for (int i = 0; i < SB_S3_NOPS; i++)
		sb_s3_opstat_init(&r.op[i]);
	struct sb_s3_opstat *g = &r.op[SB_S3_GET];
	/* two workers, 50 GETs of 1 MiB each, 40 ms apiece back to back: the
	 * analysed span is [40 ms, 1960 ms), 48 objects of each worker in it:
	 * 96 MiB in 1.92 s, 50 obj/s */
	for (int i = 0; i < 100; i++) {
		uint64_t k = (uint64_t)i / 2, t0 = 1000000000ull + k * 40000000ull;
		struct sb_s3_oprec rec = {t0, t0 + 40000000ull,	 1 << 20,
					  1,  (uint16_t)(i % 2), true};
		CHECK_INT(sb_s3_oplog_add(&g->log, &rec), 0);
		g->requests++;
		g->ok++;
		g->objects++;
		g->bytes += 1 << 20;
		sb_stat_add(&g->req, 2e6);
		sb_hist_add(&g->req_hist, 2000000);
		sb_stat_add(&g->ttfb, 5e5);
		sb_hist_add(&g->ttfb_hist, 500000);
	}
	CHECK_INT(sb_s3_result_analyse(&r), 0);
	CHECK(g->an.active);
	CHECK_INT(g->an.nseg, 1);
	json_t *doc = sb_s3_json(&o, &r);
	sb_s3_result_release(&r);
	CHECK(doc);
	json_t *job = json_array_get(json_object_get(doc, "jobs"), 0);
	CHECK_STR(json_string_value(json_object_get(job, "jobname")), "s3-get");
	struct sb_agg *a = sb_agg_new();
	char err[256] = "";
	int ret = sb_agg_add(a, "objects", 1, job, err, sizeof(err));
	json_t *rep = ret ? NULL : sb_agg_report(a, "t");
	json_decref(doc);
	sb_agg_free(a);
	if (ret)
		fprintf(stderr, "    %s\n", err);
	CHECK_INT(ret, 0);
	CHECK(rep);
	json_t *res = json_array_get(json_object_get(rep, "results"), 0);
	json_t *m = json_object_get(res, "metrics");
	double ops = json_real_value(json_object_get(json_object_get(m, "read-iops"), "mean"));
	double bw = json_real_value(json_object_get(json_object_get(m, "read-bw"), "mean"));
	double ttfb = json_real_value(json_object_get(json_object_get(m, "ttfb-p50"), "mean"));
	const char *bs = json_string_value(json_object_get(res, "bs"));
	const char *rw = json_string_value(json_object_get(res, "rw"));
	int ok = ops == 50.0 && bw == 50.0 * (1 << 20) && ttfb > 495000 && ttfb < 505000 && bs &&
		 !strcmp(bs, "1048576") && rw && !strcmp(rw, "s3-get");
	if (!ok)
		fprintf(stderr, "    ops %g bw %g ttfb %g bs %s rw %s\n", ops, bw, ttfb,
			bs ? bs : "-", rw ? rw : "-");
	json_decref(rep);
	CHECK(ok);
	return T_PASS;
}

/* ---- each object's content (s3/data.c) ---- */

static const unsigned char test_key[SB_S3_CONTENT_KEY] = {1, 2,	 3,  4,	 5,  6,	 7,  8,
							  9, 10, 11, 12, 13, 14, 15, 16};

/* 64 objects of 64 KiB: no two share an MD5 (an ETag), none compresses, bytes even. */
static int test_content_unique(void)
{
	enum { N = 64, LEN = 64 << 10 };
	static unsigned char buf[N][LEN], z[LEN + 1024];
	static unsigned char md[N][16];
	static uint64_t count[256];
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	CHECK(ctx);
	int ok = 1;
	for (int i = 0; i < N && ok; i++) {
		unsigned int mdlen = 0;
		ok = sb_s3_content_fill(ctx, test_key, (uint64_t)i, 0, buf[i], LEN) == 0 &&
		     EVP_Digest(buf[i], LEN, md[i], &mdlen, EVP_md5(), NULL) && mdlen == 16;
	}
	CHECK(ok);
	for (int i = 0; i < N; i++)
		for (int j = i + 1; j < N; j++)
			CHECK(memcmp(md[i], md[j], 16) != 0);
	/* zlib at its best level gains nothing on any of them */
	for (int i = 0; i < N; i++) {
		uLongf zl = sizeof(z);
		CHECK_INT(compress2(z, &zl, buf[i], LEN, 9), Z_OK);
		CHECK(zl >= LEN);
	}
	/* a simple entropy bound: every byte value within 10% of its share of 4 MiB */
	memset(count, 0, sizeof(count));
	for (int i = 0; i < N; i++)
		for (int k = 0; k < LEN; k++)
			count[buf[i][k]]++;
	for (int v = 0; v < 256; v++)
		CHECK_NEAR(count[v], N * LEN / 256.0, N * LEN / 256.0 * 0.1);
	EVP_CIPHER_CTX_free(ctx);
	return T_PASS;
}

/* Parts differ from each other and from the object; the same (id, part) is the same bytes. */
static int test_content_parts(void)
{
	enum { LEN = 5000 };
	static unsigned char a[LEN], b[LEN], c[LEN];
	static const unsigned char other_key[SB_S3_CONTENT_KEY] = {99};
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	CHECK(ctx);
	CHECK_INT(sb_s3_content_fill(ctx, test_key, 7, 0, a, LEN), 0);
	CHECK_INT(sb_s3_content_fill(ctx, test_key, 7, 1, b, LEN), 0);
	CHECK(memcmp(a, b, LEN) != 0);
	CHECK_INT(sb_s3_content_fill(ctx, test_key, 7, 2, c, LEN), 0);
	CHECK(memcmp(b, c, LEN) != 0);
	/* deterministic, and a shorter body is the longer one's start (odd lengths too) */
	CHECK_INT(sb_s3_content_fill(ctx, test_key, 7, 1, c, 333), 0);
	CHECK(memcmp(b, c, 333) == 0);
	/* another run (key) gives other content for the same object */
	CHECK_INT(sb_s3_content_fill(ctx, other_key, 7, 0, c, LEN), 0);
	CHECK(memcmp(a, c, LEN) != 0);
	EVP_CIPHER_CTX_free(ctx);
	return T_PASS;
}

/* ---- sizes ---- */

/* --obj.randsize --obj.size 1MiB: warp's distribution, mean 0.179 MiB (10,000 draws). */
static int test_randsize_warp(void)
{
	struct sb_s3_opts o;
	char err[256];
	sb_s3_opts_init(&o);
	CHECK_INT(sb_s3_opt_set(&o, "", "obj.size", "1MiB", err, sizeof(err)), 0);
	CHECK_INT(sb_s3_opt_set(&o, "", "obj.randsize", NULL, err, sizeof(err)), 0);
	uint64_t rng = 0x5eed, lo = UINT64_MAX, hi = 0;
	double sum = 0;
	unsigned small = 0;
	for (int i = 0; i < 10000; i++) {
		uint64_t v = sb_s3_pick_size(&o, &rng);
		sum += (double)v;
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
		small += v < (1u << 20) / 8;
	}
	double mean = sum / 10000 / (1 << 20);
	CHECK_NEAR(mean, 0.179151, 0.179151 * 0.05);
	CHECK(lo >= 1 && hi <= 1 << 20);
	CHECK(lo < 8192);    /* down to 1/256 of the maximum and below */
	CHECK(small > 5000); /* a log scale: most objects are small */
	/* warp's rule: random sizes need at least 256 bytes */
	snprintf(o.host, sizeof(o.host), "h:1");
	o.bench = SB_S3_B_PUT;
	CHECK_INT(sb_s3_opts_check(&o, err, sizeof(err)), 0);
	CHECK_INT(sb_s3_opt_set(&o, "", "obj.size", "255", err, sizeof(err)), 0);
	CHECK_INT(sb_s3_opts_check(&o, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--obj.randsize: random sizes need --obj.size of at least 256 bytes (255 "
		       "given; warp's rule)");
	return T_PASS;
}

/* MIN-MAX alone: uniform (ours); with --obj.randsize: warp's scale from MIN. */
static int test_randsize_range(void)
{
	struct sb_s3_opts o;
	char err[256];
	sb_s3_opts_init(&o);
	CHECK_INT(sb_s3_opt_set(&o, "", "obj.size", "4KiB-64KiB", err, sizeof(err)), 0);
	uint64_t rng = 42;
	double sum = 0;
	for (int i = 0; i < 10000; i++) {
		uint64_t v = sb_s3_pick_size(&o, &rng);
		CHECK(v >= 4096 && v <= 65536);
		sum += (double)v;
	}
	CHECK_NEAR(sum / 10000, (4096 + 65536) / 2.0, (4096 + 65536) / 2.0 * 0.02);
	CHECK_INT(sb_s3_opt_set(&o, "", "obj.randsize", NULL, err, sizeof(err)), 0);
	sum = 0;
	for (int i = 0; i < 10000; i++) {
		uint64_t v = sb_s3_pick_size(&o, &rng);
		CHECK(v >= 4096 && v <= 65536);
		sum += (double)v;
	}
	/* log2 uniform over 12..16: mean (64Ki - 4Ki) / (4 ln 2) = 22,161 bytes */
	CHECK_NEAR(sum / 10000, 61440 / (4 * 0.6931471805599453), 22161 * 0.05);
	return T_PASS;
}

/* ---- warp's analysis (s3/analyse.c) ---- */

#define U 100000000ull /* the trace's time unit: 100 ms */

/* A request of worker w from a to b (units of U), bytes, ok. */
static struct sb_s3_oprec req(unsigned w, uint64_t a, uint64_t b, uint64_t bytes, bool ok)
{
	struct sb_s3_oprec r = {a * U, b * U, ok ? bytes : 0, 1, (uint16_t)w, ok};
	return r;
}

/*
 * A fixed trace of two workers, and what warp's rule gives for it, worked
 * out by hand here.
 *
 *   worker 0: a [0,5) 5000 B, b [5,15) 10000, c [15,27) 6000, d [27,32) 5000,
 *             e [32,40) 8000, k [40,46) 6000, n [46,52) 6000
 *   worker 1: f [0,8) 8000, g [8,18) failed, h [18,22) 4000, i [22,36) 14000,
 *             j [36,41) 5000, m [41,50) 9000
 *
 * Active span: first requests end at 5 and 8, last ones start at 46 and
 * 41: [8, 41), 3.3 s. Segments of 1 s from 8, each ending before 41:
 * [8,18), [18,28), [28,38) ([38,48) does not end before 41).
 *   [8,18):  b 7/10 of 10000 = 7000, c 3/12 of 6000 = 1500, f 0/8: 8500 B,
 *            objects 0.7 + 0.25 = 0.95 (g failed: nothing)
 *   [18,28): c 9/12 = 4500, d 1/5 = 1000, h whole 4000, i 6/14 = 6000: 15500 B,
 *            objects 0.75 + 0.2 + 1 + 3/7
 *   [28,38): d 4/5 = 4000, e 6/8 = 6000, i 8/14 = 8000, j 2/5 = 2000: 20000 B,
 *            objects 0.8 + 0.75 + 4/7 + 0.4
 * Ranked slowest first: [8,18), [18,28), [28,38); warp's median is element
 * round(3 / 2) = 2. The span: b 7000 (0.7), c, d, e, h, i whole (41000, 5),
 * k 1/6 = 1000, j whole 5000 (its end, 41, is the span's end): 50000 B,
 * 6.7 + 1/6 objects.
 */
static int test_analysis_trace(void)
{
	const struct sb_s3_oprec ops[] = {
		req(0, 0, 5, 5000, true),   req(0, 5, 15, 10000, true),	 req(0, 15, 27, 6000, true),
		req(0, 27, 32, 5000, true), req(0, 32, 40, 8000, true),	 req(0, 40, 46, 6000, true),
		req(0, 46, 52, 6000, true), req(1, 0, 8, 8000, true),	 req(1, 8, 18, 7777, false),
		req(1, 18, 22, 4000, true), req(1, 22, 36, 14000, true), req(1, 36, 41, 5000, true),
		req(1, 41, 50, 9000, true),
	};
	static struct sb_s3_analysis a;
	CHECK_INT(sb_s3_analyse(ops, sizeof(ops) / sizeof(ops[0]), 10 * U, &a), 0);
	CHECK(a.active);
	CHECK_INT(a.from_ns, 8 * U);
	CHECK_INT(a.to_ns, 41 * U);
	CHECK_INT(a.bytes, 50000);
	CHECK_NEAR(a.objects, 6.7 + 1.0 / 6, 1e-9);
	CHECK_INT(a.nseg, 3);
	CHECK_INT(a.seg[0].bytes, 8500);
	CHECK_INT(a.seg[1].bytes, 15500);
	CHECK_INT(a.seg[2].bytes, 20000);
	CHECK_NEAR(a.seg[0].objects, 0.95, 1e-9);
	CHECK_NEAR(a.seg[1].objects, 1.95 + 3.0 / 7, 1e-9);
	CHECK_NEAR(a.seg[2].objects, 1.95 + 4.0 / 7, 1e-9);
	CHECK(a.by_bytes);
	CHECK_INT(a.slowest, 0);
	CHECK_INT(a.median, 2);
	CHECK_INT(a.fastest, 2);
	sb_s3_analysis_release(&a);

	/* the text layout of it: warp's "Throughput, split into N x 1s" */
	static struct sb_s3_result r;
	struct sb_s3_opts o;
	sb_s3_opts_init(&o);
	memset(&r, 0, sizeof(r));
	r.bench = SB_S3_B_GET;
	r.concurrent = 2;
	r.interval_us = 10 * U / 1000;
	for (int i = 0; i < SB_S3_NOPS; i++)
		sb_s3_opstat_init(&r.op[i]);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		CHECK_INT(sb_s3_oplog_add(&r.op[SB_S3_GET].log, &ops[i]), 0);
		r.op[SB_S3_GET].requests++;
	}
	CHECK_INT(sb_s3_result_analyse(&r), 0);
	r.op[SB_S3_GET].bytes = 1;
	char *txt = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&txt, &len);
	CHECK(f);
	sb_s3_print_text(f, &o, &r);
	fclose(f);
	sb_s3_result_release(&r);
	/* 50000 B / 3.3 s = 14.80 KiB/s, 6.87 objects / 3.3 s = 2.08 obj/s */
	int ok = strstr(txt, "Report: GET. Concurrency: 2. Ran: 3.300s\n"
			     " * Average: 14.80 KiB/s, 2.08 obj/s\n") &&
		 strstr(txt, "Throughput, split into 3 x 1s:\n"
			     " * Fastest: 19.53 KiB/s, 2.52 obj/s\n"
			     " * 50% Median: 19.53 KiB/s, 2.52 obj/s\n"
			     " * Slowest: 8.30 KiB/s, 0.95 obj/s\n");
	if (!ok)
		fprintf(stderr, "%s", txt);
	free(txt);
	CHECK(ok);
	return T_PASS;
}

/* Without bytes (STAT): ranked by objects; too few requests: the whole range, said so. */
static int test_analysis_objects_and_few(void)
{
	const struct sb_s3_oprec stat[] = {
		req(0, 0, 2, 0, true),	 req(0, 2, 4, 0, true),	  req(0, 4, 6, 0, true),
		req(0, 6, 8, 0, true),	 req(0, 8, 30, 0, true),  req(0, 30, 32, 0, true),
		req(0, 32, 34, 0, true), req(0, 34, 36, 0, true), req(0, 36, 38, 0, true),
	};
	static struct sb_s3_analysis a;
	/* one worker: span [2, 36); segments [2,12), [12,22), [22,32) */
	CHECK_INT(sb_s3_analyse(stat, sizeof(stat) / sizeof(stat[0]), 10 * U, &a), 0);
	CHECK(a.active && !a.by_bytes);
	CHECK_INT(a.nseg, 3);
	/* [2,12): 3 whole + 4/22 of the long one; [12,22): 10/22; [22,32): 8/22 + 1 */
	CHECK_NEAR(a.seg[0].objects, 3 + 4.0 / 22, 1e-9);
	CHECK_NEAR(a.seg[1].objects, 10.0 / 22, 1e-9);
	CHECK_NEAR(a.seg[2].objects, 8.0 / 22 + 1, 1e-9);
	/* ranked [12,22), [22,32), [2,12): the median, element 2, is the fastest */
	CHECK_INT(a.slowest, 1);
	CHECK_INT(a.median, 0);
	CHECK_INT(a.fastest, 0);
	sb_s3_analysis_release(&a);
	/* one request per worker: no span has both active */
	const struct sb_s3_oprec few[] = {req(0, 0, 30, 3000, true), req(1, 5, 25, 1000, true)};
	CHECK_INT(sb_s3_analyse(few, 2, 10 * U, &a), 0);
	CHECK(!a.active);
	CHECK_INT(a.from_ns, 0);
	CHECK_INT(a.to_ns, 30 * U);
	CHECK_INT(a.bytes, 4000);
	CHECK_INT(a.nseg, 2);
	sb_s3_analysis_release(&a);
	CHECK_INT(sb_s3_analyse(NULL, 0, 10 * U, &a), 0);
	CHECK(!a.active && a.nseg == 0 && a.to_ns == a.from_ns);
	return T_PASS;
}

/* The rule for one segment [a, b) as the README words it, request by request. */
static void ref_segment(const struct sb_s3_oprec *ops, size_t n, uint64_t a, uint64_t b,
			uint64_t *bytes, double *objects)
{
	*bytes = 0;
	*objects = 0;
	for (size_t i = 0; i < n; i++) {
		const struct sb_s3_oprec *r = &ops[i];
		uint64_t s = r->start_ns > a ? r->start_ns : a, e = r->end_ns < b ? r->end_ns : b;
		if (!r->ok || r->end_ns < a || r->start_ns >= b)
			continue;
		if (r->start_ns >= a && r->end_ns < b) {
			*bytes += r->bytes;
			*objects += r->objects;
		} else {
			uint64_t d = r->end_ns - r->start_ns;
			*bytes += (uint64_t)((unsigned __int128)r->bytes * (e - s) / d);
			*objects += (double)r->objects * (double)(e - s) / (double)d;
		}
	}
}

/* A random trace of 5 workers: every segment as the rule gives it, request by request. */
static int test_analysis_random_trace(void)
{
	enum { W = 5, PER = 400 };
	static struct sb_s3_oprec ops[W * PER];
	static struct sb_s3_analysis a;
	uint64_t rng = 77;
	size_t n = 0;
	for (unsigned w = 0; w < W; w++) {
		uint64_t t = sb_s3_rand(&rng) % 50000000ull;
		for (int k = 0; k < PER; k++) {
			uint64_t d = sb_s3_rand(&rng) % 40000000ull; /* 0..40 ms, 0 too */
			bool ok = sb_s3_rand(&rng) % 10 != 0;
			ops[n] = (struct sb_s3_oprec){t,
						      t + d,
						      ok ? sb_s3_rand(&rng) % 100000 : 0,
						      1 + (uint32_t)(sb_s3_rand(&rng) % 3),
						      (uint16_t)w,
						      ok};
			n++;
			t += d + sb_s3_rand(&rng) % 5000000ull;
		}
	}
	CHECK_INT(sb_s3_analyse(ops, n, 1000000000ull, &a), 0);
	CHECK(a.active && a.nseg >= 5);
	for (size_t k = 0; k < a.nseg; k++) {
		uint64_t s = a.from_ns + k * 1000000000ull, b;
		double o;
		ref_segment(ops, n, s, s + 1000000000ull, &b, &o);
		CHECK_INT(a.seg[k].bytes, b);
		CHECK_NEAR(a.seg[k].objects, o, 1e-6);
	}
	for (size_t k = 0; k < a.nseg; k++) {
		CHECK(a.seg[k].bytes >= a.seg[a.slowest].bytes);
		CHECK(a.seg[k].bytes <= a.seg[a.fastest].bytes);
	}
	uint64_t tb;
	double to;
	ref_segment(ops, n, a.from_ns, a.to_ns, &tb, &to);
	CHECK_INT(a.bytes, tb);
	sb_s3_analysis_release(&a);
	return T_PASS;
}

/* Steady requests of two workers from 0 to secs, 100 ms each; bytes grow by grow per second. */
static struct sb_s3_oprec *steady(unsigned secs, double grow, size_t *n)
{
	size_t per = secs * 10;
	struct sb_s3_oprec *v = calloc(2 * per, sizeof(*v));
	for (size_t i = 0; v && i < 2 * per; i++) {
		uint64_t k = i / 2;
		double b = 1000.0 * (1.0 + grow * (double)k / 10.0);
		v[i] = req((unsigned)(i % 2), k, k + 1, (uint64_t)b, true);
	}
	*n = 2 * per;
	return v;
}

/* warp's autoterm: stable throughput ends the run; a drift or too short a run does not. */
static int test_autoterm_rule(void)
{
	size_t n;
	double rate = 0;
	bool by_bytes = false;
	struct sb_s3_oprec *v = steady(30, 0, &n);
	CHECK(v);
	/* 2 x 1000 B per 100 ms: 20000 B/s, stable for far longer than 5 s x 25 / 7 */
	bool stable = sb_s3_autoterm_stable(v, n, 5000000000ull, 7.5, &rate, &by_bytes);
	free(v);
	CHECK(stable && by_bytes);
	CHECK_NEAR(rate, 20000, 20000 * 0.02);
	/* the span (about 3 s) is not above 1 s x 25 / 7 = 3.57 s */
	v = steady(3, 0, &n);
	CHECK(v);
	stable = sb_s3_autoterm_stable(v, n, 1000000000ull, 7.5, &rate, &by_bytes);
	free(v);
	CHECK(!stable);
	/* a drift of 5 % a second: the 7th segment back is about 30 % off */
	v = steady(30, 0.05, &n);
	CHECK(v);
	stable = sb_s3_autoterm_stable(v, n, 5000000000ull, 7.5, &rate, &by_bytes);
	free(v);
	CHECK(!stable);
	/* the same drift within a wider band */
	v = steady(30, 0.05, &n);
	CHECK(v);
	stable = sb_s3_autoterm_stable(v, n, 5000000000ull, 50, &rate, &by_bytes);
	free(v);
	CHECK(stable);
	return T_PASS;
}

/* ---- XML text with references ---- */

static int test_xml_entities(void)
{
	char out[64], err[256];
	size_t pos = 0;
	const char *b = "<R><Key>a&amp;b</Key><Key>&lt;x&gt; &quot;q&quot; &apos;s&apos;</Key>"
			"<Key>&#65;&#x42;&#xe9;&#8364;&#x1F600;</Key></R>";
	CHECK_INT(sb_s3_xml_text(b, "Key", &pos, out, sizeof(out), err, sizeof(err)), 1);
	CHECK_STR(out, "a&b");
	CHECK_INT(sb_s3_xml_text(b, "Key", &pos, out, sizeof(out), err, sizeof(err)), 1);
	CHECK_STR(out, "<x> \"q\" 's'");
	CHECK_INT(sb_s3_xml_text(b, "Key", &pos, out, sizeof(out), err, sizeof(err)), 1);
	CHECK_STR(out, "AB\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	static const struct {
		const char *body, *want;
	} bad[] = {
		{"<Key>a&b</Key>", "<Key>: '&b' is not an XML reference"},
		{"<Key>a&amp</Key>", "<Key>: '&amp' is not an XML reference"},
		{"<Key>&nbsp;</Key>", "<Key>: '&nbsp;' is not an XML reference"},
		{"<Key>&#;</Key>", "'&#;' is not an XML reference"},
		{"<Key>&#x;</Key>", "'&#x;' is not an XML reference"},
		{"<Key>&#12a;</Key>", "'&#12a;' is not an XML reference"},
		{"<Key>&#0;</Key>", "'&#0;' is not an XML reference"},
		{"<Key>&#xD800;</Key>", "'&#xD800;' is not an XML reference"},
		{"<Key>&#x110000;</Key>", "'&#x110000;' is not an XML reference"},
		{"<Key>&#99999999999999999999;</Key>", "is not an XML reference"},
		{"<Key>a\x01</Key>", "<Key>: control character 0x01 in the text"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pos = 0;
		err[0] = '\0';
		CHECK_INT(sb_s3_xml_text(bad[i].body, "Key", &pos, out, sizeof(out), err,
					 sizeof(err)),
			  -EINVAL);
		if (!strstr(err, bad[i].want))
			fprintf(stderr, "    %s: %s\n", bad[i].body, err);
		CHECK(strstr(err, bad[i].want) != NULL);
		CHECK_INT(pos, 0);
	}
	/* too long for the buffer: refused, not cut */
	pos = 0;
	CHECK_INT(sb_s3_xml_text("<Key>abcdef</Key>", "Key", &pos, out, 6, err, sizeof(err)),
		  -ENOSPC);
	CHECK_STR(err, "<Key>: the text is longer than 5 bytes");
	CHECK_INT(sb_s3_xml_text("<Key>abcde</Key>", "Key", &pos, out, 6, err, sizeof(err)), 1);
	CHECK_STR(out, "abcde");
	return T_PASS;
}

static const struct test_case cases[] = {
	{"s3/sha256", test_sha256},
	{"s3/urls", test_urls},
	{"s3/xml", test_xml},
	{"s3/flags", test_flags},
	{"s3/hosts", test_hosts},
	{"s3/batch", test_batch},
	{"s3/yaml", test_yaml},
	{"s3/error_counts", test_error_counts},
	{"s3/aggregates", test_aggregates},
	{"s3/content_unique", test_content_unique},
	{"s3/content_parts", test_content_parts},
	{"s3/randsize_warp", test_randsize_warp},
	{"s3/randsize_range", test_randsize_range},
	{"s3/analysis_trace", test_analysis_trace},
	{"s3/analysis_objects_and_few", test_analysis_objects_and_few},
	{"s3/analysis_random_trace", test_analysis_random_trace},
	{"s3/autoterm_rule", test_autoterm_rule},
	{"s3/xml_entities", test_xml_entities},
};
TEST_MAIN(cases)
