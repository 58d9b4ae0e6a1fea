/* SPDX-License-Identifier: MIT */
/*
 * Validity checks (see validity.h): facts gathered per target x workload
 * from the job objects, warnings from the facts and the report's statistics.
 */
#include "validity.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "result/resultdoc.h"
#include "stats/stats.h"
#include "core/units.h"

/* What the job objects of one target x workload said, over its iterations. */
struct facts {
	char *target;
	char *workload;
	bool buffered;
	uint64_t working_set; /* bytes, largest seen; 0 unknown */
	uint64_t node_mem;    /* bytes, smallest seen; 0 unknown */
	bool unwritten;	      /* a read-only job on a device not written before it */
	char device[128];
	bool ramp_jump;
	double first, median; /* of the iteration with the largest jump */
	unsigned jump_iteration;
	bool fallback;
	char asked[32], ran[32], reason[256];
	bool gtod_reduce;
};

/* Devices a target's iteration wrote so far (for unwritten-read). */
struct written {
	char *target;
	unsigned iteration;
	char *device;
};

struct sb_validity {
	struct sb_validity_opts o;
	char *baseline;
	struct facts *f;
	size_t nf, capf;
	struct written *w;
	size_t nw, capw;
};

struct sb_validity *sb_validity_new(const struct sb_validity_opts *o)
{
	static const struct sb_validity_opts def = SB_VALIDITY_OPTS_INIT;
	struct sb_validity *v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->o = o ? *o : def;
	if (v->o.baseline && !(v->baseline = strdup(v->o.baseline))) {
		free(v);
		return NULL;
	}
	v->o.baseline = v->baseline;
	return v;
}

void sb_validity_free(struct sb_validity *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->nf; i++) {
		free(v->f[i].target);
		free(v->f[i].workload);
	}
	for (size_t i = 0; i < v->nw; i++) {
		free(v->w[i].target);
		free(v->w[i].device);
	}
	free(v->f);
	free(v->w);
	free(v->baseline);
	free(v);
}

static struct facts *facts_get(struct sb_validity *v, const char *target, const char *workload)
{
	for (size_t i = 0; i < v->nf; i++)
		if (!strcmp(v->f[i].target, target) && !strcmp(v->f[i].workload, workload))
			return &v->f[i];
	if (v->nf == v->capf) {
		size_t cap = v->capf ? v->capf * 2 : 8;
		struct facts *n = realloc(v->f, cap * sizeof(*n));
		if (!n)
			return NULL;
		v->f = n;
		v->capf = cap;
	}
	struct facts *f = &v->f[v->nf];
	memset(f, 0, sizeof(*f));
	f->target = strdup(target);
	f->workload = strdup(workload);
	if (!f->target || !f->workload) {
		free(f->target);
		free(f->workload);
		return NULL;
	}
	v->nf++;
	return f;
}

static bool was_written(const struct sb_validity *v, const char *target, unsigned it,
			const char *dev)
{
	for (size_t i = 0; i < v->nw; i++)
		if (v->w[i].iteration == it && !strcmp(v->w[i].target, target) &&
		    !strcmp(v->w[i].device, dev))
			return true;
	return false;
}

