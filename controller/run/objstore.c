/* SPDX-License-Identifier: MIT */
#include "controller/run/objstore.h"
#include "controller/core/field.h"
#include "core/errfmt.h"

#include "s3opts/opts.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a DNS label: what a target name must be (it names pods and ConfigMaps) */
static bool dns_label(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 40 || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-'))
			return false;
	return true;
}

static int parse_store(const json_t *v, size_t i, struct br_object_store *st, char *err,
		       size_t errlen)
{
	char path[64], ep[300] = "";
	snprintf(path, sizeof(path), "spec.objectStores[%zu]", i);
	if (!json_is_object(v))
		return sb_errf(err, errlen, -EINVAL, "%s: must be an object", path);
	snprintf(st->region, sizeof(st->region), "us-east-1");
	if (br_field_string(v, "name", path, st->name, sizeof(st->name), err, errlen) ||
	    br_field_string(v, "endpoint", path, ep, sizeof(ep), err, errlen) ||
	    br_field_string(v, "region", path, st->region, sizeof(st->region), err, errlen) ||
	    br_field_string(v, "bucket", path, st->bucket, sizeof(st->bucket), err, errlen))
		return -EINVAL;
	if (!dns_label(st->name))
		return sb_errf(
			err, errlen, -EINVAL,
			"%s.name: '%s' is not a name of 1-40 lowercase letters, digits and '-'",
			path, st->name);
	if (!strncmp(ep, "https://", 8)) {
		st->tls = true;
		snprintf(st->host, sizeof(st->host), "%s", ep + 8);
	} else if (!strncmp(ep, "http://", 7)) {
		snprintf(st->host, sizeof(st->host), "%s", ep + 7);
	} else {
		return sb_errf(
			err, errlen, -EINVAL,
			"%s.endpoint: '%s' is not an http:// or https:// URL of an S3 endpoint",
			path, ep);
	}
	size_t hl = strlen(st->host);
	if (hl && st->host[hl - 1] == '/')
		st->host[--hl] = '\0';
	if (!hl || strchr(st->host, '/') || strchr(st->host, ' ') || strchr(st->host, ','))
		return sb_errf(err, errlen, -EINVAL,
			       "%s.endpoint: '%s' must be scheme://host[:port] only", path, ep);
	const json_t *sr = json_object_get(v, "secretRef");
	if (!json_is_object(sr) ||
	    br_field_string(sr, "name", path, st->secret, sizeof(st->secret), err, errlen) ||
	    !st->secret[0])
		return sb_errf(err, errlen, -EINVAL,
			       "%s.secretRef.name: missing (a Secret with AWS_ACCESS_KEY_ID and "
			       "AWS_SECRET_ACCESS_KEY)",
			       path);
	const json_t *tls = json_object_get(v, "tls");
	if (tls) {
		const json_t *isv = json_object_get(tls, "insecureSkipVerify");
		if (!json_is_object(tls) || (isv && !json_is_boolean(isv)))
			return sb_errf(err, errlen, -EINVAL,
				       "%s.tls: must be an object {insecureSkipVerify: bool}",
				       path);
		st->insecure = json_is_true(isv);
	}
	char pol[32] = "CreatePerRun";
	if (br_field_string(v, "bucketPolicy", path, pol, sizeof(pol), err, errlen))
		return -EINVAL;
	if (strcmp(pol, "CreatePerRun") && strcmp(pol, "GivenEmpty"))
		return sb_errf(err, errlen, -EINVAL,
			       "%s.bucketPolicy: '%s' is not CreatePerRun or GivenEmpty", path,
			       pol);
	if (!strcmp(pol, "GivenEmpty") && !st->bucket[0])
		return sb_errf(err, errlen, -EINVAL,
			       "%s.bucket: bucketPolicy GivenEmpty needs a bucket", path);
	if (!strcmp(pol, "CreatePerRun") && st->bucket[0])
		return sb_errf(
			err, errlen, -EINVAL,
			"%s.bucket: set only with bucketPolicy GivenEmpty (CreatePerRun makes "
			"a new bucket per workload)",
			path);
	/* the runner's own checks, so what is accepted here runs there */
	struct sb_s3_opts o;
	sb_s3_opts_init(&o);
	char e2[512];
	if (sb_s3_opt_set(&o, "", "host", st->host, e2, sizeof(e2)) ||
	    (st->bucket[0] && sb_s3_opt_set(&o, "", "bucket", st->bucket, e2, sizeof(e2))))
		return sb_errf(err, errlen, -EINVAL, "%s: %s", path, e2);
	return 0;
}

