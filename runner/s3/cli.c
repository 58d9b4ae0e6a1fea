/* SPDX-License-Identifier: MIT */
/*
 * `storagebench-runner s3 [flags] BENCHMARK` and
 * `storagebench-runner s3 [flags] run FILE.yaml` (warp's run file), with
 * --parse-only to check either without touching the endpoint.
 *
 * Exit status as the rest of the runner: 0 the run completed with no failed
 * request, 1 it ran but requests failed (counted in the output) or the
 * endpoint refused the run (unreachable, 403, TLS, bucket not empty), 2 a
 * usage error.
 */
#include "stats/aggregate.h"
#include "core/log.h"
#include "report/report.h"
#include "runner/s3/s3.h"
#include "runner/mode/stop.h"

#include "core/labels.h"
#include "result/resultdoc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: storagebench-runner s3 [flags] get|put|delete|stat|list|mixed\n"
		"       storagebench-runner s3 [flags] run FILE.yaml    (warp's run file)\n"
		"       storagebench-runner s3 --parse-only [flags] [run FILE.yaml | BENCHMARK]\n"
		"\n"
		"warp's flags (--flag VALUE or --flag=VALUE):\n"
		"  --host HOST[:PORT][,HOST[:PORT]...]  the S3 endpoint(s); requests take them in "
		"turn\n"
		"  --access-key, --secret-key   or AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY\n"
		"  --region NAME          SigV4 region (default us-east-1)\n"
		"  --tls                  https (the certificate is verified)\n"
		"  --insecure             do not verify the TLS certificate\n"
		"  --cacert FILE          CA bundle for --tls\n"
		"  --lookup path|dns      path-style (default) or virtual-host-style addressing\n"
		"  --bucket NAME          an existing empty bucket, or a new one to create\n"
		"                         (default: a new bucket per run)\n"
		"  --obj.size SIZE        object size (10MiB; KB=1000, KiB=1024), or MIN-MAX\n"
		"                         (ours: uniform in it)\n"
		"  --obj.randsize         warp's random sizes: log2 scale up to --obj.size\n"
		"                         (from MIN with MIN-MAX), mean about 0.18 x it\n"
		"  --autoterm             end when the throughput is stable (warp's rule)\n"
		"  --autoterm.dur D       ... for this long (15s)\n"
		"  --autoterm.pct P       ... within this percentage (7.5)\n"
		"  --objects N            objects prepared for get/stat/delete/list/mixed (2500)\n"
		"  --concurrent N         parallel requests (20)\n"
		"  --duration D           how long (5m; 30s, 1m30s)\n"
		"  --part.size SIZE       multipart part size (5MiB)\n"
		"  --multipart-threshold SIZE   objects this large are put in parts (64MiB)\n"
		"  --get-distrib, --stat-distrib, --put-distrib, --delete-distrib PCT\n"
		"                         mixed's distribution (45, 30, 15, 10)\n"
		"  --max-keys N           list page size (1000)\n"
		"  --batch N              delete: keys per multi-object delete request (100;\n"
		"                         1: one DELETE per object)\n"
		"  --prefix P             object name prefix\n"
		"  --keep-data (--noclear) keep the objects and the bucket\n"
		"  --disable-sha256-payload  sign UNSIGNED-PAYLOAD (= --payload-hash=unsigned)\n"
		"Ours: --payload-hash=auto|sha256|unsigned (x-amz-content-sha256 of a PUT;\n"
		"auto: UNSIGNED-PAYLOAD over https, the SHA-256 over http),\n"
		"--output-format=normal|json, --output=FILE, --label=NAME (the job name\n"
		"in JSON), --timeout=D (per request, 60s), --log-level=LEVEL, --parse-only,\n"
		"--iterations=N (then mean, stddev... per operation: "
		"--report-format=txt|md|csv|json,\n"
		"--target=NAME what the summary calls the endpoint, default the host).\n"
		"Exit status: 0 success, 1 failed requests or a refused run, 2 usage error.\n");
}

/* The flags that take no value: warp's booleans, and ours. */
static bool is_bool_flag(const char *n)
{
	return sb_s3_opt_is_bool(n) || !strcmp(n, "parse-only") || !strcmp(n, "help");
}