static int mark_written(struct sb_validity *v, const char *target, unsigned it, const char *dev)
{
	if (was_written(v, target, it, dev))
		return 0;
	if (v->nw == v->capw) {
		size_t cap = v->capw ? v->capw * 2 : 8;
		struct written *n = realloc(v->w, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		v->w = n;
		v->capw = cap;
	}
	struct written *w = &v->w[v->nw];
	w->target = strdup(target);
	w->device = strdup(dev);
	w->iteration = it;
	if (!w->target || !w->device) {
		free(w->target);
		free(w->device);
		return -ENOMEM;
	}
	v->nw++;
	return 0;
}

/* A job option's string value (borrowed), or NULL. */
static const char *opt(const json_t *job, const char *key)
{
	const json_t *s = json_object_get(json_object_get(job, SB_RK_JOB_OPTIONS), key);
	return json_is_string(s) ? json_string_value(s) : NULL;
}

static bool opt_true(const json_t *job, const char *key)
{
	const char *s = opt(job, key);
	bool b = false;
	return s && sb_parse_bool(s, &b) == 0 && b;
}

/* rw without its ":N" suffix: does it read, does it write? */
static void rw_dirs(const char *rw, bool *reads, bool *writes)
{
	char m[32];
	snprintf(m, sizeof(m), "%s", rw ? rw : "read");
	char *colon = strchr(m, ':');
	if (colon)
		*colon = '\0';
	*reads = !strcmp(m, "read") || !strcmp(m, "randread") || !strcmp(m, "rw") ||
		 !strcmp(m, "readwrite") || !strcmp(m, "randrw");
	*writes = !strcmp(m, "write") || !strcmp(m, "randwrite") || !strcmp(m, "rw") ||
		  !strcmp(m, "readwrite") || !strcmp(m, "randrw") || !strcmp(m, "trimwrite");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The first interval's rate and the median interval's of a series (>= 3 intervals). */
static bool series_first_median(const json_t *series, double *first, double *median)
{
	size_t n = json_array_size(series);
	if (n < 3)
		return false;
	double *v = malloc(n * sizeof(*v));
	if (!v)
		return false;
	for (size_t i = 0; i < n; i++)
		v[i] = json_number_value(json_array_get(series, i));
	*first = v[0];
	qsort(v, n, sizeof(*v), cmp_double);
	*median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	free(v);
	return *median > 0;
}

static void check_ramp(struct sb_validity *v, struct facts *f, const json_t *job, unsigned it)
{
	const char *ramp = opt(job, "ramp_time");
	uint64_t us = 0;
	if (ramp && (sb_parse_duration_us(ramp, 1000000, &us) || us > 0))
		return;
	static const enum sb_result_dir dirs[] = {SB_RDIR_READ, SB_RDIR_WRITE};
	for (int d = 0; d < 2; d++) {
		double first, median;
		const json_t *s =
			json_object_get(sb_result_job_extra(job, dirs[d]), SB_RK_SB_IOS_SERIES);
		if (!series_first_median(s, &first, &median))
			continue;
		double jump = fabs(first - median) / median;
		double was = f->ramp_jump ? fabs(f->first - f->median) / f->median : 0;
		if (jump > v->o.ramp_jump && jump > was) {
			f->ramp_jump = true;
			f->first = first;
			f->median = median;
			f->jump_iteration = it;
		}
	}
}

int sb_validity_add(struct sb_validity *v, const char *target, unsigned iteration,
		    const json_t *job, char *err, size_t errlen)
{
	struct sb_result_job rj;
	if (sb_result_job_parse(job, "", &rj, err, errlen))
		return -EINVAL;
	const char *name = rj.name;
	struct facts *f = facts_get(v, target, name);
	if (!f)
		return -ENOMEM;

	/* page-cache */
	if (!opt_true(job, "direct")) {
		f->buffered = true;
		uint64_t size = 0, nj = 1;
		const char *s = opt(job, "size");
		if (s && sb_parse_size(s, 1024, &size) == 0) {
			const char *n = opt(job, "numjobs");
			if (n && (sb_parse_u64(n, &nj) || nj == 0))
				nj = 1;
			if (!opt(job, "filename") && size <= UINT64_MAX / nj)
				size *= nj; /* each clone its own file */
			if (size > f->working_set)
				f->working_set = size;
		}
	}
	const json_t *mem =
		json_object_get(json_object_get(job, SB_RK_SB), SB_VALIDITY_NODE_MEM_KEY);
	if (json_is_integer(mem) && json_integer_value(mem) > 0) {
		uint64_t m = (uint64_t)json_integer_value(mem);
		if (!f->node_mem || m < f->node_mem)
			f->node_mem = m;
	}

	/* unwritten-read: devices only (files are laid out before reads) */
	const char *dev = opt(job, "filename");
	if (dev && !strncmp(dev, "/dev/", 5)) {
		bool reads, writes;
		rw_dirs(opt(job, "rw") ? opt(job, "rw") : opt(job, "readwrite"), &reads, &writes);
		if (writes) {
			if (mark_written(v, target, iteration, dev))
				return -ENOMEM;
		} else if (reads && !opt_true(job, "verify_only") &&
			   !was_written(v, target, iteration, dev)) {
			f->unwritten = true;
			snprintf(f->device, sizeof(f->device), "%s", dev);
		}
	}

	check_ramp(v, f, job, iteration);

	/* engine-fallback */
	const char *asked = rj.engine_asked, *ran = rj.engine_ran, *why = rj.engine_reason;
	/* "default" and libaio are served by io_uring when it works: only psync is a fallback */
	if (asked && ran && *asked && !strcmp(ran, "psync") && strcmp(asked, "psync") &&
	    (strcmp(asked, "default") || (why && strstr(why, "fell back")))) {
		f->fallback = true;
		snprintf(f->asked, sizeof(f->asked), "%s", asked);
		snprintf(f->ran, sizeof(f->ran), "%s", ran);
		snprintf(f->reason, sizeof(f->reason), "%s", why ? why : "");
	}

	if (opt_true(job, "gtod_reduce"))
		f->gtod_reduce = true;
	return 0;
}

/* Appends one warning; false on ENOMEM. */
static bool warn(json_t *out, const char *check, const char *target, const char *workload,
		 const char *message, const char *evidence, const char *fix)
{
	return json_array_append_new(out,
				     json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "check", check,
					       "target", target, "workload", workload, "message",
					       message, "evidence", evidence, "fix", fix)) == 0;
}

static const struct facts *facts_find(const struct sb_validity *v, const char *t, const char *w)
{
	for (size_t i = 0; i < v->nf; i++)
		if (!strcmp(v->f[i].target, t) && !strcmp(v->f[i].workload, w))
			return &v->f[i];
	return NULL;
}

static bool fact_warnings(const struct facts *f, json_t *out)
{
	char ev[512], a[32], b[32];
	bool ok = true;
	if (f->buffered && f->working_set && f->node_mem && f->working_set < f->node_mem) {
		snprintf(ev, sizeof(ev), "direct=0 (buffered), working set %s, node memory %s",
			 sb_fmt_bytes(f->working_set, a, sizeof(a)),
			 sb_fmt_bytes(f->node_mem, b, sizeof(b)));
		ok = ok && warn(out, SB_VALIDITY_PAGE_CACHE, f->target, f->workload,
				"buffered I/O on a working set that fits in the node's memory: the "
				"figures may come from the page cache, not the volume",
				ev, "set direct=1, or a size larger than the node's memory");
	}
	if (f->unwritten) {
		snprintf(ev, sizeof(ev),
			 "read-only workload on %s, not written earlier in the iteration",
			 f->device);
		ok = ok && warn(out, SB_VALIDITY_UNWRITTEN_READ, f->target, f->workload,
				"a read test on data never written: a fresh or thin-provisioned "
				"device can answer without reading anything",
				ev, "run a write workload over the same device before it");
	}
	if (f->ramp_jump) {
		snprintf(ev, sizeof(ev),
			 "ramp_time=0; iteration %u: first second %.0f I/Os, median second %.0f "
			 "(%+.0f%%)",
			 f->jump_iteration, f->first, f->median,
			 (f->first - f->median) / f->median * 100.0);
		ok = ok && warn(out, SB_VALIDITY_NO_RAMP, f->target, f->workload,
				"no ramp: the first second differs from the steady rate, and it is "
				"counted",
				ev, "set ramp_time (e.g. 5s) so warm-up is not measured");
	}
	if (f->fallback) {
		snprintf(ev, sizeof(ev), "ioengine %s asked, %s ran%s%s", f->asked, f->ran,
			 *f->reason ? ": " : "", f->reason);
		ok = ok &&
		     warn(out, SB_VALIDITY_ENGINE_FALLBACK, f->target, f->workload,
			  "the I/O engine fell back: the figures are not those of the engine "
			  "asked for",
			  ev,
			  "allow io_uring in the runner pods' seccomp profile (runner.md), or "
			  "ask for the engine that runs");
	}
	if (f->gtod_reduce)
		ok = ok &&
		     warn(out, SB_VALIDITY_NO_LATENCY, f->target, f->workload,
			  "latency was not measured (gtod_reduce): latency figures are missing "
			  "or zero",
			  "gtod_reduce=1", "drop gtod_reduce to measure latency");
	return ok;
}

/* Ratio of a to b as "how much faster": IOPS and B/s a/b, latency b/a. */
static double faster_by(double a, double b, const char *unit)
{
	if (!strcmp(unit, "ns"))
		return a > 0 ? b / a : 0;
	return b > 0 ? a / b : 0;
}

static const json_t *result_of(const json_t *report, const char *target, const char *workload)
{
	size_t i;
	const json_t *r;
	json_array_foreach(json_object_get(report, "results"), i, r)
	{
		const char *t = json_string_value(json_object_get(r, "target"));
		const char *w = json_string_value(json_object_get(r, "workload"));
		if (t && w && !strcmp(t, target) && !strcmp(w, workload))
			return r;
	}
	return NULL;
}

static bool stat_warnings(const struct sb_validity *v, const json_t *report, const json_t *r,
			  const char *t, const char *w, json_t *out)
{
	char ev[512], words[64], a[48], b[48];
	bool ok = true, few = false;
	size_t i;
	const json_t *h;
	const json_t *metrics = json_object_get(r, "metrics");
	json_array_foreach(json_object_get(r, "headline"), i, h)
	{
		const char *m = json_string_value(h);
		const json_t *s = m ? json_object_get(metrics, m) : NULL;
		if (!s)
			continue;
		double cv = json_number_value(json_object_get(s, "cv"));
		double mean = json_number_value(json_object_get(s, "mean"));
		json_int_t n = json_integer_value(json_object_get(s, "n"));
		const char *unit = json_string_value(json_object_get(s, "unit"));
		sb_report_metric_words(m, words, sizeof(words));
		if (n >= 1 && (unsigned)n < v->o.min_iterations && !few) {
			few = true;
			snprintf(ev, sizeof(ev), "%lld iteration%s", (long long)n,
				 n == 1 ? "" : "s");
			char fix[64];
			snprintf(fix, sizeof(fix), "run %u or more iterations",
				 v->o.min_iterations);
			ok = ok && warn(out, SB_VALIDITY_FEW_ITERATIONS, t, w,
					"too few iterations for a standard deviation: the spread "
					"shown says little",
					ev, fix);
		}
		if (n >= 2 && cv > v->o.cv_max) {
			snprintf(ev, sizeof(ev),
				 "%s: CV %.1f%% over %lld iterations (threshold %.0f%%)", words,
				 cv * 100.0, (long long)n, v->o.cv_max * 100.0);
			ok = ok &&
			     warn(out, SB_VALIDITY_HIGH_CV, t, w,
				  "the iterations disagree: the mean is not a stable figure", ev,
				  "run more iterations, longer runtime or a ramp_time; check "
				  "for noisy neighbours");
		}
		if (v->o.baseline && strcmp(t, v->o.baseline) && unit) {
			const json_t *br = result_of(report, v->o.baseline, w);
			const json_t *bs = json_object_get(json_object_get(br, "metrics"), m);
			double bmean = json_number_value(json_object_get(bs, "mean"));
			double x = bs ? faster_by(mean, bmean, unit) : 0;
			if (x > v->o.max_factor) {
				snprintf(ev, sizeof(ev), "%s: %s vs %s on baseline '%s' (%.1fx)",
					 words, sb_report_fmt_value(mean, unit, a, sizeof(a)),
					 sb_report_fmt_value(bmean, unit, b, sizeof(b)),
					 v->o.baseline, x);
				char msg[160];
				snprintf(msg, sizeof(msg),
					 "faster than the baseline class by more than %.0fx: "
					 "implausible for the same workload",
					 v->o.max_factor);
				ok = ok && warn(out, SB_VALIDITY_IMPLAUSIBLE, t, w, msg, ev,
						"check for caching (direct=1, a working set beyond "
						"memory) and that the class is what it claims");
			}
		}
	}
	return ok;
}

json_t *sb_validity_warnings(const struct sb_validity *v, const json_t *report)
{
	json_t *out = json_array();
	if (!out)
		return NULL;
	bool ok = true;
	size_t i;
	const json_t *r;
	/* in the report's order; facts of results the report does not have come after */
	json_array_foreach(json_object_get(report, "results"), i, r)
	{
		const char *t = json_string_value(json_object_get(r, "target"));
		const char *w = json_string_value(json_object_get(r, "workload"));
		if (!t || !w)
			continue;
		const struct facts *f = facts_find(v, t, w);
		ok = ok && (!f || fact_warnings(f, out)) && stat_warnings(v, report, r, t, w, out);
	}
	for (size_t k = 0; ok && k < v->nf; k++)
		if (!result_of(report, v->f[k].target, v->f[k].workload))
			ok = fact_warnings(&v->f[k], out);
	if (!ok) {
		json_decref(out);
		return NULL;
	}
	return out;
}

int sb_validity_annotate(const struct sb_validity *v, json_t *report)
{
	json_t *w = sb_validity_warnings(v, report);
	if (!w)
		return -ENOMEM;
	return json_object_set_new(report, "warnings", w) ? -ENOMEM : 0;
}
