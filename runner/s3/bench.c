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

void sb_s3_opstat_init(struct sb_s3_opstat *s)
{
	memset(s, 0, sizeof(*s));
}

void sb_s3_opstat_release(struct sb_s3_opstat *s)
{
	sb_s3_oplog_release(&s->log);
	sb_s3_analysis_release(&s->an);
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

int sb_s3_opstat_merge(struct sb_s3_opstat *dst, const struct sb_s3_opstat *src)
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
	return sb_s3_oplog_append(&dst->log, &src->log);
}

int sb_s3_result_analyse(struct sb_s3_result *r)
{
	for (int i = 0; i < SB_S3_NOPS; i++) {
		struct sb_s3_opstat *s = &r->op[i];
		sb_s3_analysis_release(&s->an);
		if (sb_s3_analyse(s->log.v, s->log.n, r->interval_us * 1000, &s->an))
			return -ENOMEM;
	}
	return 0;
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
	const struct sb_s3_hooks *hooks; /* may be NULL */
	const char *bucket;
	uint64_t t0_ns, deadline_ns;
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
	_Atomic int stop;		      /* autoterm: the workers end their loop */
	_Atomic unsigned running;	      /* workers whose thread has not ended */
	uint64_t autoterm_next;		      /* when autoterm checks next */
	struct sb_s3_oplog autoterm_ops;      /* its copy of the requests */
	unsigned char key[SB_S3_CONTENT_KEY]; /* the objects' content key, per run */
	bool sign_payload; /* x-amz-content-sha256: the body's SHA-256 (else UNSIGNED-PAYLOAD) */
};

struct worker {
	struct run *run;
	unsigned idx;
	struct sb_s3_client c;
	/* st[op] and their logs: the autoterm check reads them while the worker runs */
	pthread_mutex_t st_mu;
	struct sb_s3_opstat *st[SB_S3_NOPS];
	uint64_t rng;
	uint64_t end_ns;
	int fatal; /* -ENOMEM */
	void *(*fn)(void *);
	EVP_CIPHER_CTX *cipher; /* the content generator */
	unsigned char *body;	/* the body of the PUT (or part) being sent */
	size_t body_cap;
};

static uint64_t now_ns(const struct run *rn)
{
	return sb_s3_now(rn->hooks);
}

static void key_of(const struct run *rn, uint64_t id, char *out, size_t outlen)
{
	snprintf(out, outlen, "%s%llu/%llu.obj", rn->o->prefix,
		 (unsigned long long)(id % rn->o->concurrent), (unsigned long long)id);
}

/* Called with st_mu held. */
static struct sb_s3_opstat *stat_of(struct worker *w, enum sb_s3_op op)
{
	if (!w->st[op]) {
		w->st[op] = calloc(1, sizeof(struct sb_s3_opstat));
		if (!w->st[op]) {
			w->fatal = -ENOMEM;
			return NULL;
		}
	}
	return w->st[op];
}

/*
 * When a request (or a multipart upload) ran: req_ns the time inside its
 * requests only, [start_ns, end_ns] its first start and last end.
 */
struct span {
	uint64_t req_ns, ttfb_ns, start_ns, end_ns;
};

/* The span of the client's last request. */
static struct span client_span(const struct worker *w)
{
	struct span sp = {w->c.total_ns, w->c.ttfb_ns, w->c.start_ns, w->c.end_ns};
	if (!sp.end_ns) /* it never started (a name too long, no memory): now, empty */
		sp.start_ns = sp.end_ns = now_ns(w->run);
	return sp;
}

/* Records one finished request that moved `bytes` and touched `objects`. */
static void record_span(struct worker *w, enum sb_s3_op op, bool ok, const struct span *sp,
			uint64_t bytes, uint64_t objects)
{
	pthread_mutex_lock(&w->st_mu);
	struct sb_s3_opstat *s = stat_of(w, op);
	struct sb_s3_oprec rec = {.start_ns = sp->start_ns,
				  .end_ns = sp->end_ns,
				  .bytes = ok ? bytes : 0,
				  .objects = (uint32_t)objects,
				  .worker = (uint16_t)w->idx,
				  .ok = ok};
	if (s && sb_s3_oplog_add(&s->log, &rec))
		w->fatal = -ENOMEM;
	if (s && !ok)
		sb_s3_opstat_error(s, (int)w->c.status, w->c.msg);
	if (s && ok) {
		s->requests++;
		s->ok++;
		s->bytes += bytes;
		s->objects += objects;
		sb_stat_add(&s->req, (double)sp->req_ns);
		sb_hist_add(&s->req_hist, sp->req_ns);
		sb_stat_add(&s->ttfb, (double)sp->ttfb_ns);
		sb_hist_add(&s->ttfb_hist, sp->ttfb_ns);
	}
	pthread_mutex_unlock(&w->st_mu);
}

