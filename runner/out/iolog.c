/* SPDX-License-Identifier: MIT */
#include "runner/out/iolog.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOG_BUF (256 * 1024)

static char log_dir[4096];

void sb_iolog_set_dir(const char *dir)
{
	snprintf(log_dir, sizeof(log_dir), "%s", dir ? dir : "");
}

static const char *const log_kind[SB_NLOGS] = {"bw", "iops", "lat", "clat", "slat"};

struct sb_iolog *sb_iolog_open(const struct sb_job_opts *o, unsigned thread, bool slat, int *err,
			       char *why, size_t whylen)
{
	const char *prefix[SB_NLOGS] = {o->bw_log, o->iops_log, o->lat_log, o->lat_log, o->lat_log};
	struct sb_iolog *l;
	*err = 0;
	if (!o->bw_log[0] && !o->iops_log[0] && !o->lat_log[0])
		return NULL;
	l = calloc(1, sizeof(*l));
	if (!l) {
		*err = -ENOMEM;
		snprintf(why, whylen, "out of memory for log files");
		return NULL;
	}
	l->avg_ms = o->log_avg_msec;
	l->offset = o->log_offset;
	l->slat = slat;
	for (int k = 0; k < SB_NLOGS; k++) {
		if (!prefix[k][0])
			continue;
		if (!strcmp(prefix[k], SB_LOG_JOBNAME))
			prefix[k] = o->name;
		int n = prefix[k][0] != '/' && log_dir[0]
				? snprintf(l->path[k], sizeof(l->path[k]), "%s/%s_%s.%u.log",
					   log_dir, prefix[k], log_kind[k], thread)
				: snprintf(l->path[k], sizeof(l->path[k]), "%s_%s.%u.log",
					   prefix[k], log_kind[k], thread);
		if (n < 0 || (size_t)n >= sizeof(l->path[k])) {
			*err = -ENAMETOOLONG;
			snprintf(why, whylen, "log file name too long");
			goto fail;
		}
		l->f[k] = fopen(l->path[k], "w");
		l->buf[k] = malloc(LOG_BUF);
		if (!l->f[k] || !l->buf[k]) {
			*err = l->f[k] ? -ENOMEM : -errno;
			snprintf(why, whylen, "cannot write log file '%s': %s", l->path[k],
				 strerror(-*err));
			goto fail;
		}
		setvbuf(l->f[k], l->buf[k], _IOFBF, LOG_BUF);
	}
	return l;
fail:
	(void)sb_iolog_close(l, 0);
	sb_iolog_free(l);
	return NULL;
}

void sb_iolog_start(struct sb_iolog *l, uint64_t t0)
{
	if (!l)
		return;
	l->t0 = t0;
	l->win_end = t0 + (uint64_t)l->avg_ms * 1000000ull;
	memset(l->acc, 0, sizeof(l->acc));
}

static void line(struct sb_iolog *l, int k, uint64_t ms, uint64_t value, int ddir, uint32_t bs,
		 uint64_t offset)
{
	if (!l->f[k])
		return;
	if (l->offset)
		fprintf(l->f[k], "%llu, %llu, %d, %u, %llu, 0\n", (unsigned long long)ms,
			(unsigned long long)value, ddir, bs, (unsigned long long)offset);
	else
		fprintf(l->f[k], "%llu, %llu, %d, %u, 0\n", (unsigned long long)ms,
			(unsigned long long)value, ddir, bs);
}

/* Writes the averaged entries of the window ending at l->win_end. */
static void flush_window(struct sb_iolog *l, bool partial)
{
	uint64_t ms = (l->win_end - l->t0) / 1000000ull;
	double secs = l->avg_ms / 1000.0;
	for (int d = 0; d < 3; d++) {
		const struct sb_iolog_acc *a = &l->acc[d];
		if (!a->ios)
			continue;
		if (!partial) {
			line(l, SB_LOG_BW, ms, (uint64_t)((double)a->bytes / 1024.0 / secs + 0.5),
			     d, 0, 0);
			line(l, SB_LOG_IOPS, ms, (uint64_t)((double)a->ios / secs + 0.5), d, 0, 0);
		}
		line(l, SB_LOG_LAT, ms, (uint64_t)(a->lat / (double)a->ios), d, 0, 0);
		line(l, SB_LOG_CLAT, ms, (uint64_t)(a->clat / (double)a->ios), d, 0, 0);
		if (l->slat)
			line(l, SB_LOG_SLAT, ms, (uint64_t)(a->slat / (double)a->ios), d, 0, 0);
	}
	memset(l->acc, 0, sizeof(l->acc));
}

