/* SPDX-License-Identifier: MIT */
/* The process' and the informers' metrics (controller/serve/process_metrics.h). */
#include "controller/serve/process_metrics.h"

#include "controller/core/controller.h"
#include "controller/core/memory.h"
#include "controller/core/resultcache.h"
#include "core/labels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What informer_line reports of an informer. */
enum informer_figure { INF_OBJECTS, INF_BYTES, INF_DROPPED };

/* One sample of an informer's figure (nothing when inf is NULL). */
static void informer_line(FILE *f, struct kube_informer *inf, enum informer_figure what)
{
	static const char *const metric[] = {
		[INF_OBJECTS] = "storagebench_informer_objects",
		[INF_BYTES] = "storagebench_informer_bytes",
		[INF_DROPPED] = "storagebench_informer_dropped_total",
	};
	if (!inf)
		return;
	unsigned long long v = what == INF_OBJECTS ? kube_informer_count(inf)
			       : what == INF_BYTES ? kube_informer_bytes(inf)
						   : kube_informer_dropped(inf);
	const char *ns = kube_informer_ns(inf);
	fprintf(f, "%s{resource=\"%s\",namespace=\"%s\"} %llu\n", metric[what],
		kube_informer_resource(inf)->resource, ns ? ns : "", v);
}

/* The cached result ConfigMaps of one informer, by what the cache holds of them. */
struct result_counts {
	size_t ok, invalid, with_data;
};

static int count_result(const json_t *cm, void *arg)
{
	struct result_counts *n = arg;
	const char *comp = json_string_value(json_object_get(
		json_object_get(json_object_get(cm, "metadata"), "labels"), SB_LABEL_COMPONENT));
	const json_t *v = json_object_get(cm, BR_RESULT_VERDICT);
	if (!comp || strcmp(comp, SB_COMPONENT_RESULT))
		return 0;
	if (json_object_get(cm, "data"))
		n->with_data++;
	else if (json_is_true(json_object_get(v, "ok")))
		n->ok++;
	else
		n->invalid++;
	return 0;
}

static void results_lines(FILE *f, struct kube_informer *inf)
{
	struct result_counts n = {0, 0, 0};
	if (!inf || kube_informer_foreach(inf, count_result, &n))
		return;
	const char *ns = kube_informer_ns(inf) ? kube_informer_ns(inf) : "";
	fprintf(f,
		"storagebench_informer_results{namespace=\"%s\",cached=\"verdict-ok\"} %zu\n"
		"storagebench_informer_results{namespace=\"%s\",cached=\"verdict-invalid\"} %zu\n"
		"storagebench_informer_results{namespace=\"%s\",cached=\"with-data\"} %zu\n",
		ns, n.ok, ns, n.invalid, ns, n.with_data);
}

char *br_metrics_render_process(struct br_controller *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	struct br_process_stats ps;
	br_process_stats(&ps);
	fprintf(f,
		"# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
		"# TYPE process_resident_memory_bytes gauge\n"
		"process_resident_memory_bytes %llu\n"
		"# HELP process_virtual_memory_bytes Virtual memory size in bytes.\n"
		"# TYPE process_virtual_memory_bytes gauge\n"
		"process_virtual_memory_bytes %llu\n"
		"# HELP process_cpu_seconds_total Total user and system CPU time spent in "
		"seconds.\n"
		"# TYPE process_cpu_seconds_total counter\n"
		"process_cpu_seconds_total %.2f\n"
		"# HELP process_open_fds Number of open file descriptors.\n"
		"# TYPE process_open_fds gauge\n"
		"process_open_fds %lu\n"
		"# HELP process_max_fds Maximum number of open file descriptors.\n"
		"# TYPE process_max_fds gauge\n"
		"process_max_fds %lu\n"
		"# HELP process_start_time_seconds Start time of the process since unix epoch in "
		"seconds.\n"
		"# TYPE process_start_time_seconds gauge\n"
		"process_start_time_seconds %.2f\n"
		"# HELP storagebench_malloc_trims_total Times freed heap was given back "
		"(malloc_trim) after deletions or a burst of reconciles.\n"
		"# TYPE storagebench_malloc_trims_total counter\n"
		"storagebench_malloc_trims_total %lu\n",
		ps.rss_bytes, ps.vsize_bytes, ps.cpu_seconds, ps.open_fds, ps.max_fds,
		ps.start_time_seconds, br_memory_trims());
	if (c) {
		fprintf(f, "# HELP storagebench_informer_objects Objects in the controller's "
			   "informer caches.\n"
			   "# TYPE storagebench_informer_objects gauge\n");
		for (size_t i = 0; i < c->nwatches; i++) {
			informer_line(f, c->watches[i].runs, INF_OBJECTS);
			informer_line(f, c->watches[i].pvcs, INF_OBJECTS);
			informer_line(f, c->watches[i].pods, INF_OBJECTS);
			informer_line(f, c->watches[i].cms, INF_OBJECTS);
		}
		informer_line(f, c->scs, INF_OBJECTS);
		fprintf(f, "# HELP storagebench_informer_bytes Bytes of deflated text the run "
			   "cache holds (controller/core/memory.h).\n"
			   "# TYPE storagebench_informer_bytes gauge\n");
		for (size_t i = 0; i < c->nwatches; i++)
			informer_line(f, c->watches[i].runs, INF_BYTES);
		fprintf(f, "# HELP storagebench_informer_dropped_total Objects the informers' "
			   "transform kept out of the cache (not the controller's).\n"
			   "# TYPE storagebench_informer_dropped_total counter\n");
		for (size_t i = 0; i < c->nwatches; i++) {
			informer_line(f, c->watches[i].pvcs, INF_DROPPED);
			informer_line(f, c->watches[i].pods, INF_DROPPED);
			informer_line(f, c->watches[i].cms, INF_DROPPED);
		}
		fprintf(f, "# HELP storagebench_informer_results Result ConfigMaps in the cache: "
			   "by their verdict (controller/core/resultcache.h), or kept with their "
			   "data.\n"
			   "# TYPE storagebench_informer_results gauge\n");
		for (size_t i = 0; i < c->nwatches; i++)
			results_lines(f, c->watches[i].cms);
		struct kube_client_stats cs;
		memset(&cs, 0, sizeof(cs));
		if (c->kc)
			kube_client_stats(c->kc, &cs);
		fprintf(f, "# HELP storagebench_api_requests_total Kubernetes API requests sent "
			   "(every try), by verb.\n"
			   "# TYPE storagebench_api_requests_total counter\n");
		for (int v = 0; v < KUBE_NVERBS; v++)
			fprintf(f, "storagebench_api_requests_total{verb=\"%s\"} %lu\n",
				kube_verb_name((enum kube_verb)v), cs.by[v]);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
