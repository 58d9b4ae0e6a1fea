/* SPDX-License-Identifier: MIT */
/*
 * storagebench-controller: the BenchmarkRun operator.
 *
 * Watches BenchmarkRuns (all namespaces, or those given with --namespace),
 * reconciles them (see reconcile.c), serves /healthz, /readyz and /metrics,
 * and with --leader-elect acts only while it holds the Lease, so two
 * replicas never act at once. Stops on SIGTERM or SIGINT, releasing the
 * Lease so another replica takes over at once.
 */
#include "controller/core/controller.h"
#include "controller/serve/httpd.h"
#include "controller/core/kubeops.h"
#include "controller/core/memory.h"
#include "controller/serve/metrics.h"
#include "controller/run/runkey.h"
#include "controller/run/reconcile.h"
#include "controller/schedule/reconcile.h"
#include "core/labels.h"
#include "kube/kube.h"
#include "core/log.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct args {
	const char *kubeconfig;
	const char *runner_image;
	const char *runner_sa;
	bool leader_elect;
	const char *lease_ns;
	const char *lease_name;
	const char *signing_secret;
	const char *identity;
	const char *metrics_addr;
	unsigned max_attempts;
	unsigned workers;
	struct br_controller_opts copts;
	struct br_policy policy;
	char nsbuf[1024];
};

static atomic_int lost_leadership;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: storagebench-controller [options]\n"
		"  --kubeconfig=PATH              kubeconfig (default: $KUBECONFIG, in-cluster, "
		"~/.kube/config)\n"
		"  --namespace=NS[,NS...]         watch only these namespaces (default: all)\n"
		"  --runner-image=IMAGE           default runner image (default: $SB_IMAGE)\n"
		"  --runner-service-account=NAME  default ServiceAccount of runner pods\n"
		"  runner policy (what a BenchmarkRun may ask of runner pods; docs/security.md):\n"
		"  --runner-pod-security=LEVEL     restricted (default), baseline or privileged\n"
		"  --runner-allow-host-network     runner pods may use hostNetwork\n"
		"  --runner-allow-control-plane    runner pods may tolerate or select "
		"control-plane "
		"nodes\n"
		"  --runner-allowed-images=R[,R]   more image repositories (reg/path/ or "
		"reg/path/name, * any)\n"
		"  --runner-allowed-service-accounts=SA[,SA]  more ServiceAccounts (* any)\n"
		"  --signing-secret=NAME          Secret of the result signing key, in "
		"$POD_NAMESPACE\n"
		"                                 or the context's (default "
		"storagebench-signing-key)\n"
		"  --leader-elect                 act only while holding the Lease\n"
		"  --leader-election-namespace=NS Lease namespace (default: $POD_NAMESPACE or "
		"the context's)\n"
		"  --leader-election-id=NAME      Lease name (default storagebench-controller)\n"
		"  --identity=ID                  this replica in the Lease (default: $POD_NAME "
		"or host-pid)\n"
		"  --metrics-bind-address=ADDR    /healthz /readyz /metrics on ADDR (default "
		":8080, 0 off)\n"
		"  --max-runner-attempts=N        runner pods per class before it fails "
		"(default 3)\n"
		"  --workers=N                    reconcile threads (default 2)\n"
		"  --log-level=debug|info|warn|error   --log-format=text|json\n"
		"  --test-clock-file=PATH         TEST ONLY: schedules take the time from PATH "
		"(seconds)\n"
		"  --version, --help\n");
}

