/* SPDX-License-Identifier: MIT */
/*
 * io_uring engine: one ring per worker thread, registered buffers and
 * files, batched submission, completions reaped in batches without a
 * system call when they are already there.
 */
#include "runner/engine/engine.h"
#include "runner/io/worker.h"

#include <errno.h>
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

/*
 * Submission piece size while refilling: each I/O is submitted as soon as it
 * is prepared, as fio does by default (iodepth_batch_submit=1). One
 * io_uring_enter() with 3 or more SQEs builds its requests under a block
 * plug and dispatches them only when the last one is built, which keeps a
 * virtio disk's requests longer in the block layer (4 at a time: 10-30%
 * longer per I/O at QD4-64, docs/benchmarks.md). The job option
 * iodepth_batch_submit chooses another size.
 */
#define SB_URING_SUBMIT_BATCH 1

struct uring_data {
	struct io_uring ring;
	struct io_uring_cqe **cqes;
	bool fixed_bufs;
	bool fixed_files;
};

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static bool probe_ok;
static char probe_why[256];

static void probe(void)
{
	struct io_uring ring;
	int r = io_uring_queue_init(2, &ring, 0);
	if (r < 0) {
		const char *hint = "";
		if (r == -EPERM || r == -EACCES)
			hint = " (blocked by a seccomp profile, such as containerd 2's or Docker "
			       "25's "
			       "RuntimeDefault, or by sysctl kernel.io_uring_disabled)";
		else if (r == -ENOSYS)
			hint = " (the kernel has no io_uring)";
		snprintf(probe_why, sizeof(probe_why), "io_uring_setup failed: %s%s", strerror(-r),
			 hint);
		return;
	}
	struct io_uring_probe *p = io_uring_get_probe_ring(&ring);
	if (!p) {
		snprintf(probe_why, sizeof(probe_why),
			 "io_uring opcode probe failed (kernel older than 5.6)");
	} else {
		static const int need[] = {IORING_OP_READ_FIXED, IORING_OP_WRITE_FIXED,
					   IORING_OP_FSYNC, IORING_OP_READ, IORING_OP_WRITE};
		static const char *const names[] = {"READ_FIXED", "WRITE_FIXED", "FSYNC", "READ",
						    "WRITE"};
		probe_ok = true;
		for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
			if (!io_uring_opcode_supported(p, need[i])) {
				probe_ok = false;
				snprintf(probe_why, sizeof(probe_why),
					 "io_uring lacks IORING_OP_%s", names[i]);
				break;
			}
		}
		io_uring_free_probe(p);
	}
	io_uring_queue_exit(&ring);
}

bool sb_io_uring_available(char *why, size_t len)
{
	pthread_once(&probe_once, probe);
	if (!probe_ok && why)
		snprintf(why, len, "%s", probe_why);
	return probe_ok;
}

static int uring_init(struct sb_worker *w)
{
	struct uring_data *ud = calloc(1, sizeof(*ud));
	struct io_uring_params p;
	static const unsigned flag_sets[] = {
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
		0,
	};
	int r = -EINVAL;

	if (!ud)
		return -ENOMEM;
	ud->cqes = calloc(w->depth, sizeof(*ud->cqes));
	if (!ud->cqes) {
		free(ud);
		return -ENOMEM;
	}
	for (size_t i = 0; i < sizeof(flag_sets) / sizeof(flag_sets[0]); i++) {
		memset(&p, 0, sizeof(p));
		p.flags = flag_sets[i];
		r = io_uring_queue_init_params(w->depth, &ud->ring, &p);
		if (r != -EINVAL)
			break;
	}
	if (r < 0) {
		free(ud->cqes);
		free(ud);
		return r;
	}
	struct iovec *iov = calloc(w->depth, sizeof(*iov));
	if (iov) {
		for (unsigned i = 0; i < w->depth; i++) {
			iov[i].iov_base = w->io_us[i].buf;
			iov[i].iov_len = w->buflen;
		}
		ud->fixed_bufs = io_uring_register_buffers(&ud->ring, iov, w->depth) == 0;
		free(iov);
	}
	int *fds = calloc(w->nfiles, sizeof(*fds));
	if (fds) {
		for (unsigned i = 0; i < w->nfiles; i++)
			fds[i] = w->files[i].fd;
		ud->fixed_files = io_uring_register_files(&ud->ring, fds, w->nfiles) == 0;
		free(fds);
	}
	w->eng_data = ud;
	return 0;
}

static int uring_queue(struct sb_worker *w, struct sb_io_u *u)
{
	struct uring_data *ud = w->eng_data;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ud->ring);
	int fd = ud->fixed_files ? u->file : w->files[u->file].fd;

	if (!sqe)
		return SB_Q_BUSY;
	switch (u->ddir) {
	case SB_READ:
		if (ud->fixed_bufs)
			io_uring_prep_read_fixed(sqe, fd, u->buf, u->len, u->offset, u->buf_index);
		else
			io_uring_prep_read(sqe, fd, u->buf, u->len, u->offset);
		break;
	case SB_WRITE:
		if (ud->fixed_bufs)
			io_uring_prep_write_fixed(sqe, fd, u->buf, u->len, u->offset, u->buf_index);
		else
			io_uring_prep_write(sqe, fd, u->buf, u->len, u->offset);
		break;
	default:
		io_uring_prep_fsync(sqe, fd, u->datasync ? IORING_FSYNC_DATASYNC : 0);
		break;
	}
	if (ud->fixed_files)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data(sqe, u);
	return SB_Q_QUEUED;
}

static int uring_commit(struct sb_worker *w)
{
	struct uring_data *ud = w->eng_data;
	for (;;) {
		int r = io_uring_submit(&ud->ring);
		if (r >= 0 || r == -EBUSY) /* EBUSY: completions first, then resubmit */
			return 0;
		if (r != -EINTR && r != -EAGAIN)
			return r;
	}
}

static int uring_reap(struct sb_worker *w, unsigned min, struct sb_io_u **out, unsigned max)
{
	struct uring_data *ud = w->eng_data;
	struct io_uring_cqe *cqe;
	unsigned got = 0;

	if (max > w->depth)
		max = w->depth;
	while (got < max) {
		unsigned n = io_uring_peek_batch_cqe(&ud->ring, ud->cqes, max - got);
		for (unsigned i = 0; i < n; i++) {
			struct sb_io_u *u = io_uring_cqe_get_data(ud->cqes[i]);
			u->res = ud->cqes[i]->res;
			out[got++] = u;
		}
		io_uring_cq_advance(&ud->ring, n);
		if (got >= min)
			break;
		int r = io_uring_wait_cqe_nr(&ud->ring, &cqe, min - got);
		if (r < 0 && r != -EINTR && r != -EAGAIN && r != -ETIME)
			return r;
	}
	return (int)got;
}

static void uring_cleanup(struct sb_worker *w)
{
	struct uring_data *ud = w->eng_data;
	if (!ud)
		return;
	io_uring_queue_exit(&ud->ring);
	free(ud->cqes);
	free(ud);
	w->eng_data = NULL;
}

const struct sb_engine_ops sb_engine_io_uring = {
	.name = "io_uring",
	.init = uring_init,
	.queue = uring_queue,
	.commit = uring_commit,
	.reap = uring_reap,
	.cleanup = uring_cleanup,
	.max_depth = 0,
	.submit_batch = SB_URING_SUBMIT_BATCH,
};
