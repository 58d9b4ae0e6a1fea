/* SPDX-License-Identifier: MIT */
/*
 * Volume lifecycle timings (see lifecycle.h; spec.lifecycle is parsed in
 * spec.c): the event bookkeeping (pure), the measurement (watches in threads, creates and
 * deletes from the caller's thread) and the report section.
 */
#include "controller/lifecycle/lifecycle.h"
#include "controller/lifecycle/snapshot.h"
#include "core/errfmt.h"
#include "core/jsonobj.h"
#include "controller/run/objstore.h"

#include "controller/core/ops.h"
#include "controller/core/proof.h"
#include "controller/run/spec.h"

#include "core/labels.h"
#include "core/names.h"
#include "stats/stats.h"
#include "core/units.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const phase_names[BR_LC_NPHASES] = {
	"provision", "attach",	"resize",	   "delete",
	"snapshot",  "restore", "snapshot_delete", "restore_delete"};

const char *br_lc_phase_name(enum br_lc_phase p)
{
	return (unsigned)p < BR_LC_NPHASES ? phase_names[p] : "?";
}

/* ------------------------------------------------------------ bookkeeping */

static const char *name_of(const json_t *obj)
{
	return jstr(json_object_get(obj, "metadata"), "name");
}

static void mark(double *t, double now, bool *changed)
{
	if (*t == 0) {
		*t = now;
		*changed = true;
	}
}

/* What an event of the volume's VolumeSnapshot says: ready, its size, an error, gone. */
static void observe_snapshot(struct br_lc_volume *x, int type, const json_t *obj, double now,
			     bool *changed)
{
	if (type == KUBE_EVENT_DELETED) {
		mark(&x->snap_gone, now, changed);
		return;
	}
	const json_t *st = json_object_get(obj, "status");
	const char *size = jstr(st, "restoreSize");
	const char *msg = jstr(json_object_get(st, "error"), "message");
	uint64_t b;
	if (size && !sb_parse_quantity(size, &b))
		x->snap_bytes = b;
	if (msg && strcmp(msg, x->snap_error)) {
		snprintf(x->snap_error, sizeof(x->snap_error), "%s", msg);
		*changed = true;
	}
	if (json_is_true(json_object_get(st, "readyToUse")))
		mark(&x->snap_ready, now, changed);
}

bool br_lc_observe(struct br_lc_volume *v, size_t n, enum br_lc_kind kind, int type,
		   const json_t *obj, double now)
{
	const char *name = name_of(obj);
	bool changed = false;
	if (!name)
		return false;
	for (size_t i = 0; i < n; i++) {
		struct br_lc_volume *x = &v[i];
		if (kind == BR_LC_PVC && !strcmp(name, x->pvc)) {
			mark(&x->seen, now, &changed);
			if (type == KUBE_EVENT_DELETED) {
				mark(&x->pvc_gone, now, &changed);
				continue;
			}
			const json_t *st = json_object_get(obj, "status");
			const json_t *ann =
				json_object_get(json_object_get(obj, "metadata"), "annotations");
			if (jstr(ann, "volume.kubernetes.io/selected-node"))
				mark(&x->selected, now, &changed);
			const char *ph = jstr(st, "phase");
			if (ph && !strcmp(ph, "Bound")) {
				mark(&x->bound, now, &changed);
				const char *vn = jstr(json_object_get(obj, "spec"), "volumeName");
				if (vn && !x->pv[0])
					snprintf(x->pv, sizeof(x->pv), "%s", vn);
			}
			const char *cap = jstr(json_object_get(st, "capacity"), "storage");
			uint64_t b;
			if (x->resize_asked > 0 && cap && !sb_parse_quantity(cap, &b) &&
			    b >= x->resize_bytes)
				mark(&x->resized, now, &changed);
		} else if (kind == BR_LC_POD && !strcmp(name, x->pod)) {
			if (type == KUBE_EVENT_DELETED) {
				mark(&x->pod_gone, now, &changed);
				continue;
			}
			if (jstr(json_object_get(obj, "spec"), "nodeName"))
				mark(&x->on_node, now, &changed);
			size_t k;
			const json_t *cs;
			json_array_foreach(json_object_get(json_object_get(obj, "status"),
							   "containerStatuses"),
					   k, cs)
			{
				const json_t *state = json_object_get(cs, "state");
				const json_t *term = json_object_get(state, "terminated");
				if (json_object_get(state, "running"))
					mark(&x->running, now, &changed);
				else if (term && !x->failed[0]) {
					snprintf(x->failed, sizeof(x->failed),
						 "consumer pod %s: %s: %s", x->pod,
						 jstr(term, "reason") ? jstr(term, "reason")
								      : "ended",
						 jstr(term, "message") ? jstr(term, "message")
								       : "");
					changed = true;
				}
			}
		} else if (kind == BR_LC_PV && x->pv[0] && !strcmp(name, x->pv) &&
			   type == KUBE_EVENT_DELETED) {
			mark(&x->pv_gone, now, &changed);
		} else if (kind == BR_LC_VS && x->snap[0] && !strcmp(name, x->snap)) {
			observe_snapshot(x, type, obj, now, &changed);
		}
	}
	return changed;
}

double br_lc_duration(const struct br_lc_volume *v, enum br_lc_phase p)
{
	double from = 0, to = 0;
	/* a restored claim's provision and delete are restore and restore_delete */
	if (v->source[0])
		p = p == BR_LC_RESTORE		? BR_LC_PROVISION
		    : p == BR_LC_RESTORE_DELETE ? BR_LC_DELETE
						: BR_LC_NPHASES;
	else if (p == BR_LC_RESTORE || p == BR_LC_RESTORE_DELETE)
		return -1;
	switch (p) {
	case BR_LC_PROVISION:
		from = v->wffc ? v->selected : v->created;
		to = v->bound;
		break;
	case BR_LC_ATTACH:
		/* from the later of: on its node, volume bound (Immediate may bind later) */
		from = v->on_node > v->bound ? v->on_node : v->bound;
		to = v->running;
		break;
	case BR_LC_RESIZE:
		from = v->resize_asked;
		to = v->resized;
		break;
	case BR_LC_DELETE:
		from = v->deleted;
		to = v->no_pv ? v->pvc_gone : v->pv_gone;
		break;
	case BR_LC_SNAPSHOT:
		from = v->snap_created;
		to = v->snap_ready;
		break;
	case BR_LC_SNAPSHOT_DELETE:
		from = v->snap_deleted;
		to = v->snap_gone;
		break;
	default:
		return -1;
	}
	if (from <= 0 || to <= 0 || to < from)
		return -1;
	return to - from;
}

