/* SPDX-License-Identifier: MIT */
/*
 * The S3 benchmark: bucket safety (a new bucket per run, or a given bucket
 * that must be empty), the prepare phase, the timed workers (one thread and
 * one easy handle each), and the cleanup (every object, then the bucket if
 * this run made it).
 *
 * Object names: "<prefix><w>/<id>" with w = id % concurrent, so a list
 * worker w lists its own prefix as warp's list benchmark does.
 */
#include "core/log.h"
#include "runner/s3/s3.h"
#include "runner/mode/stop.h"

#include <errno.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* ---- statistics ---- */

int sb_s3_opstat_init(struct sb_s3_opstat *s, size_t nsec)
{
	memset(s, 0, sizeof(*s));
	s->nsec = nsec;
	if (!nsec)
		return 0;
	s->sec_ops = calloc(nsec, sizeof(uint64_t));
	s->sec_bytes = calloc(nsec, sizeof(uint64_t));
	s->sec_objects = calloc(nsec, sizeof(uint64_t));
	if (!s->sec_ops || !s->sec_bytes || !s->sec_objects) {
		sb_s3_opstat_release(s);
		return -ENOMEM;
	}
	return 0;
}

void sb_s3_opstat_release(struct sb_s3_opstat *s)
{
	free(s->sec_ops);
	free(s->sec_bytes);
	free(s->sec_objects);
	s->sec_ops = s->sec_bytes = s->sec_objects = NULL;
	s->nsec = 0;
}

void sb_s3_opstat_error(struct sb_s3_opstat *s, int status, const char *msg)
{
	unsigned i;
	s->requests++;
	s->errors++;
	if (!s->first_error[0] && msg)
		snprintf(s->first_error, sizeof(s->first_error), "%s", msg);
	for (i = 0; i < s->nstatus; i++)
		if (s->status[i] == status)
			break;
	if (i == s->nstatus) {
		if (s->nstatus == SB_S3_MAX_STATUS)
			i = SB_S3_MAX_STATUS - 1; /* too many kinds: the last one takes the rest */
		else
			s->status[s->nstatus++] = status;
	}
	s->status_n[i]++;
}

void sb_s3_opstat_merge(struct sb_s3_opstat *dst, const struct sb_s3_opstat *src)
{
	dst->requests += src->requests;
	dst->errors += src->errors;
	dst->ok += src->ok;
	dst->bytes += src->bytes;
	dst->objects += src->objects;
	sb_stat_merge(&dst->req, &src->req);
	sb_stat_merge(&dst->ttfb, &src->ttfb);
	sb_hist_merge(&dst->req_hist, &src->req_hist);
	sb_hist_merge(&dst->ttfb_hist, &src->ttfb_hist);
	if (!dst->first_error[0] && src->first_error[0])
		memcpy(dst->first_error, src->first_error, sizeof(dst->first_error));
	for (unsigned j = 0; j < src->nstatus; j++) {
		unsigned i;
		for (i = 0; i < dst->nstatus; i++)
			if (dst->status[i] == src->status[j])
				break;
		if (i == dst->nstatus) {
			if (dst->nstatus == SB_S3_MAX_STATUS)
				i = SB_S3_MAX_STATUS - 1;
			else
				dst->status[dst->nstatus++] = src->status[j];
		}
		dst->status_n[i] += src->status_n[j];
	}
	size_t n = dst->nsec < src->nsec ? dst->nsec : src->nsec;
	for (size_t i = 0; i < n; i++) {
		dst->sec_ops[i] += src->sec_ops[i];
		dst->sec_bytes[i] += src->sec_bytes[i];
		dst->sec_objects[i] += src->sec_objects[i];
	}
}

void sb_s3_result_release(struct sb_s3_result *r)
{
	for (int i = 0; i < SB_S3_NOPS; i++)
		sb_s3_opstat_release(&r->op[i]);
}

/* ---- shared state of a run ---- */

struct obj {
	uint64_t id;
	uint64_t size;
};

struct run {
	const struct sb_s3_opts *o;
	const char *bucket;
	uint64_t t0_ns, deadline_ns, interval_ns;
	size_t nsec;
	/* objects that exist (prepared, and in mixed runs those put since) */
	pthread_mutex_t mu;
	struct obj *pool;
	size_t npool, cpool;
	_Atomic uint64_t next_id;     /* ids of new objects */
	_Atomic uint64_t delete_next; /* delete benchmark: next pool index */
	_Atomic uint64_t prepare_next;
	_Atomic uint64_t prepared;
	_Atomic int prepare_failed;
	char prepare_err[256];
	unsigned char *data; /* random payload, max(obj_size) or a part's size */
	size_t data_len;
	char data_sha[65]; /* SHA-256 of data[0..obj_size) when the size is fixed */
	char part_sha[65]; /* SHA-256 of data[0..part_size) */
	bool fixed_sha;
};

