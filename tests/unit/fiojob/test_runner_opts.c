/* SPDX-License-Identifier: MIT */
#include "tests/unit/harness.h"
#include "fiojob/jobfile.h"
#include "fiojob/opts.h"
#include "fiojob/profiles.h"

#include <errno.h>
#include <stdlib.h>

static char warnings[4096];

static void warn(void *ctx, const char *msg)
{
	(void)ctx;
	size_t l = strlen(warnings);
	snprintf(warnings + l, sizeof(warnings) - l, "%s\n", msg);
}

static int test_set_basic(void)
{
	struct sb_job_opts o;
	char err[256];
	sb_job_opts_init(&o);
	CHECK_INT(sb_job_opts_set(&o, "rw", "randread", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.rw, SB_RW_RANDREAD);
	CHECK_INT(sb_job_opts_set(&o, "bs", "4k", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.bs[0], 4096);
	CHECK_INT(o.bs[1], 4096);
	CHECK_INT(sb_job_opts_set(&o, "bs", "4k,64k", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.bs[0], 4096);
	CHECK_INT(o.bs[1], 65536);
	CHECK_INT(sb_job_opts_set(&o, "iodepth", "32", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.iodepth, 32);
	CHECK_INT(sb_job_opts_set(&o, "direct", NULL, err, sizeof(err)), SB_OPT_OK);
	CHECK(o.direct);
	CHECK_INT(sb_job_opts_set(&o, "buffered", "1", err, sizeof(err)), SB_OPT_OK);
	CHECK(!o.direct);
	CHECK_INT(sb_job_opts_set(&o, "runtime", "2m", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.runtime_us, 120000000ull);
	CHECK_INT(sb_job_opts_set(&o, "ramp_time", "500ms", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.ramp_us, 500000);
	CHECK_INT(sb_job_opts_set(&o, "size", "25%", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.size_percent, 25);
	CHECK_INT(sb_job_opts_set(&o, "rwmixwrite", "30", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.rwmixread, 70);
	CHECK_INT(sb_job_opts_set(&o, "readwrite", "randrw", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.rw, SB_RW_RANDRW);
	CHECK_INT(sb_job_opts_set(&o, "percentile_list", "50:99:99.9", err, sizeof(err)),
		  SB_OPT_OK);
	CHECK_INT(o.npercentiles, 3);
	CHECK_NEAR(o.percentiles[2], 99.9, 1e-12);
	sb_job_opts_release(&o);
	return T_PASS;
}

static int test_engines(void)
{
	struct sb_job_opts o;
	char err[256];
	sb_job_opts_init(&o);
	CHECK_INT(sb_job_opts_set(&o, "ioengine", "libaio", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.engine, SB_ENGINE_IO_URING);
	CHECK_STR(o.ioengine_asked, "libaio");
	CHECK_INT(sb_job_opts_set(&o, "ioengine", "posixaio", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.engine, SB_ENGINE_IO_URING);
	CHECK_INT(sb_job_opts_set(&o, "ioengine", "sync", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.engine, SB_ENGINE_PSYNC);
	CHECK_INT(sb_job_opts_set(&o, "ioengine", "pvsync", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.engine, SB_ENGINE_PSYNC);
	CHECK_INT(sb_job_opts_set(&o, "ioengine", "null", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.engine, SB_ENGINE_NULL);
	CHECK_INT(sb_job_opts_set(&o, "ioengine", "rdma", err, sizeof(err)), SB_OPT_REFUSED);
	CHECK(strstr(err, "rdma") != NULL);
	CHECK_INT(sb_job_opts_set(&o, "ioengine", "bogus", err, sizeof(err)), SB_OPT_BADVAL);
	CHECK(strstr(err, "bogus") != NULL);
	sb_job_opts_release(&o);
	return T_PASS;
}

static int test_bad_values_name_the_option(void)
{
	struct sb_job_opts o;
	char err[256];
	sb_job_opts_init(&o);
	CHECK_INT(sb_job_opts_set(&o, "bs", "3q", err, sizeof(err)), SB_OPT_BADVAL);
	CHECK(strncmp(err, "bs: '3q'", 8) == 0);
	CHECK_INT(sb_job_opts_set(&o, "iodepth", "0", err, sizeof(err)), SB_OPT_BADVAL);
	CHECK(strstr(err, "iodepth") == err);
	CHECK_INT(sb_job_opts_set(&o, "rw", "read:-8k", err, sizeof(err)), SB_OPT_BADVAL);
	CHECK(strstr(err, "rw: 'read:-8k'") == err);
	CHECK_INT(sb_job_opts_set(&o, "frobnicate", "1", err, sizeof(err)), SB_OPT_UNKNOWN);
	CHECK(strstr(err, "'frobnicate'") != NULL);
	CHECK_INT(sb_job_opts_set(&o, "zonemode", "zbd", err, sizeof(err)), SB_OPT_REFUSED);
	CHECK(strstr(err, "zonemode") != NULL);
	CHECK_INT(sb_job_opts_set(&o, "thread", NULL, err, sizeof(err)), SB_OPT_NOOP);
	CHECK_INT(sb_job_opts_set(&o, "bssplit", "4k/50:64k/60", err, sizeof(err)), SB_OPT_BADVAL);
	CHECK(strstr(err, "110") != NULL);
	CHECK_INT(sb_job_opts_set(&o, "size", "0%", err, sizeof(err)), SB_OPT_BADVAL);
	CHECK_INT(sb_job_opts_set(&o, "percentile_list", "99:50", err, sizeof(err)), SB_OPT_BADVAL);
	sb_job_opts_release(&o);
	return T_PASS;
}

static int test_bssplit(void)
{
	struct sb_job_opts o;
	char err[256];
	sb_job_opts_init(&o);
	CHECK_INT(sb_job_opts_set(&o, "bssplit", "4k/10:64k/50:32k", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.nbssplit[0], 3);
	CHECK_INT(o.bssplit[0][2].bs, 32768);
	CHECK_INT(o.bssplit[0][2].perc, 40);
	CHECK_INT(o.nbssplit[1], 3);
	CHECK_INT(sb_job_opts_set(&o, "bssplit", "4k/100,64k/100", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.bssplit[0][0].bs, 4096);
	CHECK_INT(o.bssplit[1][0].bs, 65536);
	sb_job_opts_release(&o);
	return T_PASS;
}

static int test_validate(void)
{
	struct sb_job_opts o;
	char err[256];
	sb_job_opts_init(&o);
	sb_job_opts_set(&o, "size", "1m", err, sizeof(err));
	sb_job_opts_set(&o, "time_based", NULL, err, sizeof(err));
	CHECK_INT(sb_job_opts_validate(&o, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "runtime") != NULL);
	sb_job_opts_set(&o, "runtime", "1", err, sizeof(err));
	CHECK_INT(sb_job_opts_validate(&o, err, sizeof(err)), 0);
	sb_job_opts_set(&o, "bs", "2m", err, sizeof(err));
	CHECK_INT(sb_job_opts_validate(&o, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "bs") == err);
	sb_job_opts_release(&o);
	return T_PASS;
}

static int test_jobfile_good(void)
{
	const char *text = "; a comment\n"
			   "# another\n"
			   "[global]\n"
			   "ioengine=libaio\n"
			   "direct=1\n"
			   "size = 64m\n"
			   "thread\n"
			   "\n"
			   "[seq-read]\n"
			   "rw=read\n"
			   "bs=1m\n"
			   "\n"
			   "[rand-write]\n"
			   "rw=randwrite\n"
			   "stonewall\n"
			   "directory=${SB_TEST_DIR}\n";
	struct sb_job base;
	struct sb_joblist l = SB_JOBLIST_INIT;
	struct sb_diag d = {.warn = warn};

	memset(&base, 0, sizeof(base));
	sb_job_opts_init(&base.o);
	warnings[0] = '\0';
	setenv("SB_TEST_DIR", "/tmp/x", 1);
	CHECK_INT(sb_jobfile_parse(text, "t.fio", &base, &l, &d), 0);
	CHECK_INT(l.n, 2);
	CHECK_STR(l.jobs[0].o.name, "seq-read");
	CHECK_INT(l.jobs[0].o.rw, SB_RW_READ);
	CHECK_INT(l.jobs[0].o.bs[0], 1 << 20);
	CHECK(l.jobs[0].o.direct);
	CHECK_INT(l.jobs[0].o.size, 64 << 20);
	CHECK_INT(l.jobs[0].o.engine, SB_ENGINE_IO_URING);
	CHECK_STR(l.jobs[1].o.name, "rand-write");
	CHECK(l.jobs[1].o.stonewall);
	CHECK_STR(l.jobs[1].o.directory, "/tmp/x");
	CHECK(strstr(warnings, "t.fio:7: option 'thread' accepted without effect") != NULL);
	sb_joblist_assign_groups(&l);
	CHECK_INT(l.jobs[0].group, 0);
	CHECK_INT(l.jobs[1].group, 1);
	sb_joblist_release(&l);
	sb_job_release(&base);
	return T_PASS;
}

static int expect_error(const char *text, const char *needle)
{
	struct sb_job base;
	struct sb_joblist l = SB_JOBLIST_INIT;
	struct sb_diag d = {.warn = warn};
	memset(&base, 0, sizeof(base));
	sb_job_opts_init(&base.o);
	int r = sb_jobfile_parse(text, "bad.fio", &base, &l, &d);
	sb_joblist_release(&l);
	sb_job_release(&base);
	if (r != -EINVAL || !strstr(d.msg, needle)) {
		fprintf(stderr, "    got %d '%s', wanted '%s'\n", r, d.msg, needle);
		return T_FAIL;
	}
	return T_PASS;
}

static int test_jobfile_errors(void)
{
	CHECK_INT(expect_error("[j]\nbs=4q\n", "bad.fio:2: bs: '4q'"), T_PASS);
	CHECK_INT(expect_error("[j]\nrw=read\nfoo=1\n", "bad.fio:3: unknown option 'foo'"), T_PASS);
	CHECK_INT(expect_error("bs=4k\n", "bad.fio:1: option outside a section"), T_PASS);
	CHECK_INT(expect_error("[j\n", "bad.fio:1: malformed section header"), T_PASS);
	CHECK_INT(
		expect_error("[j]\nioengine=rdma\n", "bad.fio:2: ioengine 'rdma' is not supported"),
		T_PASS);
	CHECK_INT(expect_error("[j]\nfilename=${SB_SURELY_UNSET_VAR}\n",
			       "bad.fio:2: environment variable 'SB_SURELY_UNSET_VAR' is not set"),
		  T_PASS);
	CHECK_INT(expect_error("; only comments\n", "no jobs defined"), T_PASS);
	return T_PASS;
}

static int test_profiles_parse(void)
{
	static const char *const names[] = {"storage-cluster", "mixed", "quick", "nvme"};
	for (size_t i = 0; i < 4; i++) {
		const struct sb_profile *p = sb_profile_find(names[i]);
		struct sb_joblist l = SB_JOBLIST_INIT;
		struct sb_diag d = {.warn = warn};
		CHECK(p != NULL);
		CHECK_INT(sb_profile_expand(p, NULL, &l, &d), 0);
		CHECK_INT(l.n, p->njobs);
		for (size_t k = 0; k < l.n; k++) {
			char err[256];
			CHECK_INT(sb_job_opts_validate(&l.jobs[k].o, err, sizeof(err)), 0);
			CHECK(k == 0 || l.jobs[k].o.stonewall);
		}
		sb_joblist_release(&l);
	}
	const struct sb_profile *sc = sb_profile_find("storage-cluster");
	struct sb_joblist l = SB_JOBLIST_INIT;
	struct sb_diag d = {.warn = warn};
	CHECK_INT(sb_profile_expand(sc, NULL, &l, &d), 0);
	unsigned fsyncs[3] = {0}, n = 0;
	for (size_t k = 0; k < l.n; k++)
		if (l.jobs[k].o.fsync && n < 3 && l.jobs[k].o.rw == SB_RW_RANDWRITE)
			fsyncs[n++] = l.jobs[k].o.fsync;
	CHECK_INT(fsyncs[0], 1);
	CHECK_INT(fsyncs[1], 32);
	CHECK_INT(fsyncs[2], 128);
	sb_joblist_release(&l);
	CHECK(sb_profile_find("nope") == NULL);
	return T_PASS;
}

static int test_issue21_options(void)
{
	struct sb_job_opts o;
	char err[256];
	sb_job_opts_init(&o);
	/* per-direction lists: an unterminated list carries on, a trailing comma does not */
	CHECK_INT(sb_job_opts_set(&o, "bs", "8k,32k", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.bs[0], 8192);
	CHECK_INT(o.bs[1], 32768);
	CHECK_INT(o.bs[2], 32768);
	sb_job_opts_init(&o);
	CHECK_INT(sb_job_opts_set(&o, "bs", ",8k,", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.bs[0], 4096);
	CHECK_INT(o.bs[1], 8192);
	CHECK_INT(o.bs[2], 4096);
	/* bs=4k-16k is read as fio 3.33 reads it, with a note pointing at bsrange */
	CHECK_INT(sb_job_opts_set(&o, "bs", "4k-16k", err, sizeof(err)), SB_OPT_NOOP);
	CHECK(strstr(err, "bsrange=4k-16k") != NULL);
	CHECK_INT(o.bs[0], 4096);
	CHECK_INT(o.bs[1], 16384);
	CHECK_INT(o.bs_max[0], 0);
	CHECK_INT(sb_job_opts_set(&o, "bsrange", "16k-4k,2k-8k", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.bs[0], 4096);
	CHECK_INT(o.bs_max[0], 16384);
	CHECK_INT(o.bs[1], 2048);
	CHECK_INT(o.bs_max[2], 8192);
	CHECK_INT(sb_job_opts_set(&o, "bsrange", "4k", err, sizeof(err)), SB_OPT_BADVAL);
	CHECK(strstr(err, "bsrange: '4k'") == err);
	/* distributions */
	CHECK_INT(sb_job_opts_set(&o, "random_distribution", "zipf:1.2:0.25", err, sizeof(err)),
		  SB_OPT_OK);
	CHECK_INT(o.dist[1].type, SB_DIST_ZIPF);
	CHECK_NEAR(o.dist[2].param, 1.2, 1e-12);
	CHECK_NEAR(o.dist[0].center, 0.25, 1e-12);
	CHECK_INT(sb_job_opts_set(&o, "random_distribution", "zoned:50/5:30/15:20/,100/100", err,
				  sizeof(err)),
		  SB_OPT_OK);
	CHECK_INT(o.dist[0].nzones, 3);
	CHECK_INT(o.dist[0].zones[2].range, 80);
	CHECK_INT(o.dist[1].nzones, 1);
	CHECK_INT(o.dist[2].nzones, 1);
	CHECK_INT(sb_job_opts_set(&o, "random_distribution", "zoned_abs=60/20G:40/100G", err,
				  sizeof(err)),
		  SB_OPT_OK);
	CHECK_INT(o.dist[0].zones[0].range, 20ull << 30);
	CHECK_INT(sb_job_opts_set(&o, "random_distribution", "zoned:50/5:30/15", err, sizeof(err)),
		  SB_OPT_BADVAL);
	CHECK(strstr(err, "random_distribution: zone access percentages add up to 80") == err);
	CHECK_INT(sb_job_opts_set(&o, "random_distribution", "normal:101", err, sizeof(err)),
		  SB_OPT_BADVAL);
	CHECK_INT(sb_job_opts_set(&o, "random_generator", "lfsr", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.randgen, SB_RANDGEN_LFSR);
	/* patterns */
	CHECK_INT(sb_job_opts_set(&o, "buffer_pattern", "0xdeadface\"ab\"-12", err, sizeof(err)),
		  SB_OPT_OK);
	CHECK_INT(o.buffer_pattern_len, 10);
	CHECK(memcmp(o.buffer_pattern,
		     "\xde\xad\xfa\xce"
		     "ab\xf4\xff\xff\xff",
		     10) == 0);
	CHECK_INT(sb_job_opts_set(&o, "buffer_pattern", "0xabc", err, sizeof(err)), SB_OPT_OK);
	CHECK(memcmp(o.buffer_pattern, "\x0a\xbc", 2) == 0);
	CHECK_INT(o.verify, SB_VERIFY_NONE);
	CHECK_INT(sb_job_opts_set(&o, "verify_pattern", "0xff", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.verify, SB_VERIFY_PATTERN);
	CHECK_INT(sb_job_opts_set(&o, "verify_pattern", "%o", err, sizeof(err)), SB_OPT_BADVAL);
	CHECK(strstr(err, "%o") != NULL);
	/* steady state */
	CHECK_INT(sb_job_opts_set(&o, "ss", "iops_slope:0.1%", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.ss_state, SB_SS_IOPS | SB_SS_SLOPE | SB_SS_PCT);
	CHECK_NEAR(o.ss_limit, 0.1, 1e-12);
	CHECK_INT(sb_job_opts_set(&o, "steadystate", "bw:10m", err, sizeof(err)), SB_OPT_OK);
	CHECK_NEAR(o.ss_limit, 10485760.0, 1e-6);
	CHECK_INT(sb_job_opts_set(&o, "ss", "lat:1%", err, sizeof(err)), SB_OPT_BADVAL);
	CHECK(strstr(err, "ss: criterion 'lat'") == err);
	CHECK_INT(sb_job_opts_set(&o, "ss_dur", "30s", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.ss_dur_us, 30000000);
	/* logs, file service, offsets, trims */
	snprintf(o.name, sizeof(o.name), "job1");
	CHECK_INT(sb_job_opts_set(&o, "write_bw_log", NULL, err, sizeof(err)), SB_OPT_OK);
	CHECK_STR(o.bw_log, SB_LOG_JOBNAME); /* named after the job when opened */
	CHECK_INT(sb_job_opts_set(&o, "file_service_type", "random:8", err, sizeof(err)),
		  SB_OPT_OK);
	CHECK_INT(o.fst, SB_FST_RANDOM);
	CHECK_INT(o.fst_nr, 8);
	CHECK_INT(sb_job_opts_set(&o, "file_service_type", "zipf:1", err, sizeof(err)),
		  SB_OPT_BADVAL);
	CHECK_INT(sb_job_opts_set(&o, "offset", "25%", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.offset_percent, 25);
	CHECK_INT(sb_job_opts_set(&o, "rw", "trimwrite", err, sizeof(err)), SB_OPT_OK);
	CHECK(sb_rw_trims(o.rw) && sb_rw_writes(o.rw) && !sb_rw_reads(o.rw));
	sb_job_opts_release(&o);
	return T_PASS;
}

static int test_issue21_validate(void)
{
	struct sb_job_opts o;
	char err[256];
	sb_job_opts_init(&o);
	sb_job_opts_set(&o, "size", "1m", err, sizeof(err));
	sb_job_opts_set(&o, "rw", "trim", err, sizeof(err));
	sb_job_opts_set(&o, "verify", "crc32c", err, sizeof(err));
	CHECK_INT(sb_job_opts_validate(&o, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "verify:") == err);
	sb_job_opts_init(&o);
	sb_job_opts_set(&o, "size", "1m", err, sizeof(err));
	sb_job_opts_set(&o, "ss", "iops:1%", err, sizeof(err));
	sb_job_opts_set(&o, "ss_dur", "2h", err, sizeof(err));
	CHECK_INT(sb_job_opts_validate(&o, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "ss_dur:") == err);
	sb_job_opts_init(&o);
	sb_job_opts_set(&o, "size", "1m", err, sizeof(err));
	sb_job_opts_set(&o, "verify", "pattern", err, sizeof(err));
	sb_job_opts_set(&o, "rw", "write", err, sizeof(err));
	CHECK_INT(sb_job_opts_validate(&o, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "verify_pattern") != NULL);
	sb_job_opts_release(&o);
	return T_PASS;
}

/* Issue 40: blockalign parses per direction and is validated against the job. */
static int test_blockalign(void)
{
	struct sb_job_opts o;
	char err[256];
	sb_job_opts_init(&o);
	CHECK_INT(sb_job_opts_set(&o, "ba", "4k", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.blockalign[0], 4096);
	CHECK_INT(o.blockalign[2], 4096);
	CHECK_INT(sb_job_opts_set(&o, "blockalign", "8k,", err, sizeof(err)), SB_OPT_OK);
	CHECK_INT(o.blockalign[0], 8192);
	CHECK_INT(o.blockalign[1], 4096);
	CHECK_INT(sb_job_opts_set(&o, "blockalign", "0", err, sizeof(err)), SB_OPT_BADVAL);
	CHECK(strstr(err, "blockalign: '0'") == err);
	CHECK_INT(sb_job_opts_set(&o, "blockalign", "4k,4k,4k,4k", err, sizeof(err)),
		  SB_OPT_BADVAL);
	/* different alignments for reads and writes of a mixed job are refused */
	sb_job_opts_set(&o, "size", "1m", err, sizeof(err));
	sb_job_opts_set(&o, "rw", "randrw", err, sizeof(err));
	CHECK_INT(sb_job_opts_validate(&o, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "blockalign: 8192 and 4096") == err);
	/* ... but not when only one of them is used */
	sb_job_opts_set(&o, "rw", "randread", err, sizeof(err));
	CHECK_INT(sb_job_opts_validate(&o, err, sizeof(err)), 0);
	/* direct=1 needs sector multiples */
	sb_job_opts_set(&o, "ba", "1000", err, sizeof(err));
	sb_job_opts_set(&o, "direct", "1", err, sizeof(err));
	CHECK_INT(sb_job_opts_validate(&o, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "blockalign: 1000 is not a multiple of 512") == err);
	sb_job_opts_set(&o, "direct", "0", err, sizeof(err));
	CHECK_INT(sb_job_opts_validate(&o, err, sizeof(err)), 0);
	sb_job_opts_release(&o);
	return T_PASS;
}

/* Issue 15 bugs 9 and 10: hostile job files are refused with a message, nothing cut. */
static int test_hostile_jobfiles(void)
{
	CHECK_INT(expect_error("[j]\nrw=read\nsize=9000p\n", "bad.fio:3: size: '9000p'"), T_PASS);
	CHECK_INT(expect_error("[j]\nrw=read\nbs=4k                                        "
			       "                            junk\n",
			       "bad.fio:3: bs: '4k "),
		  T_PASS);
	CHECK_INT(expect_error("[j\xff]\nrw=read\n",
			       "bad.fio:1: name: not valid UTF-8 text (byte 2 of the value)"),
		  T_PASS);
	CHECK_INT(
		expect_error("[j]\nrw=read\ndescription=ok \xc3\xa9 \xed\xa0\x80\n",
			     "bad.fio:3: description: not valid UTF-8 text (byte 7 of the value)"),
		T_PASS);
	CHECK_INT(expect_error("[j]\ndescription=\xc0\xaf\n", "description: not valid UTF-8"),
		  T_PASS);
	/* well-formed UTF-8 is fine */
	struct sb_job_opts o;
	char err[256];
	sb_job_opts_init(&o);
	CHECK_INT(sb_job_opts_set(&o, "description",
				  "d\xc3\xa9"
				  "bit \xf0\x9f\x92\xbe",
				  err, sizeof(err)),
		  SB_OPT_OK);
	sb_job_opts_release(&o);

	/* more than SB_JOBFILE_MAX_JOBS jobs: refused before they are all built */
	size_t cap = (SB_JOBFILE_MAX_JOBS + 2) * 4 + 1;
	char *t = malloc(cap);
	CHECK(t != NULL);
	for (int i = 0; i < SB_JOBFILE_MAX_JOBS + 1; i++)
		memcpy(t + 4 * i, "[a]\n", 4);
	t[4 * (SB_JOBFILE_MAX_JOBS + 1)] = '\0';
	struct sb_job base;
	struct sb_joblist l = SB_JOBLIST_INIT;
	struct sb_diag d = {.warn = warn};
	memset(&base, 0, sizeof(base));
	sb_job_opts_init(&base.o);
	int r = sb_jobfile_parse(t, "many.fio", &base, &l, &d);
	free(t);
	sb_joblist_release(&l);
	sb_job_release(&base);
	CHECK_INT(r, -E2BIG);
	CHECK_STR(d.msg, "many.fio:4097: more than 4096 jobs in one job file");
	return T_PASS;
}

static const struct test_case cases[] = {
	{"jobfile/hostile-input-refused", test_hostile_jobfiles},
	{"runner-opts/set-basic", test_set_basic},
	{"runner-opts/engines-map-and-refuse", test_engines},
	{"runner-opts/bad-values-name-the-option", test_bad_values_name_the_option},
	{"runner-opts/bssplit", test_bssplit},
	{"runner-opts/validate", test_validate},
	{"jobfile/good-file", test_jobfile_good},
	{"jobfile/errors-name-file-and-line", test_jobfile_errors},
	{"profiles/expand-and-validate", test_profiles_parse},
	{"runner-opts/issue21-options", test_issue21_options},
	{"runner-opts/issue21-validate", test_issue21_validate},
	{"runner-opts/blockalign", test_blockalign},
};
TEST_MAIN(cases)
