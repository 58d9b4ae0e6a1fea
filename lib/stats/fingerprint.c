/* SPDX-License-Identifier: MIT */
/* Workload fingerprints from normalised job options. See fingerprint.h. */
#include "fingerprint.h"

#include "core/jsonobj.h"
#include "core/units.h"
#include "result/sign.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* options that do not shape the I/O: naming, placement, reporting, logging */
static const char *const ignored[] = {
	"name",
	"description",
	"filename",
	"directory",
	"group_reporting",
	"stonewall",
	"new_group",
	"percentile_list",
	"clat_percentiles",
	"lat_percentiles",
	"slat_percentiles",
	"write_bw_log",
	"write_lat_log",
	"write_iops_log",
	"write_hist_log",
	"log_avg_msec",
	"log_offset",
	"log_prio",
	"per_job_logs",
	"lat_log",
	"eta",
	"eta_newline",
	"significant_figures",
	"minimal",
	"status-interval",
	"bwavgtime",
	"iopsavgtime",
	"disk_util",
	"unit_base",
	"kb_base",
	"unique_filename",
	"filename_format",
	"output",
	"output-format",
	"include",
	"exitall",
	"exitall_on_error",
	"clocksource",
	"gtod_reduce",
	"gtod_cpu",
	"disable_lat",
	"disable_clat",
	"disable_slat",
	"disable_bw_measurement",
	"stats",
	"wait_for",
	"lockfile",
	"exec_prerun",
	"exec_postrun",
};

static const char *const sizes[] = {
	"bs",
	"size",
	"filesize",
	"io_size",
	"io_limit",
	"offset",
	"offset_increment",
	"blockalign",
	"ba",
	"iomem_align",
	"hugepage-size",
	"rate",
	"verify_interval",
	"ss_limit_bytes",
};

/* durations whose bare number is in seconds (fio's) */
static const char *const durations_s[] = {
	"runtime", "timeout", "ramp_time", "startdelay", "ss_dur", "ss_ramp",
};

static const char *const bools[] = {
	"direct",	 "time_based",	  "norandommap",    "randrepeat",
	"allrandrepeat", "zero_buffers",  "refill_buffers", "scramble_buffers",
	"invalidate",	 "end_fsync",	  "fsync_on_close", "unlink",
	"overwrite",	 "fixedbufs",	  "registerfiles",  "hipri",
	"sqthread_poll", "nonvectored",	  "uncached",	    "nowait",
	"force_async",	 "atomic",	  "create_on_open", "pre_read",
	"sync",		 "do_verify",	  "verify_only",    "unified_rw_reporting",
	"thread",	 "softrandommap",
};

static const char *const counts[] = {
	"iodepth",
	"numjobs",
	"nrfiles",
	"rwmixread",
	"fsync",
	"fdatasync",
	"loops",
	"rate_iops",
	"iodepth_batch_submit",
	"iodepth_batch_complete_min",
	"iodepth_batch_complete_max",
	"iodepth_low",
	"thinktime_blocks",
	"buffer_compress_percentage",
	"dedupe_percentage",
	"percentage_random",
	"openfiles",
	"randseed",
};

/* fio's defaults: an option at its default is no option */
static const char *const defaults[][2] = {
	{"rw", "read"},
	{"bs", "4096"},
	{"iodepth", "1"},
	{"numjobs", "1"},
	{"direct", "0"},
	{"nrfiles", "1"},
	{"loops", "1"},
	{"rwmixread", "50"},
	{"time_based", "0"},
	{"thread", "0"},
	{"fsync", "0"},
	{"fdatasync", "0"},
	{"randrepeat", "1"},
	{"invalidate", "1"},
	{"norandommap", "0"},
	{"end_fsync", "0"},
	{"unified_rw_reporting", "0"},
	{"startdelay", "0"},
	{"ramp_time", "0"},
	{"thinktime", "0"},
	{"offset", "0"},
	{"sync", "0"},
	{"zero_buffers", "0"},
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static bool in(const char *const *set, size_t n, const char *k)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(set[i], k))
			return true;
	return false;
}

