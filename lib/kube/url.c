/* SPDX-License-Identifier: MIT */
/* Resource URLs, built with curl_url_set and URL-encoding. */
#include "kube/url.h"

#include <curl/curl.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends "/" and the URL-encoded segment s to the path in buf. */
static int add_segment(char *buf, size_t cap, size_t *len, const char *s)
{
	if (!s || !*s)
		return -EINVAL;
	char *enc = curl_easy_escape(NULL, s, 0);
	if (!enc)
		return -ENOMEM;
	int n = snprintf(buf + *len, cap - *len, "/%s", enc);
	curl_free(enc);
	if (n < 0 || (size_t)n >= cap - *len)
		return -ENAMETOOLONG;
	*len += (size_t)n;
	return 0;
}

int kube_url_build(const char *server, const struct kube_resource *r, const char *ns,
		   const char *name, const char *subresource, const struct kube_query *q, size_t nq,
		   char **out)
{
	CURLU *u = curl_url();
	char *base = NULL;
	char path[2048];
	size_t len = 0;
	int ret = -ENOMEM;

	*out = NULL;
	if (!u)
		return -ENOMEM;
	ret = -EINVAL;
	if (!server || !r || !r->version || !r->resource)
		goto out;
	if (curl_url_set(u, CURLUPART_URL, server, 0) != CURLUE_OK)
		goto out;
	/* Keep a path prefix of the server URL (an API server behind a proxy). */
	if (curl_url_get(u, CURLUPART_PATH, &base, 0) != CURLUE_OK)
		goto out;
	size_t blen = strlen(base);
	while (blen && base[blen - 1] == '/')
		blen--;
	if (blen >= sizeof(path))
		goto out;
	memcpy(path, base, blen);
	len = blen;
	path[len] = '\0';

	if (r->group && *r->group) {
		if ((ret = add_segment(path, sizeof(path), &len, "apis")) ||
		    (ret = add_segment(path, sizeof(path), &len, r->group)))
			goto out;
	} else if ((ret = add_segment(path, sizeof(path), &len, "api"))) {
		goto out;
	}
	if ((ret = add_segment(path, sizeof(path), &len, r->version)))
		goto out;
	if (r->namespaced && ns && *ns &&
	    ((ret = add_segment(path, sizeof(path), &len, "namespaces")) ||
	     (ret = add_segment(path, sizeof(path), &len, ns))))
		goto out;
	if ((ret = add_segment(path, sizeof(path), &len, r->resource)))
		goto out;
	if (name && (ret = add_segment(path, sizeof(path), &len, name)))
		goto out;
	if (subresource && (ret = add_segment(path, sizeof(path), &len, subresource)))
		goto out;

	ret = -EINVAL;
	/* Already encoded segment by segment: set without CURLU_URLENCODE. */
	if (curl_url_set(u, CURLUPART_PATH, path, 0) != CURLUE_OK ||
	    curl_url_set(u, CURLUPART_QUERY, NULL, 0) != CURLUE_OK ||
	    curl_url_set(u, CURLUPART_FRAGMENT, NULL, 0) != CURLUE_OK)
		goto out;
	for (size_t i = 0; i < nq; i++) {
		char kv[4096];
		if (!q[i].value)
			continue;
		int n = snprintf(kv, sizeof(kv), "%s=%s", q[i].key, q[i].value);
		if (n < 0 || (size_t)n >= sizeof(kv)) {
			ret = -ENAMETOOLONG;
			goto out;
		}
		/* With APPENDQUERY, URLENCODE leaves the first '=' alone. */
		if (curl_url_set(u, CURLUPART_QUERY, kv, CURLU_APPENDQUERY | CURLU_URLENCODE) !=
		    CURLUE_OK)
			goto out;
	}
	char *url = NULL;
	if (curl_url_get(u, CURLUPART_URL, &url, 0) != CURLUE_OK)
		goto out;
	*out = strdup(url);
	curl_free(url);
	ret = *out ? 0 : -ENOMEM;
out:
	curl_free(base);
	curl_url_cleanup(u);
	return ret;
}
