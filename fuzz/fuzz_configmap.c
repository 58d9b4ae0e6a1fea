/* SPDX-License-Identifier: MIT */
/*
 * A ConfigMap (or pod, PVC) someone else wrote, as the controller decodes
 * it: the cache's transform of each kind (controller/core/memory.c: the
 * proof of authorship, the result verdict, the report slimmed, a pod
 * compacted), the result rule with the run's key (lib/result/owner.c) and
 * the proof check (controller/core/proof.c). The master key is fixed, so
 * an input that carries a valid proof or MAC reproduces.
 */
#include "fuzz/fuzz.h"
#include "controller/core/memory.h"
#include "controller/core/proof.h"
#include "controller/run/runkey.h"
#include "result/owner.h"

#include <jansson.h>
#include <stdbool.h>

#define UID "5a1f0c2e-7777-4888-9999-aaaabbbbcccc"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned char master[SB_SIGN_KEY_BYTES] = {7, 7, 7};
	static bool keyed;
	if (!keyed) {
		br_runkey_set_master(master);
		keyed = true;
	}
	json_t *obj = json_loadb((const char *)data, size, 0, NULL);
	if (!obj)
		return 0;
	char why[512];
	unsigned char key[SB_SIGN_KEY_BYTES];
	if (br_runkey_derive(UID, key) == 0) {
		struct sb_result_want w = {"n", "r", UID, "fast", 1, key};
		json_t *doc = NULL;
		if (sb_result_check(obj, &w, &doc, why, sizeof(why)) == 0)
			json_decref(doc);
	}
	(void)br_proof_check(obj, &kube_res_configmaps, why, sizeof(why));
	(void)br_proof_check(obj, &kube_res_pods, NULL, 0);
	for (size_t k = 0; k < sizeof(br_cache_kinds) / sizeof(br_cache_kinds[0]); k++) {
		json_t *c = json_deep_copy(obj);
		if (c)
			(void)br_cache_transform(&c, (void *)&br_cache_kinds[k]);
		json_decref(c);
	}
	json_decref(obj);
	return 0;
}
