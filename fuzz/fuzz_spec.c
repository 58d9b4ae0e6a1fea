/* SPDX-License-Identifier: MIT */
/*
 * A BenchmarkRun's spec (controller/run/spec.c), then what the controller builds
 * from a valid one: the runner's arguments and the runner pod.
 */
#include "fuzz/fuzz.h"
#include "controller/run/manifests.h"
#include "controller/run/spec.h"

#include <jansson.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *spec = json_loadb((const char *)data, size, 0, NULL);
	struct br_spec s;
	char err[1024];
	if (!spec)
		return 0;
	if (br_spec_parse(spec, "localhost/storagebench:fuzz", NULL, &s, err, sizeof(err)) == 0) {
		const struct br_ref ref = {"bench", "fuzz", "0000-fuzz"};
		json_t *args =
			br_spec_runner_args(&s, BR_SPEC_DIR "/jobs.fio", BR_DATA_DIR, BR_DEVICE);
		json_decref(args);
		for (size_t i = 0; i < s.nclasses; i++) {
			json_t *pod = br_pod_manifest(&ref, &s, s.classes[i], 1, s.iterations);
			json_t *pvc = br_pvc_manifest(&ref, &s, s.classes[i]);
			json_decref(pod);
			json_decref(pvc);
		}
		json_t *cm = br_spec_cm_manifest(&ref, &s);
		json_decref(cm);
	}
	br_spec_release(&s);
	json_decref(spec);
	return 0;
}
