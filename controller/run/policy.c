/* SPDX-License-Identifier: MIT */
#include "controller/run/policy.h"
#include "controller/core/ops.h"
#include "controller/run/objstore.h"
#include "core/errfmt.h"
#include "core/labels.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_RUNNER_SA "storagebench-runner"

static const char *const level_names[] = {"restricted", "baseline", "privileged"};

/* The capabilities the baseline level lets a container add (the PSS list). */
static const char *const baseline_caps[] = {
	"AUDIT_WRITE",	    "CHOWN",   "DAC_OVERRIDE", "FOWNER",  "FSETID", "KILL",	 "MKNOD",
	"NET_BIND_SERVICE", "SETFCAP", "SETGID",       "SETPCAP", "SETUID", "SYS_CHROOT"};

/* The volume types the restricted level allows. */
static const char *const restricted_volumes[] = {"configMap", "csi",	   "downwardAPI",
						 "emptyDir",  "ephemeral", "persistentVolumeClaim",
						 "projected", "secret"};

const char *br_pss_level_name(enum br_pss_level l)
{
	return (unsigned)l < 3 ? level_names[l] : "unknown";
}

int br_pss_level_parse(const char *s, enum br_pss_level *out)
{
	for (int i = 0; s && i < 3; i++)
		if (!strcmp(s, level_names[i])) {
			*out = (enum br_pss_level)i;
			return 0;
		}
	return -EINVAL;
}

static bool in_set(const char *v, const char *const *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v, set[i]))
			return true;
	return false;
}

/* A capability name without its optional CAP_ prefix. */
static const char *cap_name(const char *c)
{
	return strncmp(c, "CAP_", 4) ? c : c + 4;
}

/* The widest level that lets a container add capability c. */
static enum br_pss_level cap_level(const char *c)
{
	c = cap_name(c);
	if (!strcmp(c, "NET_BIND_SERVICE"))
		return BR_PSS_RESTRICTED;
	if (in_set(c, baseline_caps, sizeof(baseline_caps) / sizeof(baseline_caps[0])))
		return BR_PSS_BASELINE;
	return BR_PSS_PRIVILEGED;
}

static bool valid_list_item(const char *t, bool image)
{
	size_t n = strlen(t);
	if (n == 0 || n > 253)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)t[i];
		if (ch <= ' ' || ch >= 0x7f || ch == ',')
			return false;
		if (!image && !(ch == '*' || ch == '-' || ch == '.' || (ch >= 'a' && ch <= 'z') ||
				(ch >= '0' && ch <= '9')))
			return false;
	}
	return true;
}

static int add_list(struct br_policy *p, const char *flag, const char *value, bool image, char *err,
		    size_t errlen)
{
	if (p->nowned == sizeof(p->owned) / sizeof(p->owned[0]))
		return sb_errf(err, errlen, -EINVAL, "--%s: given too often", flag);
	char *copy = strdup(value);
	if (!copy)
		return -ENOMEM;
	p->owned[p->nowned++] = copy;
	const char **list = image ? p->images : p->service_accounts;
	size_t *n = image ? &p->nimages : &p->nservice_accounts;
	char *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!valid_list_item(t, image))
			return sb_errf(err, errlen, -EINVAL, "--%s: '%s' is not %s", flag, t,
				       image ? "an image repository (reg/path/ or reg/path/name)"
					     : "a ServiceAccount name");
		if (!image && strchr(t, '*') && strcmp(t, "*"))
			return sb_errf(err, errlen, -EINVAL,
				       "--%s: '%s': '*' stands alone (every ServiceAccount)", flag,
				       t);
		if (image && strchr(t, '*') && strcmp(t, "*"))
			return sb_errf(err, errlen, -EINVAL,
				       "--%s: '%s': '*' stands alone (every image); end a prefix "
				       "with '/' instead",
				       flag, t);
		if (image &&
		    (strchr(t, '@') || (strrchr(t, ':') &&
					strrchr(t, ':') > (strrchr(t, '/') ? strrchr(t, '/') : t))))
			return sb_errf(err, errlen, -EINVAL,
				       "--%s: '%s' names a tag or digest; list repositories", flag,
				       t);
		if (*n == BR_POLICY_MAX_LIST)
			return sb_errf(err, errlen, -EINVAL, "--%s: at most %d entries", flag,
				       BR_POLICY_MAX_LIST);
		list[(*n)++] = t;
	}
	return 0;
}

