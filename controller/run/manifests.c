/* SPDX-License-Identifier: MIT */
#include "controller/run/manifests.h"

#include "controller/run/runkey.h"
#include "controller/run/objstore.h"

#include "core/invocation.h"
#include "core/labels.h"
#include "core/names.h"
#include "report/compare.h"
#include "report/report.h"
#include "time/rfc3339.h"
#include "report/svg/svg.h"
#include "result/sign.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

time_t br_time_parse(const char *s)
{
	time_t t;
	return sb_rfc3339_parse(s, &t, NULL, 0) ? 0 : t;
}

/* metadata with the run's labels, annotations and ownerReference. */
static json_t *metadata(const struct br_ref *run, const char *name, const char *component,
			const char *cls)
{
	char run_label[64], cls_label[64];
	if (sb_name_label(run_label, sizeof(run_label), run->name))
		return NULL;
	json_t *m =
		json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:s},s:{s:s},s:[{s:s,s:s,s:s,s:s,s:b,s:b}]}",
			  "name", name, "namespace", run->ns, "labels", SB_LABEL_NAME, SB_APP_NAME,
			  SB_LABEL_COMPONENT, component, SB_LABEL_MANAGED_BY, SB_MANAGER,
			  SB_LABEL_RUN, run_label, "annotations", SB_ANNOT_RUN, run->name,
			  "ownerReferences", "apiVersion", SB_API_VERSION, "kind", SB_KIND, "name",
			  run->name, "uid", run->uid, "controller", 1, "blockOwnerDeletion", 1);
	if (m && cls) {
		if (sb_name_label(cls_label, sizeof(cls_label), cls) ||
		    json_object_set_new(json_object_get(m, "labels"), SB_LABEL_CLASS,
					json_string(cls_label)) ||
		    json_object_set_new(json_object_get(m, "annotations"), SB_ANNOT_CLASS,
					json_string(cls))) {
			json_decref(m);
			return NULL;
		}
	}
	return m;
}

json_t *br_pvc_manifest(const struct br_ref *run, const struct br_spec *s, const char *cls)
{
	char name[64];
	if (sb_name_pvc(name, sizeof(name), run->name, cls))
		return NULL;
	json_t *md = metadata(run, name, "volume", cls);
	if (!md)
		return NULL;
	return json_pack("{s:s,s:s,s:o,s:{s:[s],s:s,s:s,s:{s:{s:s}}}}", "apiVersion", "v1", "kind",
			 "PersistentVolumeClaim", "metadata", md, "spec", "accessModes",
			 s->access_mode, "storageClassName", cls, "volumeMode",
			 s->block ? "Block" : "Filesystem", "resources", "requests", "storage",
			 s->volume_size);
}

static bool set(json_t *o, const char *key, json_t *v)
{
	return v && json_object_set_new(o, key, v) == 0;
}

/*
 * The runner container's security context: the run's typed subset over
 * the restricted defaults (no privilege escalation, read-only root, every
 * capability dropped, the run's or the RuntimeDefault seccomp profile).
 * Escalation is left unset when privileged or SYS_ADMIN asks for it (the
 * API server refuses false with them); the policy decided whether they
 * may be asked for.
 */
