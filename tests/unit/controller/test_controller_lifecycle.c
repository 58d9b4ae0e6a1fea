/* SPDX-License-Identifier: MIT */
/*
 * Lifecycle timings (controller/lifecycle/lifecycle.c), the parts without a cluster:
 * spec.lifecycle and spec.validity parsing, the watch-event bookkeeping
 * on a fake clock (which moment each event records, WaitForFirstConsumer
 * from the scheduler's pick, a snapshot and the claim restored from it),
 * the choice of VolumeSnapshotClass (controller/lifecycle/snapshot.c),
 * percentiles, and the report section (statistics, skipped phases with
 * their reason, failed iterations, the snapshot phases).
 */
#include "tests/unit/harness.h"
#include "tests/unit/spec_helpers.h"
#include "controller/lifecycle/lifecycle.h"
#include "controller/lifecycle/snapshot.h"
#include "kube/kube.h"

#include <errno.h>
#include <jansson.h>

#define BASE "{\"storageClasses\":[\"fast\",\"slow\"],\"profile\":\"quick\","

static int test_spec_defaults_and_values(void)
{
	struct br_spec s;
	char err[512] = "";
	CHECK_INT(parse(BASE "\"iterations\":4,\"volume\":{\"size\":\"2Gi\"},\"lifecycle\":{}}", &s,
			err, sizeof(err)),
		  0);
	CHECK(s.lifecycle.enabled);
	CHECK_INT(s.lifecycle.iterations, 4);
	CHECK_INT(s.lifecycle.volumes, 3);
	CHECK_INT(s.lifecycle.concurrent, 0);
	CHECK_STR(s.lifecycle.size, "2Gi");
	CHECK_STR(s.lifecycle.access_mode, "ReadWriteOnce");
	CHECK(s.lifecycle.resize);
	CHECK(s.lifecycle.snapshot);		   /* measured where the cluster can */
	CHECK_STR(s.lifecycle.snapshot_class, ""); /* the provisioner's default class */
	br_spec_release(&s);
	CHECK_INT(parse(BASE "\"lifecycle\":{\"iterations\":2,\"volumes\":0,\"concurrent\":5,"
			     "\"size\":\"16Mi\",\"resize\":false}}",
			&s, err, sizeof(err)),
		  0);
	CHECK_INT(s.lifecycle.iterations, 2);
	CHECK_INT(s.lifecycle.volumes, 0);
	CHECK_INT(s.lifecycle.concurrent, 5);
	CHECK_STR(s.lifecycle.size, "16Mi");
	CHECK(!s.lifecycle.resize);
	CHECK(s.lifecycle.snapshot);
	br_spec_release(&s);
	CHECK_INT(parse(BASE "\"lifecycle\":{\"snapshot\":true,\"volumeSnapshotClass\":"
			     "\"ceph-rbd.v2\"}}",
			&s, err, sizeof(err)),
		  0);
	CHECK(s.lifecycle.snapshot);
	CHECK_STR(s.lifecycle.snapshot_class, "ceph-rbd.v2");
	br_spec_release(&s);
	CHECK_INT(parse(BASE "\"lifecycle\":{\"snapshot\":false}}", &s, err, sizeof(err)), 0);
	CHECK(!s.lifecycle.snapshot);
	br_spec_release(&s);
	/* not asked: disabled */
	CHECK_INT(parse(BASE "\"iterations\":4}", &s, err, sizeof(err)), 0);
	CHECK(!s.lifecycle.enabled);
	br_spec_release(&s);
	return T_PASS;
}

