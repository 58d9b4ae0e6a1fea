/* SPDX-License-Identifier: MIT */
/*
 * Issue 15's rules: whose an existing object is (lib/result/owner.h), when a
 * result ConfigMap counts (the one rule of the controller and the runner),
 * the runner-pod start timeout (controller/run/plan.c) and its field.
 */
#include "tests/unit/harness.h"
#include "tests/unit/spec_helpers.h"

#include <openssl/evp.h>
#include <unistd.h>

#include "controller/run/plan.h"
#include "controller/run/runkey.h"
#include "core/labels.h"
#include "result/owner.h"
#include "result/sign.h"

#define UID "0b7c1e52-1111-4222-8333-944445555666"

static json_t *obj(const char *owner_kind, const char *owner_name, const char *owner_uid,
		   bool deleting)
{
	json_t *o = json_pack("{s:{s:s,s:s}}", "metadata", "name", "r-spec", "namespace", "ns");
	if (owner_kind)
		json_object_set_new(json_object_get(o, "metadata"), "ownerReferences",
				    json_pack("[{s:s,s:s,s:s,s:s}]", "apiVersion",
					      !strcmp(owner_kind, SB_KIND) ? SB_API_VERSION : "v1",
					      "kind", owner_kind, "name", owner_name, "uid",
					      owner_uid));
	if (deleting)
		json_object_set_new(json_object_get(o, "metadata"), "deletionTimestamp",
				    json_string("2026-12-01T10:00:00Z"));
	return o;
}

static int test_owner_verdicts(void)
{
	char why[300];
	struct {
		json_t *o;
		enum sb_owner_verdict want;
		const char *needle;
	} c[] = {
		{obj(SB_KIND, "r", UID, false), SB_OWNER_OURS, "this run"},
		{obj(SB_KIND, "r", UID, true), SB_OWNER_DELETING, "deleted"},
		/* the run deleted and re-created: the old UID's object is stale */
		{obj(SB_KIND, "r", "old-uid", false), SB_OWNER_STALE, "old-uid"},
		{obj(SB_KIND, "r", "old-uid", true), SB_OWNER_DELETING, "deleted"},
		/* another run's, another kind's, nobody's */
		{obj(SB_KIND, "other", "x", false), SB_OWNER_FOREIGN, "BenchmarkRun other uid x"},
		{obj("Deployment", "r", UID, false), SB_OWNER_FOREIGN, "Deployment r"},
		{obj(NULL, NULL, NULL, false), SB_OWNER_FOREIGN, "no ownerReference"},
	};
	int ret = T_PASS;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		enum sb_owner_verdict v = sb_owner_check(c[i].o, "r", UID, why, sizeof(why));
		if (v != c[i].want || !strstr(why, c[i].needle)) {
			fprintf(stderr, "    case %zu: verdict %d (%s), wanted %d (%s)\n", i, v,
				why, c[i].want, c[i].needle);
			ret = T_FAIL;
		}
		json_decref(c[i].o);
	}
	/* no UID to compare with is never "ours" */
	json_t *o = obj(SB_KIND, "r", "", false);
	enum sb_owner_verdict v = sb_owner_check(o, "r", "", NULL, 0);
	json_decref(o);
	CHECK(v != SB_OWNER_OURS);
	CHECK_STR(sb_owner_verdict_str(SB_OWNER_FOREIGN), "not this run's");
	return ret;
}

/* A result ConfigMap as the runner writes it; text NULL: its own document. */
static json_t *result(const char *uid, const char *text)
{
	const char *doc = text ? text
			       : "{\"jobs\":[{\"jobname\":\"a\"}],\"context\":{\"run\":\"r\","
				 "\"class\":\"fast\",\"iteration\":2,\"pod\":\"p\",\"attempt\":1}}";
	return json_pack("{s:{s:s,s:s,s:{s:s,s:s,s:s,s:s},s:[{s:s,s:s,s:s,s:s}]},s:{s:s}}",
			 "metadata", "name", "r-fast-2", "namespace", "ns", "labels",
			 SB_LABEL_COMPONENT, "result", SB_LABEL_RUN, "r", SB_LABEL_CLASS, "fast",
			 SB_LABEL_ITERATION, "2", "ownerReferences", "apiVersion", SB_API_VERSION,
			 "kind", SB_KIND, "name", "r", "uid", uid, "data", SB_RESULT_KEY, doc);
}

