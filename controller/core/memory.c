/* SPDX-License-Identifier: MIT */
#include "controller/core/memory.h"

#include "controller/run/manifests.h"
#include "controller/core/proof.h"
#include "controller/core/resultcache.h"
#include "core/labels.h"
#include "core/log.h"

#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define LAST_APPLIED "kubectl.kubernetes.io/last-applied-configuration"

/* allocations from this size on are mmap'd (glibc's default, kept fixed) */
#define BR_MMAP_THRESHOLD (128 * 1024)

/* A typical BenchmarkRun as the run cache stores it (compact JSON, the
 * CRD's defaults, a status of one class): the preset dictionary its texts
 * are deflated against. Only the compression ratio depends on it (a run
 * unlike it is still stored whole); the later a string, the cheaper a
 * reference to it. */
const char br_run_dict[] =
	"{\"apiVersion\":\"" SB_API_VERSION "\",\"kind\":\"" SB_KIND "\",\"metadata\":{"
	"\"creationTimestamp\":\"2026-01-01T00:00:00Z\",\"generation\":1,\"labels\":{"
	"\"" SB_LABEL_MANAGED_BY
	"\":\"\"},\"name\":\"\",\"namespace\":\"\",\"resourceVersion\":\"\",\"uid\":\"\"},"
	"\"spec\":{\"cleanup\":\"Always\",\"iterations\":3,\"parallelism\":1,\"runner\":{"
	"\"imagePullPolicy\":\"IfNotPresent\",\"pods\":1,\"spread\":\"DoNotSchedule\","
	"\"startTimeout\":\"5m\",\"volume\":\"perPod\"},\"storageClasses\":[\"\"],"
	"\"timeouts\":{\"barrier\":\"5m\",\"iteration\":\"1h\",\"pvcBind\":\"5m\",\"run\":\"48h\"},"
	"\"volume\":{\"accessMode\":\"ReadWriteOnce\",\"size\":\"10Gi\",\"volumeMode\":"
	"\"Filesystem\"},\"workloads\":[{\"bs\":\"4k\",\"iodepth\":32,\"name\":\"randread\","
	"\"runtime\":\"60s\",\"rw\":\"randread\",\"timeBased\":true}]},\"status\":{"
	"\"classList\":\"\",\"classes\":[{\"attempts\":1,\"iterationsDone\":0,\"message\":"
	"\"storage class '' does not exist\",\"name\":\"\",\"phase\":\"Succeeded\",\"pod\":\"\","
	"\"pvc\":\"\",\"reason\":\"\"}],\"completionTime\":\"2026-01-01T00:00:00Z\","
	"\"conditions\":[{\"lastTransitionTime\":\"2026-01-01T00:00:00Z\",\"message\":"
	"\" of  iterations done\",\"observedGeneration\":1,\"reason\":\"\",\"status\":\"True\","
	"\"type\":\"Succeeded\"}],\"message\":\"\",\"observedGeneration\":1,\"phase\":"
	"\"Succeeded\",\"progress\":\"\",\"startTime\":\"2026-01-01T00:00:00Z\"}}";

/* The other caches' preset dictionary: what the controller's pods, PVCs,
 * ConfigMaps and StorageClasses have in common as the API server returns
 * them after the transform (a runner pod's spec with the server's defaults,
 * a PVC's, a result's verdict, a report's JSON keys), the commonest last.
 * As with br_run_dict only the ratio depends on it. */