/* Records the client's last request. */
static void record(struct worker *w, enum sb_s3_op op, bool ok, uint64_t bytes, uint64_t objects)
{
	struct span sp = client_span(w);
	record_span(w, op, ok, &sp, bytes, objects);
}

/*
 * The body of object id's part `part` (0: a single PUT) of len bytes in
 * w->body, and its x-amz-content-sha256 value in sha: both made before
 * the request's timer starts. 0, -ENOMEM, -EIO.
 */
static int make_body(struct worker *w, uint64_t id, uint32_t part, size_t len, char sha[65])
{
	struct run *rn = w->run;
	if (len > w->body_cap) {
		unsigned char *b = realloc(w->body, len);
		if (!b)
			return -ENOMEM;
		w->body = b;
		w->body_cap = len;
	}
	if (sb_s3_content_fill(w->cipher, rn->key, id, part, w->body, len)) {
		snprintf(w->c.msg, sizeof(w->c.msg), "OpenSSL refused to generate the content");
		return -EIO;
	}
	if (!rn->sign_payload) {
		snprintf(sha, 65, "UNSIGNED-PAYLOAD");
		return 0;
	}
	sb_s3_sha256_hex(w->body, len, sha);
	if (rn->hooks && rn->hooks->after_hash)
		rn->hooks->after_hash(rn->hooks->ctx);
	return 0;
}

/* ---- operations ---- */

static bool status_ok(long st)
{
	return st >= 200 && st < 300;
}

/* Adds the client's last request to *sp (the first one starts it). */
static void span_add(struct span *sp, const struct sb_s3_client *c)
{
	if (!c->end_ns)
		return;
	if (!sp->start_ns)
		sp->start_ns = c->start_ns;
	sp->end_ns = c->end_ns;
	sp->req_ns += c->total_ns;
	sp->ttfb_ns = c->ttfb_ns;
}

/* Each part of object id's upload; the parts' list for the completion appended to xml. */
static int put_parts(struct worker *w, uint64_t id, const char *key, const char *eup, uint64_t size,
		     char *xml, size_t xcap, size_t *xlen, struct span *sp)
{
	struct run *rn = w->run;
	const struct sb_s3_opts *o = rn->o;
	struct sb_s3_client *c = &w->c;
	uint64_t nparts = (size + o->part_size - 1) / o->part_size;
	char q[1024], sha[65];
	for (uint64_t p = 0; p < nparts; p++) {
		uint64_t len = size - p * o->part_size;
		if (len > o->part_size)
			len = o->part_size;
		int r = make_body(w, id, (uint32_t)(p + 1), (size_t)len, sha);
		if (r)
			return r;
		snprintf(q, sizeof(q), "partNumber=%llu&uploadId=%s", (unsigned long long)p + 1,
			 eup);
		r = sb_s3_request(c, "PUT", rn->bucket, key, q, w->body, (size_t)len, sha, NULL);
		span_add(sp, c);
		if (r || !status_ok(c->status) || !c->etag[0])
			return r ? r : -EIO;
		*xlen += (size_t)snprintf(
			xml + *xlen, xcap - *xlen,
			"<Part><PartNumber>%llu</PartNumber><ETag>%s</ETag></Part>",
			(unsigned long long)p + 1, c->etag);
	}
	return 0;
}

/*
 * A multipart upload of object id, size bytes: create, parts, complete
 * (abort on failure). *sp: its requests' time and span.
 */
