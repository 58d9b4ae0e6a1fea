/* SPDX-License-Identifier: MIT */
#include "controller/distrib/distrib.h"
#include "controller/distrib/clock.h"
#include "controller/core/proof.h"
#include "core/jsonobj.h"
#include "controller/core/resultcache.h"
#include "controller/run/runkey.h"

#include "stats/aggregate.h"
#include "core/labels.h"
#include "core/log.h"
#include "stats/merge.h"
#include "core/names.h"
#include "result/owner.h"
#include "result/resultdoc.h"
#include "result/sign.h"
#include "report/validity.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_ITER 1000 /* spec.iterations' bound */

/* The controller's CLOCK_REALTIME, ns since the epoch: the barrier's time base. */
static int64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A label's unsigned value in [1, max], else 0. */
static unsigned label_uint(const json_t *obj, const char *k, unsigned max)
{
	const char *v = label(obj, k);
	char *end;
	if (!v || !*v)
		return 0;
	unsigned long n = strtoul(v, &end, 10);
	return *end || n < 1 || n > max ? 0 : (unsigned)n;
}

/* Whether obj is of run (its labels and owner) and class, with component comp. */
static bool ours(const json_t *obj, const struct br_ref *run, const char *run_label,
		 const char *cls_label, const char *comp)
{
	const char *c = label(obj, SB_LABEL_COMPONENT), *r = label(obj, SB_LABEL_RUN);
	const char *k = label(obj, SB_LABEL_CLASS), *ns = meta(obj, "namespace");
	return c && r && k && ns && !strcmp(c, comp) && !strcmp(r, run_label) &&
	       !strcmp(k, cls_label) && !strcmp(ns, run->ns) && owned_by(obj, run->uid);
}

static bool set(json_t *o, const char *key, json_t *v)
{
	return o && v && json_object_set_new(o, key, v) == 0;
}

static bool set_label(json_t *obj, const char *k, unsigned v)
{
	char b[16];
	snprintf(b, sizeof(b), "%u", v);
	return set(json_object_get(json_object_get(obj, "metadata"), "labels"), k, json_string(b));
}

/* ------------------------------------------------------------- manifests */

json_t *br_member_pvc_manifest(const struct br_ref *run, const struct br_spec *s, const char *cls,
			       unsigned member)
{
	char name[64];
	json_t *pvc = br_pvc_manifest(run, s, cls);
	if (!pvc || s->volume_sharing != BR_VOLUME_PER_POD)
		return pvc;
	if (sb_name_member_pvc(name, sizeof(name), run->name, cls, member) ||
	    !set(json_object_get(pvc, "metadata"), "name", json_string(name)) ||
	    !set_label(pvc, SB_LABEL_MEMBER, member)) {
		json_decref(pvc);
		return NULL;
	}
	return pvc;
}

json_t *br_member_pod_manifest(const struct br_ref *run, const struct br_spec *s, const char *cls,
			       unsigned attempt, unsigned member, const char *done)
{
	char name[64], pvc[64], b[32], run_label[64], cls_label[64];
	json_t *pod = br_pod_manifest_member(run, s, cls, attempt, s->iterations, member, done);
	json_t *ps = json_object_get(pod, "spec");
	json_t *ctr = json_array_get(json_object_get(ps, "containers"), 0);
	bool ok = pod && ctr;

	ok = ok && !sb_name_member_pod(name, sizeof(name), run->name, cls, attempt, member) &&
	     !sb_name_label(run_label, sizeof(run_label), run->name) &&
	     !sb_name_label(cls_label, sizeof(cls_label), cls) &&
	     !(s->volume_sharing == BR_VOLUME_PER_POD
		       ? sb_name_member_pvc(pvc, sizeof(pvc), run->name, cls, member)
		       : sb_name_pvc(pvc, sizeof(pvc), run->name, cls));
	ok = ok && set(json_object_get(pod, "metadata"), "name", json_string(name)) &&
	     set_label(pod, SB_LABEL_MEMBER, member);
	/* the volume: the member's own PVC, or the class's shared one */
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(ps, "volumes"), i, v)
	{
		json_t *pc = json_object_get(v, "persistentVolumeClaim");
		if (ok && pc)
			ok = set(pc, "claimName", json_string(pvc));
	}
	/* shared: a directory per member on the one volume (the runner creates it) */
	json_t *a;
	json_array_foreach(json_object_get(ctr, "args"), i, a)
	{
		const char *as = json_string_value(a);
		if (ok && s->volume_sharing == BR_VOLUME_SHARED && as &&
		    !strncmp(as, "--directory=", 12)) {
			char d[128];
			snprintf(d, sizeof(d), "--directory=%s/m%u", BR_DATA_DIR, member);
			ok = json_array_set_new(json_object_get(ctr, "args"), i, json_string(d)) ==
			     0;
		}
	}
	if (ok && s->spread != BR_SPREAD_NONE) {
		snprintf(b, sizeof(b), "%u", attempt);
		ok = set(ps, "topologySpreadConstraints",
			 json_pack("[{s:i,s:s,s:s,s:{s:{s:s,s:s,s:s}}}]", "maxSkew", 1,
				   "topologyKey", "kubernetes.io/hostname", "whenUnsatisfiable",
				   br_spread_name(s->spread), "labelSelector", "matchLabels",
				   SB_LABEL_RUN, run_label, SB_LABEL_CLASS, cls_label,
				   SB_LABEL_ATTEMPT, b));
	}
	if (!ok) {
		json_decref(pod);
		return NULL;
	}
	return pod;
}

json_t *br_start_cm_manifest(const struct br_ref *run, const char *cls, unsigned iteration,
			     unsigned attempt, unsigned group, int64_t start_ns)
{
	char name[64], run_label[64], cls_label[64], it[16], at[16], ns[32], gr[16];
	if (sb_name_start(name, sizeof(name), run->name, cls, iteration, attempt, group) ||
	    sb_name_label(run_label, sizeof(run_label), run->name) ||
	    sb_name_label(cls_label, sizeof(cls_label), cls))
		return NULL;
	snprintf(it, sizeof(it), "%u", iteration);
	snprintf(at, sizeof(at), "%u", attempt);
	snprintf(ns, sizeof(ns), "%" PRId64, start_ns);
	snprintf(gr, sizeof(gr), "%u", group);
	return json_pack("{s:s,s:s,s:{s:s,s:s,s:{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s},s:{s:s,s:s},"
			 "s:[{s:s,s:s,s:s,s:s,s:b,s:b}]},s:{s:s}}",
			 "apiVersion", "v1", "kind", "ConfigMap", "metadata", "name", name,
			 "namespace", run->ns, "labels", SB_LABEL_NAME, SB_APP_NAME,
			 SB_LABEL_COMPONENT, SB_COMPONENT_START, SB_LABEL_MANAGED_BY, SB_MANAGER,
			 SB_LABEL_RUN, run_label, SB_LABEL_CLASS, cls_label, SB_LABEL_ITERATION, it,
			 SB_LABEL_ATTEMPT, at, SB_LABEL_GROUP, gr, "annotations", SB_ANNOT_RUN,
			 run->name, SB_ANNOT_CLASS, cls, "ownerReferences", "apiVersion",
			 SB_API_VERSION, "kind", SB_KIND, "name", run->name, "uid", run->uid,
			 "controller", 1, "blockOwnerDeletion", 1, "data", SB_START_KEY, ns);
}

