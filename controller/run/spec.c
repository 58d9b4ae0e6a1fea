/* SPDX-License-Identifier: MIT */
#include "controller/run/spec.h"
#include "controller/core/field.h"

#include "controller/run/objstore.h"

#include "fiojob/jobfile.h"
#include "fiojob/profiles.h"
#include "core/units.h"
#include "core/envdeny.h"
#include "core/errfmt.h"
#include "core/labels.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A refusal: the message into err, -EINVAL (lib/core/errfmt.h). */
#define fail(err, len, ...) sb_errf(err, len, -EINVAL, __VA_ARGS__)

long br_parse_duration_s(const char *s)
{
	char *end;
	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || v < 0 || v > 100000000)
		return -1;
	if (!strcmp(end, "s"))
		return v;
	if (!strcmp(end, "m"))
		return v * 60;
	if (!strcmp(end, "h"))
		return v * 3600;
	return -1;
}

void br_spec_release(struct br_spec *s)
{
	for (size_t i = 0; i < s->nclasses; i++)
		free(s->classes[i]);
	free(s->classes);
	free(s->obj);
	free(s->jobfile);
	json_decref(s->resources);
	json_decref(s->node_selector);
	json_decref(s->tolerations);
	json_decref(s->affinity);
	json_decref(s->security_context);
	json_decref(s->container_security_context);
	json_decref(s->env);
	memset(s, 0, sizeof(*s));
}

static bool one_of(const char *v, const char *const *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v, set[i]))
			return true;
	return false;
}

/* A DNS-1123 subdomain (storage class names). */
static bool dns_subdomain(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 253 || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-' ||
		      s[i] == '.'))
			return false;
	return true;
}

/* The command-line options every job starts from (the runner's globals). */
static int base_job(const struct br_spec *s, struct sb_job *base, struct sb_diag *d)
{
	memset(base, 0, sizeof(*base));
	sb_job_opts_init(&base->o);
	int r = 0;
	if (!r)
		r = sb_job_apply(base, "filename", s->block ? BR_DEVICE : SB_TESTFILE, "target", d);
	if (!r && !s->block)
		r = sb_job_apply(base, "directory", BR_DATA_DIR, "target", d);
	if (!r && s->test_size[0])
		r = sb_job_apply(base, "size", s->test_size, "spec.size", d);
	if (!r && s->runtime[0])
		r = sb_job_apply(base, "runtime", s->runtime, "spec.runtime", d);
	if (!r && s->ramp_time[0])
		r = sb_job_apply(base, "ramp_time", s->ramp_time, "spec.rampTime", d);
	return r;
}

/*
 * ${VAR} in spec.fioJob: the value spec.runner.env gives the runner (the
 * only variables a run defines), never the controller's own environment.
 */
static const char *run_env_lookup(const char *name, void *ctx)
{
	size_t i;
	const json_t *e;
	json_array_foreach((const json_t *)ctx, i, e)
	{
		const char *n = json_string_value(json_object_get(e, "name"));
		if (n && !strcmp(n, name)) {
			const char *v = json_string_value(json_object_get(e, "value"));
			return v ? v : "";
		}
	}
	return NULL;
}

/*
 * Each job's footprint on the volume (size=, or filesize times nrfiles, past
 * its offset) fits in spec.volume.size: the runner would stop with ENOSPC,
 * or past a block device's end, after the volume was made. path names the
 * field (the workload's when the job is one, else the section).
 */
static int check_fits_volume(const struct sb_joblist *l, const struct br_spec *s, const json_t *wls,
			     const char *path, char *err, size_t errlen)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct sb_job_opts *o = &l->jobs[i].o;
		uint64_t files = o->filesize && o->nrfiles ? o->filesize * o->nrfiles : 0;
		bool by_files = files > (o->size_percent ? 0 : o->size) &&
				(!o->nrfiles || files / o->nrfiles == o->filesize);
		uint64_t need = by_files ? files : o->size_percent ? 0 : o->size;
		if (!o->offset_percent && need && o->offset <= UINT64_MAX - need)
			need += o->offset;
		if (need <= s->volume_bytes)
			continue;
		char field[96];
		snprintf(field, sizeof(field), "%s: job '%s'", path, o->name);
		size_t k;
		const json_t *w;
		json_array_foreach(wls, k, w)
		{
			const char *n = json_string_value(json_object_get(w, "name"));
			if (n && !strcmp(n, o->name))
				snprintf(field, sizeof(field), "%s[%zu].size", path, k);
		}
		return fail(err, errlen,
			    "%s: the workload needs %llu bytes (%s%s), more than spec.volume.size "
			    "%s (%llu bytes)",
			    field, (unsigned long long)need,
			    by_files ? "filesize times nrfiles" : "size",
			    !o->offset_percent && o->offset ? " past its offset" : "",
			    s->volume_size, (unsigned long long)s->volume_bytes);
	}
	return 0;
}

/* Validates the job list the runner would build. */
static int validate_jobs(const struct sb_joblist *l, const char *path, char *err, size_t errlen)
{
	for (size_t i = 0; i < l->n; i++) {
		char e[512];
		if (sb_job_opts_validate(&l->jobs[i].o, e, sizeof(e)))
			return fail(err, errlen, "%s: workload '%s': %s", path, l->jobs[i].o.name,
				    e);
	}
	if (l->n == 0)
		return fail(err, errlen, "%s: no workloads", path);
	return 0;
}

/* A workload name: the CRD's pattern ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$, at most 63 characters. */
static bool workload_name(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 63 || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-'))
			return false;
	return true;
}

/* Appends "key=value\n" to a growing job file text. */
static int put_line(char **text, size_t *len, const char *key, const char *value)
{
	size_t add = strlen(key) + (value ? strlen(value) + 1 : 0) + 2;
	char *n = realloc(*text, *len + add + 1);
	if (!n)
		return -ENOMEM;
	*text = n;
	*len += (size_t)snprintf(n + *len, add + 1, "%s%s%s\n", key, value ? "=" : "",
				 value ? value : "");
	return 0;
}