void sb_iolog_add(struct sb_iolog *l, uint64_t tc, int ddir, uint32_t bs, uint64_t offset,
		  uint64_t lat_ns, uint64_t clat_ns, uint64_t slat_ns)
{
	if (!l || ddir > 2)
		return;
	if (!l->avg_ms) {
		uint64_t ms = tc > l->t0 ? (tc - l->t0) / 1000000ull : 0;
		line(l, SB_LOG_BW, ms, clat_ns ? (uint64_t)bs * 1000000ull / clat_ns : 0, ddir, bs,
		     offset);
		line(l, SB_LOG_IOPS, ms, 1, ddir, bs, offset);
		line(l, SB_LOG_LAT, ms, lat_ns, ddir, bs, offset);
		line(l, SB_LOG_CLAT, ms, clat_ns, ddir, bs, offset);
		if (l->slat)
			line(l, SB_LOG_SLAT, ms, slat_ns, ddir, bs, offset);
		return;
	}
	while (tc >= l->win_end) {
		flush_window(l, false);
		l->win_end += (uint64_t)l->avg_ms * 1000000ull;
	}
	l->acc[ddir].ios++;
	l->acc[ddir].bytes += bs;
	l->acc[ddir].lat += (double)lat_ns;
	l->acc[ddir].clat += (double)clat_ns;
	l->acc[ddir].slat += (double)slat_ns;
}

int sb_iolog_close(struct sb_iolog *l, uint64_t t_end)
{
	int ret = 0;
	if (!l)
		return 0;
	if (l->avg_ms && t_end) {
		while (t_end >= l->win_end) {
			flush_window(l, false);
			l->win_end += (uint64_t)l->avg_ms * 1000000ull;
		}
		/* as fio: the last, partial window still has its latency entry */
		flush_window(l, true);
	}
	for (int k = 0; k < SB_NLOGS; k++) {
		if (!l->f[k])
			continue;
		int bad = ferror(l->f[k]);
		if (fclose(l->f[k]) != 0)
			bad = errno ? errno : EIO;
		if (bad && !ret)
			ret = -(bad > 0 && bad != 1 ? bad : EIO);
		l->f[k] = NULL;
	}
	return ret;
}

void sb_iolog_free(struct sb_iolog *l)
{
	if (!l)
		return;
	for (int k = 0; k < SB_NLOGS; k++)
		free(l->buf[k]);
	free(l);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

json_t *sb_iolog_collect(const char *dir, size_t cap, bool *found)
{
	json_t *out = json_pack("{s:{},s:[]}", "files", "truncated");
	json_t *files = out ? json_object_get(out, "files") : NULL;	    /* borrowed */
	json_t *truncated = out ? json_object_get(out, "truncated") : NULL; /* borrowed */
	char **names = NULL;
	size_t n = 0, capn = 0, used = 0;
	bool ok = out != NULL;
	DIR *d = ok ? opendir(dir) : NULL;
	struct dirent *de;

	*found = false;
	while (ok && d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l < 5 || strcmp(de->d_name + l - 4, ".log") != 0)
			continue;
		if (n == capn) {
			size_t c = capn ? capn * 2 : 16;
			char **nn = realloc(names, c * sizeof(*nn));
			ok = nn != NULL;
			if (!ok)
				break;
			names = nn;
			capn = c;
		}
		ok = (names[n] = strdup(de->d_name)) != NULL;
		n += ok;
	}
	if (d)
		closedir(d);
	if (ok && n)
		qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; ok && i < n; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		FILE *f = fopen(path, "r");
		size_t room = cap > used ? cap - used : 0;
		char *buf = malloc(room + 1);
		size_t got = 0;
		bool cut = false;
		if (f && buf) {
			got = fread(buf, 1, room, f);
			cut = fgetc(f) != EOF;
		}
		if (f)
			fclose(f);
		(void)unlink(path);
		*found = true;
		if (!buf) {
			ok = false;
			break;
		}
		if (cut) /* whole lines only */
			while (got && buf[got - 1] != '\n')
				got--;
		buf[got] = '\0';
		used += got;
		ok = json_object_set_new(files, names[i], json_string(buf)) == 0 &&
		     (!cut || json_array_append_new(truncated, json_string(names[i])) == 0);
		free(buf);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (!ok) {
		json_decref(out);
		return NULL;
	}
	return out;
}
