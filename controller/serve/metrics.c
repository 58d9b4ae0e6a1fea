/* SPDX-License-Identifier: MIT */
#include "controller/serve/metrics.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double buckets[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
#define NBUCKETS (sizeof(buckets) / sizeof(buckets[0]))

struct br_metrics {
	pthread_mutex_t mu;
	unsigned long iterations;
	unsigned long api_errors;
	unsigned long reconciles_ok, reconciles_error, reconciles_requeue;
	unsigned long bucket[NBUCKETS];
	unsigned long count;
	double sum;
	bool leader;
};

struct br_metrics *br_metrics_new(void)
{
	struct br_metrics *m = calloc(1, sizeof(*m));
	if (m)
		pthread_mutex_init(&m->mu, NULL);
	return m;
}

void br_metrics_free(struct br_metrics *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->mu);
	free(m);
}

void br_metrics_iterations(struct br_metrics *m, unsigned long n)
{
	pthread_mutex_lock(&m->mu);
	m->iterations += n;
	pthread_mutex_unlock(&m->mu);
}

void br_metrics_api_error(struct br_metrics *m)
{
	pthread_mutex_lock(&m->mu);
	m->api_errors++;
	pthread_mutex_unlock(&m->mu);
}

void br_metrics_reconcile(struct br_metrics *m, double seconds, const char *result)
{
	pthread_mutex_lock(&m->mu);
	if (!strcmp(result, "ok"))
		m->reconciles_ok++;
	else if (!strcmp(result, "requeue"))
		m->reconciles_requeue++;
	else
		m->reconciles_error++;
	for (size_t i = 0; i < NBUCKETS; i++)
		if (seconds <= buckets[i])
			m->bucket[i]++;
	m->count++;
	m->sum += seconds;
	pthread_mutex_unlock(&m->mu);
}

void br_metrics_leader(struct br_metrics *m, bool leading)
{
	pthread_mutex_lock(&m->mu);
	m->leader = leading;
	pthread_mutex_unlock(&m->mu);
}

bool br_metrics_leading(struct br_metrics *m)
{
	pthread_mutex_lock(&m->mu);
	bool l = m->leader;
	pthread_mutex_unlock(&m->mu);
	return l;
}

char *br_metrics_render(struct br_metrics *m, const struct br_phase_count *phases, size_t nphases)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	pthread_mutex_lock(&m->mu);
	fprintf(f, "# HELP storagebench_runs BenchmarkRuns by phase.\n"
		   "# TYPE storagebench_runs gauge\n");
	for (size_t i = 0; i < nphases; i++)
		fprintf(f, "storagebench_runs{phase=\"%s\"} %lu\n", phases[i].phase, phases[i].n);
	fprintf(f,
		"# HELP storagebench_iterations_completed_total Iterations recorded by runners.\n"
		"# TYPE storagebench_iterations_completed_total counter\n"
		"storagebench_iterations_completed_total %lu\n"
		"# HELP storagebench_api_errors_total Kubernetes API requests that failed.\n"
		"# TYPE storagebench_api_errors_total counter\n"
		"storagebench_api_errors_total %lu\n"
		"# HELP storagebench_reconcile_total Reconciles by result.\n"
		"# TYPE storagebench_reconcile_total counter\n"
		"storagebench_reconcile_total{result=\"ok\"} %lu\n"
		"storagebench_reconcile_total{result=\"requeue\"} %lu\n"
		"storagebench_reconcile_total{result=\"error\"} %lu\n"
		"# HELP storagebench_reconcile_duration_seconds Time spent in a reconcile.\n"
		"# TYPE storagebench_reconcile_duration_seconds histogram\n",
		m->iterations, m->api_errors, m->reconciles_ok, m->reconciles_requeue,
		m->reconciles_error);
	for (size_t i = 0; i < NBUCKETS; i++)
		fprintf(f, "storagebench_reconcile_duration_seconds_bucket{le=\"%g\"} %lu\n",
			buckets[i], m->bucket[i]);
	fprintf(f,
		"storagebench_reconcile_duration_seconds_bucket{le=\"+Inf\"} %lu\n"
		"storagebench_reconcile_duration_seconds_sum %.6f\n"
		"storagebench_reconcile_duration_seconds_count %lu\n"
		"# HELP storagebench_leader Whether this replica leads (1) or waits (0).\n"
		"# TYPE storagebench_leader gauge\n"
		"storagebench_leader %d\n",
		m->count, m->sum, m->count, m->leader ? 1 : 0);
	pthread_mutex_unlock(&m->mu);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