/* One workload; path names it in errors ("spec.objectWorkloads[2]"). */
static int parse_workload(const json_t *v, const char *path, struct br_object_workload *w,
			  char *err, size_t errlen)
{
	if (!json_is_object(v))
		return sb_errf(err, errlen, -EINVAL, "%s: must be an object", path);
	snprintf(w->size, sizeof(w->size), "64KiB");
	snprintf(w->duration, sizeof(w->duration), "10s");
	w->concurrent = 4;
	w->objects = 100;
	if (br_field_string(v, "name", path, w->name, sizeof(w->name), err, errlen) ||
	    br_field_string(v, "benchmark", path, w->benchmark, sizeof(w->benchmark), err,
			    errlen) ||
	    br_field_string(v, "objectSize", path, w->size, sizeof(w->size), err, errlen) ||
	    br_field_string(v, "duration", path, w->duration, sizeof(w->duration), err, errlen) ||
	    br_field_uint(v, "concurrent", path, 1, 1024, &w->concurrent, err, errlen) ||
	    br_field_uint(v, "objects", path, 1, 1000000, &w->objects, err, errlen) ||
	    br_field_uint(v, "batch", path, 1, 1000, &w->batch, err, errlen))
		return -EINVAL;
	if (!dns_label(w->name))
		return sb_errf(
			err, errlen, -EINVAL,
			"%s.name: '%s' is not a name of 1-40 lowercase letters, digits and '-'",
			path, w->name);
	struct sb_s3_opts o;
	sb_s3_opts_init(&o);
	char e2[512];
	if (sb_s3_opt_set(&o, "", "benchmark", w->benchmark, e2, sizeof(e2)))
		return sb_errf(err, errlen, -EINVAL,
			       "%s.benchmark: '%s' is not one of get, put, delete, stat, "
			       "list, mixed",
			       path, w->benchmark);
	if (sb_s3_opt_set(&o, "", "obj.size", w->size, e2, sizeof(e2)))
		return sb_errf(err, errlen, -EINVAL,
			       "%s.objectSize: '%s' is not a size (1KiB, 4MiB, 1KB)", path,
			       w->size);
	if (sb_s3_opt_set(&o, "", "duration", w->duration, e2, sizeof(e2)))
		return sb_errf(err, errlen, -EINVAL,
			       "%s.duration: '%s' is not a duration (30s, 5m)", path, w->duration);
	if (w->batch && o.bench != SB_S3_B_DELETE)
		return sb_errf(
			err, errlen, -EINVAL,
			"%s.batch: only the delete benchmark deletes in batches (this is %s)", path,
			w->benchmark);
	return 0;
}

/*
 * Built-in object profiles: the warp runs of the reference pages, as
 * object workloads (what spec.objectWorkloads would list by hand). Sizes
 * in bytes (warp's KB and MB are powers of 1000, KiB and MiB of 1024).
 */
struct objprof_wl {
	const char *name, *benchmark;
	uint64_t size;
	unsigned concurrent, objects, duration_s;
};

#define KB  1000ull
#define MB  (1000ull * KB)
#define KIB 1024ull
#define MIB (1024ull * KIB)

/* The managed cloud page's "s3" section (warp v1.4.0): 1 KB operations at 150
 * and 16 concurrent requests, 100000 objects, 5 minutes; the 100 MB throughput
 * tests (GET with 250 objects) at 16. */