static int check_result(json_t *cm, int want, const char *needle)
{
	struct sb_result_want w = {"ns", "r", UID, "fast", 2};
	char why[512] = "";
	json_t *doc = NULL;
	int r = sb_result_check(cm, &w, &doc, why, sizeof(why));
	bool ok = r == want && (!needle || strstr(why, needle)) && (r ? !doc : doc != NULL);
	if (!ok)
		fprintf(stderr, "    gave %d '%s', wanted %d '%s'\n", r, why, want,
			needle ? needle : "");
	json_decref(doc);
	json_decref(cm);
	return ok ? T_PASS : T_FAIL;
}

static int test_result_rule(void)
{
	/* the runner's own result counts */
	CHECK(check_result(result(UID, NULL), 0, NULL) == T_PASS);
	/* garbage with the right labels, names and owner (issue 15, bug 2) */
	CHECK(check_result(result(UID, "garbage"), -EINVAL, "not JSON") == T_PASS);
	CHECK(check_result(result(UID, "{\"jobs\":{}}"), -EINVAL, "jobs") == T_PASS);
	CHECK(check_result(result(UID, "[]"), -EINVAL, "jobs") == T_PASS);
	/* not owned by the run: an old run's, or nobody's */
	CHECK(check_result(result("old-uid", NULL), -EINVAL, "not a result of this run") == T_PASS);
	json_t *cm = result(UID, NULL);
	json_object_del(json_object_get(cm, "metadata"), "ownerReferences");
	CHECK(check_result(cm, -EINVAL, "no ownerReference") == T_PASS);
	/* another iteration's result copied under this one's labels */
	CHECK(check_result(result(UID, "{\"jobs\":[],\"context\":{\"run\":\"r\",\"class\":"
				       "\"fast\",\"iteration\":3}}"),
			   -EINVAL, "context") == T_PASS);
	/* a wrong label, namespace, missing data */
	cm = result(UID, NULL);
	json_object_set_new(json_object_get(json_object_get(cm, "metadata"), "labels"),
			    SB_LABEL_ITERATION, json_string("3"));
	CHECK(check_result(cm, -EINVAL, SB_LABEL_ITERATION) == T_PASS);
	cm = result(UID, NULL);
	json_object_set_new(json_object_get(cm, "metadata"), "namespace", json_string("x"));
	CHECK(check_result(cm, -EINVAL, "namespace") == T_PASS);
	cm = result(UID, NULL);
	json_object_del(cm, "data");
	CHECK(check_result(cm, -EINVAL, "missing") == T_PASS);
	/* larger than a runner writes */
	char *big = malloc(SB_RESULT_MAX_BYTES + 2);
	CHECK(big);
	memset(big, ' ', SB_RESULT_MAX_BYTES + 1);
	big[SB_RESULT_MAX_BYTES + 1] = '\0';
	cm = result(UID, big);
	free(big);
	CHECK(check_result(cm, -EINVAL, "bytes") == T_PASS);
	/* a document without context (older runners) still counts */
	CHECK(check_result(result(UID, "{\"jobs\":[]}"), 0, NULL) == T_PASS);
	return T_PASS;
}

/* ----------------------------------------------------- start timeout */

static struct br_obs obs;
static struct br_plan plan;