/* A switch: --NAME alone, or =true/1, =false/0. 0 or -EINVAL with err. */
static int bool_flag(const char *name, const char *value, bool *out, char *err, size_t errlen)
{
	if (!value || !strcmp(value, "true") || !strcmp(value, "1"))
		*out = true;
	else if (!strcmp(value, "false") || !strcmp(value, "0"))
		*out = false;
	else
		return sb_errf(err, errlen, -EINVAL, "--%s: '%s' is not true or false", name,
			       value);
	return 0;
}

int br_policy_flag(struct br_policy *p, const char *name, const char *value, char *err,
		   size_t errlen)
{
	if (!strcmp(name, "runner-pod-security")) {
		if (!value || br_pss_level_parse(value, &p->pod_security))
			return sb_errf(err, errlen, -EINVAL,
				       "--runner-pod-security: '%s' is not restricted, baseline or "
				       "privileged",
				       value ? value : "");
		return 0;
	}
	if (!strcmp(name, "runner-allow-host-network"))
		return bool_flag(name, value, &p->allow_host_network, err, errlen);
	if (!strcmp(name, "runner-allow-control-plane"))
		return bool_flag(name, value, &p->allow_control_plane, err, errlen);
	if (!strcmp(name, "runner-allowed-images") ||
	    !strcmp(name, "runner-allowed-service-accounts")) {
		if (!value)
			return sb_errf(err, errlen, -EINVAL, "--%s: needs a value", name);
		return add_list(p, name, value, !strcmp(name, "runner-allowed-images"), err,
				errlen);
	}
	return 1;
}

void br_policy_release(struct br_policy *p)
{
	for (size_t i = 0; i < p->nowned; i++)
		free(p->owned[i]);
	const char *img = p->runner_image, *sa = p->runner_sa;
	*p = (struct br_policy)BR_POLICY_INIT;
	p->runner_image = img;
	p->runner_sa = sa;
}

/* The repository of an image reference: without "@digest" and ":tag". */
static void repository(const char *image, char *out, size_t len)
{
	snprintf(out, len, "%s", image);
	char *at = strchr(out, '@');
	if (at)
		*at = '\0';
	char *slash = strrchr(out, '/');
	char *colon = strrchr(slash ? slash : out, ':');
	if (colon)
		*colon = '\0';
}

bool br_policy_image_allowed(const struct br_policy *p, const char *image)
{
	char repo[512];
	if (!image || !*image)
		return false;
	if (p->runner_image && !strcmp(image, p->runner_image))
		return true;
	repository(image, repo, sizeof(repo));
	for (size_t i = 0; i < p->nimages; i++) {
		const char *a = p->images[i];
		size_t n = strlen(a);
		bool prefix = a[n - 1] == '/';
		if (!strcmp(a, "*") || (!prefix && !strcmp(repo, a)) ||
		    (prefix && !strncmp(repo, a, n) && repo[n] && repo[strlen(repo) - 1] != '/'))
			return true;
	}
	return false;
}

static bool sa_allowed(const struct br_policy *p, const char *sa)
{
	if (!strcmp(sa, p->runner_sa && *p->runner_sa ? p->runner_sa : DEFAULT_RUNNER_SA))
		return true;
	for (size_t i = 0; i < p->nservice_accounts; i++)
		if (!strcmp(p->service_accounts[i], "*") || !strcmp(p->service_accounts[i], sa))
			return true;
	return false;
}

/* How an admin widens the level: the chart value and the flag. */
static const char *widen(enum br_pss_level need)
{
	return need == BR_PSS_PRIVILEGED
		       ? "runnerPolicy.podSecurity=privileged (--runner-pod-security=privileged)"
		       : "runnerPolicy.podSecurity=baseline (--runner-pod-security=baseline)";
}

static int level_fail(const struct br_policy *p, enum br_pss_level need, const char *field,
		      const char *what, char *err, size_t errlen)
{
	return sb_errf(err, errlen, -EACCES,
		       "%s: %s is not allowed by the runner policy (pod security %s; it needs %s, "
		       "which an admin allows with %s)",
		       field, what, br_pss_level_name(p->pod_security), br_pss_level_name(need),
		       widen(need));
}

