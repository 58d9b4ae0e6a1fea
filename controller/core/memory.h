/* SPDX-License-Identifier: MIT */
/*
 * The controller's memory at scale (issue 16): what the informers keep of
 * each object (br_cache_transform), giving freed memory back to the system
 * after a burst of deletions (br_memory_*), and the process_* and
 * per-informer metrics that show it on /metrics.
 */
#ifndef SB_CONTROLLER_CORE_MEMORY_H
#define SB_CONTROLLER_CORE_MEMORY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "controller/core/ops.h"

/*
 * The informers' transform (a kube_informer_transform_fn; arg is a
 * pointer to a const enum br_cache_kind): changes obj in place before it is
 * cached, keeping only what the controller reads, and refuses (returns 1)
 * an owned-object kind (PVC, pod, ConfigMap) that does not carry
 * SB_SELECTOR_MANAGED's label, so an object the controller does not own
 * never enters its cache even if the server's selector let it through, and
 * one that carries it without the controller's proof of authorship
 * (controller/core/proof.h; results and ready ConfigMaps, which runners
 * write, excepted: their MAC is checked for the verdict), so a planted
 * object is never read back; the proof is dropped once checked.
 * Dropped from every object: metadata.managedFields and the
 * kubectl.kubernetes.io/last-applied-configuration annotation (a copy of the
 * whole object as applied: the larger half of a run applied with kubectl).
 * A pod is rebuilt with only kind, apiVersion, metadata, spec (the
 * report's provenance checks it against the runner policy) and status'
 * phase, reason, message, startTime, conditions, hostIP and its
 * containerStatuses' name, state, lastState, restartCount, ready, started
 * (no pod IPs, QoS class, images, image and container IDs). A result
 * ConfigMap is checked and its data replaced by the verdict
 * (controller/core/resultcache.h: the report fetches the data when it is built);
 * a report ConfigMap keeps only the data read back (SB_REPORT_JSON_KEY and
 * BR_COMPARE_KEY), not its renderings (text, Markdown, CSV, SVG).
 * Runs, PVCs, other ConfigMaps and StorageClasses keep the rest. Returns 0
 * (kept), 1 (not cached) or -ENOMEM (the informer then caches the object
 * as it came).
 */
int br_cache_transform(json_t **obj, void *arg);
extern const enum br_cache_kind br_cache_kinds[5]; /* arg values, indexed by kind */

/* The run informers' compact_dict (kube.h): a typical run's compact text. */
extern const char br_run_dict[];
/* The other informers' compact_dict: what pods, PVCs, ConfigMaps and
 * StorageClasses as cached have in common. */
extern const char br_obj_dict[];

/*
 * Freed memory back to the system: glibc keeps freed heap for reuse, so
 * after 1,000 runs are deleted the controller would stay at its peak.
 * br_memory_init limits malloc to 2 arenas (M_ARENA_MAX, unless
 * MALLOC_ARENA_MAX is set: one arena per thread fragments) and fixes the
 * mmap threshold at 128 KiB (unless MALLOC_MMAP_THRESHOLD_ is set: glibc
 * raises it after the first large free, and a reconcile's ~0.8 MB of
 * observations then stayed in the heap); the informer callbacks count
 * deletions with br_memory_deleted, the workers count reconciles with
 * br_memory_worked and call br_memory_idle when the queue is empty: after
 * at least one deletion, or BR_TRIM_WORK reconciles, since the last trim it
 * calls malloc_trim(0) (the freed heap of a burst of work goes back too,
 * not only that of deletions). Returns whether it trimmed.
 */
#define BR_TRIM_WORK 64

/*
 * Each thread's cache of freed blocks (glibc's tcache: up to 7 freed blocks
 * of each size to 1 KiB, per thread) is off in the controller: those blocks
 * count as in use, so malloc_trim cannot give back the pages they sit on,
 * and with ten threads they kept ~2 MiB of pages resident after 1,000 runs
 * were deleted (docs/benchmarks.md, "The controller at scale"). Only the environment
 * can set it (GLIBC_TUNABLES, read when the program starts), so
 * br_memory_reexec, the first thing main does, execs the controller again
 * (path BR_SELF_EXE, argv its own: the same pid and arguments) with
 * glibc.malloc.tcache_count=0 added to GLIBC_TUNABLES, unless that already
 * sets a tcache_count (then it is left as given: GLIBC_TUNABLES=
 * glibc.malloc.tcache_count=7 gives glibc's default back). If the exec
 * fails it warns and runs on as it is.
 *
 * br_memory_tunables: the GLIBC_TUNABLES value to exec with given the
 * current one (cur, may be NULL): 1 and out set, 0 when cur already sets
 * a tcache_count, -ENAMETOOLONG when out (size bytes) is too small.
 * br_memory_tcache_off: whether tunables (may be NULL) turns the cache off.
 * br_memory_tunables_env: the process's GLIBC_TUNABLES (NULL: unset).
 */
#define BR_SELF_EXE "/proc/self/exe"
void br_memory_reexec(const char *path, char **argv);
int br_memory_tunables(const char *cur, char *out, size_t size);
bool br_memory_tcache_off(const char *tunables);
const char *br_memory_tunables_env(void);
void br_memory_init(void);
void br_memory_deleted(void);
void br_memory_worked(void);
bool br_memory_idle(void);
/* How many times malloc_trim ran (for metrics). */
unsigned long br_memory_trims(void);

/* The process's figures from /proc/self (0 when unreadable). */
struct br_process_stats {
	unsigned long long rss_bytes, vsize_bytes;
	double cpu_seconds, start_time_seconds;
	unsigned long open_fds, max_fds;
};
int br_process_stats(struct br_process_stats *out);

#endif
