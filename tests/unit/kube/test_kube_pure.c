/* SPDX-License-Identifier: MIT */
/* lib/kube pure parts: URLs, Status -> errno, the watch line decoder, backoff,
 * Retry-After, base64, token file re-reads. */
#include "tests/unit/harness.h"
#include "kube/internal.h"

#include <errno.h>
#include <unistd.h>

/* ------------------------------------------------------------------ URLs */

static int test_url_core_namespaced(void)
{
	char *u = NULL;
	CHECK_INT(kube_url_build("https://10.0.0.1:6443", &kube_res_configmaps, "default", "cm1",
				 NULL, NULL, 0, &u),
		  0);
	CHECK_STR(u, "https://10.0.0.1:6443/api/v1/namespaces/default/configmaps/cm1");
	free(u);
	CHECK_INT(kube_url_build("https://h", &kube_res_configmaps, NULL, NULL, NULL, NULL, 0, &u),
		  0);
	CHECK_STR(u, "https://h/api/v1/configmaps");
	free(u);
	return T_PASS;
}

static int test_url_group_cluster_scoped(void)
{
	char *u = NULL;
	/* ns is ignored for a cluster-scoped resource. */
	CHECK_INT(kube_url_build("https://h:443/", &kube_res_storageclasses, "ignored", "fast",
				 NULL, NULL, 0, &u),
		  0);
	CHECK_STR(u, "https://h:443/apis/storage.k8s.io/v1/storageclasses/fast");
	free(u);
	CHECK_INT(kube_url_build("https://h:8443", &kube_res_leases, "kube-system", "lock",
				 "status", NULL, 0, &u),
		  0);
	CHECK_STR(u, "https://h:8443/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/"
		     "lock/status");
	free(u);
	return T_PASS;
}

static int test_url_prefix_and_ipv6(void)
{
	char *u = NULL;
	CHECK_INT(kube_url_build("https://[fd00::1]:6443/k8s/clusters/c1/", &kube_res_pods, "ns",
				 NULL, NULL, NULL, 0, &u),
		  0);
	CHECK_STR(u, "https://[fd00::1]:6443/k8s/clusters/c1/api/v1/namespaces/ns/pods");
	free(u);
	return T_PASS;
}

static int test_url_encoding(void)
{
	char *u = NULL;
	struct kube_query q[] = {
		{"labelSelector", "app=web,tier in (a, b)"},
		{"fieldSelector", "metadata.name!=x&y"},
		{"limit", NULL}, /* left out */
		{"continue", "eyJ2Ijo+/="},
	};
	CHECK_INT(
		kube_url_build("https://h", &kube_res_configmaps, "a b", "n/m?#%", NULL, q, 4, &u),
		0);
	/* Segments: every reserved byte escaped, '/' included (hex case is curl's). */
	CHECK(strcasestr(u, "/namespaces/a%20b/configmaps/n%2Fm%3F%23%25?") != NULL);
	/* Query values: '=' ',' '(' '&' '+' '/' escaped, space as '+'. */
	CHECK(strcasestr(u, "?labelSelector=app%3dweb%2ctier+in+%28a%2c+b%29&") != NULL);
	CHECK(strcasestr(u, "&fieldSelector=metadata.name%21%3dx%26y&") != NULL);
	CHECK(strstr(u, "limit") == NULL);
	CHECK(strcasestr(u, "&continue=eyJ2Ijo%2b%2f%3d") != NULL);
	free(u);
	return T_PASS;
}

static int test_url_errors(void)
{
	char *u = (char *)"x";
	struct kube_resource bad = {"", "v1", NULL, true};
	CHECK_INT(kube_url_build("https://h", &bad, NULL, NULL, NULL, NULL, 0, &u), -EINVAL);
	CHECK(u == NULL);
	CHECK_INT(kube_url_build("not a url", &kube_res_pods, NULL, NULL, NULL, NULL, 0, &u),
		  -EINVAL);
	CHECK_INT(kube_url_build("https://h", &kube_res_pods, "ns", "", NULL, NULL, 0, &u),
		  -EINVAL);
	return T_PASS;
}

/* ----------------------------------------------------------- Status/errno */

