/* SPDX-License-Identifier: MIT */
#include "names.h"

#include <ctype.h>
#include <errno.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* First 8 hex digits of SHA-256 over the parts (separated by NUL). */
static int short_hash(const char *const *parts, size_t n, char out[9])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1;
	for (size_t i = 0; ok && i < n; i++)
		ok = EVP_DigestUpdate(ctx, parts[i], strlen(parts[i]) + 1) == 1;
	ok = ok && EVP_DigestFinal_ex(ctx, md, &mdlen) == 1 && mdlen >= 4;
	EVP_MD_CTX_free(ctx);
	if (!ok)
		return -EIO;
	snprintf(out, 9, "%02x%02x%02x%02x", md[0], md[1], md[2], md[3]);
	return 0;
}

int sb_name_join(char *out, size_t len, size_t max, const char *const *parts, size_t nparts)
{
	char buf[1024];
	size_t n = 0;
	bool changed = false;

	if (max > 63)
		max = 63;
	if (len < max + 1 || max < 10)
		return -EINVAL;
	for (size_t p = 0; p < nparts; p++) {
		if (p && n + 1 < sizeof(buf))
			buf[n++] = '-';
		for (const char *s = parts[p]; *s && n + 1 < sizeof(buf); s++) {
			char c = *s;
			if (isupper((unsigned char)c)) {
				c = (char)tolower((unsigned char)c);
				changed = true;
			}
			if (!isalnum((unsigned char)c) && c != '-') {
				c = '-';
				changed = true;
			}
			buf[n++] = c;
		}
	}
	buf[n] = '\0';
	/* trim '-' at both ends */
	size_t start = 0;
	while (buf[start] == '-')
		start++;
	while (n > start && buf[n - 1] == '-')
		n--;
	if (start || n < strlen(buf))
		changed = true;
	if (n <= start)
		return -EINVAL;
	size_t body = n - start;
	if (!changed && body <= max) {
		memcpy(out, buf + start, body);
		out[body] = '\0';
		return 0;
	}
	char h[9];
	if (short_hash(parts, nparts, h))
		return -EIO;
	size_t keep = body > max - 9 ? max - 9 : body;
	while (keep && buf[start + keep - 1] == '-')
		keep--;
	memcpy(out, buf + start, keep);
	out[keep] = '-';
	memcpy(out + keep + 1, h, 9);
	return 0;
}

int sb_name_pvc(char *out, size_t len, const char *run, const char *cls)
{
	const char *p[] = {run, cls};
	return sb_name_join(out, len, 63, p, 2);
}

int sb_name_pod(char *out, size_t len, const char *run, const char *cls, unsigned attempt)
{
	char a[16];
	snprintf(a, sizeof(a), "%u", attempt);
	const char *p[] = {run, cls, a};
	return sb_name_join(out, len, 63, p, 3);
}

int sb_name_result(char *out, size_t len, const char *run, const char *cls, unsigned iteration)
{
	char a[16];
	snprintf(a, sizeof(a), "%u", iteration);
	const char *p[] = {run, cls, a};
	return sb_name_join(out, len, 63, p, 3);
}

int sb_name_member_pvc(char *out, size_t len, const char *run, const char *cls, unsigned member)
{
	char m[16];
	snprintf(m, sizeof(m), "m%u", member);
	const char *p[] = {run, cls, m};
	return sb_name_join(out, len, 63, p, 3);
}

int sb_name_member_pod(char *out, size_t len, const char *run, const char *cls, unsigned attempt,
		       unsigned member)
{
	char a[16], m[16];
	snprintf(a, sizeof(a), "%u", attempt);
	snprintf(m, sizeof(m), "m%u", member);
	const char *p[] = {run, cls, a, m};
	return sb_name_join(out, len, 63, p, 4);
}

/* "<run>-<class>-<iteration>-a<attempt>[-m<member>][-g<group>][-<suffix>]" */
static int name_barrier(char *out, size_t len, const char *run, const char *cls, unsigned iteration,
			unsigned attempt, unsigned member, unsigned group, const char *suffix)
{
	char i[16], a[16], m[16], g[16];
	const char *p[7] = {run, cls, i, a};
	size_t n = 4;
	snprintf(i, sizeof(i), "%u", iteration);
	snprintf(a, sizeof(a), "a%u", attempt);
	snprintf(m, sizeof(m), "m%u", member);
	snprintf(g, sizeof(g), "g%u", group);
	if (member)
		p[n++] = m;
	if (group)
		p[n++] = g;
	if (suffix)
		p[n++] = suffix;
	return sb_name_join(out, len, 63, p, n);
}

int sb_name_member_result(char *out, size_t len, const char *run, const char *cls,
			  unsigned iteration, unsigned attempt, unsigned member)
{
	return name_barrier(out, len, run, cls, iteration, attempt, member, 0, NULL);
}

int sb_name_ready(char *out, size_t len, const char *run, const char *cls, unsigned iteration,
		  unsigned attempt, unsigned member, unsigned group)
{
	return name_barrier(out, len, run, cls, iteration, attempt, member, group, "ready");
}

int sb_name_start(char *out, size_t len, const char *run, const char *cls, unsigned iteration,
		  unsigned attempt, unsigned group)
{
	return name_barrier(out, len, run, cls, iteration, attempt, 0, group, "start");
}

int sb_name_spec(char *out, size_t len, const char *run)
{
	const char *p[] = {run, "spec"};
	return sb_name_join(out, len, 63, p, 2);
}

int sb_name_report(char *out, size_t len, const char *run)
{
	const char *p[] = {run, "report"};
	return sb_name_join(out, len, 63, p, 2);
}

int sb_name_label(char *out, size_t len, const char *value)
{
	/* label values may hold '.', '_' as well, but one rule everywhere is simpler */
	const char *p[] = {value};
	return sb_name_join(out, len, 63, p, 1);
}