/* --------------------------------------------------------------- observe */

static enum br_pod_phase pod_phase(const json_t *pod)
{
	const char *s = jstr(json_object_get(pod, "status"), "phase");
	if (s && !strcmp(s, "Running"))
		return BR_POD_RUNNING;
	if (s && !strcmp(s, "Succeeded"))
		return BR_POD_SUCCEEDED;
	if (s && !strcmp(s, "Failed"))
		return BR_POD_FAILED;
	return BR_POD_PENDING;
}

static const char *pod_node(const json_t *pod)
{
	const char *n = jstr(json_object_get(pod, "spec"), "nodeName");
	return n ? n : "(not scheduled)";
}

/* Completion of one (iteration, attempt): which members recorded it. */
struct slot {
	unsigned iteration, attempt;
	uint64_t mask;
	time_t first; /* ready: the first member's creation */
};

static struct slot *slot_get(struct slot **v, size_t *n, size_t *cap, unsigned it, unsigned at)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].iteration == it && (*v)[i].attempt == at)
			return &(*v)[i];
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 32;
		struct slot *nv = realloc(*v, c * sizeof(*nv));
		if (!nv)
			return NULL;
		*v = nv;
		*cap = c;
	}
	struct slot *s = &(*v)[(*n)++];
	memset(s, 0, sizeof(*s));
	s->iteration = it;
	s->attempt = at;
	return s;
}

static uint64_t all_members(unsigned pods)
{
	return pods >= 64 ? UINT64_MAX : ((uint64_t)1 << pods) - 1;
}

/*
 * For each iteration, the attempt whose members all recorded it (the lowest
 * such attempt), 0 if none; also the newest result's creation. complete has
 * MAX_ITER + 1 entries. A member's result counts only when it passes the one
 * rule for results (lib/result/owner.h, the run's signature included), as in the
 * single-pod path: a forged result must not make an iteration count as done.
 */
static int complete_iterations(const struct br_ref *run, const struct br_spec *s, const char *cls,
			       const char *run_label, const char *cls_label, const json_t *cmlist,
			       unsigned *complete, time_t *newest)
{
	struct slot *v = NULL;
	size_t n = 0, cap = 0, k;
	const json_t *cm;
	unsigned char key[SB_SIGN_KEY_BYTES];
	int kr = br_runkey_derive(run->uid, key);
	if (kr)
		return kr;
	memset(complete, 0, (MAX_ITER + 1) * sizeof(*complete));
	*newest = 0;
	json_array_foreach(cmlist, k, cm)
	{
		if (!ours(cm, run, run_label, cls_label, SB_COMPONENT_RESULT))
			continue;
		unsigned it = label_uint(cm, SB_LABEL_ITERATION, s->iterations);
		unsigned at = label_uint(cm, SB_LABEL_ATTEMPT, 1000000);
		unsigned m = label_uint(cm, SB_LABEL_MEMBER, s->pods);
		if (!it || !at || !m)
			continue;
		struct sb_result_want want = {run->ns, run->name, run->uid, cls, it, key};
		if (br_result_counts(cm, &want, NULL, 0))
			continue;
		struct slot *sl = slot_get(&v, &n, &cap, it, at);
		if (!sl) {
			free(v);
			return -ENOMEM;
		}
		sl->mask |= (uint64_t)1 << (m - 1);
		time_t t = br_time_parse(meta(cm, "creationTimestamp"));
		if (t > *newest)
			*newest = t;
	}
	for (size_t i = 0; i < n; i++)
		if (v[i].mask == all_members(s->pods) &&
		    (!complete[v[i].iteration] || v[i].attempt < complete[v[i].iteration]))
			complete[v[i].iteration] = v[i].attempt;
	free(v);
	return 0;
}

/* The member pods of attempt folded into one observation. */
static void fold_attempt(const struct br_ref *run, const struct br_spec *s, const char *cls,
			 const json_t *const *pods, size_t npods, unsigned attempt,
			 struct br_pod_obs *po)
{
	size_t failed = 0, succeeded = 0, pending = 0, seen = 0, live_deleting = 0;
	int rank = -1; /* of the failed member that speaks for all */
	memset(po, 0, sizeof(*po));
	po->attempt = attempt;
	po->exit_code = -1;
	(void)sb_name_pod(po->name, sizeof(po->name), run->name, cls, attempt);
	for (size_t k = 0; k < npods; k++) {
		const json_t *pod = pods[k];
		if (label_uint(pod, SB_LABEL_ATTEMPT, 1000000) != attempt)
			continue;
		seen++;
		enum br_pod_phase ph = pod_phase(pod);
		bool deleting = meta(pod, "deletionTimestamp") != NULL;
		time_t c = br_time_parse(meta(pod, "creationTimestamp"));
		if (!po->created || c < po->created)
			po->created = c;
		/* a terminated member being deleted does no more I/O: nothing to wait for */
		live_deleting += deleting && (ph == BR_POD_PENDING || ph == BR_POD_RUNNING);
		failed += ph == BR_POD_FAILED;
		succeeded += ph == BR_POD_SUCCEEDED;
		pending += ph == BR_POD_PENDING;
		if (ph != BR_POD_FAILED)
			continue;
		/* who speaks for all: one that refused the workload (exit 2), else one
		 * that failed on its own (not one this controller stopped) */
		const json_t *cs = json_array_get(
			json_object_get(json_object_get(pod, "status"), "containerStatuses"), 0);
		const json_t *term = json_object_get(json_object_get(cs, "state"), "terminated");
		const json_t *ec = json_object_get(term, "exitCode");
		int code = json_is_integer(ec) ? (int)json_integer_value(ec) : -1;
		int r = code == 2 ? 2 : !deleting ? 1 : 0;
		if (r <= rank)
			continue;
		rank = r;
		po->exit_code = code;
		const char *m = jstr(term, "message");
		if (!m)
			m = jstr(json_object_get(pod, "status"), "message");
		snprintf(po->message, sizeof(po->message), "pod %s on node %s: %s",
			 meta(pod, "name") ? meta(pod, "name") : "?", pod_node(pod),
			 m ? m : "failed");
		char *nl = strchr(po->message, '\n');
		if (nl && nl[1] == '\0')
			*nl = '\0';
	}
	po->deleting = live_deleting > 0;
	if (failed) {
		po->phase = BR_POD_FAILED;
		/* the next attempt waits until the other members have stopped (br_dist_start
		 * deletes them): they would measure on the same volumes */
		if (failed + succeeded < seen)
			po->deleting = true;
	} else if (seen == s->pods && succeeded == seen)
		po->phase = BR_POD_SUCCEEDED;
	else if (pending == seen)
		po->phase = BR_POD_PENDING;
	else
		po->phase = BR_POD_RUNNING;
}

