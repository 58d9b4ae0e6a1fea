/* SPDX-License-Identifier: MIT */
/* Pattern files, read only where the process allows (patfile.h). */
#include "fiojob/patfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__has_include)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define SB_HAVE_OPENAT2 1
#endif
#endif

static enum sb_patfile_mode mode_now = SB_PATFILE_REFUSE;
static char beneath[PATH_MAX];
static bool no_openat2;

#define OPEN_FLAGS (O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

int sb_patfile_set_mode(enum sb_patfile_mode mode, const char *dir)
{
	if (mode == SB_PATFILE_BENEATH) {
		if (!dir || dir[0] != '/' || strlen(dir) >= sizeof(beneath))
			return -EINVAL;
		snprintf(beneath, sizeof(beneath), "%s", dir);
	}
	mode_now = mode;
	return 0;
}

enum sb_patfile_mode sb_patfile_mode(void)
{
	return mode_now;
}

void sb_patfile_force_fallback(bool on)
{
	no_openat2 = on;
}

/* Whether name is relative and has no ".." component. */
static bool stays_beneath(const char *name)
{
	if (name[0] == '/')
		return false;
	for (const char *p = name; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return false;
		p += n;
		p += *p == '/';
	}
	return true;
}

/* The realpath check of the fallback: name resolves beneath dir; then opened without following. */
static int open_checked(const char *dir, const char *name)
{
	char joined[PATH_MAX * 2], real[PATH_MAX], base[PATH_MAX];
	snprintf(joined, sizeof(joined), "%s/%s", dir, name);
	if (!realpath(dir, base) || !realpath(joined, real))
		return -errno;
	size_t bl = strlen(base);
	if (strncmp(real, base, bl) || (real[bl] != '/' && !(bl == 1 && base[0] == '/')))
		return -EXDEV;
	/* the last component must not be a link either (realpath followed it) */
	int fd = open(joined, OPEN_FLAGS | O_NOFOLLOW);
	if (fd < 0)
		return errno == ELOOP ? -EXDEV : -errno;
	struct stat a, b;
	if (fstat(fd, &a) || stat(real, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		close(fd);
		return -EXDEV;
	}
	return fd;
}

/* name opened beneath dir: a descriptor, or -errno (-EXDEV: it leaves dir). */
static int open_beneath(const char *dir, const char *name)
{
#ifdef SB_HAVE_OPENAT2
	if (!no_openat2) {
		int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0)
			return -errno;
		struct open_how how = {.flags = OPEN_FLAGS,
				       .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
						  RESOLVE_NO_MAGICLINKS};
		long fd = syscall(SYS_openat2, dfd, name, &how, sizeof(how));
		int e = errno;
		close(dfd);
		if (fd >= 0)
			return (int)fd;
		if (e != ENOSYS && e != E2BIG && e != EPERM)
			return e == ELOOP ? -EXDEV : -e;
	}
#endif
	return open_checked(dir, name);
}

/* Reads at most cap bytes of fd, a regular file; 0 or -errno. */
static int read_regular(int fd, unsigned char *out, size_t cap, size_t *got)
{
	struct stat st;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	*got = 0;
	while (*got < cap) {
		ssize_t r = read(fd, out + *got, cap - *got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		*got += (size_t)r;
	}
	return 0;
}

int sb_patfile_read(const char *key, const char *name, unsigned char *out, size_t cap, size_t *got,
		    char *err, size_t errlen)
{
	int fd;
	*got = 0;
	if (mode_now == SB_PATFILE_REFUSE) {
		snprintf(err, errlen,
			 "%s: pattern file '%s': not allowed here (a run's job uses inline "
			 "patterns: 0xHEX, \"string\", a number)",
			 key, name);
		return -EACCES;
	}
	if (mode_now == SB_PATFILE_BENEATH && (!name[0] || !stays_beneath(name))) {
		snprintf(err, errlen,
			 "%s: pattern file '%s': must be a relative name in the job's volume "
			 "(%s), without '..'",
			 key, name, beneath);
		return -EINVAL;
	}
	fd = mode_now == SB_PATFILE_BENEATH ? open_beneath(beneath, name) : open(name, OPEN_FLAGS);
	if (fd < 0 && mode_now == SB_PATFILE_ANY)
		fd = -errno;
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot read pattern file '%s': %s", key, name,
			 fd == -EXDEV ? "it leaves the job's volume (a symbolic link?)"
				      : strerror(-fd));
		return fd == -EXDEV ? -EINVAL : fd;
	}
	int r = read_regular(fd, out, cap, got);
	close(fd);
	if (r)
		snprintf(err, errlen, "%s: cannot read pattern file '%s': %s", key, name,
			 r == -EINVAL ? "not a regular file" : strerror(-r));
	return r;
}