static const struct objprof_wl warp_operations[] = {
	{"delete-1kb-c150", "delete", 1 * KB, 150, 100000, 300},
	{"delete-1kb-c16", "delete", 1 * KB, 16, 100000, 300},
	{"get-1kb-c150", "get", 1 * KB, 150, 100000, 300},
	{"get-1kb-c16", "get", 1 * KB, 16, 100000, 300},
	{"list-1kb-c150", "list", 1 * KB, 150, 100000, 300},
	{"list-1kb-c16", "list", 1 * KB, 16, 100000, 300},
	{"put-1kb-c150", "put", 1 * KB, 150, 100000, 300},
	{"put-1kb-c16", "put", 1 * KB, 16, 100000, 300},
	{"get-100mb", "get", 100 * MB, 16, 250, 300},
	{"put-100mb", "put", 100 * MB, 16, 250, 300},
};

/* The object storage page's warp table: GET at 1 KiB, 100 KiB, 1 MiB and
 * 4 MiB with 16, 32 and 64 concurrent requests, ~30 minutes each (warp's
 * default 2500 objects). */
static const struct objprof_wl warp_sizes[] = {
	{"get-1kib-c16", "get", 1 * KIB, 16, 2500, 1800},
	{"get-1kib-c32", "get", 1 * KIB, 32, 2500, 1800},
	{"get-1kib-c64", "get", 1 * KIB, 64, 2500, 1800},
	{"get-100kib-c16", "get", 100 * KIB, 16, 2500, 1800},
	{"get-100kib-c32", "get", 100 * KIB, 32, 2500, 1800},
	{"get-100kib-c64", "get", 100 * KIB, 64, 2500, 1800},
	{"get-1mib-c16", "get", 1 * MIB, 16, 2500, 1800},
	{"get-1mib-c32", "get", 1 * MIB, 32, 2500, 1800},
	{"get-1mib-c64", "get", 1 * MIB, 64, 2500, 1800},
	{"get-4mib-c16", "get", 4 * MIB, 16, 2500, 1800},
	{"get-4mib-c32", "get", 4 * MIB, 32, 2500, 1800},
	{"get-4mib-c64", "get", 4 * MIB, 64, 2500, 1800},
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *name;
	const struct objprof_wl *parts[2];
	size_t nparts[2];
} objprofiles[] = {
	{"warp-operations", {warp_operations, NULL}, {NELEM(warp_operations), 0}},
	{"warp-sizes", {warp_sizes, NULL}, {NELEM(warp_sizes), 0}},
	{"warp-seed", {warp_operations, warp_sizes}, {NELEM(warp_operations), NELEM(warp_sizes)}},
};

/* warp's spelling of a size: the largest unit dividing it, else bytes */
static void fmt_size(uint64_t b, char *out, size_t len)
{
	static const struct {
		uint64_t mul;
		const char *unit;
	} u[] = {{MIB, "MiB"}, {MB, "MB"}, {KIB, "KiB"}, {KB, "KB"}};
	for (size_t i = 0; i < NELEM(u); i++)
		if (b % u[i].mul == 0) {
			snprintf(out, len, "%llu%s", (unsigned long long)(b / u[i].mul), u[i].unit);
			return;
		}
	snprintf(out, len, "%llu", (unsigned long long)b);
}

/* x scaled by f (0 < f <= 1), rounded, at least lo */
static uint64_t scaled(uint64_t x, double f, uint64_t lo)
{
	double v = (double)x * f + 0.5;
	uint64_t r = (uint64_t)v;
	return r < lo ? lo : r;
}

/*
 * spec.objectProfile with spec.objectProfileScale, as the workloads a
 * hand-written spec.objectWorkloads would list (new array in *out). 0,
 * -EINVAL naming the field, -ENOMEM.
 */
