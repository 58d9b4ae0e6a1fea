/* SPDX-License-Identifier: MIT */
/*
 * The I/O loop of one job clone, modelled on fio's do_io(): keep iodepth
 * I/Os in flight, issue a sync after every fsync=N writes, stop at the
 * size or the runtime, exclude ramp_time, account latency per I/O and
 * throughput per second. Nothing is allocated once the loop runs except
 * the per-second series, which grows once a second at most.
 */
#include "runner/io/loop.h"

#include "core/log.h"
#include "runner/io/files.h"
#include "runner/out/iolog.h"
#include "runner/io/steady.h"
#include "runner/mode/stop.h"
#include "runner/io/trim.h"
#include "runner/io/verify.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_SEC 1000000000ull

uint64_t sb_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

void sb_gate_init(struct sb_gate *g)
{
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	g->open = false;
}

void sb_gate_open(struct sb_gate *g)
{
	pthread_mutex_lock(&g->mu);
	g->open = true;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

void sb_gate_wait(struct sb_gate *g)
{
	pthread_mutex_lock(&g->mu);
	while (!g->open)
		pthread_cond_wait(&g->cv, &g->mu);
	pthread_mutex_unlock(&g->mu);
}

void sb_gate_destroy(struct sb_gate *g)
{
	pthread_cond_destroy(&g->cv);
	pthread_mutex_destroy(&g->mu);
}

/* Sleeps, waking early when the runner is asked to stop (runner/mode/stop.h). */
static void sleep_ns(uint64_t ns)
{
	(void)sb_stop_sleep_ns(ns);
}

static void fill_pattern(unsigned char *p, size_t len, const unsigned char *pat, unsigned plen)
{
	size_t done = plen < len ? plen : len;
	memcpy(p, pat, done);
	while (done < len) { /* doubling copies */
		size_t n = done < len - done ? done : len - done;
		memcpy(p + done, p, n);
		done += n;
	}
}

/* The pattern writes carry (verify_pattern, else buffer_pattern), or NULL. */
static const unsigned char *write_pattern(const struct sb_job_opts *o, unsigned *len)
{
	if (o->verify_pattern_len) {
		*len = o->verify_pattern_len;
		return o->verify_pattern;
	}
	*len = o->buffer_pattern_len;
	return o->buffer_pattern_len ? o->buffer_pattern : NULL;
}

/* Fills a write buffer: a pattern, random, zeros, or partly zeros (compressible). */
static void fill_buffer(struct sb_worker *w, void *buf, size_t len)
{
	const struct sb_job_opts *o = w->o;
	unsigned plen;
	const unsigned char *pat = write_pattern(o, &plen);
	if (pat) {
		fill_pattern(buf, len, pat, plen);
		return;
	}
	if (o->zero_buffers) {
		memset(buf, 0, len);
		return;
	}
	if (!o->buffer_compress_percentage) {
		sb_rand_fill(&w->rng_data, buf, len);
		return;
	}
	/* per 4 KiB chunk: the compressible share zeroed, the rest random */
	unsigned char *p = buf;
	for (size_t off = 0; off < len; off += 4096) {
		size_t n = len - off < 4096 ? len - off : 4096;
		size_t z = n * o->buffer_compress_percentage / 100;
		memset(p + off, 0, z);
		sb_rand_fill(&w->rng_data, p + off + z, n - z);
	}
}

static uint64_t make_seed(const struct sb_job_opts *o, unsigned clone)
{
	uint64_t seed;
	if (o->randseed_set)
		seed = o->randseed;
	else if (o->randrepeat)
		seed = 0x5eedf10ull; /* fixed: the same sequence every run */
	else if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
		seed = sb_now_ns();
	return seed + (uint64_t)clone * 0x9e3779b97f4a7c15ull;
}

static void reset_generators(struct sb_worker *w)
{
	sb_rand_seed(&w->rng_off, w->seed);
	w->next_file = 0;
	for (unsigned i = 0; i < w->nfiles; i++) {
		struct sb_file *f = &w->files[i];
		f->seq_pos[0] = f->seq_pos[1] = 0;
		f->perm_i = 0;
		f->pass = 0;
		sb_perm_init(&f->perm, f->nblocks, w->seed ^ (0x51ed27ull * (i + 1)));
		f->served = 0;
		f->mapped = 0;
		if (f->map)
			memset(f->map, 0, (f->nblocks + 63) / 64 * sizeof(uint64_t));
	}
	w->file_ios = 0;
	w->trim_then_write = false;
}

/* Whether offsets come from fio's random map with blocks of varying size. */
static bool needs_map(const struct sb_worker *w)
{
	const struct sb_job_opts *o = w->o;
	if (!sb_rw_random(o->rw) || w->nomap)
		return false;
	for (int d = 0; d < 3; d++)
		if (o->bs_max[d] || o->nbssplit[d] > 1)
			return true;
	return false;
}

/* Distributions, maps and trackers the job's options ask for. 0 or -ENOMEM. */
static int setup_extras(struct sb_worker *w)
{
	const struct sb_job_opts *o = w->o;
	for (unsigned i = 0; i < w->nfiles; i++) {
		struct sb_file *f = &w->files[i];
		for (int d = 0; d < 3; d++) {
			if (o->dist[d].type == SB_DIST_RANDOM)
				continue;
			f->dist[d] = malloc(sizeof(*f->dist[d]));
			if (!f->dist[d])
				return -ENOMEM;
			(void)sb_dist_init(f->dist[d], &o->dist[d], f->nblocks, w->align,
					   w->seed ^ (0xd157ull * (i + 1)) ^ ((uint64_t)d << 56));
		}
		if (needs_map(w) && o->dist[0].type == SB_DIST_RANDOM) {
			f->map = calloc((f->nblocks + 63) / 64, sizeof(uint64_t));
			if (!f->map)
				return -ENOMEM;
		}
	}
	if (o->ss_state && o->ss_dur_us) {
		w->ss = sb_ss_new(o->ss_state, o->ss_limit, o->ss_dur_us, o->ss_ramp_us * 1000, 0);
		if (!w->ss)
			return -ENOMEM;
	}
	if (w->nfiles > 1 && o->fst >= SB_FST_ZIPF) {
		struct sb_dist_opts dd;
		memset(&dd, 0, sizeof(dd));
		dd.center = -1;
		dd.type = o->fst == SB_FST_ZIPF	    ? SB_DIST_ZIPF
			  : o->fst == SB_FST_PARETO ? SB_DIST_PARETO
						    : SB_DIST_NORMAL;
		/* fio's defaults when no parameter is given */
		dd.param = o->fst_param		     ? o->fst_param
			   : o->fst == SB_FST_ZIPF   ? 1.1
			   : o->fst == SB_FST_PARETO ? 0.2
						     : 0;
		if (dd.type == SB_DIST_NORMAL && dd.param > 100)
			dd.param = 100;
		w->file_dist = malloc(sizeof(*w->file_dist));
		if (!w->file_dist)
			return -ENOMEM;
		(void)sb_dist_init(w->file_dist, &dd, w->nfiles, 1, w->seed ^ 0xf11e5ull);
	}
	return 0;
}

int sb_worker_setup(struct sb_worker *w, const struct sb_job *job, unsigned clone,
		    const struct sb_worker_cfg *cfg, bool *usage)
{
	const struct sb_job_opts *o = &job->o;
	int ret;

	memset(w, 0, sizeof(*w));
	*usage = false;
	w->job = job;
	w->o = o;
	w->clone = cfg->clone_base + clone;
	w->clients = cfg->clients ? cfg->clients : 1;
	w->eng = cfg->eng;
	w->start = cfg->start;
	w->res = sb_job_result_new();
	if (!w->res)
		return -ENOMEM;
	snprintf(w->res->name, sizeof(w->res->name), "%s", o->name);
	w->res->groupid = job->group;
	w->res->njobs = 1;
	w->res->job = job;
	w->res->interval_us = 1000000;
	snprintf(w->res->engine_asked, sizeof(w->res->engine_asked), "%s",
		 o->ioengine_asked[0] ? o->ioengine_asked : "default");
	snprintf(w->res->engine_ran, sizeof(w->res->engine_ran), "%s", cfg->eng->name);
	snprintf(w->res->engine_reason, sizeof(w->res->engine_reason), "%s", cfg->engine_reason);

	w->seed = make_seed(o, w->clone);
	sb_rand_seed(&w->rng_data, w->seed ^ 0xda7a5eedull);
	sb_rand_seed(&w->rng_rate, w->seed ^ 0x9015507ull);
	w->min_bs = sb_job_min_bs(o);
	w->max_bs = sb_job_max_bs(o);
	w->align = sb_job_align(o);
	/* as fio: "any use of blockalign= turns off randommap" */
	w->nomap = (o->norandommap && o->randgen != SB_RANDGEN_LFSR) || w->align != w->min_bs;
	w->depth = o->iodepth;
	if (cfg->eng->max_depth && w->depth > cfg->eng->max_depth)
		w->depth = cfg->eng->max_depth;
	w->res->iodepth_effective = w->depth;
	w->interval_ns = NS_PER_SEC;

	w->slot_hist = calloc(3, sizeof(*w->slot_hist));
	if (!w->slot_hist)
		goto nomem;
	w->buflen = (w->max_bs + 4095) & ~(size_t)4095;
	if (w->buflen > SIZE_MAX / w->depth) {
		*usage = true;
		snprintf(w->res->errmsg, sizeof(w->res->errmsg), "bs x iodepth: too large");
		return -EOVERFLOW;
	}
	if (posix_memalign(&w->bufmem, 4096, w->buflen * w->depth))
		goto nomem;
	w->io_us = calloc(w->depth, sizeof(*w->io_us));
	w->free_io_us = calloc(w->depth, sizeof(*w->free_io_us));
	w->pending = calloc(w->depth, sizeof(*w->pending));
	w->done = calloc(w->depth, sizeof(*w->done));
	if (!w->io_us || !w->free_io_us || !w->pending || !w->done)
		goto nomem;
	for (unsigned i = 0; i < w->depth; i++) {
		struct sb_io_u *u = &w->io_us[i];
		u->buf = (char *)w->bufmem + (size_t)i * w->buflen;
		u->buf_index = (uint16_t)i;
		fill_buffer(w, u->buf, w->buflen);
		w->free_io_us[w->nfree++] = u;
	}

	w->thread_number = cfg->first_thread + w->clone;
	ret = sb_files_setup(w, cfg->per_file, usage);
	if (ret)
		return ret;
	if (setup_extras(w))
		goto nomem;
	w->logs = sb_iolog_open(o, w->thread_number, cfg->eng->max_depth != 1, &ret, w->res->errmsg,
				sizeof(w->res->errmsg));
	if (ret) {
		*usage = ret != -ENOMEM;
		return ret;
	}
	reset_generators(w);

	uint64_t region = 0;
	for (unsigned i = 0; i < w->nfiles; i++)
		region += w->files[i].size;
	w->io_total = (o->io_size ? o->io_size : region) * o->loops;
	if (o->rw == SB_RW_TRIMWRITE)
		w->io_total *= 2; /* every block trimmed, then written */
	return 0;
nomem:
	snprintf(w->res->errmsg, sizeof(w->res->errmsg),
		 "out of memory for %u buffers of %zu bytes", w->depth, w->buflen);
	return -ENOMEM;
}

void sb_worker_release(struct sb_worker *w)
{
	if (w->eng && w->eng_data)
		w->eng->cleanup(w);
	if (w->files) {
		int r = sb_files_close(w);
		if (r && w->res && !w->res->error) {
			w->res->error = -r;
			snprintf(w->res->errmsg, sizeof(w->res->errmsg), "closing files: %s",
				 strerror(-r));
		}
	}
	for (unsigned i = 0; w->files && i < w->nfiles; i++) {
		for (int d = 0; d < 3; d++)
			free(w->files[i].dist[d]);
		free(w->files[i].map);
	}
	free(w->file_dist);
	free(w->slot_hist);
	w->slot_hist = NULL;
	w->file_dist = NULL;
	sb_ss_free(w->ss);
	w->ss = NULL;
	(void)sb_iolog_close(w->logs, 0);
	sb_iolog_free(w->logs);
	w->logs = NULL;
	free(w->files);
	free(w->io_us);
	free(w->free_io_us);
	free(w->pending);
	free(w->done);
	free(w->bufmem);
	w->files = NULL;
	w->io_us = NULL;
	w->free_io_us = w->pending = w->done = NULL;
	w->bufmem = NULL;
}

static uint32_t pick_bs(struct sb_worker *w, int d)
{
	const struct sb_job_opts *o = w->o;
	if (o->bs_max[d] > o->bs[d] && !o->nbssplit[d]) {
		/* bsrange: a uniform multiple of the smallest size, as fio */
		uint32_t steps = (o->bs_max[d] - o->bs[d]) / o->bs[d] + 1;
		return o->bs[d] * (1 + (uint32_t)sb_rand_below(&w->rng_off, steps));
	}
	if (!o->nbssplit[d])
		return o->bs[d];
	uint64_t r = sb_rand_below(&w->rng_off, 100);
	uint32_t acc = 0;
	for (unsigned i = 0; i < o->nbssplit[d]; i++) {
		acc += o->bssplit[d][i].perc;
		if (r < acc)
			return o->bssplit[d][i].bs;
	}
	return o->bssplit[d][o->nbssplit[d] - 1].bs;
}

/*
 * The largest block size of direction d no larger than limit (bs itself
 * when it fits), or 0 when none fits: fio shortens the last I/Os of a job
 * to sizes it was given rather than run past size.
 */
static uint32_t fit_bs(struct sb_worker *w, int d, uint32_t bs, uint64_t limit)
{
	const struct sb_job_opts *o = w->o;
	if (bs <= limit)
		return bs;
	uint32_t best = 0;
	if (o->bs_max[d] > o->bs[d] && !o->nbssplit[d])
		return limit >= o->bs[d] ? (uint32_t)(limit / o->bs[d] * o->bs[d]) : 0;
	if (!o->nbssplit[d])
		return 0;
	for (unsigned i = 0; i < o->nbssplit[d]; i++)
		if (o->bssplit[d][i].bs <= limit && o->bssplit[d][i].bs > best)
			best = o->bssplit[d][i].bs;
	return best;
}

static unsigned pick_file_by_type(struct sb_worker *w);

/*
 * The next file, as file_service_type says; as fio, a file whose region is
 * done is passed over until every file is done (then a new loop starts).
 */
static unsigned pick_file(struct sb_worker *w)
{
	unsigned fi = pick_file_by_type(w);
	if (w->o->time_based || w->verify_phase || w->files[fi].served < w->files[fi].size)
		return fi;
	for (unsigned k = 1; k < w->nfiles; k++) {
		unsigned j = (fi + k) % w->nfiles;
		if (w->files[j].served < w->files[j].size) {
			w->next_file = j;
			w->file_ios = 0;
			return j;
		}
	}
	for (unsigned k = 0; k < w->nfiles; k++)
		w->files[k].served = 0;
	return fi;
}

static unsigned pick_file_by_type(struct sb_worker *w)
{
	const struct sb_job_opts *o = w->o;
	unsigned cur = w->next_file;
	if (w->nfiles == 1)
		return 0;
	switch (o->fst) {
	case SB_FST_ROUNDROBIN:
		if (++w->file_ios >= (o->fst_nr ? o->fst_nr : 1)) {
			w->file_ios = 0;
			w->next_file = cur + 1 == w->nfiles ? 0 : cur + 1;
		}
		return cur;
	case SB_FST_SEQUENTIAL: {
		/* finish a file (its region, or N I/Os) before the next */
		struct sb_file *f = &w->files[cur];
		bool done = o->fst_nr ? ++w->file_ios >= o->fst_nr : f->served >= f->size;
		if (done) {
			w->file_ios = 0;
			f->served = 0;
			cur = cur + 1 == w->nfiles ? 0 : cur + 1;
			w->next_file = cur;
		}
		return cur;
	}
	case SB_FST_RANDOM:
		if (w->file_ios == 0)
			w->next_file = (unsigned)sb_rand_below(&w->rng_off, w->nfiles);
		if (++w->file_ios >= (o->fst_nr ? o->fst_nr : 1))
			w->file_ios = 0;
		return w->next_file;
	default:
		return w->file_dist ? (unsigned)sb_dist_next(w->file_dist, &w->rng_off) : 0;
	}
}

static bool map_test(const uint64_t *m, uint64_t b)
{
	return m[b / 64] >> (b % 64) & 1;
}

/* The first unmarked slot at or after b, wrapping around (some slot is unmarked). */
static uint64_t map_next_free(const uint64_t *m, uint64_t n, uint64_t b)
{
	uint64_t words = (n + 63) / 64;
	for (uint64_t k = 0; k <= words; k++) {
		uint64_t wi = (b / 64 + k) % words;
		uint64_t bits = ~m[wi];
		if (k == 0)
			bits &= ~0ull << (b % 64); /* from b on */
		if (wi == words - 1 && n % 64)
			bits &= (1ull << (n % 64)) - 1; /* no slots past n */
		if (bits)
			return wi * 64 + (uint64_t)__builtin_ctzll(bits);
	}
	return b; /* not reached: callers keep a slot free */
}

/*
 * fio's random map with blocks of varying size: a random slot, or the
 * next unused one after it when it was used; the I/O is shortened to the
 * unused slots that follow, and they are marked. A pass ends when every
 * slot is used (then the map starts afresh).
 */
static uint64_t map_next(struct sb_worker *w, struct sb_file *f, uint32_t *bs)
{
	if (f->mapped >= f->nblocks) {
		f->pass++;
		f->mapped = 0;
		memset(f->map, 0, (f->nblocks + 63) / 64 * sizeof(uint64_t));
	}
	uint64_t blk = sb_rand_below(&w->rng_off, f->nblocks);
	if (map_test(f->map, blk))
		blk = map_next_free(f->map, f->nblocks, blk);
	uint64_t want = *bs / w->min_bs, got = 0;
	while (got < want && blk + got < f->nblocks && !map_test(f->map, blk + got)) {
		f->map[(blk + got) / 64] |= 1ull << ((blk + got) % 64);
		got++;
	}
	f->mapped += got;
	if (got < want && blk + got < f->nblocks)
		*bs = (uint32_t)(got * w->min_bs);
	return blk;
}

/* Chooses direction, size, file and offset of the next data I/O. */
static void prep_data(struct sb_worker *w, struct sb_io_u *u)
{
	const struct sb_job_opts *o = w->o;
	int d;

	if (w->trim_then_write) {
		/* trimwrite: write the block just trimmed */
		w->trim_then_write = false;
		u->offset = w->tw_offset;
		u->len = w->tw_len;
		u->ddir = SB_WRITE;
		u->file = w->tw_file;
		u->verify = 0;
		if (o->refill_buffers || o->buffer_pattern_len || o->verify_pattern_len)
			fill_buffer(w, u->buf, u->len);
		return;
	}
	if (w->verify_phase)
		d = SB_READ;
	else if (sb_rw_trims(o->rw))
		d = SB_TRIM;
	else if (sb_rw_mixed(o->rw))
		d = sb_rand_below(&w->rng_off, 100) < o->rwmixread ? SB_READ : SB_WRITE;
	else
		d = sb_rw_reads(o->rw) ? SB_READ : SB_WRITE;

	/* the verify replay draws sizes as the writes did */
	int bd = w->verify_phase ? SB_WRITE : d;
	uint32_t bs = pick_bs(w, bd);
	if (!w->o->time_based) {
		/* never past size: done_issuing() stops when not even min_bs fits */
		uint64_t target = w->verify_phase ? w->verify_target : w->io_total;
		uint64_t left = target > w->bytes_issued ? target - w->bytes_issued : 0;
		if (o->rw == SB_RW_TRIMWRITE)
			left /= 2; /* each block is trimmed, then written */
		uint32_t fit = fit_bs(w, bd, bs, left);
		if (fit)
			bs = fit;
	}
	unsigned fi = pick_file(w);
	struct sb_file *f = &w->files[fi];

	uint64_t off;
	if (sb_rw_random(o->rw)) {
		uint64_t blk;
		if (f->dist[bd]) {
			blk = sb_dist_next(f->dist[bd], &w->rng_off);
		} else if (w->nomap) {
			blk = sb_rand_below(&w->rng_off, f->nblocks);
		} else if (f->map) {
			blk = map_next(w, f, &bs);
		} else {
			if (f->perm_i == f->nblocks) {
				f->pass++;
				sb_perm_init(&f->perm, f->nblocks,
					     w->seed ^ (0x51ed27ull * (fi + 1)) ^ (f->pass << 40));
				f->perm_i = 0;
			}
			blk = sb_perm_at(&f->perm, f->perm_i++);
		}
		off = blk * w->align;
		if (off + bs > f->size) /* a large block near the end, still aligned */
			off = (f->size - bs) / w->align * w->align;
	} else {
		int sd = w->verify_phase || d == SB_TRIM ? SB_WRITE : d;
		uint64_t pos = f->seq_pos[sd];
		if (pos + bs > f->size) {
			/* the end of the file: a smaller given size that fits, else wrap */
			uint32_t fit = fit_bs(w, bd, bs, f->size - pos);
			if (fit)
				bs = fit;
			else
				pos = 0;
		}
		off = pos;
		f->seq_pos[sd] = pos + bs;
	}
	f->served += bs;
	u->offset = f->start + off;
	u->len = bs;
	u->ddir = (uint16_t)d;
	u->file = (uint16_t)fi;
	u->verify = w->verify_phase;
	if (d == SB_TRIM && o->rw == SB_RW_TRIMWRITE) {
		w->trim_then_write = true;
		w->tw_offset = u->offset;
		w->tw_len = bs;
		w->tw_file = (uint16_t)fi;
	}
	if (d == SB_WRITE) {
		if (o->refill_buffers || o->buffer_pattern_len || o->verify_pattern_len)
			fill_buffer(w, u->buf, bs);
		if (o->verify != SB_VERIFY_NONE && o->verify != SB_VERIFY_PATTERN)
			(void)sb_verify_stamp(u->buf, bs, u->offset, o->verify);
	}
}

/* verify=pattern: the block must hold the pattern from its first byte. */
static int check_pattern(const struct sb_job_opts *o, const unsigned char *buf, uint32_t len,
			 char *why, size_t whylen)
{
	unsigned plen = o->verify_pattern_len;
	for (uint32_t i = 0; i < len; i++) {
		if (buf[i] != o->verify_pattern[i % plen]) {
			snprintf(why, whylen, "byte %u is 0x%02x, the pattern has 0x%02x", i,
				 buf[i], o->verify_pattern[i % plen]);
			return -EILSEQ;
		}
	}
	return 0;
}

static void record_error(struct sb_worker *w, const struct sb_io_u *u, int err)
{
	struct sb_job_result *r = w->res;
	if (err == ENOSPC)
		r->enospc++;
	else if (err == EIO)
		r->eio++;
	if (r->error)
		return;
	r->error = err;
	snprintf(r->errmsg, sizeof(r->errmsg), "%s of %u bytes at offset %llu of '%s' failed: %s",
		 sb_ddir_name((enum sb_ddir)u->ddir), u->len, (unsigned long long)u->offset,
		 w->files[u->file].path, strerror(err));
}

/* Closes the per-second intervals that ended before `now`. */
static int close_intervals(struct sb_worker *w, uint64_t now)
{
	const struct sb_job_opts *o = w->o;
	while (now >= w->next_boundary) {
		double secs = (double)w->interval_ns / 1e9;
		for (int d = 0; d < 3; d++) {
			struct sb_dir_result *dr = &w->res->dir[d];
			if (d == SB_TRIM && !sb_rw_trims(o->rw))
				continue;
			struct sb_interval iv = {w->slot_ios[d], w->slot_bytes[d], w->slot_clat[d],
						 w->slot_lat[d],
						 o->gtod_reduce ? NULL : &w->slot_hist[d]};
			if (sb_series_push(&dr->series, &iv))
				return -ENOMEM;
			bool active = d == SB_READ    ? sb_rw_reads(o->rw) || o->verify_only
				      : d == SB_WRITE ? sb_rw_writes(o->rw) && !o->verify_only
						      : true;
			if (active) {
				sb_stat_add(&dr->bw_samples,
					    (double)w->slot_bytes[d] / 1024.0 / secs);
				sb_stat_add(&dr->iops_samples, (double)w->slot_ios[d] / secs);
			}
			w->slot_ios[d] = w->slot_bytes[d] = w->slot_clat[d] = w->slot_lat[d] = 0;
			memset(&w->slot_hist[d], 0, sizeof(w->slot_hist[d]));
		}
		w->next_boundary += w->interval_ns;
		if (!w->said_first_interval) {
			/* a progress mark: the job is measuring (tests wait for it) */
			w->said_first_interval = true;
			sb_debug("Measured the first second", "job=%s clone=%u", o->name, w->clone);
		}
	}
	return 0;
}

static void thread_rusage(uint64_t *usr_us, uint64_t *sys_us, uint64_t *ctx, uint64_t *majf,
			  uint64_t *minf)
{
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) != 0) {
		*usr_us = *sys_us = *ctx = *majf = *minf = 0;
		return;
	}
	*usr_us = (uint64_t)ru.ru_utime.tv_sec * 1000000 + (uint64_t)ru.ru_utime.tv_usec;
	*sys_us = (uint64_t)ru.ru_stime.tv_sec * 1000000 + (uint64_t)ru.ru_stime.tv_usec;
	*ctx = (uint64_t)(ru.ru_nvcsw + ru.ru_nivcsw);
	*majf = (uint64_t)ru.ru_majflt;
	*minf = (uint64_t)ru.ru_minflt;
}