static json_t *container_security_context(const struct br_spec *s)
{
	const json_t *in = s->container_security_context;
	const json_t *add = json_object_get(json_object_get(in, "capabilities"), "add");
	bool escalates = json_is_true(json_object_get(in, "privileged"));
	size_t i;
	const json_t *c;
	json_array_foreach(add, i, c)
	{
		const char *cs = json_string_value(c);
		escalates = escalates || !strcmp(cs, "SYS_ADMIN") || !strcmp(cs, "CAP_SYS_ADMIN");
	}
	json_t *sc = json_pack("{s:b,s:{s:[s]}}", "readOnlyRootFilesystem", 1, "capabilities",
			       "drop", "ALL");
	json_t *sp =
		json_pack("{s:s}", "type", s->seccomp_type[0] ? s->seccomp_type : "RuntimeDefault");
	bool ok = sc && sp &&
		  (!s->seccomp_profile[0] ||
		   set(sp, "localhostProfile", json_string(s->seccomp_profile))) &&
		  !json_object_set(sc, "seccompProfile", sp);
	if (ok && !escalates)
		ok = set(sc, "allowPrivilegeEscalation", json_false());
	if (ok && add)
		ok = !json_object_set_new(json_object_get(sc, "capabilities"), "add",
					  json_deep_copy(add));
	static const char *const keys[] = {"privileged", "allowPrivilegeEscalation",
					   "readOnlyRootFilesystem"};
	for (size_t k = 0; ok && k < sizeof(keys) / sizeof(keys[0]); k++)
		if (json_object_get(in, keys[k]))
			ok = set(sc, keys[k], json_deep_copy(json_object_get(in, keys[k])));
	json_decref(sp);
	if (!ok) {
		json_decref(sc);
		return NULL;
	}
	return sc;
}

/*
 * The runner pod's security context: the run's typed subset, over
 * runAsNonRoot (unless the run runs as root). A filesystem volume with no
 * securityContext in the run gets the image's user, 65532, and fsGroup
 * 65532 (volumes that honour it become writable); block volumes keep the
 * image's user.
 */
static json_t *pod_security_context(const struct br_spec *s)
{
	json_t *sc = s->security_context ? json_deep_copy(s->security_context)
		     : !s->block ? json_pack("{s:i,s:i,s:i}", "runAsUser", 65532, "runAsGroup",
					     65532, "fsGroup", 65532)
				 : json_object();
	const json_t *uid = json_object_get(sc, "runAsUser");
	bool root = json_is_integer(uid) && json_integer_value(uid) == 0;
	if (sc && !json_object_get(sc, "runAsNonRoot") && !root &&
	    json_object_set_new(sc, "runAsNonRoot", json_true())) {
		json_decref(sc);
		return NULL;
	}
	return sc;
}

json_t *br_pod_manifest(const struct br_ref *run, const struct br_spec *s, const char *cls,
			unsigned attempt, unsigned iterations)
{
	return br_pod_manifest_member(run, s, cls, attempt, iterations, 0, NULL);
}