static int profile_workloads(const json_t *spec, json_t **out, char *err, size_t errlen)
{
	const json_t *pv = json_object_get(spec, "objectProfile");
	const json_t *fv = json_object_get(spec, "objectProfileScale");
	const char *name = json_string_value(pv);
	size_t p = 0;
	*out = NULL;
	while (name && p < NELEM(objprofiles) && strcmp(objprofiles[p].name, name))
		p++;
	if (!name || p == NELEM(objprofiles))
		return sb_errf(err, errlen, -EINVAL,
			       "spec.objectProfile: '%s' is not warp-operations, warp-sizes or "
			       "warp-seed",
			       name ? name : "(not a string)");
	double f = 1.0;
	if (fv) {
		f = json_number_value(fv);
		if (!json_is_number(fv) || !(f > 0.0 && f <= 1.0))
			return sb_errf(
				err, errlen, -EINVAL,
				"spec.objectProfileScale: must be a number above 0 and at most "
				"1 (0.01 runs the profile with objects, object counts and "
				"durations a hundredth of the reference page's)");
	}
	json_t *a = json_array();
	if (!a)
		return -ENOMEM;
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < objprofiles[p].nparts[k]; i++) {
			const struct objprof_wl *w = &objprofiles[p].parts[k][i];
			char size[32], dur[32];
			fmt_size(scaled(w->size, f, 1), size, sizeof(size));
			snprintf(dur, sizeof(dur), "%llus",
				 (unsigned long long)scaled(w->duration_s, f, 1));
			/* every worker has an object to work on */
			uint64_t objects = scaled(w->objects, f, w->concurrent);
			if (json_array_append_new(
				    a, json_pack("{s:s,s:s,s:s,s:I,s:I,s:s}", "name", w->name,
						 "benchmark", w->benchmark, "objectSize", size,
						 "concurrent", (json_int_t)w->concurrent, "objects",
						 (json_int_t)objects, "duration", dur))) {
				json_decref(a);
				return -ENOMEM;
			}
		}
	*out = a;
	return 0;
}

int br_objstores_parse(const json_t *spec, char *const *classes, size_t nclasses,
		       struct br_objstores **out, char *err, size_t errlen)
{
	const json_t *sv = json_object_get(spec, "objectStores");
	const json_t *wv = json_object_get(spec, "objectWorkloads");
	const json_t *pv = json_object_get(spec, "objectProfile");
	*out = NULL;
	if (!sv && !wv && !pv && !json_object_get(spec, "objectProfileScale"))
		return 0;
	if (!json_is_array(sv) || json_array_size(sv) == 0)
		return sb_errf(
			err, errlen, -EINVAL,
			"spec.objectStores: a list of at least one object store is needed with "
			"spec.%s",
			pv   ? "objectProfile"
			: wv ? "objectWorkloads"
			     : "objectProfileScale");
	if (json_array_size(sv) > BR_MAX_OBJECT_STORES)
		return sb_errf(err, errlen, -EINVAL, "spec.objectStores: at most %d",
			       BR_MAX_OBJECT_STORES);
	if (pv && wv)
		return sb_errf(err, errlen, -EINVAL,
			       "spec: set only one of objectProfile and objectWorkloads");
	if (!pv && json_object_get(spec, "objectProfileScale"))
		return sb_errf(
			err, errlen, -EINVAL,
			"spec.objectProfileScale: scales spec.objectProfile, which is not set");
	json_t *pw = NULL; /* the profile's workloads */
	if (pv) {
		int r = profile_workloads(spec, &pw, err, errlen);
		if (r)
			return r;
		wv = pw;
	}
	if (!json_is_array(wv) || json_array_size(wv) == 0)
		return sb_errf(err, errlen, -EINVAL,
			       "spec.objectWorkloads: a list of at least one workload (or "
			       "spec.objectProfile) is needed for the object stores");
	if (json_array_size(wv) > BR_MAX_OBJECT_WORKLOADS) {
		json_decref(pw);
		return sb_errf(err, errlen, -EINVAL, "spec.objectWorkloads: at most %d",
			       BR_MAX_OBJECT_WORKLOADS);
	}
	struct br_objstores *o = calloc(1, sizeof(*o));
	if (!o) {
		json_decref(pw);
		return -ENOMEM;
	}
	int r = 0;
	for (size_t i = 0; !r && i < json_array_size(sv); i++) {
		struct br_object_store *st = &o->stores[i];
		r = parse_store(json_array_get(sv, i), i, st, err, errlen);
		for (size_t k = 0; !r && k < nclasses; k++)
			if (!strcmp(classes[k], st->name))
				r = sb_errf(
					err, errlen, -EINVAL,
					"spec.objectStores[%zu].name: '%s' is also a storage class "
					"of the run",
					i, st->name);
		for (size_t k = 0; !r && k < i; k++)
			if (!strcmp(o->stores[k].name, st->name))
				r = sb_errf(err, errlen, -EINVAL,
					    "spec.objectStores[%zu].name: '%s' is listed twice", i,
					    st->name);
		o->nstores = i + 1;
	}
	for (size_t i = 0; !r && i < json_array_size(wv); i++) {
		char path[96];
		if (pw)
			snprintf(path, sizeof(path), "spec.objectProfile: workload %zu", i);
		else
			snprintf(path, sizeof(path), "spec.objectWorkloads[%zu]", i);
		r = parse_workload(json_array_get(wv, i), path, &o->wl[i], err, errlen);
		for (size_t k = 0; !r && k < i; k++)
			if (!strcmp(o->wl[k].name, o->wl[i].name))
				r = sb_errf(err, errlen, -EINVAL, "%s.name: '%s' is listed twice",
					    path, o->wl[i].name);
		o->nwl = i + 1;
	}
	json_decref(pw);
	if (r) {
		free(o);
		return r;
	}
	*out = o;
	return 0;
}