/* CLOCK_REALTIME in ns at monotonic time mono (sb_now_ns) shortly before now. */
static int64_t realtime_at(uint64_t mono)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t later = sb_now_ns();
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - (int64_t)(later - mono);
}

static void begin_measure(struct sb_worker *w, uint64_t now)
{
	w->measuring = true;
	w->res->series_start_ns = realtime_at(now);
	w->t_measure = now;
	w->t_last_complete = now;
	w->next_boundary = now + w->interval_ns;
	w->bytes_issued = 0;
	memset(w->ios_issued, 0, sizeof(w->ios_issued));
	memset(w->rate_bytes, 0, sizeof(w->rate_bytes));
	memset(w->rate_due, 0, sizeof(w->rate_due));
	w->writes_since_sync = 0;
	w->sync_pending = false;
	sb_iolog_start(w->logs, now);
	if (w->ss) /* samples start ss_ramp after measuring starts */
		sb_ss_restart(w->ss, now, w->o->ss_ramp_us * 1000);
	thread_rusage(&w->rusage_usr_us, &w->rusage_sys_us, &w->rusage_ctx, &w->rusage_majf,
		      &w->rusage_minf);
}

/* Accounts one completed I/O at time tc. */
static void complete_io(struct sb_worker *w, struct sb_io_u *u, uint64_t tc)
{
	const struct sb_job_opts *o = w->o;
	struct sb_job_result *r = w->res;
	int d = u->ddir;

	if (u->res < 0) {
		record_error(w, u, -u->res);
		if (!u->ramp)
			r->dir[d].errors++;
	} else if (d != SB_SYNC && u->verify && (uint32_t)u->res == u->len) {
		char why[160];
		r->verify_checked++;
		int bad = o->verify == SB_VERIFY_PATTERN
				  ? check_pattern(o, u->buf, u->len, why, sizeof(why))
				  : sb_verify_check(u->buf, u->len, u->offset, o->verify, why,
						    sizeof(why));
		if (bad) {
			r->verify_errors++;
			if (r->nbad < SB_MAX_BAD_OFFSETS)
				r->bad_offsets[r->nbad++] = u->offset;
			sb_error("Verify failed", "job=%s file=%s offset=%llu len=%u reason=\"%s\"",
				 o->name, w->files[u->file].path, (unsigned long long)u->offset,
				 u->len, why);
		}
	}
	if (!u->ramp && u->res >= 0) {
		struct sb_dir_result *dr = &r->dir[d];
		dr->ios++;
		if (d == SB_SYNC && u->datasync)
			r->datasyncs++;
		if (d != SB_SYNC) {
			dr->bytes += (uint64_t)u->res;
			if ((uint32_t)u->res < u->len)
				dr->short_ios++;
			if (tc >= w->next_boundary)
				(void)close_intervals(w, tc);
			w->slot_ios[d]++;
			w->slot_bytes[d] += (uint64_t)u->res;
		}
		if (!o->gtod_reduce) {
			uint64_t clat = tc - u->t_issue, lat = tc - u->t_start;
			if (d != SB_SYNC) {
				sb_stat_add(&dr->slat, (double)(u->t_issue - u->t_start));
				sb_stat_add(&dr->clat, (double)clat);
				sb_hist_add(&dr->clat_hist, clat);
				sb_hist_add(&w->slot_hist[d], clat);
				w->slot_clat[d] += clat;
				w->slot_lat[d] += lat;
			}
			sb_stat_add(&dr->lat, (double)lat);
			if (o->lat_percentiles || d == SB_SYNC)
				sb_hist_add(&dr->lat_hist, lat);
		}
		if (w->logs && d != SB_SYNC)
			sb_iolog_add(w->logs, tc, d, (uint32_t)u->res, u->offset,
				     o->gtod_reduce ? 0 : tc - u->t_start,
				     o->gtod_reduce ? 0 : tc - u->t_issue,
				     o->gtod_reduce ? 0 : u->t_issue - u->t_start);
		w->t_last_complete = tc;
	}
	w->free_io_us[w->nfree++] = u;
}

/* Returns true when the job must stop issuing new I/O. */
static bool done_issuing(struct sb_worker *w, uint64_t now)
{
	const struct sb_job_opts *o = w->o;
	if (w->res->error || sb_stop_requested())
		return true;
	if (w->verify_phase)
		return w->bytes_issued + w->min_bs > w->verify_target;
	if (!w->measuring)
		return false;
	if (w->ss && w->ss->attained)
		return true; /* steady: fio ends the job */
	uint64_t elapsed_us = (now - w->t_measure) / 1000;
	if (o->runtime_us && elapsed_us >= o->runtime_us)
		return true;
	if (o->time_based)
		return false;
	return w->bytes_issued + w->min_bs > w->io_total;
}

/* Sleep needed (ns) before the next I/O to respect rate / rate_iops, or 0. */
static uint64_t rate_wait(struct sb_worker *w, uint64_t now)
{
	const struct sb_job_opts *o = w->o;
	uint64_t since = now - (w->measuring ? w->t_measure : w->t_begin), need = 0;

	for (int d = 0; d < 2; d++) {
		uint64_t t = 0;
		if (o->rate_poisson)
			t = w->rate_due[d]; /* poisson_advance() */
		else if (o->rate_bps[d])
			t = (uint64_t)((double)w->rate_bytes[d] * 1e9 / (double)o->rate_bps[d]);
		if (o->rate_iops[d] && !o->rate_poisson) {
			uint64_t t2 = (uint64_t)((double)w->ios_issued[d] * 1e9 /
						 (double)o->rate_iops[d]);
			if (t2 > t)
				t = t2;
		}
		if (t > since && t - since > need)
			need = t - since;
	}
	return need;
}

