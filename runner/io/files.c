/* SPDX-License-Identifier: MIT */
#include "runner/io/files.h"
#include "runner/mode/stop.h"
#include "runner/io/trim.h"

#include "core/log.h"
#include "core/units.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define LAYOUT_CHUNK (1u << 20)

/* Whether direction d (read, write, trim) is used by the job. */
static bool dir_used(const struct sb_job_opts *o, int d)
{
	if (d == SB_READ)
		return sb_rw_reads(o->rw) || o->verify || o->verify_only;
	if (d == SB_WRITE)
		return sb_rw_writes(o->rw);
	return sb_rw_trims(o->rw);
}

uint32_t sb_job_max_bs(const struct sb_job_opts *o)
{
	uint32_t m = 0;
	for (int d = 0; d < 3; d++) {
		if (d == SB_TRIM && !sb_rw_trims(o->rw))
			continue;
		if (o->bs[d] > m)
			m = o->bs[d];
		if (o->bs_max[d] > m)
			m = o->bs_max[d];
		for (unsigned i = 0; i < o->nbssplit[d]; i++)
			if (o->bssplit[d][i].bs > m)
				m = o->bssplit[d][i].bs;
	}
	return m;
}

uint32_t sb_job_min_bs(const struct sb_job_opts *o)
{
	uint32_t m = UINT32_MAX;
	for (int d = 0; d < 3; d++) {
		if (!dir_used(o, d))
			continue;
		if (o->nbssplit[d]) {
			for (unsigned i = 0; i < o->nbssplit[d]; i++)
				if (o->bssplit[d][i].bs < m)
					m = o->bssplit[d][i].bs;
		} else if (o->bs[d] < m) {
			m = o->bs[d];
		}
	}
	return m == UINT32_MAX ? o->bs[0] : m;
}

uint32_t sb_job_align(const struct sb_job_opts *o)
{
	for (int d = 0; d < 3; d++)
		if (dir_used(o, d) && o->blockalign[d])
			return o->blockalign[d];
	return sb_job_min_bs(o);
}

/* The i-th name of a ':'-separated filename list, joined to directory. */
static int nth_filename(const struct sb_job_opts *o, unsigned i, char *out, size_t len)
{
	const char *p = o->filename;
	for (unsigned k = 0; k < i; k++) {
		p = strchr(p, ':');
		if (!p)
			return -ENOENT;
		p++;
	}
	const char *end = strchr(p, ':');
	int n = end ? (int)(end - p) : (int)strlen(p);
	int w;
	if (p[0] != '/' && o->directory)
		w = snprintf(out, len, "%s/%.*s", o->directory, n, p);
	else
		w = snprintf(out, len, "%.*s", n, p);
	return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
}

static unsigned count_filenames(const struct sb_job_opts *o)
{
	unsigned n = 1;
	for (const char *p = o->filename; (p = strchr(p, ':')); p++)
		n++;
	return n;
}

static int device_or_file_size(const char *path, uint64_t *size, bool *exists, bool *blk)
{
	struct stat st;
	*exists = false;
	*blk = false;
	if (stat(path, &st) != 0)
		return errno == ENOENT ? 0 : -errno;
	*exists = true;
	if (S_ISBLK(st.st_mode)) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		int r = ioctl(fd, BLKGETSIZE64, size);
		int e = errno;
		close(fd);
		*blk = true;
		return r ? -e : 0;
	}
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	*size = (uint64_t)st.st_size;
	return 0;
}

