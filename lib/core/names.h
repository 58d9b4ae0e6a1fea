/* SPDX-License-Identifier: MIT */
/*
 * Object names and label values the controller and the runner derive from a
 * run and a storage class: deterministic (a repeat create answers
 * AlreadyExists), valid (DNS-1123 labels of at most 63 characters) and
 * unique (when a part had to be changed or cut, a hash of the original
 * parts is appended, so "a.b" and "a-b" never collide).
 */
#ifndef SB_LIB_CORE_NAMES_H
#define SB_LIB_CORE_NAMES_H

#include <stddef.h>

/*
 * Joins parts with '-' into out as a DNS-1123 label of at most max
 * characters (max <= 63): lowercase letters, digits and '-', starting and
 * ending with a letter or digit. Returns 0, or -EINVAL when out is too
 * small or no part has a usable character.
 */
int sb_name_join(char *out, size_t len, size_t max, const char *const *parts, size_t nparts);

/* "<run>-<class>": the PVC of a class. */
int sb_name_pvc(char *out, size_t len, const char *run, const char *cls);
/* "<run>-<class>-<attempt>": a runner pod. */
int sb_name_pod(char *out, size_t len, const char *run, const char *cls, unsigned attempt);
/* "<run>-<class>-<iteration>": the result ConfigMap of one iteration. */
int sb_name_result(char *out, size_t len, const char *run, const char *cls, unsigned iteration);
/*
 * Distributed runs (member counts from 1):
 * "<run>-<class>-m<member>": the PVC of a member (spec.runner.volume perPod);
 * "<run>-<class>-<attempt>-m<member>": a member's runner pod;
 * "<run>-<class>-<iteration>-a<attempt>-m<member>": a member's result of one iteration;
 * "<run>-<class>-<iteration>-a<attempt>-m<member>[-g<group>]-ready": the member reached
 *   the barrier before the iteration's workload group (group 0, the first, has no -g part);
 * "<run>-<class>-<iteration>-a<attempt>[-g<group>]-start": the start time of that group.
 */
int sb_name_member_pvc(char *out, size_t len, const char *run, const char *cls, unsigned member);
int sb_name_member_pod(char *out, size_t len, const char *run, const char *cls, unsigned attempt,
		       unsigned member);
int sb_name_member_result(char *out, size_t len, const char *run, const char *cls,
			  unsigned iteration, unsigned attempt, unsigned member);
int sb_name_ready(char *out, size_t len, const char *run, const char *cls, unsigned iteration,
		  unsigned attempt, unsigned member, unsigned group);
int sb_name_start(char *out, size_t len, const char *run, const char *cls, unsigned iteration,
		  unsigned attempt, unsigned group);
/* "<run>-spec" and "<run>-report". */
int sb_name_spec(char *out, size_t len, const char *run);
int sb_name_report(char *out, size_t len, const char *run);
/* A label value for a class name (at most 63 characters, hash when cut). */
int sb_name_label(char *out, size_t len, const char *value);

#endif