/* Checks one fio option's value alone (so the message names the field), then appends it. */
static int put_checked(char **text, size_t *len, const char *field, const char *fio,
		       const char *val, char *err, size_t errlen)
{
	struct sb_job_opts scratch;
	char e[512];
	/* a value is one line of the job file: no line breaks or other control characters */
	for (const char *c = val; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return fail(err, errlen, "%s: contains a control character (0x%02x)", field,
				    (unsigned)(unsigned char)*c);
	sb_job_opts_init(&scratch);
	enum sb_opt_status st = sb_job_opts_set(&scratch, fio, val, e, sizeof(e));
	sb_job_opts_release(&scratch);
	if (st != SB_OPT_OK) {
		const char *colon = strstr(e, ": ");
		return fail(err, errlen, "%s: %s", field,
			    colon && st == SB_OPT_BADVAL ? colon + 2 : e);
	}
	return put_line(text, len, fio, val);
}

/*
 * spec.workloads[].steadyState: run until fio's steady-state criterion
 * holds, at most maxRuntime: ss, ss_dur, ss_ramp, runtime and time_based.
 */
static int put_steady_state(char **text, size_t *len, const char *path, const json_t *ss, char *err,
			    size_t errlen)
{
	static const struct {
		const char *field, *fio;
		bool required;
	} map[] = {
		{"criterion", "steadystate", true},
		{"window", "ss_dur", true},
		{"ramp", "ss_ramp", false},
		{"maxRuntime", "runtime", true},
	};
	char field[128];
	const char *key;
	const json_t *v;
	int r = 0;

	if (!json_is_object(ss))
		return fail(err, errlen, "%s.steadyState: must be an object", path);
	json_object_foreach((json_t *)ss, key, v)
	{
		bool known = false;
		for (size_t m = 0; m < sizeof(map) / sizeof(map[0]); m++)
			known = known || !strcmp(map[m].field, key);
		if (!known)
			return fail(err, errlen, "%s.steadyState.%s: unknown field", path, key);
	}
	for (size_t m = 0; !r && m < sizeof(map) / sizeof(map[0]); m++) {
		snprintf(field, sizeof(field), "%s.steadyState.%s", path, map[m].field);
		v = json_object_get(ss, map[m].field);
		if (!v) {
			if (map[m].required)
				return fail(err, errlen, "%s: required", field);
			continue;
		}
		if (!json_is_string(v))
			return fail(err, errlen, "%s: must be a string", field);
		r = put_checked(text, len, field, map[m].fio, json_string_value(v), err, errlen);
	}
	if (!r)
		r = put_line(text, len, "time_based", NULL);
	return r;
}

/* spec.workloads -> a fio job file, validated option by option. */
/* spec.workloads[i]'s name (unique: seen), rw and steadyState rules. */
static int check_workload(const json_t *w, const char *path, json_t *seen, char *err, size_t errlen)
{
	if (!json_is_object(w))
		return fail(err, errlen, "%s: must be an object", path);
	const json_t *name = json_object_get(w, "name");
	if (!json_is_string(name) || !json_string_value(name)[0])
		return fail(err, errlen, "%s.name: required", path);
	if (!workload_name(json_string_value(name)))
		return fail(err, errlen,
			    "%s.name: not a workload name (lower case letters, digits and '-', "
			    "starting and ending with a letter or digit, at most 63)",
			    path);
	if (json_object_get(seen, json_string_value(name)))
		return fail(err, errlen, "%s.name: '%s' is used twice", path,
			    json_string_value(name));
	if (json_object_set(seen, json_string_value(name), json_true()))
		return -ENOMEM;
	if (!json_object_get(w, "rw"))
		return fail(err, errlen, "%s.rw: required", path);
	if (json_object_get(w, "steadyState") &&
	    (json_object_get(w, "runtime") || json_object_get(w, "timeBased")))
		return fail(err, errlen,
			    "%s.%s: not with steadyState (its maxRuntime is the runtime)", path,
			    json_object_get(w, "runtime") ? "runtime" : "timeBased");
	return 0;
}

/* One field of a workload as its fio option, checked by the runner's parser. */
static int put_workload_field(char **text, size_t *len, const char *path, const char *key,
			      const json_t *v, char *err, size_t errlen)
{
	static const struct {
		const char *field;
		const char *fio;
	} map[] = {
		{"rw", "rw"},
		{"bs", "bs"},
		{"iodepth", "iodepth"},
		{"numjobs", "numjobs"},
		{"size", "size"},
		{"direct", "direct"},
		{"fsync", "fsync"},
		{"fdatasync", "fdatasync"},
		{"rwmixread", "rwmixread"},
		{"runtime", "runtime"},
		{"rampTime", "ramp_time"},
		{"timeBased", "time_based"},
		{"ioengine", "ioengine"},
	};
	if (!strcmp(key, "steadyState"))
		return put_steady_state(text, len, path, v, err, errlen);
	const char *fio = NULL;
	for (size_t m = 0; m < sizeof(map) / sizeof(map[0]); m++)
		if (!strcmp(map[m].field, key))
			fio = map[m].fio;
	if (!fio)
		return fail(err, errlen, "%s.%s: unknown field", path, key);
	char val[128];
	if (json_is_string(v) && strlen(json_string_value(v)) >= sizeof(val))
		return fail(err, errlen, "%s.%s: must be at most %zu characters", path, key,
			    sizeof(val) - 1);
	else if (json_is_string(v))
		snprintf(val, sizeof(val), "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(val, sizeof(val), "%lld", (long long)json_integer_value(v));
	else if (json_is_boolean(v))
		snprintf(val, sizeof(val), "%d", json_is_true(v) ? 1 : 0);
	else
		return fail(err, errlen, "%s.%s: must be a string, integer or boolean", path, key);
	char field[128];
	snprintf(field, sizeof(field), "%s.%s", path, key);
	return put_checked(text, len, field, fio, val, err, errlen);
}

static int workloads_to_jobfile(const json_t *wls, char **out, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	size_t i;
	const json_t *w;
	int r = put_line(&text, &len, "[global]", NULL);
	if (!r)
		r = put_line(&text, &len, "group_reporting", NULL);
	if (!json_is_array(wls)) {
		free(text);
		return fail(err, errlen, "spec.workloads: must be a list");
	}
	if (json_array_size(wls) > SB_SPEC_MAX_WORKLOADS) {
		free(text);
		return fail(err, errlen, "spec.workloads: %zu workloads, at most %d",
			    json_array_size(wls), SB_SPEC_MAX_WORKLOADS);
	}
	/* names seen, hashed (jansson's object is a hash table) */
	json_t *seen = json_object();
	if (!seen) {
		free(text);
		return -ENOMEM;
	}
	json_array_foreach(wls, i, w)
	{
		char path[64], sect[128];
		snprintf(path, sizeof(path), "spec.workloads[%zu]", i);
		if (r || (r = check_workload(w, path, seen, err, errlen)))
			break;
		snprintf(sect, sizeof(sect), "[%s]", json_string_value(json_object_get(w, "name")));
		r = put_line(&text, &len, sect, NULL);
		if (!r && i > 0)
			r = put_line(&text, &len, "stonewall", NULL);
		if (!r && !json_object_get(w, "direct"))
			r = put_line(&text, &len, "direct", "1");
		const char *key;
		const json_t *v;
		json_object_foreach((json_t *)w, key, v)
		{
			if (r || !strcmp(key, "name"))
				continue;
			r = put_workload_field(&text, &len, path, key, v, err, errlen);
		}
	}
	json_decref(seen);
	if (r) {
		free(text);
		return r;
	}
	*out = text;
	return 0;
}

/* ---- spec.runner: the runner pods' settings, checked field by field ---- */

#define RUN "spec.runner"

static bool int_in(const json_t *v, json_int_t lo, json_int_t hi)
{
	return json_is_integer(v) && json_integer_value(v) >= lo && json_integer_value(v) <= hi;
}

/* A Kubernetes quantity: "500m", "1Gi", "2", "1.5", "1e3". */
static bool quantity(const char *q)
{
	static const char *const suffixes[] = {"",  "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n",
					       "u", "m",  "k",	"M",  "G",  "T",  "P",	"E"};
	const char *p = q;
	size_t digits = 0;
	if (*p == '+')
		p++;
	while (isdigit((unsigned char)*p))
		p++, digits++;
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p))
			p++, digits++;
	}
	if (!digits || strlen(q) > 64)
		return false;
	if ((*p == 'e' || *p == 'E') &&
	    (isdigit((unsigned char)p[1]) ||
	     ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])))) {
		p += 2;
		while (isdigit((unsigned char)*p))
			p++;
		return *p == '\0';
	}
	return one_of(p, suffixes, sizeof(suffixes) / sizeof(suffixes[0]));
}