static const json_t *member_pod(const json_t *const *pods, size_t npods, unsigned attempt,
				unsigned member)
{
	for (size_t k = 0; k < npods; k++)
		if (label_uint(pods[k], SB_LABEL_ATTEMPT, 1000000) == attempt &&
		    label_uint(pods[k], SB_LABEL_MEMBER, SB_SPEC_MAX_PODS) == member)
			return pods[k];
	return NULL;
}

/* A label's value as a group number (absent: 0, the first group). */
static unsigned label_group(const json_t *obj)
{
	const char *v = label(obj, SB_LABEL_GROUP);
	char *end;
	if (!v || !*v)
		return 0;
	unsigned long n = strtoul(v, &end, 10);
	return *end || n > 1000000 ? 0 : (unsigned)n;
}

/*
 * The barriers of attempt (one per iteration and workload group): the
 * complete ones to start, an incomplete one past its time. Slots are keyed
 * by (iteration, group) here: their "attempt" field holds the group.
 */
static int barriers(const struct br_ref *run, const struct br_spec *s, const char *cls,
		    const char *run_label, const char *cls_label, const json_t *cmlist,
		    const json_t *const *pods, size_t npods, unsigned attempt,
		    const unsigned *complete, time_t now, struct br_class_obs *co,
		    struct br_dist_obs *d)
{
	struct slot *ready = NULL, *started = NULL;
	size_t n = 0, cap = 0, ns = 0, scap = 0, k;
	const json_t *cm;
	int ret = -ENOMEM;
	json_array_foreach(cmlist, k, cm)
	{
		unsigned it = label_uint(cm, SB_LABEL_ITERATION, s->iterations);
		if (!it || label_uint(cm, SB_LABEL_ATTEMPT, 1000000) != attempt)
			continue;
		unsigned g = label_group(cm);
		if (ours(cm, run, run_label, cls_label, SB_COMPONENT_START)) {
			if (!slot_get(&started, &ns, &scap, it, g))
				goto out;
			continue;
		}
		unsigned m = label_uint(cm, SB_LABEL_MEMBER, s->pods);
		if (!m || !ours(cm, run, run_label, cls_label, SB_COMPONENT_READY))
			continue;
		struct slot *sl = slot_get(&ready, &n, &cap, it, g);
		if (!sl)
			goto out;
		sl->mask |= (uint64_t)1 << (m - 1);
		(void)br_clock_seen(run->uid, cls, it, attempt, g, m, realtime_ns());
		time_t t = br_time_parse(meta(cm, "creationTimestamp"));
		if (!sl->first || t < sl->first)
			sl->first = t;
	}
	for (size_t i = 0; i < n; i++) {
		const struct slot *sl = &ready[i];
		bool is_started = false;
		for (size_t j = 0; j < ns; j++)
			is_started = is_started || (started[j].iteration == sl->iteration &&
						    started[j].attempt == sl->attempt);
		if (complete[sl->iteration] || is_started)
			continue;
		if (sl->mask == all_members(s->pods)) {
			if (d->nstarts < BR_DIST_MAX_STARTS) {
				d->starts[d->nstarts].iteration = sl->iteration;
				d->starts[d->nstarts].attempt = attempt;
				d->starts[d->nstarts].group = sl->attempt;
				d->nstarts++;
			}
			continue;
		}
		if (now - sl->first < s->barrier_s) {
			if (!co->barrier_deadline ||
			    sl->first + s->barrier_s < co->barrier_deadline)
				co->barrier_deadline = sl->first + s->barrier_s;
			continue;
		}
		/* name the first member that is missing, and where it is */
		unsigned ready_n = 0, missing = 0;
		for (unsigned m = 1; m <= s->pods; m++) {
			if ((sl->mask >> (m - 1)) & 1)
				ready_n++;
			else if (!missing)
				missing = m;
		}
		char pn[64] = "?", grp[48] = "";
		(void)sb_name_member_pod(pn, sizeof(pn), run->name, cls, attempt, missing);
		const json_t *mp = member_pod(pods, npods, attempt, missing);
		if (sl->attempt)
			snprintf(grp, sizeof(grp), " (workload group %u)", sl->attempt + 1);
		snprintf(co->barrier_failure, sizeof(co->barrier_failure),
			 "iteration %u%s: pod %s on node %s did not reach the start barrier within "
			 "%lds (%u of %u pods ready); recorded iterations are kept",
			 sl->iteration, grp, pn, mp ? pod_node(mp) : "(no pod)", s->barrier_s,
			 ready_n, s->pods);
	}
	ret = 0;
out:
	free(ready);
	free(started);
	return ret;
}

/* The member PVCs folded into one volume observation. */
static void fold_pvcs(const struct br_ops *ops, const struct br_ref *run, const struct br_spec *s,
		      const char *cls, struct br_class_obs *co, bool *any)
{
	unsigned exist = 0, bound = 0;
	co->pvc_exists = co->pvc_bound = co->pvc_lost = co->pvc_deleting = false;
	co->pvc_created = 0;
	*any = false;
	for (unsigned m = 1; m <= s->pods; m++) {
		char nm[64];
		if (sb_name_member_pvc(nm, sizeof(nm), run->name, cls, m))
			continue;
		json_t *pvc = ops->cache_get(ops->arg, BR_CACHE_PVCS, run->ns, nm);
		if (pvc && owned_by(pvc, run->uid)) {
			const char *ph = jstr(json_object_get(pvc, "status"), "phase");
			*any = true;
			if (meta(pvc, "deletionTimestamp"))
				co->pvc_deleting = true;
			else
				exist++;
			bound += ph && !strcmp(ph, "Bound");
			co->pvc_lost = co->pvc_lost || (ph && !strcmp(ph, "Lost"));
			time_t t = br_time_parse(meta(pvc, "creationTimestamp"));
			if (t > co->pvc_created)
				co->pvc_created = t;
		}
		json_decref(pvc);
	}
	co->pvc_exists = exist == s->pods;
	co->pvc_bound = bound == s->pods;
}

int br_dist_observe(const struct br_ops *ops, const struct br_ref *run, const struct br_spec *s,
		    const json_t *podlist, const json_t *cmlist, time_t now,
		    struct br_class_obs *co, struct br_dist_obs *d, bool *left)
{
	char run_label[64], cls_label[64];
	const char *cls = co->name;
	const json_t *pods[BR_MAX_PODS * SB_SPEC_MAX_PODS];
	size_t npods = 0, k;
	const json_t *pod;
	unsigned *complete = NULL;
	int ret = 0;

