/* SPDX-License-Identifier: MIT */
#include "runner/io/trim.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int sb_trim_probe(int fd, bool blockdev, char *why, size_t whylen)
{
	struct stat st;
	if (fstat(fd, &st) != 0) {
		snprintf(why, whylen, "fstat: %s", strerror(errno));
		return -errno;
	}
	if (blockdev) {
		char path[128];
		unsigned long long max = 0;
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/discard_max_bytes",
			 major(st.st_rdev), minor(st.st_rdev));
		FILE *f = fopen(path, "r");
		if (!f) {
			/* a partition: its queue is the whole disk's */
			snprintf(path, sizeof(path),
				 "/sys/dev/block/%u:%u/../queue/discard_max_bytes",
				 major(st.st_rdev), minor(st.st_rdev));
			f = fopen(path, "r");
		}
		if (!f || fscanf(f, "%llu", &max) != 1)
			max = 0;
		if (f)
			fclose(f);
		if (max == 0) {
			snprintf(why, whylen, "the device does not support discard");
			return -EOPNOTSUPP;
		}
		return 0;
	}
	/* past the end, so nothing is punched: only whether the filesystem can */
	off_t at = (st.st_size + 8191) & ~(off_t)4095;
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, at, 4096) != 0) {
		int e = errno;
		snprintf(why, whylen, "the filesystem cannot punch holes (fallocate: %s)",
			 strerror(e));
		return -e;
	}
	return 0;
}

int64_t sb_trim(int fd, bool blockdev, uint64_t off, uint64_t len)
{
	if (blockdev) {
		uint64_t range[2] = {off, len};
		if (ioctl(fd, BLKDISCARD, range) != 0)
			return -errno;
		return (int64_t)len;
	}
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) != 0)
		return -errno;
	return (int64_t)len;
}