static void one_pending_pod(time_t age, const char *msg)
{
	memset(&obs, 0, sizeof(obs));
	obs.now = 100000;
	obs.start = obs.now - age - 5;
	obs.iterations = 3;
	obs.parallelism = 1;
	obs.max_attempts = 3;
	obs.pvc_bind_s = 300;
	obs.iteration_s = 3600;
	obs.run_s = 86400;
	obs.start_s = 60;
	obs.nclasses = 1;
	struct br_class_obs *c = &obs.classes[0];
	c->name = "fast";
	c->sc_exists = true;
	c->pvc_exists = c->pvc_bound = true;
	c->pvc_created = obs.now - age - 2;
	c->prev_phase = BR_CLASS_RUNNING;
	c->prev_attempts = 1;
	c->npods = 1;
	snprintf(c->pods[0].name, sizeof(c->pods[0].name), "r-fast-1");
	c->pods[0].attempt = 1;
	c->pods[0].phase = BR_POD_PENDING;
	c->pods[0].exit_code = -1;
	c->pods[0].created = obs.now - age;
	snprintf(c->pods[0].message, sizeof(c->pods[0].message), "%s", msg);
}

static int test_start_timeout(void)
{
	const char *why = "ErrImagePull: rpc error: pull access denied for nosuch/image";
	/* before the timeout: the pod's reason is in the class status, a deadline is set */
	one_pending_pod(20, why);
	br_plan_compute(&obs, &plan);
	CHECK_INT(plan.classes[0].phase, BR_CLASS_RUNNING);
	CHECK_STR(plan.classes[0].reason, "RunnerNotStarted");
	CHECK(strstr(plan.classes[0].message, "r-fast-1") && strstr(plan.classes[0].message, why));
	CHECK_INT(plan.requeue_s, 40);
	CHECK_INT(plan.nactions, 0);
	/* at the timeout: the class fails with the pod's reason, no new attempt, the pod goes */
	one_pending_pod(60, why);
	br_plan_compute(&obs, &plan);
	CHECK_INT(plan.classes[0].phase, BR_CLASS_FAILED);
	CHECK_STR(plan.classes[0].reason, "RunnerStartTimeout");
	CHECK(strstr(plan.classes[0].message, "did not start within 60s") &&
	      strstr(plan.classes[0].message, why));
	CHECK_INT(plan.phase, BR_RUN_FAILED);
	CHECK(strstr(plan.message, why));
	CHECK_INT(plan.nevents, 1);
	CHECK_STR(plan.events[0].reason, "RunnerStartTimeout");
	CHECK_INT(plan.nactions, 1);
	CHECK_INT(plan.actions[0].kind, BR_ACT_DELETE_POD);
	CHECK_STR(plan.actions[0].name, "r-fast-1");
	/* a silent Pending pod says so */
	one_pending_pod(61, "");
	br_plan_compute(&obs, &plan);
	CHECK(strstr(plan.classes[0].message, "no reason given"));
	/* a running pod is never timed out by it */
	one_pending_pod(1000, "");
	obs.classes[0].pods[0].phase = BR_POD_RUNNING;
	br_plan_compute(&obs, &plan);
	CHECK_INT(plan.classes[0].phase, BR_CLASS_RUNNING);
	/* nor a pod whose volume is not bound yet (the bind timeout governs) */
	one_pending_pod(1000, "");
	obs.classes[0].pvc_bound = false;
	obs.classes[0].pvc_created = obs.now - 10;
	br_plan_compute(&obs, &plan);
	CHECK_INT(plan.classes[0].phase, BR_CLASS_BINDING);
	/* 0 means no limit */
	one_pending_pod(1000, why);
	obs.start_s = 0;
	br_plan_compute(&obs, &plan);
	CHECK_INT(plan.classes[0].phase, BR_CLASS_RUNNING);
	return T_PASS;
}

