/* SPDX-License-Identifier: MIT */
/* spec.lifecycle, parsed (see lifecycle.h; the parser is spec.c); apart so that
 * run/spec.h can hold it. */
#ifndef SB_CONTROLLER_LIFECYCLE_SPEC_H
#define SB_CONTROLLER_LIFECYCLE_SPEC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* spec.lifecycle.volumes and .concurrent: at most this many each */
#define BR_LC_MAX_VOLUMES 20

/*
 * Parses spec.lifecycle (borrowed; NULL: not asked, *out disabled):
 *   {iterations: 1..100 (default spec.iterations), volumes: 0..20
 *    (default 3), concurrent: 0..20 (default 0), size (default
 *    spec.volume.size), resize: bool (default true), snapshot: bool
 *    (default true), volumeSnapshotClass: a VolumeSnapshotClass name
 *    (default: the one marked default for the class's provisioner; only
 *    with snapshot true)}
 * At least one of volumes and concurrent must be > 0. default_* are the
 * run's; the access mode is always the run's (spec.volume.accessMode).
 * Returns 0 or -EINVAL with err naming the field.
 */
struct br_lifecycle_spec {
	bool enabled;
	unsigned iterations;
	unsigned volumes;
	unsigned concurrent;
	char size[32];
	char access_mode[32]; /* spec.volume.accessMode */
	bool resize;
	bool snapshot;		  /* snapshot, restore and delete each volume */
	char snapshot_class[254]; /* spec.lifecycle.volumeSnapshotClass ("": the default) */
	long timeout_s;		  /* per step; the run's pvcBind timeout */
};
int br_lifecycle_spec_parse(const json_t *lc, unsigned default_iterations, const char *default_size,
			    const char *access_mode, long timeout_s, struct br_lifecycle_spec *out,
			    char *err, size_t errlen);

#endif
