/* SPDX-License-Identifier: MIT */
/* fio job files (lib/fiojob/jobfile.c) and option validation (lib/fiojob/opts.c). */
#include "fuzz/fuzz.h"
#include "fiojob/jobfile.h"
#include "fiojob/opts.h"

/* ${VAR} expands from a fixed set, never the environment: inputs reproduce anywhere. */
static const char *lookup(const char *name, void *ctx)
{
	(void)ctx;
	if (!strcmp(name, "BS"))
		return "4k";
	if (!strcmp(name, "LONG"))
		return "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		       "xxxxx"
		       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		       "x";
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (memchr(data, '\0', size))
		return 0; /* sb_jobfile_load refuses NUL bytes before parsing */
	char *text = fuzz_cstr(data, size);
	if (!text)
		return 0;
	struct sb_job base;
	struct sb_joblist l = SB_JOBLIST_INIT;
	struct sb_diag d = {0};
	memset(&base, 0, sizeof(base));
	sb_job_opts_init(&base.o);
	if (sb_jobfile_parse_vars(text, "fuzz.fio", &base, lookup, NULL, "fuzz", &l, &d) == 0) {
		for (size_t i = 0; i < l.n; i++) {
			char err[512];
			(void)sb_job_opts_validate(&l.jobs[i].o, err, sizeof(err));
		}
		sb_joblist_assign_groups(&l);
	}
	sb_joblist_release(&l);
	sb_job_release(&base);
	free(text);
	return 0;
}