/* A label key or resource name: [A-Za-z0-9._/-], 1 to 253 characters. */
static bool qualified(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 253)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || strchr("._/-", s[i])))
			return false;
	return true;
}

/* A printable string without spaces (image references, profile paths). */
static bool token(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

static int check_resources(const json_t *r, char *err, size_t errlen)
{
	const char *k, *rk;
	const json_t *v, *q;
	json_object_foreach((json_t *)r, k, v)
	{
		if (strcmp(k, "requests") && strcmp(k, "limits"))
			return fail(err, errlen,
				    RUN ".resources.%s: unknown field (requests and limits are)",
				    k);
		if (!json_is_object(v))
			return fail(err, errlen, RUN ".resources.%s: must be an object", k);
		json_object_foreach((json_t *)v, rk, q)
		{
			if (!qualified(rk))
				return fail(err, errlen,
					    RUN ".resources.%s: '%s' is not a resource name", k,
					    rk);
			if (!(int_in(q, 0, INT64_MAX) ||
			      (json_is_string(q) && quantity(json_string_value(q)))))
				return fail(err, errlen,
					    RUN ".resources.%s.%s: '%s' is not a quantity (e.g. "
						"500m, 1Gi)",
					    k, rk, json_is_string(q) ? json_string_value(q) : "?");
		}
	}
	return 0;
}

static int check_tolerations(const json_t *a, char *err, size_t errlen)
{
	static const char *const ops[] = {"Exists", "Equal"};
	static const char *const effects[] = {"", "NoSchedule", "PreferNoSchedule", "NoExecute"};
	size_t i;
	const json_t *t;
	if (json_array_size(a) > 64)
		return fail(err, errlen, RUN ".tolerations: at most 64");
	json_array_foreach(a, i, t)
	{
		const char *k;
		const json_t *v;
		if (!json_is_object(t))
			return fail(err, errlen, RUN ".tolerations[%zu]: must be an object", i);
		json_object_foreach((json_t *)t, k, v)
		{
			bool ok = false;
			if (!strcmp(k, "key") || !strcmp(k, "value"))
				ok = json_is_string(v) && json_string_length(v) <= 316;
			else if (!strcmp(k, "operator"))
				ok = json_is_string(v) && one_of(json_string_value(v), ops, 2);
			else if (!strcmp(k, "effect"))
				ok = json_is_string(v) && one_of(json_string_value(v), effects, 4);
			else if (!strcmp(k, "tolerationSeconds"))
				ok = int_in(v, INT64_MIN, INT64_MAX);
			else
				return fail(err, errlen,
					    RUN
					    ".tolerations[%zu].%s: unknown field (key, operator, "
					    "value, effect, tolerationSeconds)",
					    i, k);
			if (!ok)
				return fail(err, errlen,
					    RUN ".tolerations[%zu].%s: not a valid value (see "
						"kubectl explain pod.spec.tolerations)",
					    i, k);
		}
	}
	return 0;
}

static int check_env(const json_t *a, char *err, size_t errlen)
{
	size_t i;
	const json_t *e;
	json_array_foreach(a, i, e)
	{
		const json_t *n = json_object_get(e, "name");
		const char *k;
		const json_t *v;
		if (!json_is_object(e) || !json_is_string(n) || !json_string_value(n)[0])
			return fail(err, errlen, RUN ".env[%zu].name: required", i);
		const struct sb_env_rule *deny = sb_env_denied(json_string_value(n));
		if (deny) {
			char pat[32];
			return fail(err, errlen,
				    RUN ".env[%zu].name: '%s' is not allowed (%s %s; "
					"docs/security.md lists the names a run may not set)",
				    i, json_string_value(n),
				    sb_env_rule_str(deny, pat, sizeof(pat)), deny->why);
		}
		json_object_foreach((json_t *)e, k, v)
		{
			if (!strcmp(k, "name"))
				continue;
			if (strcmp(k, "value"))
				return fail(err, errlen,
					    RUN ".env[%zu].%s: unknown field (only name and value: "
						"runner pods read no Secret or other object)",
					    i, k);
			if (!json_is_string(v))
				return fail(err, errlen, RUN ".env[%zu].value: must be a string",
					    i);
		}
	}
	return 0;
}

/* Copies v into o under key; -ENOMEM when that fails. */
static int keep(json_t *o, const char *key, const json_t *v)
{
	return json_object_set_new(o, key, json_deep_copy(v)) ? -ENOMEM : 0;
}

#define ID_MAX 2147483647

/* spec.runner.securityContext: the pod's, a typed subset. */
static int pod_security_context(const json_t *in, json_t **out, char *err, size_t errlen)
{
	static const char *const container_fields[] = {"privileged", "allowPrivilegeEscalation",
						       "capabilities", "readOnlyRootFilesystem",
						       "procMount"};
	static const char *const fgcp[] = {"OnRootMismatch", "Always"};
	const char *k;
	const json_t *v;
	json_t *o = *out = json_object();
	if (!o)
		return -ENOMEM;
	json_object_foreach((json_t *)in, k, v)
	{
		bool ok;
		if (!strcmp(k, "runAsUser") || !strcmp(k, "runAsGroup") || !strcmp(k, "fsGroup")) {
			ok = int_in(v, 0, ID_MAX);
		} else if (!strcmp(k, "runAsNonRoot")) {
			ok = json_is_boolean(v);
		} else if (!strcmp(k, "fsGroupChangePolicy")) {
			ok = json_is_string(v) && one_of(json_string_value(v), fgcp, 2);
		} else if (!strcmp(k, "supplementalGroups")) {
			size_t i;
			const json_t *g;
			ok = json_is_array(v) && json_array_size(v) <= 32;
			json_array_foreach(ok ? v : NULL, i, g)
			{
				ok = ok && int_in(g, 0, ID_MAX);
			}
		} else if (!strcmp(k, "seccompProfile")) {
			return fail(
				err, errlen,
				RUN
				".securityContext.seccompProfile: set spec.runner.seccompProfile "
				"instead");
		} else if (one_of(k, container_fields,
				  sizeof(container_fields) / sizeof(container_fields[0]))) {
			return fail(err, errlen,
				    RUN ".securityContext.%s: a container setting: set it in "
					"spec.runner.containerSecurityContext",
				    k);
		} else {
			return fail(
				err, errlen,
				RUN
				".securityContext.%s: not supported (runner pods take runAsUser, "
				"runAsGroup, runAsNonRoot, fsGroup, fsGroupChangePolicy and "
				"supplementalGroups)",
				k);
		}
		if (!ok)
			return fail(
				err, errlen, RUN ".securityContext.%s: %s", k,
				!strcmp(k, "runAsNonRoot") ? "must be true or false"
				: !strcmp(k, "fsGroupChangePolicy")
					? "must be OnRootMismatch or Always"
				: !strcmp(k, "supplementalGroups")
					? "must be a list of at most 32 ids from 0 to 2147483647"
					: "must be an id from 0 to 2147483647");
		if (keep(o, k, v))
			return -ENOMEM;
	}
	const json_t *uid = json_object_get(o, "runAsUser");
	if (json_is_true(json_object_get(o, "runAsNonRoot")) && uid && json_integer_value(uid) == 0)
		return fail(err, errlen,
			    RUN ".securityContext.runAsNonRoot: true conflicts with runAsUser: 0");
	return 0;
}

/* A capability name: CAP_ optional, upper case letters, digits, '_'. */
static bool capability(const char *c)
{
	size_t n = strlen(c);
	if (n == 0 || n > 32)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(isupper((unsigned char)c[i]) || isdigit((unsigned char)c[i]) || c[i] == '_'))
			return false;
	return true;
}

