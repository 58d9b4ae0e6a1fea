/* SPDX-License-Identifier: MIT */
#include <stdio.h>

int main(void)
{
	fprintf(stderr, "storagebench-runner: not built yet\n");
	return 2;
}
