/* SPDX-License-Identifier: MIT */
/* The client: configuration copy, per-thread curl handles, common curl
 * options (TLS, auth, HTTP/2). */
#include "kube/client_internal.h"
#include "kube/error_internal.h"
#include "kube/hub.h"
#include "core/log.h"

#include <errno.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One thread's easy handle for one client. */
struct kube_thread_handle {
	struct kube_client *client;
	CURL *easy;
	char errbuf[CURL_ERROR_SIZE];
	bool fresh; /* new connection per request (benchmark) */
	struct kube_thread_handle *next, *prev;
};

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc;

static void global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

const char *kube_http_library(char *buf, size_t size)
{
	const curl_version_info_data *vi = curl_version_info(CURLVERSION_NOW);
	char protos[256] = "";
	size_t off = 0;
	for (const char *const *p = vi->protocols; p && *p && off < sizeof(protos); p++) {
		int n = snprintf(protos + off, sizeof(protos) - off, "%s%s", off ? "," : "", *p);
		if (n < 0)
			break;
		off += (size_t)n;
	}
	bool h2 = (vi->features & CURL_VERSION_HTTP2) && vi->nghttp2_version;
	if (size)
		snprintf(buf, size, "libcurl %s ssl=%s http2=%s%s zlib=%s protocols=%s",
			 vi->version, vi->ssl_version ? vi->ssl_version : "no",
			 h2 ? "nghttp2/" : "no", h2 ? vi->nghttp2_version : "",
			 vi->libz_version ? vi->libz_version : "no", protos[0] ? protos : "none");
	return buf;
}

static int dup_buf(char **dst, const char *src, size_t len)
{
	*dst = NULL;
	if (!src)
		return 0;
	*dst = malloc(len + 1);
	if (!*dst)
		return -ENOMEM;
	memcpy(*dst, src, len);
	(*dst)[len] = '\0';
	return 0;
}

static int config_copy(struct kube_config *dst, const struct kube_config *src)
{
	kube_config_init(dst);
	dst->ca_pem_len = src->ca_pem_len;
	dst->cert_pem_len = src->cert_pem_len;
	dst->key_pem_len = src->key_pem_len;
	dst->insecure = src->insecure;
	int ret = dup_buf(&dst->server, src->server, src->server ? strlen(src->server) : 0);
	if (!ret)
		ret = dup_buf(&dst->ca_pem, src->ca_pem, src->ca_pem_len);
	if (!ret)
		ret = dup_buf(&dst->cert_pem, src->cert_pem, src->cert_pem_len);
	if (!ret)
		ret = dup_buf(&dst->key_pem, src->key_pem, src->key_pem_len);
	if (!ret && src->token)
		ret = dup_buf(&dst->token, src->token, strlen(src->token));
	if (!ret && src->token_file)
		ret = dup_buf(&dst->token_file, src->token_file, strlen(src->token_file));
	if (!ret && src->exec && !(dst->exec = kube_exec_config_dup(src->exec)))
		ret = -ENOMEM;
	if (!ret)
		ret = dup_buf(&dst->namespace, src->namespace ? src->namespace : "default",
			      strlen(src->namespace ? src->namespace : "default"));
	if (!ret && src->source)
		ret = dup_buf(&dst->source, src->source, strlen(src->source));
	if (ret)
		kube_config_release(dst);
	return ret;
}

static void handle_free(struct kube_thread_handle *h)
{
	curl_easy_cleanup(h->easy);
	free(h);
}

/* pthread key destructor: the thread exits, drop its handle. */
static void thread_exit(void *p)
{
	struct kube_thread_handle *h = p;
	struct kube_client *c = h->client;

	pthread_mutex_lock(&c->handles_lock);
	if (h->prev)
		h->prev->next = h->next;
	else
		c->handles = h->next;
	if (h->next)
		h->next->prev = h->prev;
	pthread_mutex_unlock(&c->handles_lock);
	handle_free(h);
}