static int test_errno_mapping(void)
{
	CHECK_INT(kube_errno_from_http(200, NULL), 0);
	CHECK_INT(kube_errno_from_http(201, NULL), 0);
	CHECK_INT(kube_errno_from_http(404, "NotFound"), -ENOENT);
	CHECK_INT(kube_errno_from_http(409, "AlreadyExists"), -EEXIST);
	CHECK_INT(kube_errno_from_http(409, "Conflict"), -EAGAIN);
	CHECK_INT(kube_errno_from_http(409, NULL), -EAGAIN);
	CHECK_INT(kube_errno_from_http(410, "Expired"), -ESTALE);
	CHECK_INT(kube_errno_from_http(403, "Forbidden"), -EACCES);
	CHECK_INT(kube_errno_from_http(401, "Unauthorized"), -EPERM);
	CHECK_INT(kube_errno_from_http(422, "Invalid"), -EINVAL);
	CHECK_INT(kube_errno_from_http(400, "BadRequest"), -EINVAL);
	CHECK_INT(kube_errno_from_http(429, "TooManyRequests"), -EAGAIN);
	CHECK_INT(kube_errno_from_http(500, "InternalError"), -EAGAIN);
	CHECK_INT(kube_errno_from_http(503, "ServiceUnavailable"), -EAGAIN);
	CHECK_INT(kube_errno_from_http(418, NULL), -EPROTO);
	return T_PASS;
}

static int test_status_body(void)
{
	struct kube_error e;
	const char *already =
		"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
		"\"message\":\"configmaps \\\"x\\\" already exists\",\"reason\":\"AlreadyExists\","
		"\"details\":{\"name\":\"x\",\"kind\":\"configmaps\"},\"code\":409}";
	const char *conflict =
		"{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"Operation cannot be "
		"fulfilled\",\"reason\":\"Conflict\",\"code\":409}";
	kube_error_clear(&e);
	CHECK_INT(kube_error_from_status(&e, 409, already, strlen(already)), -EEXIST);
	CHECK_INT(e.http_code, 409);
	CHECK_STR(e.reason, "AlreadyExists");
	CHECK_STR(e.message, "configmaps \"x\" already exists");
	CHECK_INT(kube_error_from_status(&e, 409, conflict, strlen(conflict)), -EAGAIN);
	CHECK_STR(e.reason, "Conflict");
	/* Not a Status: the start of the body becomes the message. */
	const char *html = "<html>bad gateway</html>";
	CHECK_INT(kube_error_from_status(&e, 502, html, strlen(html)), -EAGAIN);
	CHECK_STR(e.reason, "");
	CHECK(strstr(e.message, "bad gateway") != NULL);
	/* No body. */
	CHECK_INT(kube_error_from_status(&e, 404, NULL, 0), -ENOENT);
	CHECK_STR(e.message, "http 404");
	/* err may be NULL. */
	CHECK_INT(kube_error_from_status(NULL, 403, NULL, 0), -EACCES);
	char buf[256];
	kube_error_from_status(&e, 409, already, strlen(already));
	CHECK_STR(kube_error_str(&e, buf, sizeof(buf)),
		  "configmaps \"x\" already exists (http 409 AlreadyExists)");
	kube_error_clear(&e);
	snprintf(e.curl, sizeof(e.curl), "Connection refused");
	snprintf(e.message, sizeof(e.message), "GET x: transport error");
	CHECK_STR(kube_error_str(&e, buf, sizeof(buf)),
		  "GET x: transport error (curl: Connection refused)");
	return T_PASS;
}

/* ------------------------------------------------------------ line decoder */

struct lines {
	char got[16][128];
	int n;
	int stop_at; /* return 1 at this line (1-based), 0: never */
};

static int collect(char *line, size_t len, void *arg)
{
	struct lines *l = arg;
	if (l->n < 16)
		snprintf(l->got[l->n], sizeof(l->got[0]), "%.*s", (int)len, line);
	l->n++;
	return l->stop_at && l->n == l->stop_at ? 7 : 0;
}