static int parse_args(int argc, char **argv, struct args *a)
{
	memset(a, 0, sizeof(*a));
	a->policy = (struct br_policy)BR_POLICY_INIT;
	a->metrics_addr = ":8080";
	a->lease_name = SB_MANAGER; /* the Lease is named after the manager */
	a->signing_secret = BR_SIGNING_SECRET_DEFAULT;
	a->runner_image = getenv("SB_IMAGE");
	a->lease_ns = getenv("POD_NAMESPACE");
	a->identity = getenv("POD_NAME");
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const char *eq = strchr(arg, '=');
		const char *v = eq ? eq + 1 : NULL;
		size_t kl = eq ? (size_t)(eq - arg) : strlen(arg);
#define IS(name) (kl == strlen(name) && !strncmp(arg, name, kl))
		if (IS("--help") || IS("-h")) {
			usage(stdout);
			exit(0);
		} else if (IS("--version")) {
			char lib[512];
			printf("storagebench-controller %s\n%s\nlibmicrohttpd %s\n", SB_VERSION,
			       kube_http_library(lib, sizeof(lib)), br_httpd_library());
			exit(0);
		} else if (IS("--kubeconfig") && v) {
			a->kubeconfig = v;
		} else if (IS("--namespace") && v) {
			snprintf(a->nsbuf, sizeof(a->nsbuf), "%s", v);
			char *save = NULL;
			for (char *t = strtok_r(a->nsbuf, ",", &save); t;
			     t = strtok_r(NULL, ",", &save)) {
				if (a->copts.nnamespaces == BR_MAX_NAMESPACES) {
					fprintf(stderr, "--namespace: at most %d namespaces\n",
						BR_MAX_NAMESPACES);
					return -EINVAL;
				}
				a->copts.namespaces[a->copts.nnamespaces++] = t;
			}
		} else if (IS("--runner-image") && v) {
			a->runner_image = v;
		} else if (IS("--runner-service-account") && v) {
			a->runner_sa = v;
		} else if (IS("--signing-secret") && v) {
			a->signing_secret = v;
		} else if (IS("--leader-elect")) {
			a->leader_elect = !v || !strcmp(v, "true") || !strcmp(v, "1");
		} else if (IS("--leader-election-namespace") && v) {
			a->lease_ns = v;
		} else if (IS("--leader-election-id") && v) {
			a->lease_name = v;
		} else if (IS("--identity") && v) {
			a->identity = v;
		} else if (IS("--metrics-bind-address") && v) {
			a->metrics_addr = v;
		} else if ((IS("--max-runner-attempts") || IS("--workers")) && v) {
			char *end;
			unsigned long n = strtoul(v, &end, 10);
			if (*end || n < 1 || n > 16) {
				fprintf(stderr,
					"storagebench-controller: %.*s: '%s' is not 1..16\n",
					(int)kl, arg, v);
				return -EINVAL;
			}
			if (IS("--workers"))
				a->workers = (unsigned)n;
			else
				a->max_attempts = (unsigned)n;
		} else if (IS("--test-clock-file") && v) {
			/* TEST ONLY: schedules read their time from this file */
			br_sched_test_clock_file = v;
		} else if (IS("--log-level") && v) {
			enum sb_log_level l;
			if (sb_log_parse_level(v, &l)) {
				fprintf(stderr,
					"storagebench-controller: --log-level: '%s' unknown\n", v);
				return -EINVAL;
			}
			sb_log_set_level(l);
		} else if (IS("--log-format") && v) {
			if (strcmp(v, "text") && strcmp(v, "json")) {
				fprintf(stderr,
					"storagebench-controller: --log-format: '%s' is not text "
					"or json\n",
					v);
				return -EINVAL;
			}
			sb_log_set_json(!strcmp(v, "json"));
		} else {
			char name[64], perr[512];
			int r = 1;
			if (kl > 2 && kl < sizeof(name) && !strncmp(arg, "--", 2)) {
				snprintf(name, sizeof(name), "%.*s", (int)kl - 2, arg + 2);
				r = br_policy_flag(&a->policy, name, v, perr, sizeof(perr));
			}
			if (r < 0) {
				fprintf(stderr, "storagebench-controller: %s\n",
					r == -ENOMEM ? "out of memory" : perr);
				return r;
			}
			if (r > 0) {
				fprintf(stderr, "storagebench-controller: unknown option '%s'\n",
					arg);
				return -EINVAL;
			}
		}
#undef IS
	}
	a->copts.runner_image = a->runner_image;
	a->copts.runner_service_account = a->runner_sa;
	a->copts.max_attempts = a->max_attempts;
	a->copts.workers = a->workers;
	a->copts.policy = &a->policy;
	return 0;
}

static void on_started(void *arg)
{
	struct br_controller *c = arg;
	sb_info("Started leading", NULL);
	br_metrics_leader(c->metrics, true);
	if (br_controller_start_workers(c))
		sb_error("Could not start the workers", NULL);
}

static void on_stopped(void *arg)
{
	struct br_controller *c = arg;
	br_metrics_leader(c->metrics, false);
	/* as controller-runtime: a replica that lost the lease stops at once */
	atomic_store(&lost_leadership, 1);
	kill(getpid(), SIGTERM); /* every thread blocks it: main's sigwait takes it */
}

static void on_new_leader(const char *id, void *arg)
{
	(void)arg;
	sb_info("Observed a new leader", "identity=%s", id ? id : "");
}

/* The start, with what the controller was given. */
static void log_started(const struct args *a)
{
	sb_info("Started controller",
		"version=%s namespaces=%zu leader_elect=%d runner_image=%s runner_pod_security=%s "
		"runner_host_network=%d runner_allowed_images=%zu "
		"runner_allowed_service_accounts=%zu malloc_tcache=%s",
		SB_VERSION, a->copts.nnamespaces, a->leader_elect,
		a->runner_image ? a->runner_image : "", br_pss_level_name(a->policy.pod_security),
		a->policy.allow_host_network, a->policy.nimages, a->policy.nservice_accounts,
		br_memory_tcache_off(br_memory_tunables_env()) ? "off" : "on");
}

/*
 * Competes for the Lease: the workers start when this replica leads. The
 * identity defaults to "<host>-<pid>" (into idbuf). NULL on failure, said.
 */