/* ------------------------------------------------------------ measurement */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * One batch: v[0..nb) the new claims, v[nb + i] the claim restored from
 * v[i]'s snapshot; the watches look at v[0..n) (n is 2 nb once restored
 * claims exist).
 */
struct lc_run {
	pthread_mutex_t mu;
	pthread_cond_t cond;
	struct br_lc_volume v[2 * BR_LC_MAX_VOLUMES];
	size_t n, nb;
};

struct lc_watch {
	struct lc_run *run;
	enum br_lc_kind kind;
	struct kube_watch *w;
	pthread_t thread;
	bool started;
	int ret;
};

static int watch_cb(enum kube_event_type type, json_t *obj, void *arg)
{
	struct lc_watch *lw = arg;
	double t = now_s();
	pthread_mutex_lock(&lw->run->mu);
	if (br_lc_observe(lw->run->v, lw->run->n, lw->kind, (int)type, obj, t))
		pthread_cond_broadcast(&lw->run->cond);
	pthread_mutex_unlock(&lw->run->mu);
	return 0;
}

static void *watch_main(void *arg)
{
	struct lc_watch *lw = arg;
	struct kube_error err = KUBE_ERROR_INIT;
	lw->ret = kube_watch_run(lw->w, &err);
	return NULL;
}

static bool is_running(const struct br_lc_volume *v);

/*
 * Waits until pred holds for every volume or the deadline passes; 0,
 * -ETIMEDOUT, or -EIO when a consumer pod cannot run (why: its message).
 */
static int wait_all(struct lc_run *r, bool (*pred)(const struct br_lc_volume *), long timeout_s,
		    char *why, size_t whylen)
{
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += timeout_s;
	int ret = 0;
	pthread_mutex_lock(&r->mu);
	for (;;) {
		bool all = true;
		for (size_t i = 0; i < r->n; i++) {
			all = all && pred(&r->v[i]);
			if (r->v[i].failed[0] && pred == is_running && why) {
				snprintf(why, whylen, "%s", r->v[i].failed);
				ret = -EIO;
			}
		}
		if (ret)
			break;
		if (all)
			break;
		if (pthread_cond_timedwait(&r->cond, &r->mu, &dl) == ETIMEDOUT) {
			ret = -ETIMEDOUT;
			break;
		}
	}
	pthread_mutex_unlock(&r->mu);
	return ret;
}

static bool is_running(const struct br_lc_volume *v)
{
	return v->running > 0 && v->bound > 0;
}
static bool is_seen(const struct br_lc_volume *v)
{
	return v->seen > 0;
}
static bool is_resized(const struct br_lc_volume *v)
{
	return v->resized > 0;
}
static bool is_pod_gone(const struct br_lc_volume *v)
{
	return !v->pod_created || v->pod_gone > 0;
}
static bool is_pv_gone(const struct br_lc_volume *v)
{
	return !v->created || (v->no_pv ? v->pvc_gone > 0 : v->pv_gone > 0 || !v->pv[0]);
}
static bool is_snap_ready(const struct br_lc_volume *v)
{
	return !v->snap[0] || v->snap_ready > 0;
}
static bool is_snap_gone(const struct br_lc_volume *v)
{
	return !v->snap_created || v->snap_gone > 0;
}

static json_t *lc_metadata(const struct br_ref *ref, const char *name, const char *cls,
			   unsigned iteration)
{
	char run_label[64], it[16];
	if (sb_name_label(run_label, sizeof(run_label), ref->name))
		return NULL;
	snprintf(it, sizeof(it), "%u", iteration);
	return json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:s,s:s},s:{s:s,s:s},"
			 "s:[{s:s,s:s,s:s,s:s,s:b,s:b}]}",
			 "name", name, "namespace", ref->ns, "labels", SB_LABEL_NAME, SB_APP_NAME,
			 SB_LABEL_COMPONENT, BR_LC_COMPONENT, SB_LABEL_MANAGED_BY, SB_MANAGER,
			 SB_LABEL_RUN, run_label, SB_LABEL_ITERATION, it, "annotations",
			 SB_ANNOT_RUN, ref->name, SB_ANNOT_CLASS, cls, "ownerReferences",
			 "apiVersion", SB_API_VERSION, "kind", SB_KIND, "name", ref->name, "uid",
			 ref->uid, "controller", 1, "blockOwnerDeletion", 1);
}

/*
 * "<run>-<class>-lc<iteration>-<k>" within 63 characters (names.c shortens
 * with a hash), "...-<k>-r" for the claim restored from its snapshot (the
 * snapshot has the claim's name).
 */
static int vol_name(char *out, size_t len, const char *run, const char *cls, unsigned it,
		    unsigned k, bool restored)
{
	char suffix[32];
	snprintf(suffix, sizeof(suffix), "lc%u-%u%s", it, k, restored ? "-r" : "");
	const char *parts[] = {run, cls, suffix};
	return sb_name_join(out, len, 63, parts, 3);
}

int br_lifecycle_cm_name(char *out, size_t len, const char *run, const char *cls,
			 unsigned iteration)
{
	char suffix[32];
	snprintf(suffix, sizeof(suffix), "lc-%u", iteration);
	const char *parts[] = {run, cls, suffix};
	return sb_name_join(out, len, 63, parts, 3);
}

