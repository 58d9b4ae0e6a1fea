/* SPDX-License-Identifier: MIT */
/*
 * The S3 side's offline parts: the payload hash that goes into
 * x-amz-content-sha256, request URLs (path and virtual-host style), the XML
 * field reader, warp's flags and YAML run file, per-status error counting,
 * and an S3 result read by the aggregation (ttfb-p50, object size as bs).
 */
#include "stats/aggregate.h"
#include "runner/s3/s3.h"
#include "tests/unit/harness.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

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
	CHECK(sb_s3_xml_next(b, "Key", &pos, out, sizeof(out)));
	CHECK_STR(out, "a");
	CHECK(sb_s3_xml_next(b, "Key", &pos, out, sizeof(out)));
	CHECK_STR(out, "b/c");
	CHECK(!sb_s3_xml_next(b, "Key", &pos, out, sizeof(out)));
	pos = 0;
	CHECK(sb_s3_xml_next(b, "IsTruncated", &pos, out, sizeof(out)));
	CHECK_STR(out, "true");
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
	CHECK(o.randsize);
	CHECK_INT(o.obj_size_min, 4096);
	CHECK_INT(o.obj_size, 1 << 20);
	CHECK_INT(sb_s3_opt_set(&o, "", "duration", "1m30s", err, sizeof(err)), 0);
	CHECK_INT(o.duration_us, 90000000);
	CHECK_INT(sb_s3_opt_set(&o, "", "duration", "10s", err, sizeof(err)), 0);
	CHECK_INT(o.duration_us, 10000000);
	CHECK_INT(sb_s3_opt_set(&o, "", "tls", NULL, err, sizeof(err)), 0);
	CHECK(o.tls);
	CHECK_INT(sb_s3_opt_set(&o, "", "concurrent", "0", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--concurrent: '0' is not a number in 1..4096");
	CHECK_INT(sb_s3_opt_set(&o, "", "autoterm", NULL, err, sizeof(err)), -ENOENT);
	CHECK_STR(err, "--autoterm: unknown or unsupported option");
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
				   "  tls: true\n"),
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
	CHECK_INT(sb_s3_opstat_init(&a, 2), 0);
	CHECK_INT(sb_s3_opstat_init(&b, 2), 0);
	sb_s3_opstat_error(&a, 503, "PUT x: HTTP 503");
	sb_s3_opstat_error(&a, 0, "PUT y: connection refused");
	sb_s3_opstat_error(&a, 503, NULL);
	sb_s3_opstat_error(&b, 403, "PUT z: HTTP 403");
	sb_s3_opstat_merge(&a, &b);
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
		CHECK_INT(sb_s3_opstat_init(&r.op[i], 2), 0);
	struct sb_s3_opstat *g = &r.op[SB_S3_GET];
	for (int i = 0; i < 100; i++) {
		g->requests++;
		g->ok++;
		g->objects++;
		g->bytes += 1 << 20;
		sb_stat_add(&g->req, 2e6);
		sb_hist_add(&g->req_hist, 2000000);
		sb_stat_add(&g->ttfb, 5e5);
		sb_hist_add(&g->ttfb_hist, 500000);
		g->sec_ops[i % 2]++;
		g->sec_objects[i % 2]++;
		g->sec_bytes[i % 2] += 1 << 20;
	}
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
};
TEST_MAIN(cases)
