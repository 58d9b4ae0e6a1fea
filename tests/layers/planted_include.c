/* SPDX-License-Identifier: MIT */
/*
 * A wrong-direction include planted by tests/layers/test_layers.sh: lib/
 * code reaching into the runner. Compiled with lib/'s include path it must
 * not build; compiled with the runner's it builds (the control).
 */
#include "runner/io/run.h"

int sb_planted_include(void);
int sb_planted_include(void)
{
	return (int)sizeof(struct sb_results);
}