const char br_obj_dict[] =
	"{\"provisioner\":\"\",\"reclaimPolicy\":\"Delete\",\"volumeBindingMode\":"
	"\"WaitForFirstConsumer\",\"allowVolumeExpansion\":true,"
	"\"report.json\":\"{\\\"mean\\\":,\\\"stddev\\\":,\\\"iterations\\\":,"
	"\\\"workloads\\\":[{\\\"name\\\":\\\"\\\",\\\"read\\\":{\\\"iops\\\":"
	"{\\\"mean\\\":0,\\\"stddev\\\":0,\\\"n\\\":\\\"bw_bytes\\\":\\\"lat_ns\\\"\","
	"\"compare.json\":\"\",\"verdict\":{\"ok\":true,\"error\":\"\"},"
	"\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],\"resources\":{\"requests\":{"
	"\"storage\":\"64Mi\"}},\"storageClassName\":\"\",\"volumeMode\":\"Filesystem\","
	"\"volumeName\":\"pvc-\"},\"status\":{\"accessModes\":[\"ReadWriteOnce\"],"
	"\"capacity\":{\"storage\":\"64Mi\"},\"phase\":\"Bound\"}}"
	"{\"spec\":{\"automountServiceAccountToken\":false,\"containers\":[{\"args\":[\"--output\","
	"\"json\"],\"env\":[{\"name\":\"SB_\",\"value\":\"\"},{\"name\":\"SB_\",\"valueFrom\":{"
	"\"fieldRef\":{\"apiVersion\":\"v1\",\"fieldPath\":\"metadata.name\"}}}],\"image\":"
	"\"localhost/storagebench:0.1.0\",\"imagePullPolicy\":\"IfNotPresent\",\"name\":\"runner\","
	"\"resources\":{},\"securityContext\":{\"allowPrivilegeEscalation\":false,\"capabilities\":"
	"{\"drop\":[\"ALL\"]},\"readOnlyRootFilesystem\":true,\"runAsNonRoot\":true,"
	"\"seccompProfile\":{\"type\":\"RuntimeDefault\"}},\"terminationMessagePath\":"
	"\"/dev/termination-log\",\"terminationMessagePolicy\":\"File\",\"volumeMounts\":[{"
	"\"mountPath\":\"/data\",\"name\":\"data\"},{\"mountPath\":\"/spec\",\"name\":\"spec\","
	"\"readOnly\":true}]}],\"dnsPolicy\":\"ClusterFirst\",\"enableServiceLinks\":true,"
	"\"nodeName\":\"\",\"preemptionPolicy\":\"PreemptLowerPriority\",\"priority\":0,"
	"\"restartPolicy\":\"Never\",\"schedulerName\":\"default-scheduler\",\"securityContext\":"
	"{\"fsGroup\":65532,\"runAsGroup\":65532,\"runAsUser\":65532},\"serviceAccount\":\"\","
	"\"serviceAccountName\":\"\",\"terminationGracePeriodSeconds\":30,\"tolerations\":[{"
	"\"effect\":\"NoExecute\",\"key\":\"node.kubernetes.io/not-ready\",\"operator\":"
	"\"Exists\",\"tolerationSeconds\":300},{\"effect\":\"NoExecute\",\"key\":"
	"\"node.kubernetes.io/unreachable\",\"operator\":\"Exists\",\"tolerationSeconds\":300}],"
	"\"volumes\":[{\"name\":\"data\",\"persistentVolumeClaim\":{\"claimName\":\"\"}},{"
	"\"configMap\":{\"defaultMode\":420,\"name\":\"\"},\"name\":\"spec\"}]},\"status\":{"
	"\"conditions\":[{\"lastProbeTime\":null,\"lastTransitionTime\":\"2026-01-01T00:00:00Z\","
	"\"status\":\"True\",\"type\":\"PodScheduled\"},{\"type\":\"Initialized\"},{\"type\":"
	"\"ContainersReady\"},{\"type\":\"Ready\"}],\"containerStatuses\":[{\"lastState\":{},"
	"\"name\":\"runner\",\"ready\":false,\"restartCount\":0,\"started\":false,\"state\":{"
	"\"terminated\":{\"containerID\":\"containerd://\",\"exitCode\":0,\"finishedAt\":"
	"\"2026-01-01T00:00:00Z\",\"reason\":\"Completed\",\"startedAt\":\"2026-01-01T00:00:00Z\"}}"
	"}],"
	"\"hostIP\":\"10.254.254.\",\"phase\":\"Succeeded\",\"startTime\":\"2026-01-01T00:00:00Z\"}"
	"}"
	"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"creationTimestamp\":"
	"\"2026-01-01T00:00:00Z\",\"labels\":{\"" SB_LABEL_NAME "\":\"" SB_APP_NAME
	"\",\"" SB_LABEL_COMPONENT "\":\"result\",\"" SB_LABEL_MANAGED_BY "\":\"" SB_MANAGER
	"\",\"" SB_LABEL_RUN "\":\"\",\"" SB_LABEL_CLASS "\":\"\",\"" SB_LABEL_ITERATION
	"\":\"1\",\"" SB_LABEL_ATTEMPT
	"\":\"1\"},\"name\":\"\",\"namespace\":\"\",\"ownerReferences\":[{"
	"\"apiVersion\":\"" SB_API_VERSION "\",\"blockOwnerDeletion\":true,\"controller\":true,"
	"\"kind\":\"" SB_KIND "\",\"name\":\"\",\"uid\":\"\"}],\"resourceVersion\":\"\","
	"\"uid\":\"\"}";

