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

/* A job file being parsed: [global]'s options, the job being read, where we are. */
struct jf_parse {
	const char *path;
	sb_jobfile_lookup_fn lookup;
	void *ctx;
	const char *vars_where;
	struct sb_job global, cur; /* cur is owned while in_job */
	size_t njobs;
	bool in_job, in_global, any_section;
	struct sb_joblist *out;
	struct sb_diag *d;
};

/* fio reads "numjobs=4	; a comment": a ';' after a blank ends the line */
static void strip_comment(char *s)
{
	char *semi = strstr(s, " ;");
	char *tab = strstr(s, "\t;");
	if (tab && (!semi || tab < semi))
		semi = tab;
	if (semi) {
		*semi = '\0';
		for (size_t k = strlen(s); k > 0 && (s[k - 1] == ' ' || s[k - 1] == '\t'); k--)
			s[k - 1] = '\0';
	}
}

/* "[name]": ends the job being read, starts [global] or a new job. */
static int jf_section(struct jf_parse *jp, char *s, const char *where)
{
	struct sb_diag *d = jp->d;
	char *end = strchr(s, ']');
	int ret;

	if (!end || trim(end + 1)[0] != '\0') {
		snprintf(d->msg, sizeof(d->msg), "%s: malformed section header '%s'", where, s);
		return -EINVAL;
	}
	*end = '\0';
	char *name = trim(s + 1);
	if (!*name) {
		snprintf(d->msg, sizeof(d->msg), "%s: empty section name", where);
		return -EINVAL;
	}
	if (jp->in_job) {
		ret = sb_joblist_push(jp->out, &jp->cur);
		if (ret)
			return ret;
		jp->in_job = false;
	}
	jp->any_section = true;
	if (strcmp(name, "global") == 0) {
		jp->in_global = true;
		return 0;
	}
	jp->in_global = false;
	if (++jp->njobs > SB_JOBFILE_MAX_JOBS) {
		snprintf(d->msg, sizeof(d->msg), "%s: more than %d jobs in one job file", where,
			 SB_JOBFILE_MAX_JOBS);
		return -E2BIG;
	}
	ret = sb_job_copy(&jp->cur, &jp->global);
	if (ret)
		return ret;
	jp->in_job = true;
	snprintf(jp->cur.origin, sizeof(jp->cur.origin), "%s", where);
	return sb_job_apply(&jp->cur, "name", name, where, d);
}

/* "key=value" or a bare "key", for [global] or the current job. */
static int jf_option(struct jf_parse *jp, char *s, const char *where)
{
	struct sb_diag *d = jp->d;

	if (!jp->any_section) {
		snprintf(d->msg, sizeof(d->msg),
			 "%s: option outside a section (start with [global] or [jobname])", where);
		return -EINVAL;
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
		return -EINVAL;
	}
	return sb_job_apply(jp->in_global ? &jp->global : &jp->cur, key, value, where, d);
}

/* One line (line[0..len), not NUL-terminated), number lineno. */
static int jf_line(struct jf_parse *jp, const char *line, size_t len, unsigned lineno)
{
	struct sb_diag *d = jp->d;
	char raw[4096], expanded[8192], where[300], bad[256];

	snprintf(where, sizeof(where), "%s:%u", jp->path, lineno);
	if (len >= sizeof(raw)) {
		snprintf(d->msg, sizeof(d->msg), "%s: line longer than %zu bytes", where,
			 sizeof(raw) - 1);
		return -EINVAL;
	}
	memcpy(raw, line, len);
	raw[len] = '\0';

	char *s = trim(raw);
	if (!*s || *s == ';' || *s == '#')
		return 0;
	strip_comment(s);
	if (expand_env(s, expanded, sizeof(expanded), jp->lookup, jp->ctx, jp->vars_where, bad,
		       sizeof(bad))) {
		snprintf(d->msg, sizeof(d->msg), "%s: %s", where, bad);
		return -EINVAL;
	}
	if (expanded[0] == '[')
		return jf_section(jp, expanded, where);
	return jf_option(jp, expanded, where);
}

int sb_jobfile_parse_vars(const char *text, const char *path, const struct sb_job *base,
			  sb_jobfile_lookup_fn lookup, void *ctx, const char *vars_where,
			  struct sb_joblist *out, struct sb_diag *d)
{
	struct jf_parse jp = {
		.path = path,
		.lookup = lookup,
		.ctx = ctx,
		.vars_where = vars_where,
		.out = out,
		.d = d,
	};
	unsigned lineno = 0;
	int ret = 0;

	if (sb_job_copy(&jp.global, base))
		return -ENOMEM;
	for (const char *p = text; *p && !ret;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		ret = jf_line(&jp, p, len, ++lineno);
		p = nl ? nl + 1 : p + len;
	}
	if (!ret && jp.in_job) {
		ret = sb_joblist_push(out, &jp.cur);
		if (!ret)
			jp.in_job = false; /* else released below */
	}
	if (!ret && !jp.any_section) {
		snprintf(d->msg, sizeof(d->msg), "%s: no jobs defined", path);
		ret = -EINVAL;
	}
	if (jp.in_job)
		sb_job_release(&jp.cur);
	sb_job_release(&jp.global);
	return ret;
}

int sb_jobfile_load(const char *path, const struct sb_job *base, struct sb_joblist *out,
		    struct sb_diag *d)
{
	char *text = NULL;
	size_t len = 0;
	int ret = sb_jobfile_read(path, &text, &len, d);
	if (!ret)
		ret = text ? sb_jobfile_parse(text, path, base, out, d) : -ENOMEM;
	free(text);
	return ret;
}

int sb_jobfile_read(const char *path, char **textp, size_t *lenp, struct sb_diag *d)
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
	*textp = text;
	*lenp = len;
	text = NULL;
	ret = 0;
out:
	free(text);
	fclose(f);
	return ret;
}
