/* SPDX-License-Identifier: MIT */
/*
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78, init ~0, final
 * xor ~0), the checksum of verify=crc32c. Three ways to compute it, all
 * giving the same value:
 *   - table:  slicing-by-8 in plain C, on every CPU (the tables are built
 *             once, at the first call, from the polynomial);
 *   - sse4.2: the x86-64 CRC32 instruction, when the CPU has SSE 4.2;
 *   - armv8:  the ARMv8 CRC32C instructions, when the kernel reports the
 *             CRC32 extension (AT_HWCAP), as Graviton and Ampere CPUs do.
 * sb_crc32c() uses the fastest one this CPU has; the others are there for
 * the tests (tests/unit/runner/test_crc32c.c) and for diagnostics.
 * All functions are thread-safe and allocate nothing.
 */
#ifndef SB_RUNNER_IO_CRC32C_H
#define SB_RUNNER_IO_CRC32C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sb_crc32c_impl {
	SB_CRC32C_TABLE,
	SB_CRC32C_SSE42,
	SB_CRC32C_ARMV8,
};
#define SB_CRC32C_NIMPL 3

/* CRC-32C of buf[0..len): sb_crc32c("123456789", 9) == 0xE3069283. */
uint32_t sb_crc32c(const void *buf, size_t len);

/*
 * Continues a CRC-32C: crc is the value over the bytes before buf (0 for
 * none), so sb_crc32c_extend(sb_crc32c(a, n), b, m) is the CRC of a then b.
 */
uint32_t sb_crc32c_extend(uint32_t crc, const void *buf, size_t len);

/* The way sb_crc32c computes on this CPU. */
enum sb_crc32c_impl sb_crc32c_active(void);

/* "table", "sse4.2", "armv8"; NULL for a value outside the enum. */
const char *sb_crc32c_impl_name(enum sb_crc32c_impl impl);

/* Whether this build and this CPU can compute with impl. */
bool sb_crc32c_impl_available(enum sb_crc32c_impl impl);

/*
 * sb_crc32c_extend computed with impl. 0 and the value in *out; -ENOTSUP
 * when this build or CPU cannot run impl, -EINVAL for a value outside the
 * enum (out untouched in both cases).
 */
int sb_crc32c_with(enum sb_crc32c_impl impl, uint32_t crc, const void *buf, size_t len,
		   uint32_t *out);

#endif