json_t *br_pod_manifest_member(const struct br_ref *run, const struct br_spec *s, const char *cls,
			       unsigned attempt, unsigned iterations, unsigned member,
			       const char *done)
{
	char name[64], pvc[64], spec_cm[64], buf[32];
	if (sb_name_pod(name, sizeof(name), run->name, cls, attempt) ||
	    sb_name_pvc(pvc, sizeof(pvc), run->name, cls) ||
	    sb_name_spec(spec_cm, sizeof(spec_cm), run->name))
		return NULL;
	json_t *md = metadata(run, name, SB_COMPONENT_RUNNER, cls);
	json_t *pod = NULL, *ctr = NULL, *env = NULL, *vols = NULL, *mounts = NULL, *args = NULL;
	bool ok = md != NULL;

	snprintf(buf, sizeof(buf), "%u", attempt);
	ok = ok && set(json_object_get(md, "labels"), SB_LABEL_ATTEMPT, json_string(buf));
	/* an object store's pod: the S3 runner, keys from its Secret, no volume */
	const struct br_object_store *st = br_objstore_find(s->obj, cls);
	if (st)
		args = ok ? br_objstore_runner_args(s->obj, st) : NULL;
	else
		args = ok ? br_spec_runner_args(s, BR_SPEC_DIR "/" BR_JOBFILE_KEY, BR_DATA_DIR,
						BR_DEVICE)
			  : NULL;
	/* the invocation (lib/core/invocation.h): the runner checks the mounted job file
	 * against the digest of what was written */
	char dg[SB_SIGN_HEX_LEN + 1];
	struct sb_invocation inv = {.run = run->name,
				    .uid = run->uid,
				    .cls = cls,
				    .iterations = iterations,
				    .attempt = attempt,
				    .member = member,
				    .members = member ? s->pods : 1,
				    .done = done,
				    .barrier_s = s->barrier_s};
	if (s->jobfile && !st && !s->profile[0]) {
		ok = ok && sb_sha256_hex(s->jobfile, strlen(s->jobfile), dg) == 0;
		inv.jobfile_sha256 = dg;
	}
	env = args ? json_array() : NULL;
	ok = ok && env && sb_invocation_env(&inv, env) == 0;
	size_t i;
	json_t *e;
	json_array_foreach(s->env, i, e)
	{
		ok = ok && env && json_array_append(env, e) == 0;
	}
	ok = ok && env;
	if (ok && st) {
		json_t *keys = br_objstore_env(st);
		ok = keys && json_array_extend(env, keys) == 0;
		json_decref(keys);
	}
	vols = st ? json_array()
		  : json_pack("[{s:s,s:{s:s}}]", "name", "data", "persistentVolumeClaim",
			      "claimName", pvc);
	mounts = json_array();
	ok = ok && vols && mounts;
	if (ok && s->jobfile && !st) {
		ok = json_array_append_new(vols, json_pack("{s:s,s:{s:s}}", "name", "spec",
							   "configMap", "name", spec_cm)) == 0 &&
		     json_array_append_new(mounts,
					   json_pack("{s:s,s:s,s:b}", "name", "spec", "mountPath",
						     BR_SPEC_DIR, "readOnly", 1)) == 0;
	}
	if (ok && !s->block && !st)
		ok = json_array_append_new(mounts, json_pack("{s:s,s:s}", "name", "data",
							     "mountPath", BR_DATA_DIR)) == 0;
	json_t *csc = ok ? container_security_context(s) : NULL;
	ctr = csc ? json_pack("{s:s,s:s,s:[s],s:O,s:O,s:O,s:s,s:o}", "name", SB_CONTAINER_RUNNER,
			      "image", s->image, "command", "storagebench-runner", "args", args,
			      "env", env, "volumeMounts", mounts, "terminationMessagePolicy",
			      "FallbackToLogsOnError", "securityContext", csc)
		  : NULL;
	ok = ctr != NULL;
	if (ok && s->block && !st)
		ok = set(ctr, "volumeDevices",
			 json_pack("[{s:s,s:s}]", "name", "data", "devicePath", BR_DEVICE));
	if (ok && s->pull_policy[0])
		ok = set(ctr, "imagePullPolicy", json_string(s->pull_policy));
	if (ok && s->resources)
		ok = set(ctr, "resources", json_deep_copy(s->resources));
	pod = ok ? json_pack("{s:s,s:s,s:O,s:{s:s,s:s,s:[O],s:O}}", "apiVersion", "v1", "kind",
			     "Pod", "metadata", md, "spec", "restartPolicy", "Never",
			     "serviceAccountName", s->service_account, "containers", ctr, "volumes",
			     vols)
		 : NULL;
	ok = pod != NULL;
	json_t *ps = ok ? json_object_get(pod, "spec") : NULL;
	if (ok && s->host_network)
		ok = set(ps, "hostNetwork", json_true()) &&
		     set(ps, "dnsPolicy", json_string("ClusterFirstWithHostNet"));
	if (ok && s->node_selector)
		ok = set(ps, "nodeSelector", json_deep_copy(s->node_selector));
	if (ok && s->tolerations)
		ok = set(ps, "tolerations", json_deep_copy(s->tolerations));
	if (ok && s->affinity)
		ok = set(ps, "affinity", json_deep_copy(s->affinity));
	if (ok)
		ok = set(ps, "securityContext", pod_security_context(s));
	if (ok) /* the run's result signing key (controller/run/runkey.h) */
		ok = br_runkey_add_to_pod(pod, run) == 0;
	json_decref(md);
	json_decref(args);
	json_decref(env);
	json_decref(vols);
	json_decref(mounts);
	json_decref(ctr);
	if (!ok) {
		json_decref(pod);
		return NULL;
	}
	return pod;
}