const enum br_cache_kind br_cache_kinds[5] = {BR_CACHE_RUNS, BR_CACHE_PVCS, BR_CACHE_PODS,
					      BR_CACHE_CMS, BR_CACHE_SCS};

/* Sets key of dst to src's (a new reference to the same value) when src has it. */
static int keep(json_t *dst, const json_t *src, const char *key)
{
	json_t *v = json_object_get(src, key);
	return v ? json_object_set(dst, key, v) : 0;
}

/* A pod as the controller reads it: metadata, the whole spec (the report's
 * provenance checks it against the runner policy) and the status fields the
 * reconcile reads. */
static int compact_pod(json_t **obj)
{
	static const char *const top[] = {"apiVersion", "kind", "metadata", "spec"};
	static const char *const st[] = {"phase",     "reason",	    "message",
					 "startTime", "conditions", "hostIP"};
	static const char *const cs[] = {"name",	 "state", "lastState",
					 "restartCount", "ready", "started"};
	json_t *src = *obj, *pod = json_object(), *status = json_object(), *css = json_array();
	int ret = -ENOMEM;
	if (!pod || !status || !css)
		goto out;
	for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		if (keep(pod, src, top[i]))
			goto out;
	const json_t *sst = json_object_get(src, "status");
	for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++)
		if (keep(status, sst, st[i]))
			goto out;
	size_t k;
	const json_t *c;
	json_array_foreach(json_object_get(sst, "containerStatuses"), k, c)
	{
		json_t *one = json_object();
		if (!one || json_array_append_new(css, one))
			goto out;
		for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++)
			if (keep(one, c, cs[i]))
				goto out;
	}
	if (json_array_size(css) && json_object_set(status, "containerStatuses", css))
		goto out;
	if (json_object_set(pod, "status", status))
		goto out;
	json_decref(*obj);
	*obj = pod;
	pod = NULL;
	ret = 0;
out:
	json_decref(pod);
	json_decref(status);
	json_decref(css);
	return ret;
}

static bool is_report(const json_t *md)
{
	const char *comp = json_string_value(
		json_object_get(json_object_get(md, "labels"), SB_LABEL_COMPONENT));
	return comp && !strcmp(comp, SB_COMPONENT_REPORT);
}

/* A report ConfigMap keeps the data the controller reads back: report.json
 * and the comparison; its renderings (text, Markdown, CSV, SVG) go. */
static void slim_report(json_t *cm)
{
	json_t *data = json_object_get(cm, "data");
	const char *key;
	void *tmp;
	json_t *v;
	json_object_foreach_safe(data, tmp, key, v)
	{
		if (strcmp(key, SB_REPORT_JSON_KEY) && strcmp(key, BR_COMPARE_KEY))
			json_object_del(data, key);
	}
}

