/* SPDX-License-Identifier: MIT */
/*
 * Pattern files: the 'name' form of buffer_pattern= and verify_pattern=
 * (fio reads the file's first bytes). Where such a file may be read is the
 * process's choice, made once at start, before any job is parsed:
 *
 *   SB_PATFILE_REFUSE   (the default: the controller) no file is opened;
 *                       the option is refused, naming the file, so a spec
 *                       cannot make the controller open a path of its own
 *                       filesystem (docs/security.md)
 *   SB_PATFILE_BENEATH  (the runner in a pod) a relative name beneath one
 *                       directory (the job's volume): no absolute name, no
 *                       "..", no symbolic link (openat2 RESOLVE_BENEATH and
 *                       RESOLVE_NO_SYMLINKS where the kernel has it, else
 *                       O_NOFOLLOW and a realpath check)
 *   SB_PATFILE_ANY      (the runner's command line: the user's own files)
 *                       any name, as fio
 *
 * In every mode the file is opened O_NONBLOCK and must be a regular file, so
 * a device or a FIFO is refused instead of blocking the reader.
 */
#ifndef SB_LIB_FIOJOB_PATFILE_H
#define SB_LIB_FIOJOB_PATFILE_H

#include <stdbool.h>
#include <stddef.h>

enum sb_patfile_mode { SB_PATFILE_REFUSE = 0, SB_PATFILE_BENEATH, SB_PATFILE_ANY };

/*
 * Sets the mode; dir (copied) is the directory of SB_PATFILE_BENEATH and
 * ignored otherwise. Returns 0, -EINVAL (BENEATH without an absolute dir, or
 * dir too long). Not thread-safe: call before parsing jobs.
 */
int sb_patfile_set_mode(enum sb_patfile_mode mode, const char *dir);

/* The current mode. */
enum sb_patfile_mode sb_patfile_mode(void);

/*
 * Reads at most cap bytes of the pattern file name into out, *got the count.
 * key (the option's name) starts the message in err on failure. Returns 0,
 * -EACCES (refused by the mode), -EINVAL (not a regular file, a name that
 * leaves the directory), -errno of opening or reading.
 */
int sb_patfile_read(const char *key, const char *name, unsigned char *out, size_t cap, size_t *got,
		    char *err, size_t errlen);

/* Tests only: true makes SB_PATFILE_BENEATH use its fallback (no openat2). */
void sb_patfile_force_fallback(bool on);

#endif