/* The claim: spec.lifecycle.size, or a restored claim's size and its dataSource. */
static json_t *pvc_manifest(const struct br_ref *ref, const struct br_lc_volume *v, const char *cls,
			    const struct br_lifecycle_spec *ls, unsigned it)
{
	char size[32];
	json_t *md = lc_metadata(ref, v->pvc, cls, it);
	if (!md)
		return NULL;
	if (v->request_bytes)
		snprintf(size, sizeof(size), "%llu", v->request_bytes);
	else
		snprintf(size, sizeof(size), "%s", ls->size);
	json_t *pvc =
		json_pack("{s:s,s:s,s:o,s:{s:[s],s:s,s:s,s:{s:{s:s}}}}", "apiVersion", "v1", "kind",
			  "PersistentVolumeClaim", "metadata", md, "spec", "accessModes",
			  ls->access_mode, "storageClassName", cls, "volumeMode", "Filesystem",
			  "resources", "requests", "storage", size);
	if (pvc && v->source[0] &&
	    json_object_set_new(json_object_get(pvc, "spec"), "dataSource",
				json_pack("{s:s,s:s,s:s}", "apiGroup", br_lc_res_snapshots.group,
					  "kind", "VolumeSnapshot", "name", v->source))) {
		json_decref(pvc);
		return NULL;
	}
	return pvc;
}

/*
 * The consumer pod: the runner pod template with its container's command
 * replaced by a sleep, its volumes by the claim, its name and labels ours.
 */
static json_t *pod_manifest(const struct br_ref *ref, const struct br_lc_volume *v, const char *cls,
			    const json_t *tmpl, unsigned it)
{
	json_t *pod = json_deep_copy(tmpl);
	json_t *md = lc_metadata(ref, v->pod, cls, it);
	json_t *spec = json_object_get(pod, "spec");
	json_t *c = json_array_get(json_object_get(spec, "containers"), 0);
	bool ok = pod && md && spec && c && !json_object_set_new(pod, "metadata", md);
	md = NULL;
	if (ok) {
		json_object_del(c, "env");
		json_object_del(c, "volumeDevices");
		json_object_del(spec, "initContainers");
		json_object_set_new(spec, "restartPolicy", json_string("Never"));
		json_object_set_new(spec, "terminationGracePeriodSeconds", json_integer(0));
		ok = !json_object_set_new(c, "name", json_string("consumer")) &&
		     !json_object_set_new(c, "args", json_pack("[s]", SB_RUNNER_IDLE)) &&
		     !json_object_set_new(
			     c, "volumeMounts",
			     json_pack("[{s:s,s:s}]", "name", "data", "mountPath", BR_DATA_DIR)) &&
		     !json_object_set_new(spec, "volumes",
					  json_pack("[{s:s,s:{s:s}}]", "name", "data",
						    "persistentVolumeClaim", "claimName", v->pvc));
	}
	json_decref(md);
	if (!ok) {
		json_decref(pod);
		return NULL;
	}
	return pod;
}

static void delete_quiet(struct kube_client *kc, const struct kube_resource *r, const char *ns,
			 const char *name, long grace)
{
	struct kube_error err = KUBE_ERROR_INIT;
	struct kube_delete_opts d = KUBE_DELETE_OPTS_INIT;
	d.propagation_policy = "Background";
	d.grace_period_seconds = grace;
	(void)kube_delete(kc, r, ns, name, &d, NULL, &err);
}

/* A volume's durations (v's, and the restore phases of restored, which may be NULL). */
static json_t *volume_json(const struct br_lc_volume *v, const struct br_lc_volume *restored,
			   const char *mode)
{
	json_t *o = json_pack("{s:s,s:s}", "name", v->pvc, "mode", mode);
	if (o && v->snap_created > 0 && json_object_set_new(o, "snapshot", json_string(v->snap)))
		goto fail;
	if (o && restored && restored->created > 0 &&
	    json_object_set_new(o, "restored", json_string(restored->pvc)))
		goto fail;
	for (int p = 0; o && p < BR_LC_NPHASES; p++) {
		double d = br_lc_duration(v, (enum br_lc_phase)p);
		if (d < 0 && restored)
			d = br_lc_duration(restored, (enum br_lc_phase)p);
		char key[32];
		snprintf(key, sizeof(key), "%s_ns", phase_names[p]);
		if (d >= 0 && json_object_set_new(o, key, json_integer((json_int_t)(d * 1e9))))
			goto fail;
	}
	return o;
fail:
	json_decref(o);
	return NULL;
}

/* What every step of a batch works with. */
struct lc_batch {
	struct kube_client *kc;
	const struct br_ref *ref;
	const struct br_lifecycle_spec *ls;
	const char *cls;
	const json_t *tmpl; /* the consumer pod's template */
	unsigned it;	    /* the iteration */
	unsigned k0;	    /* the number of the batch's first volume, less one */
	bool resize;
	const char *vsc; /* the VolumeSnapshotClass ("": no snapshots) */
	struct lc_run *run;
	char *err;
	size_t errlen;
};

/*
 * Provision and attach v[from..to): the claims first; their pods once the
 * claims' watch has shown them, so the watch is live before the moments
 * that count (the scheduler's pick). 0 or -errno with err naming the step.
 */
static int step_claims(const struct lc_batch *b, size_t from, size_t to, const char *step)
{
	struct kube_error kerr = KUBE_ERROR_INIT;
	struct lc_run *run = b->run;
	char eb[512];
	int ret = 0;
	for (size_t i = from; i < to && !ret; i++) {
		struct br_lc_volume *v = &run->v[i];
		json_t *pvc = pvc_manifest(b->ref, v, b->cls, b->ls, b->it);
		if (!pvc)
			ret = -ENOMEM;
		else if ((ret = br_proof_sign(pvc, &kube_res_pvcs, b->ref->ns)))
			snprintf(b->err, b->errlen, "signing PVC %s: error %d", v->pvc, ret);
		else if ((ret = kube_create(b->kc, &kube_res_pvcs, b->ref->ns, pvc, NULL, &kerr)))
			snprintf(b->err, b->errlen, "creating PVC %s: %s", v->pvc,
				 kube_error_str(&kerr, eb, sizeof(eb)));
		if (!ret) {
			pthread_mutex_lock(&run->mu);
			v->created = now_s();
			pthread_mutex_unlock(&run->mu);
		}
		json_decref(pvc);
	}
	if (!ret && (ret = wait_all(run, is_seen, b->ls->timeout_s, NULL, 0)))
		snprintf(b->err, b->errlen, "the watch did not show the new PVCs within %lds",
			 b->ls->timeout_s);
	for (size_t i = from; i < to && !ret; i++) {
		struct br_lc_volume *v = &run->v[i];
		json_t *pod = pod_manifest(b->ref, v, b->cls, b->tmpl, b->it);
		if (!pod)
			ret = -ENOMEM;
		else if ((ret = br_proof_sign(pod, &kube_res_pods, b->ref->ns)))
			snprintf(b->err, b->errlen, "signing pod %s: error %d", v->pod, ret);
		else if ((ret = kube_create(b->kc, &kube_res_pods, b->ref->ns, pod, NULL, &kerr)))
			snprintf(b->err, b->errlen, "creating pod %s: %s", v->pod,
				 kube_error_str(&kerr, eb, sizeof(eb)));
		if (!ret) {
			pthread_mutex_lock(&run->mu);
			v->pod_created = now_s();
			pthread_mutex_unlock(&run->mu);
		}
		json_decref(pod);
	}
	if (!ret &&
	    (ret = wait_all(run, is_running, b->ls->timeout_s, b->err, b->errlen)) == -ETIMEDOUT)
		snprintf(b->err, b->errlen,
			 "the volumes were not bound and mounted within %lds (step %s)",
			 b->ls->timeout_s, step);
	return ret;
}