/* spec.runner.containerSecurityContext: the runner container's, a typed subset. */
static int container_security_context(const json_t *in, json_t **out, char *err, size_t errlen)
{
	static const char *const pod_fields[] = {"runAsUser", "runAsGroup", "runAsNonRoot",
						 "fsGroup", "supplementalGroups"};
	const char *k;
	const json_t *v;
	bool sys_admin = false;
	json_t *o = *out = json_object();
	if (!o)
		return -ENOMEM;
	json_object_foreach((json_t *)in, k, v)
	{
		if (!strcmp(k, "privileged") || !strcmp(k, "allowPrivilegeEscalation") ||
		    !strcmp(k, "readOnlyRootFilesystem")) {
			if (!json_is_boolean(v))
				return fail(err, errlen,
					    RUN
					    ".containerSecurityContext.%s: must be true or false",
					    k);
		} else if (!strcmp(k, "capabilities")) {
			const char *ck;
			const json_t *cv;
			if (!json_is_object(v))
				return fail(err, errlen,
					    RUN
					    ".containerSecurityContext.capabilities: must be an "
					    "object");
			json_object_foreach((json_t *)v, ck, cv)
			{
				if (!strcmp(ck, "drop"))
					return fail(
						err, errlen,
						RUN
						".containerSecurityContext.capabilities.drop: "
						"the runner always drops ALL; list what it needs "
						"in add");
				if (strcmp(ck, "add"))
					return fail(err, errlen,
						    RUN
						    ".containerSecurityContext.capabilities.%s: "
						    "unknown field (add is)",
						    ck);
				if (!json_is_array(cv) || json_array_size(cv) > 64)
					return fail(err, errlen,
						    RUN
						    ".containerSecurityContext.capabilities.add: "
						    "must be a list of at most 64 names");
				size_t i;
				const json_t *c;
				json_array_foreach(cv, i, c)
				{
					const char *cs = json_string_value(c);
					if (!cs || !capability(cs))
						return fail(
							err, errlen,
							RUN
							".containerSecurityContext.capabilities."
							"add[%zu]: '%s' is not a capability "
							"name (e.g. SYS_NICE)",
							i, cs ? cs : "(not a string)");
					sys_admin = sys_admin || !strcmp(cs, "SYS_ADMIN") ||
						    !strcmp(cs, "CAP_SYS_ADMIN");
				}
			}
		} else if (!strcmp(k, "seccompProfile")) {
			return fail(err, errlen,
				    RUN ".containerSecurityContext.seccompProfile: set "
					"spec.runner.seccompProfile instead");
		} else if (one_of(k, pod_fields, sizeof(pod_fields) / sizeof(pod_fields[0]))) {
			return fail(err, errlen,
				    RUN ".containerSecurityContext.%s: a pod setting: set it in "
					"spec.runner.securityContext",
				    k);
		} else {
			return fail(err, errlen,
				    RUN ".containerSecurityContext.%s: not supported (the runner "
					"container takes privileged, allowPrivilegeEscalation, "
					"readOnlyRootFilesystem and capabilities.add)",
				    k);
		}
		if (keep(o, k, v))
			return -ENOMEM;
	}
	/* the API server's own rule, said before it says it */
	if (json_is_false(json_object_get(o, "allowPrivilegeEscalation")) &&
	    (json_is_true(json_object_get(o, "privileged")) || sys_admin))
		return fail(err, errlen,
			    RUN
			    ".containerSecurityContext.allowPrivilegeEscalation: false conflicts "
			    "with %s",
			    sys_admin ? "adding SYS_ADMIN" : "privileged: true");
	return 0;
}

/* spec.runner.startTimeout: how long a runner pod may take to be Running. */
static int parse_start_timeout(const json_t *run, struct br_spec *s, char *err, size_t errlen)
{
	char buf[32] = "";
	int r = br_field_string(run, "startTimeout", RUN, buf, sizeof(buf), err, errlen);
	if (r || !buf[0])
		return r;
	long sec = br_parse_duration_s(buf);
	if (sec < 10 || sec > 24 * 3600)
		return fail(err, errlen,
			    RUN ".startTimeout: '%s' is not a duration from 10s to 24h (e.g. 90s, "
				"5m)",
			    buf);
	s->start_s = sec;
	return 0;
}

