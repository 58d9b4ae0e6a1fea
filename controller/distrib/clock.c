/* SPDX-License-Identifier: MIT */
#include "controller/distrib/clock.h"

#include "core/labels.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct seen {
	char key[160];
	int64_t ns;
	uint64_t order; /* insertion order: the smallest is forgotten first */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct seen table[BR_CLOCK_SEEN_MAX];
static size_t used;
static uint64_t next_order = 1;

static void key_of(char *k, size_t len, const char *uid, const char *cls, unsigned it, unsigned at,
		   unsigned g, unsigned m)
{
	snprintf(k, len, "%s/%s/%u/%u/%u/%u", uid, cls, it, at, g, m);
}

/* The entry of k (lock held); NULL when none. */
static struct seen *find(const char *k)
{
	for (size_t i = 0; i < used; i++)
		if (!strcmp(table[i].key, k))
			return &table[i];
	return NULL;
}

int64_t br_clock_seen(const char *run_uid, const char *cls, unsigned iteration, unsigned attempt,
		      unsigned group, unsigned member, int64_t now_ns)
{
	char k[160];
	key_of(k, sizeof(k), run_uid, cls, iteration, attempt, group, member);
	pthread_mutex_lock(&lock);
	struct seen *s = find(k);
	if (!s) {
		if (used < BR_CLOCK_SEEN_MAX) {
			s = &table[used++];
		} else { /* full: the oldest goes */
			s = &table[0];
			for (size_t i = 1; i < used; i++)
				if (table[i].order < s->order)
					s = &table[i];
		}
		snprintf(s->key, sizeof(s->key), "%s", k);
		s->ns = now_ns;
		s->order = next_order++;
	}
	int64_t t = s->ns;
	pthread_mutex_unlock(&lock);
	return t;
}

/* A label's unsigned value in [0, max], else -1. */
static long label_num(const json_t *labels, const char *k, unsigned long max)
{
	const char *v = json_string_value(json_object_get(labels, k));
	char *end;
	if (!v || !*v)
		return -1;
	unsigned long n = strtoul(v, &end, 10);
	return *end || n > max ? -1 : (long)n;
}

void br_clock_ready_event(const json_t *cm, int64_t now_ns)
{
	const json_t *md = json_object_get(cm, "metadata");
	const json_t *labels = json_object_get(md, "labels");
	const char *comp = json_string_value(json_object_get(labels, SB_LABEL_COMPONENT));
	const char *cls = json_string_value(
		json_object_get(json_object_get(md, "annotations"), SB_ANNOT_CLASS));
	const char *uid = json_string_value(
		json_object_get(json_array_get(json_object_get(md, "ownerReferences"), 0), "uid"));
	long it = label_num(labels, SB_LABEL_ITERATION, 1000000);
	long at = label_num(labels, SB_LABEL_ATTEMPT, 1000000);
	long m = label_num(labels, SB_LABEL_MEMBER, 1000);
	long g = label_num(labels, SB_LABEL_GROUP, 1000000);
	if (!comp || strcmp(comp, SB_COMPONENT_READY) || !cls || !uid || it < 1 || at < 1 || m < 1)
		return;
	(void)br_clock_seen(uid, cls, (unsigned)it, (unsigned)at, g < 0 ? 0 : (unsigned)g,
			    (unsigned)m, now_ns);
}

int64_t br_clock_seen_get(const char *run_uid, const char *cls, unsigned iteration,
			  unsigned attempt, unsigned group, unsigned member)
{
	char k[160];
	key_of(k, sizeof(k), run_uid, cls, iteration, attempt, group, member);
	pthread_mutex_lock(&lock);
	const struct seen *s = find(k);
	int64_t t = s ? s->ns : 0;
	pthread_mutex_unlock(&lock);
	return t;
}

int br_clock_stamp_start(json_t *cm, const char *run_uid, const char *cls, unsigned iteration,
			 unsigned attempt, unsigned group, unsigned pods, int64_t sent_ns)
{
	json_t *data = json_object_get(cm, "data"), *seen = json_object();
	char sent[32];
	int ret = -ENOMEM;
	if (!json_is_object(data) || !seen)
		goto out;
	for (unsigned m = 1; m <= pods; m++) {
		int64_t t = br_clock_seen_get(run_uid, cls, iteration, attempt, group, m);
		char mk[16];
		snprintf(mk, sizeof(mk), "%u", m);
		if (t && json_object_set_new(seen, mk, json_integer((json_int_t)t)))
			goto out;
	}
	char *text = json_dumps(seen, JSON_COMPACT | JSON_SORT_KEYS);
	snprintf(sent, sizeof(sent), "%" PRId64, sent_ns);
	if (text && !json_object_set_new(data, SB_START_SENT_KEY, json_string(sent)) &&
	    !json_object_set_new(data, SB_START_SEEN_KEY, json_string(text)))
		ret = 0;
	free(text);
out:
	json_decref(seen);
	return ret;
}

void br_clock_reset(void)
{
	pthread_mutex_lock(&lock);
	used = 0;
	pthread_mutex_unlock(&lock);
}
