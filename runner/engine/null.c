/* SPDX-License-Identifier: MIT */
/*
 * null engine: every I/O succeeds at once without touching storage. It
 * measures the runner's own overhead per I/O (as fio's null engine does).
 * Queued I/Os complete at the next reap, so iodepth is honoured.
 */
#include "runner/engine/engine.h"
#include "runner/io/worker.h"

#include <errno.h>
#include <stdlib.h>

struct null_data {
	struct sb_io_u **queued;
	unsigned n;
};

static int null_init(struct sb_worker *w)
{
	struct null_data *nd = calloc(1, sizeof(*nd));
	if (!nd)
		return -ENOMEM;
	nd->queued = calloc(w->depth, sizeof(*nd->queued));
	if (!nd->queued) {
		free(nd);
		return -ENOMEM;
	}
	w->eng_data = nd;
	return 0;
}

static int null_queue(struct sb_worker *w, struct sb_io_u *u)
{
	struct null_data *nd = w->eng_data;
	if (nd->n == w->depth)
		return SB_Q_BUSY;
	u->res = u->ddir == SB_SYNC ? 0 : (int32_t)u->len;
	nd->queued[nd->n++] = u;
	return SB_Q_QUEUED;
}

static int null_commit(struct sb_worker *w)
{
	(void)w;
	return 0;
}

static int null_reap(struct sb_worker *w, unsigned min, struct sb_io_u **out, unsigned max)
{
	struct null_data *nd = w->eng_data;
	unsigned n = nd->n < max ? nd->n : max;
	(void)min;
	for (unsigned i = 0; i < n; i++)
		out[i] = nd->queued[nd->n - n + i];
	nd->n -= n;
	return (int)n;
}

static void null_cleanup(struct sb_worker *w)
{
	struct null_data *nd = w->eng_data;
	if (!nd)
		return;
	free(nd->queued);
	free(nd);
	w->eng_data = NULL;
}

const struct sb_engine_ops sb_engine_null = {
	.name = "null",
	.init = null_init,
	.queue = null_queue,
	.commit = null_commit,
	.reap = null_reap,
	.cleanup = null_cleanup,
	.max_depth = 0,
	.no_io = true,
};
