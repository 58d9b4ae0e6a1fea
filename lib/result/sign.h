/* SPDX-License-Identifier: MIT */
/*
 * Tamper-evident results: HMAC-SHA256 (OpenSSL) of a result with the run's
 * key. The key is 32 random bytes (OpenSSL RAND) the controller keeps in a
 * Secret owned by the run (<run>-key) and mounts only into the run's runner
 * pods; the runner signs each result, the controller verifies it before it
 * aggregates. The MAC covers the run's UID, the class and the iteration
 * with the text, so a signed result cannot be moved to another iteration,
 * class or run. docs/security.md has the threat model.
 */
#ifndef SB_LIB_RESULT_SIGN_H
#define SB_LIB_RESULT_SIGN_H

#include <stddef.h>

#define SB_SIGN_KEY_BYTES 32
#define SB_SIGN_HEX_LEN	  64 /* hex digits of a MAC; buffers need one more */

/* 32 random bytes from OpenSSL's CSPRNG into key. Returns 0 or -EIO. */
int sb_sign_keygen(unsigned char key[SB_SIGN_KEY_BYTES]);

/*
 * The MAC of result text (len bytes) of iteration it of class cls of the run
 * with uid, as 64 lowercase hex digits and a NUL in out. Returns 0, -EINVAL
 * (keylen is not SB_SIGN_KEY_BYTES, a NULL part), -EIO (OpenSSL failed).
 */
int sb_sign_result(const unsigned char *key, size_t keylen, const char *uid, const char *cls,
		   unsigned it, const char *text, size_t len, char out[SB_SIGN_HEX_LEN + 1]);

/*
 * Checks mac (hex) against the MAC of the same inputs, in constant time.
 * Returns 0 when it matches, -EBADMSG when it does not (forged or corrupt),
 * -EINVAL when mac is not 64 hex digits or an argument is wrong, -EIO.
 */
int sb_sign_verify(const unsigned char *key, size_t keylen, const char *uid, const char *cls,
		   unsigned it, const char *text, size_t len, const char *mac);

/*
 * Reads a key file (the run's Secret as mounted: exactly 32 raw bytes).
 * Returns 0, -errno from open/read, -EINVAL when the file is not 32 bytes.
 */
int sb_sign_read_key(const char *path, unsigned char key[SB_SIGN_KEY_BYTES]);

#endif