static int fatal(struct sb_worker *w, const char *what, int err)
{
	if (!w->res->error) {
		w->res->error = err;
		snprintf(w->res->errmsg, sizeof(w->res->errmsg), "%s engine: %s failed: %s",
			 w->eng->name, what, strerror(err));
	}
	return -err;
}

/* Reaps at least min completions and accounts them. */
static int reap(struct sb_worker *w, unsigned min, unsigned *inflight)
{
	int n = w->eng->reap(w, min, w->done, *inflight);
	if (n < 0)
		return fatal(w, "reap", -n);
	uint64_t tc = n > 0 ? sb_now_ns() : 0; /* one clock read per batch, as fio */
	for (int i = 0; i < n; i++)
		complete_io(w, w->done[i], tc);
	*inflight -= (unsigned)n;
	return n;
}

/*
 * Submits the queued I/Os (w->pending) and stamps their issue time. 0 or
 * the engine's -errno.
 */
static int submit_pending(struct sb_worker *w, unsigned *inflight)
{
	int ret = w->eng->commit(w);
	if (ret)
		return ret;
	uint64_t ti = w->o->gtod_reduce ? 0 : sb_now_ns();
	for (unsigned i = 0; i < w->npending; i++)
		w->pending[i]->t_issue = ti;
	*inflight += w->npending;
	w->npending = 0;
	return 0;
}

