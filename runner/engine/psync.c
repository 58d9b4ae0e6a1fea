/* SPDX-License-Identifier: MIT */
/*
 * psync engine: pread/pwrite/fsync/fdatasync in the worker's thread, one
 * I/O at a time (iodepth is 1, as with fio's synchronous engines).
 */
#include "runner/engine/engine.h"
#include "runner/io/worker.h"

#include <errno.h>
#include <unistd.h>

static int psync_init(struct sb_worker *w)
{
	(void)w;
	return 0;
}

static int psync_queue(struct sb_worker *w, struct sb_io_u *u)
{
	int fd = w->files[u->file].fd;
	ssize_t r;

	do {
		if (u->ddir == SB_READ)
			r = pread(fd, u->buf, u->len, (off_t)u->offset);
		else if (u->ddir == SB_WRITE)
			r = pwrite(fd, u->buf, u->len, (off_t)u->offset);
		else
			r = u->datasync ? fdatasync(fd) : fsync(fd);
	} while (r < 0 && errno == EINTR);
	u->res = r < 0 ? -errno : (int32_t)r;
	return SB_Q_COMPLETED;
}

static int psync_commit(struct sb_worker *w)
{
	(void)w;
	return 0;
}

static int psync_reap(struct sb_worker *w, unsigned min, struct sb_io_u **out, unsigned max)
{
	(void)w;
	(void)min;
	(void)out;
	(void)max;
	return 0;
}

static void psync_cleanup(struct sb_worker *w)
{
	(void)w;
}

const struct sb_engine_ops sb_engine_psync = {
	.name = "psync",
	.init = psync_init,
	.queue = psync_queue,
	.commit = psync_commit,
	.reap = psync_reap,
	.cleanup = psync_cleanup,
	.max_depth = 1,
};
