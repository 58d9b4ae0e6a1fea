/* SPDX-License-Identifier: MIT */
/*
 * An exec credential plugin's output (lib/kube/exec.c), in both API
 * versions a kubeconfig may name: the token and its expiry.
 */
#include "fuzz/fuzz.h"
#include "kube/exec.h"
#include "kube/kube.h"
#include "kube/util.h"

#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const versions[] = {"client.authentication.k8s.io/v1",
					       "client.authentication.k8s.io/v1beta1"};
	for (size_t v = 0; v < 2; v++) {
		char *token = NULL, why[256];
		time_t expiry = 0;
		if (kube_exec_credential_parse((const char *)data, size, versions[v], &token,
					       &expiry, why, sizeof(why)) == 0)
			kube_free_secret(token);
	}
	return 0;
}