/* Double each new claim's size and wait for the capacity. */
static int step_resize(const struct lc_batch *b)
{
	struct kube_error kerr = KUBE_ERROR_INIT;
	struct lc_run *run = b->run;
	char eb[512], q[48];
	uint64_t size = 0;
	int ret = 0;
	(void)sb_parse_quantity(b->ls->size, &size);
	snprintf(q, sizeof(q), "%llu", (unsigned long long)size * 2);
	for (size_t i = 0; i < run->nb && !ret; i++) {
		struct br_lc_volume *v = &run->v[i];
		json_t *patch = json_pack("{s:{s:{s:{s:s}}}}", "spec", "resources", "requests",
					  "storage", q);
		pthread_mutex_lock(&run->mu);
		v->resize_bytes = size * 2;
		v->resize_asked = now_s();
		pthread_mutex_unlock(&run->mu);
		if (!patch)
			ret = -ENOMEM;
		else if ((ret = kube_patch(b->kc, &kube_res_pvcs, b->ref->ns, v->pvc, patch, NULL,
					   NULL, &kerr)))
			snprintf(b->err, b->errlen, "resizing PVC %s: %s", v->pvc,
				 kube_error_str(&kerr, eb, sizeof(eb)));
		json_decref(patch);
	}
	if (!ret && (ret = wait_all(run, is_resized, b->ls->timeout_s, NULL, 0)))
		snprintf(b->err, b->errlen, "the volumes did not reach their new size within %lds",
			 b->ls->timeout_s);
	return ret;
}

/* A VolumeSnapshot of each new claim (named after it), until each is readyToUse. */
static int step_snapshot(const struct lc_batch *b)
{
	struct kube_error kerr = KUBE_ERROR_INIT;
	struct lc_run *run = b->run;
	char eb[512];
	int ret = 0;
	for (size_t i = 0; i < run->nb && !ret; i++) {
		struct br_lc_volume *v = &run->v[i];
		pthread_mutex_lock(&run->mu);
		snprintf(v->snap, sizeof(v->snap), "%s", v->pvc);
		pthread_mutex_unlock(&run->mu);
		json_t *vs = br_lc_snapshot_manifest(lc_metadata(b->ref, v->snap, b->cls, b->it),
						     v->pvc, b->vsc);
		if (!vs)
			ret = -ENOMEM;
		else if ((ret = kube_create(b->kc, &br_lc_res_snapshots, b->ref->ns, vs, NULL,
					    &kerr)))
			snprintf(b->err, b->errlen, "creating VolumeSnapshot %s: %s", v->snap,
				 kube_error_str(&kerr, eb, sizeof(eb)));
		if (!ret) {
			pthread_mutex_lock(&run->mu);
			v->snap_created = now_s();
			pthread_mutex_unlock(&run->mu);
		}
		json_decref(vs);
	}
	if (!ret && (ret = wait_all(run, is_snap_ready, b->ls->timeout_s, NULL, 0))) {
		char last[300] = "";
		pthread_mutex_lock(&run->mu);
		for (size_t i = 0; i < run->nb && !last[0]; i++)
			if (run->v[i].snap_error[0])
				snprintf(last, sizeof(last), ": VolumeSnapshot %s: %s",
					 run->v[i].snap, run->v[i].snap_error);
		pthread_mutex_unlock(&run->mu);
		snprintf(b->err, b->errlen,
			 "the snapshots were not ready to use within %lds (step snapshot)%s",
			 b->ls->timeout_s, last);
	}
	return ret;
}

/* A claim from each snapshot (v[nb + i] from v[i]'s), provisioned and mounted. */
static int step_restore(const struct lc_batch *b)
{
	struct lc_run *run = b->run;
	uint64_t size = 0;
	int ret = 0;
	(void)sb_parse_quantity(b->ls->size, &size);
	pthread_mutex_lock(&run->mu);
	for (size_t i = 0; i < run->nb && !ret; i++) {
		const struct br_lc_volume *s = &run->v[i];
		struct br_lc_volume *r = &run->v[run->nb + i];
		memset(r, 0, sizeof(*r));
		r->wffc = s->wffc;
		r->no_pv = s->no_pv;
		snprintf(r->source, sizeof(r->source), "%s", s->snap);
		r->request_bytes =
			br_lc_restore_bytes(s->snap_bytes, s->resized > 0 ? s->resize_bytes : size);
		if (vol_name(r->pvc, sizeof(r->pvc), b->ref->name, b->cls, b->it,
			     b->k0 + (unsigned)i + 1, true))
			ret = -ENAMETOOLONG;
		_Static_assert(sizeof(r->pod) == sizeof(r->pvc), "a pod is named after its claim");
		memcpy(r->pod, r->pvc, sizeof(r->pod));
	}
	if (!ret)
		run->n = 2 * run->nb;
	pthread_mutex_unlock(&run->mu);
	if (ret) {
		snprintf(b->err, b->errlen, "restored volume names: too long");
		return ret;
	}
	return step_claims(b, run->nb, 2 * run->nb, "restore");
}

