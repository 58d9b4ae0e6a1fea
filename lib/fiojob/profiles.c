/* SPDX-License-Identifier: MIT */
#include "fiojob/profiles.h"
#include "core/labels.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The managed storage cluster page: IOPS and bandwidth, writes by fsync frequency. */
static const struct sb_profile_job storage_cluster[] = {
	{"read-iops", "rw=randread bs=4k iodepth=32"},
	{"read-bw", "rw=read bs=1m iodepth=16"},
	{"write-iops", "rw=randwrite bs=4k iodepth=32"},
	{"write-iops-fsync1", "rw=randwrite bs=4k iodepth=32 fsync=1"},
	{"write-iops-fsync32", "rw=randwrite bs=4k iodepth=32 fsync=32"},
	{"write-iops-fsync128", "rw=randwrite bs=4k iodepth=32 fsync=128"},
	{"write-bw", "rw=write bs=1m iodepth=16"},
	{"write-bw-fsync1", "rw=write bs=1m iodepth=16 fsync=1"},
	{"write-bw-fsync32", "rw=write bs=1m iodepth=16 fsync=32"},
	{"write-bw-fsync128", "rw=write bs=1m iodepth=16 fsync=128"},
};

/* YABS's mixed 50/50 test at four block sizes. */
static const struct sb_profile_job mixed[] = {
	{"mixed-4k", "bs=4k"},
	{"mixed-64k", "bs=64k"},
	{"mixed-512k", "bs=512k"},
	{"mixed-1m", "bs=1m"},
};

/* The wiki's six tests. */
static const struct sb_profile_job quick[] = {
	{"iops-write", "rw=randwrite bs=4k iodepth=32 numjobs=4"},
	{"iops-read", "rw=randread bs=4k iodepth=32 numjobs=4"},
	{"throughput-write", "rw=write bs=1m iodepth=32 numjobs=4"},
	{"throughput-read", "rw=read bs=1m iodepth=32 numjobs=4"},
	{"latency-write", "rw=randwrite bs=4k iodepth=1 numjobs=1"},
	{"latency-read", "rw=randread bs=4k iodepth=1 numjobs=1"},
};

/* The NVMe hosting page's fio jobs. */
static const struct sb_profile_job nvme[] = {
	{"write-throughput", "rw=write bs=1m iodepth=64 numjobs=8"},
	{"write-iops", "rw=randwrite bs=4k iodepth=64"},
	{"read-throughput", "rw=read bs=1m iodepth=64 numjobs=8"},
	{"read-iops", "rw=randread bs=4k iodepth=64"},
};

static const struct sb_profile profiles[] = {
	{"storage-cluster",
	 "read/write IOPS and bandwidth, writes with no fsync and fsync every 1, 32, 128 writes",
	 "size=1g runtime=60s ramp_time=2s time_based direct=1 group_reporting", storage_cluster,
	 ARRAY_SIZE(storage_cluster)},
	{"mixed", "random 50/50 read/write at 4k, 64k, 512k and 1m (as YABS)",
	 "rw=randrw rwmixread=50 iodepth=64 numjobs=2 size=2g runtime=30s time_based direct=1 "
	 "group_reporting",
	 mixed, ARRAY_SIZE(mixed)},
	{"quick", "4k IOPS QD32 x4, 1M throughput, 4k latency QD1; each read and write",
	 "size=1g runtime=60s time_based direct=1 refill_buffers group_reporting", quick,
	 ARRAY_SIZE(quick)},
	{"nvme", "1M QD64 x8 jobs sequential, 4k QD64 random; each read and write",
	 "size=10g runtime=60s ramp_time=2s time_based direct=1 group_reporting", nvme,
	 ARRAY_SIZE(nvme)},
};

const struct sb_profile *sb_profile_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(profiles); i++)
		if (strcmp(profiles[i].name, name) == 0)
			return &profiles[i];
	return NULL;
}

const struct sb_profile *sb_profile_at(size_t i)
{
	return i < ARRAY_SIZE(profiles) ? &profiles[i] : NULL;
}

void sb_profile_list(FILE *f)
{
	for (size_t i = 0; i < ARRAY_SIZE(profiles); i++) {
		const struct sb_profile *p = &profiles[i];
		fprintf(f, "%s: %s\n  global: %s\n", p->name, p->description, p->global);
		for (size_t j = 0; j < p->njobs; j++)
			fprintf(f, "  %-20s %s\n", p->jobs[j].name, p->jobs[j].opts);
	}
}

static int apply_list(struct sb_job *j, const char *list, const char *where, struct sb_diag *d)
{
	char buf[1024];
	char *save = NULL;
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');
		if (eq)
			*eq = '\0';
		int r = sb_job_apply(j, tok, eq ? eq + 1 : NULL, where, d);
		if (r)
			return r;
	}
	return 0;
}

int sb_profile_expand(const struct sb_profile *p, const struct sb_job *overrides,
		      struct sb_joblist *out, struct sb_diag *d)
{
	char where[128];
	for (size_t i = 0; i < p->njobs; i++) {
		struct sb_job j;
		int r;
		memset(&j, 0, sizeof(j));
		sb_job_opts_init(&j.o);
		snprintf(where, sizeof(where), "profile %s", p->name);
		snprintf(j.origin, sizeof(j.origin), "profile %s, workload %s", p->name,
			 p->jobs[i].name);
		r = sb_job_apply(&j, "name", p->jobs[i].name, where, d);
		if (!r)
			r = sb_job_apply(&j, "filename", SB_TESTFILE, where, d);
		if (!r)
			r = apply_list(&j, p->global, where, d);
		if (!r)
			r = apply_list(&j, p->jobs[i].opts, where, d);
		if (!r && i > 0)
			r = sb_job_apply(&j, "stonewall", NULL, where, d);
		for (size_t k = 0; !r && overrides && k < overrides->nkv; k++)
			r = sb_job_apply(&j, overrides->kv[k].key, overrides->kv[k].value,
					 "command line", d);
		if (!r)
			r = sb_joblist_push(out, &j);
		if (r) {
			sb_job_release(&j);
			return r;
		}
	}
	return 0;
}
