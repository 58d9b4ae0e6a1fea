/* SPDX-License-Identifier: MIT */
/*
 * What the controller's informers keep of each object (br_cache_transform,
 * controller/core/memory.c): the fields the reconcile reads stay, managedFields,
 * kubectl's last-applied annotation and a pod's spec go; an owned-object
 * kind without the managed-by label is refused; a result ConfigMap is
 * cached without its data, with its verdict (controller/core/resultcache.h).
 */
#include "tests/unit/harness.h"
#include "controller/run/manifests.h"
#include "controller/core/memory.h"
#include "controller/core/proof.h"
#include "controller/serve/process_metrics.h"
#include "controller/core/resultcache.h"
#include "controller/run/runkey.h"
#include "core/labels.h"
#include "core/names.h"
#include "result/sign.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define OWNED \
	"\"labels\":{\"" SB_LABEL_MANAGED_BY "\":\"" SB_MANAGER "\",\"" SB_LABEL_RUN "\":\"r\"}"
#define META(labels)                                                                       \
	"\"metadata\":{\"name\":\"x\",\"namespace\":\"n\",\"uid\":\"u1\","                 \
	"\"resourceVersion\":\"7\",\"creationTimestamp\":\"2026-01-01T00:00:00Z\","        \
	"\"ownerReferences\":[{\"kind\":\"BenchmarkRun\",\"name\":\"r\",\"uid\":\"ru\"}]," \
	"\"managedFields\":[{\"manager\":\"m\"}],\"annotations\":{"                        \
	"\"kubectl.kubernetes.io/last-applied-configuration\":\"{}\"}," labels "}"

static const char pod[] = "{\"kind\":\"Pod\",\"apiVersion\":\"v1\"," META(
	OWNED) ","
	       "\"spec\":{\"nodeName\":\"node-a\",\"containers\":[{\"name\":\"runner\",\"image\":"
	       "\"i\","
	       "\"env\":[{\"name\":\"A\",\"value\":\"b\"}]}],\"volumes\":[{\"name\":\"v\"}]},"
	       "\"status\":{\"phase\":\"Failed\",\"reason\":\"Evicted\",\"message\":\"m\","
	       "\"startTime\":\"2026-01-01T00:00:01Z\",\"podIP\":\"10.0.0.1\",\"qosClass\":"
	       "\"Burstable\","
	       "\"containerStatuses\":[{\"name\":\"runner\",\"image\":\"i\",\"imageID\":\"sha\","
	       "\"containerID\":\"c\",\"restartCount\":1,\"state\":{\"terminated\":{\"exitCode\":3,"
	       "\"reason\":\"Error\",\"message\":\"boom\"}},\"lastState\":{}}]}}";

#define RUID "5a1f0c2e-7777-4888-9999-aaaabbbbcccc"
static const unsigned char MASTER[SB_SIGN_KEY_BYTES] = {9, 8, 7};

