/* SPDX-License-Identifier: MIT */
/*
 * The controller's half of the clock exchange at a distributed run's start
 * barrier (docs/distributed.md, "Clocks"): when it first saw each member's
 * "ready" ConfigMap, on its own CLOCK_REALTIME. The start ConfigMap carries
 * these (readySeenUnixNano) and the time it was made (sentUnixNano), so a
 * member with the time it sent its ready mark and the time the start came
 * estimates its clock's offset NTP-style (runner/mode/startwait.h).
 *
 * A sighting is the informer's event (br_clock_ready_event), else the
 * reconcile's first look. First sightings are kept in memory, per (run UID, class, iteration,
 * attempt, workload group, member), at most BR_CLOCK_SEEN_MAX of them (the
 * oldest forgotten first). After a controller restart a member's sighting
 * is the restart's: its exchange then has a long round trip, which the
 * member's uncertainty says and its choice of the best exchange avoids.
 * Thread-safe.
 */
#ifndef SB_CONTROLLER_DISTRIB_CLOCK_H
#define SB_CONTROLLER_DISTRIB_CLOCK_H

#include <jansson.h>
#include <stdint.h>

#define BR_CLOCK_SEEN_MAX 4096

/* A member's clock offset beyond this is a validity warning naming its node. */
#define BR_CLOCK_TOLERANCE_MS 50

/*
 * The first time (ns since the epoch, now_ns when this is the first call
 * for the key) the ready mark of member of (run_uid, cls, iteration,
 * attempt, group) was seen.
 */
int64_t br_clock_seen(const char *run_uid, const char *cls, unsigned iteration, unsigned attempt,
		      unsigned group, unsigned member, int64_t now_ns);

/*
 * An informer event of ConfigMap cm (borrowed) at now_ns: when it is a
 * member's ready mark (component, iteration, attempt, member labels, the
 * class annotation, an owner's UID), its first sighting is recorded then,
 * before the reconcile that would see it later (its queue's wait is no part
 * of the exchange's round trip). Anything else is ignored.
 */
void br_clock_ready_event(const json_t *cm, int64_t now_ns);

/* The sighting recorded for the key, 0 when none. */
int64_t br_clock_seen_get(const char *run_uid, const char *cls, unsigned iteration,
			  unsigned attempt, unsigned group, unsigned member);

/*
 * Adds the exchange's times to start ConfigMap cm: data.sentUnixNano =
 * sent_ns and data.readySeenUnixNano = {"<member>": ns, ...} (JSON text) of
 * members 1..pods with a sighting. 0 or -ENOMEM.
 */
int br_clock_stamp_start(json_t *cm, const char *run_uid, const char *cls, unsigned iteration,
			 unsigned attempt, unsigned group, unsigned pods, int64_t sent_ns);

/* Forgets every sighting (tests). */
void br_clock_reset(void);

#endif