static int test_spec_refusals_name_the_field(void)
{
	static const char *const cases[][2] = {
		{"{\"volumes\":0,\"concurrent\":0}",
		 "spec.lifecycle: volumes and concurrent are both 0"},
		{"{\"volumes\":21}", "spec.lifecycle.volumes: must be an integer from 0 to 20"},
		{"{\"iterations\":0}", "spec.lifecycle.iterations"},
		{"{\"size\":\"big\"}", "spec.lifecycle.size: must be a quantity"},
		{"{\"resize\":\"yes\"}", "spec.lifecycle.resize: must be true or false"},
		{"{\"snapshots\":true}",
		 "spec.lifecycle.snapshots: unknown field (iterations, volumes, "
		 "concurrent, size, resize, snapshot, volumeSnapshotClass)"},
		{"{\"snapshot\":1}", "spec.lifecycle.snapshot: must be true or false"},
		{"{\"volumeSnapshotClass\":\"Ceph_RBD\"}",
		 "spec.lifecycle.volumeSnapshotClass: must be a VolumeSnapshotClass name"},
		{"{\"volumeSnapshotClass\":\"-x\"}", "spec.lifecycle.volumeSnapshotClass: must be"},
		{"{\"volumeSnapshotClass\":\"\"}", "spec.lifecycle.volumeSnapshotClass: must be"},
		{"{\"volumeSnapshotClass\":7}", "spec.lifecycle.volumeSnapshotClass: must be"},
		{"{\"snapshot\":false,\"volumeSnapshotClass\":\"ceph-rbd\"}",
		 "spec.lifecycle.volumeSnapshotClass: set, but spec.lifecycle.snapshot is false"},
		{"[]", "spec.lifecycle: must be an object"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[512];
		snprintf(text, sizeof(text), BASE "\"lifecycle\":%s}", cases[i][0]);
		int r = expect_invalid(text, cases[i][1]);
		if (r)
			return r;
	}
	return T_PASS;
}

static int test_validity_spec(void)
{
	struct br_spec s;
	char err[512] = "";
	int r;
	CHECK_INT(parse(BASE "\"validity\":{\"baselineClass\":\"slow\",\"cvPercent\":15,"
			     "\"maxFactor\":20}}",
			&s, err, sizeof(err)),
		  0);
	CHECK_STR(s.validity_baseline, "slow");
	CHECK(fabs(s.validity_cv - 0.15) < 1e-12);
	CHECK(fabs(s.validity_factor - 20) < 1e-12);
	br_spec_release(&s);
	if ((r = expect_invalid(BASE "\"validity\":{\"baselineClass\":\"nvme\"}}",
				"spec.validity.baselineClass: 'nvme' is not one of "
				"spec.storageClasses")) ||
	    (r = expect_invalid(BASE "\"validity\":{\"cvPercent\":0}}",
				"spec.validity.cvPercent: must be a number from 1 to 1000")) ||
	    (r = expect_invalid(BASE "\"validity\":{\"maxFactor\":1}}", "spec.validity.maxFactor")))
		return r;
	return T_PASS;
}

static json_t *obj(const char *text)
{
	return json_loads(text, 0, NULL);
}

/* Feeds one event (text) at time t; returns whether it recorded something. */
static bool feed(struct br_lc_volume *v, size_t n, enum br_lc_kind k, int type, const char *text,
		 double t)
{
	json_t *o = obj(text);
	bool r = o && br_lc_observe(v, n, k, type, o, t);
	json_decref(o);
	return r;
}

static int test_events_wffc(void)
{
	struct br_lc_volume v[2];
	memset(v, 0, sizeof(v));
	snprintf(v[0].pvc, sizeof(v[0].pvc), "a");
	snprintf(v[0].pod, sizeof(v[0].pod), "a");
	snprintf(v[1].pvc, sizeof(v[1].pvc), "b");
	snprintf(v[1].pod, sizeof(v[1].pod), "b");
	v[0].wffc = v[1].wffc = true;
	v[0].created = 10.0;
	/* pending, then the scheduler's pick, then Bound: provision counts from the pick */
	/* the first event shows the watch is live; it is no moment of the volume's */
	CHECK(feed(v, 2, BR_LC_PVC, KUBE_EVENT_ADDED,
		   "{\"metadata\":{\"name\":\"a\"},\"status\":{\"phase\":\"Pending\"}}", 10.1));
	CHECK(v[0].seen == 10.1 && v[0].selected == 0 && v[0].bound == 0);
	CHECK(!feed(v, 2, BR_LC_PVC, KUBE_EVENT_MODIFIED,
		    "{\"metadata\":{\"name\":\"a\"},\"status\":{\"phase\":\"Pending\"}}", 10.2));
	CHECK(feed(v, 2, BR_LC_PVC, KUBE_EVENT_MODIFIED,
		   "{\"metadata\":{\"name\":\"a\",\"annotations\":{\"volume.kubernetes.io/"
		   "selected-node\":\"n1\"}},\"status\":{\"phase\":\"Pending\"}}",
		   11.0));
	CHECK(feed(v, 2, BR_LC_PVC, KUBE_EVENT_MODIFIED,
		   "{\"metadata\":{\"name\":\"a\",\"annotations\":{\"volume.kubernetes.io/"
		   "selected-node\":\"n1\"}},\"spec\":{\"volumeName\":\"pv-a\"},"
		   "\"status\":{\"phase\":\"Bound\",\"capacity\":{\"storage\":\"1Gi\"}}}",
		   11.5));
	/* a repeat does not move the moment */
	CHECK(!feed(v, 2, BR_LC_PVC, KUBE_EVENT_MODIFIED,
		    "{\"metadata\":{\"name\":\"a\"},\"status\":{\"phase\":\"Bound\"}}", 20.0));
	CHECK_STR(v[0].pv, "pv-a");
	CHECK(fabs(br_lc_duration(&v[0], BR_LC_PROVISION) - 0.5) < 1e-9);
	/* the pod: on its node, then running */
	CHECK(feed(v, 2, BR_LC_POD, KUBE_EVENT_MODIFIED,
		   "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"nodeName\":\"n1\"}}", 11.6));
	CHECK(br_lc_duration(&v[0], BR_LC_ATTACH) < 0); /* not running yet */
	CHECK(feed(v, 2, BR_LC_POD, KUBE_EVENT_MODIFIED,
		   "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"nodeName\":\"n1\"},\"status\":{"
		   "\"containerStatuses\":[{\"state\":{\"running\":{}}}]}}",
		   12.6));
	CHECK(fabs(br_lc_duration(&v[0], BR_LC_ATTACH) - 1.0) < 1e-9);
	/* resize: the capacity reaching the size asked */
	v[0].resize_asked = 13.0;
	v[0].resize_bytes = 2ULL << 30;
	CHECK(!feed(v, 2, BR_LC_PVC, KUBE_EVENT_MODIFIED,
		    "{\"metadata\":{\"name\":\"a\"},\"status\":{\"phase\":\"Bound\",\"capacity\":{"
		    "\"storage\":\"1Gi\"}}}",
		    13.5));
	CHECK(feed(v, 2, BR_LC_PVC, KUBE_EVENT_MODIFIED,
		   "{\"metadata\":{\"name\":\"a\"},\"status\":{\"phase\":\"Bound\",\"capacity\":{"
		   "\"storage\":\"2Gi\"}}}",
		   14.25));
	CHECK(fabs(br_lc_duration(&v[0], BR_LC_RESIZE) - 1.25) < 1e-9);
	/* delete: pod gone, then the PV's DELETED (not another PV's) */
	CHECK(feed(v, 2, BR_LC_POD, KUBE_EVENT_DELETED, "{\"metadata\":{\"name\":\"a\"}}", 15.0));
	v[0].deleted = 15.1;
	CHECK(!feed(v, 2, BR_LC_PV, KUBE_EVENT_DELETED, "{\"metadata\":{\"name\":\"pv-x\"}}",
		    15.5));
	CHECK(!feed(v, 2, BR_LC_PV, KUBE_EVENT_MODIFIED, "{\"metadata\":{\"name\":\"pv-a\"}}",
		    15.6));
	CHECK(feed(v, 2, BR_LC_PV, KUBE_EVENT_DELETED, "{\"metadata\":{\"name\":\"pv-a\"}}", 16.1));
	CHECK(fabs(br_lc_duration(&v[0], BR_LC_DELETE) - 1.0) < 1e-9);
	/* the other volume saw nothing */
	CHECK(v[1].selected == 0 && v[1].bound == 0 && v[1].pod_gone == 0);
	CHECK(br_lc_duration(&v[1], BR_LC_PROVISION) < 0);
	return T_PASS;
}

static int test_events_immediate_and_failed_pod(void)
{
	struct br_lc_volume v;
	memset(&v, 0, sizeof(v));
	snprintf(v.pvc, sizeof(v.pvc), "c");
	snprintf(v.pod, sizeof(v.pod), "c");
	v.created = 5.0;
	CHECK(feed(&v, 1, BR_LC_PVC, KUBE_EVENT_MODIFIED,
		   "{\"metadata\":{\"name\":\"c\"},\"status\":{\"phase\":\"Bound\"}}", 5.25));
	/* Immediate: from the create */
	CHECK(fabs(br_lc_duration(&v, BR_LC_PROVISION) - 0.25) < 1e-9);
	CHECK(feed(&v, 1, BR_LC_POD, KUBE_EVENT_MODIFIED,
		   "{\"metadata\":{\"name\":\"c\"},\"status\":{\"containerStatuses\":[{\"state\":{"
		   "\"terminated\":{\"reason\":\"StartError\",\"message\":\"exec: no such "
		   "file\"}}}]}}",
		   6.0));
	CHECK(strstr(v.failed, "StartError") && strstr(v.failed, "exec: no such file"));
	CHECK(v.running == 0);
	/* without PVs to read, delete ends when the claim is gone */
	v.no_pv = true;
	v.deleted = 7.0;
	CHECK(feed(&v, 1, BR_LC_PVC, KUBE_EVENT_DELETED, "{\"metadata\":{\"name\":\"c\"}}", 7.5));
	CHECK(fabs(br_lc_duration(&v, BR_LC_DELETE) - 0.5) < 1e-9);
	v.no_pv = false; /* with them, the PV's deletion counts (not seen yet) */
	CHECK(br_lc_duration(&v, BR_LC_DELETE) < 0);
	return T_PASS;
}

static int test_percentile(void)
{
	double v[] = {5, 1, 4, 2, 3, 10, 9, 8, 7, 6};
	CHECK(br_lc_percentile(v, 10, 50) == 5);
	CHECK(br_lc_percentile(v, 10, 95) == 10);
	CHECK(br_lc_percentile(v, 10, 99) == 10);
	CHECK(br_lc_percentile(v, 10, 10) == 1);
	CHECK(br_lc_percentile(v, 1, 99) == 5);
	CHECK(br_lc_percentile(v, 0, 50) == 0);
	return T_PASS;
}

static int test_report_section(void)
{
	json_t *d1 =
		obj("{\"class\":\"fast\",\"iteration\":1,\"volumes\":["
		    "{\"name\":\"v1\",\"provision_ns\":100,\"attach_ns\":1000,\"delete_ns\":10},"
		    "{\"name\":\"v2\",\"provision_ns\":300,\"attach_ns\":3000,\"delete_ns\":30}],"
		    "\"skipped\":{\"resize\":\"class fast does not allow volume expansion\","
		    "\"snapshot\":\"the cluster has no snapshot.storage.k8s.io API\"}}");
	json_t *d2 =
		obj("{\"class\":\"fast\",\"iteration\":2,\"volumes\":["
		    "{\"name\":\"v1\",\"provision_ns\":200,\"attach_ns\":2000,\"delete_ns\":20}],"
		    "\"skipped\":{\"snapshot\":\"x\"},\"error\":\"timed out\"}");
	json_t *d3 = obj("{\"class\":\"slow\",\"iteration\":1,\"volumes\":[],\"skipped\":{},"
			 "\"error\":\"storage class not found\"}");
	CHECK(d1 && d2 && d3);
	const json_t *docs[] = {d1, d2, d3};
	json_t *r = br_lifecycle_report(docs, 3);
	CHECK(r);
	const json_t *prov = NULL, *resize = NULL, *snap = NULL, *err_fast = NULL, *err_slow = NULL;
	size_t i;
	json_t *e;
	json_array_foreach(r, i, e)
	{
		const char *t = json_string_value(json_object_get(e, "target"));
		const char *p = json_string_value(json_object_get(e, "phase"));
		if (!strcmp(t, "fast") && !strcmp(p, "provision"))
			prov = e;
		if (!strcmp(t, "fast") && !strcmp(p, "resize"))
			resize = e;
		if (!strcmp(t, "fast") && !strcmp(p, "snapshot"))
			snap = e;
		if (!strcmp(t, "fast") && !strcmp(p, "error"))
			err_fast = e;
		if (!strcmp(t, "slow") && !strcmp(p, "error"))
			err_slow = e;
	}
	CHECK(prov && resize && snap && err_fast && err_slow);
	CHECK_INT(json_integer_value(json_object_get(prov, "n")), 3);
	CHECK(fabs(json_number_value(json_object_get(prov, "mean")) - 200) < 1e-9);
	CHECK(fabs(json_number_value(json_object_get(prov, "stddev")) - 100) < 1e-9);
	CHECK(json_number_value(json_object_get(prov, "p50")) == 200);
	CHECK(json_number_value(json_object_get(prov, "p99")) == 300);
	CHECK(json_number_value(json_object_get(prov, "min")) == 100);
	CHECK_STR(json_string_value(json_object_get(resize, "skipped")),
		  "class fast does not allow volume expansion");
	CHECK(strstr(json_string_value(json_object_get(snap, "skipped")),
		     "snapshot.storage.k8s.io"));
	CHECK_INT(json_integer_value(json_object_get(err_fast, "iteration")), 2);
	CHECK_STR(json_string_value(json_object_get(err_slow, "message")),
		  "storage class not found");
	json_decref(r);
	json_decref(d1);
	json_decref(d2);
	json_decref(d3);
	return T_PASS;
}

static int test_cm_name(void)
{
	char n[64];
	CHECK_INT(br_lifecycle_cm_name(n, sizeof(n), "run", "fast", 3), 0);
	CHECK_STR(n, "run-fast-lc-3");
	CHECK_STR(br_lc_phase_name(BR_LC_DELETE), "delete");
	return T_PASS;
}

static int test_events_snapshot_and_restore(void)
{
	struct br_lc_volume v[2];
	memset(v, 0, sizeof(v));
	snprintf(v[0].pvc, sizeof(v[0].pvc), "a");
	snprintf(v[0].snap, sizeof(v[0].snap), "a");
	v[0].snap_created = 20.0;
	/* a claim's event is not its snapshot's, nor the other way round */
	CHECK(!feed(v, 1, BR_LC_VS, KUBE_EVENT_MODIFIED,
		    "{\"metadata\":{\"name\":\"b\"},\"status\":{\"readyToUse\":true}}", 20.1));
	CHECK(feed(v, 1, BR_LC_PVC, KUBE_EVENT_MODIFIED, "{\"metadata\":{\"name\":\"a\"}}", 20.1));
	CHECK(v[0].snap_ready == 0);
	/* an error (the latest kept), not ready; then ready with its size */
	CHECK(feed(v, 1, BR_LC_VS, KUBE_EVENT_MODIFIED,
		   "{\"metadata\":{\"name\":\"a\"},\"status\":{\"readyToUse\":false,\"error\":{"
		   "\"message\":\"claim a is not bound\"}}}",
		   20.2));
	CHECK_STR(v[0].snap_error, "claim a is not bound");
	CHECK(!feed(v, 1, BR_LC_VS, KUBE_EVENT_MODIFIED,
		    "{\"metadata\":{\"name\":\"a\"},\"status\":{\"readyToUse\":false,\"error\":{"
		    "\"message\":\"claim a is not bound\"}}}",
		    20.3));
	CHECK(br_lc_duration(&v[0], BR_LC_SNAPSHOT) < 0);
	CHECK(feed(v, 1, BR_LC_VS, KUBE_EVENT_MODIFIED,
		   "{\"metadata\":{\"name\":\"a\"},\"status\":{\"readyToUse\":true,"
		   "\"restoreSize\":\"640Mi\"}}",
		   21.5));
	CHECK(fabs(br_lc_duration(&v[0], BR_LC_SNAPSHOT) - 1.5) < 1e-9);
	CHECK(v[0].snap_bytes == 640ULL << 20);
	/* the restored claim asks for the snapshot's size, at least its source's */
	CHECK(br_lc_restore_bytes(v[0].snap_bytes, 320ULL << 20) == 640ULL << 20);
	CHECK(br_lc_restore_bytes(0, 640ULL << 20) == 640ULL << 20);
	/* the restored claim: timed as a provision, reported as restore */
	snprintf(v[1].pvc, sizeof(v[1].pvc), "a-r");
	snprintf(v[1].pod, sizeof(v[1].pod), "a-r");
	snprintf(v[1].source, sizeof(v[1].source), "a");
	v[1].wffc = true;
	v[1].created = 22.0;
	CHECK(feed(v, 2, BR_LC_PVC, KUBE_EVENT_MODIFIED,
		   "{\"metadata\":{\"name\":\"a-r\",\"annotations\":{\"volume.kubernetes.io/"
		   "selected-node\":\"n2\"}}}",
		   22.5));
	CHECK(feed(v, 2, BR_LC_PVC, KUBE_EVENT_MODIFIED,
		   "{\"metadata\":{\"name\":\"a-r\"},\"spec\":{\"volumeName\":\"pv-ar\"},"
		   "\"status\":{\"phase\":\"Bound\"}}",
		   24.0));
	CHECK(fabs(br_lc_duration(&v[1], BR_LC_RESTORE) - 1.5) < 1e-9);
	CHECK(br_lc_duration(&v[1], BR_LC_PROVISION) < 0); /* not a new volume's */
	CHECK(br_lc_duration(&v[0], BR_LC_RESTORE) < 0);   /* and the source has none */
	/* deleted: the snapshot gone, the restored claim's PV gone */
	v[0].snap_deleted = 30.0;
	CHECK(feed(v, 2, BR_LC_VS, KUBE_EVENT_DELETED, "{\"metadata\":{\"name\":\"a\"}}", 30.75));
	CHECK(fabs(br_lc_duration(&v[0], BR_LC_SNAPSHOT_DELETE) - 0.75) < 1e-9);
	v[1].deleted = 31.0;
	CHECK(feed(v, 2, BR_LC_PV, KUBE_EVENT_DELETED, "{\"metadata\":{\"name\":\"pv-ar\"}}",
		   33.0));
	CHECK(fabs(br_lc_duration(&v[1], BR_LC_RESTORE_DELETE) - 2.0) < 1e-9);
	CHECK(br_lc_duration(&v[1], BR_LC_DELETE) < 0);
	CHECK(br_lc_duration(&v[0], BR_LC_RESTORE_DELETE) < 0);
	return T_PASS;
}

/* One planning case: the classes listed, the spec, and what comes out. */
struct plan_case {
	const char *what;
	bool snapshot;
	const char *named;     /* spec.lifecycle.volumeSnapshotClass */
	const char *sc;	       /* the StorageClass (JSON) */
	int classes_rc;	       /* listing volumesnapshotclasses */
	int snaps_rc;	       /* listing volumesnapshots */
	bool want;	       /* measured */
	const char *want_text; /* the class, or a piece of the reason */
};

#define VSC(name, driver, def)                                              \
	"{\"metadata\":{\"name\":\"" name "\"" def "},\"driver\":\"" driver \
	"\",\"deletionPolicy\":\"Delete\"}"
#define DEF	",\"annotations\":{\"snapshot.storage.kubernetes.io/is-default-class\":\"true\"}"
#define CEPH_SC "{\"metadata\":{\"name\":\"ssd-xfs\"},\"provisioner\":\"storagebench.io/ceph\"}"

static int test_snapshot_plan(void)
{
	static const char classes[] = "[" VSC("ceph-rbd", "storagebench.io/ceph", DEF) "," VSC(
		"ceph-rbd-retain", "storagebench.io/ceph",
		"") "," VSC("other", "example.com/csi",
			    "") "," VSC("two-a", "two.io", DEF) "," VSC("two-b", "two.io", DEF) "]";
	static const struct plan_case cases[] = {
		{"default class of the driver", true, "", CEPH_SC, 0, 0, true, "ceph-rbd"},
		{"named class", true, "ceph-rbd-retain", CEPH_SC, 0, 0, true, "ceph-rbd-retain"},
		{"snapshot false", false, "", CEPH_SC, 0, 0, false,
		 "spec.lifecycle.snapshot is false"},
		{"no API", true, "", CEPH_SC, -ENOENT, 0, false,
		 "the cluster has no snapshot.storage.k8s.io API (no VolumeSnapshotClass "
		 "resource)"},
		{"no right", true, "", CEPH_SC, -EACCES, 0, false,
		 "the controller may not list volumesnapshotclasses"},
		{"no VolumeSnapshot resource", true, "", CEPH_SC, 0, -ENOENT, false,
		 "no VolumeSnapshot resource"},
		{"listing failed", true, "", CEPH_SC, 0, -EIO, false, "listing volumesnapshots"},
		{"no provisioner", true, "", "{\"metadata\":{\"name\":\"x\"}}", 0, 0, false,
		 "class ssd-xfs has no provisioner"},
		{"no class of the driver", true, "",
		 "{\"provisioner\":\"storagebench.io/local-dir\"}", 0, 0, false,
		 "no VolumeSnapshotClass for driver storagebench.io/local-dir (class ssd-xfs's "
		 "provisioner)"},
		{"none marked default", true, "", "{\"provisioner\":\"example.com/csi\"}", 0, 0,
		 false,
		 "1 VolumeSnapshotClasses of driver example.com/csi, 0 of them marked "
		 "default"},
		{"two marked default", true, "", "{\"provisioner\":\"two.io\"}", 0, 0, false,
		 "2 of them marked default (annotation "
		 "snapshot.storage.kubernetes.io/is-default-class): name one in "
		 "spec.lifecycle.volumeSnapshotClass"},
		{"named: another driver's", true, "other", CEPH_SC, 0, 0, false,
		 "VolumeSnapshotClass other (spec.lifecycle.volumeSnapshotClass) is for driver "
		 "example.com/csi, not storagebench.io/ceph (class ssd-xfs's provisioner)"},
		{"named: missing", true, "nope", CEPH_SC, 0, 0, false,
		 "VolumeSnapshotClass nope (spec.lifecycle.volumeSnapshotClass) does not exist"},
	};
	json_t *items = obj(classes);
	CHECK(items);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct plan_case *c = &cases[i];
		struct br_lifecycle_spec ls;
		char vsc[254], why[512];
		memset(&ls, 0, sizeof(ls));
		ls.snapshot = c->snapshot;
		snprintf(ls.snapshot_class, sizeof(ls.snapshot_class), "%s", c->named);
		json_t *sc = obj(c->sc);
		CHECK(sc);
		bool got = br_lc_snapshot_plan(&ls, "ssd-xfs", sc, c->classes_rc, items,
					       c->snaps_rc, vsc, sizeof(vsc), why, sizeof(why));
		json_decref(sc);
		if (got != c->want || (got ? strcmp(vsc, c->want_text) || why[0]
					   : !strstr(why, c->want_text) || vsc[0])) {
			fprintf(stderr, "    %s: got %d vsc '%s' why '%s', wanted %d '%s'\n",
				c->what, got, vsc, why, c->want, c->want_text);
			json_decref(items);
			return T_FAIL;
		}
	}
	json_decref(items);
	return T_PASS;
}