/* What the command line and the run file set. */
struct s3_cli {
	struct sb_s3_opts o;
	char err[1024];
	const char *yaml, *output, *format, *bench, *report_format, *target;
	bool parse_only;
	unsigned iterations;
};

/* The keys from the environment (flags and the run file override them). */
static void s3_env_keys(struct sb_s3_opts *o)
{
	const char *ak = getenv("AWS_ACCESS_KEY_ID"), *sk = getenv("AWS_SECRET_ACCESS_KEY");
	if (!ak)
		ak = getenv("WARP_ACCESS_KEY");
	if (!sk)
		sk = getenv("WARP_SECRET_KEY");
	if (ak && *ak && strlen(ak) < sizeof(o->access_key))
		memcpy(o->access_key, ak, strlen(ak) + 1);
	if (sk && *sk && strlen(sk) < sizeof(o->secret_key))
		memcpy(o->secret_key, sk, strlen(sk) + 1);
}

/* The commands and flags return -1 to go on, or the exit status. */
#define S3_GO_ON (-1)

/* Flag --name (value val, NULL for a boolean flag) of the second pass. */
static int s3_flag(struct s3_cli *c, const char *name, const char *val)
{
	if (!strcmp(name, "help") || !strcmp(name, "h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(name, "parse-only")) {
		c->parse_only = true;
	} else if (!strcmp(name, "output")) {
		c->output = val;
	} else if (!strcmp(name, "output-format")) {
		c->format = val ? val : "";
		if (strcmp(c->format, "normal") && strcmp(c->format, "json")) {
			fprintf(stderr,
				"storagebench-runner s3: --output-format: '%s' is "
				"not one of normal, json\n",
				c->format);
			return 2;
		}
	} else if (!strcmp(name, "iterations")) {
		char *end;
		unsigned long n = val ? strtoul(val, &end, 10) : 0;
		if (!val || *end || n < 1 || n > 1000) {
			fprintf(stderr,
				"storagebench-runner s3: --iterations: '%s' is not "
				"a "
				"count from 1 to 1000\n",
				val ? val : "");
			return 2;
		}
		c->iterations = (unsigned)n;
	} else if (!strcmp(name, "report-format")) {
		c->report_format = val ? val : "";
		if (strcmp(c->report_format, "txt") && strcmp(c->report_format, "md") &&
		    strcmp(c->report_format, "csv") && strcmp(c->report_format, "json")) {
			fprintf(stderr,
				"storagebench-runner s3: --report-format: '%s' is "
				"not one of txt, md, csv, json\n",
				c->report_format);
			return 2;
		}
	} else if (!strcmp(name, "target")) {
		c->target = val;
	} else if (!strcmp(name, "log-level")) {
		enum sb_log_level lvl;
		if (!val || sb_log_parse_level(val, &lvl)) {
			fprintf(stderr,
				"storagebench-runner s3: --log-level: '%s' is not "
				"one of debug, info, warn, error, off\n",
				val ? val : "");
			return 2;
		}
		sb_log_set_level(lvl);
	} else if (sb_s3_opt_set(&c->o, "", name, val, c->err, sizeof(c->err))) {
		fprintf(stderr, "storagebench-runner s3: %s\n", c->err);
		return 2;
	}
	return S3_GO_ON;
}

/* A word that is not a flag at argv[*i]: "run FILE.yaml" or the benchmark. */
static int s3_word(struct s3_cli *c, int pass, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	if (!strcmp(a, "run")) {
		if (*i + 1 >= argc) {
			fprintf(stderr, "storagebench-runner s3: run: needs a FILE.yaml\n");
			return 2;
		}
		c->yaml = argv[++*i];
		if (pass == 0) {
			int r = sb_s3_yaml_load(&c->o, c->yaml, c->err, sizeof(c->err));
			if (r) {
				fprintf(stderr, "storagebench-runner s3: %s\n",
					r == -ENOMEM ? "out of memory" : c->err);
				return r == -ENOMEM ? 1 : 2;
			}
		}
		return S3_GO_ON;
	}
	if (pass == 0)
		return S3_GO_ON;
	if (c->bench) {
		fprintf(stderr,
			"storagebench-runner s3: '%s': one benchmark per "
			"run ('%s' given already)\n",
			a, c->bench);
		return 2;
	}
	c->bench = a;
	if (sb_s3_opt_set(&c->o, "", "benchmark", a, c->err, sizeof(c->err))) {
		fprintf(stderr, "storagebench-runner s3: %s\n", c->err);
		return 2;
	}
	return S3_GO_ON;
}

/* The arguments in two passes: the run file first, then the flags (they override it). */
static int s3_args(struct s3_cli *c, int argc, char **argv)
{
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 1; i < argc; i++) {
			const char *a = argv[i];
			if (a[0] != '-' || a[1] == '\0') {
				int r = s3_word(c, pass, argc, argv, &i);
				if (r != S3_GO_ON)
					return r;
				continue;
			}
			const char *name = a + (a[1] == '-' ? 2 : 1);
			char nbuf[128];
			const char *eq = strchr(name, '=');
			const char *val = NULL;
			size_t nl = eq ? (size_t)(eq - name) : strlen(name);
			if (nl >= sizeof(nbuf)) {
				fprintf(stderr, "storagebench-runner s3: %s: unknown option\n", a);
				return 2;
			}
			memcpy(nbuf, name, nl);
			nbuf[nl] = '\0';
			if (eq)
				val = eq + 1;
			else if (!is_bool_flag(nbuf) && i + 1 < argc)
				val = argv[++i];
			else if (!is_bool_flag(nbuf)) {
				fprintf(stderr, "storagebench-runner s3: --%s: needs a value\n",
					nbuf);
				return 2;
			}
			if (pass == 0)
				continue;
			int r = s3_flag(c, nbuf, val);
			if (r != S3_GO_ON)
				return r;
		}
	}
	return S3_GO_ON;
}