struct kube_client *kube_client_new(const struct kube_config *cfg,
				    const struct kube_client_opts *opts, struct kube_error *err)
{
	struct kube_client *c;
	int ret;

	kube_error_clear(err);
	pthread_once(&global_once, global_init);
	if (global_rc != CURLE_OK) {
		kube_errorf(err, -EIO, "curl_global_init failed: %s",
			    curl_easy_strerror(global_rc));
		return NULL;
	}
	if (!cfg || !cfg->server) {
		kube_errorf(err, -EINVAL, "kube client: no server in the configuration");
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		goto nomem;
	if (config_copy(&c->cfg, cfg)) {
		free(c);
		goto nomem;
	}
	if (opts)
		c->opts = *opts;
	if (c->opts.connect_timeout_ms <= 0)
		c->opts.connect_timeout_ms = 10000;
	if (c->opts.request_timeout_ms <= 0)
		c->opts.request_timeout_ms = 30000;
	if (c->opts.max_retries <= 0)
		c->opts.max_retries = opts && opts->max_retries < 0 ? 0 : 4;
	if (c->opts.backoff_base_ms <= 0)
		c->opts.backoff_base_ms = 200;
	if (c->opts.backoff_cap_ms <= 0)
		c->opts.backoff_cap_ms = 5000;
	if (c->opts.retry_after_max_ms <= 0)
		c->opts.retry_after_max_ms = 60000;
	if (c->opts.token_recheck_ms == 0)
		c->opts.token_recheck_ms = 1000;
	char ua[128];
	(void)snprintf(ua, sizeof(ua), "%s",
		       c->opts.user_agent ? c->opts.user_agent : "storagebench/" SB_VERSION);
	c->opts.user_agent = NULL;
	c->user_agent = strdup(ua);
	if (!c->user_agent)
		goto fail_cfg;
	if (c->cfg.token_file && !c->cfg.token) {
		ret = kube_token_file_init(&c->token_file, c->cfg.token_file,
					   c->opts.token_recheck_ms);
		if (ret)
			goto fail_ua;
		c->has_token_file = true;
	}
	if (c->cfg.exec && !c->cfg.token) {
		if (kube_exec_token_init(&c->exec_token))
			goto fail_tok;
		c->has_exec = true;
	}
	if (pthread_mutex_init(&c->handles_lock, NULL))
		goto fail_tok;
	if (pthread_key_create(&c->key, thread_exit))
		goto fail_mutex;
	if (c->cfg.insecure)
		sb_warn("Disabled TLS verification", "server=%s source=%s", c->cfg.server,
			c->cfg.source ? c->cfg.source : "-");
	return c;

fail_mutex:
	pthread_mutex_destroy(&c->handles_lock);
fail_tok:
	if (c->has_exec)
		kube_exec_token_release(&c->exec_token);
	if (c->has_token_file)
		kube_token_file_release(&c->token_file);
fail_ua:
	free(c->user_agent);
fail_cfg:
	kube_config_release(&c->cfg);
	free(c);
nomem:
	kube_errorf(err, -ENOMEM, "kube client: out of memory");
	return NULL;
}

void kube_client_free(struct kube_client *c)
{
	if (!c)
		return;
	kube_hub_free(c->hub); /* every watch has been freed */
	/* Destructors no longer run after this; we free every handle ourselves. */
	pthread_key_delete(c->key);
	pthread_mutex_lock(&c->handles_lock);
	struct kube_thread_handle *h = c->handles;
	c->handles = NULL;
	pthread_mutex_unlock(&c->handles_lock);
	while (h) {
		struct kube_thread_handle *next = h->next;
		handle_free(h);
		h = next;
	}
	pthread_mutex_destroy(&c->handles_lock);
	if (c->has_exec)
		kube_exec_token_release(&c->exec_token);
	if (c->has_token_file)
		kube_token_file_release(&c->token_file);
	free(c->user_agent);
	kube_config_release(&c->cfg);
	free(c);
}

const char *kube_client_namespace(const struct kube_client *c)
{
	return c->cfg.namespace;
}

struct kube_hub *kube_client_hub(struct kube_client *c)
{
	pthread_mutex_lock(&c->handles_lock);
	if (!c->hub)
		c->hub = kube_hub_new(&c->h2);
	struct kube_hub *h = c->hub;
	pthread_mutex_unlock(&c->handles_lock);
	return h;
}

const char *kube_client_ns(const struct kube_client *c, const char *ns)
{
	return ns && *ns ? ns : c->cfg.namespace;
}

void kube_client_stats(struct kube_client *c, struct kube_client_stats *out)
{
	out->requests = atomic_load(&c->n_requests);
	out->retries = atomic_load(&c->n_retries);
	out->reauths = atomic_load(&c->n_reauths);
	out->connects = atomic_load(&c->n_connects);
	for (int v = 0; v < KUBE_NVERBS; v++)
		out->by[v] = atomic_load(&c->n_verb[v]);
	out->handles = 0;
	pthread_mutex_lock(&c->handles_lock);
	for (const struct kube_thread_handle *h = c->handles; h; h = h->next)
		out->handles++;
	pthread_mutex_unlock(&c->handles_lock);
}

void kube_client_thread_release(struct kube_client *c)
{
	struct kube_thread_handle *h = pthread_getspecific(c->key);
	if (!h)
		return;
	pthread_setspecific(c->key, NULL);
	thread_exit(h);
}

const char *kube_verb_name(enum kube_verb v)
{
	static const char *const names[KUBE_NVERBS] = {"get",	 "list",  "watch", "create",
						       "update", "patch", "delete"};
	return (unsigned)v < KUBE_NVERBS ? names[v] : "";
}

/* The calling thread's handle for c, made on first use. */
static struct kube_thread_handle *thread_handle(struct kube_client *c)
{
	struct kube_thread_handle *h = pthread_getspecific(c->key);
	if (h)
		return h;
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->client = c;
	h->easy = curl_easy_init();
	if (!h->easy) {
		free(h);
		return NULL;
	}
	if (pthread_setspecific(c->key, h)) {
		handle_free(h);
		return NULL;
	}
	pthread_mutex_lock(&c->handles_lock);
	h->next = c->handles;
	if (h->next)
		h->next->prev = h;
	c->handles = h;
	pthread_mutex_unlock(&c->handles_lock);
	return h;
}

CURL *kube_client_thread_easy(struct kube_client *c, char **errbuf, bool *fresh)
{
	struct kube_thread_handle *h = thread_handle(c);
	if (!h)
		return NULL;
	/* Keeps live connections, TLS session and DNS caches. */
	curl_easy_reset(h->easy);
	h->errbuf[0] = '\0';
	*errbuf = h->errbuf;
	*fresh = h->fresh;
	return h->easy;
}

void kube_client_set_fresh_connections(struct kube_client *c, bool on)
{
	struct kube_thread_handle *h = thread_handle(c);
	if (h)
		h->fresh = on;
}

int kube_client_token(struct kube_client *c, bool force, char **out, struct kube_error *err)
{
	*out = NULL;
	if (c->cfg.token) {
		*out = strdup(c->cfg.token);
		return *out ? 0 : kube_errorf(err, -ENOMEM, "out of memory");
	}
	if (c->has_exec)
		return kube_exec_token_get(&c->exec_token, c->cfg.exec, &c->cfg, force, out, err);
	if (c->has_token_file) {
		int ret = kube_token_file_get(&c->token_file, force, out);
		if (ret)
			return kube_errorf(err, ret, "cannot read token file '%s': %s",
					   c->cfg.token_file, strerror(-ret));
	}
	return 0;
}

bool kube_client_token_renewable(const struct kube_client *c)
{
	return c->has_token_file || c->has_exec;
}

#define SETOPT(h, opt, val)                                          \
	do {                                                         \
		if (curl_easy_setopt((h), (opt), (val)) != CURLE_OK) \
			goto fail;                                   \
	} while (0)

/* Called by curl for each new TLS connection, before its SSL object is
 * made: an idle connection gives back OpenSSL's read and write buffers
 * (some 34 KiB per connection; most are idle most of the time). */
static CURLcode on_ssl_ctx(CURL *h, void *ssl_ctx, void *arg)
{
	(void)h;
	(void)arg;
	(void)SSL_CTX_set_mode((SSL_CTX *)ssl_ctx, SSL_MODE_RELEASE_BUFFERS);
	return CURLE_OK;
}

int kube_client_setup_handle(struct kube_client *c, CURL *h, char *errbuf, const char *token,
			     const char *content_type, struct curl_slist **headers)
{
	struct curl_slist *l = NULL, *t;
	char line[8192];

	*headers = NULL;
	SETOPT(h, CURLOPT_ERRORBUFFER, errbuf);
	SETOPT(h, CURLOPT_NOSIGNAL, 1L);
	SETOPT(h, CURLOPT_PROTOCOLS_STR, "https,http");
	SETOPT(h, CURLOPT_CONNECTTIMEOUT_MS, c->opts.connect_timeout_ms);
	SETOPT(h, CURLOPT_USERAGENT, c->user_agent);
	/* HTTP/2 over TLS when the server offers it (ALPN), else HTTP/1.1. */
	SETOPT(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
	SETOPT(h, CURLOPT_TCP_KEEPALIVE, 1L);
	SETOPT(h, CURLOPT_ACCEPT_ENCODING, "");
	if (c->cfg.insecure) {
		SETOPT(h, CURLOPT_SSL_VERIFYPEER, 0L);
		SETOPT(h, CURLOPT_SSL_VERIFYHOST, 0L);
	} else {
		SETOPT(h, CURLOPT_SSL_VERIFYPEER, 1L);
		SETOPT(h, CURLOPT_SSL_VERIFYHOST, 2L);
	}
	if (c->cfg.ca_pem) {
		struct curl_blob b = {c->cfg.ca_pem, c->cfg.ca_pem_len, CURL_BLOB_NOCOPY};
		SETOPT(h, CURLOPT_CAINFO_BLOB, &b);
		/* Only the cluster's CA, as client-go does with CAData: without
		 * these, each connection's store would also load the system's
		 * bundle (curl's built-in CA file and path). */
		SETOPT(h, CURLOPT_CAINFO, NULL);
		SETOPT(h, CURLOPT_CAPATH, NULL);
	}
	/* CURLE_NOT_BUILT_IN with a TLS library other than OpenSSL: then the
	 * buffers stay, nothing else changes. */
	(void)curl_easy_setopt(h, CURLOPT_SSL_CTX_FUNCTION, on_ssl_ctx);
	/* Bodies are small (objects, patches): the smallest upload buffer
	 * (16 KiB, not 64) when curl needs one. */
	SETOPT(h, CURLOPT_UPLOAD_BUFFERSIZE, 16384L);
	if (c->cfg.cert_pem && c->cfg.key_pem) {
		struct curl_blob cb = {c->cfg.cert_pem, c->cfg.cert_pem_len, CURL_BLOB_NOCOPY};
		struct curl_blob kb = {c->cfg.key_pem, c->cfg.key_pem_len, CURL_BLOB_NOCOPY};
		SETOPT(h, CURLOPT_SSLCERT_BLOB, &cb);
		SETOPT(h, CURLOPT_SSLCERTTYPE, "PEM");
		SETOPT(h, CURLOPT_SSLKEY_BLOB, &kb);
		SETOPT(h, CURLOPT_SSLKEYTYPE, "PEM");
	}

	if (!(t = curl_slist_append(l, "Accept: application/json")))
		goto fail;
	l = t;
	if (content_type) {
		(void)snprintf(line, sizeof(line), "Content-Type: %s", content_type);
		if (!(t = curl_slist_append(l, line)))
			goto fail;
		l = t;
	}
	if (token) {
		int n = snprintf(line, sizeof(line), "Authorization: Bearer %s", token);
		if (n < 0 || (size_t)n >= sizeof(line))
			goto fail;
		t = curl_slist_append(l, line);
		explicit_bzero(line, sizeof(line));
		if (!t)
			goto fail;
		l = t;
	}
	SETOPT(h, CURLOPT_HTTPHEADER, l);
	*headers = l;
	return 0;
fail:
	curl_slist_free_all(l);
	return -ENOMEM;
}
