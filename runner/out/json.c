/* SPDX-License-Identifier: MIT */
#include "runner/out/json.h"

#include "stats/fiotime.h"
#include "stats/hist.h"
#include "result/resultdoc.h"
#include "report/validity.h"

#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* Sets key to a new value; returns false when anything was NULL (ENOMEM). */
static bool put(json_t *o, const char *key, json_t *v)
{
	return v && json_object_set_new(o, key, v) == 0;
}

static json_t *stat_json(const struct sb_stat *s, const struct sb_hist *h, const double *plist,
			 unsigned np, bool plus)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	bool ok = put(o, SB_RK_MIN, json_integer((json_int_t)(s->n ? s->min : 0))) &&
		  put(o, SB_RK_MAX, json_integer((json_int_t)(s->n ? s->max : 0))) &&
		  put(o, SB_RK_MEAN, json_real(s->mean)) &&
		  put(o, SB_RK_STDDEV, json_real(sb_stat_stddev(s))) &&
		  put(o, SB_RK_N, json_integer((json_int_t)s->n));
	if (ok && h && h->n && np) {
		uint64_t vals[SB_MAX_PERCENTILES];
		json_t *p = json_object();
		ok = p && sb_hist_percentiles(h, plist, np, vals) == 0;
		for (unsigned i = 0; ok && i < np; i++) {
			char key[32];
			snprintf(key, sizeof(key), "%f", plist[i]);
			ok = put(p, key, json_integer((json_int_t)vals[i]));
		}
		ok = ok && put(o, SB_RK_PERCENTILE, p);
		if (!ok)
			json_decref(p);
		if (ok && plus) {
			json_t *bins = json_object();
			for (unsigned i = 0; ok && bins && i < SB_HIST_NR; i++) {
				if (!h->bucket[i])
					continue;
				char key[32];
				snprintf(key, sizeof(key), "%llu",
					 (unsigned long long)sb_hist_bucket_value(i));
				ok = put(bins, key, json_integer((json_int_t)h->bucket[i]));
			}
			ok = ok && put(o, "bins", bins);
		}
	}
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* Compact histogram: [[bucket index, count], ...] for the non-empty buckets. */
static json_t *hist_compact(const struct sb_hist *h)
{
	json_t *a = json_array();
	for (unsigned i = 0; a && i < SB_HIST_NR; i++) {
		if (!h->bucket[i])
			continue;
		json_t *pair = json_pack("[II]", (json_int_t)i, (json_int_t)h->bucket[i]);
		if (!pair || json_array_append_new(a, pair)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *series_json(const uint64_t *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++) {
		if (json_array_append_new(a, json_integer((json_int_t)v[i]))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* A series' per-interval histograms, [[gap, count, ...], ...] (lib/result/resultdoc.h). */
static json_t *hist_series_json(const struct sb_series *s)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < s->n; i++) {
		json_t *iv = json_array();
		unsigned prev = 0;
		bool ok = iv != NULL;
		for (size_t k = s->hoff[i]; ok && k < s->hoff[i + 1]; k++) {
			unsigned b = SB_SERIES_PAIR_BUCKET(s->hb[k]);
			ok = json_array_append_new(iv, json_integer((json_int_t)(b - prev))) == 0 &&
			     json_array_append_new(
				     iv,
				     json_integer((json_int_t)SB_SERIES_PAIR_COUNT(s->hb[k]))) == 0;
			prev = b;
		}
		if (!ok || json_array_append_new(a, iv)) {
			json_decref(iv);
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* Direction d's series into dj: counts, latency sums, histograms (when each interval has one). */
static bool put_series(json_t *dj, const struct sb_series *s)
{
	return put(dj, SB_RK_SB_IOS_SERIES, series_json(s->ios, s->n)) &&
	       put(dj, SB_RK_SB_BYTES_SERIES, series_json(s->bytes, s->n)) &&
	       put(dj, SB_RK_SB_CLAT_SUM_SERIES, series_json(s->clat_sum, s->n)) &&
	       put(dj, SB_RK_SB_LAT_SUM_SERIES, series_json(s->lat_sum, s->n)) &&
	       (s->nhist < s->n || put(dj, SB_RK_SB_CLAT_HIST_SERIES, hist_series_json(s)));
}

static uint64_t group_bw(const struct sb_results *all, unsigned group, int d)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < all->n; i++)
		if (all->v[i]->groupid == group)
			sum += sb_dir_bw_bytes(all->v[i], (enum sb_ddir)d);
	return sum;
}

static json_t *dir_json(const struct sb_results *all, const struct sb_job_result *r,
			const struct sb_dir_result *dr, int d, bool plus)
{
	const struct sb_job_opts *o = r->job ? &r->job->o : NULL;
	const double *plist = o ? o->percentiles : sb_hist_default_percentiles;
	unsigned np = o ? o->npercentiles : (unsigned)sb_hist_default_npercentiles;
	bool clat_p = !o || o->clat_percentiles;
	bool lat_p = o && o->lat_percentiles;
	uint64_t ms = d < 2 ? sb_dir_runtime_ms(r, (enum sb_ddir)d) : sb_runtime_ms(r);
	uint64_t bw_bytes = (uint64_t)sb_fio_rate((double)dr->bytes, ms);
	double iops = sb_fio_rate((double)dr->ios, ms);
	uint64_t gbw = group_bw(all, r->groupid, d);
	unsigned kb = o ? o->kb_base : 1024;
	json_t *j = json_object();

	if (!j)
		return NULL;
	bool ok = put(j, SB_RK_IO_BYTES, json_integer((json_int_t)dr->bytes)) &&
		  put(j, SB_RK_IO_KBYTES, json_integer((json_int_t)(dr->bytes / kb))) &&
		  put(j, SB_RK_BW_BYTES, json_integer((json_int_t)bw_bytes)) &&
		  put(j, SB_RK_BW, json_integer((json_int_t)(bw_bytes / kb))) &&
		  put(j, SB_RK_IOPS, json_real(iops)) &&
		  put(j, SB_RK_RUNTIME, json_integer(dr->ios ? (json_int_t)ms : 0)) &&
		  put(j, SB_RK_TOTAL_IOS, json_integer((json_int_t)dr->ios)) &&
		  put(j, "short_ios", json_integer((json_int_t)dr->short_ios)) &&
		  put(j, "drop_ios", json_integer(0)) &&
		  put(j, SB_RK_SLAT_NS, stat_json(&dr->slat, NULL, plist, 0, false)) &&
		  put(j, SB_RK_CLAT_NS,
		      stat_json(&dr->clat, &dr->clat_hist, plist, clat_p ? np : 0, plus)) &&
		  put(j, SB_RK_LAT_NS,
		      stat_json(&dr->lat, &dr->lat_hist, plist, lat_p ? np : 0, plus));
	const struct sb_stat *bs = &dr->bw_samples, *is = &dr->iops_samples;
	ok = ok && put(j, "bw_min", json_integer((json_int_t)(bs->n ? bs->min : 0))) &&
	     put(j, "bw_max", json_integer((json_int_t)(bs->n ? bs->max : 0))) &&
	     put(j, "bw_agg",
		 json_real(gbw && bs->n ? 100.0 * (double)bw_bytes / (double)gbw : 0.0)) &&
	     put(j, "bw_mean", json_real(bs->mean)) &&
	     put(j, "bw_dev", json_real(sb_stat_stddev(bs))) &&
	     put(j, "bw_samples", json_integer((json_int_t)bs->n)) &&
	     put(j, "iops_min", json_integer((json_int_t)(is->n ? is->min : 0))) &&
	     put(j, "iops_max", json_integer((json_int_t)(is->n ? is->max : 0))) &&
	     put(j, "iops_mean", json_real(is->mean)) &&
	     put(j, "iops_stddev", json_real(sb_stat_stddev(is))) &&
	     put(j, "iops_samples", json_integer((json_int_t)is->n));
	if (!ok) {
		json_decref(j);
		return NULL;
	}
	return j;
}

static json_t *sync_json(const struct sb_job_result *r)
{
	const struct sb_dir_result *dr = &r->dir[SB_SYNC];
	const struct sb_job_opts *o = r->job ? &r->job->o : NULL;
	const double *plist = o ? o->percentiles : sb_hist_default_percentiles;
	unsigned np = o ? o->npercentiles : (unsigned)sb_hist_default_npercentiles;
	json_t *j = json_object();
	if (!j)
		return NULL;
	/* as fio: total_ios counts fsyncs; lat_ns covers fdatasyncs too */
	if (!put(j, SB_RK_TOTAL_IOS, json_integer((json_int_t)(dr->ios - r->datasyncs))) ||
	    !put(j, SB_RK_LAT_NS, stat_json(&dr->lat, &dr->lat_hist, plist, np, false))) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* fio's coarse latency distribution: percent of I/Os per range. */
static json_t *latency_buckets(const struct sb_job_result *r, double unit_ns, const double *bounds,
			       size_t nb)
{
	json_t *o = json_object();
	uint64_t total = r->dir[0].clat_hist.n + r->dir[1].clat_hist.n;
	for (size_t b = 0; o && b < nb; b++) {
		double lo = b ? bounds[b - 1] * unit_ns : (unit_ns > 1 ? unit_ns : 0);
		double hi = bounds[b] * unit_ns;
		uint64_t cnt = 0;
		for (int d = 0; d < 2; d++)
			for (unsigned i = 0; i < SB_HIST_NR; i++) {
				double v = (double)sb_hist_bucket_value(i);
				if (r->dir[d].clat_hist.bucket[i] && v >= lo && v < hi)
					cnt += r->dir[d].clat_hist.bucket[i];
			}
		char key[16];
		snprintf(key, sizeof(key), "%g", bounds[b]);
		if (!put(o, key, json_real(total ? 100.0 * (double)cnt / (double)total : 0.0))) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

/* fio's "steadystate" block (its names and formats). */
json_t *sb_out_json_steadystate(const struct sb_ss_result *ss)
{
	char crit[64], buf[64];
	json_t *o = json_object(), *data = json_object(), *iops = json_array(), *bw = json_array();
	bool ok = o && data && iops && bw;
	snprintf(crit, sizeof(crit), "%s%s:%f%s", ss->state & SB_SS_IOPS ? "iops" : "bw",
		 ss->state & SB_SS_SLOPE ? "_slope" : "", ss->limit,
		 ss->state & SB_SS_PCT ? "%" : "");
	snprintf(buf, sizeof(buf), "%f%s", ss->criterion, ss->state & SB_SS_PCT ? "%" : "");
	for (unsigned i = 0; ok && i < ss->n; i++)
		ok = json_array_append_new(iops, json_integer((json_int_t)ss->iops[i])) == 0 &&
		     json_array_append_new(bw, json_integer((json_int_t)ss->bw[i])) == 0;
	ok = ok && put(o, "ss", json_string(crit)) && put(o, "duration", json_integer(ss->dur_s)) &&
	     put(o, SB_RK_SS_ATTAINED, json_integer(ss->attained)) &&
	     put(o, "criterion", json_string(buf)) &&
	     put(o, "max_deviation", json_real(ss->max_deviation)) &&
	     put(o, "slope", json_real(ss->slope)) &&
	     put(data, "bw_mean", json_integer((json_int_t)ss->bw_mean)) &&
	     put(data, "iops_mean", json_integer((json_int_t)ss->iops_mean)) &&
	     json_object_set(data, "iops", iops) == 0 && json_object_set(data, "bw", bw) == 0 &&
	     json_object_set(o, "data", data) == 0;
	json_decref(iops);
	json_decref(bw);
	json_decref(data);
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The machine's memory (the node's, in a pod), for lib/validity's page-cache check; 0 unknown. */
static json_int_t node_mem_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	return pages > 0 && size > 0 ? (json_int_t)pages * size : 0;
}

json_t *sb_out_json_job(const struct sb_results *all, const struct sb_job_result *r, bool plus)
{
	static const double ns_b[] = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000};
	static const double ms_b[] = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000};
	const struct sb_job *job = r->job;
	const struct sb_job_opts *o = job ? &job->o : NULL;
	json_t *j = json_object(), *opts = json_object(), *eng = json_object(), *sb = json_object(),
	       *trim = NULL;
	bool ok = j && opts && eng && sb;
	double rt = (double)r->total_runtime_us;

	for (size_t i = 0; ok && job && i < job->nkv; i++)
		ok = put(opts, job->kv[i].key,
			 json_string(job->kv[i].value ? job->kv[i].value : ""));
	ok = ok && put(j, SB_RK_JOBNAME, json_string(r->name)) &&
	     put(j, "groupid", json_integer(r->groupid)) &&
	     put(j, SB_RK_ERROR, json_integer(r->error)) && put(j, "eta", json_integer(0)) &&
	     put(j, "elapsed", json_integer((json_int_t)((r->runtime_us + 999999) / 1000000))) &&
	     json_object_set(j, SB_RK_JOB_OPTIONS, opts) == 0;
	if (ok && o && o->unified_rw_reporting) {
		/* fio's "mixed": reads and writes as one direction */
		struct sb_job_result *m = sb_job_result_new();
		ok = m != NULL;
		if (ok) {
			*m = *r;
			memset(m->dir, 0, sizeof(m->dir));
			struct sb_dir_result *md = &m->dir[0];
			for (int d = 0; d < 2 && ok; d++)
				ok = sb_dir_result_merge(md, &r->dir[d]) == 0;
			ok = ok && put(j, SB_RK_MIXED, dir_json(all, m, md, 0, plus));
			sb_job_result_free(m);
		}
	} else if (ok) {
		ok = put(j, SB_RK_READ, dir_json(all, r, &r->dir[SB_READ], SB_READ, plus)) &&
		     put(j, SB_RK_WRITE, dir_json(all, r, &r->dir[SB_WRITE], SB_WRITE, plus));
	}
	if (ok) {
		trim = dir_json(all, r, &r->dir[SB_TRIM], SB_TRIM, plus);
		ok = put(j, SB_RK_TRIM, trim);
	}
	ok = ok && put(j, SB_RK_SYNC, sync_json(r)) &&
	     put(j, "job_runtime", json_integer((json_int_t)(r->runtime_us / 1000))) &&
	     put(j, "usr_cpu", json_real(rt > 0 ? r->usr_s * 1e6 / rt * 100.0 : 0.0)) &&
	     put(j, "sys_cpu", json_real(rt > 0 ? r->sys_s * 1e6 / rt * 100.0 : 0.0)) &&
	     put(j, "ctx", json_integer((json_int_t)r->ctx)) &&
	     put(j, "majf", json_integer((json_int_t)r->majf)) &&
	     put(j, "minf", json_integer((json_int_t)r->minf)) &&
	     put(j, "latency_ns", latency_buckets(r, 1, ns_b, 10)) &&
	     put(j, "latency_us", latency_buckets(r, 1e3, ns_b, 10)) &&
	     put(j, "latency_ms", latency_buckets(r, 1e6, ms_b, 11));
	ok = ok && put(eng, SB_RK_ENGINE_ASKED, json_string(r->engine_asked)) &&
	     put(eng, SB_RK_ENGINE_RAN, json_string(r->engine_ran)) &&
	     put(eng, SB_RK_ENGINE_REASON, json_string(r->engine_reason)) &&
	     put(eng, SB_RK_ENGINE_IODEPTH, json_integer(r->iodepth_effective)) &&
	     json_object_set(j, SB_RK_ENGINE, eng) == 0;
	/* storagebench extras */
	json_t *ver = json_pack("{s:I,s:I,s:[]}", "checked", (json_int_t)r->verify_checked,
				"mismatches", (json_int_t)r->verify_errors, "bad_offsets");
	json_t *bad = ver ? json_object_get(ver, "bad_offsets") : NULL; /* borrowed */
	bool vok = bad != NULL;
	for (unsigned i = 0; vok && i < r->nbad; i++)
		vok = json_array_append_new(bad, json_integer((json_int_t)r->bad_offsets[i])) == 0;
	if (!put(sb, "verify", ver)) /* consumes ver */
		ok = false;
	ok = ok && vok;
	ok = ok &&
	     put(sb, "syncs",
		 json_pack("{s:I,s:I}", "fsync", (json_int_t)(r->dir[SB_SYNC].ios - r->datasyncs),
			   "fdatasync", (json_int_t)r->datasyncs)) &&
	     put(sb, SB_RK_SB_NJOBS, json_integer(r->njobs)) &&
	     put(sb, "runtime_us", json_integer((json_int_t)r->runtime_us)) &&
	     put(sb, SB_VALIDITY_NODE_MEM_KEY, json_integer(node_mem_bytes())) &&
	     put(sb, SB_RK_SB_INTERVAL_MS, json_integer((json_int_t)(r->interval_us / 1000))) &&
	     (!r->series_start_ns ||
	      put(sb, SB_RK_SB_SERIES_START_NS, json_integer((json_int_t)r->series_start_ns))) &&
	     put(sb, SB_RK_SB_ERRORS,
		 json_pack("{s:I,s:I,s:I,s:I,s:s}", "read", (json_int_t)r->dir[0].errors, "write",
			   (json_int_t)r->dir[1].errors, "enospc", (json_int_t)r->enospc, "eio",
			   (json_int_t)r->eio, SB_RK_SB_ERRORS_MSG, r->errmsg));
	for (int d = 0; ok && d < SB_NDDIR; d++) {
		const struct sb_dir_result *dr = &r->dir[d];
		if (d == SB_TRIM && !dr->ios)
			continue; /* as before trims existed: no empty key */
		json_t *dj = json_object();
		ok = dj && put(dj, SB_RK_SB_CLAT_HIST,
			       hist_compact(d == SB_SYNC ? &dr->lat_hist : &dr->clat_hist));
		if (ok && d != SB_SYNC)
			ok = put_series(dj, &dr->series);
		ok = ok && put(sb, sb_ddir_name((enum sb_ddir)d), dj);
	}
	if (ok && r->ss.state) {
		ok = put(j, SB_RK_STEADYSTATE, sb_out_json_steadystate(&r->ss)) &&
		     put(sb, SB_RK_STEADYSTATE,
			 json_pack("{s:b,s:I}", SB_RK_SS_ATTAINED, r->ss.attained,
				   SB_RK_SB_ATTAINED_MS, (json_int_t)r->ss.attained_ms));
	}
	ok = ok && json_object_set(j, SB_RK_SB, sb) == 0;
	json_decref(opts);
	json_decref(eng);
	json_decref(sb);
	if (!ok) {
		json_decref(j);
		return NULL;
	}
	return j;
}

json_t *sb_out_json_doc(const struct sb_results *r, bool plus)
{
	struct timeval tv;
	char tbuf[64] = "";
	json_t *doc = json_object(), *jobs = json_array();
	bool ok = doc && jobs;

	gettimeofday(&tv, NULL);
	time_t t = tv.tv_sec;
	struct tm tm;
	if (localtime_r(&t, &tm))
		strftime(tbuf, sizeof(tbuf), "%a %b %e %H:%M:%S %Y", &tm);
	ok = ok && put(doc, "fio version", json_string("storagebench-runner-" SB_VERSION)) &&
	     put(doc, "storagebench version", json_string(SB_VERSION)) &&
	     put(doc, "timestamp", json_integer((json_int_t)tv.tv_sec)) &&
	     put(doc, "timestamp_ms",
		 json_integer((json_int_t)tv.tv_sec * 1000 + tv.tv_usec / 1000)) &&
	     put(doc, "time", json_string(tbuf));
	for (size_t i = 0; ok && i < r->n; i++) {
		json_t *jj = sb_out_json_job(r, r->v[i], plus);
		ok = jj && json_array_append_new(jobs, jj) == 0;
	}
	ok = ok && json_object_set(doc, SB_RK_JOBS, jobs) == 0;
	json_decref(jobs);
	if (!ok) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}