static const json_t *get(const json_t *o, const char *key)
{
	return json_is_object(o) ? json_object_get(o, key) : NULL;
}

/* The role label and taint keys of control-plane nodes (kubeadm's, before and since 1.20). */
static bool control_plane_key(const char *k)
{
	return k && (!strcmp(k, "node-role.kubernetes.io/control-plane") ||
		     !strcmp(k, "node-role.kubernetes.io/master"));
}

static int placement_fail(const char *field, const char *what, char *err, size_t errlen)
{
	return sb_errf(err, errlen, -EACCES,
		       "%s: %s is not allowed by the runner policy (runner pods stay off "
		       "control-plane nodes; an admin allows them there with "
		       "runnerPolicy.allowControlPlane (--runner-allow-control-plane))",
		       field, what);
}

/*
 * Placement: a toleration of the control-plane taint (or of every taint: no
 * key, operator Exists), or a nodeSelector or required node affinity term
 * on the control-plane role label, would put I/O-heavy pods on the nodes
 * that run the cluster. 0 or -EACCES with err.
 */
static int check_placement(const struct br_policy *p, const struct br_spec *s, char *err,
			   size_t errlen)
{
	char field[160];
	size_t i, j, k;
	const json_t *t, *term, *ex;
	if (p->allow_control_plane)
		return 0;
	json_array_foreach(s->tolerations, i, t)
	{
		const char *key = json_string_value(get(t, "key"));
		const char *op = json_string_value(get(t, "operator"));
		snprintf(field, sizeof(field), "spec.runner.tolerations[%zu]", i);
		if (control_plane_key(key))
			return placement_fail(field, "tolerating the control-plane taint", err,
					      errlen);
		if ((!key || !*key) && op && !strcmp(op, "Exists"))
			return placement_fail(field, "tolerating every taint (no key, Exists)", err,
					      errlen);
	}
	const char *sel;
	const json_t *v;
	json_object_foreach((json_t *)s->node_selector, sel, v)
	{
		if (control_plane_key(sel)) {
			snprintf(field, sizeof(field), "spec.runner.nodeSelector.%s", sel);
			return placement_fail(field, "selecting control-plane nodes", err, errlen);
		}
	}
	const json_t *req = get(get(get(s->affinity, "nodeAffinity"),
				    "requiredDuringSchedulingIgnoredDuringExecution"),
				"nodeSelectorTerms");
	json_array_foreach(req, i, term)
	{
		static const char *const lists[] = {"matchExpressions", "matchFields"};
		for (j = 0; j < 2; j++)
			json_array_foreach(get(term, lists[j]), k, ex)
			{
				const char *op = json_string_value(get(ex, "operator"));
				if (!control_plane_key(json_string_value(get(ex, "key"))) || !op ||
				    !strcmp(op, "NotIn") || !strcmp(op, "DoesNotExist"))
					continue;
				snprintf(field, sizeof(field),
					 "spec.runner.affinity.nodeAffinity."
					 "requiredDuringSchedulingIgnoredDuringExecution."
					 "nodeSelectorTerms[%zu].%s[%zu]",
					 i, lists[j], k);
				return placement_fail(field, "selecting control-plane nodes", err,
						      errlen);
			}
	}
	return 0;
}

