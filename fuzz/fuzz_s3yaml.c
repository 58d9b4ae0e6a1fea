/* SPDX-License-Identifier: MIT */
/* warp YAML run files (lib/s3opts/opts.c) and the S3 options' checks. */
#include "fuzz/fuzz.h"
#include "s3opts/opts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sb_s3_opts o;
	char err[1024];
	sb_s3_opts_init(&o);
	if (sb_s3_yaml_parse(&o, "fuzz.yaml", (const char *)data, size, err, sizeof(err)) == 0)
		(void)sb_s3_opts_check(&o, err, sizeof(err));
	return 0;
}
