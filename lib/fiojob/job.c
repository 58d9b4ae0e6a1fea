/* SPDX-License-Identifier: MIT */
#include "fiojob/job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sb_joblist_push(struct sb_joblist *l, struct sb_job *j)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		struct sb_job *n = realloc(l->jobs, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		l->jobs = n;
		l->cap = cap;
	}
	l->jobs[l->n++] = *j;
	memset(j, 0, sizeof(*j));
	return 0;
}

void sb_job_release(struct sb_job *j)
{
	sb_job_opts_release(&j->o);
	for (size_t i = 0; i < j->nkv; i++) {
		free(j->kv[i].key);
		free(j->kv[i].value);
	}
	free(j->kv);
	j->kv = NULL;
	j->nkv = 0;
}

void sb_joblist_release(struct sb_joblist *l)
{
	for (size_t i = 0; i < l->n; i++)
		sb_job_release(&l->jobs[i]);
	free(l->jobs);
	memset(l, 0, sizeof(*l));
}

int sb_job_kv_set(struct sb_job *j, const char *key, const char *value)
{
	char *v = NULL;
	if (value && !(v = strdup(value)))
		return -ENOMEM;
	for (size_t i = 0; i < j->nkv; i++) {
		if (strcmp(j->kv[i].key, key) == 0) {
			free(j->kv[i].value);
			j->kv[i].value = v;
			return 0;
		}
	}
	struct sb_kv *n = realloc(j->kv, (j->nkv + 1) * sizeof(*n));
	if (!n) {
		free(v);
		return -ENOMEM;
	}
	j->kv = n;
	j->kv[j->nkv].key = strdup(key);
	if (!j->kv[j->nkv].key) {
		free(v);
		return -ENOMEM;
	}
	j->kv[j->nkv].value = v;
	j->nkv++;
	return 0;
}

int sb_job_copy(struct sb_job *dst, const struct sb_job *src)
{
	memset(dst, 0, sizeof(*dst));
	if (sb_job_opts_copy(&dst->o, &src->o))
		return -ENOMEM;
	dst->group = src->group;
	memcpy(dst->origin, src->origin, sizeof(dst->origin));
	for (size_t i = 0; i < src->nkv; i++) {
		if (sb_job_kv_set(dst, src->kv[i].key, src->kv[i].value)) {
			sb_job_release(dst);
			return -ENOMEM;
		}
	}
	return 0;
}

void sb_joblist_assign_groups(struct sb_joblist *l)
{
	unsigned g = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (i > 0 && (l->jobs[i].o.stonewall || l->jobs[i].o.new_group))
			g++;
		l->jobs[i].group = g;
	}
}

int sb_job_apply(struct sb_job *j, const char *key, const char *value, const char *where,
		 struct sb_diag *d)
{
	char err[512];
	enum sb_opt_status st = sb_job_opts_set(&j->o, key, value, err, sizeof(err));

	switch (st) {
	case SB_OPT_OK:
		break;
	case SB_OPT_NOOP:
		if (d->warn) {
			char msg[800];
			snprintf(msg, sizeof(msg), "%s: %s", where, err);
			d->warn(d->ctx, msg);
		}
		break;
	default:
		snprintf(d->msg, sizeof(d->msg), "%s: %s", where, err);
		return -EINVAL;
	}
	if (sb_job_kv_set(j, key, value)) {
		snprintf(d->msg, sizeof(d->msg), "%s: out of memory", where);
		return -ENOMEM;
	}
	return 0;
}