static int test_lines_span_chunks(void)
{
	struct kube_line_decoder d;
	struct lines l = {0};
	kube_line_decoder_init(&d, 0);
	CHECK_INT(kube_line_decoder_feed(&d, "{\"type\":\"AD", 11, collect, &l), 0);
	CHECK_INT(l.n, 0);
	CHECK_INT(kube_line_decoder_feed(&d, "DED\"}", 5, collect, &l), 0);
	CHECK_INT(l.n, 0);
	CHECK_INT(kube_line_decoder_feed(&d, "\n{\"b", 4, collect, &l), 0);
	CHECK_INT(l.n, 1);
	CHECK_STR(l.got[0], "{\"type\":\"ADDED\"}");
	CHECK_INT(kube_line_decoder_feed(&d, "\":1}\n", 5, collect, &l), 0);
	CHECK_INT(l.n, 2);
	CHECK_STR(l.got[1], "{\"b\":1}");
	kube_line_decoder_release(&d);
	return T_PASS;
}

static int test_lines_many_per_chunk(void)
{
	struct kube_line_decoder d;
	struct lines l = {0};
	const char *chunk = "one\ntwo\r\n\nthree\nfour-partial";
	kube_line_decoder_init(&d, 0);
	CHECK_INT(kube_line_decoder_feed(&d, chunk, strlen(chunk), collect, &l), 0);
	CHECK_INT(l.n, 3); /* the empty line is skipped, CR stripped */
	CHECK_STR(l.got[0], "one");
	CHECK_STR(l.got[1], "two");
	CHECK_STR(l.got[2], "three");
	CHECK_INT(kube_line_decoder_feed(&d, "\n", 1, collect, &l), 0);
	CHECK_INT(l.n, 4);
	CHECK_STR(l.got[3], "four-partial");
	/* Reset drops a partial line (a reconnect). */
	CHECK_INT(kube_line_decoder_feed(&d, "garbage", 7, collect, &l), 0);
	kube_line_decoder_reset(&d);
	CHECK_INT(kube_line_decoder_feed(&d, "five\n", 5, collect, &l), 0);
	CHECK_STR(l.got[4], "five");
	kube_line_decoder_release(&d);
	return T_PASS;
}

static int test_lines_byte_by_byte(void)
{
	struct kube_line_decoder d;
	struct lines l = {0};
	const char *s = "{\"type\":\"MODIFIED\",\"object\":{}}\n{\"x\":\"y\\nz\"}\n";
	kube_line_decoder_init(&d, 0);
	for (size_t i = 0; i < strlen(s); i++)
		CHECK_INT(kube_line_decoder_feed(&d, s + i, 1, collect, &l), 0);
	CHECK_INT(l.n, 2);
	CHECK_STR(l.got[0], "{\"type\":\"MODIFIED\",\"object\":{}}");
	CHECK_STR(l.got[1], "{\"x\":\"y\\nz\"}");
	kube_line_decoder_release(&d);
	return T_PASS;
}

static int test_lines_limits_and_stop(void)
{
	struct kube_line_decoder d;
	struct lines l = {.stop_at = 2};
	kube_line_decoder_init(&d, 8);
	CHECK_INT(kube_line_decoder_feed(&d, "a\nb\nc\n", 6, collect, &l), 7);
	CHECK_INT(l.n, 2); /* c not delivered after the stop */
	kube_line_decoder_reset(&d);
	l.stop_at = 0;
	CHECK_INT(kube_line_decoder_feed(&d, "12345", 5, collect, &l), 0);
	CHECK_INT(kube_line_decoder_feed(&d, "6789", 4, collect, &l), -E2BIG);
	kube_line_decoder_release(&d);
	return T_PASS;
}

static int test_event_parse(void)
{
	enum kube_event_type t;
	json_t *o = NULL;
	const char *ev = "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"ConfigMap\",\"metadata\":"
			 "{\"resourceVersion\":\"12345\"}}}";
	CHECK_INT(kube_watch_parse_event(ev, strlen(ev), &t, &o), 0);
	CHECK_INT(t, KUBE_EVENT_BOOKMARK);
	CHECK_STR(json_string_value(
			  json_object_get(json_object_get(o, "metadata"), "resourceVersion")),
		  "12345");
	json_decref(o);
	const char *err = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":410}}";
	CHECK_INT(kube_watch_parse_event(err, strlen(err), &t, &o), 0);
	CHECK_INT(t, KUBE_EVENT_ERROR);
	CHECK_INT(json_integer_value(json_object_get(o, "code")), 410);
	json_decref(o);
	CHECK_INT(kube_watch_parse_event("{\"type\":\"WHAT\",\"object\":{}}", 27, &t, &o), -EPROTO);
	CHECK(o == NULL);
	CHECK_INT(kube_watch_parse_event("{\"type\":", 8, &t, &o), -EPROTO);
	CHECK_STR(kube_event_type_name(KUBE_EVENT_DELETED), "DELETED");
	CHECK(kube_event_type_name((enum kube_event_type)99) == NULL);
	return T_PASS;
}

