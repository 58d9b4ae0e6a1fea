/* SPDX-License-Identifier: MIT */
/*
 * Data verification (fio's verify=): each written block starts with a
 * 64-byte header (magic, length, offset, checksum type) followed by a
 * checksum of the header and the payload. Reading the block back proves
 * it holds what was written at that offset. crc32c is runner/io/crc32c.h
 * (the CPU's CRC32C instruction on x86-64 and arm64 when there is one, a
 * table otherwise); md5 and sha256 come from OpenSSL.
 */
#ifndef SB_RUNNER_IO_VERIFY_H
#define SB_RUNNER_IO_VERIFY_H

#include "fiojob/opts.h"

#include <stddef.h>
#include <stdint.h>

#define SB_VERIFY_HDR_LEN 64

/* Stamps the header into buf[0..64) over the payload already in buf. 0 or -EIO (OpenSSL). */
int sb_verify_stamp(void *buf, uint32_t len, uint64_t offset, enum sb_verify type);

/*
 * Checks a block read back from offset. Returns 0 when it is intact,
 * -EILSEQ with the reason in why (bad magic, wrong offset, wrong length,
 * checksum mismatch), -EIO when the digest could not be computed.
 */
int sb_verify_check(const void *buf, uint32_t len, uint64_t offset, enum sb_verify type, char *why,
		    size_t whylen);

#endif