int sb_files_resolve_size(const struct sb_job *job, uint64_t *per_file, char *err, size_t errlen)
{
	const struct sb_job_opts *o = &job->o;
	char path[4096];
	unsigned nfiles = o->filename ? count_filenames(o) : o->nrfiles;

	*per_file = 0;
	if (o->filesize) {
		*per_file = o->filesize;
		return 0;
	}
	if (o->size && !o->size_percent) {
		*per_file = o->size / nfiles;
		if (*per_file < sb_job_max_bs(o)) {
			snprintf(err, errlen, "size: %llu bytes over %u files is less than bs %u",
				 (unsigned long long)o->size, nfiles, sb_job_max_bs(o));
			return -EINVAL;
		}
		return 0;
	}
	if (o->filename) {
		/* existing files or devices: their own size, or a share of it */
		uint64_t smallest = UINT64_MAX;
		for (unsigned i = 0; i < nfiles; i++) {
			uint64_t sz = 0;
			bool exists, blk;
			int r = nth_filename(o, i, path, sizeof(path));
			if (r) {
				snprintf(err, errlen, "filename: name too long");
				return r;
			}
			r = device_or_file_size(path, &sz, &exists, &blk);
			if (r) {
				snprintf(err, errlen, "filename: '%s': %s", path,
					 r == -EINVAL ? "not a regular file or block device"
						      : strerror(-r));
				return r;
			}
			if (!exists || sz == 0) {
				if (o->size_percent)
					break; /* a new file: N% of the free space below */
				snprintf(err, errlen,
					 "size: not set, and '%s' %s, so its size cannot be used",
					 path, exists ? "is empty" : "does not exist");
				return -EINVAL;
			}
			if (sz < smallest)
				smallest = sz;
		}
		if (smallest != UINT64_MAX) {
			uint64_t s = smallest > o->offset ? smallest - o->offset : 0;
			if (o->size_percent)
				s = s / 100 * o->size_percent;
			*per_file = s;
			return 0;
		}
	}
	/* N% of the free space where new files go */
	const char *dir = o->directory ? o->directory : ".";
	char dirbuf[4096];
	if (o->filename) {
		if (nth_filename(o, 0, dirbuf, sizeof(dirbuf)))
			return -ENAMETOOLONG;
		char *slash = strrchr(dirbuf, '/');
		if (slash == dirbuf)
			slash[1] = '\0';
		else if (slash)
			*slash = '\0';
		else
			snprintf(dirbuf, sizeof(dirbuf), ".");
		dir = dirbuf;
	}
	struct statvfs vfs;
	if (statvfs(dir, &vfs) != 0) {
		int e = errno;
		snprintf(err, errlen, "directory: '%s': %s", dir, strerror(e));
		return -e;
	}
	uint64_t free_bytes = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	uint64_t share = free_bytes / 100 * o->size_percent;
	unsigned sharers = o->filename ? nfiles : o->nrfiles * o->numjobs;
	share /= sharers ? sharers : 1;
	share -= share % sb_job_max_bs(o);
	if (share < sb_job_max_bs(o)) {
		snprintf(
			err, errlen,
			"size: %u%% of the %llu bytes free in '%s' is less than one block per file",
			o->size_percent, (unsigned long long)free_bytes, dir);
		return -ENOSPC;
	}
	*per_file = share;
	return 0;
}

int sb_dio_alignment(int fd, bool blockdev, unsigned *align)
{
	if (blockdev) {
		int ss = 0;
		if (ioctl(fd, BLKSSZGET, &ss) != 0)
			return -errno;
		*align = (unsigned)ss;
		return 0;
	}
	struct statx stx;
	memset(&stx, 0, sizeof(stx));
	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
	    (stx.stx_mask & STATX_DIOALIGN)) {
		if (stx.stx_dio_offset_align == 0)
			return -EOPNOTSUPP;
		*align = stx.stx_dio_offset_align;
		return 0;
	}
	*align = 512; /* the kernel does not say: the common logical block size */
	return 0;
}

/*
 * First byte before end that does not hold written data: a hole, or an
 * extent that was preallocated but never written (reads of those return
 * zeros without touching the device: fantasy read speeds). end when the
 * whole range holds data.
 */
static uint64_t first_unwritten(int fd, uint64_t end)
{
	off_t h = lseek(fd, 0, SEEK_HOLE);
	if (h < 0)
		return 0; /* cannot tell: lay out */
	uint64_t first = (uint64_t)h < end ? (uint64_t)h : end;

	enum { NEXT = 64 };
	union {
		struct fiemap fm;
		char buf[sizeof(struct fiemap) + NEXT * sizeof(struct fiemap_extent)];
	} u;
	uint64_t pos = 0;
	while (pos < first) {
		memset(&u, 0, sizeof(u));
		u.fm.fm_start = pos;
		u.fm.fm_length = first - pos;
		u.fm.fm_flags = FIEMAP_FLAG_SYNC;
		u.fm.fm_extent_count = NEXT;
		if (ioctl(fd, FS_IOC_FIEMAP, &u.fm) != 0)
			return first; /* no FIEMAP (tmpfs): holes are all we can see */
		if (u.fm.fm_mapped_extents == 0)
			break;
		for (unsigned i = 0; i < u.fm.fm_mapped_extents; i++) {
			const struct fiemap_extent *e = &u.fm.fm_extents[i];
			if (e->fe_flags & FIEMAP_EXTENT_UNWRITTEN)
				return e->fe_logical < first ? e->fe_logical : first;
			pos = e->fe_logical + e->fe_length;
			if (e->fe_flags & FIEMAP_EXTENT_LAST)
				return first;
		}
	}
	return first;
}