int br_policy_check(const struct br_policy *p, const struct br_spec *s, char *err, size_t errlen)
{
	const char *P = "spec.runner";
	char what[600];

	if (!br_policy_image_allowed(p, s->image))
		return sb_errf(
			err, errlen, -EACCES,
			"%s.image: '%s' is not allowed by the runner policy (the runner image "
			"is %s%s%s; an admin allows other repositories with "
			"runnerPolicy.allowedImages (--runner-allowed-images))",
			P, s->image, p->runner_image ? "'" : "",
			p->runner_image ? p->runner_image : "not set", p->runner_image ? "'" : "");
	if (!sa_allowed(p, s->service_account))
		return sb_errf(
			err, errlen, -EACCES,
			"%s.serviceAccountName: '%s' is not allowed by the runner policy "
			"(runner pods run as '%s'; an admin allows other ServiceAccounts with "
			"runnerPolicy.allowedServiceAccounts (--runner-allowed-service-accounts))",
			P, s->service_account,
			p->runner_sa && *p->runner_sa ? p->runner_sa : DEFAULT_RUNNER_SA);
	if (s->host_network && !p->allow_host_network && p->pod_security < BR_PSS_PRIVILEGED)
		return sb_errf(
			err, errlen, -EACCES,
			"%s.hostNetwork: true is not allowed by the runner policy (runner pods "
			"use the pod network; an admin allows the node's network with "
			"runnerPolicy.allowHostNetwork (--runner-allow-host-network))",
			P);

	const json_t *csc = s->container_security_context, *psc = s->security_context;
	if (json_is_true(get(csc, "privileged")) && p->pod_security < BR_PSS_PRIVILEGED)
		return level_fail(p, BR_PSS_PRIVILEGED,
				  "spec.runner.containerSecurityContext.privileged", "true", err,
				  errlen);
	size_t i;
	const json_t *c;
	json_array_foreach(get(get(csc, "capabilities"), "add"), i, c)
	{
		enum br_pss_level need = cap_level(json_string_value(c));
		if (need > p->pod_security) {
			snprintf(what, sizeof(what), "adding %s", json_string_value(c));
			char field[128];
			snprintf(field, sizeof(field),
				 "spec.runner.containerSecurityContext.capabilities.add[%zu]", i);
			return level_fail(p, need, field, what, err, errlen);
		}
	}
	if (json_is_true(get(csc, "allowPrivilegeEscalation")) && p->pod_security < BR_PSS_BASELINE)
		return level_fail(p, BR_PSS_BASELINE,
				  "spec.runner.containerSecurityContext.allowPrivilegeEscalation",
				  "true", err, errlen);
	if (json_is_false(get(psc, "runAsNonRoot")) && p->pod_security < BR_PSS_BASELINE)
		return level_fail(p, BR_PSS_BASELINE, "spec.runner.securityContext.runAsNonRoot",
				  "false", err, errlen);
	const json_t *uid = get(psc, "runAsUser");
	if (json_is_integer(uid) && json_integer_value(uid) == 0 &&
	    p->pod_security < BR_PSS_BASELINE)
		return level_fail(p, BR_PSS_BASELINE, "spec.runner.securityContext.runAsUser",
				  "0 (root)", err, errlen);
	if (!strcmp(s->seccomp_type, "Unconfined") && p->pod_security < BR_PSS_PRIVILEGED)
		return level_fail(p, BR_PSS_PRIVILEGED, "spec.runner.seccompProfile.type",
				  "Unconfined", err, errlen);
	return check_placement(p, s, err, errlen);
}

/* ---- the Pod Security Standards, evaluated on a pod manifest ---- */

struct eval {
	enum br_pss_level level;
	char *why;
	size_t whylen;
};

/* Notes that the pod does not pass level below: it is at least above it. */
static void breaks(struct eval *e, enum br_pss_level above, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void breaks(struct eval *e, enum br_pss_level above, const char *fmt, ...)
{
	if (above <= e->level)
		return;
	e->level = above;
	if (e->why && e->whylen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->why, e->whylen, fmt, ap);
		va_end(ap);
	}
}