/* The iterations' results: each run's document, the aggregate over them. */
struct s3_runs {
	struct sb_agg *agg;
	json_t *runs, *single;
	unsigned complete; /* iterations not interrupted by a signal */
	int status;
};

/* Runs iteration it and prints it; false when no more iterations are to run. */
static bool s3_iteration(struct s3_cli *c, struct s3_runs *s, FILE *f, bool json, unsigned it)
{
	struct sb_s3_result r;
	if (c->iterations > 1)
		sb_info(SB_LOG_STARTED_ITERATION, SB_LOG_ITERATION_FIELD "%u of=%u", it,
			c->iterations);
	int ret = sb_s3_run(&c->o, &r, c->err, sizeof(c->err));
	if (ret) {
		fprintf(stderr, "storagebench-runner s3: %s\n",
			c->err[0] ? c->err : strerror(-ret));
		s->status = 1;
	}
	bool any = false;
	for (int i = 0; i < SB_S3_NOPS; i++) {
		any = any || r.op[i].requests;
		if (r.op[i].errors)
			s->status = 1;
	}
	/* what ran is printed also when the run stopped early */
	json_t *doc = sb_s3_json(&c->o, &r);
	int sig = sb_stop_signal();
	if (!doc)
		s->status = 1;
	if (doc && ret)
		json_object_set_new(doc, "error", json_string(c->err));
	if (sig) {
		/* an interrupted iteration is printed, marked, and not summarised */
		s->status = SB_EXIT_INTERRUPTED(sig);
		if (doc)
			json_object_set_new(doc, "interrupted", json_string(sb_stop_name(sig)));
		if (!json)
			fprintf(f, "=== interrupted by %s: partial results\n", sb_stop_name(sig));
	}
	if (!json && (any || !ret)) {
		if (c->iterations > 1)
			fprintf(f, "%s=== iteration %u of %u\n", it > 1 ? "\n" : "", it,
				c->iterations);
		sb_s3_print_text(f, &c->o, &r);
	}
	sb_s3_result_release(&r);
	size_t i;
	json_t *j;
	json_array_foreach(doc && !sig ? json_object_get(doc, SB_RK_JOBS) : NULL, i, j)
	{
		char aerr[256];
		if (s->agg && sb_agg_add(s->agg, c->target, it, j, aerr, sizeof(aerr))) {
			fprintf(stderr, "storagebench-runner s3: iteration %u: %s\n", it, aerr);
			s->status = 1;
		}
	}
	if (s->runs && doc)
		json_array_append_new(s->runs, doc);
	else if (doc)
		s->single = doc;
	if (!sig)
		s->complete++;
	/* refused (unreachable, 403, bucket not empty): will not change */
	return !ret && !sig;
}