/*
 * Deletes what the batch made, timed: the pods first (a claim stays in use
 * until they are gone), then the snapshots (so that the claims' deletes are
 * timed without them), then the claims. err says what did not go, when
 * report. 0 or -errno.
 */
static int step_delete(const struct lc_batch *b, bool report)
{
	struct lc_run *run = b->run;
	const char *ns = b->ref->ns;
	long t = b->ls->timeout_s;
	for (size_t i = 0; i < run->n; i++)
		delete_quiet(b->kc, &kube_res_pods, ns, run->v[i].pod, 0);
	int rp = wait_all(run, is_pod_gone, t, NULL, 0);
	for (size_t i = 0; i < run->nb; i++) {
		struct br_lc_volume *v = &run->v[i];
		if (!v->snap[0])
			continue;
		/* timed when this measurement made it; deleted in any case */
		pthread_mutex_lock(&run->mu);
		if (v->snap_created > 0)
			v->snap_deleted = now_s();
		pthread_mutex_unlock(&run->mu);
		delete_quiet(b->kc, &br_lc_res_snapshots, ns, v->snap, -1);
	}
	int rs = wait_all(run, is_snap_gone, t, NULL, 0);
	for (size_t i = 0; i < run->n; i++) {
		pthread_mutex_lock(&run->mu);
		run->v[i].deleted = now_s();
		pthread_mutex_unlock(&run->mu);
		delete_quiet(b->kc, &kube_res_pvcs, ns, run->v[i].pvc, -1);
	}
	int rv = rp ? rp : wait_all(run, is_pv_gone, t, NULL, 0);
	if (report && (rp || rs || rv))
		snprintf(b->err, b->errlen, "%s within %lds (step delete)",
			 rp   ? "the consumer pods were not gone"
			 : rs ? "the VolumeSnapshots were not gone"
			      : "the volumes' PVs were not gone",
			 t);
	return rp ? rp : rs ? rs : rv;
}

/* One batch through every step; 0 or -errno with err naming the step. */
static int batch(const struct lc_batch *b)
{
	int ret = step_claims(b, 0, b->run->nb, "provision/attach");
	if (!ret && b->resize)
		ret = step_resize(b);
	if (!ret && b->vsc[0])
		ret = step_snapshot(b);
	if (!ret && b->vsc[0])
		ret = step_restore(b);
	int r2 = step_delete(b, !ret);
	return ret ? ret : r2;
}

static int start_watch(struct kube_client *kc, struct lc_watch *lw, struct lc_run *run,
		       enum br_lc_kind kind, const struct kube_resource *res, const char *ns,
		       const char *selector, const char *rv)
{
	struct kube_watch_opts o = {0};
	o.label_selector = selector;
	o.resource_version = rv;
	lw->run = run;
	lw->kind = kind;
	lw->w = kube_watch_new(kc, res, ns, &o, watch_cb, lw);
	if (!lw->w)
		return -ENOMEM;
	if (pthread_create(&lw->thread, NULL, watch_main, lw)) {
		kube_watch_free(lw->w);
		lw->w = NULL;
		return -EAGAIN;
	}
	lw->started = true;
	return 0;
}

static void stop_watch(struct lc_watch *lw)
{
	if (!lw->started)
		return;
	kube_watch_stop(lw->w);
	pthread_join(lw->thread, NULL);
	kube_watch_free(lw->w);
	lw->started = false;
}

/* The resourceVersion to watch res from (a one-item list). */
static int current_rv(struct kube_client *kc, const struct kube_resource *res, const char *ns,
		      char *rv, size_t len)
{
	struct kube_error kerr = KUBE_ERROR_INIT;
	struct kube_list_opts lo = {NULL, NULL, 1, NULL};
	json_t *l = NULL;
	int r = kube_list(kc, res, ns, &lo, &l, &kerr);
	if (!r) {
		const char *v = jstr(json_object_get(l, "metadata"), "resourceVersion");
		snprintf(rv, len, "%s", v ? v : "");
	}
	json_decref(l);
	return r;
}

/*
 * Whether snapshots of class cls are measured: true with the
 * VolumeSnapshotClass in vsc and the resourceVersion to watch
 * VolumeSnapshots from in rv, or false with the reason in why.
 */
static bool plan_snapshots(struct kube_client *kc, const struct br_ref *ref,
			   const struct br_lifecycle_spec *ls, const char *cls, const json_t *sc,
			   char *vsc, size_t vsclen, char *rv, size_t rvlen, char *why,
			   size_t whylen)
{
	int crc = 0, src = 0;
	json_t *l = NULL;
	if (ls->snapshot) {
		struct kube_error kerr = KUBE_ERROR_INIT;
		struct kube_list_opts lo = {NULL, NULL, 0, NULL};
		crc = kube_list(kc, &br_lc_res_snapshot_classes, NULL, &lo, &l, &kerr);
		if (!crc)
			src = current_rv(kc, &br_lc_res_snapshots, ref->ns, rv, rvlen);
	}
	bool ok = br_lc_snapshot_plan(ls, cls, sc, crc, json_object_get(l, "items"), src, vsc,
				      vsclen, why, whylen);
	json_decref(l);
	return ok;
}

/*
 * The watches of the iteration's claims, pods, PVs (unless they cannot be
 * read: *no_pv) and, when snaps_rv is not NULL, VolumeSnapshots (from that
 * resourceVersion) into w[0..4). 0 or -errno with err saying why.
 */
