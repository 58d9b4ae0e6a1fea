/* SPDX-License-Identifier: MIT */
/*
 * `storagebench-runner pod s3 ...`: the S3 side of a runner pod (an
 * object-store target of a BenchmarkRun, docs/s3.md). pod.c does the pod's
 * work (environment, iterations, result ConfigMaps); this file turns the
 * arguments into workloads and runs them for one iteration.
 *
 * Arguments: warp flags common to every workload, then each workload as
 * "--label NAME" followed by its own flags ("--benchmark get --obj.size
 * 1MiB ..."). Keys come from the environment (the Secret, via env).
 */
#include "core/log.h"
#include "result/resultdoc.h"
#include "runner/s3/s3.h"
#include "runner/s3/pod.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void sb_s3_pod_release(struct sb_s3_pod *p)
{
	if (p->w)
		for (size_t i = 0; i < p->n; i++)
			explicit_bzero(p->w[i].secret_key, sizeof(p->w[i].secret_key));
	free(p->w);
	p->w = NULL;
	p->n = 0;
}

int sb_s3_pod_parse(int argc, char **argv, struct sb_s3_pod *p, char *err, size_t errlen)
{
	struct sb_s3_opts base, *cur = &base;
	memset(p, 0, sizeof(*p));
	sb_s3_opts_init(&base);
	const char *ak = getenv("AWS_ACCESS_KEY_ID"), *sk = getenv("AWS_SECRET_ACCESS_KEY");
	if (!ak || !*ak || !sk || !*sk || strlen(ak) >= sizeof(base.access_key) ||
	    strlen(sk) >= sizeof(base.secret_key)) {
		snprintf(err, errlen,
			 "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set (the object "
			 "store's Secret)");
		return -EINVAL;
	}
	memcpy(base.access_key, ak, strlen(ak) + 1);
	memcpy(base.secret_key, sk, strlen(sk) + 1);
	/* a runner pod's objects stay small enough for its memory */
	base.objects = 100;
	base.duration_us = 10ull * 1000000;
	base.concurrent = 4;
	base.obj_size = 64 << 10;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strncmp(a, "--", 2) || !a[2]) {
			snprintf(err, errlen, "'%s': expected a --flag", a);
			goto bad;
		}
		const char *name = a + 2, *eq = strchr(name, '='), *val;
		char nbuf[64];
		size_t nl = eq ? (size_t)(eq - name) : strlen(name);
		if (nl >= sizeof(nbuf)) {
			snprintf(err, errlen, "%s: unknown option", a);
			goto bad;
		}
		memcpy(nbuf, name, nl);
		nbuf[nl] = '\0';
		bool boolean = sb_s3_opt_is_bool(nbuf);
		if (eq)
			val = eq + 1;
		else if (boolean)
			val = NULL;
		else if (i + 1 < argc)
			val = argv[++i];
		else {
			snprintf(err, errlen, "--%s: needs a value", nbuf);
			goto bad;
		}
		if (!strcmp(nbuf, "label")) {
			struct sb_s3_opts *w = realloc(p->w, (p->n + 1) * sizeof(*w));
			if (!w) {
				sb_s3_pod_release(p);
				return -ENOMEM;
			}
			p->w = w;
			cur = &p->w[p->n++];
			*cur = base;
		}
		if (sb_s3_opt_set(cur, "", nbuf, val, err, errlen))
			goto bad;
	}
	explicit_bzero(base.secret_key, sizeof(base.secret_key));
	if (!p->n) {
		snprintf(err, errlen, "no workload (--label NAME --benchmark ...)");
		goto bad;
	}
	for (size_t i = 0; i < p->n; i++) {
		char e2[512];
		if (sb_s3_opts_check(&p->w[i], e2, sizeof(e2))) {
			snprintf(err, errlen, "workload '%s': %s", p->w[i].label, e2);
			goto bad;
		}
	}
	return 0;
bad:
	explicit_bzero(base.secret_key, sizeof(base.secret_key));
	sb_s3_pod_release(p);
	return -EINVAL;
}

int sb_s3_pod_iteration(const struct sb_s3_pod *p, FILE *text, json_t **out, char *err,
			size_t errlen)
{
	json_t *doc = NULL, *jobs = json_array(), *stores = json_array();
	int ret = 0;
	*out = NULL;
	if (!jobs || !stores) {
		ret = -ENOMEM;
		goto done;
	}
	for (size_t i = 0; i < p->n; i++) {
		struct sb_s3_result r;
		char e2[1024] = "";
		sb_info("Started object workload", "workload=%s benchmark=%s", p->w[i].label,
			sb_s3_bench_name(p->w[i].bench));
		int rr = sb_s3_run(&p->w[i], &r, e2, sizeof(e2));
		if (rr) {
			/* refused: unreachable, 403, TLS, bucket not empty */
			snprintf(err, errlen, "workload '%s': %s", p->w[i].label,
				 e2[0] ? e2 : strerror(-rr));
			sb_s3_result_release(&r);
			ret = rr;
			goto done;
		}
		if (text) {
			fprintf(text, "--- %s\n", p->w[i].label);
			sb_s3_print_text(text, &p->w[i], &r);
		}
		json_t *d = sb_s3_json(&p->w[i], &r);
		sb_s3_result_release(&r);
		if (!d) {
			ret = -ENOMEM;
			goto done;
		}
		size_t k;
		json_t *j;
		json_array_foreach(json_object_get(d, SB_RK_JOBS), k, j)
		{
			if (json_array_append(jobs, j))
				ret = -ENOMEM;
		}
		if (json_array_append(stores, json_object_get(d, "s3")))
			ret = -ENOMEM;
		json_decref(d);
		if (ret)
			goto done;
	}
	doc = json_pack("{s:s,s:O,s:O}", "fio version", "storagebench-runner " SB_VERSION,
			SB_RK_JOBS, jobs, "s3", stores);
	if (!doc)
		ret = -ENOMEM;
	*out = doc;
done:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	json_decref(jobs);
	json_decref(stores);
	return ret;
}