static void eval_container(struct eval *e, const json_t *ctr, const json_t *psc)
{
	const char *n = json_string_value(get(ctr, "name"));
	const json_t *sc = get(ctr, "securityContext");
	n = n ? n : "?";
	if (json_is_true(get(sc, "privileged")))
		breaks(e, BR_PSS_PRIVILEGED, "container %s: privileged", n);
	size_t i;
	const json_t *v;
	json_array_foreach(get(get(sc, "capabilities"), "add"), i, v)
	{
		const char *cap = json_string_value(v) ? json_string_value(v) : "?";
		enum br_pss_level l = cap_level(cap);
		if (l > BR_PSS_RESTRICTED)
			breaks(e, l, "container %s: adds capability %s", n, cap);
	}
	bool drops_all = false;
	json_array_foreach(get(get(sc, "capabilities"), "drop"), i, v)
	{
		drops_all =
			drops_all || (json_string_value(v) && !strcmp(json_string_value(v), "ALL"));
	}
	if (!drops_all)
		breaks(e, BR_PSS_BASELINE, "container %s: capabilities do not drop ALL", n);
	json_array_foreach(get(ctr, "ports"), i, v)
	{
		const json_t *hp = get(v, "hostPort");
		if (json_is_integer(hp) && json_integer_value(hp) != 0)
			breaks(e, BR_PSS_PRIVILEGED, "container %s: hostPort", n);
	}
	const char *pm = json_string_value(get(sc, "procMount"));
	if (pm && strcmp(pm, "Default"))
		breaks(e, BR_PSS_PRIVILEGED, "container %s: procMount %s", n, pm);
	if (get(sc, "seLinuxOptions") || get(sc, "appArmorProfile") ||
	    json_is_true(get(get(sc, "windowsOptions"), "hostProcess")))
		breaks(e, BR_PSS_PRIVILEGED,
		       "container %s: SELinux, AppArmor or host process options", n);
	const json_t *sp =
		get(sc, "seccompProfile") ? get(sc, "seccompProfile") : get(psc, "seccompProfile");
	const char *st = json_string_value(get(sp, "type"));
	if (st && !strcmp(st, "Unconfined"))
		breaks(e, BR_PSS_PRIVILEGED, "container %s: seccomp Unconfined", n);
	else if (!st || (strcmp(st, "RuntimeDefault") && strcmp(st, "Localhost")))
		breaks(e, BR_PSS_BASELINE, "container %s: no seccomp profile", n);
	if (!json_is_false(get(sc, "allowPrivilegeEscalation")))
		breaks(e, BR_PSS_BASELINE, "container %s: allowPrivilegeEscalation is not false",
		       n);
	const json_t *nr =
		get(sc, "runAsNonRoot") ? get(sc, "runAsNonRoot") : get(psc, "runAsNonRoot");
	if (!json_is_true(nr))
		breaks(e, BR_PSS_BASELINE, "container %s: runAsNonRoot is not true", n);
	const json_t *uid = get(sc, "runAsUser") ? get(sc, "runAsUser") : get(psc, "runAsUser");
	if (json_is_integer(uid) && json_integer_value(uid) == 0)
		breaks(e, BR_PSS_BASELINE, "container %s: runAsUser 0", n);
}

enum br_pss_level br_pss_evaluate(const json_t *pod, char *why, size_t whylen)
{
	struct eval e = {BR_PSS_RESTRICTED, why, whylen};
	const json_t *spec = get(pod, "spec"), *psc = get(spec, "securityContext");
	if (why && whylen)
		why[0] = '\0';
	static const char *const host_ns[] = {"hostNetwork", "hostPID", "hostIPC"};
	for (int i = 0; i < 3; i++)
		if (json_is_true(get(spec, host_ns[i])))
			breaks(&e, BR_PSS_PRIVILEGED, "%s", host_ns[i]);
	size_t i;
	const json_t *v;
	json_array_foreach(get(spec, "volumes"), i, v)
	{
		const char *k;
		const json_t *x;
		json_object_foreach((json_t *)v, k, x)
		{
			if (!strcmp(k, "name"))
				continue;
			if (!strcmp(k, "hostPath"))
				breaks(&e, BR_PSS_PRIVILEGED, "volume %zu: hostPath", i);
			else if (!in_set(k, restricted_volumes,
					 sizeof(restricted_volumes) /
						 sizeof(restricted_volumes[0])))
				breaks(&e, BR_PSS_BASELINE, "volume %zu: %s", i, k);
		}
	}
	if (json_array_size(get(psc, "sysctls")))
		breaks(&e, BR_PSS_PRIVILEGED, "sysctls");
	if (get(psc, "seLinuxOptions") || get(psc, "appArmorProfile") ||
	    json_is_true(get(get(psc, "windowsOptions"), "hostProcess")))
		breaks(&e, BR_PSS_PRIVILEGED, "SELinux, AppArmor or host process options");
	static const char *const lists[] = {"containers", "initContainers", "ephemeralContainers"};
	for (int l = 0; l < 3; l++)
		json_array_foreach(get(spec, lists[l]), i, v)
		{
			eval_container(&e, v, psc);
		}
	return e.level;
}