json_t *br_spec_cm_manifest(const struct br_ref *run, const struct br_spec *s)
{
	char name[64];
	if (!s->jobfile || sb_name_spec(name, sizeof(name), run->name))
		return NULL;
	json_t *md = metadata(run, name, SB_COMPONENT_SPEC, NULL);
	if (!md)
		return NULL;
	return json_pack("{s:s,s:s,s:o,s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
			 "metadata", md, "data", BR_JOBFILE_KEY, s->jobfile);
}

json_t *br_report_cm_manifest(const struct br_ref *run, const json_t *report)
{
	static const struct {
		const char *format, *key;
	} formats[] = {{"txt", SB_REPORT_TXT_KEY},
		       {"md", "report.md"},
		       {"csv", "report.csv"},
		       {"json", SB_REPORT_JSON_KEY},
		       {"svg", "report.svg"}};
	char name[64], err[256];
	if (sb_name_report(name, sizeof(name), run->name))
		return NULL;
	json_t *md = metadata(run, name, SB_COMPONENT_REPORT, NULL);
	json_t *data = json_object();
	bool ok = md && data;
	for (size_t i = 0; ok && i < sizeof(formats) / sizeof(formats[0]); i++) {
		char *text = sb_report_render(report, formats[i].format, err, sizeof(err));
		if (!text) {
			if (!strcmp(formats[i].format, "svg"))
				continue; /* charts are optional */
			ok = false;
			break;
		}
		ok = set(data, formats[i].key, json_string(text));
		free(text);
	}
	/* a distributed run: one row per pod and iteration (lib/report/dist.h) */
	if (ok && json_object_get(report, "distributed")) {
		char *pods = sb_report_render(report, "pods.csv", err, sizeof(err));
		ok = pods && set(data, "report-pods.csv", json_string(pods));
		free(pods);
	}
	/* one chart per family of workloads, when the report has more than one */
	unsigned mask = 0;
	if (ok && sb_report_svg_panels(report, &mask, err, sizeof(err)) == 0 &&
	    (mask & (mask - 1)) != 0) {
		for (unsigned bit = 1; ok && bit & SB_SVG_ALL; bit <<= 1) {
			char *svg = NULL, key[64];
			if (!(mask & bit) || sb_report_svg(report, bit, &svg, err, sizeof(err)))
				continue;
			snprintf(key, sizeof(key), "report-%s.svg", sb_report_svg_panel_name(bit));
			ok = set(data, key, json_string(svg));
			free(svg);
		}
	}
	json_t *cm = ok ? json_pack("{s:s,s:s,s:O,s:O}", "apiVersion", "v1", "kind", "ConfigMap",
				    "metadata", md, "data", data)
			: NULL;
	json_decref(md);
	json_decref(data);
	return cm;
}

static size_t data_bytes(const json_t *data)
{
	size_t n = 0;
	const char *k;
	const json_t *v;
	json_object_foreach((json_t *)data, k, v) n += strlen(k) + json_string_length(v);
	return n;
}

/* The key br_report_cm_fit leaves out next: the largest rendering, report.txt last; NULL. */
static const char *next_to_omit(const json_t *data)
{
	const char *best = NULL, *k;
	size_t most = 0;
	const json_t *v;
	json_object_foreach((json_t *)data, k, v)
	{
		if (!strcmp(k, SB_REPORT_JSON_KEY) || !strcmp(k, BR_COMPARE_KEY) ||
		    !strcmp(k, BR_REPORT_OMITTED_KEY) || !strcmp(k, SB_REPORT_TXT_KEY))
			continue;
		if (!best || json_string_length(v) > most)
			best = k, most = json_string_length(v);
	}
	if (!best && json_object_get(data, SB_REPORT_TXT_KEY))
		best = SB_REPORT_TXT_KEY;
	return best;
}