static int test_start_timeout_field(void)
{
	struct br_spec s;
	char err[512];
	CHECK_INT(parse("{\"storageClasses\":[\"a\"]}", &s, err, sizeof(err)), 0);
	long def = s.start_s;
	br_spec_release(&s);
	CHECK_INT(def, 300);
	CHECK_INT(parse("{\"storageClasses\":[\"a\"],\"runner\":{\"startTimeout\":\"90s\"}}", &s,
			err, sizeof(err)),
		  0);
	long set = s.start_s;
	br_spec_release(&s);
	CHECK_INT(set, 90);
	CHECK(expect_invalid("{\"storageClasses\":[\"a\"],\"runner\":{\"startTimeout\":\"5\"}}",
			     "spec.runner.startTimeout: '5' is not a duration") == T_PASS);
	CHECK(expect_invalid("{\"storageClasses\":[\"a\"],\"runner\":{\"startTimeout\":\"2s\"}}",
			     "spec.runner.startTimeout") == T_PASS);
	CHECK(expect_invalid("{\"storageClasses\":[\"a\"],\"runner\":{\"startTimeout\":\"25h\"}}",
			     "from 10s to 24h") == T_PASS);
	CHECK(expect_invalid("{\"storageClasses\":[\"a\"],\"runner\":{\"startTimeout\":5}}",
			     "spec.runner.startTimeout") == T_PASS);
	return T_PASS;
}

/* Issue 15, bug 4: a workload larger than its volume is refused, the field named. */
static int test_workload_larger_than_volume(void)
{
#define VOL "\"storageClasses\":[\"a\"],\"volume\":{\"size\":\"64Mi\"}"
	CHECK(expect_invalid("{" VOL ",\"workloads\":[{\"name\":\"ok\",\"rw\":\"read\"},"
			     "{\"name\":\"big\",\"rw\":\"read\",\"size\":\"1g\"}]}",
			     "spec.workloads[1].size: the workload needs 1073741824 bytes (size), "
			     "more than spec.volume.size 64Mi") == T_PASS);
	CHECK(expect_invalid("{" VOL ",\"fioJob\":\"[x]\\nrw=read\\nfilesize=40m\\n"
			     "nrfiles=2\\n\"}",
			     "spec.fioJob: job 'x': the workload needs 83886080 bytes (filesize "
			     "times nrfiles)") == T_PASS);
	CHECK(expect_invalid("{" VOL ",\"fioJob\":\"[x]\\nrw=read\\nsize=60m\\n"
			     "offset=10m\\n\"}",
			     "past its offset") == T_PASS);
	/* what fits, percentages and the profiles (their size follows spec.size) pass */
	static const char *const ok[] = {
		"{" VOL ",\"workloads\":[{\"name\":\"w\",\"rw\":\"read\",\"size\":\"64m\"}]}",
		"{" VOL ",\"fioJob\":\"[x]\\nrw=read\\nsize=100%\\n\"}",
		"{" VOL ",\"fioJob\":\"[x]\\nrw=read\\nfilesize=16m\\nnrfiles=4\\n\"}",
		"{" VOL ",\"profile\":\"storage-cluster\"}",
		"{" VOL ",\"profile\":\"nvme\"}",
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct br_spec s;
		char err[512] = "";
		int r = parse(ok[i], &s, err, sizeof(err));
		br_spec_release(&s);
		if (r) {
			fprintf(stderr, "    %s: %s\n", ok[i], err);
			return T_FAIL;
		}
	}
#undef VOL
	return T_PASS;
}

/* ------------------------------------------------------------- signing */

static const unsigned char KEY[SB_SIGN_KEY_BYTES] = "0123456789abcdef0123456789abcdef";