/* o (borrowed) as the controller writes it: signed as a resource r in namespace n. */
static json_t *signed_as(json_t *o, const struct kube_resource *r)
{
	br_runkey_set_master(MASTER);
	if (o && br_proof_sign(o, r, "n")) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int test_pod_compacted(void)
{
	json_t *o = signed_as(json_loads(pod, 0, NULL), &kube_res_pods);
	CHECK(o);
	int r = br_cache_transform(&o, (void *)&br_cache_kinds[BR_CACHE_PODS]);
	json_t *md = json_object_get(o, "metadata");
	json_t *st = json_object_get(o, "status");
	json_t *cs = json_array_get(json_object_get(st, "containerStatuses"), 0);
	json_t *term = json_object_get(json_object_get(cs, "state"), "terminated");
	bool ok = r == 0 && json_object_get(o, "kind") &&
		  json_string_value(json_object_get(md, "uid")) &&
		  json_object_get(md, "ownerReferences") &&
		  json_object_get(md, "creationTimestamp") &&
		  json_object_get(json_object_get(md, "labels"), SB_LABEL_RUN) &&
		  !json_object_get(md, "managedFields") && !json_object_get(md, "annotations") &&
		  json_integer_value(json_object_get(term, "exitCode")) == 3 &&
		  json_object_get(cs, "lastState") &&
		  json_integer_value(json_object_get(cs, "restartCount")) == 1 &&
		  !json_object_get(cs, "image") && !json_object_get(cs, "imageID") &&
		  json_object_get(st, "phase") && json_object_get(st, "reason") &&
		  json_object_get(st, "message") && json_object_get(st, "startTime") &&
		  !json_object_get(st, "podIP") &&
		  json_object_get(json_object_get(o, "spec"), "containers") &&
		  json_object_get(json_object_get(o, "spec"), "volumes") &&
		  !json_object_get(st, "qosClass") &&
		  json_object_get(json_object_get(o, "spec"), "nodeName");
	json_decref(o);
	CHECK(ok);
	return T_PASS;
}

static int test_foreign_refused(void)
{
	static const char *const objs[] = {
		"{" META("\"labels\":{\"app\":\"x\"}") "}",
		"{" META("\"labels\":{\"" SB_LABEL_MANAGED_BY "\":\"someone-else\"}") "}",
		"{\"metadata\":{\"name\":\"x\"}}",
	};
	static const enum br_cache_kind kinds[] = {BR_CACHE_PVCS, BR_CACHE_PODS, BR_CACHE_CMS};
	for (size_t i = 0; i < 3; i++)
		for (size_t k = 0; k < 3; k++) {
			json_t *o = json_loads(objs[i], 0, NULL);
			CHECK(o);
			int r = br_cache_transform(&o, (void *)&br_cache_kinds[kinds[k]]);
			json_decref(o);
			CHECK_INT(r, 1);
		}
	return T_PASS;
}

static int test_run_and_cm_kept(void)
{
	json_t *run = json_loads("{" META("\"labels\":{}") ",\"spec\":{\"iterations\":2},"
							   "\"status\":{\"phase\":\"Running\"}}",
				 0, NULL);
	json_t *cm = signed_as(
		json_loads("{" META(OWNED) ",\"data\":{\"" SB_RESULT_KEY "\":\"{}\"}}", 0, NULL),
		&kube_res_configmaps);
	CHECK(run && cm);
	int r1 = br_cache_transform(&run, (void *)&br_cache_kinds[BR_CACHE_RUNS]);
	int r2 = br_cache_transform(&cm, (void *)&br_cache_kinds[BR_CACHE_CMS]);
	bool ok = r1 == 0 && r2 == 0 && json_object_get(run, "spec") &&
		  json_object_get(run, "status") &&
		  !json_object_get(json_object_get(run, "metadata"), "managedFields") &&
		  !json_object_get(json_object_get(run, "metadata"), "annotations") &&
		  json_string_value(json_object_get(json_object_get(cm, "data"), SB_RESULT_KEY)) &&
		  !json_object_get(json_object_get(cm, "metadata"), "managedFields");
	json_decref(run);
	json_decref(cm);
	CHECK(ok);
	return T_PASS;
}

/* Run r's result of class fast, iteration 2, signed with uid's key (forged: a bad MAC). */
static json_t *result_cm(const char *uid, bool forged)
{
	char mac[SB_SIGN_HEX_LEN + 1];
	unsigned char key[SB_SIGN_KEY_BYTES];
	static const char text[] = "{\"jobs\":[{\"jobname\":\"j\",\"engine\":{\"ran\":"
				   "\"psync\",\"reason\":\"no io_uring\"}}],\"context\":{"
				   "\"run\":\"r\",\"class\":\"fast\",\"iteration\":2}}";
	if (br_runkey_derive(uid, key) ||
	    sb_sign_result(key, sizeof(key), &(struct sb_sign_subject){uid, "fast", 2, 0, 0}, text,
			   strlen(text), mac))
		memset(mac, 'a', SB_SIGN_HEX_LEN), mac[SB_SIGN_HEX_LEN] = '\0';
	if (forged)
		mac[0] = mac[0] == '0' ? '1' : '0';
	return json_pack("{s:{s:s,s:s,s:{s:s,s:s,s:s,s:s,s:s},s:[{s:s,s:s,s:s,s:s}]},"
			 "s:{s:s,s:s},s:{s:b}}",
			 "metadata", "name", "r-fast-2", "namespace", "n", "labels",
			 SB_LABEL_MANAGED_BY, SB_MANAGER, SB_LABEL_COMPONENT, "result",
			 SB_LABEL_RUN, "r", SB_LABEL_CLASS, "fast", SB_LABEL_ITERATION, "2",
			 "ownerReferences", "apiVersion", SB_API_VERSION, "kind", SB_KIND, "name",
			 "r", "uid", RUID, "data", SB_RESULT_KEY, text, SB_RESULT_MAC_KEY, mac,
			 BR_RESULT_VERDICT, "ok", 1);
}

/* The transform of cm (taken): 0 and the cached object, or -1. */
static json_t *cached(json_t *cm)
{
	if (cm && br_cache_transform(&cm, (void *)&br_cache_kinds[BR_CACHE_CMS])) {
		json_decref(cm);
		return NULL;
	}
	return cm;
}

static int test_result_verdict(void)
{
	unsigned char key[SB_SIGN_KEY_BYTES];
	br_runkey_set_master(MASTER);
	CHECK_INT(br_runkey_derive(RUID, key), 0);
	struct sb_result_want want = {"n", "r", RUID, "fast", 2, key};
	char why[512] = "";
	/* valid: no data, a verdict that counts, with the data's digest and the engine */
	json_t *v = cached(result_cm(RUID, false));
	CHECK(v);
	const json_t *vd = json_object_get(v, BR_RESULT_VERDICT);
	bool ok = !json_object_get(v, "data") && json_is_true(json_object_get(vd, "ok")) &&
		  strlen(json_string_value(json_object_get(vd, "sha256"))) == 64 &&
		  br_result_counts(v, &want, why, sizeof(why)) == 0 &&
		  !strcmp(br_result_verdict_engine(v), "psync (fallback)");
	/* not another iteration, class or run */
	struct sb_result_want other = want;
	other.iteration = 1;
	ok = ok && br_result_counts(v, &other, why, sizeof(why)) == -EINVAL;
	other = want;
	other.cls = "slow";
	ok = ok && br_result_counts(v, &other, why, sizeof(why)) == -EINVAL;
	other = want;
	other.uid = "11111111-2222-4333-8444-555555555555";
	ok = ok && br_result_counts(v, &other, why, sizeof(why)) == -EINVAL;
	json_decref(v);
	CHECK(ok);
	/* forged: the verdict names the MAC, the data is gone all the same */
	v = cached(result_cm(RUID, true));
	CHECK(v);
	ok = !json_object_get(v, "data") &&
	     br_result_counts(v, &want, why, sizeof(why)) == -EINVAL &&
	     strstr(why, SB_RESULT_MAC_KEY) && strstr(why, "forged");
	json_decref(v);
	CHECK(ok);
	/* signed with another run's key: not this run's result */
	v = cached(result_cm("11111111-2222-4333-8444-555555555555", false));
	CHECK(v);
	ok = br_result_counts(v, &want, why, sizeof(why)) == -EINVAL && strstr(why, "forged");
	json_decref(v);
	CHECK(ok);
	/* no master key loaded: never counted */
	json_t *cm = result_cm(RUID, false);
	br_runkey_clear();
	v = cached(cm);
	br_runkey_set_master(MASTER);
	CHECK(v);
	ok = !json_object_get(v, "data") &&
	     br_result_counts(v, &want, why, sizeof(why)) == -EINVAL &&
	     strstr(why, "signing key is not loaded");
	json_decref(v);
	CHECK(ok);
	return T_PASS;
}

/* A verdict sent in a ConfigMap that is not a result is dropped, never trusted. */
static int test_verdict_not_trusted(void)
{
	json_t *cm = result_cm(RUID, false);
	CHECK(cm);
	json_object_set_new(json_object_get(json_object_get(cm, "metadata"), "labels"),
			    SB_LABEL_COMPONENT, json_string("report"));
	/* unsigned: not the controller's report either, never cached */
	CHECK(!cached(json_deep_copy(cm)));
	json_t *v = cached(signed_as(cm, &kube_res_configmaps));
	CHECK(v);
	bool ok = !json_object_get(v, BR_RESULT_VERDICT) && json_object_get(v, "data");
	json_decref(v);
	CHECK(ok);
	return T_PASS;
}

/* The report's fetched results: one changed after its verdict is named and left out. */
static int warned;
static void count_warn(void *ctx, const char *msg)
{
	(void)ctx;
	if (strstr(msg, "r-fast-2") && strstr(msg, "changed after it was counted"))
		warned++;
}

static int test_fetched_checked(void)
{
	br_runkey_set_master(MASTER);
	json_t *full = result_cm(RUID, false), *changed = result_cm(RUID, false);
	json_t *c = cached(json_deep_copy(full));
	CHECK(full && changed && c);
	json_object_set_new(json_object_get(changed, "data"), SB_RESULT_KEY,
			    json_string("{\"jobs\":[]}"));
	json_t *cachedlist = json_pack("[o]", c);
	json_t *items = json_pack("[O]", full);
	warned = 0;
	json_t *kept = br_result_fetched(items, cachedlist, count_warn, NULL);
	bool ok = kept && json_array_size(kept) == 1 && warned == 0;
	json_decref(kept);
	json_array_set(items, 0, changed);
	kept = br_result_fetched(items, cachedlist, count_warn, NULL);
	ok = ok && kept && json_array_size(kept) == 0 && warned == 1;
	json_decref(kept);
	json_decref(items);
	json_decref(cachedlist);
	json_decref(full);
	json_decref(changed);
	CHECK(ok);
	return T_PASS;
}

static int test_process_metrics(void)
{
	struct br_process_stats ps;
	CHECK_INT(br_process_stats(&ps), 0);
	CHECK(ps.rss_bytes > 0);
	CHECK(ps.vsize_bytes >= ps.rss_bytes);
	CHECK(ps.open_fds >= 3);
	CHECK(ps.start_time_seconds > 1e9);
	char *text = br_metrics_render_process(NULL);
	CHECK(text);
	bool ok = strstr(text, "\nprocess_resident_memory_bytes ") &&
		  strstr(text, "# TYPE process_cpu_seconds_total counter") &&
		  !strstr(text, "storagebench_informer_objects");
	free(text);
	CHECK(ok);
	return T_PASS;
}

/* A report ConfigMap is cached with the data read back only; another
 * owned ConfigMap keeps all of its data. */
static int test_report_slimmed(void)
{
	json_t *rep = json_pack("{s:{s:s,s:s,s:{s:s,s:s}},s:{s:s,s:s,s:s,s:s,s:s}}", "metadata",
				"name", "r-report", "namespace", "n", "labels", SB_LABEL_MANAGED_BY,
				SB_MANAGER, SB_LABEL_COMPONENT, SB_COMPONENT_REPORT, "data",
				SB_REPORT_JSON_KEY, "{}", BR_COMPARE_KEY, "{}", SB_REPORT_TXT_KEY,
				"t", "report.svg", "<svg/>", "report.csv", "a,b");
	json_t *other = json_pack("{s:{s:s,s:s,s:{s:s,s:s}},s:{s:s,s:s}}", "metadata", "name",
				  "r-spec", "namespace", "n", "labels", SB_LABEL_MANAGED_BY,
				  SB_MANAGER, SB_LABEL_COMPONENT, "spec", "data", "jobs.fio", "x",
				  "report.svg", "kept");
	rep = signed_as(rep, &kube_res_configmaps);
	other = signed_as(other, &kube_res_configmaps);
	CHECK(rep && other);
	int r1 = br_cache_transform(&rep, (void *)&br_cache_kinds[BR_CACHE_CMS]);
	int r2 = br_cache_transform(&other, (void *)&br_cache_kinds[BR_CACHE_CMS]);
	const json_t *d = json_object_get(rep, "data");
	size_t nrep = json_object_size(d),
	       nother = json_object_size(json_object_get(other, "data"));
	bool kept = json_object_get(d, SB_REPORT_JSON_KEY) && json_object_get(d, BR_COMPARE_KEY);
	json_decref(rep);
	json_decref(other);
	CHECK_INT(r1, 0);
	CHECK_INT(r2, 0);
	CHECK_INT(nrep, 2);
	CHECK(kept);
	CHECK_INT(nother, 2);
	return T_PASS;
}

/* Freed heap goes back after deletions, and after a burst of reconciles
 * (BR_TRIM_WORK) even with none deleted; an idle worker with nothing new
 * since the last trim does not trim again. */
static int test_trim_after_work(void)
{
	while (br_memory_idle()) /* whatever an earlier case left */
		;
	unsigned long t0 = br_memory_trims();
	bool early = false;
	for (int i = 0; i < BR_TRIM_WORK - 1; i++) {
		br_memory_worked();
		early |= br_memory_idle();
	}
	br_memory_worked();
	bool burst = br_memory_idle(), again = br_memory_idle();
	br_memory_deleted();
	bool deleted = br_memory_idle(), after = br_memory_idle();
	unsigned long t1 = br_memory_trims();
	CHECK(!early);
	CHECK(burst);
	CHECK(!again);
	CHECK(deleted);
	CHECK(!after);
	CHECK_INT(t1 - t0, 2);
	return T_PASS;
}

/* The run informers' dictionary is a run as the cache stores it: JSON of
 * the run's kind, ending where a run's status ends. */
static int test_run_dict(void)
{
	json_t *d = json_loads(br_run_dict, 0, NULL);
	const char *kind = json_string_value(json_object_get(d, "kind"));
	bool ok =
		d && kind && !strcmp(kind, SB_KIND) && json_is_object(json_object_get(d, "status"));
	json_decref(d);
	CHECK(ok);
	return T_PASS;
}

/* The GLIBC_TUNABLES the controller re-executes with: the threads' caches
 * off, other tunables kept, a tcache_count already given left alone. */
static int test_tunables(void)
{
	char out[128];
	CHECK_INT(br_memory_tunables(NULL, out, sizeof(out)), 1);
	CHECK_STR(out, "glibc.malloc.tcache_count=0");
	CHECK_INT(br_memory_tunables("", out, sizeof(out)), 1);
	CHECK_STR(out, "glibc.malloc.tcache_count=0");
	CHECK_INT(br_memory_tunables("glibc.malloc.arena_max=1", out, sizeof(out)), 1);
	CHECK_STR(out, "glibc.malloc.arena_max=1:glibc.malloc.tcache_count=0");
	CHECK_INT(br_memory_tunables("glibc.malloc.tcache_count=7", out, sizeof(out)), 0);
	CHECK_INT(br_memory_tunables("glibc.malloc.arena_max=1", out, 10), -ENAMETOOLONG);
	CHECK(br_memory_tcache_off("glibc.malloc.tcache_count=0"));
	CHECK(br_memory_tcache_off("glibc.malloc.arena_max=1:glibc.malloc.tcache_count=0"));
	CHECK(br_memory_tcache_off("glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1"));
	CHECK(!br_memory_tcache_off(NULL));
	CHECK(!br_memory_tcache_off("glibc.malloc.tcache_count=7"));
	CHECK(!br_memory_tcache_off("glibc.malloc.tcache_count=01x"));
	CHECK(!br_memory_tcache_off("glibc.malloc.tcache_count="));
	CHECK(!br_memory_tcache_off("glibc.malloc.arena_max=1"));
	return T_PASS;
}

/* In a child: GLIBC_TUNABLES set to tunables (NULL: unset), then
 * br_memory_reexec of a shell that writes the GLIBC_TUNABLES it was given
 * to file. Returns the child's exit status (3: reexec returned). */
static int reexec_child(const char *tunables, const char *file)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (tunables ? setenv("GLIBC_TUNABLES", tunables, 1) : unsetenv("GLIBC_TUNABLES"))
			_exit(4);
		char cmd[256];
		snprintf(cmd, sizeof(cmd), "printf %%s \"$GLIBC_TUNABLES\" > %s", file);
		char *argv[] = {"sh", "-c", cmd, NULL};
		br_memory_reexec("/bin/sh", argv);
		_exit(3); /* not exec'd: tunables already set */
	}
	int st = 0;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* The controller execs itself once with the threads' caches off: the new
 * image gets the tunable added to what it was given; given a tcache_count
 * already, it does not exec (no loop, the user's value stands). */
static int test_reexec(void)
{
	char file[] = "/tmp/sb-test-tunables-XXXXXX";
	int fd = mkstemp(file);
	CHECK(fd >= 0);
	close(fd);
	/* each result read and freed before the next fork: a child that does
	 * not exec must not inherit a block (valgrind counts it lost there) */
	int r1 = reexec_child("glibc.malloc.arena_max=2", file);
	char *got = t_slurp(file);
	bool ok1 = got && !strcmp(got, "glibc.malloc.arena_max=2:glibc.malloc.tcache_count=0");
	free(got);
	int r2 = reexec_child(NULL, file);
	got = t_slurp(file);
	bool ok2 = got && !strcmp(got, "glibc.malloc.tcache_count=0");
	free(got);
	int r3 = reexec_child("glibc.malloc.tcache_count=7", file);
	unlink(file);
	CHECK_INT(r1, 0);
	CHECK(ok1);
	CHECK_INT(r2, 0);
	CHECK(ok2);
	CHECK_INT(r3, 3);
	return T_PASS;
}

/*
 * Issue 34: an object with the controller's labels and the run's
 * ownerReference is cached only when the controller's proof verifies: a
 * report planted without it, a real one changed, its proof copied to
 * another name or owner, one signed under another master key, and an
 * unknown component are all dropped at decode.
 */
static json_t *report_cm(const char *name, const char *owner_uid, const char *json)
{
	return json_pack("{s:{s:s,s:s,s:{s:s,s:s,s:s},s:[{s:s,s:s,s:s,s:s}]},s:{s:s}}", "metadata",
			 "name", name, "namespace", "n", "labels", SB_LABEL_MANAGED_BY, SB_MANAGER,
			 SB_LABEL_COMPONENT, SB_COMPONENT_REPORT, SB_LABEL_RUN, "r",
			 "ownerReferences", "apiVersion", SB_API_VERSION, "kind", SB_KIND, "name",
			 "r", "uid", owner_uid, "data", SB_REPORT_JSON_KEY, json);
}

static const char *proof_of(const json_t *o)
{
	return json_string_value(json_object_get(
		json_object_get(json_object_get(o, "metadata"), "annotations"), SB_ANNOT_PROOF));
}

static int test_planted_dropped(void)
{
	static const unsigned char OTHER[SB_SIGN_KEY_BYTES] = {1, 1, 1};
	char why[300];
	/* the controller's own: kept, its proof checked and gone from the cache */
	json_t *ours = signed_as(report_cm("r-report", RUID, "{\"iops\":1}"), &kube_res_configmaps);
	CHECK(ours && proof_of(ours));
	CHECK_INT(br_proof_check(ours, &kube_res_configmaps, why, sizeof(why)), 0);
	json_t *v = cached(json_deep_copy(ours));
	bool ok = v && !proof_of(v) &&
		  json_object_get(json_object_get(v, "data"), SB_REPORT_JSON_KEY);
	json_decref(v);
	/* planted: labels and owner right, no proof */
	json_t *planted = report_cm("r-report", RUID, "{\"iops\":7}");
	ok = ok && br_proof_check(planted, &kube_res_configmaps, why, sizeof(why)) == -ENOENT &&
	     strstr(why, SB_ANNOT_PROOF) && strstr(why, "missing");
	ok = ok && !cached(planted);
	/* the real one's figures changed */
	json_t *changed = json_deep_copy(ours);
	json_object_set_new(json_object_get(changed, "data"), SB_REPORT_JSON_KEY,
			    json_string("{\"iops\":7}"));
	ok = ok && br_proof_check(changed, &kube_res_configmaps, why, sizeof(why)) == -EBADMSG &&
	     strstr(why, "does not match");
	ok = ok && !cached(changed);
	/* its proof on a ConfigMap of another name, or of another run */
	json_t *moved = report_cm("s-report", RUID, "{\"iops\":1}");
	json_t *other_run =
		report_cm("r-report", "11111111-2222-4333-8444-555555555555", "{\"iops\":1}");
	json_t *an = json_pack("{s:s}", SB_ANNOT_PROOF, proof_of(ours));
	json_object_set(json_object_get(moved, "metadata"), "annotations", an);
	json_object_set(json_object_get(other_run, "metadata"), "annotations", an);
	json_decref(an);
	ok = ok && br_proof_check(moved, &kube_res_configmaps, NULL, 0) == -EBADMSG &&
	     br_proof_check(other_run, &kube_res_configmaps, NULL, 0) == -EBADMSG;
	/* the same object checked as another kind */
	ok = ok && br_proof_check(ours, &kube_res_pods, NULL, 0) == -EBADMSG;
	ok = ok && !cached(moved) && !cached(other_run);
	/* signed by a controller with another master key */
	br_runkey_set_master(OTHER);
	json_t *foreign = report_cm("r-report", RUID, "{\"iops\":1}");
	ok = ok && br_proof_sign(foreign, &kube_res_configmaps, "n") == 0;
	br_runkey_set_master(MASTER);
	ok = ok && !cached(foreign);
	/* with no key loaded nothing is signed or believed */
	br_runkey_clear();
	json_t *nokey = report_cm("r-report", RUID, "{}");
	ok = ok && br_proof_sign(nokey, &kube_res_configmaps, "n") == -EAGAIN &&
	     br_proof_check(ours, &kube_res_configmaps, NULL, 0) == -EAGAIN;
	br_runkey_set_master(MASTER);
	json_decref(nokey);
	/* a component the controller never writes, whatever it carries */
	json_t *odd = report_cm("big", RUID, "x");
	json_object_set_new(json_object_get(json_object_get(odd, "metadata"), "labels"),
			    SB_LABEL_COMPONENT, json_string("padding"));
	ok = ok && !cached(odd);
	json_decref(ours);
	CHECK(ok);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"controller-cache/pod_compacted", test_pod_compacted},
	{"controller-cache/foreign_refused", test_foreign_refused},
	{"controller-cache/run_and_configmap_kept", test_run_and_cm_kept},
	{"controller-cache/process_metrics", test_process_metrics},
	{"controller-cache/result_verdict", test_result_verdict},
	{"controller-cache/verdict_not_trusted", test_verdict_not_trusted},
	{"controller-cache/fetched_checked", test_fetched_checked},
	{"controller-cache/trim_after_work", test_trim_after_work},
	{"controller-cache/run_dict", test_run_dict},
	{"controller-cache/report_slimmed", test_report_slimmed},
	{"controller-cache/planted_dropped", test_planted_dropped},
	{"controller-cache/tunables", test_tunables},
	{"controller-cache/reexec", test_reexec},
};

TEST_MAIN(cases)