static int start_watches(struct kube_client *kc, const struct br_ref *ref, struct lc_run *run,
			 unsigned iteration, const char *snaps_rv, struct lc_watch w[4],
			 bool *no_pv, char *err, size_t errlen)
{
	char selector[256], run_label[64], rv[3][64];
	int ret;
	if (sb_name_label(run_label, sizeof(run_label), ref->name))
		return -ENOMEM;
	snprintf(selector, sizeof(selector), "%s=%s,%s=%s,%s=%u", SB_LABEL_RUN, run_label,
		 SB_LABEL_COMPONENT, BR_LC_COMPONENT, SB_LABEL_ITERATION, iteration);
	/* PVs are cluster-wide: the chart does not grant reading them, and then
	 * the delete timing ends when the claim is gone */
	int pvr = current_rv(kc, &kube_res_pvs, NULL, rv[2], sizeof(rv[2]));
	*no_pv = pvr == -EACCES;
	if (*no_pv)
		pvr = 0;
	if ((ret = current_rv(kc, &kube_res_pvcs, ref->ns, rv[0], sizeof(rv[0]))) ||
	    (ret = current_rv(kc, &kube_res_pods, ref->ns, rv[1], sizeof(rv[1]))) || (ret = pvr))
		return sb_errf(err, errlen, ret, "listing PVCs, pods and PVs to watch from: %s",
			       strerror(-ret));
	if ((ret = start_watch(kc, &w[0], run, BR_LC_PVC, &kube_res_pvcs, ref->ns, selector,
			       rv[0])) ||
	    (ret = start_watch(kc, &w[1], run, BR_LC_POD, &kube_res_pods, ref->ns, selector,
			       rv[1])) ||
	    (!*no_pv &&
	     (ret = start_watch(kc, &w[2], run, BR_LC_PV, &kube_res_pvs, NULL, NULL, rv[2]))) ||
	    (snaps_rv && (ret = start_watch(kc, &w[3], run, BR_LC_VS, &br_lc_res_snapshots, ref->ns,
					    selector, snaps_rv))))
		return sb_errf(err, errlen, ret, "starting the watches: %s", strerror(-ret));
	return 0;
}

/*
 * spec.lifecycle.volumes batches of one volume, then one of concurrent,
 * each volume's durations appended to vols. reclaim: the class's
 * reclaimPolicy (NULL: Delete). 0 or -errno with b->err naming the step.
 */
static int measure_batches(struct lc_batch *b, bool wffc, bool no_pv, const char *reclaim,
			   json_t *vols)
{
	struct lc_run *run = b->run;
	bool keeps_pv = reclaim && strcmp(reclaim, "Delete");
	unsigned k = 0;
	int ret = 0;
	for (unsigned bi = 0; bi <= b->ls->volumes && !ret; bi++) {
		unsigned nb = bi < b->ls->volumes ? 1 : b->ls->concurrent;
		if (!nb)
			break;
		b->k0 = k;
		pthread_mutex_lock(&run->mu);
		memset(run->v, 0, sizeof(run->v));
		run->n = run->nb = nb;
		for (unsigned i = 0; i < nb; i++) {
			struct br_lc_volume *v = &run->v[i];
			k++;
			v->wffc = wffc;
			/* a Retain PV stays: wait for the claim only */
			v->no_pv = no_pv || keeps_pv;
			if (vol_name(v->pvc, sizeof(v->pvc), b->ref->name, b->cls, b->it, k, false))
				ret = -ENAMETOOLONG;
			snprintf(v->pod, sizeof(v->pod), "%s", v->pvc);
		}
		pthread_mutex_unlock(&run->mu);
		if (ret) {
			snprintf(b->err, b->errlen, "volume names: too long");
			break;
		}
		ret = batch(b);
		pthread_mutex_lock(&run->mu);
		for (size_t i = 0; i < run->n; i++)
			if (keeps_pv)
				run->v[i].pv_gone = run->v[i].pvc_gone = 0; /* not a delete time */
		for (unsigned i = 0; i < nb; i++) {
			json_t *vj = volume_json(&run->v[i], run->n > nb ? &run->v[nb + i] : NULL,
						 bi < b->ls->volumes ? "sequential" : "concurrent");
			if (!vj || json_array_append_new(vols, vj))
				ret = -ENOMEM;
		}
		pthread_mutex_unlock(&run->mu);
	}
	return ret;
}

int br_lifecycle_measure(struct kube_client *kc, const struct br_ref *ref,
			 const struct br_lifecycle_spec *ls, const char *cls, const json_t *sc,
			 const json_t *pod_template, unsigned iteration, json_t **result, char *err,
			 size_t errlen)
{
	struct lc_run *run = calloc(1, sizeof(*run));
	struct lc_watch w[4];
	char resize_skip[256] = "", snap_skip[512] = "", vsc[254] = "", snaps_rv[64] = "";
	json_t *vols = json_array();
	bool no_pv = false;
	int ret = 0;

	*result = NULL;
	memset(w, 0, sizeof(w));
	if (!run || !vols) {
		free(run);
		json_decref(vols);
		return -ENOMEM;
	}
	pthread_mutex_init(&run->mu, NULL);
	pthread_cond_init(&run->cond, NULL);
	const char *mode = jstr(sc, "volumeBindingMode");
	bool wffc = mode && !strcmp(mode, "WaitForFirstConsumer");
	const char *reclaim = jstr(sc, "reclaimPolicy");
	if (!ls->resize)
		snprintf(resize_skip, sizeof(resize_skip), "spec.lifecycle.resize is false");
	else if (!json_is_true(json_object_get(sc, "allowVolumeExpansion")))
		snprintf(resize_skip, sizeof(resize_skip),
			 "class %s does not allow volume expansion (allowVolumeExpansion is not "
			 "true)",
			 cls);
	if (!plan_snapshots(kc, ref, ls, cls, sc, vsc, sizeof(vsc), snaps_rv, sizeof(snaps_rv),
			    snap_skip, sizeof(snap_skip)))
		vsc[0] = '\0';
	struct lc_batch b = {kc,  ref, ls,  cls,   pod_template, iteration, 0, !resize_skip[0],
			     vsc, run, err, errlen};
	if (!(ret = start_watches(kc, ref, run, iteration, vsc[0] ? snaps_rv : NULL, w, &no_pv, err,
				  errlen)))
		ret = measure_batches(&b, wffc, no_pv, reclaim, vols);
	for (int i = 0; i < 4; i++)
		stop_watch(&w[i]);
	if (ret != -ENOMEM) {
		json_t *skipped = json_object();
		if (skipped && resize_skip[0])
			json_object_set_new(skipped, "resize", json_string(resize_skip));
		if (skipped && snap_skip[0])
			json_object_set_new(skipped, "snapshot", json_string(snap_skip));
		if (skipped && reclaim && strcmp(reclaim, "Delete"))
			json_object_set_new(
				skipped, "delete",
				json_string("reclaimPolicy is not Delete: the PV stays"));
		*result = json_pack("{s:s,s:I,s:s,s:s,s:O,s:o}", "class", cls, "iteration",
				    (json_int_t)iteration, "bindingMode",
				    wffc ? "WaitForFirstConsumer" : "Immediate", "deleteEnds",
				    no_pv ? "claim gone (no right to read PVs)" : "PV gone",
				    "volumes", vols, "skipped", skipped);
		if (*result && vsc[0])
			json_object_set_new(*result, "volumeSnapshotClass", json_string(vsc));
		if (*result && ret)
			json_object_set_new(*result, "error", json_string(err));
		if (!*result)
			ret = -ENOMEM;
		else if (ret && json_array_size(vols) > 0)
			ret = 0; /* measured in part: the result says what failed */
	}
	json_decref(vols);
	pthread_cond_destroy(&run->cond);
	pthread_mutex_destroy(&run->mu);
	free(run);
	return ret;
}