static int test_sign_and_verify(void)
{
	const char *text = "{\"jobs\":[]}";
	char mac[SB_SIGN_HEX_LEN + 1], mac2[SB_SIGN_HEX_LEN + 1];
	CHECK_INT(sb_sign_result(KEY, sizeof(KEY), &(struct sb_sign_subject){UID, "fast", 2, 0, 0},
				 text, strlen(text), mac),
		  0);
	CHECK_INT(strlen(mac), 64);
	CHECK_INT(sb_sign_verify(KEY, sizeof(KEY), &(struct sb_sign_subject){UID, "fast", 2, 0, 0},
				 text, strlen(text), mac),
		  0);
	/* the same inputs, the same MAC (a known answer would tie us to the format; the
	 * format is ours: determinism and every input counting are what matter) */
	CHECK_INT(sb_sign_result(KEY, sizeof(KEY), &(struct sb_sign_subject){UID, "fast", 2, 0, 0},
				 text, strlen(text), mac2),
		  0);
	CHECK_STR(mac, mac2);
	/* one byte of the text changed: refused */
	char t2[32];
	snprintf(t2, sizeof(t2), "%s", text);
	t2[3] ^= 1;
	CHECK_INT(sb_sign_verify(KEY, sizeof(KEY), &(struct sb_sign_subject){UID, "fast", 2, 0, 0},
				 t2, strlen(t2), mac),
		  -EBADMSG);
	/* moved to another iteration, class or run: refused */
	CHECK_INT(sb_sign_verify(KEY, sizeof(KEY), &(struct sb_sign_subject){UID, "fast", 3, 0, 0},
				 text, strlen(text), mac),
		  -EBADMSG);
	CHECK_INT(sb_sign_verify(KEY, sizeof(KEY), &(struct sb_sign_subject){UID, "fas", 2, 0, 0},
				 text, strlen(text), mac),
		  -EBADMSG);
	CHECK_INT(sb_sign_verify(KEY, sizeof(KEY),
				 &(struct sb_sign_subject){"other", "fast", 2, 0, 0}, text,
				 strlen(text), mac),
		  -EBADMSG);
	/* another key */
	unsigned char k2[SB_SIGN_KEY_BYTES];
	memcpy(k2, KEY, sizeof(k2));
	k2[31] ^= 0x80;
	CHECK_INT(sb_sign_verify(k2, sizeof(k2), &(struct sb_sign_subject){UID, "fast", 2, 0, 0},
				 text, strlen(text), mac),
		  -EBADMSG);
	/* one hex digit of the MAC changed; malformed MACs */
	snprintf(mac2, sizeof(mac2), "%s", mac);
	mac2[10] = mac2[10] == '0' ? '1' : '0';
	CHECK_INT(sb_sign_verify(KEY, sizeof(KEY), &(struct sb_sign_subject){UID, "fast", 2, 0, 0},
				 text, strlen(text), mac2),
		  -EBADMSG);
	CHECK_INT(sb_sign_verify(KEY, sizeof(KEY), &(struct sb_sign_subject){UID, "fast", 2, 0, 0},
				 text, strlen(text), "abc"),
		  -EINVAL);
	mac2[5] = 'g';
	CHECK_INT(sb_sign_verify(KEY, sizeof(KEY), &(struct sb_sign_subject){UID, "fast", 2, 0, 0},
				 text, strlen(text), mac2),
		  -EINVAL);
	CHECK_INT(sb_sign_result(KEY, 16, &(struct sb_sign_subject){UID, "fast", 2, 0, 0}, text,
				 strlen(text), mac),
		  -EINVAL);
	/* random keys differ */
	unsigned char a[SB_SIGN_KEY_BYTES], b[SB_SIGN_KEY_BYTES];
	CHECK_INT(sb_sign_keygen(a), 0);
	CHECK_INT(sb_sign_keygen(b), 0);
	CHECK(memcmp(a, b, sizeof(a)) != 0);
	return T_PASS;
}

static int test_key_file(void)
{
	char path[] = "/tmp/sb-test-key-XXXXXX";
	unsigned char k[SB_SIGN_KEY_BYTES];
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	CHECK(write(fd, KEY, 31) == 31);
	int short_r = sb_sign_read_key(path, k);
	CHECK(write(fd, KEY + 31, 1) == 1);
	int ok_r = sb_sign_read_key(path, k);
	CHECK(write(fd, "x", 1) == 1);
	int long_r = sb_sign_read_key(path, k);
	close(fd);
	unlink(path);
	CHECK_INT(short_r, -EINVAL);
	CHECK_INT(ok_r, 0);
	CHECK(!memcmp(k, KEY, sizeof(k)));
	CHECK_INT(long_r, -EINVAL);
	CHECK_INT(sb_sign_read_key(path, k), -ENOENT);
	return T_PASS;
}

