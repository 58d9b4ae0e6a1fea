/* SPDX-License-Identifier: MIT */
/*
 * The entry point `make layer-check` links each layer's archive with (whole,
 * every object): the program never runs, it only has to link.
 */
int main(void)
{
	return 0;
}