/* --------------------------------------------------- backoff, Retry-After */

static int test_backoff(void)
{
	/* rnd 0 gives the lower half-point, rnd ~1 the full delay. */
	CHECK_INT(kube_backoff_ms(0, 200, 5000, 0.0), 100);
	CHECK_INT(kube_backoff_ms(0, 200, 5000, 0.9999999), 199);
	CHECK_INT(kube_backoff_ms(1, 200, 5000, 0.0), 200);
	CHECK_INT(kube_backoff_ms(3, 200, 5000, 0.0), 800);
	/* Capped: 200 * 2^5 = 6400 > 5000. */
	CHECK_INT(kube_backoff_ms(5, 200, 5000, 0.0), 2500);
	CHECK_INT(kube_backoff_ms(60, 200, 5000, 0.5), 3750);
	CHECK_INT(kube_backoff_ms(1000000, 200, 5000, 0.0), 2500);
	/* Always within [d/2, d]. */
	for (unsigned a = 0; a < 10; a++) {
		for (double r = 0; r < 1; r += 0.1) {
			long d = kube_backoff_ms(a, 100, 3000, r);
			long full = 100L << a;
			if (full > 3000)
				full = 3000;
			CHECK(d >= full / 2 && d <= full);
		}
	}
	CHECK_INT(kube_backoff_ms(3, 0, 5000, 0.5), 0);
	return T_PASS;
}

