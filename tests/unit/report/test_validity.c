/* SPDX-License-Identifier: MIT */
/*
 * Validity checks (lib/report/validity.c): each warning triggered by the job
 * objects or report statistics that call for it, and not triggered by the
 * same input with the one fact changed.
 */
#include "tests/unit/harness.h"
#include "report/report.h"
#include "report/validity.h"

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>

#define GIB (1024LL * 1024 * 1024)

/* A job object: options as "k=v" strings up to NULL, engine asked/ran, node memory. */
static json_t *job(const char *name, const char *const *kv, const char *asked, const char *ran,
		   long long node_mem, json_t *read_series)
{
	json_t *opts = json_object();
	for (size_t i = 0; kv && kv[i]; i += 2)
		json_object_set_new(opts, kv[i], json_string(kv[i + 1]));
	json_t *sbx = json_object();
	if (node_mem)
		json_object_set_new(sbx, SB_VALIDITY_NODE_MEM_KEY, json_integer(node_mem));
	if (read_series)
		json_object_set_new(sbx, "read", json_pack("{s:o}", "ios_series", read_series));
	return json_pack("{s:s,s:o,s:{s:s,s:s,s:s},s:o}", "jobname", name, "job options", opts,
			 "engine", "asked", asked, "ran", ran, "reason",
			 strcmp(asked, ran) ? "io_uring_setup: EPERM (seccomp)" : "",
			 "storagebench", sbx);
}

/* A report with one result per (target, mean) pair of one workload and metric. */
static json_t *report(const char *workload, const char *metric, const char *unit, double cv,
		      long long n, const char *t1, double m1, const char *t2, double m2)
{
	json_t *res = json_array();
	const char *t[2] = {t1, t2};
	double m[2] = {m1, m2};
	for (int i = 0; i < 2; i++) {
		if (!t[i])
			continue;
		json_array_append_new(res, json_pack("{s:s,s:s,s:[s],s:{s:{s:s,s:f,s:f,s:I}}}",
						     "target", t[i], "workload", workload,
						     "headline", metric, "metrics", metric, "unit",
						     unit, "mean", m[i], "cv", cv, "n", n));
	}
	return json_pack("{s:s,s:o}", "name", "r", "results", res);
}

/* How many warnings of check (and target, if given) there are; -1 on error. */
static int count(const struct sb_validity *v, const json_t *rep, const char *check,
		 const char *target, char *evidence, size_t elen)
{
	json_t *w = sb_validity_warnings(v, rep);
	if (!w)
		return -1;
	int n = 0;
	size_t i;
	json_t *x;
	json_array_foreach(w, i, x)
	{
		const char *fix = json_string_value(json_object_get(x, "fix"));
		const char *msg = json_string_value(json_object_get(x, "message"));
		if (!fix || !*fix || !msg || !*msg)
			n = -100; /* every warning has its words and its fix */
		if (strcmp(json_string_value(json_object_get(x, "check")), check))
			continue;
		if (target && strcmp(json_string_value(json_object_get(x, "target")), target))
			continue;
		n++;
		if (evidence)
			snprintf(evidence, elen, "%s",
				 json_string_value(json_object_get(x, "evidence")));
	}
	json_decref(w);
	return n;
}

/* Adds one job to v (iteration it on target), consuming j; 0 or the error. */
static int add(struct sb_validity *v, const char *target, unsigned it, json_t *j)
{
	char err[128];
	int r = sb_validity_add(v, target, it, j, err, sizeof(err));
	json_decref(j);
	return r;
}

static int test_page_cache(void)
{
	static const char *const small[] = {"rw", "randread", "size", "1G", NULL};
	static const char *const direct[] = {"rw", "randread", "size", "1G", "direct", "1", NULL};
	static const char *const big[] = {"rw", "randread", "size", "64G", NULL};
	json_t *rep = report("rr", "read-iops", "IOPS", 0.01, 3, "a", 1000, "b", 1000);
	struct sb_validity *v = sb_validity_new(NULL);
	char ev[512] = "";
	CHECK(v && rep);
	CHECK_INT(add(v, "a", 0, job("rr", small, "io_uring", "io_uring", 16 * GIB, NULL)), 0);
	CHECK_INT(add(v, "b", 0, job("rr", direct, "io_uring", "io_uring", 16 * GIB, NULL)), 0);
	CHECK_INT(count(v, rep, SB_VALIDITY_PAGE_CACHE, "a", ev, sizeof(ev)), 1);
	CHECK(strstr(ev, "direct=0") && strstr(ev, "working set 1024MiB") && strstr(ev, "16GiB"));
	CHECK_INT(count(v, rep, SB_VALIDITY_PAGE_CACHE, "b", NULL, 0), 0);
	sb_validity_free(v);
	/* larger than memory; and memory unknown */
	v = sb_validity_new(NULL);
	CHECK(v);
	CHECK_INT(add(v, "a", 0, job("rr", big, "io_uring", "io_uring", 16 * GIB, NULL)), 0);
	CHECK_INT(add(v, "b", 0, job("rr", small, "io_uring", "io_uring", 0, NULL)), 0);
	CHECK_INT(count(v, rep, SB_VALIDITY_PAGE_CACHE, NULL, NULL, 0), 0);
	sb_validity_free(v);
	json_decref(rep);
	return T_PASS;
}