static int test_snapshot_manifest(void)
{
	json_t *vs = br_lc_snapshot_manifest(
		obj("{\"name\":\"run-ssd-lc1-1\",\"labels\":{\"a\":\"b\"}}"), "run-ssd-lc1-1",
		"ceph-rbd");
	CHECK(vs);
	char *text = json_dumps(vs, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(vs);
	CHECK(text);
	CHECK_STR(text,
		  "{\"apiVersion\":\"snapshot.storage.k8s.io/v1\",\"kind\":\"VolumeSnapshot\","
		  "\"metadata\":{\"labels\":{\"a\":\"b\"},\"name\":\"run-ssd-lc1-1\"},"
		  "\"spec\":{\"source\":{\"persistentVolumeClaimName\":\"run-ssd-lc1-1\"},"
		  "\"volumeSnapshotClassName\":\"ceph-rbd\"}}");
	free(text);
	CHECK(!br_lc_snapshot_manifest(NULL, "x", "y"));
	CHECK_STR(br_lc_res_snapshots.group, "snapshot.storage.k8s.io");
	CHECK(br_lc_res_snapshots.namespaced && !br_lc_res_snapshot_classes.namespaced);
	return T_PASS;
}

/* The report entry of target t and phase p, or NULL. */
static const json_t *row(const json_t *r, const char *t, const char *p)
{
	size_t i;
	const json_t *e;
	json_array_foreach(r, i, e)
	{
		if (!strcmp(json_string_value(json_object_get(e, "target")), t) &&
		    !strcmp(json_string_value(json_object_get(e, "phase")), p))
			return e;
	}
	return NULL;
}

static int test_report_snapshot_phases(void)
{
	json_t *d1 =
		obj("{\"class\":\"ssd-xfs\",\"iteration\":1,\"volumeSnapshotClass\":\"ceph-rbd\","
		    "\"volumes\":[{\"name\":\"v1\",\"provision_ns\":100,\"snapshot_ns\":1000,"
		    "\"restore_ns\":4000,\"snapshot_delete_ns\":50,\"restore_delete_ns\":70,"
		    "\"delete_ns\":60},{\"name\":\"v2\",\"provision_ns\":300,"
		    "\"snapshot_ns\":3000,\"restore_ns\":6000,\"snapshot_delete_ns\":150,"
		    "\"restore_delete_ns\":90,\"delete_ns\":80}],\"skipped\":{}}");
	json_t *d2 = obj("{\"class\":\"fast\",\"iteration\":1,\"volumes\":[{\"name\":\"f1\","
			 "\"provision_ns\":10}],\"skipped\":{\"snapshot\":\"no VolumeSnapshotClass "
			 "for driver storagebench.io/local-dir\"}}");
	json_t *d3 = obj("{\"class\":\"ssd-xfs\",\"iteration\":2,\"volumes\":[{\"name\":\"v1\","
			 "\"provision_ns\":200,\"snapshot_ns\":2000}],\"skipped\":{},"
			 "\"error\":\"the snapshots were not ready to use within 300s\"}");
	CHECK(d1 && d2 && d3);
	const json_t *docs[] = {d1, d2, d3};
	json_t *r = br_lifecycle_report(docs, 3);
	CHECK(r);
	const json_t *snap = row(r, "ssd-xfs", "snapshot"), *rest = row(r, "ssd-xfs", "restore");
	const json_t *sdel = row(r, "ssd-xfs", "snapshot_delete");
	const json_t *rdel = row(r, "ssd-xfs", "restore_delete");
	CHECK(snap && rest && sdel && rdel);
	CHECK_INT(json_integer_value(json_object_get(snap, "n")), 3); /* both iterations */
	CHECK(fabs(json_number_value(json_object_get(snap, "mean")) - 2000) < 1e-9);
	CHECK_INT(json_integer_value(json_object_get(rest, "n")), 2);
	CHECK(fabs(json_number_value(json_object_get(rest, "mean")) - 5000) < 1e-9);
	CHECK(json_number_value(json_object_get(sdel, "max")) == 150);
	CHECK(json_number_value(json_object_get(rdel, "min")) == 70);
	/* one entry per target and phase, in phase order, then the failure */
	size_t i, n = 0;
	const json_t *e;
	const char *order[16];
	json_array_foreach(r, i, e)
	{
		if (!strcmp(json_string_value(json_object_get(e, "target")), "ssd-xfs") && n < 16)
			order[n++] = json_string_value(json_object_get(e, "phase"));
	}
	CHECK_INT(n, 7); /* provision, delete, snapshot, restore, two deletes, error */
	CHECK_STR(order[0], "provision");
	CHECK_STR(order[1], "delete");
	CHECK_STR(order[2], "snapshot");
	CHECK_STR(order[3], "restore");
	CHECK_STR(order[4], "snapshot_delete");
	CHECK_STR(order[5], "restore_delete");
	CHECK_STR(order[6], "error");
	/* skipped: one snapshot row with the reason, no restore rows */
	CHECK(strstr(json_string_value(json_object_get(row(r, "fast", "snapshot"), "skipped")),
		     "no VolumeSnapshotClass"));
	CHECK(!row(r, "fast", "restore") && !row(r, "fast", "snapshot_delete"));
	CHECK_STR(br_lc_phase_name(BR_LC_RESTORE_DELETE), "restore_delete");
	CHECK_STR(br_lc_phase_name(BR_LC_NPHASES), "?");
	json_decref(r);
	json_decref(d1);
	json_decref(d2);
	json_decref(d3);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"lifecycle/spec-defaults-and-values", test_spec_defaults_and_values},
	{"lifecycle/spec-refusals-name-the-field", test_spec_refusals_name_the_field},
	{"lifecycle/validity-spec", test_validity_spec},
	{"lifecycle/events-wffc", test_events_wffc},
	{"lifecycle/events-immediate-and-failed-pod", test_events_immediate_and_failed_pod},
	{"lifecycle/percentile", test_percentile},
	{"lifecycle/report-section", test_report_section},
	{"lifecycle/cm-name", test_cm_name},
	{"lifecycle/events-snapshot-and-restore", test_events_snapshot_and_restore},
	{"lifecycle/snapshot-plan", test_snapshot_plan},
	{"lifecycle/snapshot-manifest", test_snapshot_manifest},
	{"lifecycle/report-snapshot-phases", test_report_snapshot_phases},
};

TEST_MAIN(cases)