static const char *canonical_key(const char *k)
{
	static const char *const alias[][2] = {
		{"readwrite", "rw"},
		{"blocksize", "bs"},
		{"iodepth_batch", "iodepth_batch_submit"},
		{"ioengine", "engine"},
	};
	for (size_t i = 0; i < N(alias); i++)
		if (!strcmp(alias[i][0], k))
			return alias[i][1];
	return k;
}

/* each comma-separated part of v through one parser; false when one does not parse */
static bool each_part(const char *v, char *out, size_t len,
		      int (*one)(const char *, char *, size_t, unsigned), unsigned kb)
{
	char part[128];
	size_t n = 0;
	out[0] = '\0';
	for (const char *p = v;;) {
		size_t k = strcspn(p, ",");
		if (k >= sizeof(part))
			return false;
		memcpy(part, p, k);
		part[k] = '\0';
		char one_out[48] = "";
		if (k && one(part, one_out, sizeof(one_out), kb))
			return false;
		int w = snprintf(out + n, len - n, "%s%s", p == v ? "" : ",", one_out);
		if (w < 0 || (size_t)w >= len - n)
			return false;
		n += (size_t)w;
		if (!p[k])
			return true;
		p += k + 1;
	}
}

static int one_size(const char *s, char *out, size_t len, unsigned kb)
{
	uint64_t v;
	if (sb_parse_size(s, kb, &v))
		return -EINVAL;
	snprintf(out, len, "%" PRIu64, v);
	return 0;
}

static int one_count(const char *s, char *out, size_t len, unsigned kb)
{
	uint64_t v;
	(void)kb;
	if (sb_parse_u64(s, &v))
		return -EINVAL;
	snprintf(out, len, "%" PRIu64, v);
	return 0;
}

/* The normalised value of option k (canonical) = v into out. */
static void normalise(const char *k, const char *v, unsigned kb, char *out, size_t len)
{
	bool b;
	uint64_t us;
	if (in(sizes, N(sizes), k) && each_part(v, out, len, one_size, kb))
		return;
	if (in(counts, N(counts), k) && each_part(v, out, len, one_count, kb))
		return;
	if (in(bools, N(bools), k) && (!*v || !sb_parse_bool(v, &b))) {
		snprintf(out, len, "%d", *v ? b : 1); /* a bare flag is 1 */
		return;
	}
	if (in(durations_s, N(durations_s), k) && !sb_parse_duration_us(v, 1000000, &us)) {
		snprintf(out, len, "%" PRIu64, us);
		return;
	}
	if (!strcmp(k, "thinktime") && !sb_parse_duration_us(v, 1, &us)) {
		snprintf(out, len, "%" PRIu64, us);
		return;
	}
	if (!strcmp(k, "rw") || !strcmp(k, "engine")) {
		size_t i = 0;
		for (; v[i] && i + 1 < len; i++)
			out[i] = (char)tolower((unsigned char)v[i]);
		out[i] = '\0';
		if (!strcmp(out, "readwrite"))
			snprintf(out, len, "rw");
		return;
	}
	snprintf(out, len, "%s", v);
}

static bool is_default(const char *k, const char *v)
{
	for (size_t i = 0; i < N(defaults); i++)
		if (!strcmp(defaults[i][0], k))
			return !strcmp(defaults[i][1], v);
	return false;
}

static int set_str(json_t *o, const char *k, const char *v)
{
	return json_object_set_new(o, k, json_string(v)) ? -ENOMEM : 0;
}

/* the normalised options of the job into p (no defaults removed yet) */
static int collect(const json_t *options, json_t *p)
{
	unsigned kb = 1024;
	const char *kbs = json_string_value(json_object_get(options, "kb_base"));
	if (kbs && !strcmp(kbs, "1000"))
		kb = 1000;
	const char *key;
	const json_t *jv;
	json_object_foreach((json_t *)options, key, jv)
	{
		const char *v = json_is_string(jv) ? json_string_value(jv) : "";
		const char *k = canonical_key(key);
		char val[256];
		bool b;
		if (in(ignored, N(ignored), k))
			continue;
		if (!strcmp(k, "buffered")) { /* buffered=1 is direct=0 */
			if (*v && sb_parse_bool(v, &b))
				continue;
			if (!json_object_get(options, "direct") &&
			    set_str(p, "direct", (*v && !b) ? "1" : "0"))
				return -ENOMEM;
			continue;
		}
		if (!strcmp(k, "rwmixwrite")) {
			uint64_t w;
			if (!json_object_get(options, "rwmixread") && !sb_parse_u64(v, &w) &&
			    w <= 100) {
				snprintf(val, sizeof(val), "%" PRIu64, 100 - w);
				if (set_str(p, "rwmixread", val))
					return -ENOMEM;
			}
			continue;
		}
		normalise(k, v, kb, val, sizeof(val));
		if (set_str(p, k, val))
			return -ENOMEM;
	}
	return 0;
}