json_t *br_lifecycle_cm_manifest(const struct br_ref *ref, const char *cls, unsigned iteration,
				 const json_t *doc)
{
	char name[254];
	if (br_lifecycle_cm_name(name, sizeof(name), ref->name, cls, iteration))
		return NULL;
	json_t *md = lc_metadata(ref, name, cls, iteration);
	char *text = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
	json_t *cm = md && text ? json_pack("{s:s,s:s,s:O,s:{s:s}}", "apiVersion", "v1", "kind",
					    "ConfigMap", "metadata", md, "data", BR_LC_KEY, text)
				: NULL;
	json_decref(md);
	free(text);
	return cm;
}

/* --------------------------------------------------------------- report */

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double br_lc_percentile(const double *v, size_t n, double p)
{
	if (!n)
		return 0;
	double *s = malloc(n * sizeof(*s));
	if (!s)
		return 0;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_d);
	double rank = ceil(p / 100.0 * (double)n);
	size_t i = rank < 1 ? 0 : (size_t)rank - 1;
	if (i >= n)
		i = n - 1;
	double r = s[i];
	free(s);
	return r;
}

/* Whether a document before docs[d] is of the same class. */
static bool seen_class(const json_t *const *docs, size_t d)
{
	const char *t = jstr(docs[d], "class");
	for (size_t e = 0; t && e < d; e++)
		if (jstr(docs[e], "class") && !strcmp(jstr(docs[e], "class"), t))
			return true;
	return false;
}

/* Appends the statistics of one target and phase from docs; false on ENOMEM. */
static bool phase_stats(const json_t *const *docs, size_t n, const char *target, enum br_lc_phase p,
			json_t *out)
{
	char key[32];
	size_t cap = 0, m = 0;
	double *v = NULL;
	snprintf(key, sizeof(key), "%s_ns", phase_names[p]);
	for (size_t d = 0; d < n; d++) {
		if (strcmp(jstr(docs[d], "class") ? jstr(docs[d], "class") : "", target))
			continue;
		size_t i;
		const json_t *vol;
		json_array_foreach(json_object_get(docs[d], "volumes"), i, vol)
		{
			const json_t *x = json_object_get(vol, key);
			if (!json_is_number(x))
				continue;
			if (m == cap) {
				cap = cap ? cap * 2 : 16;
				double *nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					free(v);
					return false;
				}
				v = nv;
			}
			v[m++] = json_number_value(x);
		}
	}
	bool ok = true;
	if (m > 0) {
		struct sb_summary s;
		json_t *samples = json_array();
		for (size_t i = 0; samples && i < m; i++)
			if (json_array_append_new(samples, json_real(v[i])))
				ok = false;
		ok = ok && samples && !sb_summary_compute(v, m, &s) &&
		     !json_array_append_new(
			     out, json_pack("{s:s,s:s,s:s,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:I,s:O}",
					    "target", target, "phase", phase_names[p], "unit", "ns",
					    "mean", s.mean, "stddev", s.stddev, "min", s.min, "max",
					    s.max, "p50", br_lc_percentile(v, m, 50), "p95",
					    br_lc_percentile(v, m, 95), "p99",
					    br_lc_percentile(v, m, 99), "n", (json_int_t)m,
					    "samples", samples));
		json_decref(samples);
	}
	free(v);
	if (!ok || m > 0)
		return ok;
	/* no sample: the first reason a document gives */
	for (size_t d = 0; d < n; d++) {
		if (strcmp(jstr(docs[d], "class") ? jstr(docs[d], "class") : "", target))
			continue;
		const char *why = jstr(json_object_get(docs[d], "skipped"), phase_names[p]);
		if (why)
			return !json_array_append_new(
				out, json_pack("{s:s,s:s,s:s}", "target", target, "phase",
					       phase_names[p], "skipped", why));
	}
	return true;
}

json_t *br_lifecycle_report(const json_t *const *docs, size_t n)
{
	json_t *out = json_array();
	bool ok = out != NULL;
	for (size_t d = 0; ok && d < n; d++) {
		const char *t = jstr(docs[d], "class");
		if (!t || seen_class(docs, d))
			continue;
		for (int p = 0; ok && p < BR_LC_NPHASES; p++)
			ok = phase_stats(docs, n, t, (enum br_lc_phase)p, out);
		for (size_t e = 0; ok && e < n; e++) {
			const char *msg = jstr(docs[e], "error");
			const char *te = jstr(docs[e], "class");
			if (msg && te && !strcmp(te, t))
				ok = !json_array_append_new(
					out, json_pack("{s:s,s:s,s:I,s:s}", "target", t, "phase",
						       "error", "iteration",
						       json_integer_value(json_object_get(
							       docs[e], "iteration")),
						       "message", msg));
		}
	}
	if (!ok) {
		json_decref(out);
		return NULL;
	}
	return out;
}

/* ---------------------------------------------------------- reconcile hook */

static bool owned(const json_t *obj, const char *uid)
{
	size_t i;
	const json_t *r;
	json_array_foreach(json_object_get(json_object_get(obj, "metadata"), "ownerReferences"), i,
			   r)
	{
		const char *u = jstr(r, "uid");
		if (u && !strcmp(u, uid))
			return true;
	}
	return false;
}

