/* SPDX-License-Identifier: MIT */
/*
 * Pattern files (lib/fiojob/patfile.h, issue 34): the controller never opens
 * one; the runner reads them only beneath its volume, and never blocks on a
 * device or a FIFO.
 */
#include "tests/unit/harness.h"
#include "tests/unit/spec_helpers.h"
#include "fiojob/opts.h"
#include "fiojob/patfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char top[64], dir[96]; /* dir, the volume, is top/vol; top/secret is outside it */

/* vol with pat (8 bytes), sub/pat, a FIFO, links out of it; 0 or -1. */
static int make_volume(void)
{
	char p[160];
	snprintf(top, sizeof(top), "/tmp/sbpatXXXXXX");
	if (!mkdtemp(top))
		return -1;
	snprintf(dir, sizeof(dir), "%s/vol", top);
	snprintf(p, sizeof(p), "%s/sub", dir);
	if (mkdir(dir, 0700) || mkdir(p, 0700))
		return -1;
	static const char *const files[] = {"vol/pat", "vol/sub/pat", "secret"};
	for (size_t i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/%s", top, files[i]);
		FILE *f = fopen(p, "w");
		if (!f || fputs("ABCDEFGH", f) < 0 || fclose(f))
			return -1;
	}
	snprintf(p, sizeof(p), "%s/fifo", dir);
	if (mkfifo(p, 0600))
		return -1;
	snprintf(p, sizeof(p), "%s/out", dir);
	if (symlink("../secret", p))
		return -1;
	snprintf(p, sizeof(p), "%s/up", dir);
	return symlink("..", p);
}

static void remove_volume(void)
{
	static const char *const names[] = {"vol/pat", "vol/sub/pat", "vol/fifo",
					    "vol/out", "vol/up",      "vol/sub",
					    "vol",     "secret",      ""};
	char p[160];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", top, names[i]);
		if (unlink(p))
			(void)rmdir(p);
	}
}

/* sb_job_opts_set(buffer_pattern=value): its status, the message in err. */
static enum sb_opt_status set_pattern(const char *value, char *err, size_t len, unsigned *patlen)
{
	struct sb_job_opts o;
	sb_job_opts_init(&o);
	err[0] = '\0';
	enum sb_opt_status st = sb_job_opts_set(&o, "buffer_pattern", value, err, len);
	*patlen = o.buffer_pattern_len;
	sb_job_opts_release(&o);
	return st;
}

/* The default (the controller's): no file is opened, whatever it is; inline patterns stay. */
static int test_refused_by_default(void)
{
	char err[512];
	unsigned n = 0;
	CHECK_INT(sb_patfile_mode(), SB_PATFILE_REFUSE);
	/* a missing file and a present one answer the same: no oracle */
	CHECK_INT(set_pattern("'/no/such/file'", err, sizeof(err), &n), SB_OPT_BADVAL);
	CHECK(strstr(err, "buffer_pattern: pattern file '/no/such/file': not allowed here"));
	CHECK(!strstr(err, "No such file"));
	CHECK_INT(set_pattern("'/etc/hostname'", err, sizeof(err), &n), SB_OPT_BADVAL);
	CHECK(strstr(err, "not allowed here"));
	CHECK_INT(set_pattern("0xdeadbeef\"ab\"12", err, sizeof(err), &n), SB_OPT_OK);
	CHECK_INT(n, 7);
	return T_PASS;
}

/* The controller's check: spec.fioJob naming a pattern file is refused, naming the field. */
static int test_spec_refuses_pattern_files(void)
{
	CHECK_INT(expect_invalid("{\"storageClasses\":[\"a\"],\"fioJob\":\"[x]\\nrw=write\\n"
				 "buffer_pattern='/etc/hostname'\\n\"}",
				 "spec.fioJob:3: buffer_pattern: pattern file '/etc/hostname': "
				 "not allowed here"),
		  T_PASS);
	CHECK_INT(expect_invalid("{\"storageClasses\":[\"a\"],\"fioJob\":\"[x]\\nrw=write\\n"
				 "verify_pattern=0x01'/dev/ptmx'\\n\"}",
				 "spec.fioJob:3: verify_pattern: pattern file '/dev/ptmx'"),
		  T_PASS);
	struct br_spec s;
	char err[512] = "";
	int r = parse("{\"storageClasses\":[\"a\"],\"fioJob\":\"[x]\\nrw=write\\n"
		      "buffer_pattern=0xdeadbeef\\nverify_pattern=\\\"abc\\\"\\n\"}",
		      &s, err, sizeof(err));
	if (r)
		fprintf(stderr, "    %s\n", err);
	br_spec_release(&s);
	CHECK_INT(r, 0);
	return T_PASS;
}

/* BENEATH (the runner in a pod): names in the volume only, regular files only. */
static int check_beneath(void)
{
	char err[512];
	unsigned n = 0;
	CHECK_INT(set_pattern("'pat'", err, sizeof(err), &n), SB_OPT_OK);
	CHECK_INT(n, 8);
	CHECK_INT(set_pattern("'sub/pat'0x00", err, sizeof(err), &n), SB_OPT_OK);
	CHECK_INT(n, 9);
	static const struct {
		const char *value, *needle;
	} bad[] = {
		{"'/etc/hostname'", "must be a relative name in the job's volume"},
		{"'../etc/hostname'", "without '..'"},
		{"'sub/../../x'", "without '..'"},
		{"'out'", "leaves the job's volume"},
		{"'up/secret'", "leaves the job's volume"},
		{"'fifo'", "not a regular file"},
		{"'sub'", "not a regular file"},
		{"'nothere'", "No such file"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (set_pattern(bad[i].value, err, sizeof(err), &n) != SB_OPT_BADVAL ||
		    !strstr(err, bad[i].needle)) {
			fprintf(stderr, "    %s: '%s', wanted '%s'\n", bad[i].value, err,
				bad[i].needle);
			return T_FAIL;
		}
	}
	return T_PASS;
}

static int test_beneath_the_volume(void)
{
	CHECK_INT(make_volume(), 0);
	CHECK_INT(sb_patfile_set_mode(SB_PATFILE_BENEATH, "relative"), -EINVAL);
	CHECK_INT(sb_patfile_set_mode(SB_PATFILE_BENEATH, dir), 0);
	int r = check_beneath();
	/* the same without openat2 (older kernels): O_NOFOLLOW and a realpath check */
	sb_patfile_force_fallback(true);
	if (r == T_PASS)
		r = check_beneath();
	sb_patfile_force_fallback(false);
	(void)sb_patfile_set_mode(SB_PATFILE_REFUSE, NULL);
	remove_volume();
	return r;
}

/* ANY (the command line): the user's files, but never a device or a FIFO. */
static int test_any_regular_only(void)
{
	char err[512], p[160];
	unsigned n = 0;
	CHECK_INT(make_volume(), 0);
	CHECK_INT(sb_patfile_set_mode(SB_PATFILE_ANY, NULL), 0);
	snprintf(p, sizeof(p), "'%s/pat'", dir);
	enum sb_opt_status a = set_pattern(p, err, sizeof(err), &n);
	snprintf(p, sizeof(p), "'%s/fifo'", dir);
	enum sb_opt_status b = set_pattern(p, err, sizeof(err), &n);
	bool fifo_named = strstr(err, "not a regular file") != NULL;
	enum sb_opt_status c = set_pattern("'/dev/null'", err, sizeof(err), &n);
	(void)sb_patfile_set_mode(SB_PATFILE_REFUSE, NULL);
	remove_volume();
	CHECK_INT(a, SB_OPT_OK);
	CHECK_INT(b, SB_OPT_BADVAL);
	CHECK(fifo_named);
	CHECK_INT(c, SB_OPT_BADVAL);
	CHECK(strstr(err, "not a regular file"));
	return T_PASS;
}

static const struct test_case cases[] = {
	{"patfile/refused-by-default", test_refused_by_default},
	{"patfile/spec-refuses-pattern-files", test_spec_refuses_pattern_files},
	{"patfile/beneath-the-volume", test_beneath_the_volume},
	{"patfile/any-regular-only", test_any_regular_only},
};
TEST_MAIN(cases)