struct worker {
	struct run *run;
	unsigned idx;
	struct sb_s3_client c;
	struct sb_s3_opstat *st[SB_S3_NOPS];
	uint64_t rng;
	uint64_t end_ns;
	int fatal; /* -ENOMEM */
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t rnd(uint64_t *s)
{
	/* xorshift64* */
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static void key_of(const struct run *rn, uint64_t id, char *out, size_t outlen)
{
	snprintf(out, outlen, "%s%llu/%llu.obj", rn->o->prefix,
		 (unsigned long long)(id % rn->o->concurrent), (unsigned long long)id);
}

static uint64_t pick_size(const struct sb_s3_opts *o, uint64_t *rng)
{
	if (!o->randsize)
		return o->obj_size;
	uint64_t lo = o->obj_size_min ? o->obj_size_min : 1;
	return lo + rnd(rng) % (o->obj_size - lo + 1);
}

static struct sb_s3_opstat *stat_of(struct worker *w, enum sb_s3_op op)
{
	if (!w->st[op]) {
		w->st[op] = calloc(1, sizeof(struct sb_s3_opstat));
		if (!w->st[op] || sb_s3_opstat_init(w->st[op], w->run->nsec)) {
			free(w->st[op]);
			w->st[op] = NULL;
			w->fatal = -ENOMEM;
			return NULL;
		}
	}
	return w->st[op];
}

/* Records one finished request that moved `bytes` and touched `objects`. */
static void record(struct worker *w, enum sb_s3_op op, bool ok, uint64_t req_ns, uint64_t ttfb_ns,
		   uint64_t bytes, uint64_t objects, int status, const char *msg)
{
	struct sb_s3_opstat *s = stat_of(w, op);
	if (!s)
		return;
	if (!ok) {
		sb_s3_opstat_error(s, status, msg);
		return;
	}
	s->requests++;
	s->ok++;
	s->bytes += bytes;
	s->objects += objects;
	sb_stat_add(&s->req, (double)req_ns);
	sb_hist_add(&s->req_hist, req_ns);
	sb_stat_add(&s->ttfb, (double)ttfb_ns);
	sb_hist_add(&s->ttfb_hist, ttfb_ns);
	uint64_t t = now_ns();
	if (t >= w->run->t0_ns) {
		uint64_t sec = (t - w->run->t0_ns) / w->run->interval_ns;
		if (sec < s->nsec) {
			s->sec_ops[sec]++;
			s->sec_bytes[sec] += bytes;
			s->sec_objects[sec] += objects;
		}
	}
}

/* ---- operations ---- */

static bool status_ok(long st)
{
	return st >= 200 && st < 300;
}

/* A multipart upload of size bytes: create, parts, complete (abort on failure). */
static int put_multipart(struct worker *w, const char *key, uint64_t size)
{
	struct run *rn = w->run;
	const struct sb_s3_opts *o = rn->o;
	struct sb_s3_client *c = &w->c;
	char upload[512], q[1024], *xml = NULL;
	size_t xcap = 0, xlen = 0;
	uint64_t nparts = (size + o->part_size - 1) / o->part_size;
	int ret = 0;
	size_t pos = 0;

	if (sb_s3_request(c, "POST", rn->bucket, key, "uploads=", "", 0, NULL, NULL))
		return -EIO;
	c->keep_body = false;
	if (!status_ok(c->status) || !c->body ||
	    !sb_s3_xml_next(c->body, "UploadId", &pos, upload, sizeof(upload)))
		return -EIO;
	char *eup = curl_easy_escape(c->curl, upload, 0);
	if (!eup)
		return -ENOMEM;
	xcap = 128 + nparts * 200;
	xml = malloc(xcap);
	if (!xml) {
		curl_free(eup);
		return -ENOMEM;
	}
	xlen = (size_t)snprintf(xml, xcap, "<CompleteMultipartUpload>");
	for (uint64_t p = 0; p < nparts; p++) {
		uint64_t len = size - p * o->part_size;
		if (len > o->part_size)
			len = o->part_size;
		snprintf(q, sizeof(q), "partNumber=%llu&uploadId=%s", (unsigned long long)p + 1,
			 eup);
		const char *sha = len == o->part_size ? rn->part_sha : NULL;
		if (sb_s3_request(c, "PUT", rn->bucket, key, q, rn->data, (size_t)len, sha, NULL) ||
		    !status_ok(c->status) || !c->etag[0]) {
			ret = -EIO;
			break;
		}
		xlen += (size_t)snprintf(
			xml + xlen, xcap - xlen,
			"<Part><PartNumber>%llu</PartNumber><ETag>%s</ETag></Part>",
			(unsigned long long)p + 1, c->etag);
	}
	if (!ret) {
		xlen += (size_t)snprintf(xml + xlen, xcap - xlen, "</CompleteMultipartUpload>");
		snprintf(q, sizeof(q), "uploadId=%s", eup);
		c->keep_body = true;
		if (sb_s3_request(c, "POST", rn->bucket, key, q, xml, xlen, NULL, NULL) ||
		    !status_ok(c->status) || (c->body && strstr(c->body, "<Error>")))
			ret = -EIO;
		c->keep_body = false;
	}
	if (ret) {
		/* keep the message of the failure, abort the upload (best effort) */
		char msg[256];
		long st = c->status;
		memcpy(msg, c->msg, sizeof(msg));
		snprintf(q, sizeof(q), "uploadId=%s", eup);
		sb_s3_request(c, "DELETE", rn->bucket, key, q, NULL, 0, NULL, NULL);
		memcpy(c->msg, msg, sizeof(msg));
		c->status = st;
	}
	curl_free(eup);
	free(xml);
	return ret;
}

/* PUT of object id with size bytes. 0 when the server said 2xx. */
static int do_put(struct worker *w, uint64_t id, uint64_t size, bool rec)
{
	struct run *rn = w->run;
	const struct sb_s3_opts *o = rn->o;
	char key[512];
	key_of(rn, id, key, sizeof(key));
	uint64_t t0 = now_ns();
	int r;
	uint64_t ttfb;
	if (size >= o->multipart_threshold) {
		w->c.keep_body = true;
		r = put_multipart(w, key, size);
		w->c.keep_body = false;
		ttfb = w->c.ttfb_ns;
	} else {
		const char *sha = rn->fixed_sha && size == o->obj_size ? rn->data_sha : NULL;
		r = sb_s3_request(&w->c, "PUT", rn->bucket, key, NULL, rn->data, (size_t)size, sha,
				  NULL);
		ttfb = w->c.ttfb_ns;
		if (!r && !status_ok(w->c.status))
			r = -EIO;
	}
	if (r == -ENOMEM)
		w->fatal = r;
	if (rec)
		record(w, SB_S3_PUT, r == 0, now_ns() - t0, ttfb, size, 1, (int)w->c.status,
		       w->c.msg);
	return r;
}

static bool pool_has(struct run *rn, uint64_t id);

static int do_get_stat(struct worker *w, const struct obj *ob, bool stat)
{
	struct run *rn = w->run;
	char key[512];
	key_of(rn, ob->id, key, sizeof(key));
	int r = sb_s3_request(&w->c, stat ? "HEAD" : "GET", rn->bucket, key, NULL, NULL, 0, NULL,
			      NULL);
	bool ok = r == 0 && status_ok(w->c.status);
	/* mixed: another worker deleted the object while this one read it (our own
	 * race, not the server's error): not counted */
	if (!ok && r == 0 && w->c.status == 404 && rn->o->bench == SB_S3_B_MIXED &&
	    !pool_has(rn, ob->id))
		return -EIO;
	if (ok && !stat && w->c.rx_bytes != ob->size) {
		ok = false;
		snprintf(w->c.msg, sizeof(w->c.msg), "GET %s: %llu bytes, expected %llu", key,
			 (unsigned long long)w->c.rx_bytes, (unsigned long long)ob->size);
	}
	record(w, stat ? SB_S3_STAT : SB_S3_GET, ok, w->c.total_ns, w->c.ttfb_ns,
	       stat ? 0 : w->c.rx_bytes, 1, (int)w->c.status, w->c.msg);
	return ok ? 0 : -EIO;
}

static int do_delete(struct worker *w, uint64_t id, bool rec)
{
	struct run *rn = w->run;
	char key[512];
	key_of(rn, id, key, sizeof(key));
	int r = sb_s3_request(&w->c, "DELETE", rn->bucket, key, NULL, NULL, 0, NULL, NULL);
	bool ok = r == 0 && status_ok(w->c.status);
	if (rec)
		record(w, SB_S3_DELETE, ok, w->c.total_ns, w->c.ttfb_ns, 0, 1, (int)w->c.status,
		       w->c.msg);
	return ok ? 0 : -EIO;
}

static int delete_batch(struct sb_s3_client *c, const char *bucket, const char *const *keys,
			size_t n);

/*
 * warp's delete --batch: objects[0..n) in one multi-object delete, counted
 * as one request that touched n objects (ops/s are objects per second).
 */
static int do_delete_batch(struct worker *w, const struct obj *objs, size_t n)
{
	struct run *rn = w->run;
	char(*keys)[512] = malloc(n * sizeof(*keys));
	const char **kp = malloc(n * sizeof(*kp));
	if (!keys || !kp) {
		free(keys);
		free(kp);
		w->fatal = -ENOMEM;
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		key_of(rn, objs[i].id, keys[i], sizeof(keys[i]));
		kp[i] = keys[i];
	}
	int r = delete_batch(&w->c, rn->bucket, kp, n);
	free(keys);
	free(kp);
	if (r == -ENOMEM) {
		w->fatal = r;
		return r;
	}
	record(w, SB_S3_DELETE, r == 0, w->c.total_ns, w->c.ttfb_ns, 0, n, (int)w->c.status,
	       w->c.msg);
	return r;
}

/*
 * One page of a listing of prefix (continuation token in/out, empty when
 * done). *nkeys: keys on the page; keys (may be NULL) gets them, appended.
 */
static int list_page(struct sb_s3_client *c, const char *bucket, const char *prefix,
		     unsigned max_keys, char *token, size_t toklen, uint64_t *nkeys, char ***keys,
		     size_t *nk, size_t *ck)
{
	char q[2048];
	char *ep = curl_easy_escape(c->curl, prefix, 0);
	char *et = token[0] ? curl_easy_escape(c->curl, token, 0) : NULL;
	if (!ep || (token[0] && !et)) {
		curl_free(ep);
		curl_free(et);
		return -ENOMEM;
	}
	/* sorted by name: libcurl 7.88 signs the query string as given, SigV4 wants it sorted */
	snprintf(q, sizeof(q), "%s%s%slist-type=2&max-keys=%u&prefix=%s",
		 et ? "continuation-token=" : "", et ? et : "", et ? "&" : "", max_keys, ep);
	curl_free(ep);
	curl_free(et);
	c->keep_body = true;
	int r = sb_s3_request(c, "GET", bucket, NULL, q, NULL, 0, NULL, NULL);
	c->keep_body = false;
	*nkeys = 0;
	if (r)
		return r;
	if (!status_ok(c->status))
		return -EIO;
	const char *body = c->body ? c->body : "";
	size_t pos = 0;
	char k[1024];
	while (sb_s3_xml_next(body, "Key", &pos, k, sizeof(k))) {
		(*nkeys)++;
		if (keys) {
			if (*nk == *ck) {
				size_t cap = *ck ? *ck * 2 : 256;
				char **v = realloc(*keys, cap * sizeof(*v));
				if (!v)
					return -ENOMEM;
				*keys = v;
				*ck = cap;
			}
			(*keys)[*nk] = strdup(k);
			if (!(*keys)[*nk])
				return -ENOMEM;
			(*nk)++;
		}
	}
	char trunc[16] = "";
	pos = 0;
	sb_s3_xml_next(body, "IsTruncated", &pos, trunc, sizeof(trunc));
	pos = 0;
	if (!strcmp(trunc, "true") &&
	    sb_s3_xml_next(body, "NextContinuationToken", &pos, token, toklen) && token[0])
		return 0;
	token[0] = '\0';
	return 0;
}

/* warp's list: each worker lists its own prefix to the end, again and again. */
static void do_list(struct worker *w, char *token, size_t toklen)
{
	struct run *rn = w->run;
	char prefix[256];
	uint64_t n = 0;
	snprintf(prefix, sizeof(prefix), "%s%u/", rn->o->prefix, w->idx % rn->o->concurrent);
	int r = list_page(&w->c, rn->bucket, prefix, rn->o->max_keys, token, toklen, &n, NULL, NULL,
			  NULL);
	if (r == -ENOMEM)
		w->fatal = r;
	record(w, SB_S3_LIST, r == 0, w->c.total_ns, w->c.ttfb_ns, w->c.rx_bytes, n,
	       (int)w->c.status, w->c.msg);
	if (r)
		token[0] = '\0';
}

/* ---- the object pool (mixed runs change it) ---- */

static int pool_add(struct run *rn, uint64_t id, uint64_t size)
{
	pthread_mutex_lock(&rn->mu);
	if (rn->npool == rn->cpool) {
		size_t cap = rn->cpool ? rn->cpool * 2 : 1024;
		struct obj *v = realloc(rn->pool, cap * sizeof(*v));
		if (!v) {
			pthread_mutex_unlock(&rn->mu);
			return -ENOMEM;
		}
		rn->pool = v;
		rn->cpool = cap;
	}
	rn->pool[rn->npool++] = (struct obj){.id = id, .size = size};
	pthread_mutex_unlock(&rn->mu);
	return 0;
}

/* Whether object id is in the pool (still there, as far as the run knows). */
static bool pool_has(struct run *rn, uint64_t id)
{
	bool found = false;
	pthread_mutex_lock(&rn->mu);
	for (size_t i = 0; i < rn->npool && !found; i++)
		found = rn->pool[i].id == id;
	pthread_mutex_unlock(&rn->mu);
	return found;
}

/* A random object of the pool (removed from it when take). false when empty. */
static bool pool_pick(struct run *rn, uint64_t *rng, bool take, struct obj *out)
{
	pthread_mutex_lock(&rn->mu);
	if (!rn->npool) {
		pthread_mutex_unlock(&rn->mu);
		return false;
	}
	size_t i = (size_t)(rnd(rng) % rn->npool);
	*out = rn->pool[i];
	if (take)
		rn->pool[i] = rn->pool[--rn->npool];
	pthread_mutex_unlock(&rn->mu);
	return true;
}

/* ---- threads ---- */

static void *prepare_main(void *arg)
{
	struct worker *w = arg;
	struct run *rn = w->run;
	for (;;) {
		if (atomic_load(&rn->prepare_failed) || sb_stop_requested())
			break;
		uint64_t i = atomic_fetch_add(&rn->prepare_next, 1);
		if (i >= rn->o->objects)
			break;
		uint64_t size = pick_size(rn->o, &w->rng);
		if (do_put(w, i, size, false)) {
			if (!atomic_exchange(&rn->prepare_failed, 1))
				snprintf(rn->prepare_err, sizeof(rn->prepare_err), "%s",
					 w->c.msg[0] ? w->c.msg : "out of memory");
			break;
		}
		if (pool_add(rn, i, size)) {
			w->fatal = -ENOMEM;
			atomic_store(&rn->prepare_failed, 1);
			break;
		}
		atomic_fetch_add(&rn->prepared, 1);
	}
	return NULL;
}

static enum sb_s3_op mixed_op(const struct sb_s3_opts *o, uint64_t *rng)
{
	unsigned x = (unsigned)(rnd(rng) % 100), acc = 0;
	static const enum sb_s3_op order[] = {SB_S3_GET, SB_S3_STAT, SB_S3_PUT, SB_S3_DELETE};
	for (size_t i = 0; i < 4; i++) {
		acc += o->distrib[order[i]];
		if (x < acc)
			return order[i];
	}
	return SB_S3_GET;
}

static void *bench_main(void *arg)
{
	struct worker *w = arg;
	struct run *rn = w->run;
	const struct sb_s3_opts *o = rn->o;
	char token[1024] = "";

	/* SIGTERM/SIGINT: no new request; the one under way ends (runner/mode/stop.h) */
	while (!w->fatal && now_ns() < rn->deadline_ns && !sb_stop_requested()) {
		struct obj ob;
		uint64_t errs_before = 0;
		for (int i = 0; i < SB_S3_NOPS; i++)
			errs_before += w->st[i] ? w->st[i]->errors : 0;
		switch (o->bench) {
		case SB_S3_B_PUT:
			do_put(w, atomic_fetch_add(&rn->next_id, 1), pick_size(o, &w->rng), true);
			break;
		case SB_S3_B_GET:
		case SB_S3_B_STAT:
			if (!pool_pick(rn, &w->rng, false, &ob))
				goto done;
			do_get_stat(w, &ob, o->bench == SB_S3_B_STAT);
			break;
		case SB_S3_B_DELETE: {
			/* the next batch of prepared objects (warp's --batch, 100) */
			uint64_t n = o->batch ? o->batch : 1;
			uint64_t i = atomic_fetch_add(&rn->delete_next, n);
			if (i >= rn->npool)
				goto done; /* every object is gone: the run ends, as warp's */
			if (n > rn->npool - i)
				n = rn->npool - i;
			if (o->batch <= 1)
				do_delete(w, rn->pool[i].id, true);
			else
				do_delete_batch(w, &rn->pool[i], (size_t)n);
			break;
		}
		case SB_S3_B_LIST:
			do_list(w, token, sizeof(token));
			break;
		case SB_S3_B_MIXED: {
			enum sb_s3_op op = mixed_op(o, &w->rng);
			if (op != SB_S3_PUT && !pool_pick(rn, &w->rng, op == SB_S3_DELETE, &ob))
				op = SB_S3_PUT; /* nothing left to read or delete */
			if (op == SB_S3_PUT) {
				uint64_t id = atomic_fetch_add(&rn->next_id, 1);
				uint64_t size = pick_size(o, &w->rng);
				if (do_put(w, id, size, true) == 0 && pool_add(rn, id, size))
					w->fatal = -ENOMEM;
			} else if (op == SB_S3_DELETE) {
				if (do_delete(w, ob.id, true) && w->c.status != 404)
					pool_add(rn, ob.id, ob.size); /* it may still be there */
			} else {
				do_get_stat(w, &ob, op == SB_S3_STAT);
			}
			break;
		}
		default:
			goto done;
		}
		/* no response at all (server down): do not spin at full speed */
		uint64_t errs_after = 0;
		for (int i = 0; i < SB_S3_NOPS; i++)
			errs_after += w->st[i] ? w->st[i]->errors : 0;
		if (errs_after > errs_before && w->c.status == 0) {
			struct timespec ts = {0, 10 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
	}
done:
	w->end_ns = now_ns();
	return NULL;
}

/* Runs fn on n workers; false when a thread could not start (then fewer ran). */
static int run_workers(struct worker *ws, unsigned n, void *(*fn)(void *))
{
	pthread_t *t = calloc(n, sizeof(*t));
	unsigned started = 0;
	int ret = 0;
	if (!t)
		return -ENOMEM;
	for (; started < n; started++) {
		int e = pthread_create(&t[started], NULL, fn, &ws[started]);
		if (e) {
			ret = -e;
			break;
		}
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	free(t);
	return ret;
}

/* ---- bucket ---- */

static int describe_failure(const struct sb_s3_opts *o, const struct sb_s3_client *c,
			    const char *what, char *err, size_t errlen)
{
	const char *scheme = o->tls ? "https" : "http";
	const char *host = c->host ? c->host : sb_s3_host(o, 0); /* the one that failed */
	if (c->status == 0) {
		bool tls = strstr(c->msg, "SSL") || strstr(c->msg, "certificate") ||
			   strstr(c->msg, "TLS");
		snprintf(err, errlen, "%s://%s: %s: %s%s", scheme, host, what,
			 tls ? "TLS failure: " : "endpoint unreachable: ", c->msg);
		return tls ? -EPROTO : -EHOSTUNREACH;
	}
	if (c->status == 403) {
		snprintf(err, errlen,
			 "%s://%s: %s: access denied (%s): check the access and secret key", scheme,
			 host, what, c->msg);
		return -EACCES;
	}
	snprintf(err, errlen, "%s://%s: %s: %s", scheme, host, what, c->msg);
	return c->status == 404 ? -ENOENT : -EIO;
}

/*
 * One multi-object delete (DeleteObjects: POST ?delete, an XML body with
 * Content-MD5, as S3 and radosgw want it) of keys[0..n), n <= 1000, quiet
 * (the answer lists only the keys that failed). Returns 0 when every key was
 * deleted, -EIO when the request failed or a key was refused (c->msg says
 * which; c->status is the answer's status, 0 none), -ENOMEM.
 */
static int delete_batch(struct sb_s3_client *c, const char *bucket, const char *const *keys,
			size_t n)
{
	size_t cap = 64, len = 0;
	for (size_t k = 0; k < n; k++)
		cap += 32 + 6 * strlen(keys[k]);
	char *xml = malloc(cap);
	if (!xml)
		return -ENOMEM;
	len += (size_t)snprintf(xml, cap, "<Delete><Quiet>true</Quiet>");
	for (size_t k = 0; k < n; k++) {
		len += (size_t)snprintf(xml + len, cap - len, "<Object><Key>");
		for (const char *p = keys[k]; *p; p++) {
			const char *esc = *p == '&'   ? "&amp;"
					  : *p == '<' ? "&lt;"
					  : *p == '>' ? "&gt;"
						      : NULL;
			if (esc)
				len += (size_t)snprintf(xml + len, cap - len, "%s", esc);
			else
				xml[len++] = *p;
		}
		len += (size_t)snprintf(xml + len, cap - len, "</Key></Object>");
	}
	len += (size_t)snprintf(xml + len, cap - len, "</Delete>");
	/* S3 wants Content-MD5 on a multi-object delete */
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char md5h[64] = "Content-MD5: ";
	if (!EVP_Digest(xml, len, md, &mdlen, EVP_md5(), NULL)) {
		free(xml);
		return -EIO;
	}
	EVP_EncodeBlock((unsigned char *)md5h + strlen(md5h), md, (int)mdlen);
	bool keep = c->keep_body;
	c->keep_body = true;
	int r = sb_s3_request(c, "POST", bucket, NULL, "delete=", xml, len, NULL, md5h);
	c->keep_body = keep;
	free(xml);
	if (r)
		return r;
	if (!status_ok(c->status))
		return -EIO;
	/* a 200 whose body has <Error> entries: those keys were not deleted */
	const char *body = c->body ? c->body : "";
	if (strstr(body, "<Error>")) {
		size_t pos = 0, nerr = 0;
		char key[256] = "", code[64] = "", tmp[8];
		size_t kp = 0, cp = 0;
		(void)sb_s3_xml_next(body, "Key", &kp, key, sizeof(key));
		(void)sb_s3_xml_next(body, "Code", &cp, code, sizeof(code));
		while (sb_s3_xml_next(body, "Error", &pos, tmp, sizeof(tmp)))
			nerr++;
		snprintf(c->msg, sizeof(c->msg),
			 "POST /%s?delete: %zu of %zu keys not deleted (first: %.128s: %.48s)",
			 bucket, nerr, n, key, code);
		return -EIO;
	}
	return 0;
}

/* Deletes the keys (up to 1000 per request) with S3's multi-object delete. */
static int delete_keys(struct sb_s3_client *c, const char *bucket, char **keys, size_t n,
		       uint64_t *deleted)
{
	for (size_t i = 0; i < n;) {
		size_t batch = n - i < 1000 ? n - i : 1000;
		int r = delete_batch(c, bucket, (const char *const *)keys + i, batch);
		if (r)
			return r;
		*deleted += batch;
		i += batch;
	}
	return 0;
}

/* Lists and deletes every object of the bucket. */
static int empty_bucket(struct sb_s3_client *c, const struct sb_s3_opts *o, const char *bucket,
			uint64_t *deleted)
{
	char token[1024] = "";
	int r = 0;
	do {
		char **keys = NULL;
		size_t nk = 0, ck = 0;
		uint64_t n = 0;
		/* list a page, delete it; the next page starts over (token unused) */
		r = list_page(c, bucket, "", 1000, token, sizeof(token), &n, &keys, &nk, &ck);
		if (!r && nk)
			r = delete_keys(c, bucket, keys, nk, deleted);
		for (size_t i = 0; i < nk; i++)
			free(keys[i]);
		free(keys);
		if (r || nk == 0)
			break;
		token[0] = '\0';
	} while (1);
	(void)o;
	return r;
}

static int make_bucket(struct sb_s3_client *c, const struct sb_s3_opts *o, struct sb_s3_result *r,
		       char *err, size_t errlen)
{
	if (!o->bucket[0]) {
		unsigned char rb[6];
		if (getrandom(rb, sizeof(rb), 0) != (ssize_t)sizeof(rb)) {
			snprintf(err, errlen, "getrandom failed");
			return -EIO;
		}
		snprintf(r->bucket, sizeof(r->bucket), "storagebench-%02x%02x%02x%02x%02x%02x",
			 rb[0], rb[1], rb[2], rb[3], rb[4], rb[5]);
	} else {
		snprintf(r->bucket, sizeof(r->bucket), "%s", o->bucket);
		/* a given bucket must be empty: never benchmark one that holds data */
		char token[8] = "";
		uint64_t n = 0;
		int e = list_page(c, r->bucket, "", 1, token, sizeof(token), &n, NULL, NULL, NULL);
		if (e == -ENOMEM)
			return e;
		if (e == 0 && n > 0) {
			snprintf(err, errlen,
				 "bucket '%s' is not empty: storagebench never benchmarks a bucket "
				 "that holds data (name a new or empty bucket, or none for a new "
				 "one per run)",
				 r->bucket);
			return -ENOTEMPTY;
		}
		if (e == 0)
			return 0; /* exists, empty: use it, keep it */
		if (c->status != 404)
			return describe_failure(o, c, "checking the bucket", err, errlen);
	}
	if (sb_s3_request(c, "PUT", r->bucket, NULL, NULL, NULL, 0, NULL, NULL) == -ENOMEM)
		return -ENOMEM;
	if (!status_ok(c->status))
		return describe_failure(o, c, "creating the bucket", err, errlen);
	r->bucket_created = true;
	sb_info("Created bucket", "bucket=%s", r->bucket);
	return 0;
}

static int cleanup(struct sb_s3_client *c, const struct sb_s3_opts *o, struct sb_s3_result *r,
		   char *err, size_t errlen)
{
	if (o->keep_data) {
		sb_info("Kept the benchmark data", "bucket=%s", r->bucket);
		return 0;
	}
	/* several hosts: a host that does not answer is left for the next one */
	unsigned tries = o->nhosts > 1 ? o->nhosts : 1;
	int e;
	for (unsigned k = 0;; k++) {
		e = empty_bucket(c, o, r->bucket, &r->cleaned);
		if (!e || e == -ENOMEM || c->status != 0 || k + 1 >= tries)
			break;
	}
	if (e) {
		if (e != -ENOMEM)
			describe_failure(o, c, "removing the benchmark's objects", err, errlen);
		return e;
	}
	if (r->bucket_created) {
		int d;
		for (unsigned k = 0;; k++) {
			d = sb_s3_request(c, "DELETE", r->bucket, NULL, NULL, NULL, 0, NULL, NULL);
			if (d != -EIO || c->status != 0 || k + 1 >= tries)
				break;
		}
		if (d || !status_ok(c->status))
			return describe_failure(o, c, "removing the bucket", err, errlen);
		r->bucket_removed = true;
	}
	sb_info("Removed the benchmark data", "bucket=%s objects=%llu bucket_removed=%s", r->bucket,
		(unsigned long long)r->cleaned, r->bucket_removed ? "yes" : "no");
	return 0;
}

/* ---- the run ---- */

/* The payload: random bytes as long as the longest single request, and their hashes. */
static int make_payload(struct run *rn, const struct sb_s3_opts *o)
{
	uint64_t need = o->obj_size;
	if (o->obj_size >= o->multipart_threshold) {
		need = o->multipart_threshold - 1; /* random sizes below the threshold */
		if (need < o->part_size)
			need = o->part_size;
	}
	rn->data_len = (size_t)need;
	rn->data = malloc(rn->data_len ? rn->data_len : 1);
	if (!rn->data)
		return -ENOMEM;
	uint64_t s = 0x9E3779B97F4A7C15ull ^ (uint64_t)now_ns();
	for (size_t i = 0; i < rn->data_len; i += 8) {
		uint64_t v = rnd(&s);
		memcpy(rn->data + i, &v, rn->data_len - i < 8 ? rn->data_len - i : 8);
	}
	rn->fixed_sha = !o->randsize && o->obj_size < o->multipart_threshold;
	if (rn->fixed_sha)
		sb_s3_sha256_hex(rn->data, (size_t)o->obj_size, rn->data_sha);
	if (o->part_size <= rn->data_len)
		sb_s3_sha256_hex(rn->data, (size_t)o->part_size, rn->part_sha);
	return 0;
}

/* o->concurrent workers in *out (each with its client); 0 or -ENOMEM. */
static int new_workers(struct run *rn, const struct sb_s3_opts *o, struct worker **out)
{
	struct worker *ws = calloc(o->concurrent, sizeof(*ws));
	*out = ws;
	if (!ws)
		return -ENOMEM;
	for (unsigned i = 0; i < o->concurrent; i++) {
		ws[i].run = rn;
		ws[i].idx = i;
		ws[i].rng = 0x853c49e6748fea9bull * (i + 1) ^ (uint64_t)now_ns();
		if (!ws[i].rng)
			ws[i].rng = 1;
		if (sb_s3_client_init(&ws[i].c, o))
			return -ENOMEM;
		ws[i].c.next_host = i; /* several hosts: the workers start on different ones */
	}
	return 0;
}

static void free_workers(struct worker *ws, unsigned n)
{
	if (!ws)
		return;
	for (unsigned i = 0; i < n; i++) {
		sb_s3_client_release(&ws[i].c);
		for (int k = 0; k < SB_S3_NOPS; k++) {
			if (ws[i].st[k]) {
				sb_s3_opstat_release(ws[i].st[k]);
				free(ws[i].st[k]);
			}
		}
	}
	free(ws);
}

/* The objects get/stat/delete/list/mixed work on. 0 or -errno (err written). */
static int prepare_objects(struct run *rn, struct worker *ws, struct sb_s3_result *r, char *err,
			   size_t errlen)
{
	const struct sb_s3_opts *o = rn->o;
	uint64_t t = now_ns();
	sb_info("Preparing objects", "bucket=%s objects=%u size=%llu", r->bucket, o->objects,
		(unsigned long long)o->obj_size);
	int ret = run_workers(ws, o->concurrent, prepare_main);
	r->prepared = atomic_load(&rn->prepared);
	for (unsigned i = 0; !ret && i < o->concurrent; i++)
		if (ws[i].fatal)
			ret = ws[i].fatal;
	if (!ret && atomic_load(&rn->prepare_failed)) {
		snprintf(err, errlen, "preparing %u objects in bucket '%s' stopped after %llu: %s",
			 o->objects, r->bucket, (unsigned long long)r->prepared, rn->prepare_err);
		ret = -EIO;
	}
	if (ret)
		return ret;
	sb_info("Prepared objects", "objects=%llu seconds=%.1f", (unsigned long long)r->prepared,
		(double)(now_ns() - t) / 1e9);
	return 0;
}

/* The benchmark for its duration; the workers' statistics merged into r. 0 or -errno. */
static int bench_phase(struct run *rn, struct worker *ws, struct sb_s3_result *r, char *err,
		       size_t errlen)
{
	const struct sb_s3_opts *o = rn->o;
	rn->t0_ns = now_ns();
	rn->deadline_ns = rn->t0_ns + o->duration_us * 1000;
	int ret = run_workers(ws, o->concurrent, bench_main);
	uint64_t end = rn->t0_ns;
	for (unsigned i = 0; i < o->concurrent; i++) {
		if (ws[i].end_ns > end)
			end = ws[i].end_ns;
		if (ws[i].fatal)
			ret = ws[i].fatal;
		for (int k = 0; k < SB_S3_NOPS; k++)
			if (ws[i].st[k])
				sb_s3_opstat_merge(&r->op[k], ws[i].st[k]);
	}
	r->runtime_us = (end - rn->t0_ns) / 1000;
	/* a run that ended early (delete ran out of objects) has fewer whole intervals */
	size_t whole = (size_t)(r->runtime_us / r->interval_us);
	for (int k = 0; k < SB_S3_NOPS; k++)
		if (r->op[k].nsec > whole)
			r->op[k].nsec = whole;
	if (ret)
		snprintf(err, errlen, "%s", strerror(-ret));
	return ret;
}

int sb_s3_run(const struct sb_s3_opts *o, struct sb_s3_result *r, char *err, size_t errlen)
{
	struct run rn = {.o = o};
	struct worker *ws = NULL;
	struct sb_s3_client admin;
	int ret = 0;
	bool have_bucket = false;

	memset(r, 0, sizeof(*r));
	r->bench = o->bench;
	r->concurrent = o->concurrent;
	r->interval_us = (uint64_t)o->interval_ms * 1000;
	rn.interval_ns = r->interval_us * 1000;
	rn.nsec = (size_t)(o->duration_us / r->interval_us);
	pthread_mutex_init(&rn.mu, NULL);
	for (int i = 0; i < SB_S3_NOPS; i++)
		if (sb_s3_opstat_init(&r->op[i], rn.nsec))
			return -ENOMEM;
	if (sb_s3_client_init(&admin, o))
		return -ENOMEM;
	admin.sticky = true; /* the bucket's own requests: one host while it answers */

	ret = make_payload(&rn, o);
	if (ret)
		goto out;
	for (unsigned k = 0;; k++) {
		ret = make_bucket(&admin, o, r, err, errlen);
		if (ret != -EHOSTUNREACH || k + 1 >= (o->nhosts > 1 ? o->nhosts : 1))
			break; /* several hosts: one that does not answer is left for the next */
	}
	if (ret)
		goto out;
	have_bucket = true;
	rn.bucket = r->bucket;

	ret = new_workers(&rn, o, &ws);
	if (!ret && o->bench != SB_S3_B_PUT)
		ret = prepare_objects(&rn, ws, r, err, errlen);
	if (ret)
		goto out;
	atomic_store(&rn.next_id, (uint64_t)o->objects);
	ret = bench_phase(&rn, ws, r, err, errlen);
out:
	if (have_bucket) {
		char cerr[512] = "";
		int e = cleanup(&admin, o, r, cerr, sizeof(cerr));
		if (e && !ret) {
			snprintf(err, errlen, "%s", cerr);
			ret = e;
		} else if (e) {
			sb_error("Failed to remove the benchmark data", "bucket=%s error=\"%s\"",
				 r->bucket, cerr);
		}
	}
	free_workers(ws, o->concurrent);
	sb_s3_client_release(&admin);
	free(rn.pool);
	free(rn.data);
	pthread_mutex_destroy(&rn.mu);
	return ret;
}
