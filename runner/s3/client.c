/* SPDX-License-Identifier: MIT */
/*
 * One S3 request on a reused libcurl easy handle (one per worker thread, so
 * the connection and the TLS session are reused). Signing is libcurl's AWS
 * SigV4 (CURLOPT_AWS_SIGV4); the payload's SHA-256 goes into an explicit
 * x-amz-content-sha256 header, which libcurl then signs and uses as the
 * payload hash (radosgw answers 403 without it).
 */
#include "runner/s3/s3.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

const char sb_s3_empty_sha256[65] =
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

void sb_s3_sha256_hex(const void *buf, size_t len, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	static const char hx[] = "0123456789abcdef";
	if (!EVP_Digest(buf, len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32) {
		/* cannot happen with a working libcrypto; a wrong hash fails the request */
		memset(out, '0', 64);
		out[64] = '\0';
		return;
	}
	for (unsigned i = 0; i < 32; i++) {
		out[2 * i] = hx[md[i] >> 4];
		out[2 * i + 1] = hx[md[i] & 15];
	}
	out[64] = '\0';
}

/* Percent-encodes a key for a URL path (keeps '/' and the unreserved set). */
static int encode_key(const char *key, char *out, size_t outlen)
{
	static const char hx[] = "0123456789ABCDEF";
	size_t o = 0;
	for (const unsigned char *p = (const unsigned char *)key; *p; p++) {
		bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			     (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.' ||
			     *p == '~' || *p == '/';
		if (o + 4 > outlen)
			return -ENAMETOOLONG;
		if (plain) {
			out[o++] = (char)*p;
		} else {
			out[o++] = '%';
			out[o++] = hx[*p >> 4];
			out[o++] = hx[*p & 15];
		}
	}
	out[o] = '\0';
	return 0;
}

int sb_s3_url(const struct sb_s3_opts *o, const char *bucket, const char *key, const char *query,
	      char *out, size_t outlen)
{
	return sb_s3_url_at(o, sb_s3_host(o, 0), bucket, key, query, out, outlen);
}

int sb_s3_url_at(const struct sb_s3_opts *o, const char *host, const char *bucket, const char *key,
		 const char *query, char *out, size_t outlen)
{
	char ek[1024] = "";
	if (key && encode_key(key, ek, sizeof(ek)))
		return -ENAMETOOLONG;
	const char *scheme = o->tls ? "https" : "http";
	int n;
	if (o->path_style)
		n = snprintf(out, outlen, "%s://%s/%s%s%s%s%s", scheme, host, bucket,
			     key ? "/" : (query ? "/" : ""), ek, query ? "?" : "",
			     query ? query : "");
	else
		n = snprintf(out, outlen, "%s://%s.%s/%s%s%s", scheme, bucket, host, ek,
			     query ? "?" : "", query ? query : "");
	return n < 0 || (size_t)n >= outlen ? -ENAMETOOLONG : 0;
}

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *ud)
{
	struct sb_s3_client *c = ud;
	size_t n = size * nmemb;
	long st = 0;
	c->rx_bytes += n;
	if (!c->keep_body)
		curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &st);
	if (c->keep_body || st >= 300) {
		/* keep at most 4 MiB of a body (a listing page is far less) */
		if (c->body_len + n + 1 > c->body_cap && c->body_len + n < (4u << 20)) {
			size_t cap = c->body_cap ? c->body_cap : 4096;
			while (cap < c->body_len + n + 1)
				cap *= 2;
			char *b = realloc(c->body, cap);
			if (!b)
				return 0; /* curl fails the transfer: ENOMEM */
			c->body = b;
			c->body_cap = cap;
		}
		if (c->body_len + n + 1 <= c->body_cap) {
			memcpy(c->body + c->body_len, ptr, n);
			c->body_len += n;
			c->body[c->body_len] = '\0';
		}
	}
	return n;
}

static size_t on_header(char *ptr, size_t size, size_t nmemb, void *ud)
{
	struct sb_s3_client *c = ud;
	size_t n = size * nmemb;
	if (n > 5 && !strncasecmp(ptr, "etag:", 5)) {
		size_t i = 5, k = 0;
		while (i < n && (ptr[i] == ' ' || ptr[i] == '\t'))
			i++;
		while (i < n && ptr[i] != '\r' && ptr[i] != '\n' && k + 1 < sizeof(c->etag))
			c->etag[k++] = ptr[i++];
		c->etag[k] = '\0';
	}
	return n;
}