	memset(d, 0, sizeof(*d));
	d->pods = s->pods;
	if (sb_name_label(run_label, sizeof(run_label), run->name) ||
	    sb_name_label(cls_label, sizeof(cls_label), cls))
		return -EINVAL;
	complete = calloc(MAX_ITER + 1, sizeof(*complete));
	if (!complete)
		return -ENOMEM;

	/* volumes: per pod, or the class's one (observed as for a single pod) */
	if (s->volume_sharing == BR_VOLUME_PER_POD) {
		bool any;
		fold_pvcs(ops, run, s, cls, co, &any);
		*left = *left || any;
	}

	/* pods: one observation per attempt */
	json_array_foreach(podlist, k, pod)
	{
		if (ours(pod, run, run_label, cls_label, SB_COMPONENT_RUNNER) &&
		    npods < sizeof(pods) / sizeof(pods[0]))
			pods[npods++] = pod;
	}
	co->npods = 0;
	for (size_t i = 0; i < npods; i++) {
		unsigned at = label_uint(pods[i], SB_LABEL_ATTEMPT, 1000000);
		bool have = false;
		for (size_t j = 0; j < co->npods; j++)
			have = have || co->pods[j].attempt == at;
		if (!at || have || co->npods == BR_MAX_PODS)
			continue;
		fold_attempt(run, s, cls, pods, npods, at, &co->pods[co->npods++]);
	}

	/* a failed attempt's members still alive: stop them */
	for (size_t i = 0; i < npods; i++) {
		unsigned at = label_uint(pods[i], SB_LABEL_ATTEMPT, 1000000);
		enum br_pod_phase ph = pod_phase(pods[i]);
		bool failed = false;
		for (size_t j = 0; j < co->npods; j++)
			failed = failed ||
				 (co->pods[j].attempt == at && co->pods[j].phase == BR_POD_FAILED);
		if (failed && (ph == BR_POD_PENDING || ph == BR_POD_RUNNING) &&
		    !meta(pods[i], "deletionTimestamp") && meta(pods[i], "name") &&
		    d->nstop < BR_DIST_MAX_STOP)
			snprintf(d->stop[d->nstop++], sizeof(d->stop[0]), "%s",
				 meta(pods[i], "name"));
	}

	/* results: an iteration is done when every member of one attempt recorded it */
	if ((ret = complete_iterations(run, s, cls, run_label, cls_label, cmlist, complete,
				       &co->last_result)))
		goto out;
	co->done = 0;
	size_t dl = 0;
	for (unsigned it = 1; it <= s->iterations; it++) {
		if (!complete[it])
			continue;
		co->done++;
		dl += (size_t)snprintf(d->done + dl,
				       dl < sizeof(d->done) ? sizeof(d->done) - dl : 0, "%s%u",
				       dl ? "," : "", it);
		if (dl >= sizeof(d->done))
			dl = sizeof(d->done) - 1;
	}

	/* the last attempt's pods: not in the cache, gone from the API? */
	unsigned cur = 0;
	for (size_t j = 0; j < co->npods; j++)
		if (co->pods[j].attempt > cur)
			cur = co->pods[j].attempt;
	co->last_pod_gone = false;
	if (co->prev_attempts > cur && co->done < s->iterations) {
		char pn[64];
		struct kube_error kerr = KUBE_ERROR_INIT;
		if (!sb_name_member_pod(pn, sizeof(pn), run->name, cls, co->prev_attempts, 1))
			co->last_pod_gone = ops->get(ops->arg, &kube_res_pods, run->ns, pn, NULL,
						     &kerr) == -ENOENT;
	}
	bool cur_failed = false;
	for (size_t j = 0; j < co->npods; j++)
		cur_failed = cur_failed ||
			     (co->pods[j].attempt == cur && co->pods[j].phase == BR_POD_FAILED);
	if (cur && !cur_failed) /* a failed attempt's barriers are over */
		ret = barriers(run, s, cls, run_label, cls_label, cmlist, pods, npods, cur,
			       complete, now, co, d);
out:
	free(complete);
	return ret;
}

/* ----------------------------------------------------------------- apply */

/* Creates obj (consumed, signed) for run: br_create_owned (controller/core/proof.h). */
static int create_obj(const struct br_ops *ops, const struct kube_resource *r,
		      const struct br_ref *run, json_t *obj, const char *what, char *why,
		      size_t whylen)
{
	struct kube_error err = KUBE_ERROR_INIT;
	bool stale = false;
	return br_create_owned(ops, r, run->ns, run->name, run->uid, obj, what, &stale, &err, why,
			       whylen);
}

static int delete_named(const struct br_ops *ops, const struct kube_resource *r, const char *ns,
			const char *name, char *why, size_t whylen)
{
	struct kube_error err = KUBE_ERROR_INIT;
	char eb[512];
	int ret = ops->del(ops->arg, r, ns, name, &err); /* background propagation */
	if (ret == -ENOENT)
		return 0;
	if (ret)
		snprintf(why, whylen, "cannot delete %s: %s", name,
			 kube_error_str(&err, eb, sizeof(eb)));
	return ret;
}

int br_dist_apply_action(const struct br_ops *ops, const struct br_ref *run,
			 const struct br_spec *s, const struct br_action *a,
			 const struct br_class_obs *co, const struct br_dist_obs *d, char *why,
			 size_t whylen)
{
	const char *cls = co->name;
	unsigned attempt = 0;
	int ret = 0, created = 0;
	char nm[64];

	switch (a->kind) {
	case BR_ACT_CREATE_PVC:
		for (unsigned m = 1; m <= s->pods && ret >= 0; m++) {
			ret = create_obj(ops, &kube_res_pvcs, run,
					 br_member_pvc_manifest(run, s, cls, m), "pvc", why,
					 whylen);
			created |= ret == 1;
			if (s->volume_sharing != BR_VOLUME_PER_POD)
				break; /* one for all */
		}
		break;
	case BR_ACT_CREATE_POD:
		/* the run's signing key, mounted by every member (controller/run/runkey.h) */
		ret = create_obj(ops, &kube_res_secrets, run, br_runkey_secret_manifest(run),
				 "key secret", why, whylen);
		if (ret >= 0 && s->jobfile) /* the job file the pods mount */
			ret = create_obj(ops, &kube_res_configmaps, run,
					 br_spec_cm_manifest(run, s), "spec configmap", why,
					 whylen);
		for (unsigned m = 1; m <= s->pods && ret >= 0; m++) {
			ret = create_obj(
				ops, &kube_res_pods, run,
				br_member_pod_manifest(run, s, cls, a->attempt, m, d->done),
				"runner pod", why, whylen);
			created |= ret == 1;
		}
		break;
	case BR_ACT_DELETE_POD:
		for (size_t k = 0; k < co->npods; k++)
			if (!strcmp(co->pods[k].name, a->name))
				attempt = co->pods[k].attempt;
		for (unsigned m = 1; attempt && m <= s->pods && ret >= 0; m++)
			if (!sb_name_member_pod(nm, sizeof(nm), run->name, cls, attempt, m))
				ret = delete_named(ops, &kube_res_pods, run->ns, nm, why, whylen);
		break;
	case BR_ACT_DELETE_PVC:
		for (unsigned m = 1; m <= s->pods && ret >= 0; m++) {
			if (s->volume_sharing != BR_VOLUME_PER_POD) {
				if (!sb_name_pvc(nm, sizeof(nm), run->name, cls))
					ret = delete_named(ops, &kube_res_pvcs, run->ns, nm, why,
							   whylen);
				break;
			}
			if (!sb_name_member_pvc(nm, sizeof(nm), run->name, cls, m))
				ret = delete_named(ops, &kube_res_pvcs, run->ns, nm, why, whylen);
		}
		break;
	case BR_ACT_WRITE_REPORT:
		break;
	}
	return ret < 0 ? ret : created;
}