/* The result rule with a key: a forged result with the right labels and owner. */
static int test_result_rule_signed(void)
{
	char mac[SB_SIGN_HEX_LEN + 1];
	json_t *cm = result(UID, NULL);
	const char *text =
		json_string_value(json_object_get(json_object_get(cm, "data"), SB_RESULT_KEY));
	CHECK_INT(sb_sign_result(KEY, sizeof(KEY), &(struct sb_sign_subject){UID, "fast", 2, 0, 0},
				 text, strlen(text), mac),
		  0);
	json_object_set_new(json_object_get(cm, "data"), SB_RESULT_MAC_KEY, json_string(mac));
	json_t *forged = json_deep_copy(cm);
	json_t *unsigned_cm = json_deep_copy(cm);
	json_object_del(json_object_get(unsigned_cm, "data"), SB_RESULT_MAC_KEY);
	/* the iops changed by one digit, MAC kept */
	json_object_set_new(
		json_object_get(forged, "data"), SB_RESULT_KEY,
		json_string("{\"jobs\":[{\"jobname\":\"b\"}],\"context\":{\"run\":\"r\","
			    "\"class\":\"fast\",\"iteration\":2}}"));
	struct sb_result_want w = {"ns", "r", UID, "fast", 2, KEY};
	char why[512] = "";
	int good = sb_result_check(cm, &w, NULL, why, sizeof(why));
	int bad = sb_result_check(forged, &w, NULL, why, sizeof(why));
	char bad_why[512];
	snprintf(bad_why, sizeof(bad_why), "%s", why);
	int none = sb_result_check(unsigned_cm, &w, NULL, why, sizeof(why));
	json_decref(cm);
	json_decref(forged);
	json_decref(unsigned_cm);
	CHECK_INT(good, 0);
	CHECK_INT(bad, -EINVAL);
	CHECK(strstr(bad_why, "does not match"));
	CHECK_INT(none, -EINVAL);
	CHECK(strstr(why, "missing (not signed"));
	return T_PASS;
}

/* A run's key: derived from the master and the UID, written into its Secret, mounted. */
static int test_run_key(void)
{
	unsigned char k1[SB_SIGN_KEY_BYTES], k2[SB_SIGN_KEY_BYTES], k3[SB_SIGN_KEY_BYTES];
	unsigned char dec[48];
	CHECK_INT(br_runkey_derive(UID, k1), -EAGAIN); /* no master yet */
	br_runkey_set_master(KEY);
	CHECK_INT(br_runkey_derive(UID, k1), 0);
	CHECK_INT(br_runkey_derive(UID, k2), 0);
	CHECK_INT(br_runkey_derive("0b7c1e52-1111-4222-8333-944445555667", k3), 0);
	CHECK(!memcmp(k1, k2, sizeof(k1)));
	CHECK(memcmp(k1, k3, sizeof(k1)) != 0);
	CHECK(memcmp(k1, KEY, sizeof(k1)) != 0);
	struct br_ref ref = {"ns", "r", UID};
	json_t *sec = br_runkey_secret_manifest(&ref);
	CHECK(sec);
	const char *name =
		json_string_value(json_object_get(json_object_get(sec, "metadata"), "name"));
	const json_t *own = json_array_get(
		json_object_get(json_object_get(sec, "metadata"), "ownerReferences"), 0);
	const char *data = json_string_value(
		json_object_get(json_object_get(sec, "data"), SB_SIGN_SECRET_KEY));
	bool name_ok = name && !strcmp(name, "r-key-0b7c1e52");
	bool own_ok = own && !strcmp(json_string_value(json_object_get(own, "uid")), UID);
	int n = data ? EVP_DecodeBlock(dec, (const unsigned char *)data, (int)strlen(data)) : -1;
	bool data_ok = n == 33 && !memcmp(dec, k1, sizeof(k1));
	json_decref(sec);
	CHECK(name_ok && own_ok && data_ok);
	/* the runner pod mounts it read-only at SB_SIGN_DIR */
	json_t *pod =
		json_pack("{s:{s:[],s:[{s:[]}]}}", "spec", "volumes", "containers", "volumeMounts");
	CHECK_INT(br_runkey_add_to_pod(pod, &ref), 0);
	const json_t *v =
		json_array_get(json_object_get(json_object_get(pod, "spec"), "volumes"), 0);
	const json_t *m = json_array_get(
		json_object_get(
			json_array_get(json_object_get(json_object_get(pod, "spec"), "containers"),
				       0),
			"volumeMounts"),
		0);
	bool vol_ok = !strcmp(json_string_value(
				      json_object_get(json_object_get(v, "secret"), "secretName")),
			      "r-key-0b7c1e52") &&
		      !strcmp(json_string_value(json_object_get(m, "mountPath")), SB_SIGN_DIR) &&
		      json_is_true(json_object_get(m, "readOnly"));
	json_decref(pod);
	CHECK(vol_ok);
	return T_PASS;
}