/* Writes incompressible data over [from, end) with buffered writes, then fsync. */
static int layout_data(struct sb_worker *w, int fd, const char *path, uint64_t from, uint64_t end)
{
	void *buf = NULL;
	int ret = 0;
	char b1[32];

	if (posix_memalign(&buf, 4096, LAYOUT_CHUNK))
		return -ENOMEM;
	sb_info("Laid out file", "job=%s file=%s size=%s", w->o->name, path,
		sb_fmt_bytes(end, b1, sizeof(b1)));
	for (uint64_t off = from; off < end;) {
		size_t n = end - off < LAYOUT_CHUNK ? (size_t)(end - off) : LAYOUT_CHUNK;
		if (sb_stop_requested()) {
			ret = -EINTR;
			snprintf(w->res->errmsg, sizeof(w->res->errmsg),
				 "laying out '%s' stopped at offset %llu by %s", path,
				 (unsigned long long)off, sb_stop_name(sb_stop_signal()));
			goto out;
		}
		if (w->o->zero_buffers)
			memset(buf, 0, n);
		else
			sb_rand_fill(&w->rng_data, buf, n);
		ssize_t r = pwrite(fd, buf, n, (off_t)off);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			snprintf(w->res->errmsg, sizeof(w->res->errmsg),
				 "laying out '%s' at offset %llu: %s", path,
				 (unsigned long long)off, strerror(errno));
			goto out;
		}
		if (r == 0) {
			ret = -EIO;
			snprintf(w->res->errmsg, sizeof(w->res->errmsg),
				 "laying out '%s': write returned 0 at offset %llu", path,
				 (unsigned long long)off);
			goto out;
		}
		off += (uint64_t)r;
	}
	if (fsync(fd) != 0) {
		ret = -errno;
		snprintf(w->res->errmsg, sizeof(w->res->errmsg), "fsync of '%s' after layout: %s",
			 path, strerror(errno));
	}
out:
	free(buf);
	return ret;
}

/*
 * Creates and sizes the regular file f (have bytes now) with buffered I/O,
 * laying out data when reads need it. 0 or -errno (message in w->res).
 */