int br_dist_start(const struct br_ops *ops, const struct br_ref *run, const char *cls,
		  const struct br_dist_obs *d)
{
	int n = 0;
	for (size_t i = 0; i < d->nstop; i++) {
		char why[640];
		if (delete_named(ops, &kube_res_pods, run->ns, d->stop[i], why, sizeof(why)) < 0)
			sb_warn("Failed to stop a member of a failed attempt",
				"run=%s/%s class=%s error=\"%s\"", run->ns, run->name, cls, why);
		else
			sb_info("Stopped a member of a failed attempt", "run=%s/%s class=%s pod=%s",
				run->ns, run->name, cls, d->stop[i]);
	}
	for (size_t i = 0; i < d->nstarts; i++) {
		char why[640];
		int64_t sent = realtime_ns();
		int64_t start = sent + (int64_t)BR_DIST_START_DELAY_MS * 1000000;
		json_t *cm = br_start_cm_manifest(run, cls, d->starts[i].iteration,
						  d->starts[i].attempt, d->starts[i].group, start);
		if (cm &&
		    br_clock_stamp_start(cm, run->uid, cls, d->starts[i].iteration,
					 d->starts[i].attempt, d->starts[i].group, d->pods, sent)) {
			json_decref(cm);
			cm = NULL;
		}
		int r = create_obj(ops, &kube_res_configmaps, run, cm, "start configmap", why,
				   sizeof(why));
		if (r < 0) {
			sb_warn("Failed to start an iteration", "run=%s/%s class=%s error=\"%s\"",
				run->ns, run->name, cls, why);
			return r;
		}
		if (r == 1) {
			sb_info("Started iteration at the barrier",
				"run=%s/%s class=%s iteration=%u attempt=%u group=%u", run->ns,
				run->name, cls, d->starts[i].iteration, d->starts[i].attempt,
				d->starts[i].group);
			n++;
		}
	}
	return n;
}

/* ---------------------------------------------------------------- report */

/*
 * The result ConfigMap of member m for (iteration, attempt), parsed and
 * checked by the one rule for results (lib/result/owner.h: owner, labels, size,
 * JSON, context, the run's signature); NULL with why.
 */
static json_t *member_doc(const json_t *cmlist, const struct br_ref *run, const char *cls,
			  const char *run_label, const char *cls_label, unsigned it, unsigned at,
			  unsigned m, char *why, size_t whylen)
{
	size_t k;
	const json_t *cm;
	unsigned char key[SB_SIGN_KEY_BYTES];
	if (br_runkey_derive(run->uid, key)) {
		snprintf(why, whylen, "the run's signing key is not loaded");
		return NULL;
	}
	json_array_foreach(cmlist, k, cm)
	{
		if (!ours(cm, run, run_label, cls_label, SB_COMPONENT_RESULT) ||
		    label_uint(cm, SB_LABEL_ITERATION, MAX_ITER) != it ||
		    label_uint(cm, SB_LABEL_ATTEMPT, 1000000) != at ||
		    label_uint(cm, SB_LABEL_MEMBER, SB_SPEC_MAX_PODS) != m)
			continue;
		struct sb_result_want want = {run->ns, run->name, run->uid, cls, it, key};
		json_t *doc = NULL;
		char err[512];
		if (sb_result_check(cm, &want, &doc, err, sizeof(err))) {
			snprintf(why, whylen, "result %s: %s", meta(cm, "name"), err);
			continue; /* another of the member's results may be the real one */
		}
		return doc;
	}
	if (!why[0])
		snprintf(why, whylen,
			 "iteration %u, attempt %u: the result of member %u is missing", it, at, m);
	return NULL;
}

/*
 * A member's measured clock offset (its node's clock minus the
 * controller's, context.clock.offset_ns) and its uncertainty: true, or
 * false (both 0) when it measured none or they are out of range.
 */
static bool member_clock(const json_t *doc, int64_t *off, int64_t *unc)
{
	const json_t *c = json_object_get(json_object_get(doc, SB_RK_CONTEXT), SB_RK_CTX_CLOCK);
	const json_t *o = json_object_get(c, SB_RK_CTX_OFFSET_NS);
	const json_t *u = json_object_get(c, SB_RK_CTX_UNCERTAINTY_NS);
	*off = *unc = 0;
	if (!json_is_integer(o) || !json_is_integer(u) ||
	    json_integer_value(o) <= -SB_MERGE_MAX_OFFSET_NS ||
	    json_integer_value(o) >= SB_MERGE_MAX_OFFSET_NS || json_integer_value(u) < 0 ||
	    json_integer_value(u) >= SB_MERGE_MAX_OFFSET_NS)
		return false;
	*off = (int64_t)json_integer_value(o);
	*unc = (int64_t)json_integer_value(u);
	return true;
}

/*
 * What a member's times are corrected by: its clock offset when beyond its
 * uncertainty (the node's clock is off for sure; the member applied it to
 * its start too, runner/mode/startwait.h), else 0.
 */
static int64_t member_offset(const json_t *doc)
{
	int64_t off, unc;
	return member_clock(doc, &off, &unc) && llabs(off) > unc ? off : 0;
}

/* A member document's context[key] (its pod, its node), "?" when absent. */
static const char *ctx_str(const json_t *doc, const char *key)
{
	const char *v = jstr(json_object_get(doc, SB_RK_CONTEXT), key);
	return v ? v : "?";
}

/* Start skew of one iteration from the members' contexts, in ms; -1 when unknown. */
static double start_skew_ms(json_t *const *docs, unsigned n)
{
	int64_t lo = 0, hi = 0; /* ns: a double would keep 256 ns of a time since the epoch */
	for (unsigned m = 0; m < n; m++) {
		const json_t *a = json_object_get(
			json_object_get(json_object_get(docs[m], SB_RK_CONTEXT), SB_RK_CTX_START),
			SB_RK_CTX_ACTUAL_NS);
		if (!json_is_integer(a) || json_integer_value(a) <= 0 ||
		    json_integer_value(a) >= SB_MERGE_MAX_START_NS)
			return -1;
		int64_t v = (int64_t)json_integer_value(a) - member_offset(docs[m]);
		if (!m || v < lo)
			lo = v;
		if (!m || v > hi)
			hi = v;
	}
	return (double)(hi - lo) / 1e6;
}

