/* SPDX-License-Identifier: MIT */
#include "resultdoc.h"
#include "core/errfmt.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const sb_result_pct_keys[SB_RPCT_COUNT] = {"50.000000", "99.000000", "99.900000"};
const char *const sb_result_dir_keys[SB_RDIR_COUNT] = {SB_RK_READ, SB_RK_WRITE, SB_RK_TRIM,
						       SB_RK_SYNC, SB_RK_MIXED};

/* "path.key", or "key" when path is empty, into buf. */
static const char *join(char *buf, size_t len, const char *path, const char *key)
{
	snprintf(buf, len, "%s%s%s", path, *path ? "." : "", key);
	return buf;
}

/*
 * o[key] when present: a finite non-negative number into *out, *have set.
 * 0 (also when absent) or -EINVAL naming path.key.
 */
static int fig(const json_t *o, const char *path, const char *key, double *out, bool *have,
	       char *err, size_t errlen)
{
	const json_t *v = json_object_get(o, key);
	char p[160];
	*out = 0;
	if (have)
		*have = false;
	if (!v)
		return 0;
	if (!json_is_number(v))
		return sb_errf(err, errlen, -EINVAL, "%s: not a number",
			       join(p, sizeof(p), path, key));
	*out = json_number_value(v);
	if (!isfinite(*out) || *out < 0)
		return sb_errf(err, errlen, -EINVAL, "%s: %g is not a non-negative number",
			       join(p, sizeof(p), path, key), *out);
	if (have)
		*have = true;
	return 0;
}

/* A latency block o[key] (lat_ns, clat_ns) into *l. 0 or -EINVAL. */
static int lat_parse(const json_t *o, const char *path, const char *key, struct sb_result_lat *l,
		     char *err, size_t errlen)
{
	const json_t *b = json_object_get(o, key);
	char p[128];
	memset(l, 0, sizeof(*l));
	if (!b)
		return 0;
	join(p, sizeof(p), path, key);
	if (!json_is_object(b))
		return sb_errf(err, errlen, -EINVAL, "%s: not an object", p);
	l->have = true;
	if (fig(b, p, SB_RK_MIN, &l->min, NULL, err, errlen) ||
	    fig(b, p, SB_RK_MAX, &l->max, NULL, err, errlen) ||
	    fig(b, p, SB_RK_MEAN, &l->mean, &l->have_mean, err, errlen) ||
	    fig(b, p, SB_RK_STDDEV, &l->stddev, NULL, err, errlen) ||
	    fig(b, p, SB_RK_N, &l->n, &l->have_n, err, errlen))
		return -EINVAL;
	const json_t *pc = json_object_get(b, SB_RK_PERCENTILE);
	if (!pc)
		return 0;
	char pp[160];
	join(pp, sizeof(pp), p, SB_RK_PERCENTILE);
	if (!json_is_object(pc))
		return sb_errf(err, errlen, -EINVAL, "%s: not an object", pp);
	for (int k = 0; k < SB_RPCT_COUNT; k++)
		if (fig(pc, pp, sb_result_pct_keys[k], &l->pct[k], &l->have_pct[k], err, errlen))
			return -EINVAL;
	return 0;
}

/* Direction d of job into *dv. 0 or -EINVAL. */
static int dir_parse(const json_t *job, const char *path, enum sb_result_dir d,
		     struct sb_result_dirv *dv, char *err, size_t errlen)
{
	const json_t *o = json_object_get(job, sb_result_dir_keys[d]);
	char p[96];
	memset(dv, 0, sizeof(*dv));
	if (!o)
		return 0;
	join(p, sizeof(p), path, sb_result_dir_keys[d]);
	if (!json_is_object(o))
		return sb_errf(err, errlen, -EINVAL, "%s: not an object", p);
	dv->have = true;
	if (fig(o, p, SB_RK_TOTAL_IOS, &dv->total_ios, &dv->have_total_ios, err, errlen) ||
	    fig(o, p, SB_RK_IO_BYTES, &dv->io_bytes, &dv->have_io_bytes, err, errlen) ||
	    fig(o, p, SB_RK_IOPS, &dv->iops, &dv->have_iops, err, errlen) ||
	    fig(o, p, SB_RK_BW_BYTES, &dv->bw_bytes, &dv->have_bw_bytes, err, errlen) ||
	    fig(o, p, SB_RK_BW, &dv->bw, NULL, err, errlen) ||
	    fig(o, p, SB_RK_RUNTIME, &dv->runtime, &dv->have_runtime, err, errlen) ||
	    lat_parse(o, p, SB_RK_LAT_NS, &dv->lat, err, errlen) ||
	    lat_parse(o, p, SB_RK_CLAT_NS, &dv->clat, err, errlen))
		return -EINVAL;
	dv->runtime_is_int = json_is_integer(json_object_get(o, SB_RK_RUNTIME));
	return 0;
}

