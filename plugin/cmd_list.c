/* SPDX-License-Identifier: MIT */
/* `kubectl storagebench list [-A]`. */
#include "plugin/cmd.h"
#include "plugin/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int sbp_cmd_list(struct sbp_ctx *x, const struct sbp_args *a)
{
	struct kube_error err = KUBE_ERROR_INIT;
	json_t *list = NULL;
	char *text = NULL;
	size_t n = 0;
	int status = 1;

	int ret = kube_list(x->kc, &sbp_res_benchmarkruns, a->all_ns ? NULL : x->ns, NULL, &list,
			    &err);
	if (ret) {
		if (a->all_ns)
			sbp_api_err(x, ret, &err, "cannot list benchmarkruns");
		else
			sbp_api_err(x, ret, &err, "cannot list benchmarkruns in namespace '%s'",
				    x->ns);
		goto out;
	}
	text = sbp_list_format(list, a->all_ns, time(NULL), &n);
	if (!text) {
		sbp_err("out of memory");
		goto out;
	}
	if (n == 0) {
		/* as kubectl get: nothing on stdout, a note on stderr */
		if (a->all_ns)
			fprintf(stderr, "No resources found\n");
		else
			fprintf(stderr, "No resources found in %s namespace.\n", x->ns);
		status = 0;
		goto out;
	}
	if (sbp_write_output(NULL, text) == 0)
		status = 0;
out:
	free(text);
	json_decref(list);
	return status;
}