static struct kube_leader *start_election(struct args *a, struct kube_client *kc,
					  struct br_controller *c, char *idbuf, size_t idlen)
{
	struct kube_leader_opts lo;
	struct kube_error err = KUBE_ERROR_INIT;
	char eb[1024];
	memset(&lo, 0, sizeof(lo));
	if (!a->identity) {
		char host[256] = "controller";
		if (gethostname(host, sizeof(host)) != 0)
			snprintf(host, sizeof(host), "controller");
		snprintf(idbuf, idlen, "%s-%d", host, (int)getpid());
		a->identity = idbuf;
	}
	lo.ns = a->lease_ns;
	lo.name = a->lease_name;
	lo.identity = a->identity;
	lo.on_started_leading = on_started;
	lo.on_stopped_leading = on_stopped;
	lo.on_new_leader = on_new_leader;
	lo.arg = c;
	struct kube_leader *leader = kube_leader_new(kc, &lo, &err);
	if (leader && kube_leader_start(leader) == 0)
		return leader;
	fprintf(stderr, "storagebench-controller: leader election: %s\n",
		kube_error_str(&err, eb, sizeof(eb)));
	kube_leader_free(leader);
	return NULL;
}

int main(int argc, char **argv)
{
	struct args a;
	struct kube_config cfg = KUBE_CONFIG_INIT;
	struct kube_error err = KUBE_ERROR_INIT;
	struct kube_client *kc = NULL;
	struct br_controller c;
	struct br_metrics *m = NULL;
	struct br_httpd *h = NULL;
	struct kube_leader *leader = NULL;
	char eb[1024], idbuf[300];
	sigset_t sigs;
	int status = 0, sig = 0;

	br_memory_reexec(BR_SELF_EXE, argv); /* returns only when already done (or it failed) */
	memset(&c, 0, sizeof(c));
	br_memory_init();
	if (parse_args(argc, argv, &a))
		return 2;
	/* every thread inherits the blocked signals; main waits for them */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (kube_config_load(&cfg, a.kubeconfig, NULL, &err)) {
		fprintf(stderr, "storagebench-controller: %s\n",
			kube_error_str(&err, eb, sizeof(eb)));
		return 2;
	}
	kc = kube_client_new(&cfg, NULL, &err);
	if (!kc) {
		fprintf(stderr, "storagebench-controller: %s\n",
			kube_error_str(&err, eb, sizeof(eb)));
		status = 1;
		goto out;
	}
	if (!a.runner_image)
		sb_warn("No default runner image (--runner-image or SB_IMAGE): runs must set "
			"spec.runner.image",
			NULL);
	char kerrbuf[640];
	if (br_runkey_load(kc, a.lease_ns ? a.lease_ns : kube_client_namespace(kc),
			   a.signing_secret, kerrbuf, sizeof(kerrbuf))) {
		fprintf(stderr, "storagebench-controller: %s\n", kerrbuf);
		status = 1;
		goto out;
	}
	m = br_metrics_new();
	struct br_ops kops;
	br_ops_kube(&c, &kops); /* the table's arg is c: filled by br_controller_init below */
	if (!m || br_controller_init(&c, kc, &kops, &a.copts, m, &err)) {
		fprintf(stderr, "storagebench-controller: %s\n",
			kube_error_str(&err, eb, sizeof(eb)));
		status = 1;
		goto out;
	}
	br_controller_set_reconcilers(
		&c,
		&(struct br_reconcilers){.run = br_reconcile, .schedule = br_schedule_reconcile});
	if (strcmp(a.metrics_addr, "0")) {
		char herr[256];
		h = br_httpd_start(a.metrics_addr, &c, m, herr, sizeof(herr));
		if (!h) {
			fprintf(stderr, "storagebench-controller: --metrics-bind-address: %s\n",
				herr);
			status = 2;
			goto out;
		}
	}
	log_started(&a);
	int r = br_controller_start_informers(&c, 120000);
	if (r) {
		sb_error("Informers did not sync", "error=\"%s\"", strerror(-r));
		status = 1;
		goto out;
	}
	sb_info("Synced caches", NULL);

	if (a.leader_elect) {
		leader = start_election(&a, kc, &c, idbuf, sizeof(idbuf));
		if (!leader) {
			status = 1;
			goto out;
		}
	} else {
		br_metrics_leader(m, true);
		if (br_controller_start_workers(&c)) {
			status = 1;
			goto out;
		}
	}
	while (sigwait(&sigs, &sig) != 0)
		;
	if (atomic_load(&lost_leadership)) {
		sb_error("Lost leadership; exiting so another replica takes over", NULL);
		status = 1;
	} else {
		sb_info("Stopping", "signal=%d", sig);
	}
out:
	if (leader) {
		kube_leader_stop(leader);
		kube_leader_free(leader);
	}
	br_controller_release(&c);
	br_httpd_stop(h);
	br_metrics_free(m);
	kube_client_free(kc);
	kube_config_release(&cfg);
	br_policy_release(&a.policy);
	return status;
}
