/* SPDX-License-Identifier: MIT */
/*
 * The S3 benchmark run end to end (sb_s3_run_hooked) against a stub S3
 * endpoint in this process (libmicrohttpd: every request answered 2xx, a
 * PUT with the MD5 of its body as ETag), on an injected clock: each read
 * moves it 1 ms on, and a "slow hash" hook moves it 500 ms on. A request's
 * time must not grow with the time spent hashing its body; no two PUT
 * bodies are the same; UNSIGNED-PAYLOAD means no hash at all.
 */
#include "runner/s3/s3.h"
#include "tests/unit/harness.h"

#include <microhttpd.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* ---- the stub endpoint ---- */

#define MAX_PUTS 4096

static struct MHD_Daemon *daemon_;
static unsigned port_;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char etags[MAX_PUTS][33];
static unsigned nputs, nunsigned;

struct upload {
	EVP_MD_CTX *md5;
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, const char *body,
			     const char *etag)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	if (etag)
		MHD_add_response_header(r, "ETag", etag);
	enum MHD_Result ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

/* The PUT of an object is over: its ETag is the MD5 of what came. */
static enum MHD_Result put_done(struct MHD_Connection *c, struct upload *u)
{
	unsigned char md[16];
	unsigned int n = 0;
	char hex[35];
	if (!EVP_DigestFinal_ex(u->md5, md, &n) || n != 16)
		return MHD_NO;
	for (int i = 0; i < 16; i++)
		snprintf(hex + 1 + 2 * i, 3, "%02x", md[i]);
	hex[0] = '"';
	hex[33] = '"';
	hex[34] = '\0';
	const char *sha = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "x-amz-content-sha256");
	pthread_mutex_lock(&mu);
	if (nputs < MAX_PUTS)
		memcpy(etags[nputs++], hex + 1, 32);
	if (sha && !strcmp(sha, "UNSIGNED-PAYLOAD"))
		nunsigned++;
	pthread_mutex_unlock(&mu);
	return reply(c, 200, "", hex);
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
			       const char *method, const char *version, const char *data,
			       size_t *size, void **state)
{
	(void)cls;
	(void)version;
	struct upload *u = *state;
	if (!u) {
		u = calloc(1, sizeof(*u));
		if (!u || !(u->md5 = EVP_MD_CTX_new()) ||
		    !EVP_DigestInit_ex(u->md5, EVP_md5(), NULL))
			return MHD_NO;
		*state = u;
		return MHD_YES;
	}
	if (*size) {
		EVP_DigestUpdate(u->md5, data, *size);
		*size = 0;
		return MHD_YES;
	}
	bool object = strchr(url + 1, '/') != NULL; /* /bucket/key */
	if (!strcmp(method, "PUT") && object)
		return put_done(c, u);
	if (!strcmp(method, "GET"))
		return reply(
			c, 200,
			"<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>",
			NULL);
	return reply(c, !strcmp(method, "DELETE") ? 204 : 200, "", NULL);
}

static void done(void *cls, struct MHD_Connection *c, void **state,
		 enum MHD_RequestTerminationCode t)
{
	(void)cls;
	(void)c;
	(void)t;
	struct upload *u = *state;
	if (u) {
		EVP_MD_CTX_free(u->md5);
		free(u);
		*state = NULL;
	}
}

static int start_stub(void)
{
	if (daemon_)
		return 0;
	daemon_ =
		MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD, 0,
				 NULL, NULL, handler, NULL, MHD_OPTION_NOTIFY_COMPLETED, done, NULL,
				 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10, MHD_OPTION_END);
	if (!daemon_)
		return -1;
	port_ = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT)->port;
	return 0;
}

/* ---- the injected clock ---- */

static _Atomic uint64_t clock_ns;
static _Atomic unsigned hashes;

static uint64_t tick_clock(void *ctx)
{
	(void)ctx;
	return atomic_fetch_add(&clock_ns, 1000000ull) + 1000000ull;
}

/* a hash that takes 500 ms of the clock */
static void slow_hash(void *ctx)
{
	(void)ctx;
	atomic_fetch_add(&clock_ns, 500000000ull);
	atomic_fetch_add(&hashes, 1);
}

