/* SPDX-License-Identifier: MIT */
/*
 * A work queue of keys ("namespace/name"), as controller-runtime's: a key
 * is queued at most once; a key being worked on is not handed to another
 * worker, and if it is added meanwhile it is handed out again after done;
 * keys can be added with a delay (retry backoff, deadlines).
 */
#ifndef SB_CONTROLLER_QUEUE_H
#define SB_CONTROLLER_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

struct br_queue;

/* NULL on ENOMEM. */
struct br_queue *br_queue_new(void);
/* Frees the queue; no thread may use it any more. */
void br_queue_free(struct br_queue *q);

/* Adds key now (0 or -ENOMEM). */
int br_queue_add(struct br_queue *q, const char *key);
/* Adds key after delay_ms (an earlier pending time wins). 0 or -ENOMEM. */
int br_queue_add_after(struct br_queue *q, const char *key, long delay_ms);

/*
 * Waits for a key that is due and not being worked on; copies it into key
 * and marks it busy. Returns 0, or -ESHUTDOWN once br_queue_shutdown was
 * called. Call br_queue_done(key) when finished.
 */
int br_queue_get(struct br_queue *q, char *key, size_t len);
void br_queue_done(struct br_queue *q, const char *key);

/* Wakes every waiter; br_queue_get returns -ESHUTDOWN from now on. */
void br_queue_shutdown(struct br_queue *q);

/* Keys waiting (due or not), for metrics and tests. */
size_t br_queue_len(struct br_queue *q);
/* Keys due now and not being worked on (0: the workers have caught up). */
size_t br_queue_due(struct br_queue *q);

#endif
