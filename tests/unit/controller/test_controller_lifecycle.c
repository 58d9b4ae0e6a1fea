/* SPDX-License-Identifier: MIT */
/*
 * Lifecycle timings (controller/lifecycle/lifecycle.c), the parts without a cluster:
 * spec.lifecycle and spec.validity parsing, the watch-event bookkeeping
 * on a fake clock (which moment each event records, WaitForFirstConsumer
 * from the scheduler's pick), percentiles, and the report section
 * (statistics, skipped phases with their reason, failed iterations).
 */
#include "tests/unit/harness.h"
#include "tests/unit/spec_helpers.h"
#include "controller/lifecycle/lifecycle.h"
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
	br_spec_release(&s);
	/* not asked: disabled */
	CHECK_INT(parse(BASE "\"iterations\":4}", &s, err, sizeof(err)), 0);
	CHECK(!s.lifecycle.enabled);
	br_spec_release(&s);
	return T_PASS;
}

static int test_spec_refusals_name_the_field(void)
{
	int r;
	if ((r = expect_invalid(BASE "\"lifecycle\":{\"volumes\":0,\"concurrent\":0}}",
				"spec.lifecycle: volumes and concurrent are both 0")) ||
	    (r = expect_invalid(BASE "\"lifecycle\":{\"volumes\":21}}",
				"spec.lifecycle.volumes: must be an integer from 0 to 20")) ||
	    (r = expect_invalid(BASE "\"lifecycle\":{\"iterations\":0}}",
				"spec.lifecycle.iterations")) ||
	    (r = expect_invalid(BASE "\"lifecycle\":{\"size\":\"big\"}}",
				"spec.lifecycle.size: must be a quantity")) ||
	    (r = expect_invalid(BASE "\"lifecycle\":{\"resize\":\"yes\"}}",
				"spec.lifecycle.resize: must be true or false")) ||
	    (r = expect_invalid(BASE "\"lifecycle\":{\"snapshots\":true}}",
				"spec.lifecycle.snapshots: unknown field")) ||
	    (r = expect_invalid(BASE "\"lifecycle\":[]}", "spec.lifecycle: must be an object")))
		return r;
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

static const struct test_case cases[] = {
	{"lifecycle/spec-defaults-and-values", test_spec_defaults_and_values},
	{"lifecycle/spec-refusals-name-the-field", test_spec_refusals_name_the_field},
	{"lifecycle/validity-spec", test_validity_spec},
	{"lifecycle/events-wffc", test_events_wffc},
	{"lifecycle/events-immediate-and-failed-pod", test_events_immediate_and_failed_pod},
	{"lifecycle/percentile", test_percentile},
	{"lifecycle/report-section", test_report_section},
	{"lifecycle/cm-name", test_cm_name},
};

TEST_MAIN(cases)
