/* SPDX-License-Identifier: MIT */
/*
 * The objects the controller creates for a BenchmarkRun, as JSON: the PVC
 * and runner pod of each class, the spec ConfigMap holding the job file,
 * the report ConfigMap, Events, and the status. Every object carries the
 * run's labels and an ownerReference to the run, so garbage collection
 * removes it with the run. Each function returns a new reference (caller
 * decrefs) or NULL on ENOMEM.
 */
#ifndef SB_CONTROLLER_RUN_MANIFESTS_H
#define SB_CONTROLLER_RUN_MANIFESTS_H

#include "controller/run/plan.h"
#include "controller/run/ref.h"
#include "controller/run/spec.h"

#include <jansson.h>

/* the report ConfigMap's comparison with the baseline (regression.c reads it) */
#define BR_COMPARE_KEY "compare.json"

json_t *br_pvc_manifest(const struct br_ref *run, const struct br_spec *s, const char *cls);

/* attempt counts from 1. spec_cm is the spec ConfigMap's name ("" if none). */
json_t *br_pod_manifest(const struct br_ref *run, const struct br_spec *s, const char *cls,
			unsigned attempt, unsigned iterations);

/*
 * The pod of member (1..s->pods) of a distributed class, done the
 * iterations already recorded ("1,2,5"); member 0: br_pod_manifest.
 */
json_t *br_pod_manifest_member(const struct br_ref *run, const struct br_spec *s, const char *cls,
			       unsigned attempt, unsigned iterations, unsigned member,
			       const char *done);

/* The ConfigMap with the job file (only when the run has one). */
json_t *br_spec_cm_manifest(const struct br_ref *run, const struct br_spec *s);

/*
 * The report ConfigMap: report.json (the document), report.txt, report.md,
 * report.csv and, when available, report.svg.
 */
json_t *br_report_cm_manifest(const struct br_ref *run, const json_t *report);

/*
 * Adds the comparison with a baseline run (see lib/report/compare.h) to a report
 * ConfigMap: compare.txt, compare.md, compare.json, and the text appended
 * to report.txt. Returns 0 or -ENOMEM/-EINVAL (cm unchanged).
 */
int br_report_cm_add_comparison(json_t *cm, const json_t *comparison);

/* What a report ConfigMap's data may hold (the API server refuses more than 1 MiB; some room
 * is left for the keys the fit adds). */
#define BR_REPORT_CM_MAX_BYTES (1000u * 1024u)
/* The data key that lists the renderings left out of a report ConfigMap, and why. */
#define BR_REPORT_OMITTED_KEY "report.omitted"

/*
 * Makes a report ConfigMap's data (keys and values) fit in max bytes:
 * renderings are left out, the largest first and report.txt last, and
 * BR_REPORT_OMITTED_KEY lists them with their sizes; report.json and
 * compare.json, which the controller reads back, are never left out.
 * Returns the number left out (0: it fitted), -E2BIG when what is kept is
 * larger than max on its own (why says how large), -ENOMEM.
 */
int br_report_cm_fit(json_t *cm, size_t max, char *why, size_t whylen);

/* A core/v1 Event about the run. now is the event time. */
json_t *br_event_manifest(const struct br_ref *run, const struct br_event *e, time_t now,
			  unsigned seq);

/* An RFC 3339 time (sb_rfc3339_parse, offsets honoured); 0 when s is NULL or malformed. */
time_t br_time_parse(const char *s);

#endif