static int test_retry_after(void)
{
	CHECK_INT(kube_parse_retry_after("3", 0), 3000);
	CHECK_INT(kube_parse_retry_after(" 120 ", 0), 120000);
	CHECK_INT(kube_parse_retry_after("0", 0), 0);
	CHECK_INT(kube_parse_retry_after("-1", 0), -1);
	CHECK_INT(kube_parse_retry_after("3s", 0), -1);
	CHECK_INT(kube_parse_retry_after("", 0), -1);
	CHECK_INT(kube_parse_retry_after(NULL, 0), -1);
	/* HTTP-date, relative to now. 1445412480 = Wed, 21 Oct 2015 07:28:00 GMT */
	CHECK_INT(kube_parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", 1445412480 - 5), 5000);
	CHECK_INT(kube_parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", 1445412480 + 5), 0);
	CHECK_INT(kube_parse_retry_after("not a date", 0), -1);
	return T_PASS;
}

/* ---------------------------------------------------------------- base64 */

static int test_base64(void)
{
	char *out;
	size_t n;
	CHECK_INT(kube_base64_decode("aGVsbG8gd29ybGQ=", 16, &out, &n), 0);
	CHECK_INT(n, 11);
	CHECK_STR(out, "hello world");
	free(out);
	/* Line-wrapped, as in PEM-ish data. */
	CHECK_INT(kube_base64_decode("aGVs\nbG8g\nd29y\nbGQ=\n", 20, &out, &n), 0);
	CHECK_STR(out, "hello world");
	free(out);
	CHECK_INT(kube_base64_decode("not*base64!", 11, &out, &n), -EINVAL);
	CHECK(out == NULL);
	CHECK_INT(kube_base64_decode("YWJj$", 5, &out, &n), -EINVAL);
	return T_PASS;
}

/* ------------------------------------------------------------ token file */

static int write_str(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(s, f);
	return fclose(f);
}

static int test_token_file_reread(void)
{
	char dir[] = "/tmp/kubetokXXXXXX", path[64], tmp[64];
	struct kube_token_file t;
	char *v = NULL;
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/token", dir);
	snprintf(tmp, sizeof(tmp), "%s/token.new", dir);
	CHECK_INT(write_str(path, "first-token\n"), 0);
	CHECK_INT(kube_token_file_init(&t, path, 0), 0);
	CHECK_INT(kube_token_file_get(&t, false, &v), 0);
	CHECK_STR(v, "first-token");
	free(v);
	CHECK_INT(kube_token_file_get(&t, false, &v), 0);
	free(v);
	CHECK_INT(t.reads, 1); /* unchanged: not read again */
	/* Rotated by rename (as the kubelet does): a new inode. */
	CHECK_INT(write_str(tmp, "second-token"), 0);
	CHECK_INT(rename(tmp, path), 0);
	CHECK_INT(kube_token_file_get(&t, false, &v), 0);
	CHECK_STR(v, "second-token");
	free(v);
	CHECK_INT(t.reads, 2);
	/* Forced (after a 401). */
	CHECK_INT(kube_token_file_get(&t, true, &v), 0);
	free(v);
	CHECK_INT(t.reads, 3);
	/* Removed: the last token is kept. */
	CHECK_INT(unlink(path), 0);
	CHECK_INT(kube_token_file_get(&t, false, &v), 0);
	CHECK_STR(v, "second-token");
	free(v);
	kube_token_file_release(&t);
	/* With a recheck interval, a change is seen only after it or when forced. */
	CHECK_INT(write_str(path, "third-token\n"), 0);
	CHECK_INT(kube_token_file_init(&t, path, 60000), 0);
	CHECK_INT(kube_token_file_get(&t, false, &v), 0);
	free(v);
	CHECK_INT(write_str(tmp, "fourth-token"), 0);
	CHECK_INT(rename(tmp, path), 0);
	CHECK_INT(kube_token_file_get(&t, false, &v), 0);
	CHECK_STR(v, "third-token");
	free(v);
	CHECK_INT(kube_token_file_get(&t, true, &v), 0);
	CHECK_STR(v, "fourth-token");
	free(v);
	kube_token_file_release(&t);
	/* Empty file is an error, missing file too. */
	CHECK_INT(write_str(path, " \n"), 0);
	CHECK_INT(kube_token_file_init(&t, path, 0), 0);
	CHECK_INT(kube_token_file_get(&t, false, &v), -ENODATA);
	unlink(path);
	CHECK_INT(kube_token_file_get(&t, false, &v), -ENOENT);
	kube_token_file_release(&t);
	rmdir(dir);
	return T_PASS;
}

/* ------------------------------------------------------- HTTP library */

/* What --version says of libcurl: the client needs OpenSSL, HTTP/2, https. */
static int test_http_library(void)
{
	char buf[512], small[12];
	const char *s = kube_http_library(buf, sizeof(buf));
	CHECK(s == buf);
	CHECK(!strncmp(buf, "libcurl " LIBCURL_VERSION " ssl=OpenSSL/",
		       strlen("libcurl " LIBCURL_VERSION " ssl=OpenSSL/")));
	CHECK(strstr(buf, " http2=nghttp2/") != NULL);
	CHECK(strstr(buf, " zlib=") != NULL && !strstr(buf, " zlib=no"));
	const char *p = strstr(buf, " protocols=");
	CHECK(p != NULL);
	CHECK(strstr(p, ",https") != NULL || strstr(p, "=https") != NULL);
	/* truncated, still a string */
	CHECK(kube_http_library(small, sizeof(small)) == small);
	CHECK(strlen(small) == sizeof(small) - 1);
	CHECK(!strncmp(small, buf, sizeof(small) - 1));
	return T_PASS;
}

static const struct test_case cases[] = {
	{"kube/url-core-namespaced", test_url_core_namespaced},
	{"kube/url-group-cluster-scoped", test_url_group_cluster_scoped},
	{"kube/url-prefix-ipv6", test_url_prefix_and_ipv6},
	{"kube/url-encoding", test_url_encoding},
	{"kube/url-errors", test_url_errors},
	{"kube/errno-mapping", test_errno_mapping},
	{"kube/status-body", test_status_body},
	{"kube/lines-span-chunks", test_lines_span_chunks},
	{"kube/lines-many-per-chunk", test_lines_many_per_chunk},
	{"kube/lines-byte-by-byte", test_lines_byte_by_byte},
	{"kube/lines-limit-and-stop", test_lines_limits_and_stop},
	{"kube/event-parse", test_event_parse},
	{"kube/backoff", test_backoff},
	{"kube/retry-after", test_retry_after},
	{"kube/base64", test_base64},
	{"kube/token-file-reread", test_token_file_reread},
	{"kube/http-library", test_http_library},
};
TEST_MAIN(cases)