/*
 * Issue 34: the MAC binds the member (a distributed run's pod index) and the
 * attempt: a result signed for member 1 does not verify as member 2, nor as
 * another attempt, nor in the format without them; relabelled, its
 * ConfigMap is refused by the result rule.
 */
static int test_sign_binds_member_and_attempt(void)
{
	const char *text = "{\"jobs\":[]}";
	size_t n = strlen(text);
	char mac[SB_SIGN_HEX_LEN + 1];
	struct sb_sign_subject m1 = {UID, "fast", 2, 1, 1};
	CHECK_INT(sb_sign_result(KEY, sizeof(KEY), &m1, text, n, mac), 0);
	CHECK_INT(sb_sign_verify(KEY, sizeof(KEY), &m1, text, n, mac), 0);
	struct sb_sign_subject m2 = {UID, "fast", 2, 2, 1}, a2 = {UID, "fast", 2, 1, 2},
			       none = {UID, "fast", 2, 0, 0};
	CHECK_INT(sb_sign_verify(KEY, sizeof(KEY), &m2, text, n, mac), -EBADMSG);
	CHECK_INT(sb_sign_verify(KEY, sizeof(KEY), &a2, text, n, mac), -EBADMSG);
	CHECK_INT(sb_sign_verify(KEY, sizeof(KEY), &none, text, n, mac), -EBADMSG);
	/* member 12 attempt 1 and member 1 attempt 21 differ (each part ends with its NUL) */
	struct sb_sign_subject x = {UID, "fast", 2, 12, 1}, y = {UID, "fast", 2, 1, 21};
	char mx[SB_SIGN_HEX_LEN + 1], my[SB_SIGN_HEX_LEN + 1];
	CHECK_INT(sb_sign_result(KEY, sizeof(KEY), &x, text, n, mx), 0);
	CHECK_INT(sb_sign_result(KEY, sizeof(KEY), &y, text, n, my), 0);
	CHECK(strcmp(mx, my) != 0);

	/* the result rule reads the member and attempt from the labels the MAC binds */
	json_t *cm = result(UID, NULL);
	const char *doc =
		json_string_value(json_object_get(json_object_get(cm, "data"), SB_RESULT_KEY));
	CHECK_INT(sb_sign_result(KEY, sizeof(KEY), &m1, doc, strlen(doc), mac), 0);
	json_t *labels = json_object_get(json_object_get(cm, "metadata"), "labels");
	json_object_set_new(json_object_get(cm, "data"), SB_RESULT_MAC_KEY, json_string(mac));
	json_object_set_new(labels, SB_LABEL_MEMBER, json_string("1"));
	json_object_set_new(labels, SB_LABEL_ATTEMPT, json_string("1"));
	struct sb_result_want w = {"ns", "r", UID, "fast", 2, KEY};
	char why[512] = "", why2[512] = "", why3[512] = "";
	int as_m1 = sb_result_check(cm, &w, NULL, why, sizeof(why));
	json_object_set_new(labels, SB_LABEL_MEMBER, json_string("2"));
	int as_m2 = sb_result_check(cm, &w, NULL, why2, sizeof(why2));
	json_object_set_new(labels, SB_LABEL_MEMBER, json_string("1"));
	json_object_set_new(labels, SB_LABEL_ATTEMPT, json_string("2"));
	int as_a2 = sb_result_check(cm, &w, NULL, why, sizeof(why));
	json_object_set_new(labels, SB_LABEL_ATTEMPT, json_string("x"));
	int bad_label = sb_result_check(cm, &w, NULL, why3, sizeof(why3));
	json_decref(cm);
	CHECK_INT(as_m1, 0);
	CHECK_INT(as_m2, -EINVAL);
	CHECK(strstr(why2, "does not match the result, its member and attempt"));
	CHECK_INT(as_a2, -EINVAL);
	CHECK_INT(bad_label, -EINVAL);
	CHECK(strstr(why3, "label storagebench.io/attempt: 'x' is not a number"));
	return T_PASS;
}

