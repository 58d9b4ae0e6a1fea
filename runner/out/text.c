/* SPDX-License-Identifier: MIT */
/*
 * Human output in fio's layout: per job the IOPS and bandwidth line,
 * latency lines, percentiles, per-second bandwidth/IOPS statistics, CPU;
 * then a "Run status" line per group. Units are chosen per value.
 */
#include "runner/out/text.h"

#include "core/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* fio's num2str for counts: up to 4 digits as is, then 3 significant digits. */
static char *fmt_count(double v, char *buf, size_t len)
{
	if (v < 9999.5)
		snprintf(buf, len, "%.0f", v);
	else
		sb_fmt_si(v, 3, buf, len);
	return buf;
}

/* Bytes with binary prefixes, 3-4 significant digits ("189MiB", "11.1GiB"). */
static char *fmt_bin(double v, const char *suffix, char *buf, size_t len)
{
	static const char *const p[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
	unsigned i = 0;
	while (i < 5 && v >= 9999.5) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, "%.*f%s%s", v < 10 && i ? 2 : v < 100 && i ? 1 : 0, v, p[i], suffix);
	return buf;
}

static char *fmt_dec(double v, const char *suffix, char *buf, size_t len)
{
	static const char *const p[] = {"", "k", "M", "G", "T", "P"};
	unsigned i = 0;
	while (i < 5 && v >= 9999.5) {
		v /= 1000;
		i++;
	}
	snprintf(buf, len, "%.*f%s%s", v < 10 && i ? 2 : v < 100 && i ? 1 : 0, v, p[i], suffix);
	return buf;
}

/* Latency unit for a set of values in ns: nsec below 10 us, usec below 10 ms. */
static void lat_unit(double ns, const char **name, double *div)
{
	if (ns < 10000) {
		*name = "nsec";
		*div = 1;
	} else if (ns < 10000000) {
		*name = "usec";
		*div = 1e3;
	} else {
		*name = "msec";
		*div = 1e6;
	}
}

static void print_stat(FILE *f, const char *label, const struct sb_stat *s)
{
	const char *unit;
	double div;
	if (!s->n)
		return;
	lat_unit(s->max, &unit, &div);
	fprintf(f, "    %4s (%s): min=%.0f, max=%.0f, avg=%.2f, stdev=%.2f\n", label, unit,
		s->min / div, s->max / div, s->mean / div, sb_stat_stddev(s) / div);
}

static void print_percentiles(FILE *f, const char *label, const struct sb_hist *h,
			      const double *plist, unsigned np)
{
	uint64_t vals[SB_MAX_PERCENTILES];
	const char *unit;
	double div;
	if (!h->n || !np || sb_hist_percentiles(h, plist, np, vals))
		return;
	lat_unit((double)vals[np - 1], &unit, &div);
	fprintf(f, "    %s percentiles (%s):\n", label, unit);
	for (unsigned i = 0; i < np; i++) {
		if (i % 4 == 0)
			fprintf(f, "     |");
		fprintf(f, " %5.2fth=[%5.0f]%s", plist[i], (double)vals[i] / div,
			i + 1 == np ? "\n" : (i % 4 == 3 ? ",\n" : ","));
	}
}

static void print_dir(FILE *f, const struct sb_job_result *r, int d, const char *name)
{
	const struct sb_dir_result *dr = &r->dir[d];
	const struct sb_job_opts *o = r->job ? &r->job->o : NULL;
	char a[32], b[32], c[32], e[32];
	uint64_t ms = sb_dir_runtime_ms(r, (enum sb_ddir)d);
	double bw = (double)sb_dir_bw_bytes(r, (enum sb_ddir)d);

	if (!dr->ios && !dr->errors)
		return;
	fprintf(f, "  %5s: IOPS=%s, BW=%s (%s)(%s/%llumsec)\n", name,
		fmt_count(sb_dir_iops(r, (enum sb_ddir)d), a, sizeof(a)),
		fmt_bin(bw, "B/s", b, sizeof(b)), fmt_dec(bw, "B/s", c, sizeof(c)),
		fmt_bin((double)dr->bytes, "B", e, sizeof(e)), (unsigned long long)ms);
	print_stat(f, "slat", &dr->slat);
	print_stat(f, "clat", &dr->clat);
	print_stat(f, "lat", &dr->lat);
	if (!o || o->clat_percentiles)
		print_percentiles(f, "clat", &dr->clat_hist,
				  o ? o->percentiles : sb_hist_default_percentiles,
				  o ? o->npercentiles : (unsigned)sb_hist_default_npercentiles);
	if (o && o->lat_percentiles)
		print_percentiles(f, "lat", &dr->lat_hist, o->percentiles, o->npercentiles);
	const struct sb_stat *bs = &dr->bw_samples, *is = &dr->iops_samples;
	if (bs->n) {
		fprintf(f,
			"   bw (  KiB/s): min=%.0f, max=%.0f, avg=%.2f, stdev=%.2f, samples=%llu\n",
			bs->min, bs->max, bs->mean, sb_stat_stddev(bs), (unsigned long long)bs->n);
		fprintf(f,
			"   iops        : min=%.0f, max=%.0f, avg=%.2f, stdev=%.2f, samples=%llu\n",
			is->min, is->max, is->mean, sb_stat_stddev(is), (unsigned long long)is->n);
	}
	if (dr->errors || dr->short_ios)
		fprintf(f, "   errors      : failed=%llu, short=%llu\n",
			(unsigned long long)dr->errors, (unsigned long long)dr->short_ios);
}