/* The documents (--output-format json) or the summary over the iterations. */
static void s3_output(struct s3_cli *c, struct s3_runs *s, FILE *f, bool json)
{
	json_t *report = NULL;
	if (s->agg && s->complete) {
		char aerr[512] = "";
		if (sb_agg_report_checked(s->agg, c->target, &report, aerr, sizeof(aerr))) {
			fprintf(stderr, "storagebench-runner s3: no report: %s\n", aerr);
			s->status = 1;
		}
	}
	if (json) {
		json_t *doc = s->single;
		if (s->runs)
			doc = json_pack("{s:s,s:I,s:O,s:O}", "storagebench version", SB_VERSION,
					"iterations", (json_int_t)c->iterations, "runs", s->runs,
					"report", report ? report : json_null());
		if (!doc || json_dumpf(doc, f, JSON_INDENT(2)) || fputc('\n', f) == EOF)
			s->status = 1;
		if (doc != s->single)
			json_decref(doc);
	} else if (report) {
		char rerr[256];
		char *txt = sb_report_render(report, c->report_format, rerr, sizeof(rerr));
		if (!txt) {
			fprintf(stderr, "storagebench-runner s3: summary: %s\n", rerr);
			s->status = 1;
		} else {
			fprintf(f, "\n=== summary over %u iterations\n%s", s->complete, txt);
			free(txt);
		}
	}
	json_decref(report);
}

/* Runs the iterations against the checked options; the exit status. */
static int s3_run_all(struct s3_cli *c)
{
	FILE *f = stdout;
	if (c->output && !(f = fopen(c->output, "w"))) {
		fprintf(stderr, "storagebench-runner s3: --output: %s: %s\n", c->output,
			strerror(errno));
		return 2;
	}
	bool json = !strcmp(c->format, "json");
	struct s3_runs s = {0};
	unsigned n = c->iterations;
	s.agg = n > 1 ? sb_agg_new() : NULL;
	s.runs = n > 1 ? json_array() : NULL;
	if (n > 1 && (!s.agg || !s.runs))
		s.status = 1;
	for (unsigned it = 1; it <= n && (n == 1 || (s.agg && s.runs)); it++)
		if (!s3_iteration(c, &s, f, json, it))
			break;
	s3_output(c, &s, f, json);
	json_decref(s.single);
	json_decref(s.runs);
	sb_agg_free(s.agg);
	if (f != stdout && fclose(f))
		s.status = 1;
	return s.status;
}

int sb_s3_main(int argc, char **argv)
{
	struct s3_cli c = {.format = "normal", .report_format = "txt", .iterations = 1};

	sb_s3_opts_init(&c.o);
	s3_env_keys(&c.o);
	int r = s3_args(&c, argc, argv);
	if (r != S3_GO_ON)
		return r;
	if (sb_s3_opts_check(&c.o, c.err, sizeof(c.err))) {
		fprintf(stderr, "storagebench-runner s3: %s%s%s\n", c.yaml ? c.yaml : "",
			c.yaml ? ": " : "", c.err);
		return 2;
	}
	if (c.parse_only) {
		fprintf(stderr,
			"storagebench-runner s3: %s benchmark parsed, every option understood\n",
			sb_s3_bench_name(c.o.bench));
		return 0;
	}
	if (!c.o.access_key[0] || !c.o.secret_key[0]) {
		fprintf(stderr,
			"storagebench-runner s3: no credentials: --access-key and --secret-key, or "
			"AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment\n");
		return 2;
	}
	if (!c.target || !*c.target)
		c.target = c.o.host;
	if (curl_global_init(CURL_GLOBAL_ALL)) {
		fprintf(stderr, "storagebench-runner s3: libcurl failed to initialise\n");
		return 1;
	}
	int status = s3_run_all(&c);
	explicit_bzero(c.o.secret_key, sizeof(c.o.secret_key));
	curl_global_cleanup();
	return status;
}
