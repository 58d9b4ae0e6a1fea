/* SPDX-License-Identifier: MIT */
/* One API request on the calling thread's handle, with the retry rules:
 * 429 honours Retry-After; 5xx and transport errors are retried with capped
 * exponential backoff and jitter for idempotent requests only; a 401 is
 * retried once after re-reading the token file. */
#include "kube/request.h"
#include "kube/client_internal.h"
#include "kube/error_internal.h"
#include "kube/backoff.h"
#include "kube/util.h"
#include "kube/clock.h"
#include "core/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BODY ((size_t)256 << 20)

struct body {
	char *data;
	size_t len, cap;
	size_t max; /* longest answer kept */
	bool too_big;
	/* streaming (req->sink): a 2xx answer goes to the sink */
	const struct kube_request *req;
	CURL *h;
	size_t streamed; /* bytes given to the sink */
	int sink_ret;	 /* the sink's nonzero return, which stopped the transfer */
};

static size_t write_body(char *p, size_t size, size_t nmemb, void *arg)
{
	struct body *b = arg;
	size_t n = size * nmemb;
	long code = 0;
	if (b->req && b->req->sink &&
	    curl_easy_getinfo(b->h, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK && code >= 200 &&
	    code < 300) {
		b->streamed += n;
		b->sink_ret = b->req->sink(b->req->sink_arg, p, n);
		return b->sink_ret ? 0 : n;
	}
	if (b->len + n + 1 > b->cap) {
		if (b->len + n > b->max) {
			b->too_big = true;
			return 0; /* CURLE_WRITE_ERROR */
		}
		size_t ncap = b->cap ? b->cap : 16384;
		while (ncap < b->len + n + 1)
			ncap *= 2;
		char *nd = realloc(b->data, ncap);
		if (!nd)
			return 0;
		b->data = nd;
		b->cap = ncap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return n;
}

/* Transport errors that a retry cannot fix (bad TLS material, our bugs). */
static bool curl_permanent(CURLcode cc)
{
	switch (cc) {
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_CRL_BADFILE:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
	case CURLE_OUT_OF_MEMORY:
	case CURLE_BAD_FUNCTION_ARGUMENT:
	case CURLE_WRITE_ERROR:
	case CURLE_UNKNOWN_OPTION:
	case CURLE_NOT_BUILT_IN:
		return true;
	default:
		return false;
	}
}

/* Errors where the request certainly never reached the server. */
static bool curl_never_sent(CURLcode cc)
{
	return cc == CURLE_COULDNT_CONNECT || cc == CURLE_COULDNT_RESOLVE_HOST;
}

/* The server's Retry-After in ms (capped), or -1 when absent or invalid. */
static long retry_after(CURL *h, long cap_ms)
{
	struct curl_header *hd = NULL;
	if (curl_easy_header(h, "Retry-After", 0, CURLH_HEADER, -1, &hd) != CURLHE_OK || !hd)
		return -1;
	long ms = kube_parse_retry_after(hd->value, time(NULL));
	if (ms > cap_ms)
		ms = cap_ms;
	return ms;
}

#define SETOPT(h, opt, val)                                          \
	do {                                                         \
		if (curl_easy_setopt((h), (opt), (val)) != CURLE_OK) \
			goto setopt_fail;                            \
	} while (0)

static enum kube_verb verb_of(const struct kube_request *req)
{
	switch (req->method[0]) {
	case 'G':
		return req->list ? KUBE_VERB_LIST : KUBE_VERB_GET;
	case 'D':
		return KUBE_VERB_DELETE;
	case 'P':
		return req->method[1] == 'O'   ? KUBE_VERB_CREATE
		       : req->method[1] == 'U' ? KUBE_VERB_UPDATE
					       : KUBE_VERB_PATCH;
	default:
		return KUBE_VERB_GET;
	}
}

/* One try. *cc is curl's result; the answer lands in *b and *code. */
static int perform(struct kube_client *c, const struct kube_request *req, const char *token,
		   struct body *b, long *code, CURLcode *cc, long *retry_after_ms,
		   struct kube_error *err)
{
	struct curl_slist *headers = NULL, *t;
	char *errbuf;
	bool fresh;
	CURL *h = kube_client_thread_easy(c, &errbuf, &fresh);
	int ret;

	*code = 0;
	*retry_after_ms = -1;
	if (!h)
		return kube_errorf(err, -ENOMEM, "%s %s: cannot make a curl handle", req->method,
				   req->url);
	ret = kube_client_setup_handle(c, h, errbuf, token, req->body ? req->content_type : NULL,
				       &headers);
	if (ret)
		return kube_errorf(err, ret, "%s %s: cannot set up the request", req->method,
				   req->url);
	if (req->body) {
		/* No "Expect: 100-continue" round trip for big bodies. */
		if (!(t = curl_slist_append(headers, "Expect:")))
			goto setopt_fail;
		headers = t;
		SETOPT(h, CURLOPT_HTTPHEADER, headers);
		SETOPT(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
		SETOPT(h, CURLOPT_POSTFIELDS, req->body);
	}
	if (strcmp(req->method, "GET") == 0)
		SETOPT(h, CURLOPT_HTTPGET, 1L);
	else if (strcmp(req->method, "POST") != 0 || !req->body)
		SETOPT(h, CURLOPT_CUSTOMREQUEST, req->method);
	SETOPT(h, CURLOPT_URL, req->url);
	/* a stream lasts as long as what it follows */
	SETOPT(h, CURLOPT_TIMEOUT_MS, req->sink ? 0L : c->opts.request_timeout_ms);
	b->req = req;
	b->h = h;
	SETOPT(h, CURLOPT_WRITEFUNCTION, write_body);
	SETOPT(h, CURLOPT_WRITEDATA, b);
	/* One connection kept per thread: a create's own connection (below)
	 * closes the one before instead of piling up (curl keeps 5). */
	SETOPT(h, CURLOPT_MAXCONNECTS, 1L);
	if (fresh) {
		SETOPT(h, CURLOPT_FRESH_CONNECT, 1L);
		SETOPT(h, CURLOPT_FORBID_REUSE, 1L);
	} else if (!req->idempotent) {
		/* libcurl silently sends a request again when a reused connection
		 * closes before any answer (it cannot tell a stale keep-alive from
		 * a server that acted on it). A request that must not be repeated
		 * gets a connection of its own. */
		SETOPT(h, CURLOPT_FRESH_CONNECT, 1L);
	}

	*cc = curl_easy_perform(h);
	atomic_fetch_add(&c->n_requests, 1);
	atomic_fetch_add(&c->n_verb[verb_of(req)], 1);
	long conns = 0;
	if (curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &conns) == CURLE_OK && conns > 0)
		atomic_fetch_add(&c->n_connects, (unsigned long)conns);
	if (*cc == CURLE_OK) {
		long v = 0;
		if (curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, code) != CURLE_OK)
			*code = 0;
		if (curl_easy_getinfo(h, CURLINFO_HTTP_VERSION, &v) == CURLE_OK && v)
			atomic_store(&c->h2, v == CURL_HTTP_VERSION_2_0);
		*retry_after_ms = retry_after(h, c->opts.retry_after_max_ms);
	} else {
		kube_error_set_curl(err, *cc, errbuf);
	}
	sb_debug("Sent request", "method=%s url=%s code=%ld curl=%d", req->method, req->url, *code,
		 (int)*cc);
	curl_slist_free_all(headers);
	return 0;

setopt_fail:
	curl_slist_free_all(headers);
	return kube_errorf(err, -ENOMEM, "%s %s: cannot set curl options", req->method, req->url);
}

int kube_request_do(struct kube_client *c, const struct kube_request *req, json_t **out,
		    struct kube_error *err)
{
	struct body b = {0};
	bool reauthed = false, force_token = false;

	b.max = req->max_body ? req->max_body : MAX_BODY;
	unsigned attempt = 0;
	int ret;

	kube_error_clear(err);
	if (out)
		*out = NULL;
	for (;;) {
		char *token = NULL;
		long code = 0, ra_ms = -1;
		CURLcode cc = CURLE_OK;

		ret = kube_client_token(c, force_token, &token, err);
		if (ret)
			goto out; /* err says why: the token file, the exec plugin */
		force_token = false;
		b.len = 0;
		b.too_big = false;
		b.streamed = 0;
		kube_error_clear(err);
		ret = perform(c, req, token, &b, &code, &cc, &ra_ms, err);
		kube_free_secret(token);
		if (ret)
			goto out;

		bool retry = false;
		long delay = -1;
		if (b.sink_ret) {
			ret = b.sink_ret;
			goto out;
		}
		if (b.streamed && cc != CURLE_OK) {
			/* what arrived was passed on: a retry would repeat it */
			ret = kube_errorf(err, -EIO, "%s %s: the stream broke after %zu bytes",
					  req->method, req->url, b.streamed);
			goto out;
		}
		if (cc != CURLE_OK) {
			retry = !curl_permanent(cc) && (req->idempotent || curl_never_sent(cc));
			if (!retry || attempt >= (unsigned)c->opts.max_retries) {
				if (b.too_big)
					ret = kube_errorf(err, -EFBIG,
							  "%s %s: answer over %zu bytes",
							  req->method, req->url, b.max);
				else
					ret = kube_errorf(
						err, cc == CURLE_OUT_OF_MEMORY ? -ENOMEM : -EIO,
						"%s %s: transport error", req->method, req->url);
				goto out;
			}
		} else if (code == 401 && kube_client_token_renewable(c) && !reauthed) {
			/* The token may have rotated: re-read it and try once more. */
			reauthed = true;
			force_token = true;
			atomic_fetch_add(&c->n_reauths, 1);
			sb_info("Renewing token after 401", "source=%s url=%s",
				c->cfg.exec ? c->cfg.exec->command : c->cfg.token_file, req->url);
			continue;
		} else if (code == 429 || (code >= 500 && code < 600 && req->idempotent)) {
			retry = attempt < (unsigned)c->opts.max_retries;
			delay = ra_ms;
		}
		if (retry) {
			if (delay < 0)
				delay = kube_backoff_ms(attempt, c->opts.backoff_base_ms,
							c->opts.backoff_cap_ms, kube_random());
			sb_warn("Retrying request",
				"method=%s url=%s code=%ld curl=%d attempt=%u "
				"delay_ms=%ld",
				req->method, req->url, code, (int)cc, attempt + 1, delay);
			attempt++;
			atomic_fetch_add(&c->n_retries, 1);
			kube_sleep_ms(delay);
			continue;
		}
		if (code >= 200 && code < 300) {
			if (req->raw_out) {
				if (!b.data && !(b.data = calloc(1, 1))) {
					ret = -ENOMEM;
					goto out;
				}
				*req->raw_out = b.data;
				if (req->raw_len)
					*req->raw_len = b.len;
				b.data = NULL;
			} else if (out) {
				if (b.len == 0) {
					*out = json_null();
				} else {
					json_error_t je;
					*out = json_loadb(b.data, b.len, 0, &je);
					if (!*out) {
						ret = kube_errorf(err, -EPROTO,
								  "%s %s: answer is not JSON: %s",
								  req->method, req->url, je.text);
						if (err)
							err->http_code = code;
						goto out;
					}
				}
			}
			ret = 0;
			goto out;
		}
		ret = kube_error_from_status(err, code, b.data, b.len);
		goto out;
	}
out:
	free(b.data);
	return ret;
}