/* fio's steadystate line. */
static void print_steadystate(FILE *f, const struct sb_ss_result *ss)
{
	char a[32], b[32];
	if (!ss->state)
		return;
	fprintf(f, "  steadystate  : attained=%s, bw=%s (%s), iops=%llu, %s mean %s=%.3f",
		ss->attained ? "yes" : "no", fmt_bin((double)ss->bw_mean, "B/s", a, sizeof(a)),
		fmt_dec((double)ss->bw_mean, "B/s", b, sizeof(b)),
		(unsigned long long)ss->iops_mean, ss->state & SB_SS_IOPS ? "iops" : "bw",
		ss->state & SB_SS_SLOPE ? "slope" : "dev",
		ss->state & SB_SS_SLOPE ? ss->slope : ss->max_deviation);
	if (ss->attained)
		fprintf(f, ", after %llu.%03llus", (unsigned long long)(ss->attained_ms / 1000),
			(unsigned long long)(ss->attained_ms % 1000));
	fprintf(f, "\n");
}

void sb_out_text_job(FILE *f, const struct sb_job_result *r)
{
	double rt = (double)r->total_runtime_us;

	fprintf(f, "%s: (groupid=%u, jobs=%u): err=%2d: engine=%s", r->name, r->groupid, r->njobs,
		r->error, r->engine_ran);
	if (r->engine_reason[0])
		fprintf(f, " (%s)", r->engine_reason);
	fprintf(f, "\n");
	if (r->errmsg[0])
		fprintf(f, "  error: %s\n", r->errmsg);
	print_dir(f, r, SB_READ, "read");
	print_dir(f, r, SB_WRITE, "write");
	print_dir(f, r, SB_TRIM, "trim");
	if (r->dir[SB_SYNC].ios) {
		const struct sb_dir_result *s = &r->dir[SB_SYNC];
		const char *unit;
		double div;
		uint64_t p[3];
		const double pl[3] = {50.0, 99.0, 99.9};
		lat_unit(s->lat.max, &unit, &div);
		fprintf(f, "  sync (%s): n=%llu, min=%.0f, max=%.0f, avg=%.2f, stdev=%.2f", unit,
			(unsigned long long)s->ios, s->lat.min / div, s->lat.max / div,
			s->lat.mean / div, sb_stat_stddev(&s->lat) / div);
		if (sb_hist_percentiles(&s->lat_hist, pl, 3, p) == 0)
			fprintf(f, ", p50=%.0f, p99=%.0f, p99.9=%.0f", (double)p[0] / div,
				(double)p[1] / div, (double)p[2] / div);
		fprintf(f, "\n");
	}
	print_steadystate(f, &r->ss);
	if (r->verify_checked || r->verify_errors)
		fprintf(f, "  verify       : checked=%llu, mismatches=%llu\n",
			(unsigned long long)r->verify_checked,
			(unsigned long long)r->verify_errors);
	if (rt > 0)
		fprintf(f,
			"  cpu          : usr=%.2f%%, sys=%.2f%%, ctx=%llu, majf=%llu, minf=%llu\n",
			r->usr_s * 1e6 / rt * 100.0, r->sys_s * 1e6 / rt * 100.0,
			(unsigned long long)r->ctx, (unsigned long long)r->majf,
			(unsigned long long)r->minf);
}

void sb_out_text(FILE *f, const struct sb_results *res)
{
	unsigned group = ~0u;
	for (size_t i = 0; i < res->n; i++) {
		sb_out_text_job(f, res->v[i]);
		bool last_of_group =
			i + 1 == res->n || res->v[i + 1]->groupid != res->v[i]->groupid;
		if (!last_of_group)
			continue;
		group = res->v[i]->groupid;
		fprintf(f, "\nRun status group %u (all jobs):\n", group);
		for (int d = 0; d < 3; d++) {
			uint64_t bytes = 0, bw = 0, rmin = UINT64_MAX, rmax = 0;
			for (size_t k = 0; k < res->n; k++) {
				const struct sb_job_result *r = res->v[k];
				if (r->groupid != group || !r->dir[d].ios)
					continue;
				bytes += r->dir[d].bytes;
				bw += sb_dir_bw_bytes(r, (enum sb_ddir)d);
				uint64_t ms = sb_dir_runtime_ms(r, (enum sb_ddir)d);
				rmin = ms < rmin ? ms : rmin;
				rmax = ms > rmax ? ms : rmax;
			}
			if (!bytes)
				continue;
			char a[32], b[32], c[32], e[32];
			fprintf(f, "  %5s: bw=%s (%s), io=%s (%s), run=%llu-%llumsec\n",
				d == 2 ? "TRIM"
				: d    ? "WRITE"
				       : "READ",
				fmt_bin((double)bw, "B/s", a, sizeof(a)),
				fmt_dec((double)bw, "B/s", b, sizeof(b)),
				fmt_bin((double)bytes, "B", c, sizeof(c)),
				fmt_dec((double)bytes, "B", e, sizeof(e)), (unsigned long long)rmin,
				(unsigned long long)rmax);
		}
		if (i + 1 < res->n)
			fprintf(f, "\n");
	}
}