/*
 * Whether the controller made obj, as its proof says (controller/core/proof.h).
 * The runner writes results and ready ConfigMaps (checked by their own
 * rules: signed with the run's key); everything else of a cached kind that
 * carries the controller's label is the controller's or nobody's: a
 * planted report, job file, pod or PVC, and ConfigMaps of components the
 * controller never writes, are dropped here, before they cost memory.
 */
static bool made_here(const json_t *obj, enum br_cache_kind kind)
{
	const char *comp = json_string_value(json_object_get(
		json_object_get(json_object_get(obj, "metadata"), "labels"), SB_LABEL_COMPONENT));
	if (kind == BR_CACHE_CMS && comp &&
	    (!strcmp(comp, SB_COMPONENT_RESULT) || !strcmp(comp, SB_COMPONENT_READY)))
		return true;
	const struct kube_resource *r = kind == BR_CACHE_PVCS	? &kube_res_pvcs
					: kind == BR_CACHE_PODS ? &kube_res_pods
								: &kube_res_configmaps;
	return br_proof_check(obj, r, NULL, 0) == 0;
}

int br_cache_transform(json_t **obj, void *arg)
{
	enum br_cache_kind kind = arg ? *(const enum br_cache_kind *)arg : BR_CACHE_RUNS;
	json_t *md = json_object_get(*obj, "metadata");
	bool owned_kind = kind == BR_CACHE_PVCS || kind == BR_CACHE_PODS || kind == BR_CACHE_CMS;
	if (owned_kind) {
		const char *by = json_string_value(
			json_object_get(json_object_get(md, "labels"), SB_LABEL_MANAGED_BY));
		if (!by || strcmp(by, SB_MANAGER) || !made_here(*obj, kind))
			return 1;
	}
	json_object_del(md, "managedFields");
	json_t *an = json_object_get(md, "annotations");
	json_object_del(an, LAST_APPLIED);
	if (owned_kind)
		json_object_del(an, SB_ANNOT_PROOF); /* checked above: not read from the cache */
	if (an && json_object_size(an) == 0)
		json_object_del(md, "annotations");
	if (kind == BR_CACHE_PODS)
		return compact_pod(obj);
	if (kind == BR_CACHE_CMS && is_report(md))
		slim_report(*obj);
	if (kind == BR_CACHE_CMS)
		return br_result_verdict_set(*obj); /* a result's data: its verdict instead */
	return 0;
}

/* ------------------------------------------------------------- trimming */

static atomic_ulong deletions, trimmed_at, trims, work, worked_at;

/* glibc's tunable of each thread's cache of freed blocks (memory.h) */
#define TCACHE_TUNABLE "glibc.malloc.tcache_count"
#define TUNABLES_ENV   "GLIBC_TUNABLES"

int br_memory_tunables(const char *cur, char *out, size_t size)
{
	if (cur && strstr(cur, TCACHE_TUNABLE "="))
		return 0; /* set by whoever started us (or by our own exec) */
	bool more = cur && *cur;
	int n = snprintf(out, size, "%s%s" TCACHE_TUNABLE "=0", more ? cur : "", more ? ":" : "");
	return n > 0 && (size_t)n < size ? 1 : -ENAMETOOLONG;
}

void br_memory_reexec(const char *path, char **argv)
{
	char val[1024];
	const char *cur = getenv(TUNABLES_ENV);
	char *was = cur ? strdup(cur) : NULL;
	if ((cur && !was) || br_memory_tunables(cur, val, sizeof(val)) != 1 ||
	    setenv(TUNABLES_ENV, val, 1)) {
		free(was);
		return;
	}
	execv(path, argv);
	/* no /proc (or no exec): on with the thread caches, as before */
	int e = errno;
	if (was ? setenv(TUNABLES_ENV, was, 1) : unsetenv(TUNABLES_ENV))
		e = errno;
	free(was);
	sb_warn("Could not restart with the threads' malloc caches off", "errno=%d", e);
}

