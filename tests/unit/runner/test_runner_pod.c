/* SPDX-License-Identifier: MIT */
/* The runner's pod mode: what it believes of its environment (runner/mode/pod.c). */
#include "tests/unit/harness.h"
#include "runner/mode/pod.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static char dir[64];

/* A kubeconfig that a run author could name, in dir; its path in out. */
static int planted_kubeconfig(char *out, size_t len)
{
	snprintf(dir, sizeof(dir), "/tmp/sbpodXXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(out, len, "%s/kubeconfig", dir);
	FILE *f = fopen(out, "w");
	if (!f)
		return -1;
	fputs("apiVersion: v1\nkind: Config\n"
	      "clusters: [{name: c, cluster: {server: \"http://203.0.113.7:8080\"}}]\n"
	      "users: [{name: u, user: {token: t}}]\n"
	      "contexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n",
	      f);
	return fclose(f) ? -1 : 0;
}

/*
 * Issue 34: in a pod, KUBECONFIG does not choose the API server or the
 * credentials: the in-cluster configuration (here: none under an empty
 * root, so an in-cluster error) is used, never the planted file.
 */
static int test_pod_ignores_kubeconfig(void)
{
	char kc[128];
	struct kube_config cfg = KUBE_CONFIG_INIT;
	struct kube_error err = KUBE_ERROR_INIT;
	CHECK_INT(planted_kubeconfig(kc, sizeof(kc)), 0);
	CHECK_INT(setenv("KUBECONFIG", kc, 1), 0);
	CHECK_INT(setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1), 0);
	CHECK_INT(setenv("KUBERNETES_SERVICE_PORT", "443", 1), 0);
	int r = sb_pod_kube_config(&cfg, dir, &err);
	CHECK(r != 0);
	CHECK(strstr(err.message, "in-cluster") != NULL);
	CHECK(!cfg.server || !strstr(cfg.server, "203.0.113.7"));
	kube_config_release(&cfg);
	/* outside a pod (the tests' fake API server) KUBECONFIG still counts */
	CHECK_INT(unsetenv("KUBERNETES_SERVICE_HOST"), 0);
	CHECK_INT(sb_pod_kube_config(&cfg, dir, &err), 0);
	CHECK_STR(cfg.server, "http://203.0.113.7:8080");
	kube_config_release(&cfg);
	unsetenv("KUBECONFIG");
	unsetenv("KUBERNETES_SERVICE_PORT");
	unlink(kc);
	rmdir(dir);
	return T_PASS;
}

/*
 * Issue 34: a start ConfigMap is believed only for a start the controller
 * could have set: within the barrier timeout ahead, at most a second past.
 * The clock is a parameter: no waiting, no machine speed.
 */
static int test_start_time_bounded(void)
{
	const int64_t now = 1800000000LL * 1000000000LL, s = 1000000000LL;
	int64_t when = 0;
	char err[256], v[32];
	/* the controller's own: 2 s ahead */
	snprintf(v, sizeof(v), "%lld", (long long)(now + 2 * s));
	CHECK_INT(sb_pod_start_time("r-fast-1-a1-start", 1, v, now, 300, &when, err, sizeof(err)),
		  0);
	CHECK(when == now + 2 * s);
	/* at the bound still, one second beyond it not */
	snprintf(v, sizeof(v), "%lld", (long long)(now + 300 * s));
	CHECK_INT(sb_pod_start_time("c", 1, v, now, 300, &when, err, sizeof(err)), 0);
	snprintf(v, sizeof(v), "%lld", (long long)(now + 301 * s));
	CHECK_INT(sb_pod_start_time("c", 1, v, now, 300, &when, err, sizeof(err)), -ERANGE);
	/* a year ahead: refused, named */
	snprintf(v, sizeof(v), "%lld", (long long)(now + 365LL * 86400 * s));
	CHECK_INT(sb_pod_start_time("r-fast-1-a1-start", 3, v, now, 300, &when, err, sizeof(err)),
		  -ERANGE);
	CHECK(strstr(err, "configmap r-fast-1-a1-start: data.startUnixNano: iteration 3 would "
			  "start in 31536000 s, beyond the barrier timeout (300 s)"));
	/* past: within a second it starts at once; beyond, the others went without it */
	snprintf(v, sizeof(v), "%lld", (long long)(now - s / 2));
	CHECK_INT(sb_pod_start_time("c", 1, v, now, 300, &when, err, sizeof(err)), 0);
	snprintf(v, sizeof(v), "%lld", (long long)(now - 5 * s));
	CHECK_INT(sb_pod_start_time("c", 2, v, now, 300, &when, err, sizeof(err)), -ETIME);
	CHECK(strstr(err, "iteration 2 started 5000 ms ago without this pod"));
	/* not a time */
	static const char *const bad[] = {"", "soon", "-5", "0", "12x", "99999999999999999999"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_INT(sb_pod_start_time("c", 1, bad[i], now, 300, &when, err, sizeof(err)),
			  -EINVAL);
		CHECK(strstr(err, "is not a time in ns"));
	}
	CHECK_INT(sb_pod_start_time("c", 1, NULL, now, 300, &when, err, sizeof(err)), -EINVAL);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"pod/ignores-kubeconfig-in-a-pod", test_pod_ignores_kubeconfig},
	{"pod/start-time-bounded", test_start_time_bounded},
};
TEST_MAIN(cases)
