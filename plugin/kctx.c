/* SPDX-License-Identifier: MIT */
/* The connection to the API server, messages, and reading runs (see cmd.h). */
#include "plugin/cmd.h"
#include "plugin/term.h"
#include "core/labels.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct kube_resource sbp_res_benchmarkruns = {SB_API_GROUP, SB_API_VERSION_ONLY,
						    SB_PLURAL_RUNS, true};

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	char line[2048];
	// NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
	vsnprintf(line, sizeof(line), fmt, ap);
	/* a message may quote a status, a ConfigMap or a log (term.h) */
	fputs(prefix, stderr);
	(void)sbp_term_out(stderr, line, strlen(line));
	fputc('\n', stderr);
}

void sbp_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("error: ", fmt, ap);
	va_end(ap);
}

void sbp_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

bool sbp_api_missing(int ret, const struct kube_error *err)
{
	return ret == -ENOENT && (strcmp(err->reason, "NotFound") != 0 ||
				  strstr(err->message, "could not find the requested resource"));
}

void sbp_api_err(const struct sbp_ctx *x, int ret, const struct kube_error *err, const char *fmt,
		 ...)
{
	char what[1024], detail[1024];
	va_list ap;
	va_start(ap, fmt);
	// NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	kube_error_str(err, detail, sizeof(detail));
	const char *src = x->cfg.source ? x->cfg.source : "the kubeconfig";
	switch (ret) {
	case -EIO:
		sbp_err("%s: cannot reach the API server %s (from %s): %s", what, x->cfg.server,
			src, detail);
		break;
	case -EPERM:
		sbp_err("%s: the API server refused the credentials of %s: %s", what, src, detail);
		break;
	case -EACCES:
		sbp_err("%s: forbidden: %s", what, err->message);
		break;
	case -ENOENT:
		if (sbp_api_missing(ret, err)) {
			sbp_err("%s: the BenchmarkRun API (%s/%s) is not served by %s: is the "
				"storagebench CRD installed? (kubectl apply -f "
				"manifests/crd/)",
				what, sbp_res_benchmarkruns.group, sbp_res_benchmarkruns.version,
				x->cfg.server);
			break;
		}
		sbp_err("%s: %s", what, detail);
		break;
	default:
		sbp_err("%s: %s", what, detail);
		break;
	}
}

int sbp_ctx_open(struct sbp_ctx *x, const struct sbp_args *a)
{
	struct kube_error err = KUBE_ERROR_INIT;
	char detail[1024];
	int ret;

	memset(x, 0, sizeof(*x));
	kube_config_init(&x->cfg);
	ret = kube_config_load_context(&x->cfg, a->kubeconfig, a->context, NULL, &err);
	if (ret) {
		kube_error_str(&err, detail, sizeof(detail));
		if (ret == -ENOENT && !a->kubeconfig && a->context)
			sbp_err("%s", detail);
		else if (ret == -ENOENT && !a->kubeconfig)
			sbp_err("no Kubernetes configuration: give --kubeconfig, set $KUBECONFIG, "
				"or create ~/.kube/config (%s)",
				detail);
		else if (ret == -ENOENT)
			sbp_err("kubeconfig '%s' not found (%s)", a->kubeconfig, detail);
		else
			sbp_err("cannot load the Kubernetes configuration: %s", detail);
		goto fail;
	}
	/* a person waits for the answer: fail fast rather than retry for long */
	struct kube_client_opts o = {.connect_timeout_ms = 10000,
				     .request_timeout_ms = 60000,
				     .max_retries = 2,
				     .user_agent = "kubectl-storagebench/" SB_VERSION};
	x->kc = kube_client_new(&x->cfg, &o, &err);
	if (!x->kc) {
		ret = -ENOMEM;
		sbp_err("cannot make the Kubernetes client for %s: %s",
			x->cfg.source ? x->cfg.source : "the configuration",
			kube_error_str(&err, detail, sizeof(detail)));
		goto fail;
	}
	x->ns = a->ns ? a->ns : kube_client_namespace(x->kc);
	return 0;
fail:
	sbp_ctx_close(x);
	return ret;
}

void sbp_ctx_close(struct sbp_ctx *x)
{
	kube_client_free(x->kc);
	x->kc = NULL;
	kube_config_release(&x->cfg);
}

int sbp_get_run(struct sbp_ctx *x, const struct sbp_ref *ref, json_t **run)
{
	struct kube_error err = KUBE_ERROR_INIT;
	const char *ns = ref->ns[0] ? ref->ns : x->ns;
	int ret = kube_get(x->kc, &sbp_res_benchmarkruns, ns, ref->name, run, &err);
	if (ret == -ENOENT && !sbp_api_missing(ret, &err))
		sbp_err("benchmarkrun '%s' not found in namespace '%s'", ref->name, ns);
	else if (ret)
		sbp_api_err(x, ret, &err, "cannot get benchmarkrun '%s' in namespace '%s'",
			    ref->name, ns);
	return ret;
}

const char *sbp_run_phase(const json_t *run)
{
	const char *p = json_string_value(json_object_get(json_object_get(run, "status"), "phase"));
	return p ? p : "";
}

void sbp_print_failure(const json_t *run, const char *name)
{
	const json_t *st = json_object_get(run, "status");
	const char *msg = json_string_value(json_object_get(st, "message"));
	size_t i;
	const json_t *c;
	sbp_err("benchmarkrun '%s' failed: %s", name, msg && *msg ? msg : "(no message)");
	json_array_foreach(json_object_get(st, "classes"), i, c)
	{
		const char *ph = json_string_value(json_object_get(c, "phase"));
		if (!ph || strcmp(ph, "Failed"))
			continue;
		const char *cn = json_string_value(json_object_get(c, "name"));
		const char *re = json_string_value(json_object_get(c, "reason"));
		const char *m = json_string_value(json_object_get(c, "message"));
		char line[2048];
		snprintf(line, sizeof(line), "  class %s: %s%s%s\n", cn ? cn : "?",
			 re ? re : "Failed", m ? ": " : "", m ? m : "");
		(void)sbp_term_out(stderr, line, strlen(line));
	}
}

int sbp_write_output(const char *path, const char *text)
{
	size_t n = strlen(text);
	if (!path || !strcmp(path, "-")) {
		/* a terminal gets the text with its control characters escaped (term.h) */
		if (sbp_term_out(stdout, text, n) || fflush(stdout)) {
			int e = errno ? errno : EIO;
			if (e != EPIPE) /* a reader that stopped (| head) is no news */
				sbp_err("cannot write to stdout: %s", strerror(e));
			return -e;
		}
		return 0;
	}
	FILE *f = fopen(path, "w");
	if (!f) {
		int e = errno;
		sbp_err("cannot open '%s': %s", path, strerror(e));
		return -e;
	}
	bool ok = fwrite(text, 1, n, f) == n;
	int e = ok ? 0 : (errno ? errno : EIO);
	if (fclose(f) && ok) {
		ok = false;
		e = errno ? errno : EIO;
	}
	if (!ok) {
		sbp_err("cannot write '%s': %s", path, strerror(e));
		return -e;
	}
	return 0;
}