static int size_regular_file(struct sb_worker *w, struct sb_file *f, uint64_t have, bool *usage)
{
	const struct sb_job_opts *o = w->o;
	bool need_data = sb_rw_reads(o->rw) || o->verify_only || o->overwrite ||
			 o->rw == SB_RW_TRIM || o->rw == SB_RW_RANDTRIM;
	uint64_t end = f->start + f->size;
	int ret = 0;
	int fd = open(f->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		*usage = errno == ENOENT || errno == ENOTDIR || errno == EACCES;
		snprintf(w->res->errmsg, sizeof(w->res->errmsg), "%s '%s': %s",
			 errno == ENOENT || errno == ENOTDIR ? "directory of" : "cannot create",
			 f->path, strerror(errno));
		return ret;
	}
	if (need_data && !o->verify_only) {
		uint64_t from = have >= end ? first_unwritten(fd, end) : 0;
		if (have < end || from < end)
			ret = layout_data(w, fd, f->path, have < end ? 0 : from, end);
	} else if (have < end) {
		if (o->fallocate && fallocate(fd, 0, 0, (off_t)end) == 0) {
			/* preallocated */
		} else if (ftruncate(fd, (off_t)end) != 0) {
			ret = -errno;
			snprintf(w->res->errmsg, sizeof(w->res->errmsg),
				 "cannot size '%s' to %llu bytes: %s", f->path,
				 (unsigned long long)end, strerror(errno));
		}
	}
	if (!ret && o->invalidate && !o->direct &&
	    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
		sb_debug("Skipped page cache invalidation", "file=%s", f->path);
	close(fd);
	return ret;
}

/* Opens f for the I/O (f->fd). 0 or -errno (message in w->res). */
static int open_for_io(struct sb_worker *w, struct sb_file *f, bool *usage)
{
	const struct sb_job_opts *o = w->o;
	bool writes = (sb_rw_writes(o->rw) || sb_rw_trims(o->rw)) && !o->verify_only;
	int flags = O_CLOEXEC | (writes ? O_RDWR : O_RDONLY);
	if (o->direct)
		flags |= O_DIRECT;
	if (o->sync_io)
		flags |= O_SYNC;
	f->fd = open(f->path, flags);
	if (f->fd < 0) {
		int ret = -errno;
		if (errno == EINVAL && o->direct) {
			*usage = true;
			snprintf(w->res->errmsg, sizeof(w->res->errmsg),
				 "direct=1: the filesystem of '%s' does not support O_DIRECT",
				 f->path);
		} else {
			snprintf(w->res->errmsg, sizeof(w->res->errmsg), "cannot open '%s': %s",
				 f->path, strerror(errno));
		}
		return ret;
	}
	return 0;
}

/*
 * direct=1: the block sizes and the start of f must be multiples of its
 * logical block size. 0 or -errno (message in w->res).
 */
static int check_direct(struct sb_worker *w, struct sb_file *f, bool *usage)
{
	const struct sb_job_opts *o = w->o;
	unsigned align = 0;
	int ret = sb_dio_alignment(f->fd, f->is_blockdev, &align);
	if (ret == -EOPNOTSUPP) {
		*usage = true;
		snprintf(w->res->errmsg, sizeof(w->res->errmsg),
			 "direct=1: the filesystem of '%s' does not support O_DIRECT", f->path);
		return ret;
	}
	if (ret) {
		snprintf(w->res->errmsg, sizeof(w->res->errmsg),
			 "direct=1: cannot read the logical block size of '%s': %s", f->path,
			 strerror(-ret));
		return ret;
	}
	const char *what = NULL;
	uint64_t val = 0;
	if (align == 0)
		align = 512;
	for (int d = 0; d < 2 && !what; d++) {
		if (o->bs[d] % align) {
			what = "bs";
			val = o->bs[d];
		}
		for (unsigned i = 0; i < o->nbssplit[d] && !what; i++) {
			if (o->bssplit[d][i].bs % align) {
				what = "bssplit";
				val = o->bssplit[d][i].bs;
			}
		}
	}
	uint32_t ba = sb_job_align(o);
	if (!what && sb_rw_random(o->rw) && ba % align) {
		what = "blockalign";
		val = ba;
	}
	if (!what && f->start % align) {
		what = o->offset % align ? "offset" : "offset_increment";
		val = f->start;
	}
	if (what) {
		*usage = true;
		snprintf(w->res->errmsg, sizeof(w->res->errmsg),
			 "%s: %llu is not a multiple of %u, the logical block size of '%s' "
			 "(direct=1 needs aligned I/O)",
			 what, (unsigned long long)val, align, f->path);
		return -EINVAL;
	}
	return 0;
}

static int prepare_file(struct sb_worker *w, struct sb_file *f, bool *usage)
{
	const struct sb_job_opts *o = w->o;
	uint64_t end = f->start + f->size;
	struct stat st;
	int ret;

	bool exists = stat(f->path, &st) == 0;
	if (exists && S_ISBLK(st.st_mode)) {
		f->is_blockdev = true;
	} else if (exists && !S_ISREG(st.st_mode)) {
		*usage = true;
		snprintf(w->res->errmsg, sizeof(w->res->errmsg),
			 "filename: '%s' is not a regular file or block device", f->path);
		return -EINVAL;
	}
	if (!exists && o->verify_only) {
		*usage = true;
		snprintf(w->res->errmsg, sizeof(w->res->errmsg),
			 "verify_only: '%s' does not exist, nothing to verify", f->path);
		return -ENOENT;
	}

	if (!f->is_blockdev) {
		ret = size_regular_file(w, f, exists ? (uint64_t)st.st_size : 0, usage);
		if (ret)
			return ret;
	} else if (end > 0) {
		uint64_t devsize = 0;
		bool e2, blk;
		ret = device_or_file_size(f->path, &devsize, &e2, &blk);
		if (ret == 0 && end > devsize) {
			*usage = true;
			snprintf(w->res->errmsg, sizeof(w->res->errmsg),
				 "size: the I/O region ends at byte %llu, beyond the end of '%s' "
				 "(%llu bytes)",
				 (unsigned long long)end, f->path, (unsigned long long)devsize);
			return -EINVAL;
		}
	}

	ret = open_for_io(w, f, usage);
	if (ret)
		return ret;
	if (o->invalidate && !o->direct && f->is_blockdev)
		(void)posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED);
	if (sb_rw_trims(o->rw) && o->engine != SB_ENGINE_NULL) {
		char why[256];
		ret = sb_trim_probe(f->fd, f->is_blockdev, why, sizeof(why));
		if (ret) {
			*usage = ret == -EOPNOTSUPP;
			snprintf(w->res->errmsg, sizeof(w->res->errmsg),
				 "rw=%s: '%s' cannot be trimmed: %s", sb_rw_name(o->rw), f->path,
				 why);
			return ret;
		}
	}
	return o->direct ? check_direct(w, f, usage) : 0;
}