static int digest(const json_t *p, char fp[SB_FINGERPRINT_LEN + 1])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1;
	size_t n, i;
	const char **keys = sb_json_sorted_keys(p, &n);
	ok = ok && keys;
	for (i = 0; ok && i < n; i++) {
		const char *s = json_string_value(json_object_get(p, keys[i]));
		ok = EVP_DigestUpdate(ctx, keys[i], strlen(keys[i])) == 1 &&
		     EVP_DigestUpdate(ctx, "=", 1) == 1 &&
		     EVP_DigestUpdate(ctx, s, strlen(s)) == 1 &&
		     EVP_DigestUpdate(ctx, "\n", 1) == 1;
	}
	ok = ok && EVP_DigestFinal_ex(ctx, md, &mdlen) == 1 && mdlen >= SB_FINGERPRINT_LEN / 2;
	EVP_MD_CTX_free(ctx);
	free(keys);
	if (!ok)
		return -EIO;
	sb_hex(md, SB_FINGERPRINT_LEN / 2, fp);
	return 0;
}

int sb_workload_fingerprint(const json_t *options, const char *engine_ran, json_t **params,
			    char fp[SB_FINGERPRINT_LEN + 1])
{
	json_t *p = json_object();
	*params = NULL;
	fp[0] = '\0';
	if (!p || collect(options, p)) {
		json_decref(p);
		return -ENOMEM;
	}
	if (engine_ran && *engine_ran && set_str(p, "engine", engine_ran)) {
		json_decref(p);
		return -ENOMEM;
	}
	if (!json_object_get(p, "engine") && set_str(p, "engine", "psync")) {
		json_decref(p);
		return -ENOMEM;
	}
	/* an option at its default is no option */
	size_t n;
	const char **keys = sb_json_sorted_keys(p, &n);
	if (!keys) {
		json_decref(p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (is_default(keys[i], json_string_value(json_object_get(p, keys[i]))))
			json_object_del(p, keys[i]);
	free(keys);
	int r = digest(p, fp);
	if (r) {
		json_decref(p);
		return r;
	}
	*params = p;
	return 0;
}

static void add_diff(char *buf, size_t len, size_t *n, const char *k, const char *a, const char *b)
{
	if (*n >= len)
		return;
	int w = snprintf(buf + *n, len - *n, "%s%s %s -> %s", *n ? ", " : "", k, a ? a : "(none)",
			 b ? b : "(none)");
	*n = w < 0 ? len : *n + (size_t)w;
}

char *sb_params_diff(const json_t *before, const json_t *after, char *buf, size_t len)
{
	size_t n = 0, na, nb;
	if (!len)
		return buf;
	buf[0] = '\0';
	const char **ka = sb_json_sorted_keys(before, &na), **kb = sb_json_sorted_keys(after, &nb);
	for (size_t i = 0, j = 0; ka && kb && (i < na || j < nb);) {
		int c = i == na ? 1 : j == nb ? -1 : strcmp(ka[i], kb[j]);
		const char *k = c <= 0 ? ka[i] : kb[j];
		const char *a = c <= 0 ? json_string_value(json_object_get(before, k)) : NULL;
		const char *b = c >= 0 ? json_string_value(json_object_get(after, k)) : NULL;
		if (!a || !b || strcmp(a, b))
			add_diff(buf, len, &n, k, a, b);
		i += c <= 0;
		j += c >= 0;
	}
	free(ka);
	free(kb);
	if (n >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
	return buf;
}