int sb_s3_client_init(struct sb_s3_client *c, const struct sb_s3_opts *o)
{
	memset(c, 0, sizeof(*c));
	c->o = o;
	c->curl = curl_easy_init();
	return c->curl ? 0 : -ENOMEM;
}

void sb_s3_client_release(struct sb_s3_client *c)
{
	if (c->curl)
		curl_easy_cleanup(c->curl);
	free(c->body);
	memset(c, 0, sizeof(*c));
}

uint64_t sb_s3_now(const struct sb_s3_hooks *h)
{
	if (h && h->now_ns)
		return h->now_ns(h->ctx);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The method's own options: HEAD has no body, PUT and POST send one. */
static bool set_method(CURL *cu, const char *method, const void *body, size_t len)
{
	if (!strcmp(method, "HEAD"))
		return curl_easy_setopt(cu, CURLOPT_NOBODY, 1L) == CURLE_OK;
	if (!strcmp(method, "PUT") || !strcmp(method, "POST"))
		return curl_easy_setopt(cu, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len) ==
			       CURLE_OK &&
		       curl_easy_setopt(cu, CURLOPT_POSTFIELDS, body ? body : "") == CURLE_OK &&
		       curl_easy_setopt(cu, CURLOPT_CUSTOMREQUEST, method) == CURLE_OK;
	return !strcmp(method, "GET") ||
	       curl_easy_setopt(cu, CURLOPT_CUSTOMREQUEST, method) == CURLE_OK;
}

/* c->msg for an answer of 300 or more: the status and S3's error code. */
static void answer_error(struct sb_s3_client *c, const char *method, const char *name)
{
	char code[64] = "";
	size_t pos = 0;
	if (c->body && sb_s3_xml_text(c->body, "Code", &pos, code, sizeof(code), NULL, 0) != 1)
		code[0] = '\0';
	snprintf(c->msg, sizeof(c->msg), "%s %s: HTTP %ld%s%s", method, name, c->status,
		 code[0] ? " " : "", code);
}

int sb_s3_request(struct sb_s3_client *c, const char *method, const char *bucket, const char *key,
		  const char *query, const void *body, size_t len, const char *sha,
		  const char *extra)
{
	const struct sb_s3_opts *o = c->o;
	char url[2048];
	char hsha[128], sigv4[128], userpwd[600];
	char shabuf[65];
	struct curl_slist *h = NULL, *t;
	CURL *cu = c->curl;
	int ret = 0;

	c->status = 0;
	c->rx_bytes = 0;
	c->body_len = 0;
	if (c->body)
		c->body[0] = '\0';
	c->msg[0] = '\0';
	c->errbuf[0] = '\0';
	c->ttfb_ns = c->total_ns = c->start_ns = c->end_ns = 0;
	c->etag[0] = '\0';
	c->host = sb_s3_host(o, c->sticky ? c->next_host : c->next_host++);
	if (sb_s3_url_at(o, c->host, bucket, key, query, url, sizeof(url))) {
		snprintf(c->msg, sizeof(c->msg), "object name too long");
		return -ENAMETOOLONG;
	}
	if (!sha) {
		if (body && len) {
			sb_s3_sha256_hex(body, len, shabuf);
			sha = shabuf;
		} else {
			sha = sb_s3_empty_sha256;
		}
	}
	snprintf(hsha, sizeof(hsha), "x-amz-content-sha256: %s", sha);
	snprintf(sigv4, sizeof(sigv4), "aws:amz:%s:s3", o->region);
	snprintf(userpwd, sizeof(userpwd), "%s:%s", o->access_key, o->secret_key);

	/* reset keeps the connection cache and the TLS session */
	curl_easy_reset(cu);
	/*
	 * libcurl 7.88 signs every header set here, also one set empty to
	 * remove it (and then not sent): so no "Expect:" or "Content-Type:"
	 * removals; a body gets an explicit Content-Type instead of the form
	 * type POSTFIELDS would add.
	 */
	bool has_body = !strcmp(method, "PUT") || !strcmp(method, "POST");
	const char *hdrs[] = {hsha, has_body ? "Content-Type: application/octet-stream" : NULL,
			      extra};
	for (size_t i = 0; i < sizeof(hdrs) / sizeof(hdrs[0]); i++) {
		if (!hdrs[i])
			continue;
		t = curl_slist_append(h, hdrs[i]);
		if (!t) {
			ret = -ENOMEM;
			goto out;
		}
		h = t;
	}
	bool ok = curl_easy_setopt(cu, CURLOPT_URL, url) == CURLE_OK &&
		  curl_easy_setopt(cu, CURLOPT_ERRORBUFFER, c->errbuf) == CURLE_OK &&
		  curl_easy_setopt(cu, CURLOPT_NOSIGNAL, 1L) == CURLE_OK &&
		  curl_easy_setopt(cu, CURLOPT_AWS_SIGV4, sigv4) == CURLE_OK &&
		  curl_easy_setopt(cu, CURLOPT_USERPWD, userpwd) == CURLE_OK &&
		  curl_easy_setopt(cu, CURLOPT_HTTPHEADER, h) == CURLE_OK &&
		  curl_easy_setopt(cu, CURLOPT_WRITEFUNCTION, on_body) == CURLE_OK &&
		  curl_easy_setopt(cu, CURLOPT_WRITEDATA, c) == CURLE_OK &&
		  curl_easy_setopt(cu, CURLOPT_HEADERFUNCTION, on_header) == CURLE_OK &&
		  curl_easy_setopt(cu, CURLOPT_HEADERDATA, c) == CURLE_OK &&
		  curl_easy_setopt(cu, CURLOPT_TIMEOUT, (long)o->timeout_s) == CURLE_OK &&
		  curl_easy_setopt(cu, CURLOPT_CONNECTTIMEOUT, 10L) == CURLE_OK &&
		  curl_easy_setopt(cu, CURLOPT_SSL_VERIFYPEER, o->insecure ? 0L : 1L) == CURLE_OK &&
		  curl_easy_setopt(cu, CURLOPT_SSL_VERIFYHOST, o->insecure ? 0L : 2L) == CURLE_OK &&
		  curl_easy_setopt(cu, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK &&
		  (!o->cacert[0] || curl_easy_setopt(cu, CURLOPT_CAINFO, o->cacert) == CURLE_OK);
	if (!ok || !set_method(cu, method, body, len)) {
		snprintf(c->msg, sizeof(c->msg), "libcurl refused an option");
		ret = -EINVAL;
		goto out;
	}
	/* the timer holds the request only: the URL, headers and the body's hash are ready */
	c->start_ns = sb_s3_now(c->hooks);
	CURLcode rc = curl_easy_perform(cu);
	c->end_ns = sb_s3_now(c->hooks);
	c->total_ns = c->end_ns - c->start_ns;
	curl_off_t st = 0;
	if (curl_easy_getinfo(cu, CURLINFO_STARTTRANSFER_TIME_T, &st) == CURLE_OK && st > 0)
		c->ttfb_ns = (uint64_t)st * 1000u;
	if (c->ttfb_ns > c->total_ns)
		c->ttfb_ns = c->total_ns;
	if (rc != CURLE_OK) {
		snprintf(c->msg, sizeof(c->msg), "%s %s: %s", method, key ? key : bucket,
			 c->errbuf[0] ? c->errbuf : curl_easy_strerror(rc));
		c->status = 0;
		if (c->sticky)
			c->next_host++; /* that host did not answer: the next request tries another */
		ret = rc == CURLE_OUT_OF_MEMORY ? -ENOMEM : -EIO;
		goto out;
	}
	curl_easy_getinfo(cu, CURLINFO_RESPONSE_CODE, &c->status);
	if (c->status >= 300)
		answer_error(c, method, key ? key : bucket);
out:
	/* the easy handle keeps pointers to these: clear them before they go */
	curl_easy_setopt(cu, CURLOPT_HTTPHEADER, NULL);
	curl_easy_setopt(cu, CURLOPT_USERPWD, "");
	explicit_bzero(userpwd, sizeof(userpwd));
	curl_slist_free_all(h);
	return ret;
}

/* The code point of reference ref[0..n) (what is between '&' and ';'); -1 if none. */
static long xml_ref(const char *ref, size_t n)
{
	static const struct {
		const char *name;
		char c;
	} named[] = {{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (strlen(named[i].name) == n && !memcmp(ref, named[i].name, n))
			return named[i].c;
	if (n < 2 || ref[0] != '#')
		return -1;
	bool hex = ref[1] == 'x';
	size_t i = hex ? 2 : 1;
	long v = 0;
	if (i == n)
		return -1;
	for (; i < n; i++) {
		int d = ref[i] >= '0' && ref[i] <= '9'		? ref[i] - '0'
			: hex && ref[i] >= 'a' && ref[i] <= 'f' ? ref[i] - 'a' + 10
			: hex && ref[i] >= 'A' && ref[i] <= 'F' ? ref[i] - 'A' + 10
								: -1;
		if (d < 0 || v > 0x10FFFF)
			return -1;
		v = v * (hex ? 16 : 10) + d;
	}
	/* XML's Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF] */
	bool ok = v == 0x9 || v == 0xA || v == 0xD || (v >= 0x20 && v <= 0xD7FF) ||
		  (v >= 0xE000 && v <= 0xFFFD) || (v >= 0x10000 && v <= 0x10FFFF);
	return ok ? v : -1;
}

/* v as UTF-8 into out (4 bytes at most); the length. */
static size_t utf8_put(long v, char *out)
{
	if (v < 0x80) {
		out[0] = (char)v;
		return 1;
	}
	if (v < 0x800) {
		out[0] = (char)(0xC0 | (v >> 6));
		out[1] = (char)(0x80 | (v & 0x3F));
		return 2;
	}
	if (v < 0x10000) {
		out[0] = (char)(0xE0 | (v >> 12));
		out[1] = (char)(0x80 | ((v >> 6) & 0x3F));
		out[2] = (char)(0x80 | (v & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (v >> 18));
	out[1] = (char)(0x80 | ((v >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((v >> 6) & 0x3F));
	out[3] = (char)(0x80 | (v & 0x3F));
	return 4;
}

/* Decodes s[0..n) (an element's text) into out. 1, -EINVAL, -ENOSPC (err written). */
static int xml_decode(const char *tag, const char *s, size_t n, char *out, size_t outlen, char *err,
		      size_t errlen)
{
	size_t o = 0;
	char buf[4];
	for (size_t i = 0; i < n;) {
		size_t k = 1;
		const char *put = s + i;
		if (s[i] == '&') {
			const char *semi = memchr(s + i + 1, ';', n - i - 1 < 12 ? n - i - 1 : 12);
			long v = semi ? xml_ref(s + i + 1, (size_t)(semi - s - i - 1)) : -1;
			if (v < 0) {
				/* show the reference, or what follows the '&' */
				size_t shown = semi ? (size_t)(semi - s - i) + 1 : n - i;
				if (err)
					snprintf(err, errlen,
						 "<%s>: '%.*s' is not an XML reference (&amp; &lt; "
						 "&gt; &quot; &apos; &#N; &#xN;)",
						 tag, (int)(shown < 12 ? shown : 12), s + i);
				return -EINVAL;
			}
			k = utf8_put(v, buf);
			put = buf;
			i = (size_t)(semi - s) + 1;
		} else {
			if ((unsigned char)s[i] < 0x20 && s[i] != '\t' && s[i] != '\n' &&
			    s[i] != '\r') {
				if (err)
					snprintf(err, errlen,
						 "<%s>: control character 0x%02x in the text", tag,
						 (unsigned char)s[i]);
				return -EINVAL;
			}
			i++;
		}
		if (o + k >= outlen) {
			if (err)
				snprintf(err, errlen, "<%s>: the text is longer than %zu bytes",
					 tag, outlen ? outlen - 1 : 0);
			return -ENOSPC;
		}
		memcpy(out + o, put, k);
		o += k;
	}
	if (outlen)
		out[o] = '\0';
	return 1;
}

int sb_s3_xml_text(const char *body, const char *tag, size_t *pos, char *out, size_t outlen,
		   char *err, size_t errlen)
{
	char open[64], close[64];
	snprintf(open, sizeof(open), "<%s>", tag);
	snprintf(close, sizeof(close), "</%s>", tag);
	const char *s = strstr(body + *pos, open);
	if (!s)
		return 0;
	s += strlen(open);
	const char *e = strstr(s, close);
	if (!e)
		return 0;
	int r = xml_decode(tag, s, (size_t)(e - s), out, outlen, err, errlen);
	if (r == 1)
		*pos = (size_t)(e - body) + strlen(close);
	return r;
}

size_t sb_s3_xml_count(const char *body, const char *tag)
{
	char open[64];
	size_t n = 0;
	int len = snprintf(open, sizeof(open), "<%s>", tag);
	for (const char *p = strstr(body, open); p; p = strstr(p + len, open))
		n++;
	return n;
}
