/* SPDX-License-Identifier: MIT */
/* Bearer token files, re-read when they change (bound ServiceAccount tokens
 * are rotated by the kubelet by replacing the file). */
#include "kube/token.h"
#include "kube/util.h"
#include "kube/clock.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int kube_token_file_init(struct kube_token_file *t, const char *path, long recheck_ms)
{
	memset(t, 0, sizeof(*t));
	t->recheck_ms = recheck_ms;
	t->path = strdup(path);
	if (!t->path)
		return -ENOMEM;
	int r = pthread_mutex_init(&t->lock, NULL);
	if (r) {
		free(t->path);
		t->path = NULL;
		return -r;
	}
	return 0;
}

void kube_token_file_release(struct kube_token_file *t)
{
	if (!t->path)
		return;
	pthread_mutex_destroy(&t->lock);
	free(t->path);
	kube_free_secret(t->value);
	memset(t, 0, sizeof(*t));
}

static bool same_file(const struct kube_token_file *t, const struct stat *st)
{
	return t->dev == st->st_dev && t->ino == st->st_ino && t->size == st->st_size &&
	       t->mtime.tv_sec == st->st_mtim.tv_sec && t->mtime.tv_nsec == st->st_mtim.tv_nsec &&
	       t->ctime.tv_sec == st->st_ctim.tv_sec && t->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

/* Reads the file into t->value (lock held). */
static int reload(struct kube_token_file *t, const struct stat *st)
{
	char *buf = NULL;
	size_t len = 0;
	int ret = kube_read_file(t->path, &buf, &len);
	if (ret)
		return ret;
	while (len && isspace((unsigned char)buf[len - 1]))
		buf[--len] = '\0';
	size_t skip = 0;
	while (skip < len && isspace((unsigned char)buf[skip]))
		skip++;
	if (skip == len) {
		kube_free_secret(buf);
		return -ENODATA;
	}
	memmove(buf, buf + skip, len - skip + 1);
	kube_free_secret(t->value);
	t->value = buf;
	t->dev = st->st_dev;
	t->ino = st->st_ino;
	t->size = st->st_size;
	t->mtime = st->st_mtim;
	t->ctime = st->st_ctim;
	t->reads++;
	return 0;
}

int kube_token_file_get(struct kube_token_file *t, bool force, char **out)
{
	struct stat st;
	int ret = 0;

	*out = NULL;
	pthread_mutex_lock(&t->lock);
	int64_t now = kube_now_ms();
	/* Looked at the file a moment ago: keep the token (a 401 forces). */
	bool recent =
		!force && t->value && t->recheck_ms > 0 && now - t->checked_ms < t->recheck_ms;
	if (!recent) {
		t->checked_ms = now;
		if (stat(t->path, &st) != 0) {
			ret = errno ? -errno : -EIO;
			/* Keep using the last token while the file is being replaced. */
			if (t->value)
				ret = 0;
		} else if (force || !t->value || !same_file(t, &st)) {
			ret = reload(t, &st);
			if (ret && t->value)
				ret = 0;
		}
	}
	if (!ret && t->value) {
		*out = strdup(t->value);
		if (!*out)
			ret = -ENOMEM;
	}
	pthread_mutex_unlock(&t->lock);
	return ret;
}