/*
 * Stopping on a signal: nothing more is issued; what is in flight is
 * reaped (and accounted) for at most SB_STOP_DRAIN_NS. 0, or -ETIMEDOUT
 * with the job's error set when I/Os are still in flight then.
 */
#define SB_STOP_DRAIN_NS (5 * NS_PER_SEC)
static int drain_on_stop(struct sb_worker *w, unsigned *inflight)
{
	uint64_t give_up = sb_now_ns() + SB_STOP_DRAIN_NS;
	while (*inflight) {
		if (reap(w, 0, inflight) < 0)
			return -w->res->error;
		if (!*inflight)
			break;
		if (sb_now_ns() > give_up) {
			if (!w->res->error) {
				w->res->error = ETIMEDOUT;
				snprintf(w->res->errmsg, sizeof(w->res->errmsg),
					 "%u I/Os still in flight %llu s after the stop", *inflight,
					 (unsigned long long)(SB_STOP_DRAIN_NS / NS_PER_SEC));
			}
			return -ETIMEDOUT;
		}
		struct timespec ts = {0, 1000000}; /* not sb_stop_sleep_ns: stopping already */
		(void)nanosleep(&ts, NULL);
	}
	return 0;
}

/* The sampling clock: the ramp's end, interval boundaries, the steady-state check. 0 or -ENOMEM. */
static int sample_tick(struct sb_worker *w, uint64_t now)
{
	const struct sb_job_opts *o = w->o;
	if (!w->measuring && !w->verify_phase && now - w->t_begin >= o->ramp_us * 1000)
		begin_measure(w, now);
	if (w->measuring && now >= w->next_boundary && close_intervals(w, now))
		return -ENOMEM;
	if (w->ss && w->measuring && !w->verify_phase && now >= w->ss->t_next) {
		const struct sb_dir_result *dr = w->res->dir;
		if (sb_ss_tick(w->ss, now, dr[0].ios + dr[1].ios + dr[2].ios,
			       dr[0].bytes + dr[1].bytes + dr[2].bytes) &&
		    !w->res->ss.attained_ms)
			w->res->ss.attained_ms = (now - w->t_begin) / 1000000;
	}
	return 0;
}