bool br_memory_tcache_off(const char *tunables)
{
	const char *t = tunables ? strstr(tunables, TCACHE_TUNABLE "=") : NULL;
	if (!t)
		return false;
	char *end = NULL;
	unsigned long n = strtoul(t + strlen(TCACHE_TUNABLE "="), &end, 10);
	return n == 0 && end != t + strlen(TCACHE_TUNABLE "=") && (*end == '\0' || *end == ':');
}

const char *br_memory_tunables_env(void)
{
	return getenv(TUNABLES_ENV);
}

void br_memory_init(void)
{
	/* one arena per thread keeps each thread's freed memory apart */
	if (!getenv("MALLOC_ARENA_MAX"))
		mallopt(M_ARENA_MAX, 2);
	/* glibc's default threshold rises to the size of the first mmap'd
	 * block freed (up to 32 MiB), after which a reconcile's observations
	 * and plan (~0.8 MB) and every list or watch buffer come from the heap,
	 * are written whole by calloc and stay resident between long-lived
	 * cache entries; fixed, they are mmap'd, only the pages used are
	 * touched, and free unmaps them. Setting it also fixes the top-of-heap
	 * trim threshold at its default. */
	if (!getenv("MALLOC_MMAP_THRESHOLD_"))
		mallopt(M_MMAP_THRESHOLD, BR_MMAP_THRESHOLD);
}

void br_memory_deleted(void)
{
	atomic_fetch_add(&deletions, 1);
}

void br_memory_worked(void)
{
	atomic_fetch_add(&work, 1);
}

bool br_memory_idle(void)
{
	unsigned long d = atomic_load(&deletions), t = atomic_load(&trimmed_at);
	unsigned long w = atomic_load(&work), wa = atomic_load(&worked_at);
	if (d != t) {
		/* one worker trims for these deletions */
		if (!atomic_compare_exchange_strong(&trimmed_at, &t, d))
			return false;
	} else if (w - wa < BR_TRIM_WORK || !atomic_compare_exchange_strong(&worked_at, &wa, w)) {
		return false;
	}
	atomic_store(&worked_at, w);
	malloc_trim(0);
	atomic_fetch_add(&trims, 1);
	return true;
}

unsigned long br_memory_trims(void)
{
	return atomic_load(&trims);
}

/* ------------------------------------------------------------- /proc */

int br_process_stats(struct br_process_stats *out)
{
	memset(out, 0, sizeof(*out));
	long page = sysconf(_SC_PAGESIZE), hz = sysconf(_SC_CLK_TCK);
	int ret = 0;
	FILE *f = fopen("/proc/self/stat", "r");
	if (f) {
		char buf[1024];
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
		/* fields after the command's closing parenthesis, from field 3 */
		char *p = strrchr(buf, ')');
		unsigned long utime = 0, stime = 0, vsize = 0;
		unsigned long long start = 0;
		long rss = 0;
		if (p && sscanf(p + 2,
				"%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu %*d %*d %*d "
				"%*d %*d %*d %llu %lu %ld",
				&utime, &stime, &start, &vsize, &rss) == 5) {
			out->cpu_seconds = hz > 0 ? (double)(utime + stime) / (double)hz : 0;
			out->vsize_bytes = vsize;
			out->rss_bytes = (unsigned long long)rss * (unsigned long long)page;
			f = fopen("/proc/stat", "r");
			char line[256];
			while (f && fgets(line, sizeof(line), f)) {
				unsigned long long btime;
				if (sscanf(line, "btime %llu", &btime) == 1 && hz > 0)
					out->start_time_seconds =
						(double)btime + (double)start / (double)hz;
			}
			if (f)
				fclose(f);
		} else {
			ret = -EPROTO;
		}
	} else {
		ret = -errno;
	}
	DIR *d = opendir("/proc/self/fd");
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (e->d_name[0] != '.')
				out->open_fds++;
		closedir(d);
		if (out->open_fds)
			out->open_fds--; /* the directory's own descriptor */
	}
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		out->max_fds = (unsigned long)rl.rlim_cur;
	return ret;
}