static int test_unwritten_read(void)
{
	static const char *const rd[] = {"rw",	   "randread", "filename", "/dev/xvda",
					 "direct", "1",	       NULL};
	static const char *const wr[] = {"rw",	   "write", "filename", "/dev/xvda",
					 "direct", "1",	    NULL};
	static const char *const file[] = {"rw", "read", "direct", "1", NULL};
	json_t *rep = report("rd", "read-iops", "IOPS", 0.01, 3, "a", 1000, "b", 1000);
	struct sb_validity *v = sb_validity_new(NULL);
	char ev[512] = "";
	CHECK(v && rep);
	/* a: read first; b: written first, in the same iteration */
	CHECK_INT(add(v, "a", 0, job("rd", rd, "psync", "psync", 0, NULL)), 0);
	CHECK_INT(add(v, "b", 0, job("wr", wr, "psync", "psync", 0, NULL)), 0);
	CHECK_INT(add(v, "b", 0, job("rd", rd, "psync", "psync", 0, NULL)), 0);
	CHECK_INT(count(v, rep, SB_VALIDITY_UNWRITTEN_READ, "a", ev, sizeof(ev)), 1);
	CHECK(strstr(ev, "/dev/xvda"));
	CHECK_INT(count(v, rep, SB_VALIDITY_UNWRITTEN_READ, "b", NULL, 0), 0);
	sb_validity_free(v);
	/* files are laid out before reads: no warning */
	v = sb_validity_new(NULL);
	CHECK(v);
	CHECK_INT(add(v, "a", 0, job("rd", file, "psync", "psync", 0, NULL)), 0);
	CHECK_INT(count(v, rep, SB_VALIDITY_UNWRITTEN_READ, NULL, NULL, 0), 0);
	sb_validity_free(v);
	json_decref(rep);
	return T_PASS;
}

static int test_high_cv_and_few_iterations(void)
{
	struct sb_validity *v = sb_validity_new(NULL);
	json_t *noisy = report("w", "write-iops", "IOPS", 0.23, 5, "a", 1000, NULL, 0);
	json_t *calm = report("w", "write-iops", "IOPS", 0.05, 5, "a", 1000, NULL, 0);
	json_t *two = report("w", "write-iops", "IOPS", 0.05, 2, "a", 1000, NULL, 0);
	char ev[512] = "";
	CHECK(v && noisy && calm && two);
	CHECK_INT(count(v, noisy, SB_VALIDITY_HIGH_CV, "a", ev, sizeof(ev)), 1);
	CHECK(strstr(ev, "CV 23.0%") && strstr(ev, "5 iterations"));
	CHECK_INT(count(v, calm, SB_VALIDITY_HIGH_CV, NULL, NULL, 0), 0);
	CHECK_INT(count(v, noisy, SB_VALIDITY_FEW_ITERATIONS, NULL, NULL, 0), 0);
	CHECK_INT(count(v, two, SB_VALIDITY_FEW_ITERATIONS, "a", ev, sizeof(ev)), 1);
	CHECK_STR(ev, "2 iterations");
	sb_validity_free(v);
	/* the threshold is an option */
	struct sb_validity_opts o = SB_VALIDITY_OPTS_INIT;
	o.cv_max = 0.30;
	v = sb_validity_new(&o);
	CHECK(v);
	CHECK_INT(count(v, noisy, SB_VALIDITY_HIGH_CV, NULL, NULL, 0), 0);
	sb_validity_free(v);
	json_decref(noisy);
	json_decref(calm);
	json_decref(two);
	return T_PASS;
}