/* The actual start (ns) of workload group g in a member's context.start.groups; -1: none. */
static double group_start_ns(const json_t *doc, size_t g)
{
	const json_t *groups = json_object_get(
		json_object_get(json_object_get(doc, SB_RK_CONTEXT), SB_RK_CTX_START),
		SB_RK_CTX_GROUPS);
	size_t i;
	const json_t *e;
	json_array_foreach(groups, i, e)
	{
		const json_t *gv = json_object_get(e, SB_RK_CTX_GROUP);
		const json_t *a = json_object_get(e, SB_RK_CTX_ACTUAL_NS);
		if (json_is_integer(gv) && json_integer_value(gv) == (json_int_t)g &&
		    json_is_integer(a) && json_integer_value(a) > 0)
			return (double)json_integer_value(a);
	}
	return -1;
}

/*
 * The start skew of each later workload group (1, 2, ...) of one
 * iteration, [{"group", "skew_ms"}] (new reference; NULL on ENOMEM): for
 * each group every member recorded, the latest minus the earliest start.
 * Empty when the members recorded no later group.
 */
static json_t *group_skews(json_t *const *docs, unsigned n)
{
	json_t *out = json_array();
	size_t most = 0;
	for (unsigned m = 0; m < n; m++) {
		size_t k = json_array_size(json_object_get(
			json_object_get(json_object_get(docs[m], SB_RK_CONTEXT), SB_RK_CTX_START),
			SB_RK_CTX_GROUPS));
		most = k > most ? k : most;
	}
	for (size_t g = 1; out && g < most; g++) {
		double lo = 0, hi = 0;
		unsigned m;
		for (m = 0; m < n; m++) {
			double v = group_start_ns(docs[m], g);
			if (v < 0)
				break;
			v -= (double)member_offset(docs[m]);
			if (!m || v < lo)
				lo = v;
			if (!m || v > hi)
				hi = v;
		}
		if (m < n)
			continue; /* a member did not record it */
		if (json_array_append_new(out, json_pack("{s:I,s:f}", "group", (json_int_t)g,
							 "skew_ms", (hi - lo) / 1e6))) {
			json_decref(out);
			out = NULL;
		}
	}
	return out;
}

static bool append(json_t *a, json_t *v)
{
	return v && json_array_append_new(a, v) == 0;
}

/* The skew entry of one iteration: group 0's skew, and "groups" when later ones started. */
static json_t *skew_entry(const char *cls, unsigned it, unsigned at, json_t *const *docs,
			  unsigned n)
{
	json_t *groups = group_skews(docs, n);
	json_t *e =
		groups ? json_pack("{s:s,s:I,s:I,s:f}", "target", cls, "iteration", (json_int_t)it,
				   "attempt", (json_int_t)at, "skew_ms", start_skew_ms(docs, n))
		       : NULL;
	if (e && json_array_size(groups) && json_object_set(e, "groups", groups)) {
		json_decref(e);
		e = NULL;
	}
	json_decref(groups);
	return e;
}

/* What the report of one class gathers; the arrays borrowed from br_dist_report. */
struct class_report {
	struct sb_agg *agg;
	const char *cls;
	unsigned pods;
	json_t *rows, *skews, *warnings;
	json_t *seen; /* {"check\x1fworkload": [iteration, ...]}: warnings said once per workload */
	json_t *clock_said; /* {"node": true}: its clock-offset warning is said */
	void (*warn)(void *, const char *);
	void *wctx;
	json_t **docs;		 /* [pods]: the iteration's member documents */
	const json_t **jobs;	 /* [pods] */
	struct sb_merge_pod *mp; /* [pods] */
	double *iops, *tmp;	 /* [pods] */
};

/* Appends one validity warning (lib/report/validity.h's form); false on ENOMEM. */
static bool warning(json_t *out, const char *check, const char *target, const char *workload,
		    const char *message, const char *evidence, const char *fix)
{
	return append(out, json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "check", check, "target", target,
				     "workload", workload, "message", message, "evidence", evidence,
				     "fix", fix));
}

/* Notes that check applies to workload in iteration it (said once per workload, below). */
static bool note(struct class_report *cr, const char *check, const char *workload, unsigned it)
{
	char key[512];
	snprintf(key, sizeof(key), "%s\x1f%s", check, workload);
	json_t *its = json_object_get(cr->seen, key);
	if (!its && (!(its = json_array()) || json_object_set_new(cr->seen, key, its)))
		return false;
	return append(its, json_integer(it));
}

/* The merged job's notes: late members named, by position, latency of the whole runs. */
static bool merge_warnings(struct class_report *cr, const json_t *merged, const char *wl,
			   unsigned it)
{
	const json_t *mi = json_object_get(json_object_get(merged, SB_RK_SB), SB_RK_SB_MERGE);
	const char *al = jstr(mi, "alignment");
	bool ok = true;
	if (al && !strcmp(al, "index"))
		ok = note(cr, SB_VALIDITY_INDEX_MERGE, wl, it);
	for (int d = 0; ok && d < 2; d++) {
		const char *lat = jstr(json_object_get(mi, sb_result_dir_keys[d]), "latency");
		const char *win = jstr(json_object_get(mi, sb_result_dir_keys[d]), "window");
		if (lat && !strcmp(lat, "run") && win && !strcmp(win, "series"))
			ok = note(cr, SB_VALIDITY_RUN_LATENCY, wl, it);
	}
	for (unsigned m = 0; ok && m < cr->pods; m++) {
		if (!cr->mp[m].late)
			continue;
		char msg[256], ev[512];
		snprintf(msg, sizeof(msg),
			 "member %u started late: the aggregate's window leaves out the %.0f ms "
			 "before it",
			 m + 1, cr->mp[m].late_ms);
		snprintf(ev, sizeof(ev),
			 "iteration %u: pod %s on node %s started measuring %.0f ms after the "
			 "first member (bound %d ms)",
			 it, ctx_str(cr->docs[m], SB_RK_CTX_POD),
			 ctx_str(cr->docs[m], SB_RK_CTX_NODE), cr->mp[m].late_ms, SB_MERGE_LATE_MS);
		ok = warning(cr->warnings, SB_VALIDITY_LATE_START, cr->cls, wl, msg, ev,
			     "check the node's load and clock (NTP); a slow image pull or file "
			     "layout delays a member");
	}
	return ok;
}

