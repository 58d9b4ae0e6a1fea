/* SPDX-License-Identifier: MIT */
/*
 * A call planted by tests/layers/test_layers.sh: code that calls the fio job
 * language (lib/fiojob). Added to the core layer (which uses nothing) it is
 * an undefined reference in `make layer-check`; added to the runner (which
 * may use fiojob) it links (the control).
 */
#include "fiojob/opts.h"

int sb_planted_call(void);
int sb_planted_call(void)
{
	struct sb_job_opts o;

	sb_job_opts_init(&o);
	sb_job_opts_release(&o);
	return 0;
}