int br_report_cm_fit(json_t *cm, size_t max, char *why, size_t whylen)
{
	json_t *data = json_object_get(cm, "data");
	char list[1024] = "";
	size_t ll = 0;
	int n = 0;
	if (!json_is_object(data))
		return -ENOMEM;
	/* room for the note itself: its key and at most the list's buffer */
	size_t room = max > sizeof(list) + 64 ? max - sizeof(list) - 64 : 0;
	while (data_bytes(data) > (n ? room : max)) {
		const char *k = next_to_omit(data);
		if (!k) {
			snprintf(why, whylen,
				 "%s and %s are %zu bytes, more than a ConfigMap holds (%zu)",
				 SB_REPORT_JSON_KEY, BR_COMPARE_KEY, data_bytes(data), max);
			return -E2BIG;
		}
		int w = snprintf(list + ll, sizeof(list) - ll, "%s%s (%zu bytes)", ll ? ", " : "",
				 k, json_string_length(json_object_get(data, k)));
		if (w > 0 && (size_t)w < sizeof(list) - ll)
			ll += (size_t)w;
		json_object_del(data, k);
		n++;
	}
	if (!n)
		return 0;
	char note[1200];
	snprintf(note, sizeof(note),
		 "left out: %s; a ConfigMap holds at most %zu bytes of data, so the largest "
		 "renderings go first; report.json has every figure\n",
		 list, max);
	if (json_object_set_new(data, BR_REPORT_OMITTED_KEY, json_string(note)))
		return -ENOMEM;
	snprintf(why, whylen, "%s", note);
	return n;
}

int br_report_cm_add_comparison(json_t *cm, const json_t *comparison)
{
	static const char *const formats[] = {"txt", "md", "json"};
	json_t *data = json_object_get(cm, "data");
	char *text[3] = {NULL, NULL, NULL}, err[256];
	int ret = 0;

	if (!json_is_object(data))
		return -EINVAL;
	for (int i = 0; i < 3; i++)
		if (!(text[i] = sb_compare_render(comparison, formats[i], err, sizeof(err)))) {
			ret = -ENOMEM;
			goto out;
		}
	const char *rt = json_string_value(json_object_get(data, SB_REPORT_TXT_KEY));
	size_t len = (rt ? strlen(rt) : 0) + strlen(text[0]) + 64;
	char *both = malloc(len);
	if (!both) {
		ret = -ENOMEM;
		goto out;
	}
	snprintf(both, len, "%s\n=== compared with the baseline\n%s", rt ? rt : "", text[0]);
	if (json_object_set_new(data, SB_REPORT_TXT_KEY, json_string(both)) ||
	    json_object_set_new(data, "compare.txt", json_string(text[0])) ||
	    json_object_set_new(data, "compare.md", json_string(text[1])) ||
	    json_object_set_new(data, BR_COMPARE_KEY, json_string(text[2])))
		ret = -ENOMEM;
	free(both);
out:
	for (int i = 0; i < 3; i++)
		free(text[i]);
	return ret;
}

json_t *br_event_manifest(const struct br_ref *run, const struct br_event *e, time_t now,
			  unsigned seq)
{
	char name[320], ts[40];
	snprintf(name, sizeof(name), "%s.%llx%04x", run->name, (unsigned long long)now,
		 seq & 0xffff);
	sb_rfc3339_format(now, ts, sizeof(ts));
	return json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:s,s:s,s:s,s:s,s:s},s:s,s:s,s:s,s:{s:s},s:s,"
			 "s:s,s:i,s:s}",
			 "apiVersion", "v1", "kind", "Event", "metadata", "name", name, "namespace",
			 run->ns, "involvedObject", "apiVersion", SB_API_VERSION, "kind", SB_KIND,
			 "name", run->name, "namespace", run->ns, "uid", run->uid, "reason",
			 e->reason, "message", e->message, "type",
			 e->warning ? "Warning" : "Normal", "source", "component", SB_MANAGER,
			 "firstTimestamp", ts, "lastTimestamp", ts, "count", 1,
			 "reportingComponent", SB_MANAGER);
}