static int parse_runner(const json_t *run, struct br_spec *s, char *err, size_t errlen)
{
	static const char *const pull[] = {"Always", "IfNotPresent", "Never"};
	static const char *const seccomp[] = {"RuntimeDefault", "Localhost", "Unconfined"};
	static const char *const affinity[] = {"nodeAffinity", "podAffinity", "podAntiAffinity"};
	int r;

	if (run && !json_is_object(run))
		return fail(err, errlen, RUN ": must be an object");
	if ((r = parse_start_timeout(run, s, err, errlen)))
		return r;
	if ((r = br_field_string(run, "image", RUN, s->image, sizeof(s->image), err, errlen)) ||
	    (r = br_field_string(run, "imagePullPolicy", RUN, s->pull_policy,
				 sizeof(s->pull_policy), err, errlen)) ||
	    (r = br_field_string(run, "serviceAccountName", RUN, s->service_account,
				 sizeof(s->service_account), err, errlen)))
		return r;
	if (!s->image[0])
		return fail(err, errlen, RUN ".image: not set and the controller has no default");
	if (!token(s->image))
		return fail(err, errlen, RUN ".image: '%s' is not an image reference", s->image);
	if (s->pull_policy[0] && !one_of(s->pull_policy, pull, 3))
		return fail(err, errlen,
			    RUN ".imagePullPolicy: '%s' is not Always, IfNotPresent or Never",
			    s->pull_policy);
	if (!dns_subdomain(s->service_account))
		return fail(err, errlen,
			    RUN ".serviceAccountName: '%s' is not a ServiceAccount name",
			    s->service_account);
	s->host_network = false;
	if ((r = br_field_bool(run, "hostNetwork", RUN, &s->host_network, err, errlen)))
		return r;
	const json_t *sc = json_object_get(run, "seccompProfile");
	if (sc) {
		if (!json_is_object(sc))
			return fail(err, errlen, RUN ".seccompProfile: must be an object");
		if ((r = br_field_string(sc, "type", RUN ".seccompProfile", s->seccomp_type,
					 sizeof(s->seccomp_type), err, errlen)) ||
		    (r = br_field_string(sc, "localhostProfile", RUN ".seccompProfile",
					 s->seccomp_profile, sizeof(s->seccomp_profile), err,
					 errlen)))
			return r;
		if (!one_of(s->seccomp_type, seccomp, 3))
			return fail(err, errlen,
				    RUN ".seccompProfile.type: '%s' is not RuntimeDefault, "
					"Localhost or Unconfined",
				    s->seccomp_type);
		if ((strcmp(s->seccomp_type, "Localhost") == 0) == (s->seccomp_profile[0] == 0))
			return fail(err, errlen, RUN ".seccompProfile.localhostProfile: %s",
				    s->seccomp_profile[0] ? "only with type Localhost"
							  : "required with type Localhost");
		if (s->seccomp_profile[0] &&
		    (!token(s->seccomp_profile) || s->seccomp_profile[0] == '/' ||
		     !strcmp(s->seccomp_profile, "..") || !strncmp(s->seccomp_profile, "../", 3) ||
		     strstr(s->seccomp_profile, "/../") ||
		     (strlen(s->seccomp_profile) >= 3 &&
		      !strcmp(s->seccomp_profile + strlen(s->seccomp_profile) - 3, "/.."))))
			return fail(err, errlen,
				    RUN ".seccompProfile.localhostProfile: '%s' is not a path "
					"relative to the kubelet's seccomp directory",
				    s->seccomp_profile);
	}
	static const struct {
		const char *key;
		bool array;
		size_t off;
	} objs[] = {
		{"resources", false, offsetof(struct br_spec, resources)},
		{"nodeSelector", false, offsetof(struct br_spec, node_selector)},
		{"tolerations", true, offsetof(struct br_spec, tolerations)},
		{"affinity", false, offsetof(struct br_spec, affinity)},
		{"env", true, offsetof(struct br_spec, env)},
	};
	for (size_t i = 0; run && i < sizeof(objs) / sizeof(objs[0]); i++) {
		json_t *o = json_object_get(run, objs[i].key);
		if (!o)
			continue;
		if (objs[i].array ? !json_is_array(o) : !json_is_object(o))
			return fail(err, errlen, RUN ".%s: must be %s", objs[i].key,
				    objs[i].array ? "a list" : "an object");
		*(json_t **)((char *)s + objs[i].off) = json_incref(o);
	}
	if (s->resources && (r = check_resources(s->resources, err, errlen)))
		return r;
	if (s->tolerations && (r = check_tolerations(s->tolerations, err, errlen)))
		return r;
	if (s->env && (r = check_env(s->env, err, errlen)))
		return r;
	const char *k;
	const json_t *v;
	json_object_foreach(s->node_selector, k, v)
	{
		if (!qualified(k) || !json_is_string(v) || json_string_length(v) > 63)
			return fail(err, errlen, RUN ".nodeSelector.%s: not a label key and value",
				    k);
	}
	json_object_foreach(s->affinity, k, v)
	{
		if (!one_of(k, affinity, 3))
			return fail(err, errlen,
				    RUN ".affinity.%s: unknown field (nodeAffinity, podAffinity, "
					"podAntiAffinity)",
				    k);
		if (!json_is_object(v))
			return fail(err, errlen, RUN ".affinity.%s: must be an object", k);
	}
	const json_t *psc = json_object_get(run, "securityContext");
	if (psc && !json_is_object(psc))
		return fail(err, errlen, RUN ".securityContext: must be an object");
	if (psc && (r = pod_security_context(psc, &s->security_context, err, errlen)))
		return r;
	const json_t *csc = json_object_get(run, "containerSecurityContext");
	if (csc && !json_is_object(csc))
		return fail(err, errlen, RUN ".containerSecurityContext: must be an object");
	if (csc &&
	    (r = container_security_context(csc, &s->container_security_context, err, errlen)))
		return r;
	return 0;
}

#undef RUN

/* spec.validity: {baselineClass, cvPercent (1..1000), maxFactor (2..1e6)} */
static int parse_validity(const json_t *v, struct br_spec *s, char *err, size_t errlen)
{
	int r;
	if (!v)
		return 0;
	if (!json_is_object(v))
		return fail(err, errlen, "spec.validity: must be an object");
	if ((r = br_field_string(v, "baselineClass", "spec.validity", s->validity_baseline,
				 sizeof(s->validity_baseline), err, errlen)))
		return r;
	bool found = !s->validity_baseline[0];
	for (size_t i = 0; !found && i < s->nclasses; i++)
		found = !strcmp(s->classes[i], s->validity_baseline);
	if (!found)
		return fail(err, errlen,
			    "spec.validity.baselineClass: '%s' is not one of spec.storageClasses",
			    s->validity_baseline);
	double cv = 0;
	s->validity_factor = 0;
	if ((r = br_field_number(v, "cvPercent", "spec.validity", 1, 1000, &cv, err, errlen)) ||
	    (r = br_field_number(v, "maxFactor", "spec.validity", 2, 1e6, &s->validity_factor, err,
				 errlen)))
		return r;
	s->validity_cv = cv / 100.0;
	return 0;
}