static int test_no_ramp(void)
{
	static const char *const noramp[] = {"rw", "randread", "direct", "1", NULL};
	static const char *const ramp[] = {"rw",	"randread", "direct", "1",
					   "ramp_time", "5s",	    NULL};
	json_t *rep = report("rr", "read-iops", "IOPS", 0.01, 3, "a", 1000, "b", 1000);
	struct sb_validity *v = sb_validity_new(NULL);
	char ev[512] = "";
	CHECK(v && rep);
	/* a: the first second at 4x the steady rate, no ramp */
	CHECK_INT(add(v, "a", 1,
		      job("rr", noramp, "psync", "psync", 0,
			  json_pack("[i,i,i,i]", 4000, 1000, 1000, 1100))),
		  0);
	/* b: the same jump, with a ramp (not counted) */
	CHECK_INT(add(v, "b", 1,
		      job("rr", ramp, "psync", "psync", 0,
			  json_pack("[i,i,i,i]", 4000, 1000, 1000, 1100))),
		  0);
	CHECK_INT(count(v, rep, SB_VALIDITY_NO_RAMP, "a", ev, sizeof(ev)), 1);
	CHECK(strstr(ev, "iteration 1") && strstr(ev, "first second 4000"));
	CHECK_INT(count(v, rep, SB_VALIDITY_NO_RAMP, "b", NULL, 0), 0);
	sb_validity_free(v);
	/* no ramp, but a flat start: nothing to say */
	v = sb_validity_new(NULL);
	CHECK(v);
	CHECK_INT(add(v, "a", 1,
		      job("rr", noramp, "psync", "psync", 0,
			  json_pack("[i,i,i,i]", 1050, 1000, 1000, 1100))),
		  0);
	CHECK_INT(count(v, rep, SB_VALIDITY_NO_RAMP, NULL, NULL, 0), 0);
	sb_validity_free(v);
	json_decref(rep);
	return T_PASS;
}

static int test_engine_fallback_and_no_latency(void)
{
	static const char *const plain[] = {"rw", "randread", "direct", "1", NULL};
	static const char *const gtod[] = {"rw",	  "randread", "direct", "1",
					   "gtod_reduce", "1",	      NULL};
	json_t *rep = report("rr", "read-iops", "IOPS", 0.01, 3, "a", 1000, "b", 1000);
	struct sb_validity *v = sb_validity_new(NULL);
	char ev[512] = "";
	CHECK(v && rep);
	CHECK_INT(add(v, "a", 0, job("rr", gtod, "io_uring", "psync", 0, NULL)), 0);
	CHECK_INT(add(v, "b", 0, job("rr", plain, "io_uring", "io_uring", 0, NULL)), 0);
	CHECK_INT(count(v, rep, SB_VALIDITY_ENGINE_FALLBACK, "a", ev, sizeof(ev)), 1);
	CHECK(strstr(ev, "io_uring asked, psync ran") && strstr(ev, "seccomp"));
	CHECK_INT(count(v, rep, SB_VALIDITY_ENGINE_FALLBACK, "b", NULL, 0), 0);
	CHECK_INT(count(v, rep, SB_VALIDITY_NO_LATENCY, "a", NULL, 0), 1);
	CHECK_INT(count(v, rep, SB_VALIDITY_NO_LATENCY, "b", NULL, 0), 0);
	sb_validity_free(v);
	/* the default engine served by io_uring, and psync asked for: no fallback */
	v = sb_validity_new(NULL);
	CHECK(v);
	CHECK_INT(add(v, "a", 0, job("rr", plain, "default", "io_uring", 0, NULL)), 0);
	CHECK_INT(add(v, "b", 0, job("rr", plain, "psync", "psync", 0, NULL)), 0);
	CHECK_INT(count(v, rep, SB_VALIDITY_ENGINE_FALLBACK, NULL, NULL, 0), 0);
	sb_validity_free(v);
	json_decref(rep);
	return T_PASS;
}

static int test_implausible(void)
{
	struct sb_validity_opts o = SB_VALIDITY_OPTS_INIT;
	o.baseline = "hdd";
	struct sb_validity *v = sb_validity_new(&o);
	json_t *iops = report("rr", "read-iops", "IOPS", 0.01, 3, "hdd", 22500, "nvme", 800000);
	json_t *fine = report("rr", "read-iops", "IOPS", 0.01, 3, "hdd", 22500, "nvme", 150000);
	/* latency: lower is faster */
	json_t *lat = report("lat", "read-lat-mean", "ns", 0.01, 3, "hdd", 5e6, "nvme", 2e5);
	char ev[512] = "";
	CHECK(v && iops && fine && lat);
	CHECK_INT(count(v, iops, SB_VALIDITY_IMPLAUSIBLE, "nvme", ev, sizeof(ev)), 1);
	CHECK(strstr(ev, "baseline 'hdd'") && strstr(ev, "35.6x"));
	CHECK_INT(count(v, iops, SB_VALIDITY_IMPLAUSIBLE, "hdd", NULL, 0), 0);
	CHECK_INT(count(v, fine, SB_VALIDITY_IMPLAUSIBLE, NULL, NULL, 0), 0);
	CHECK_INT(count(v, lat, SB_VALIDITY_IMPLAUSIBLE, "nvme", NULL, 0), 1);
	sb_validity_free(v);
	/* no baseline: no check */
	v = sb_validity_new(NULL);
	CHECK(v);
	CHECK_INT(count(v, iops, SB_VALIDITY_IMPLAUSIBLE, NULL, NULL, 0), 0);
	sb_validity_free(v);
	json_decref(iops);
	json_decref(fine);
	json_decref(lat);
	return T_PASS;
}