/* The notes of the class said once per workload, with their iterations. */
static bool flush_notes(struct class_report *cr)
{
	const char *key;
	json_t *its;
	bool ok = true;
	json_object_foreach(cr->seen, key, its)
	{
		const char *wl = strchr(key, '\x1f') + 1;
		bool index =
			!strncmp(key, SB_VALIDITY_INDEX_MERGE, strlen(SB_VALIDITY_INDEX_MERGE));
		char ev[512];
		size_t n = 0, i;
		json_t *v;
		n += (size_t)snprintf(ev, sizeof(ev), "iteration%s",
				      json_array_size(its) > 1 ? "s" : "");
		json_array_foreach(its, i, v) if (n < sizeof(ev)) n +=
			(size_t)snprintf(ev + n, sizeof(ev) - n, "%s %lld", i ? "," : "",
					 (long long)json_integer_value(v));
		if (n < sizeof(ev))
			snprintf(ev + n, sizeof(ev) - n, "%s",
				 index ? ": results without storagebench.series_start_ns"
				       : ": results without per-interval latency "
					 "(storagebench.<dir>.clat_hist_series)");
		ok = ok &&
		     (index ? warning(cr->warnings, SB_VALIDITY_INDEX_MERGE, cr->cls, wl,
				      "the members' series were merged by position, not by time "
				      "(results of an older runner): a member that started late "
				      "is not seen",
				      ev, "run the benchmark again with the current runner image")
			    : warning(cr->warnings, SB_VALIDITY_RUN_LATENCY, cr->cls, wl,
				      "latency is over each member's whole run, IOPS over the "
				      "seconds every member measured",
				      ev,
				      "fewer or shorter workloads per iteration keep the "
				      "per-interval latency within a result ConfigMap"));
	}
	return ok;
}

/* Workload j of iteration it: merged into agg, a row per member. 0 or -ENOMEM. */
static int report_job(struct class_report *cr, unsigned it, size_t j)
{
	json_t *merged = NULL;
	char e2[512];
	for (unsigned m = 0; m < cr->pods; m++) {
		cr->jobs[m] = json_array_get(json_object_get(cr->docs[m], SB_RK_JOBS), j);
		memset(&cr->mp[m], 0, sizeof(cr->mp[m]));
		cr->mp[m].clock_offset_ns = member_offset(cr->docs[m]);
	}
	int r = sb_merge_pods(cr->jobs, cr->mp, cr->pods, &merged, e2, sizeof(e2));
	const char *wl = r ? NULL : jstr(merged, SB_RK_JOBNAME);
	if (r == 0 && !merge_warnings(cr, merged, wl ? wl : "?", it))
		r = -ENOMEM;
	if (r == 0)
		r = sb_agg_add(cr->agg, cr->cls, it, merged, e2, sizeof(e2));
	json_decref(merged);
	if (r == -ENOMEM)
		return r;
	if (r && r != -EEXIST) {
		char msg[1024];
		snprintf(msg, sizeof(msg), "%s, iteration %u, jobs[%zu] not merged: %s", cr->cls,
			 it, j, e2);
		cr->warn(cr->wctx, msg);
		return 0;
	}
	for (unsigned m = 0; m < cr->pods; m++)
		cr->tmp[m] = cr->iops[m] = cr->mp[m].iops[0] + cr->mp[m].iops[1];
	double med = sb_merge_median(cr->tmp, cr->pods);
	for (unsigned m = 0; m < cr->pods; m++) {
		const char *name = jstr(cr->jobs[m], SB_RK_JOBNAME);
		const struct sb_merge_pod *p = &cr->mp[m];
		int64_t off, unc;
		bool clk = member_clock(cr->docs[m], &off, &unc);
		if (!append(cr->rows,
			    json_pack("{s:s,s:s,s:I,s:I,s:s,s:s,s:f,s:f,s:f,s:f,s:b,s:f,s:o,s:o}",
				      "target", cr->cls, "workload", name ? name : "?", "iteration",
				      (json_int_t)it, "member", (json_int_t)m + 1, "pod",
				      ctx_str(cr->docs[m], SB_RK_CTX_POD), "node",
				      ctx_str(cr->docs[m], SB_RK_CTX_NODE), "read-iops", p->iops[0],
				      "write-iops", p->iops[1], "read-bw", p->bw_bytes[0],
				      "write-bw", p->bw_bytes[1], "straggler",
				      sb_merge_straggler(cr->iops[m], med), "late_ms", p->late_ms,
				      "clock_offset_ms",
				      clk ? json_real((double)off / 1e6) : json_null(),
				      "clock_uncertainty_ms",
				      clk ? json_real((double)unc / 1e6) : json_null())))
			return -ENOMEM;
	}
	return 0;
}

/* A clock-offset warning for each member's node off the controller's beyond the tolerance. */
static bool clock_warnings(struct class_report *cr, unsigned it)
{
	for (unsigned m = 0; m < cr->pods; m++) {
		int64_t off, unc;
		const char *node = ctx_str(cr->docs[m], SB_RK_CTX_NODE);
		if (!member_clock(cr->docs[m], &off, &unc) || !member_offset(cr->docs[m]) ||
		    llabs(off) <= (long long)BR_CLOCK_TOLERANCE_MS * 1000000 ||
		    json_object_get(cr->clock_said, node))
			continue;
		char msg[256], ev[512];
		snprintf(msg, sizeof(msg),
			 "node %s's clock is off the controller's by %+.1f ms: its members' times "
			 "are corrected by the measured offset",
			 node, (double)off / 1e6);
		snprintf(ev, sizeof(ev),
			 "iteration %u: member %u (pod %s) measured %+.1f ms +- %.1f ms at the "
			 "start "
			 "barrier (tolerance %d ms)",
			 it, m + 1, ctx_str(cr->docs[m], SB_RK_CTX_POD), (double)off / 1e6,
			 (double)unc / 1e6, BR_CLOCK_TOLERANCE_MS);
		if (json_object_set_new(cr->clock_said, node, json_true()) ||
		    !warning(cr->warnings, SB_VALIDITY_CLOCK_OFFSET, cr->cls, "(all)", msg, ev,
			     "synchronise the node's clock (NTP, chrony)"))
			return false;
	}
	return true;
}

/* Iteration it of attempt at: the members' documents read, each workload merged. 0 or -ENOMEM. */
static int report_iteration(struct class_report *cr, const struct br_ref *run, const json_t *cmlist,
			    const char *run_label, const char *cls_label, unsigned it, unsigned at)
{
	char why[768];
	unsigned m;
	int ret = 0;
	for (m = 0; m < cr->pods; m++) {
		why[0] = '\0';
		cr->docs[m] = member_doc(cmlist, run, cr->cls, run_label, cls_label, it, at, m + 1,
					 why, sizeof(why));
		if (!cr->docs[m])
			break;
	}
	if (m < cr->pods) {
		char msg[1024];
		snprintf(msg, sizeof(msg), "%s, iteration %u was skipped: %s", cr->cls, it, why);
		cr->warn(cr->wctx, msg);
	} else if (!append(cr->skews, skew_entry(cr->cls, it, at, cr->docs, cr->pods)) ||
		   !clock_warnings(cr, it)) {
		ret = -ENOMEM;
	}
	size_t nj = m < cr->pods ? 0 : json_array_size(json_object_get(cr->docs[0], SB_RK_JOBS));
	for (size_t j = 0; j < nj && !ret; j++)
		ret = report_job(cr, it, j);
	for (unsigned k = 0; k < m; k++)
		json_decref(cr->docs[k]);
	return ret;
}

