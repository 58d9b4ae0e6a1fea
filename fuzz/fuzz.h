/* SPDX-License-Identifier: MIT */
/*
 * Shared bits of the libFuzzer harnesses (fuzz/fuzz_*.c): each defines
 * LLVMFuzzerTestOneInput over one input path of the project. Built with
 * clang -fsanitize=fuzzer,address,undefined by `make fuzz` (fuzz/fuzz.mk).
 * A harness must leave no state behind between inputs (no leaks, no
 * globals changed), so a finding reproduces from its input alone.
 */
#ifndef SB_FUZZ_H
#define SB_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy of the input (malloc'd; NULL on ENOMEM). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return NULL;
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif
