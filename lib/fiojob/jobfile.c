/* SPDX-License-Identifier: MIT */
#include "fiojob/jobfile.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

static const char *lookup_environ(const char *name, void *ctx)
{
	(void)ctx;
	return getenv(name);
}

/* Expands ${VAR} into out from lookup. Returns 0, -EINVAL (unset or unterminated). */
static int expand_env(const char *in, char *out, size_t cap, sb_jobfile_lookup_fn lookup, void *ctx,
		      const char *unset_where, char *bad, size_t badlen)
{
	size_t o = 0;
	for (const char *p = in; *p;) {
		if (p[0] == '$' && p[1] == '{') {
			const char *end = strchr(p + 2, '}');
			if (!end) {
				snprintf(bad, badlen, "unterminated '${'");
				return -EINVAL;
			}
			char name[128];
			size_t n = (size_t)(end - p - 2);
			if (n == 0 || n >= sizeof(name)) {
				snprintf(bad, badlen, "bad variable name");
				return -EINVAL;
			}
			memcpy(name, p + 2, n);
			name[n] = '\0';
			const char *v = lookup(name, ctx);
			if (!v) {
				if (unset_where)
					snprintf(bad, badlen, "variable '%s' is not set in %s",
						 name, unset_where);
				else
					snprintf(bad, badlen,
						 "environment variable '%s' is not set", name);
				return -EINVAL;
			}
			size_t vl = strlen(v);
			if (o + vl >= cap) {
				snprintf(bad, badlen, "line too long after expansion");
				return -EINVAL;
			}
			memcpy(out + o, v, vl);
			o += vl;
			p = end + 1;
		} else {
			if (o + 1 >= cap) {
				snprintf(bad, badlen, "line too long");
				return -EINVAL;
			}
			out[o++] = *p++;
		}
	}
	out[o] = '\0';
	return 0;
}

int sb_jobfile_parse(const char *text, const char *path, const struct sb_job *base,
		     struct sb_joblist *out, struct sb_diag *d)
{
	return sb_jobfile_parse_vars(text, path, base, lookup_environ, NULL, NULL, out, d);
}

int sb_jobfile_parse_vars(const char *text, const char *path, const struct sb_job *base,
			  sb_jobfile_lookup_fn lookup, void *ctx, const char *vars_where,
			  struct sb_joblist *out, struct sb_diag *d)
{
	struct sb_job global, cur;
	size_t njobs = 0;
	bool in_job = false, in_global = false, any_section = false;
	unsigned lineno = 0;
	int ret = 0;
	char where[300], bad[256];

	memset(&cur, 0, sizeof(cur));
	if (sb_job_copy(&global, base))
		return -ENOMEM;

	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char raw[4096], line[8192];
		lineno++;
		snprintf(where, sizeof(where), "%s:%u", path, lineno);
		if (len >= sizeof(raw)) {
			snprintf(d->msg, sizeof(d->msg), "%s: line longer than %zu bytes", where,
				 sizeof(raw) - 1);
			ret = -EINVAL;
			goto out;
		}
		memcpy(raw, p, len);
		raw[len] = '\0';
		p = nl ? nl + 1 : p + len;

		char *s = trim(raw);
		if (!*s || *s == ';' || *s == '#')
			continue;
		/* fio reads "numjobs=4	; a comment": a ';' after a blank ends the line */
		char *semi = strstr(s, " ;");
		char *tab = strstr(s, "\t;");
		if (tab && (!semi || tab < semi))
			semi = tab;
		if (semi) {
			*semi = '\0';
			for (size_t k = strlen(s); k > 0 && (s[k - 1] == ' ' || s[k - 1] == '\t');
			     k--)
				s[k - 1] = '\0';
		}
		if (expand_env(s, line, sizeof(line), lookup, ctx, vars_where, bad, sizeof(bad))) {
			snprintf(d->msg, sizeof(d->msg), "%s: %s", where, bad);
			ret = -EINVAL;
			goto out;
		}
		s = line;
		if (*s == '[') {
			char *end = strchr(s, ']');
			if (!end || trim(end + 1)[0] != '\0') {
				snprintf(d->msg, sizeof(d->msg),
					 "%s: malformed section header '%s'", where, s);
				ret = -EINVAL;
				goto out;
			}
			*end = '\0';
			char *name = trim(s + 1);
			if (!*name) {
				snprintf(d->msg, sizeof(d->msg), "%s: empty section name", where);
				ret = -EINVAL;
				goto out;
			}
			if (in_job) {
				ret = sb_joblist_push(out, &cur);
				if (ret)
					goto out;
				in_job = false;
			}
			any_section = true;
			if (strcmp(name, "global") == 0) {
				in_global = true;
				continue;
			}
			in_global = false;
			if (++njobs > SB_JOBFILE_MAX_JOBS) {
				snprintf(d->msg, sizeof(d->msg),
					 "%s: more than %d jobs in one job file", where,
					 SB_JOBFILE_MAX_JOBS);
				ret = -E2BIG;
				goto out;
			}
			ret = sb_job_copy(&cur, &global);
			if (ret)
				goto out;
			in_job = true;
			snprintf(cur.origin, sizeof(cur.origin), "%s", where);
			ret = sb_job_apply(&cur, "name", name, where, d);
			if (ret)
				goto out;
			continue;
		}
		if (!any_section) {
			snprintf(d->msg, sizeof(d->msg),
				 "%s: option outside a section (start with [global] or [jobname])",
				 where);
			ret = -EINVAL;
			goto out;
		}
		char *eq = strchr(s, '=');
		char *key = s, *value = NULL;
		if (eq) {
			*eq = '\0';
			key = trim(s);
			value = trim(eq + 1);
		}
		if (!*key) {
			snprintf(d->msg, sizeof(d->msg), "%s: missing option name", where);
			ret = -EINVAL;
			goto out;
		}
		ret = sb_job_apply(in_global ? &global : &cur, key, value, where, d);
		if (ret)
			goto out;
	}
	if (in_job) {
		ret = sb_joblist_push(out, &cur);
		in_job = false;
	}
	if (!ret && !any_section) {
		snprintf(d->msg, sizeof(d->msg), "%s: no jobs defined", path);
		ret = -EINVAL;
	}
out:
	if (in_job)
		sb_job_release(&cur);
	sb_job_release(&global);
	return ret;
}

int sb_jobfile_load(const char *path, const struct sb_job *base, struct sb_joblist *out,
		    struct sb_diag *d)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0, cap = 0;
	int ret;

	if (!f) {
		ret = -errno;
		snprintf(d->msg, sizeof(d->msg), "%s: cannot open job file: %s", path,
			 strerror(errno));
		return ret;
	}
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			if (cap > (64u << 20)) {
				snprintf(d->msg, sizeof(d->msg), "%s: job file larger than 64 MiB",
					 path);
				ret = -EFBIG;
				goto out;
			}
			char *n = realloc(text, cap);
			if (!n) {
				ret = -ENOMEM;
				goto out;
			}
			text = n;
		}
		size_t r = fread(text + len, 1, cap - len - 1, f);
		len += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		ret = -EIO;
		snprintf(d->msg, sizeof(d->msg), "%s: read error", path);
		goto out;
	}
	text[len] = '\0';
	if (memchr(text, '\0', len)) {
		ret = -EINVAL;
		snprintf(d->msg, sizeof(d->msg), "%s: not a text file (contains NUL bytes)", path);
		goto out;
	}
	ret = sb_jobfile_parse(text, path, base, out, d);
out:
	free(text);
	fclose(f);
	return ret;
}