static int put_multipart(struct worker *w, uint64_t id, const char *key, uint64_t size,
			 struct span *sp)
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
	span_add(sp, c);
	c->keep_body = false;
	if (!status_ok(c->status) || !c->body ||
	    sb_s3_xml_text(c->body, "UploadId", &pos, upload, sizeof(upload), c->msg,
			   sizeof(c->msg)) != 1)
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
	ret = put_parts(w, id, key, eup, size, xml, xcap, &xlen, sp);
	if (!ret) {
		xlen += (size_t)snprintf(xml + xlen, xcap - xlen, "</CompleteMultipartUpload>");
		snprintf(q, sizeof(q), "uploadId=%s", eup);
		c->keep_body = true;
		if (sb_s3_request(c, "POST", rn->bucket, key, q, xml, xlen, NULL, NULL) ||
		    !status_ok(c->status) || (c->body && strstr(c->body, "<Error>")))
			ret = -EIO;
		span_add(sp, c);
		c->keep_body = false;
	}
	if (ret && ret != -ENOMEM) {
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

/*
 * PUT of object id with size bytes; 0 when the server said 2xx. Its
 * content is made and hashed first: the time recorded is the request's
 * own (a multipart upload's: its requests', not the parts' making).
 */
static int do_put(struct worker *w, uint64_t id, uint64_t size, bool rec)
{
	struct run *rn = w->run;
	const struct sb_s3_opts *o = rn->o;
	char key[512], sha[65];
	key_of(rn, id, key, sizeof(key));
	int r;
	struct span sp = {0};
	if (size >= o->multipart_threshold) {
		w->c.keep_body = true;
		r = put_multipart(w, id, key, size, &sp);
		w->c.keep_body = false;
		if (!sp.end_ns)
			sp.start_ns = sp.end_ns = now_ns(rn);
	} else {
		r = make_body(w, id, 0, (size_t)size, sha);
		if (r) {
			w->c.status = 0;
			sp.start_ns = sp.end_ns = now_ns(rn);
		} else {
			r = sb_s3_request(&w->c, "PUT", rn->bucket, key, NULL, w->body,
					  (size_t)size, sha, NULL);
			sp = client_span(w);
			if (!r && !status_ok(w->c.status))
				r = -EIO;
		}
	}
	if (r == -ENOMEM)
		w->fatal = r;
	if (rec)
		record_span(w, SB_S3_PUT, r == 0, &sp, size, 1);
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
	record(w, stat ? SB_S3_STAT : SB_S3_GET, ok, stat ? 0 : w->c.rx_bytes, 1);
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
		record(w, SB_S3_DELETE, ok, 0, 1);
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
	record(w, SB_S3_DELETE, r == 0, 0, n);
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
	int x;
	while ((x = sb_s3_xml_text(body, "Key", &pos, k, sizeof(k), c->msg, sizeof(c->msg))) == 1) {
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
	if (x < 0)
		return -EIO; /* a listing we cannot read: c->msg names the element */
	char trunc[16] = "";
	pos = 0;
	if (sb_s3_xml_text(body, "IsTruncated", &pos, trunc, sizeof(trunc), NULL, 0) != 1)
		trunc[0] = '\0';
	pos = 0;
	if (!strcmp(trunc, "true")) {
		x = sb_s3_xml_text(body, "NextContinuationToken", &pos, token, toklen, c->msg,
				   sizeof(c->msg));
		if (x < 0)
			return -EIO;
		if (x == 1 && token[0])
			return 0;
	}
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
	record(w, SB_S3_LIST, r == 0, w->c.rx_bytes, n);
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
	size_t i = (size_t)(sb_s3_rand(rng) % rn->npool);
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
		uint64_t size = sb_s3_pick_size(rn->o, &w->rng);
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
	unsigned x = (unsigned)(sb_s3_rand(rng) % 100), acc = 0;
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
	while (!w->fatal && now_ns(rn) < rn->deadline_ns && !sb_stop_requested() &&
	       !atomic_load(&rn->stop)) {
		struct obj ob;
		uint64_t errs_before = 0;
		for (int i = 0; i < SB_S3_NOPS; i++)
			errs_before += w->st[i] ? w->st[i]->errors : 0;
		switch (o->bench) {
		case SB_S3_B_PUT:
			do_put(w, atomic_fetch_add(&rn->next_id, 1), sb_s3_pick_size(o, &w->rng),
			       true);
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
				uint64_t size = sb_s3_pick_size(o, &w->rng);
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
	w->end_ns = now_ns(rn);
	return NULL;
}

static void *worker_entry(void *arg)
{
	struct worker *w = arg;
	w->fn(w);
	atomic_fetch_sub(&w->run->running, 1);
	return NULL;
}

/*
 * Runs fn on n workers and waits for them; tick (may be NULL) is called
 * about every 100 ms while they run. 0, or -errno when a thread could not
 * start (then fewer ran).
 */
static int run_workers(struct run *rn, struct worker *ws, unsigned n, void *(*fn)(void *),
		       void (*tick)(struct run *rn, struct worker *ws, unsigned n))
{
	pthread_t *t = calloc(n, sizeof(*t));
	unsigned started = 0;
	int ret = 0;
	if (!t)
		return -ENOMEM;
	for (; started < n; started++) {
		ws[started].fn = fn;
		atomic_fetch_add(&rn->running, 1);
		int e = pthread_create(&t[started], NULL, worker_entry, &ws[started]);
		if (e) {
			atomic_fetch_sub(&rn->running, 1);
			ret = -e;
			break;
		}
	}
	while (tick && atomic_load(&rn->running) > 0) {
		struct timespec ts = {0, 100 * 1000 * 1000};
		nanosleep(&ts, NULL);
		tick(rn, ws, started);
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
		size_t nerr = sb_s3_xml_count(body, "Error");
		char key[256] = "", code[64] = "";
		size_t kp = 0, cp = 0;
		if (sb_s3_xml_text(body, "Key", &kp, key, sizeof(key), NULL, 0) != 1)
			key[0] = '\0';
		if (sb_s3_xml_text(body, "Code", &cp, code, sizeof(code), NULL, 0) != 1)
			code[0] = '\0';
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
		char token[1024] = "";
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
	/* another region than S3's first names itself (CreateBucketConfiguration) */
	char conf[256] = "";
	size_t clen = 0;
	if (o->region[0] && strcmp(o->region, "us-east-1"))
		clen = (size_t)snprintf(
			conf, sizeof(conf),
			"<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/"
			"2006-03-01/\"><LocationConstraint>%s</LocationConstraint>"
			"</CreateBucketConfiguration>",
			o->region);
	if (sb_s3_request(c, "PUT", r->bucket, NULL, NULL, clen ? conf : NULL, clen, NULL, NULL) ==
	    -ENOMEM)
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

/* The content key and how PUTs sign their body. 0 or -EIO (err written). */
static int init_content(struct run *rn, const struct sb_s3_opts *o, char *err, size_t errlen)
{
	if (rn->hooks && rn->hooks->key) {
		memcpy(rn->key, rn->hooks->key, sizeof(rn->key));
	} else if (getrandom(rn->key, sizeof(rn->key), 0) != (ssize_t)sizeof(rn->key)) {
		snprintf(err, errlen, "getrandom failed: no key for the objects' content");
		return -EIO;
	}
	rn->sign_payload = o->payload_hash == SB_S3_HASH_SHA256 ||
			   (o->payload_hash == SB_S3_HASH_AUTO && !o->tls);
	return 0;
}

/* o->concurrent workers in *out (each with its client); 0 or -ENOMEM. */
static int new_workers(struct run *rn, const struct sb_s3_opts *o, struct worker **out)
{
	struct worker *ws = calloc(o->concurrent, sizeof(*ws));
	*out = ws;
	if (!ws)
		return -ENOMEM;
	for (unsigned i = 0; i < o->concurrent; i++)
		pthread_mutex_init(&ws[i].st_mu, NULL);
	for (unsigned i = 0; i < o->concurrent; i++) {
		ws[i].run = rn;
		ws[i].idx = i;
		ws[i].rng = 0x853c49e6748fea9bull * (i + 1) ^ sb_s3_now(NULL);
		if (!ws[i].rng)
			ws[i].rng = 1;
		ws[i].cipher = EVP_CIPHER_CTX_new();
		if (!ws[i].cipher || sb_s3_client_init(&ws[i].c, o))
			return -ENOMEM;
		ws[i].c.hooks = rn->hooks;
		ws[i].c.next_host = i; /* several hosts: the workers start on different ones */
	}
	return 0;
}

/* The bodies of the PUTs (not needed once the objects are prepared for a get, ...). */
static void free_bodies(struct worker *ws, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		free(ws[i].body);
		ws[i].body = NULL;
		ws[i].body_cap = 0;
	}
}

static void free_workers(struct worker *ws, unsigned n)
{
	if (!ws)
		return;
	free_bodies(ws, n);
	for (unsigned i = 0; i < n; i++) {
		sb_s3_client_release(&ws[i].c);
		EVP_CIPHER_CTX_free(ws[i].cipher);
		pthread_mutex_destroy(&ws[i].st_mu);
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
	uint64_t t = now_ns(rn);
	sb_info("Preparing objects", "bucket=%s objects=%u size=%llu", r->bucket, o->objects,
		(unsigned long long)o->obj_size);
	int ret = run_workers(rn, ws, o->concurrent, prepare_main, NULL);
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
		(double)(now_ns(rn) - t) / 1e9);
	return 0;
}

/* The requests autoterm watches (warp's: the benchmark's operation; mixed: all) copied into l. */
static int autoterm_ops(const struct run *rn, struct worker *ws, unsigned n, struct sb_s3_oplog *l)
{
	static const enum sb_s3_op watched[SB_S3_B_NONE] = {
		[SB_S3_B_GET] = SB_S3_GET,	 [SB_S3_B_PUT] = SB_S3_PUT,
		[SB_S3_B_DELETE] = SB_S3_DELETE, [SB_S3_B_STAT] = SB_S3_STAT,
		[SB_S3_B_LIST] = SB_S3_LIST,	 [SB_S3_B_MIXED] = SB_S3_NOPS};
	enum sb_s3_op want = rn->o->bench < SB_S3_B_NONE ? watched[rn->o->bench] : SB_S3_NOPS;
	int ret = 0;
	l->n = 0;
	for (unsigned i = 0; i < n && !ret; i++) {
		pthread_mutex_lock(&ws[i].st_mu);
		for (int k = 0; k < SB_S3_NOPS && !ret; k++)
			if (ws[i].st[k] && (want == SB_S3_NOPS || (int)want == k))
				ret = sb_s3_oplog_append(l, &ws[i].st[k]->log);
		pthread_mutex_unlock(&ws[i].st_mu);
	}
	return ret;
}

/* Once a second of the run: warp's autoterm rule on what ran so far. */
static void autoterm_tick(struct run *rn, struct worker *ws, unsigned n)
{
	const struct sb_s3_opts *o = rn->o;
	struct sb_s3_oplog *l = &rn->autoterm_ops;
	uint64_t t = now_ns(rn);
	if (atomic_load(&rn->stop) || t < rn->autoterm_next)
		return;
	rn->autoterm_next = t + 1000000000ull;
	double rate;
	bool by_bytes;
	if (autoterm_ops(rn, ws, n, l) ||
	    !sb_s3_autoterm_stable(l->v, l->n, o->autoterm_dur_us * 1000, o->autoterm_pct, &rate,
				   &by_bytes))
		return;
	atomic_store(&rn->stop, 1);
	sb_info("Throughput stable: ending the benchmark (autoterm)",
		"rate=%.2f%s within_pct=%g after_s=%.1f", by_bytes ? rate / 1048576.0 : rate,
		by_bytes ? "MiB/s" : "obj/s", o->autoterm_pct, (double)(t - rn->t0_ns) / 1e9);
}

/* The benchmark for its duration; the workers' statistics merged into r. 0 or -errno. */
static int bench_phase(struct run *rn, struct worker *ws, struct sb_s3_result *r, char *err,
		       size_t errlen)
{
	const struct sb_s3_opts *o = rn->o;
	if (o->bench != SB_S3_B_PUT && o->bench != SB_S3_B_MIXED)
		free_bodies(ws, o->concurrent);
	rn->t0_ns = now_ns(rn);
	rn->deadline_ns = rn->t0_ns + o->duration_us * 1000;
	int ret =
		run_workers(rn, ws, o->concurrent, bench_main, o->autoterm ? autoterm_tick : NULL);
	r->autoterm = atomic_load(&rn->stop) != 0;
	uint64_t end = rn->t0_ns;
	for (unsigned i = 0; i < o->concurrent; i++) {
		if (ws[i].end_ns > end)
			end = ws[i].end_ns;
		if (ws[i].fatal)
			ret = ws[i].fatal;
		for (int k = 0; k < SB_S3_NOPS && !ret; k++)
			if (ws[i].st[k] && sb_s3_opstat_merge(&r->op[k], ws[i].st[k]))
				ret = -ENOMEM;
	}
	r->runtime_us = (end - rn->t0_ns) / 1000;
	if (!ret && sb_s3_result_analyse(r))
		ret = -ENOMEM;
	if (ret)
		snprintf(err, errlen, "%s", strerror(-ret));
	return ret;
}

int sb_s3_run(const struct sb_s3_opts *o, struct sb_s3_result *r, char *err, size_t errlen)
{
	return sb_s3_run_hooked(o, NULL, r, err, errlen);
}

int sb_s3_run_hooked(const struct sb_s3_opts *o, const struct sb_s3_hooks *h,
		     struct sb_s3_result *r, char *err, size_t errlen)
{
	struct run rn = {.o = o, .hooks = h};
	struct worker *ws = NULL;
	struct sb_s3_client admin;
	int ret = 0;
	bool have_bucket = false;

	memset(r, 0, sizeof(*r));
	r->bench = o->bench;
	r->concurrent = o->concurrent;
	r->interval_us = (uint64_t)o->interval_ms * 1000;
	pthread_mutex_init(&rn.mu, NULL);
	for (int i = 0; i < SB_S3_NOPS; i++)
		sb_s3_opstat_init(&r->op[i]);
	if (sb_s3_client_init(&admin, o))
		return -ENOMEM;
	admin.hooks = h;
	admin.sticky = true; /* the bucket's own requests: one host while it answers */

	ret = init_content(&rn, o, err, errlen);
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
	sb_s3_oplog_release(&rn.autoterm_ops);
	pthread_mutex_destroy(&rn.mu);
	explicit_bzero(rn.key, sizeof(rn.key));
	return ret;
}