int sb_files_setup(struct sb_worker *w, uint64_t per_file, bool *usage)
{
	const struct sb_job_opts *o = w->o;
	unsigned n = o->filename ? count_filenames(o) : o->nrfiles;
	int ret;

	*usage = false;
	w->files = calloc(n, sizeof(*w->files));
	if (!w->files)
		return -ENOMEM;
	w->nfiles = n;
	for (unsigned i = 0; i < n; i++)
		w->files[i].fd = -1;

	uint64_t base = o->offset + (uint64_t)w->clone * o->offset_increment;
	uint32_t mbs = sb_job_min_bs(o), xbs = sb_job_max_bs(o);
	/* random offsets are multiples of this (blockalign) */
	uint32_t slot = sb_rw_random(o->rw) ? sb_job_align(o) : mbs;
	for (unsigned i = 0; i < n; i++) {
		struct sb_file *f = &w->files[i];
		if (o->filename) {
			if (nth_filename(o, i, f->path, sizeof(f->path))) {
				*usage = true;
				snprintf(w->res->errmsg, sizeof(w->res->errmsg),
					 "filename: name too long");
				return -ENAMETOOLONG;
			}
			f->shared = o->numjobs > 1 || w->clients > 1;
		} else {
			int r = snprintf(f->path, sizeof(f->path), "%s/%s.%u.%u",
					 o->directory ? o->directory : ".", o->name, w->clone, i);
			if (r < 0 || (size_t)r >= sizeof(f->path)) {
				*usage = true;
				snprintf(w->res->errmsg, sizeof(w->res->errmsg),
					 "directory: path too long");
				return -ENAMETOOLONG;
			}
		}
		f->start = base;
		f->size = per_file;
		if (o->offset_percent || (o->size_percent && o->filename && !o->filesize)) {
			/* offset=N% and size=N% of each file's own size, as fio */
			uint64_t sz = 0;
			bool exists, blk;
			if (device_or_file_size(f->path, &sz, &exists, &blk) || !exists || !sz)
				sz = per_file + o->offset;
			if (o->offset_percent) {
				f->start = sz / 100 * o->offset_percent +
					   sz % 100 * o->offset_percent / 100;
				f->start -= f->start % mbs;
				f->start += (uint64_t)w->clone * o->offset_increment;
			}
			uint64_t room = sz > f->start ? sz - f->start : 0;
			if (o->size_percent && o->filename && !o->filesize)
				f->size = sz / 100 * o->size_percent +
					  sz % 100 * o->size_percent / 100;
			if (f->size > room && (o->offset_percent || exists))
				f->size = room;
		}
		if (f->size == 0) {
			uint64_t sz = 0;
			bool exists, blk;
			ret = device_or_file_size(f->path, &sz, &exists, &blk);
			if (ret || !exists || sz <= base) {
				*usage = true;
				snprintf(w->res->errmsg, sizeof(w->res->errmsg),
					 "size: not set and '%s' has no usable size", f->path);
				return -EINVAL;
			}
			f->size = sz - base;
		}
		/* whole blocks only */
		f->size -= f->size % mbs;
		if (f->size < xbs) {
			*usage = true;
			snprintf(w->res->errmsg, sizeof(w->res->errmsg),
				 "size: the region of '%s' (%llu bytes) holds no block of %u bytes",
				 f->path, (unsigned long long)f->size, xbs);
			return -EINVAL;
		}
		f->nblocks = (f->size - xbs) / slot + 1;
		ret = prepare_file(w, f, usage);
		if (ret)
			return ret;
	}
	return 0;
}

int sb_files_close(struct sb_worker *w)
{
	int ret = 0;
	for (unsigned i = 0; i < w->nfiles; i++) {
		struct sb_file *f = &w->files[i];
		if (f->fd < 0)
			continue;
		if (w->o->fsync_on_close && sb_rw_writes(w->o->rw) && fsync(f->fd) != 0 && !ret)
			ret = -errno;
		if (close(f->fd) != 0 && !ret)
			ret = -errno;
		f->fd = -1;
		if (w->o->unlink && !f->is_blockdev && !f->shared && unlink(f->path) != 0 &&
		    errno != ENOENT && !ret)
			ret = -errno;
	}
	return ret;
}