static void counted_hash(void *ctx)
{
	(void)ctx;
	atomic_fetch_add(&hashes, 1);
}

static const unsigned char key[SB_S3_CONTENT_KEY] = {7};

/* A 2 s (on the clock) PUT run of 4 KiB objects, one worker; its PUT p50 in *p50. */
static int put_run(void (*hash)(void *), const char *payload_hash, struct sb_s3_result *r,
		   uint64_t *p50)
{
	struct sb_s3_opts o;
	char err[512] = "";
	sb_s3_opts_init(&o);
	snprintf(o.host, sizeof(o.host), "127.0.0.1:%u", port_);
	snprintf(o.access_key, sizeof(o.access_key), "AK");
	snprintf(o.secret_key, sizeof(o.secret_key), "SK");
	int e = sb_s3_opt_set(&o, "", "payload-hash", payload_hash, err, sizeof(err));
	o.bench = SB_S3_B_PUT;
	o.obj_size = 4096;
	o.concurrent = 1;
	o.duration_us = 2000000;
	struct sb_s3_hooks h = {.now_ns = tick_clock, .after_hash = hash, .key = key};
	atomic_store(&hashes, 0);
	if (e || sb_s3_run_hooked(&o, &h, r, err, sizeof(err))) {
		fprintf(stderr, "    run: %s\n", err);
		return -1;
	}
	const double half = 50.0;
	return sb_hist_percentiles(&r->op[SB_S3_PUT].req_hist, &half, 1, p50);
}

/* The same PUTs with a hash that costs 500 ms: the request time p50 stays. */
static int test_hash_outside_timer(void)
{
	static struct sb_s3_result fast, slow;
	uint64_t p50_fast = 0, p50_slow = 0;
	CHECK_INT(start_stub(), 0);
	CHECK_INT(put_run(counted_hash, "sha256", &fast, &p50_fast), 0);
	uint64_t n_fast = fast.op[SB_S3_PUT].ok;
	sb_s3_result_release(&fast);
	CHECK_INT(put_run(slow_hash, "sha256", &slow, &p50_slow), 0);
	uint64_t n_slow = slow.op[SB_S3_PUT].ok, errs = slow.op[SB_S3_PUT].errors;
	sb_s3_result_release(&slow);
	/* the hash ran for every PUT, and it was slow: few PUTs in the 2 s */
	CHECK(n_slow >= 2 && n_slow <= 5);
	CHECK(n_fast > 100);
	CHECK_INT(errs, 0);
	CHECK(atomic_load(&hashes) >= n_slow);
	/* each request is two clock reads apart (1 ms), hashing or not */
	CHECK_NEAR(p50_fast, 1000000, 1000000 / 64);
	CHECK_INT(p50_slow, p50_fast);
	return T_PASS;
}

/* Over UNSIGNED-PAYLOAD nothing is hashed; every PUT body has an MD5 of its own. */
static int test_unsigned_and_unique(void)
{
	static struct sb_s3_result r;
	uint64_t p50 = 0;
	CHECK_INT(start_stub(), 0);
	pthread_mutex_lock(&mu);
	nputs = nunsigned = 0;
	pthread_mutex_unlock(&mu);
	CHECK_INT(put_run(counted_hash, "unsigned", &r, &p50), 0);
	uint64_t ok = r.op[SB_S3_PUT].ok;
	sb_s3_result_release(&r);
	CHECK_INT(atomic_load(&hashes), 0);
	pthread_mutex_lock(&mu);
	unsigned n = nputs, nu = nunsigned;
	pthread_mutex_unlock(&mu);
	CHECK(n > 100);
	CHECK_INT(n, ok);
	CHECK_INT(nu, n);
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++)
			CHECK(memcmp(etags[i], etags[j], 32) != 0);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"s3run/hash_outside_timer", test_hash_outside_timer},
	{"s3run/unsigned_and_unique", test_unsigned_and_unique},
};

int main(void)
{
	if (curl_global_init(CURL_GLOBAL_ALL))
		return 1;
	int r = test_run_all(cases, sizeof(cases) / sizeof(cases[0]));
	if (daemon_)
		MHD_stop_daemon(daemon_);
	curl_global_cleanup();
	return r;
}