const char *br_volume_sharing_name(enum br_volume_sharing v)
{
	static const char *const n[] = {"perPod", "shared", "sharedFile"};
	return (unsigned)v < 3 ? n[v] : "unknown";
}

const char *br_spread_name(enum br_spread v)
{
	static const char *const n[] = {"DoNotSchedule", "ScheduleAnyway", "None"};
	return (unsigned)v < 3 ? n[v] : "unknown";
}

/*
 * spec.runner.pods, .volume, .spread and spec.timeouts.barrier: several
 * runner pods per class (docs/distributed.md). Combinations that cannot
 * work are refused naming the field.
 */
static int parse_distributed(const json_t *spec, struct br_spec *s, char *err, size_t errlen)
{
	const json_t *run = json_object_get(spec, "runner");
	char vol[32] = "perPod", spread[32] = "DoNotSchedule", bt[32] = "";
	int r;

	s->pods = 1;
	s->barrier_s = 300;
	if ((r = br_field_uint(run, "pods", "spec.runner", 1, SB_SPEC_MAX_PODS, &s->pods, err,
			       errlen)) ||
	    (r = br_field_string(run, "volume", "spec.runner", vol, sizeof(vol), err, errlen)) ||
	    (r = br_field_string(run, "spread", "spec.runner", spread, sizeof(spread), err,
				 errlen)) ||
	    (r = br_field_string(json_object_get(spec, "timeouts"), "barrier", "spec.timeouts", bt,
				 sizeof(bt), err, errlen)))
		return r;
	for (s->volume_sharing = 0; s->volume_sharing < 3; s->volume_sharing++)
		if (!strcmp(vol, br_volume_sharing_name(s->volume_sharing)))
			break;
	if (s->volume_sharing == 3)
		return fail(err, errlen,
			    "spec.runner.volume: '%s' is not perPod, shared or sharedFile", vol);
	for (s->spread = 0; s->spread < 3; s->spread++)
		if (!strcmp(spread, br_spread_name(s->spread)))
			break;
	if (s->spread == 3)
		return fail(err, errlen,
			    "spec.runner.spread: '%s' is not DoNotSchedule, ScheduleAnyway or None",
			    spread);
	if (bt[0] && (s->barrier_s = br_parse_duration_s(bt)) <= 0)
		return fail(err, errlen,
			    "spec.timeouts.barrier: '%s' is not a duration such as 90s, 5m or 2h",
			    bt);
	if (s->pods > 1 && s->volume_sharing != BR_VOLUME_PER_POD &&
	    strcmp(s->access_mode, "ReadWriteMany"))
		return fail(err, errlen,
			    "spec.runner.volume: '%s' with %u pods needs spec.volume.accessMode "
			    "ReadWriteMany (is %s): one volume cannot be mounted by pods on "
			    "several nodes",
			    vol, s->pods, s->access_mode);
	if (s->pods > 1 && s->volume_sharing == BR_VOLUME_SHARED && s->block)
		return fail(err, errlen,
			    "spec.runner.volume: 'shared' gives each pod its own directory, which "
			    "a Block volume does not have (use sharedFile or perPod)");
	if (s->pods > 1 && s->volume_sharing == BR_VOLUME_SHARED) {
		/* every pod writes its own files on the one volume: they must fit together */
		uint64_t sz = 0;
		unsigned pct = 0;
		if (!json_object_get(spec, "size")) {
			sz = s->volume_bytes / 2 / s->pods / (1ull << 20) * (1ull << 20);
			snprintf(s->test_size, sizeof(s->test_size), "%llu",
				 (unsigned long long)(sz ? sz : 1ull << 20));
		} else if (!sb_parse_size_or_percent(s->test_size, 1024, &sz, &pct) && !pct &&
			   sz > s->volume_bytes / s->pods) {
			return fail(
				err, errlen,
				"spec.size: %s per pod, %u pods on one shared volume of %s do not "
				"fit",
				s->test_size, s->pods, s->volume_size);
		}
	}
	return 0;
}

static void spec_defaults(struct br_spec *s, const char *default_image, const char *default_sa)
{
	memset(s, 0, sizeof(*s));
	s->iterations = 10;
	s->parallelism = 1;
	snprintf(s->volume_size, sizeof(s->volume_size), "10Gi");
	snprintf(s->access_mode, sizeof(s->access_mode), "ReadWriteOnce");
	s->pvc_bind_s = 300;
	s->iteration_s = 3600;
	s->run_s = 48 * 3600;
	s->start_s = 300;
	snprintf(s->image, sizeof(s->image), "%s", default_image ? default_image : "");
	snprintf(s->service_account, sizeof(s->service_account), "%s",
		 default_sa && *default_sa ? default_sa : "storagebench-runner");
}

/* spec.storageClasses */
static int parse_classes(const json_t *spec, struct br_spec *s, char *err, size_t errlen)
{
	const json_t *v = json_object_get(spec, "storageClasses");
	if (!json_is_array(v) || json_array_size(v) == 0)
		return fail(err, errlen,
			    "spec.storageClasses: at least one storage class is needed");
	if (json_array_size(v) > 32)
		return fail(err, errlen, "spec.storageClasses: at most 32");
	s->classes = calloc(json_array_size(v), sizeof(char *));
	if (!s->classes)
		return -ENOMEM;
	for (size_t i = 0; i < json_array_size(v); i++) {
		const json_t *c = json_array_get(v, i);
		const char *cv = json_string_value(c);
		if (!cv || !dns_subdomain(cv))
			return fail(err, errlen,
				    "spec.storageClasses[%zu]: '%s' is not a storage class name", i,
				    cv ? cv : "(not a string)");
		for (size_t k = 0; k < s->nclasses; k++)
			if (s->classes[k] && !strcmp(s->classes[k], cv))
				return fail(err, errlen,
					    "spec.storageClasses[%zu]: '%s' is listed twice", i,
					    json_string_value(c));
		if (!(s->classes[s->nclasses] = strdup(cv)))
			return -ENOMEM;
		s->nclasses++;
	}
	return 0;
}