/* The write phase is over: true when verifying starts (everything is read back). */
static bool start_verify(struct sb_worker *w)
{
	const struct sb_job_opts *o = w->o;
	if (w->verify_phase || o->verify == SB_VERIFY_NONE || !o->do_verify || w->res->error ||
	    sb_stop_requested())
		return false;
	w->verify_phase = true;
	w->t_verify = w->t_last_complete;
	w->verify_target = w->write_bytes_all;
	w->bytes_issued = 0;
	reset_generators(w);
	return true;
}

/*
 * rate_process=poisson: the I/O of direction d just issued moves that
 * direction's next due time on by an exponential gap whose mean is one
 * over the rate (rate_iops, or rate over the block size, as fio).
 */
static void poisson_advance(struct sb_worker *w, int d)
{
	const struct sb_job_opts *o = w->o;
	if (d > SB_WRITE || !o->rate_poisson)
		return;
	double iops = o->rate_iops[d]  ? (double)o->rate_iops[d]
		      : o->rate_bps[d] ? (double)o->rate_bps[d] / (double)o->bs[d]
				       : 0;
	if (iops > 0)
		w->rate_due[d] += (uint64_t)sb_rand_exp(&w->rng_rate, 1e9 / iops);
}

/* Fills u with the next I/O: a pending fsync, or the next data I/O (counted as issued). */
static void next_io(struct sb_worker *w, struct sb_io_u *u)
{
	const struct sb_job_opts *o = w->o;
	if (w->sync_pending) {
		u->ddir = SB_SYNC;
		u->datasync = w->sync_pending_data;
		u->file = (uint16_t)(w->next_file ? w->next_file - 1 : w->nfiles - 1);
		u->len = 0;
		u->offset = 0;
		u->verify = 0;
		w->sync_pending = false;
		return;
	}
	prep_data(w, u);
	w->bytes_issued += u->len;
	w->rate_bytes[u->ddir] += u->len;
	poisson_advance(w, u->ddir);
	if (u->ddir == SB_WRITE) {
		w->ios_issued[1]++;
		w->write_bytes_all += u->len;
		unsigned every = o->fsync ? o->fsync : o->fdatasync;
		if (every && ++w->writes_since_sync % every == 0) {
			w->sync_pending = true;
			w->sync_pending_data = !o->fsync;
		}
	} else {
		w->ios_issued[u->ddir]++;
	}
}