/* Whether the result ConfigMap name exists for this run: the cache, else the API. */
static int have_result(const struct br_ops *ops, const struct br_ref *ref, const char *name)
{
	json_t *cm = ops->cache_get(ops->arg, BR_CACHE_CMS, ref->ns, name);
	if (!cm) {
		struct kube_error kerr = KUBE_ERROR_INIT;
		int r = ops->get(ops->arg, &kube_res_configmaps, ref->ns, name, &cm, &kerr);
		if (r == -ENOENT)
			return 0;
		if (r)
			return r;
	}
	bool mine = owned(cm, ref->uid);
	json_decref(cm);
	return mine ? 1 : 0;
}

/* A one-line summary of a lifecycle document for the Event. */
static void describe(const json_t *doc, char *out, size_t len)
{
	size_t n = json_array_size(json_object_get(doc, "volumes"));
	double prov = 0;
	size_t np = 0, i;
	const json_t *v;
	json_array_foreach(json_object_get(doc, "volumes"), i, v)
	{
		const json_t *p = json_object_get(v, "provision_ns");
		if (json_is_number(p)) {
			prov += json_number_value(p);
			np++;
		}
	}
	const char *e = jstr(doc, "error");
	snprintf(out, len, "%zu volumes, mean provisioning %.0fms%s%s", n,
		 np ? prov / (double)np / 1e6 : 0.0, e ? "; failed: " : "", e ? e : "");
}

int br_lifecycle_step(const struct br_ops *ops, const struct br_ref *ref, const struct br_spec *s,
		      const json_t *run, char *event, size_t eventlen, char *err, size_t errlen)
{
	const struct br_lifecycle_spec *ls = &s->lifecycle;
	event[0] = '\0';
	if (!ls->enabled)
		return 0;
	/* before the I/O only: a run whose status has started is past it */
	if (jstr(json_object_get(run, "status"), "startTime"))
		return 0;
	for (size_t i = 0; i < s->nclasses; i++) {
		if (br_objstore_find(s->obj, s->classes[i]))
			continue; /* an object store has no volumes */
		for (unsigned it = 1; it <= ls->iterations; it++) {
			char name[64];
			if (br_lifecycle_cm_name(name, sizeof(name), ref->name, s->classes[i], it))
				return sb_errf(err, errlen, -EINVAL,
					       "lifecycle result name too long");
			int h = have_result(ops, ref, name);
			if (h < 0) {
				snprintf(err, errlen, "reading configmap %s: %s", name,
					 strerror(-h));
				return h;
			}
			if (h)
				continue;
			json_t *sc = ops->cache_get(ops->arg, BR_CACHE_SCS, NULL, s->classes[i]);
			json_t *tmpl = br_pod_manifest(ref, s, s->classes[i], 1, s->iterations);
			json_t *doc = NULL;
			char merr[512] = "";
			int r = tmpl ? 0 : -ENOMEM;
			if (!r && !sc) {
				doc = json_pack("{s:s,s:I,s:[],s:{},s:s}", "class", s->classes[i],
						"iteration", (json_int_t)it, "volumes", "skipped",
						"error", "storage class not found");
				r = doc ? 0 : -ENOMEM;
			} else if (!r) {
				r = ops->lifecycle_measure(ops->arg, ref, ls, s->classes[i], sc,
							   tmpl, it, &doc, merr, sizeof(merr));
			}
			json_decref(sc);
			json_decref(tmpl);
			if (r && !doc) {
				snprintf(err, errlen, "lifecycle of %s, iteration %u: %s",
					 s->classes[i], it, merr[0] ? merr : strerror(-r));
				return r;
			}
			json_t *cm = br_lifecycle_cm_manifest(ref, s->classes[i], it, doc);
			char desc[400];
			describe(doc, desc, sizeof(desc));
			json_decref(doc);
			struct kube_error kerr = KUBE_ERROR_INIT;
			r = br_proof_create(ops, &kube_res_configmaps, ref->ns, cm, &kerr);
			json_decref(cm);
			if (r && r != -EEXIST) {
				char eb[400];
				snprintf(err, errlen, "creating configmap %s: %s", name,
					 kube_error_str(&kerr, eb, sizeof(eb)));
				return r;
			}
			snprintf(event, eventlen, "%s: lifecycle iteration %u of %u: %s",
				 s->classes[i], it, ls->iterations, desc);
			return 1;
		}
	}
	return 0;
}

json_t *br_lifecycle_docs(const struct br_ref *ref, const json_t *cms)
{
	char run_label[64];
	json_t *out = json_array();
	if (!out || sb_name_label(run_label, sizeof(run_label), ref->name)) {
		json_decref(out);
		return NULL;
	}
	size_t i;
	const json_t *cm;
	json_array_foreach(cms, i, cm)
	{
		const json_t *md = json_object_get(cm, "metadata");
		const json_t *labels = json_object_get(md, "labels");
		const char *comp = jstr(labels, SB_LABEL_COMPONENT),
			   *rl = jstr(labels, SB_LABEL_RUN);
		const char *ns = jstr(md, "namespace");
		if (!comp || strcmp(comp, BR_LC_COMPONENT) || !rl || strcmp(rl, run_label) || !ns ||
		    strcmp(ns, ref->ns) || !owned(cm, ref->uid))
			continue;
		const char *text = jstr(json_object_get(cm, "data"), BR_LC_KEY);
		json_t *doc = text ? json_loads(text, 0, NULL) : NULL;
		if (doc && json_is_object(doc) && json_is_string(json_object_get(doc, "class")))
			json_array_append(out, doc);
		json_decref(doc);
	}
	return out;
}

int br_lifecycle_annotate(json_t *report, const json_t *docs)
{
	size_t n = json_array_size(docs);
	if (!n)
		return 0;
	const json_t **d = calloc(n, sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		d[i] = json_array_get(docs, i);
	json_t *sec = br_lifecycle_report(d, n);
	free(d);
	if (!sec || json_object_set_new(report, "lifecycle", sec))
		return -ENOMEM;
	return 0;
}