/* spec.volume */
static int parse_volume(const json_t *spec, struct br_spec *s, char *err, size_t errlen)
{
	static const char *const access_modes[] = {"ReadWriteOnce", "ReadWriteMany",
						   "ReadWriteOncePod"};
	int r;
	const json_t *vol = json_object_get(spec, "volume");
	if (vol && !json_is_object(vol))
		return fail(err, errlen, "spec.volume: must be an object");
	if ((r = br_field_string(vol, "size", "spec.volume", s->volume_size, sizeof(s->volume_size),
				 err, errlen)))
		return r;
	if (sb_parse_quantity(s->volume_size, &s->volume_bytes) || s->volume_bytes < (16u << 20))
		return fail(err, errlen,
			    "spec.volume.size: '%s' is not a quantity of at least 16Mi (e.g. 10Gi)",
			    s->volume_size);
	if ((r = br_field_string(vol, "accessMode", "spec.volume", s->access_mode,
				 sizeof(s->access_mode), err, errlen)))
		return r;
	if (!one_of(s->access_mode, access_modes, 3))
		return fail(err, errlen,
			    "spec.volume.accessMode: '%s' is not ReadWriteOnce, ReadWriteMany or "
			    "ReadWriteOncePod",
			    s->access_mode);
	char vm[32] = "Filesystem";
	if ((r = br_field_string(vol, "volumeMode", "spec.volume", vm, sizeof(vm), err, errlen)))
		return r;
	if (strcmp(vm, "Filesystem") && strcmp(vm, "Block"))
		return fail(err, errlen, "spec.volume.volumeMode: '%s' is not Filesystem or Block",
			    vm);
	s->block = !strcmp(vm, "Block");
	return 0;
}

/* spec.runtime, rampTime, size: checked with the runner's own parsers */
static int parse_overrides(const json_t *spec, struct br_spec *s, char *err, size_t errlen)
{
	int r;
	if ((r = br_field_string(spec, "runtime", "spec", s->runtime, sizeof(s->runtime), err,
				 errlen)) ||
	    (r = br_field_string(spec, "rampTime", "spec", s->ramp_time, sizeof(s->ramp_time), err,
				 errlen)) ||
	    (r = br_field_string(spec, "size", "spec", s->test_size, sizeof(s->test_size), err,
				 errlen)))
		return r;
	uint64_t tmp;
	unsigned pct;
	if (s->runtime[0] && sb_parse_duration_us(s->runtime, 1000000, &tmp))
		return fail(err, errlen, "spec.runtime: '%s' is not a duration (e.g. 60s)",
			    s->runtime);
	if (s->ramp_time[0] && sb_parse_duration_us(s->ramp_time, 1000000, &tmp))
		return fail(err, errlen, "spec.rampTime: '%s' is not a duration (e.g. 2s)",
			    s->ramp_time);
	if (s->test_size[0]) {
		if (sb_parse_size_or_percent(s->test_size, 1024, &tmp, &pct))
			return fail(err, errlen, "spec.size: '%s' is not a size (e.g. 1g) or N%%",
				    s->test_size);
		if (!pct && tmp > s->volume_bytes)
			return fail(err, errlen, "spec.size: %s is larger than spec.volume.size %s",
				    s->test_size, s->volume_size);
	} else {
		/* half the volume, so the test file never fills it */
		snprintf(s->test_size, sizeof(s->test_size), "%llu",
			 (unsigned long long)(s->volume_bytes / 2 / (1ull << 20) * (1ull << 20)));
	}
	return 0;
}

/* A fio job of spec.fioJob may not set its own target: the runner sets it (the volume). */
static int check_fio_targets(const struct sb_joblist *l, const struct sb_job *base, char *err,
			     size_t errlen)
{
	for (size_t i = 0; i < l->n; i++)
		for (size_t k = 0; k < l->jobs[i].nkv; k++) {
			const char *key = l->jobs[i].kv[k].key;
			bool own = false;
			for (size_t b = 0; b < base->nkv; b++)
				own = own || (!strcmp(base->kv[b].key, key) && base->kv[b].value &&
					      l->jobs[i].kv[k].value &&
					      !strcmp(base->kv[b].value, l->jobs[i].kv[k].value));
			if (!own && (!strcmp(key, "filename") || !strcmp(key, "directory")))
				return fail(err, errlen,
					    "spec.fioJob: job '%s': %s is set by the runner (the "
					    "volume's test file); remove it",
					    l->jobs[i].o.name, key);
		}
	return 0;
}

/* spec.workloads or spec.fioJob: the job file text in s->jobfile, parsed into l. */
static int parse_jobfile(const json_t *spec, const json_t *wls, const json_t *fio,
			 const struct sb_job *base, struct br_spec *s, struct sb_joblist *l,
			 char *err, size_t errlen)
{
	struct sb_diag d = {0};
	int r = 0;
	if (wls) {
		r = workloads_to_jobfile(wls, &s->jobfile, err, errlen);
	} else if (!json_is_string(fio) || !json_string_value(fio)[0]) {
		r = fail(err, errlen, "spec.fioJob: must be the text of a fio job file");
	} else if (json_string_length(fio) > SB_SPEC_MAX_FIOJOB) {
		r = fail(err, errlen, "spec.fioJob: %zu bytes, at most %d", json_string_length(fio),
			 SB_SPEC_MAX_FIOJOB);
	} else if (strlen(json_string_value(fio)) != json_string_length(fio)) {
		r = fail(err, errlen, "spec.fioJob: contains a NUL character");
	} else if (!(s->jobfile = strdup(json_string_value(fio)))) {
		r = -ENOMEM;
	}
	if (r)
		return r;
	const json_t *env = json_object_get(json_object_get(spec, "runner"), "env");
	if (sb_jobfile_parse_vars(s->jobfile, wls ? "spec.workloads" : "spec.fioJob", base,
				  run_env_lookup, (void *)env, "spec.runner.env", l, &d))
		return fail(err, errlen, "%s", d.msg);
	return fio ? check_fio_targets(l, base, err, errlen) : 0;
}