/* Issues u: a trim synchronously (trim.c), anything else to the engine. The SB_Q_ code. */
static int issue_io(struct sb_worker *w, struct sb_io_u *u, bool sync_engine)
{
	u->ramp = !w->measuring && !w->verify_phase;
	u->t_start = w->o->gtod_reduce ? 0 : sb_now_ns();
	if (sync_engine)
		u->t_issue = u->t_start;
	if (u->ddir != SB_TRIM)
		return w->eng->queue(w, u);
	/* trims bypass the engine: a synchronous hook (trim.c) */
	if (w->eng->no_io) {
		u->res = (int32_t)u->len;
	} else {
		int64_t tr = sb_trim(w->files[u->file].fd, w->files[u->file].is_blockdev, u->offset,
				     u->len);
		u->res = tr < 0 ? (int32_t)tr : (int32_t)u->len;
	}
	u->t_issue = u->t_start;
	return SB_Q_COMPLETED;
}

static int run_loop(struct sb_worker *w)
{
	const struct sb_job_opts *o = w->o;
	unsigned inflight = 0, since_think = 0;
	bool sync_engine = w->eng->max_depth == 1;
	/* submit in pieces of this many while refilling (0: all at once); the
	 * job's iodepth_batch_submit for engines that batch at all */
	unsigned batch = w->eng->submit_batch;
	if (batch && o->iodepth_batch_submit)
		batch = o->iodepth_batch_submit;
	int ret = 0;

	for (;;) {
		uint64_t now = sb_now_ns();
		if (sample_tick(w, now))
			return fatal(w, "sampling", ENOMEM);

		bool stop = done_issuing(w, now);
		if (stop && inflight == 0) {
			/* write phase over: read everything back when verifying */
			if (start_verify(w))
				continue;
			break;
		}

		bool rated = o->rate_bps[0] || o->rate_bps[1] || o->rate_iops[0] || o->rate_iops[1];
		uint64_t wait = rated ? rate_wait(w, now) : 0;
		w->npending = 0;
		while (!stop && !wait && inflight + w->npending < w->depth && w->nfree) {
			struct sb_io_u *u = w->free_io_us[--w->nfree];
			next_io(w, u);
			int q = issue_io(w, u, sync_engine);
			if (q < 0) {
				w->free_io_us[w->nfree++] = u;
				return fatal(w, "queue", -q);
			}
			if (q == SB_Q_BUSY) {
				w->free_io_us[w->nfree++] = u;
				break;
			}
			if (q == SB_Q_COMPLETED) {
				complete_io(w, u, sb_now_ns());
			} else {
				w->pending[w->npending++] = u;
			}
			if (o->thinktime_us && ++since_think >= o->thinktime_blocks)
				break;
			/*
			 * The device gets the first I/Os of a refill while the
			 * rest are prepared: a whole depth's worth submitted at
			 * once waits in the block layer's plug until the last is
			 * built, and the device idles meanwhile (docs/benchmarks.md).
			 */
			if (batch && w->npending >= batch) {
				ret = submit_pending(w, &inflight);
				if (ret)
					return fatal(w, "submit", -ret);
			}
			stop = done_issuing(w, sync_engine ? sb_now_ns() : now);
			/* each I/O of a rated job waits its turn, at any depth: fio
			 * spaces them, it does not send a depth's worth at once */
			if (rated)
				wait = rate_wait(w, sb_now_ns());
		}
		if (w->npending) {
			ret = submit_pending(w, &inflight);
			if (ret)
				return fatal(w, "submit", -ret);
		}
		if (o->thinktime_us && since_think >= o->thinktime_blocks) {
			while (inflight)
				if (reap(w, inflight, &inflight) < 0)
					return -w->res->error;
			sleep_ns(o->thinktime_us * 1000);
			since_think = 0;
			continue;
		}
		if (inflight && sb_stop_requested()) {
			ret = drain_on_stop(w, &inflight);
			if (ret)
				return ret;
			continue; /* nothing in flight: the loop ends */
		}
		if (inflight) {
			bool full = inflight >= w->depth || !w->nfree;
			unsigned min = full || stop || wait ? 1 : 0;
			if (reap(w, min, &inflight) < 0)
				return -w->res->error;
		} else if (wait) {
			sleep_ns(wait < 50000000 ? wait : 50000000);
		}
	}
	return 0;
}