/*
 * The formats, pinned: a result's MAC (v1 and v2) and a run's key, as
 * HMAC-SHA256 computed outside the project (Python's hmac over the bytes
 * lib/result/sign.h and controller/run/runkey.h describe). Results signed
 * before an upgrade must still verify after it.
 */
static int test_known_answers(void)
{
	unsigned char key[SB_SIGN_KEY_BYTES], derived[SB_SIGN_KEY_BYTES];
	char mac[SB_SIGN_HEX_LEN + 1], hex[SB_SIGN_HEX_LEN + 1];
	for (int i = 0; i < SB_SIGN_KEY_BYTES; i++)
		key[i] = (unsigned char)i;
	struct sb_sign_subject v1 = {"u", "fast", 2, 0, 0}, v2 = {"u", "fast", 2, 1, 3};
	CHECK_INT(sb_sign_result(key, sizeof(key), &v1, "{}", 2, mac), 0);
	CHECK_STR(mac, "48692ee47565f7517ce47345afd199f75e4f838d9e857f7eba651e61d6a76935");
	CHECK_INT(sb_sign_result(key, sizeof(key), &v2, "{}", 2, mac), 0);
	CHECK_STR(mac, "9db4c088abd414dc37538ade498f64e0a2c3cdecad5982ea6ef942128c12a291");
	br_runkey_set_master(key);
	int dr = br_runkey_derive("uid-1", derived);
	br_runkey_clear();
	CHECK_INT(dr, 0);
	for (int i = 0; i < SB_SIGN_KEY_BYTES; i++)
		snprintf(hex + 2 * i, 3, "%02x", derived[i]);
	CHECK_STR(hex, "02969973f684756cc6277a8a4411022d29c70eb695400d631d2437d9e4cbf624");
	return T_PASS;
}

static const struct test_case cases[] = {
	{"runkey/derive-secret-mount", test_run_key},
	{"sign/sign-and-verify", test_sign_and_verify},
	{"sign/known-answers", test_known_answers},
	{"sign/binds-member-and-attempt", test_sign_binds_member_and_attempt},
	{"sign/key-file", test_key_file},
	{"owner/result-rule-signed", test_result_rule_signed},
	{"spec/workload-larger-than-volume", test_workload_larger_than_volume},
	{"owner/verdicts", test_owner_verdicts},
	{"owner/result-rule", test_result_rule},
	{"plan/start-timeout", test_start_timeout},
	{"spec/start-timeout-field", test_start_timeout_field},
};
TEST_MAIN(cases)
