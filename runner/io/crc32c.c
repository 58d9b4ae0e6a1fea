/* SPDX-License-Identifier: MIT */
/*
 * CRC-32C three ways (see crc32c.h). The CRC register here is the
 * inverted state: callers' values are ~register, so that a CRC of nothing
 * is 0 and a CRC can be continued.
 *
 * The table path is slicing-by-8: table[k][b] is what byte b does to the
 * register when k zero bytes follow it, so eight bytes are folded in with
 * eight independent look-ups instead of eight dependent ones. Bytes are
 * assembled explicitly in little-endian order, so the path does not
 * depend on the CPU's byte order or on alignment.
 */
#include "runner/io/crc32c.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#if defined(__x86_64__)
#define HAVE_SSE42 1
#else
#define HAVE_SSE42 0
#endif

#if defined(__aarch64__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HAVE_ARMV8 1
#include <arm_acle.h>
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1UL << 7) /* the kernel's arm64 hwcap bit */
#endif
#else
#define HAVE_ARMV8 0
#endif

#define CRC32C_POLY 0x82f63b78u /* Castagnoli, bit-reversed */

static uint32_t table[8][256];
static enum sb_crc32c_impl best = SB_CRC32C_TABLE;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static uint32_t crc_table(uint32_t c, const uint8_t *p, size_t len)
{
	while (len >= 8) {
		uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				   (uint32_t)p[3] << 24);
		c = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^ table[5][(lo >> 16) & 0xff] ^
		    table[4][lo >> 24] ^ table[3][p[4]] ^ table[2][p[5]] ^ table[1][p[6]] ^
		    table[0][p[7]];
		p += 8;
		len -= 8;
	}
	while (len--)
		c = (c >> 8) ^ table[0][(c ^ *p++) & 0xff];
	return c;
}

#if HAVE_SSE42
__attribute__((target("sse4.2"))) static uint32_t crc_sse42(uint32_t c, const uint8_t *p,
							    size_t len)
{
	uint64_t c64 = c;
	while (len >= 8) {
		uint64_t v;
		memcpy(&v, p, 8); /* little-endian: the first byte is the low one */
		c64 = __builtin_ia32_crc32di(c64, v);
		p += 8;
		len -= 8;
	}
	c = (uint32_t)c64;
	while (len--)
		c = __builtin_ia32_crc32qi(c, *p++);
	return c;
}
#endif

#if HAVE_ARMV8
#if defined(__clang__)
#define TARGET_CRC __attribute__((target("crc")))
#else
#define TARGET_CRC __attribute__((target("+crc")))
#endif
TARGET_CRC static uint32_t crc_armv8(uint32_t c, const uint8_t *p, size_t len)
{
	while (len >= 8) {
		uint64_t v;
		memcpy(&v, p, 8); /* little-endian (checked above) */
		c = __crc32cd(c, v);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = __crc32cb(c, *p++);
	return c;
}
#endif

bool sb_crc32c_impl_available(enum sb_crc32c_impl impl)
{
	switch (impl) {
	case SB_CRC32C_TABLE:
		return true;
	case SB_CRC32C_SSE42:
#if HAVE_SSE42
		return __builtin_cpu_supports("sse4.2");
#else
		return false;
#endif
	case SB_CRC32C_ARMV8:
#if HAVE_ARMV8
		return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
#else
		return false;
#endif
	}
	return false;
}

static void crc32c_init(void)
{
	for (uint32_t b = 0; b < 256; b++) {
		uint32_t c = b;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (CRC32C_POLY & (0u - (c & 1u)));
		table[0][b] = c;
	}
	for (int k = 1; k < 8; k++)
		for (uint32_t b = 0; b < 256; b++)
			table[k][b] = (table[k - 1][b] >> 8) ^ table[0][table[k - 1][b] & 0xff];

	if (sb_crc32c_impl_available(SB_CRC32C_SSE42))
		best = SB_CRC32C_SSE42;
	else if (sb_crc32c_impl_available(SB_CRC32C_ARMV8))
		best = SB_CRC32C_ARMV8;
	else
		best = SB_CRC32C_TABLE;
}

/* impl must be available; the tables are built. */
static uint32_t run(enum sb_crc32c_impl impl, uint32_t crc, const void *buf, size_t len)
{
	uint32_t c = ~crc;
	switch (impl) {
#if HAVE_SSE42
	case SB_CRC32C_SSE42:
		c = crc_sse42(c, buf, len);
		break;
#endif
#if HAVE_ARMV8
	case SB_CRC32C_ARMV8:
		c = crc_armv8(c, buf, len);
		break;
#endif
	default:
		c = crc_table(c, buf, len);
		break;
	}
	return ~c;
}

uint32_t sb_crc32c_extend(uint32_t crc, const void *buf, size_t len)
{
	(void)pthread_once(&init_once, crc32c_init); /* fails only for a bad argument */
	return run(best, crc, buf, len);
}

uint32_t sb_crc32c(const void *buf, size_t len)
{
	return sb_crc32c_extend(0, buf, len);
}

enum sb_crc32c_impl sb_crc32c_active(void)
{
	(void)pthread_once(&init_once, crc32c_init);
	return best;
}

const char *sb_crc32c_impl_name(enum sb_crc32c_impl impl)
{
	switch (impl) {
	case SB_CRC32C_TABLE:
		return "table";
	case SB_CRC32C_SSE42:
		return "sse4.2";
	case SB_CRC32C_ARMV8:
		return "armv8";
	}
	return NULL;
}

int sb_crc32c_with(enum sb_crc32c_impl impl, uint32_t crc, const void *buf, size_t len,
		   uint32_t *out)
{
	if (!sb_crc32c_impl_name(impl))
		return -EINVAL;
	if (!sb_crc32c_impl_available(impl))
		return -ENOTSUP;
	(void)pthread_once(&init_once, crc32c_init);
	*out = run(impl, crc, buf, len);
	return 0;
}
