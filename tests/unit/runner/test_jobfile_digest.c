/* SPDX-License-Identifier: MIT */
/*
 * A job file checked against the digest its pod names (issue 34,
 * sb_cli_load_jobfile, runner/mode/cmdline.h): the text read once is the
 * text checked and parsed; a changed or planted file is refused with both
 * digests named.
 */
#include "tests/unit/harness.h"
#include "fiojob/job.h"
#include "fiojob/jobfile.h"
#include "result/sign.h"
#include "runner/mode/cmdline.h"
#include "fiojob/opts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char job[] = "[w]\nrw=randread\nbs=4k\nsize=1m\n";

static int write_job(char *path, size_t len, const char *text)
{
	snprintf(path, len, "/tmp/sbjobXXXXXX");
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int test_digest(void)
{
	char dg[65];
	/* sha256("abc"), FIPS 180-2's example */
	CHECK_INT(sb_sha256_hex("abc", 3, dg), 0);
	CHECK_STR(dg, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	return T_PASS;
}

static int test_load_checked(void)
{
	char path[64], dg[65], upper[65];
	struct sb_job base;
	struct sb_diag d = {0};
	CHECK_INT(write_job(path, sizeof(path), job), 0);
	CHECK_INT(sb_sha256_hex(job, strlen(job), dg), 0);
	for (size_t i = 0; i < 65; i++)
		upper[i] = (char)(dg[i] >= 'a' && dg[i] <= 'f' ? dg[i] - 32 : dg[i]);
	memset(&base, 0, sizeof(base));
	sb_job_opts_init(&base.o);
	struct sb_joblist jobs = {0};
	int ok = sb_cli_load_jobfile(path, dg, &base, &jobs, &d);
	size_t n_ok = jobs.n;
	sb_joblist_release(&jobs);
	int up = sb_cli_load_jobfile(path, upper, &base, &jobs, &d);
	sb_joblist_release(&jobs);
	/* one digit off: refused before parsing, nothing appended */
	dg[10] = dg[10] == '0' ? '1' : '0';
	int bad = sb_cli_load_jobfile(path, dg, &base, &jobs, &d);
	size_t n_bad = jobs.n;
	sb_joblist_release(&jobs);
	int shortd = sb_cli_load_jobfile(path, "abc", &base, &jobs, &d);
	sb_joblist_release(&jobs);
	unlink(path);
	sb_job_release(&base);
	CHECK_INT(ok, 0);
	CHECK_INT(n_ok, 1);
	CHECK_INT(up, 0);
	CHECK_INT(bad, -EBADMSG);
	CHECK_INT(n_bad, 0);
	CHECK_INT(shortd, -EBADMSG);
	CHECK(strstr(d.msg, path) && strstr(d.msg, "changed or planted"));
	return T_PASS;
}

static const struct test_case cases[] = {
	{"jobfile/digest", test_digest},
	{"jobfile/load-checked", test_load_checked},
};

TEST_MAIN(cases)