const struct br_object_store *br_objstore_find(const struct br_objstores *o, const char *name)
{
	for (size_t i = 0; o && i < o->nstores; i++)
		if (!strcmp(o->stores[i].name, name))
			return &o->stores[i];
	return NULL;
}

static bool add(json_t *a, const char *s)
{
	return json_array_append_new(a, json_string(s)) == 0;
}

json_t *br_objstore_runner_args(const struct br_objstores *o, const struct br_object_store *st)
{
	json_t *a = json_array();
	char buf[32];
	bool ok = a && add(a, "pod") && add(a, "s3") && add(a, "--host") && add(a, st->host) &&
		  add(a, "--region") && add(a, st->region) && (!st->tls || add(a, "--tls")) &&
		  (!st->insecure || add(a, "--insecure")) &&
		  (!st->bucket[0] || (add(a, "--bucket") && add(a, st->bucket)));
	for (size_t i = 0; ok && i < o->nwl; i++) {
		const struct br_object_workload *w = &o->wl[i];
		ok = add(a, "--label") && add(a, w->name) && add(a, "--benchmark") &&
		     add(a, w->benchmark) && add(a, "--obj.size") && add(a, w->size) &&
		     add(a, "--duration") && add(a, w->duration);
		snprintf(buf, sizeof(buf), "%u", w->concurrent);
		ok = ok && add(a, "--concurrent") && add(a, buf);
		snprintf(buf, sizeof(buf), "%u", w->objects);
		ok = ok && add(a, "--objects") && add(a, buf);
		snprintf(buf, sizeof(buf), "%u", w->batch);
		ok = ok && (!w->batch || (add(a, "--batch") && add(a, buf)));
	}
	if (!ok) {
		json_decref(a);
		return NULL;
	}
	return a;
}

json_t *br_objstore_env(const struct br_object_store *st)
{
	return json_pack("[{s:s,s:{s:{s:s,s:s}}},{s:s,s:{s:{s:s,s:s}}}]", "name",
			 "AWS_ACCESS_KEY_ID", "valueFrom", "secretKeyRef", "name", st->secret,
			 "key", "AWS_ACCESS_KEY_ID", "name", "AWS_SECRET_ACCESS_KEY", "valueFrom",
			 "secretKeyRef", "name", st->secret, "key", "AWS_SECRET_ACCESS_KEY");
}
