/* SPDX-License-Identifier: MIT */
/*
 * A pod's log through the lib/kube client (see podlog.h). The answer is
 * text, which kube_request_do() would reject as "not JSON", so this does
 * the one GET itself with the client's own pieces: the URL builder, the
 * calling thread's easy handle (same connection and TLS session), the
 * common handle setup (TLS material, credentials), the token file, the
 * backoff and the Status-to-errno mapping.
 */
#include "plugin/podlog.h"

#include "kube/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LOG	    ((size_t)64 << 20)
#define MAX_RETRIES 4

struct buf {
	char *data;
	size_t len, cap;
	bool too_big;
};

static size_t on_data(char *p, size_t size, size_t nmemb, void *arg)
{
	struct buf *b = arg;
	size_t n = size * nmemb;
	if (b->len + n + 1 > b->cap) {
		if (b->len + n > MAX_LOG) {
			b->too_big = true;
			return 0;
		}
		size_t ncap = b->cap ? b->cap : 65536;
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

/* Transport errors a retry may fix (what lib/kube retries, minus its
 * permanent list: TLS verification, bad options, our own write errors). */
static bool transient(CURLcode cc)
{
	switch (cc) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
	case CURLE_SSL_CONNECT_ERROR:
		return true;
	default:
		return false;
	}
}

#define SETOPT(h, opt, val)                                          \
	do {                                                         \
		if (curl_easy_setopt((h), (opt), (val)) != CURLE_OK) \
			goto setopt_fail;                            \
	} while (0)

/* One try: the answer in *b, the HTTP code in *code, curl's result in *cc. */
static int one_get(struct kube_client *c, const char *url, bool force_token, struct buf *b,
		   long *code, CURLcode *cc, struct kube_error *err)
{
	struct curl_slist *headers = NULL;
	char *token = NULL, *errbuf = NULL;
	bool fresh = false;
	int ret;

	*code = 0;
	*cc = CURLE_OK;
	b->len = 0;
	b->too_big = false;
	ret = kube_client_token(c, force_token, &token);
	if (ret)
		return kube_errorf(err, ret, "GET %s: cannot read the token file: %s", url,
				   strerror(-ret));
	CURL *h = kube_client_thread_easy(c, &errbuf, &fresh);
	if (!h) {
		kube_free_secret(token);
		return kube_errorf(err, -ENOMEM, "GET %s: cannot make a curl handle", url);
	}
	ret = kube_client_setup_handle(c, h, errbuf, token, NULL, &headers);
	kube_free_secret(token);
	if (ret)
		return kube_errorf(err, ret, "GET %s: cannot set up the request", url);
	SETOPT(h, CURLOPT_HTTPGET, 1L);
	SETOPT(h, CURLOPT_URL, url);
	SETOPT(h, CURLOPT_TIMEOUT_MS, 60000L);
	SETOPT(h, CURLOPT_WRITEFUNCTION, on_data);
	SETOPT(h, CURLOPT_WRITEDATA, b);
	if (fresh) {
		SETOPT(h, CURLOPT_FRESH_CONNECT, 1L);
		SETOPT(h, CURLOPT_FORBID_REUSE, 1L);
	}
	*cc = curl_easy_perform(h);
	if (*cc == CURLE_OK) {
		if (curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, code) != CURLE_OK)
			*code = 0;
	} else {
		kube_error_set_curl(err, *cc, errbuf);
	}
	curl_slist_free_all(headers);
	return 0;

setopt_fail:
	curl_slist_free_all(headers);
	return kube_errorf(err, -ENOMEM, "GET %s: cannot set curl options", url);
}

int sbp_pod_log(struct kube_client *c, const char *ns, const char *pod, const char *container,
		char **out, size_t *len, struct kube_error *err)
{
	struct kube_query q[] = {{"container", container}};
	struct buf b = {0};
	char *url = NULL;
	bool reauthed = false, force = false;
	int ret;

	kube_error_clear(err);
	*out = NULL;
	*len = 0;
	if (!pod || !*pod)
		return kube_errorf(err, -EINVAL, "pod log: no pod name");
	ret = kube_url_build(c->cfg.server, &kube_res_pods, kube_client_ns(c, ns), pod, "log", q, 1,
			     &url);
	if (ret)
		return kube_errorf(err, ret, "cannot build the URL of the log of pod '%s': %s", pod,
				   strerror(-ret));
	for (unsigned attempt = 0;; attempt++) {
		long code = 0;
		CURLcode cc = CURLE_OK;
		kube_error_clear(err);
		ret = one_get(c, url, force, &b, &code, &cc, err);
		force = false;
		if (ret)
			goto out;
		if (cc != CURLE_OK || code == 429 || code >= 500) {
			if (attempt < MAX_RETRIES && (cc == CURLE_OK || transient(cc))) {
				kube_sleep_ms(kube_backoff_ms(attempt, 200, 5000, kube_random()));
				continue;
			}
			if (cc == CURLE_OK) {
				ret = kube_error_from_status(err, code, b.data, b.len);
			} else if (b.too_big) {
				ret = kube_errorf(err, -EFBIG,
						  "the log of pod '%s' is over %zu bytes", pod,
						  MAX_LOG);
			} else {
				ret = kube_errorf(err, cc == CURLE_WRITE_ERROR ? -ENOMEM : -EIO,
						  "GET %s: transport error", url);
			}
			goto out;
		}
		if (code == 401 && !reauthed) {
			/* a rotated token: re-read the file once */
			reauthed = force = true;
			continue;
		}
		if (code < 200 || code >= 300) {
			ret = kube_error_from_status(err, code, b.data, b.len);
			goto out;
		}
		break;
	}
	if (!b.data) {
		b.data = strdup("");
		if (!b.data) {
			ret = -ENOMEM;
			goto out;
		}
	}
	*out = b.data;
	*len = b.len;
	b.data = NULL;
	ret = 0;
out:
	free(b.data);
	free(url);
	return ret;
}