/* One class's complete iterations: merged into agg, rows into rows/skews, warnings. */
static int report_class(struct sb_agg *agg, const struct br_ref *run, const struct br_spec *s,
			const char *cls, const json_t *cmlist, json_t *rows, json_t *skews,
			json_t *warnings, void (*warn)(void *, const char *), void *wctx)
{
	char run_label[64], cls_label[64];
	unsigned *complete = calloc(MAX_ITER + 1, sizeof(*complete));
	struct class_report cr = {agg,
				  cls,
				  s->pods,
				  rows,
				  skews,
				  warnings,
				  json_object(),
				  json_object(),
				  warn,
				  wctx,
				  calloc(s->pods, sizeof(json_t *)),
				  calloc(s->pods, sizeof(json_t *)),
				  calloc(s->pods, sizeof(struct sb_merge_pod)),
				  calloc(s->pods, sizeof(double)),
				  calloc(s->pods, sizeof(double))};
	time_t newest;
	int ret = -ENOMEM;

	if (!complete || !cr.seen || !cr.clock_said || !cr.docs || !cr.jobs || !cr.mp || !cr.iops ||
	    !cr.tmp)
		goto out;
	ret = -EINVAL;
	if (sb_name_label(run_label, sizeof(run_label), run->name) ||
	    sb_name_label(cls_label, sizeof(cls_label), cls))
		goto out;
	if ((ret = complete_iterations(run, s, cls, run_label, cls_label, cmlist, complete,
				       &newest)))
		goto out;
	for (unsigned it = 1; it <= s->iterations && !ret; it++)
		if (complete[it])
			ret = report_iteration(&cr, run, cmlist, run_label, cls_label, it,
					       complete[it]);
	if (!ret && !flush_notes(&cr))
		ret = -ENOMEM;
out:
	free(complete);
	json_decref(cr.seen);
	json_decref(cr.clock_said);
	free(cr.docs);
	free(cr.jobs);
	free(cr.mp);
	free(cr.iops);
	free(cr.tmp);
	return ret;
}

/* Per node: the mean over iterations of the node's pods' summed IOPS, per class and workload. */
static json_t *node_rows(const json_t *rows)
{
	json_t *acc = json_object(), *out = json_array();
	size_t i;
	const json_t *r;
	if (!acc || !out)
		goto fail;
	json_array_foreach(rows, i, r)
	{
		char key[1024];
		snprintf(key, sizeof(key), "%s\x1f%s\x1f%s", jstr(r, "target"), jstr(r, "workload"),
			 jstr(r, "node"));
		json_t *a = json_object_get(acc, key);
		if (!a) {
			a = json_pack("{s:s,s:s,s:s,s:f,s:f,s:{},s:{}}", "target",
				      jstr(r, "target"), "workload", jstr(r, "workload"), "node",
				      jstr(r, "node"), "iops", 0.0, "bw", 0.0, "iterations",
				      "members");
			if (!a || json_object_set_new(acc, key, a))
				goto fail;
		}
		char ik[16], mk[16];
		snprintf(ik, sizeof(ik), "%lld",
			 (long long)json_integer_value(json_object_get(r, "iteration")));
		snprintf(mk, sizeof(mk), "%lld",
			 (long long)json_integer_value(json_object_get(r, "member")));
		double io = json_number_value(json_object_get(r, "read-iops")) +
			    json_number_value(json_object_get(r, "write-iops"));
		double bw = json_number_value(json_object_get(r, "read-bw")) +
			    json_number_value(json_object_get(r, "write-bw"));
		if (json_object_set_new(
			    a, "iops",
			    json_real(json_number_value(json_object_get(a, "iops")) + io)) ||
		    json_object_set_new(
			    a, "bw", json_real(json_number_value(json_object_get(a, "bw")) + bw)) ||
		    json_object_set_new(json_object_get(a, "iterations"), ik, json_true()) ||
		    json_object_set_new(json_object_get(a, "members"), mk, json_true()))
			goto fail;
	}
	const char *k;
	json_t *a;
	json_object_foreach(acc, k, a)
	{
		double n = (double)json_object_size(json_object_get(a, "iterations"));
		if (!append(out,
			    json_pack("{s:O,s:O,s:O,s:I,s:f,s:f}", "target",
				      json_object_get(a, "target"), "workload",
				      json_object_get(a, "workload"), "node",
				      json_object_get(a, "node"), "pods",
				      (json_int_t)json_object_size(json_object_get(a, "members")),
				      "iops",
				      n > 0 ? json_number_value(json_object_get(a, "iops")) / n : 0,
				      "bw",
				      n > 0 ? json_number_value(json_object_get(a, "bw")) / n : 0)))
			goto fail;
	}
	json_decref(acc);
	return out;
fail:
	json_decref(acc);
	json_decref(out);
	return NULL;
}

int br_dist_report(struct sb_agg *agg, const struct br_ref *run, const struct br_spec *s,
		   const json_t *cmlist, json_t **extra, void (*warn)(void *ctx, const char *msg),
		   void *warn_ctx)
{
	json_t *rows = json_array(), *skews = json_array(), *warnings = json_array(), *nodes = NULL;
	int ret = -ENOMEM;
	*extra = NULL;
	if (!rows || !skews || !warnings)
		goto out;
	for (size_t i = 0; i < s->nclasses; i++)
		if ((ret = report_class(agg, run, s, s->classes[i], cmlist, rows, skews, warnings,
					warn, warn_ctx)) == -ENOMEM)
			goto out;
	ret = -ENOMEM;
	if (!(nodes = node_rows(rows)))
		goto out;
	*extra = json_pack("{s:I,s:s,s:s,s:f,s:I,s:O,s:O,s:O,s:O}", "podsPerClass",
			   (json_int_t)s->pods, "volume", br_volume_sharing_name(s->volume_sharing),
			   "spread", br_spread_name(s->spread), "stragglerRatio",
			   SB_MERGE_STRAGGLER_RATIO, "lateBoundMs", (json_int_t)SB_MERGE_LATE_MS,
			   "pods", rows, "nodes", nodes, "skew", skews, "warnings", warnings);
	ret = *extra ? 0 : -ENOMEM;
out:
	json_decref(rows);
	json_decref(skews);
	json_decref(warnings);
	json_decref(nodes);
	return ret;
}

int br_dist_annotate(json_t *report)
{
	json_t *dist = json_object_get(report, "distributed");
	json_t *from = json_object_get(dist, "warnings"), *to = json_object_get(report, "warnings");
	if (!json_is_array(from))
		return 0;
	if (!json_is_array(to)) {
		if (json_object_set_new(report, "warnings", json_array()))
			return -ENOMEM;
		to = json_object_get(report, "warnings");
	}
	if (json_array_extend(to, from))
		return -ENOMEM;
	return json_object_del(dist, "warnings") ? -ENOMEM : 0;
}
