/* SPDX-License-Identifier: MIT */
/*
 * The runs' result signing keys (lib/result/sign.h). The controller holds one
 * master key: 32 random bytes (OpenSSL RAND) in one Secret of its own
 * namespace, made at its first start and read by name at each start (the
 * only Secret it reads). A run's key is HMAC-SHA256(master, a domain and
 * the run's UID): the controller computes it whenever it verifies, and
 * writes it once into a Secret owned by the run (<run>-key-<uid>), which it
 * may create but not read, mounted only into the run's runner pods. A
 * Secret of that name made by someone else can only make the run's results
 * fail verification, which names them; it never makes a forged one pass.
 */
#ifndef SB_CONTROLLER_RUN_RUNKEY_H
#define SB_CONTROLLER_RUN_RUNKEY_H

#include "controller/run/ref.h"
#include "kube/kube.h"
#include "result/sign.h"

#include <jansson.h>
#include <stdbool.h>

#define BR_SIGNING_SECRET_DEFAULT "storagebench-signing-key"

/*
 * Reads the master key from Secret name in ns, creating it (with a random
 * key) when there is none. Call once, before the workers start. Returns 0,
 * or -errno with err saying what failed.
 */
int br_runkey_load(struct kube_client *kc, const char *ns, const char *name, char *err,
		   size_t errlen);

/* Sets the master key directly (unit tests). */
void br_runkey_set_master(const unsigned char master[SB_SIGN_KEY_BYTES]);
/* Forgets it, as before br_runkey_load (unit tests). */
void br_runkey_clear(void);

/* The run with uid's key into key. Returns 0, -EAGAIN (no master loaded), -EIO. */
int br_runkey_derive(const char *uid, unsigned char key[SB_SIGN_KEY_BYTES]);

/* "<run>-key-<first 8 of the UID>": the run's key Secret. Returns 0 or -EINVAL. */
int br_runkey_secret_name(const struct br_ref *run, char *out, size_t len);

/* The run's key Secret (new reference), NULL on ENOMEM or without a master. */
json_t *br_runkey_secret_manifest(const struct br_ref *run);

/* Adds the key Secret's volume, mounted read-only at SB_SIGN_DIR, to a runner pod. */
int br_runkey_add_to_pod(json_t *pod, const struct br_ref *run);

#endif