/* o[key] when present must be a string: into *out (borrowed). 0 or -EINVAL. */
static int opt_string(const json_t *o, const char *path, const char *key, const char **out,
		      char *err, size_t errlen)
{
	const json_t *v = json_object_get(o, key);
	char p[128];
	*out = NULL;
	if (!v)
		return 0;
	if (!json_is_string(v))
		return sb_errf(err, errlen, -EINVAL, "%s: not a string",
			       join(p, sizeof(p), path, key));
	*out = json_string_value(v);
	return 0;
}

int sb_result_job_parse(const json_t *job, const char *path, struct sb_result_job *out, char *err,
			size_t errlen)
{
	char p[128];
	memset(out, 0, sizeof(*out));
	if (!json_is_object(job))
		return sb_errf(err, errlen, -EINVAL, "%s: not an object", *path ? path : "job");
	out->json = job;
	const json_t *jn = json_object_get(job, SB_RK_JOBNAME);
	if (!json_is_string(jn) || !json_string_value(jn)[0])
		return sb_errf(err, errlen, -EINVAL, "%s: missing or not a string",
			       join(p, sizeof(p), path, SB_RK_JOBNAME));
	out->name = json_string_value(jn);
	const json_t *e = json_object_get(job, SB_RK_ERROR);
	if (e && !json_is_integer(e))
		return sb_errf(err, errlen, -EINVAL, "%s: not an integer",
			       join(p, sizeof(p), path, SB_RK_ERROR));
	out->error = e ? (long long)json_integer_value(e) : 0;
	const json_t *eng = json_object_get(job, SB_RK_ENGINE);
	join(p, sizeof(p), path, SB_RK_ENGINE);
	if (eng && !json_is_object(eng))
		return sb_errf(err, errlen, -EINVAL, "%s: not an object", p);
	if (opt_string(eng, p, SB_RK_ENGINE_ASKED, &out->engine_asked, err, errlen) ||
	    opt_string(eng, p, SB_RK_ENGINE_RAN, &out->engine_ran, err, errlen) ||
	    opt_string(eng, p, SB_RK_ENGINE_REASON, &out->engine_reason, err, errlen))
		return -EINVAL;
	for (int d = 0; d < SB_RDIR_COUNT; d++)
		if (dir_parse(job, path, (enum sb_result_dir)d, &out->dir[d], err, errlen))
			return -EINVAL;
	return 0;
}

int sb_result_parse(const json_t *doc, size_t max_jobs, struct sb_result *out, char *err,
		    size_t errlen)
{
	const json_t *jobs = json_object_get(doc, SB_RK_JOBS);
	memset(out, 0, sizeof(*out));
	if (!json_is_object(doc) || !json_is_array(jobs))
		return sb_errf(err, errlen, -EINVAL, "%s: missing or not a list", SB_RK_JOBS);
	size_t n = json_array_size(jobs);
	if (max_jobs && n > max_jobs)
		return sb_errf(err, errlen, -E2BIG, "%s: %zu, more than %zu", SB_RK_JOBS, n,
			       max_jobs);
	if (!n)
		return 0;
	out->jobs = calloc(n, sizeof(*out->jobs));
	if (!out->jobs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		char p[48];
		snprintf(p, sizeof(p), "%s[%zu]", SB_RK_JOBS, i);
		if (sb_result_job_parse(json_array_get(jobs, i), p, &out->jobs[i], err, errlen))
			return -EINVAL;
		out->njobs = i + 1;
	}
	return 0;
}

void sb_result_release(struct sb_result *r)
{
	if (!r)
		return;
	free(r->jobs);
	r->jobs = NULL;
	r->njobs = 0;
}

const json_t *sb_result_job_extra(const json_t *job, enum sb_result_dir d)
{
	if ((unsigned)d >= SB_RDIR_COUNT)
		return NULL;
	return json_object_get(json_object_get(job, SB_RK_SB), sb_result_dir_keys[d]);
}
