/* SPDX-License-Identifier: MIT */
/*
 * Tamper-evident results: HMAC-SHA256 (OpenSSL) of a result with the run's
 * key. The key is 32 random bytes (OpenSSL RAND) the controller keeps in a
 * Secret owned by the run (<run>-key) and mounts only into the run's runner
 * pods; the runner signs each result, the controller verifies it before it
 * aggregates. The MAC covers the run's UID, the class, the iteration, the
 * member (a distributed run's pod index) and the attempt with the text, so
 * a signed result cannot be moved to another iteration, class, run, member
 * or attempt. docs/security.md has the threat model.
 */
#ifndef SB_LIB_RESULT_SIGN_H
#define SB_LIB_RESULT_SIGN_H

#include <stddef.h>

#define SB_SIGN_KEY_BYTES 32
#define SB_SIGN_HEX_LEN	  64 /* hex digits of a MAC; buffers need one more */

/*
 * HMAC-SHA256 (OpenSSL) under key (keylen bytes) of the n parts
 * parts[i] (lens[i] bytes each; NULL when 0) one after the other, into
 * out. The one HMAC of the project: results, run keys, the controller's
 * proofs. Returns 0, -EINVAL (no key), -EIO.
 */
int sb_hmac_sha256(const unsigned char *key, size_t keylen, const void *const *parts,
		   const size_t *lens, size_t n, unsigned char out[32]);

/* n bytes of in as 2n lowercase hex digits and a NUL in out. */
void sb_hex(const unsigned char *in, size_t n, char *out);

/* The SHA-256 of len bytes of data as 64 lowercase hex digits and a NUL. 0 or -EIO. */
int sb_sha256_hex(const void *data, size_t len, char out[SB_SIGN_HEX_LEN + 1]);

/* 32 random bytes from OpenSSL's CSPRNG into key. Returns 0 or -EIO. */
int sb_sign_keygen(unsigned char key[SB_SIGN_KEY_BYTES]);

/*
 * What a result is of: the run (UID), the class, the iteration, and who
 * wrote it: the member (1..N in a distributed run, 0 otherwise) and the
 * attempt (1...). member 0 with attempt 0 is the format of runners older
 * than the member and attempt binding ("storagebench result v1": UID, class
 * and iteration only), kept so that results recorded before an upgrade
 * still verify; a result with either set is "v2" and binds both, so a v2
 * result never verifies as v1 nor under another member or attempt.
 */
struct sb_sign_subject {
	const char *uid, *cls;
	unsigned iteration, member, attempt;
};

/*
 * The MAC of result text (len bytes) of subject s, as 64 lowercase hex
 * digits and a NUL in out. Returns 0, -EINVAL (keylen is not
 * SB_SIGN_KEY_BYTES, a NULL part), -EIO (OpenSSL failed).
 */
int sb_sign_result(const unsigned char *key, size_t keylen, const struct sb_sign_subject *s,
		   const char *text, size_t len, char out[SB_SIGN_HEX_LEN + 1]);

/*
 * Checks mac (hex) against the MAC of the same inputs, in constant time.
 * Returns 0 when it matches, -EBADMSG when it does not (forged or corrupt,
 * or signed for another subject), -EINVAL when mac is not 64 hex digits or
 * an argument is wrong, -EIO.
 */
int sb_sign_verify(const unsigned char *key, size_t keylen, const struct sb_sign_subject *s,
		   const char *text, size_t len, const char *mac);

/*
 * Reads a key file (the run's Secret as mounted: exactly 32 raw bytes).
 * Returns 0, -errno from open/read, -EINVAL when the file is not 32 bytes.
 */
int sb_sign_read_key(const char *path, unsigned char key[SB_SIGN_KEY_BYTES]);

#endif