/* What to run: spec.profile, spec.workloads or spec.fioJob, validated as the runner would. */
static int parse_what_to_run(const json_t *spec, struct br_spec *s, char *err, size_t errlen)
{
	const json_t *prof = json_object_get(spec, "profile");
	const json_t *wls = json_object_get(spec, "workloads");
	const json_t *fio = json_object_get(spec, "fioJob");
	struct sb_diag d = {0};
	if (!!prof + !!wls + !!fio > 1)
		return fail(err, errlen, "spec: set only one of profile, workloads and fioJob");
	struct sb_job base;
	struct sb_joblist l = SB_JOBLIST_INIT;
	int r = base_job(s, &base, &d);
	if (r) {
		sb_job_release(&base);
		return fail(err, errlen, "%s", d.msg);
	}
	if (wls || fio) {
		r = parse_jobfile(spec, wls, fio, &base, s, &l, err, errlen);
	} else {
		snprintf(s->profile, sizeof(s->profile), "%s",
			 json_is_string(prof) ? json_string_value(prof) : "storage-cluster");
		const struct sb_profile *p = sb_profile_find(s->profile);
		if (!p)
			r = fail(err, errlen,
				 "spec.profile: '%s' is not storage-cluster, mixed, quick or nvme",
				 json_is_string(prof) ? json_string_value(prof) : "(not a string)");
		else if (sb_profile_expand(p, &base, &l, &d))
			r = fail(err, errlen, "spec: %s", d.msg);
	}
	const char *what = s->profile[0] ? "spec.profile" : wls ? "spec.workloads" : "spec.fioJob";
	if (!r)
		r = validate_jobs(&l, what, err, errlen);
	if (!r)
		r = check_fits_volume(&l, s, wls, what, err, errlen);
	sb_joblist_release(&l);
	sb_job_release(&base);
	return r;
}

/* spec.cleanup, spec.timeouts (pvcBind, iteration, run) */
static int parse_cleanup_timeouts(const json_t *spec, struct br_spec *s, char *err, size_t errlen)
{
	int r;
	char cl[32] = "Always";
	if ((r = br_field_string(spec, "cleanup", "spec", cl, sizeof(cl), err, errlen)))
		return r;
	if (!strcmp(cl, "Always"))
		s->cleanup = BR_CLEANUP_ALWAYS;
	else if (!strcmp(cl, "OnSuccess"))
		s->cleanup = BR_CLEANUP_ON_SUCCESS;
	else if (!strcmp(cl, "Never"))
		s->cleanup = BR_CLEANUP_NEVER;
	else
		return fail(err, errlen, "spec.cleanup: '%s' is not Always, OnSuccess or Never",
			    cl);
	const json_t *to = json_object_get(spec, "timeouts");
	static const char *const tkeys[] = {"pvcBind", "iteration", "run"};
	long *tvals[] = {&s->pvc_bind_s, &s->iteration_s, &s->run_s};
	for (int i = 0; to && i < 3; i++) {
		char buf[32] = "";
		if ((r = br_field_string(to, tkeys[i], "spec.timeouts", buf, sizeof(buf), err,
					 errlen)))
			return r;
		if (!buf[0])
			continue;
		long sec = br_parse_duration_s(buf);
		if (sec <= 0)
			return fail(
				err, errlen,
				"spec.timeouts.%s: '%s' is not a duration such as 90s, 5m or 2h",
				tkeys[i], buf);
		*tvals[i] = sec;
	}
	return 0;
}

/* The object stores into s->obj, their names appended to s->classes (the run's
 * targets). 0, -EINVAL (err), -ENOMEM. */
static int br_spec_objstores(const json_t *spec, struct br_spec *s, char *err, size_t errlen)
{
	struct br_objstores *o = NULL;
	int r = br_objstores_parse(spec, s->classes, s->nclasses, &o, err, errlen);
	if (r || !o)
		return r;
	s->obj = o;
	if (s->nclasses + o->nstores > 32)
		return sb_errf(
			err, errlen, -EINVAL,
			"spec.objectStores: at most 32 storage classes and object stores in all");
	char **c = realloc(s->classes, (s->nclasses + o->nstores) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	s->classes = c;
	for (size_t i = 0; i < o->nstores; i++) {
		if (!(s->classes[s->nclasses] = strdup(o->stores[i].name)))
			return -ENOMEM;
		s->nclasses++;
	}
	return 0;
}

int br_spec_parse(const json_t *spec, const char *default_image, const char *default_sa,
		  struct br_spec *s, char *err, size_t errlen)
{
	int r;

	spec_defaults(s, default_image, default_sa);
	if (!json_is_object(spec))
		return fail(err, errlen, "spec: must be an object");
	if ((r = parse_classes(spec, s, err, errlen)) ||
	    /* object stores: more targets (controller/run/objstore.c) */
	    (r = br_spec_objstores(spec, s, err, errlen)) ||
	    (r = parse_volume(spec, s, err, errlen)) ||
	    (r = br_field_uint(spec, "iterations", "spec", 1, 1000, &s->iterations, err, errlen)) ||
	    (r = br_field_uint(spec, "parallelism", "spec", 1, 32, &s->parallelism, err, errlen)) ||
	    (r = parse_overrides(spec, s, err, errlen)) ||
	    (r = parse_what_to_run(spec, s, err, errlen)) ||
	    (r = parse_cleanup_timeouts(spec, s, err, errlen)) ||
	    (r = br_field_string(spec, "baseline", "spec", s->baseline, sizeof(s->baseline), err,
				 errlen)))
		return r;

	if ((r = br_lifecycle_spec_parse(json_object_get(spec, "lifecycle"), s->iterations,
					 s->volume_size, s->access_mode, s->pvc_bind_s,
					 &s->lifecycle, err, errlen)) ||
	    (r = parse_validity(json_object_get(spec, "validity"), s, err, errlen)))
		return r;

	/* runner pods */
	if ((r = parse_runner(json_object_get(spec, "runner"), s, err, errlen)) ||
	    (r = parse_distributed(spec, s, err, errlen)))
		return r;
	if (s->pods > 1 && s->obj)
		return fail(err, errlen,
			    "spec.runner.pods: %u runner pods per target is not supported with "
			    "spec.objectStores (one S3 client pod per object store; its "
			    "concurrency is the workload's)",
			    s->pods);
	return 0;
}

unsigned br_spec_total_iterations(const struct br_spec *s)
{
	return (unsigned)s->nclasses * s->iterations;
}

json_t *br_spec_runner_args(const struct br_spec *s, const char *jobfile_path, const char *data_dir,
			    const char *device)
{
	json_t *a = json_array();
	char buf[4200];
	bool ok = a != NULL;
#define ADD(...)                                                            \
	do {                                                                \
		snprintf(buf, sizeof(buf), __VA_ARGS__);                    \
		ok = ok && json_array_append_new(a, json_string(buf)) == 0; \
	} while (0)
	ADD("pod");
	if (s->profile[0])
		ADD("--profile=%s", s->profile);
	if (s->block)
		ADD("--filename=%s", device);
	else {
		ADD("--directory=%s", data_dir);
		if (!s->profile[0])
			ADD("--filename=%s", SB_TESTFILE);
	}
	ADD("--size=%s", s->test_size);
	if (s->runtime[0])
		ADD("--runtime=%s", s->runtime);
	if (s->ramp_time[0])
		ADD("--ramp_time=%s", s->ramp_time);
	if (!s->profile[0])
		ADD("%s", jobfile_path);
#undef ADD
	if (!ok) {
		json_decref(a);
		return NULL;
	}
	return a;
}
