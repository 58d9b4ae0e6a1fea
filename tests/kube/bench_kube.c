/* SPDX-License-Identifier: MIT */
/*
 * lib/kube benchmark against the test cluster (run by scripts/bench.d/kube.sh
 * inside its network namespace):
 *  1. GETs of one ConfigMap per second over one reused connection, and with a
 *     new connection (TCP + TLS handshake) per request; rounds alternate,
 *     the median of each is reported with the ratio.
 *  2. Memory per object cached by the informer: N ConfigMaps are listed into
 *     an informer; the heap in use (mallinfo2, all arenas) before and after,
 *     divided by N, next to the objects' JSON size.
 * Usage: bench_kube [rounds] [seconds-per-round] [objects]
 */
#include "kube/kube.h"
#include "core/log.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* GETs for secs seconds; returns requests per second (or -1). */
static double get_rate(struct kube_client *c, const char *ns, double secs)
{
	unsigned long n = 0;
	double t0 = now_s(), t;
	do {
		if (kube_get(c, &kube_res_configmaps, ns, "bench", NULL, NULL))
			return -1;
		n++;
		t = now_s();
	} while (t - t0 < secs);
	return (double)n / (t - t0);
}

/* Heap in use added by a synced informer with selector sel (bytes), or -1. */
static long informer_heap(struct kube_client *c, const char *ns, const char *sel, bool strip,
			  size_t *count)
{
	struct kube_informer_opts io = {.resource = &kube_res_configmaps,
					.ns = ns,
					.label_selector = sel,
					.strip_managed_fields = strip};
	struct kube_error err;
	malloc_trim(0);
	struct mallinfo2 before = mallinfo2();
	struct kube_informer *inf = kube_informer_new(c, &io, &err);
	if (!inf || kube_informer_start(inf) || kube_informer_wait_synced(inf, 60000)) {
		kube_informer_free(inf);
		return -1;
	}
	usleep(500000); /* let the watch connect */
	struct mallinfo2 after = mallinfo2();
	if (count)
		*count = kube_informer_count(inf);
	kube_informer_free(inf);
	return (long)after.uordblks - (long)before.uordblks;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 3;
	double secs = argc > 2 ? strtod(argv[2], NULL) : 3.0;
	long nobj = argc > 3 ? strtol(argv[3], NULL, 10) : 1000;
	struct kube_config cfg;
	struct kube_error err;
	char buf[800], ns[64];
	int rc = 1;

	if (rounds < 1 || rounds > 50 || secs <= 0 || nobj < 1)
		return 2;
	if (kube_config_load(&cfg, NULL, NULL, &err)) {
		fprintf(stderr, "bench_kube: %s\n", kube_error_str(&err, buf, sizeof(buf)));
		return 1;
	}
	struct kube_client *c = kube_client_new(&cfg, NULL, &err);
	kube_config_release(&cfg);
	if (!c) {
		fprintf(stderr, "bench_kube: %s\n", kube_error_str(&err, buf, sizeof(buf)));
		return 1;
	}
	snprintf(ns, sizeof(ns), "kube-bench-%d", (int)getpid());
	json_t *o = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "v1", "kind", "Namespace",
			      "metadata", "name", ns);
	int r = kube_create(c, &kube_res_namespaces, NULL, o, NULL, &err);
	json_decref(o);
	o = json_pack("{s:s, s:s, s:{s:s}, s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
		      "metadata", "name", "bench", "data", "k", "v");
	if (!r)
		r = kube_create(c, &kube_res_configmaps, ns, o, NULL, &err);
	json_decref(o);
	if (r) {
		fprintf(stderr, "bench_kube: %s\n", kube_error_str(&err, buf, sizeof(buf)));
		goto out;
	}

	/* 1. reused vs fresh connections, alternating rounds */
	double reuse[50], fresh[50];
	(void)get_rate(c, ns, 0.5); /* warm up */
	for (int i = 0; i < rounds; i++) {
		kube_client_set_fresh_connections(c, false);
		reuse[i] = get_rate(c, ns, secs);
		kube_client_set_fresh_connections(c, true);
		fresh[i] = get_rate(c, ns, secs);
		kube_client_set_fresh_connections(c, false);
		printf("round %d: reused %.0f req/s, new connection per request %.0f req/s\n",
		       i + 1, reuse[i], fresh[i]);
		if (reuse[i] < 0 || fresh[i] < 0)
			goto out;
	}
	double mr = median(reuse, rounds), mf = median(fresh, rounds);
	printf("GET configmap: reused connection %.0f req/s, new connection per request %.0f "
	       "req/s (median of %d rounds of %.1f s), ratio %.1fx\n",
	       mr, mf, rounds, secs, mr / mf);

	/* 2. informer memory per cached object */
	size_t json_bytes = 0;
	for (long i = 0; i < nobj; i++) {
		char name[32], v[80];
		snprintf(name, sizeof(name), "obj-%05ld", i);
		snprintf(v, sizeof(v), "value-%ld-0123456789abcdef0123456789abcdef", i);
		o = json_pack("{s:s, s:s, s:{s:s, s:{s:s}}, s:{s:s, s:s}}", "apiVersion", "v1",
			      "kind", "ConfigMap", "metadata", "name", name, "labels", "set",
			      "informer", "data", "a", v, "b", name);
		json_t *created = NULL;
		r = kube_create(c, &kube_res_configmaps, ns, o, &created, &err);
		json_decref(o);
		if (r) {
			fprintf(stderr, "bench_kube: %s\n", kube_error_str(&err, buf, sizeof(buf)));
			goto out;
		}
		char *s = json_dumps(created, JSON_COMPACT);
		json_bytes += s ? strlen(s) : 0;
		free(s);
		json_decref(created);
	}
	/* The informer's fixed cost (its thread's curl handle, TLS state, the
	 * watch) comes out with an informer whose selector matches nothing. */
	long d_empty = informer_heap(c, ns, "set=none", false, NULL);
	size_t count = 0, count2 = 0;
	long d_full = informer_heap(c, ns, "set=informer", false, &count);
	long d_strip = informer_heap(c, ns, "set=informer", true, &count2);
	if (d_empty < 0 || d_full < 0 || d_strip < 0 || count != (size_t)nobj || count2 != count) {
		fprintf(stderr, "bench_kube: informer did not sync\n");
		goto out;
	}
	printf("informer: %zu ConfigMaps cached, heap %+.0f KiB (%+.0f KiB with none), %.0f bytes "
	       "per object (JSON as served: %.0f bytes per object)\n",
	       count, (double)d_full / 1024, (double)d_empty / 1024,
	       (double)(d_full - d_empty) / (double)count, (double)json_bytes / (double)nobj);
	printf("informer with strip_managed_fields: %.0f bytes per object\n",
	       (double)(d_strip - d_empty) / (double)count);
	rc = 0;
out:
	(void)kube_delete(c, &kube_res_namespaces, NULL, ns, NULL, NULL, NULL);
	kube_client_free(c);
	return rc;
}