json_t *br_policy_provenance(const struct br_policy *p, const json_t *pod)
{
	const json_t *spec = get(pod, "spec");
	const json_t *ctr = json_array_get(get(spec, "containers"), 0);
	char why[256];
	enum br_pss_level lvl = br_pss_evaluate(pod, why, sizeof(why));
	json_t *images = json_array(), *sas = json_array();
	bool ok = images && sas;
	for (size_t i = 0; ok && i < p->nimages; i++)
		ok = json_array_append_new(images, json_string(p->images[i])) == 0;
	for (size_t i = 0; ok && i < p->nservice_accounts; i++)
		ok = json_array_append_new(sas, json_string(p->service_accounts[i])) == 0;
	json_t *runner =
		ok ? json_pack("{s:s?,s:s?,s:b,s:s,s:O?,s:O?}", "image",
			       json_string_value(get(ctr, "image")), "serviceAccount",
			       json_string_value(get(spec, "serviceAccountName")), "hostNetwork",
			       json_is_true(get(spec, "hostNetwork")), "podSecurity",
			       br_pss_level_name(lvl), "securityContext",
			       (json_t *)get(spec, "securityContext"), "containerSecurityContext",
			       (json_t *)get(ctr, "securityContext"))
		   : NULL;
	if (runner && why[0] && json_object_set_new(runner, "podSecurityBecause", json_string(why)))
		ok = false;
	json_t *pol =
		runner ? json_pack("{s:s,s:b,s:s?,s:s,s:O,s:O}", "podSecurity",
				   br_pss_level_name(p->pod_security), "allowHostNetwork",
				   p->allow_host_network, "runnerImage", p->runner_image,
				   "runnerServiceAccount",
				   p->runner_sa && *p->runner_sa ? p->runner_sa : DEFAULT_RUNNER_SA,
				   "allowedImages", images, "allowedServiceAccounts", sas)
		       : NULL;
	json_t *out = ok && pol ? json_pack("{s:O,s:O}", "runner", runner, "policy", pol) : NULL;
	json_decref(images);
	json_decref(sas);
	json_decref(runner);
	json_decref(pol);
	return out;
}

bool br_policy_secret_consents(const json_t *secret)
{
	const json_t *labels = json_object_get(json_object_get(secret, "metadata"), "labels");
	const char *v = json_string_value(json_object_get(labels, SB_LABEL_CREDENTIALS));
	return v && !strcmp(v, SB_CREDENTIALS_CONSENT);
}

int br_policy_check_credentials(const struct br_ops *ops, const char *ns, const struct br_spec *s,
				char *err, size_t errlen)
{
	for (size_t i = 0; s->obj && i < s->obj->nstores; i++) {
		const char *name = s->obj->stores[i].secret;
		struct kube_error kerr = KUBE_ERROR_INIT;
		json_t *sec = NULL;
		int r = ops->get(ops->arg, &kube_res_secrets, ns, name, &sec, &kerr);
		bool yes = !r && br_policy_secret_consents(sec);
		json_decref(sec);
		if (r == -ENOENT) {
			snprintf(
				err, errlen,
				"spec.objectStores[%zu].secretRef.name: Secret '%s' does not exist "
				"in namespace '%s'",
				i, name, ns);
			return 1;
		}
		if (r) {
			char eb[512];
			snprintf(
				err, errlen,
				"spec.objectStores[%zu].secretRef.name: cannot read Secret '%s' to "
				"check its consent label: %s",
				i, name, kube_error_str(&kerr, eb, sizeof(eb)));
			return r;
		}
		if (!yes) {
			snprintf(err, errlen,
				 "spec.objectStores[%zu].secretRef.name: Secret '%s' does not lend "
				 "its keys to benchmark runs: it lacks the label %s=%s (its owner "
				 "consents with: kubectl label secret %s %s=%s)",
				 i, name, SB_LABEL_CREDENTIALS, SB_CREDENTIALS_CONSENT, name,
				 SB_LABEL_CREDENTIALS, SB_CREDENTIALS_CONSENT);
			return 1;
		}
	}
	return 0;
}