void *sb_worker_main(void *arg)
{
	struct sb_worker *w = arg;
	const struct sb_job_opts *o = w->o;
	struct sb_job_result *r = w->res;
	int ret;

	if (w->start)
		sb_gate_wait(w->start);
	if (w->setup_error)
		return NULL;
	ret = w->eng->init(w);
	if (ret) {
		fatal(w, "setup", -ret);
		return NULL;
	}
	if (o->startdelay_us)
		sleep_ns(o->startdelay_us * 1000);
	w->t_begin = sb_now_ns();
	if (o->verify_only) {
		w->verify_phase = true;
		w->verify_target = w->io_total;
		begin_measure(w, w->t_begin);
	}
	ret = run_loop(w);
	uint64_t t_end = w->t_last_complete;
	if (!ret && o->end_fsync && sb_rw_writes(o->rw) && !o->verify_only && w->measuring &&
	    !sb_stop_requested()) {
		for (unsigned i = 0; i < w->nfiles; i++) {
			if (fsync(w->files[i].fd) != 0 && !r->error) {
				r->error = errno;
				snprintf(r->errmsg, sizeof(r->errmsg), "end_fsync of '%s': %s",
					 w->files[i].path, strerror(errno));
			}
		}
		t_end = sb_now_ns();
	}
	if (w->measuring) {
		uint64_t usr, sys, ctx, majf, minf;
		thread_rusage(&usr, &sys, &ctx, &majf, &minf);
		r->runtime_us = t_end > w->t_measure ? (t_end - w->t_measure) / 1000 : 0;
		r->dir_runtime_us[0] = r->dir_runtime_us[1] = r->dir_runtime_us[2] = r->runtime_us;
		if (w->t_verify && !o->verify_only) {
			/* writes ran until the verify reads began; reads after */
			r->dir_runtime_us[SB_WRITE] = (w->t_verify - w->t_measure) / 1000;
			r->dir_runtime_us[SB_READ] = (t_end - w->t_verify) / 1000;
		}
		r->total_runtime_us = r->runtime_us;
		r->usr_s = (double)(usr - w->rusage_usr_us) / 1e6;
		r->sys_s = (double)(sys - w->rusage_sys_us) / 1e6;
		r->ctx = ctx - w->rusage_ctx;
		r->majf = majf - w->rusage_majf;
		r->minf = minf - w->rusage_minf;
	}
	if (w->ss)
		sb_ss_result_fill(w->ss, o->ss_dur_us, &r->ss);
	if (w->logs) {
		int lr = sb_iolog_close(w->logs, w->measuring ? t_end : 0);
		if (lr && !r->error) {
			r->error = -lr;
			snprintf(r->errmsg, sizeof(r->errmsg), "writing log files: %s",
				 strerror(-lr));
		}
	}
	if (r->verify_errors && !r->error) {
		r->error = EILSEQ;
		snprintf(r->errmsg, sizeof(r->errmsg),
			 "verify: %llu of %llu blocks did not match what was written (first at "
			 "offset %llu)",
			 (unsigned long long)r->verify_errors,
			 (unsigned long long)r->verify_checked,
			 (unsigned long long)r->bad_offsets[0]);
	}
	return NULL;
}
