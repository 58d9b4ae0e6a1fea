/* SPDX-License-Identifier: MIT */
/* Human output in fio's layout (see out/text.c). */
#ifndef SB_RUNNER_OUT_TEXT_H
#define SB_RUNNER_OUT_TEXT_H

#include "runner/io/run.h"

#include <stdio.h>

/* One job's block. */
void sb_out_text_job(FILE *f, const struct sb_job_result *r);

/* Every job, then a "Run status group N" block per group. */
void sb_out_text(FILE *f, const struct sb_results *res);

#endif