static int test_annotate_and_bad_job(void)
{
	static const char *const gtod[] = {"gtod_reduce", "yes", NULL};
	json_t *rep = report("rr", "read-iops", "IOPS", 0.01, 3, "a", 1000, NULL, 0);
	struct sb_validity *v = sb_validity_new(NULL);
	char err[128] = "";
	CHECK(v && rep);
	json_t *bad = json_pack("{s:i}", "jobname", 3);
	CHECK_INT(sb_validity_add(v, "a", 0, bad, err, sizeof(err)), -EINVAL);
	json_decref(bad);
	CHECK(strstr(err, "jobname"));
	CHECK_INT(add(v, "a", 0, job("rr", gtod, "psync", "psync", 0, NULL)), 0);
	CHECK_INT(sb_validity_annotate(v, rep), 0);
	json_t *w = json_object_get(rep, "warnings");
	CHECK_INT(json_array_size(w), 1);
	CHECK_STR(json_string_value(json_object_get(json_array_get(w, 0), "check")),
		  SB_VALIDITY_NO_LATENCY);
	CHECK_STR(json_string_value(json_object_get(json_array_get(w, 0), "workload")), "rr");
	sb_validity_free(v);
	sb_validity_free(NULL);
	json_decref(rep);
	return T_PASS;
}

/* The sections in txt, md and csv; a malformed entry is left out, not fatal. */
static int test_rendered(void)
{
	json_t *rep = json_loads(
		"{\"name\":\"r\",\"results\":[],"
		"\"warnings\":[{\"check\":\"high-cv\",\"target\":\"fast\",\"workload\":\"rr\","
		"\"message\":\"the iterations disagree\",\"evidence\":\"CV 23%\",\"fix\":\"more\"},"
		"{\"check\":7}],"
		"\"lifecycle\":[{\"target\":\"fast\",\"phase\":\"provision\",\"unit\":\"ns\","
		"\"mean\":5e8,\"stddev\":1e7,\"p50\":5e8,\"p95\":5.2e8,\"p99\":5.3e8,\"min\":4.9e8,"
		"\"max\":5.3e8,\"n\":8},{\"target\":\"fast\",\"phase\":\"resize\",\"skipped\":"
		"\"no expansion\"},{\"target\":\"fast\",\"phase\":\"attach\",\"mean\":\"x\"}]}",
		0, NULL);
	char err[256] = "";
	CHECK(rep);
	char *txt = sb_report_render(rep, "txt", err, sizeof(err));
	char *md = sb_report_render(rep, "md", err, sizeof(err));
	char *csv = sb_report_render(rep, "csv", err, sizeof(err));
	json_decref(rep);
	int ok =
		txt && md && csv && strstr(txt, "1 validity warning:") &&
		strstr(txt, "fast / rr [high-cv]: the iterations disagree\n  evidence: CV 23%\n") &&
		strstr(txt, "fast provision: mean 500ms") && strstr(txt, "(n 8)") &&
		strstr(txt, "fast resize: skipped: no expansion") && !strstr(txt, "fast attach") &&
		strstr(md, "## Volume lifecycle") && strstr(md, "| fast | provision | 500ms |") &&
		strstr(md, "## Warnings") && strstr(md, "**fast / rr** (`high-cv`)") &&
		strstr(csv,
		       "fast,lifecycle,provision,ns,8,5e+08,1e+07,4.9e+08,5.3e+08,5e+08,0.02\n");
	if (!ok)
		fprintf(stderr, "%s\n%s\n%s\n", txt ? txt : err, md ? md : "", csv ? csv : "");
	free(txt);
	free(md);
	free(csv);
	CHECK(ok);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"validity/rendered", test_rendered},
	{"validity/page-cache", test_page_cache},
	{"validity/unwritten-read", test_unwritten_read},
	{"validity/high-cv-and-few-iterations", test_high_cv_and_few_iterations},
	{"validity/no-ramp", test_no_ramp},
	{"validity/engine-fallback-and-no-latency", test_engine_fallback_and_no_latency},
	{"validity/implausible", test_implausible},
	{"validity/annotate-and-bad-job", test_annotate_and_bad_job},
};

TEST_MAIN(cases)
