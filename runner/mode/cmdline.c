/* SPDX-License-Identifier: MIT */
#include "runner/mode/cmdline.h"

#include "fiojob/jobfile.h"
#include "result/sign.h"
#include "fiojob/profiles.h"
#include "core/units.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int set_format(struct sb_cli *cli, const char *v, struct sb_diag *d)
{
	if (!strcmp(v, "normal") || !strcmp(v, "terse,normal"))
		cli->format = SB_OUT_NORMAL;
	else if (!strcmp(v, "json"))
		cli->format = SB_OUT_JSON;
	else if (!strcmp(v, "json+"))
		cli->format = SB_OUT_JSON_PLUS;
	else {
		snprintf(d->msg, sizeof(d->msg),
			 "--output-format: '%s' is not one of normal, json, json+", v);
		return -EINVAL;
	}
	return 0;
}

/* "--key: needs a value" in d; -EINVAL */
static int need_value(struct sb_diag *d, const char *key)
{
	snprintf(d->msg, sizeof(d->msg), "--%s: needs a value (--%s=...)", key, key);
	return -EINVAL;
}

/* A count flag from 1 to max into *out; -EINVAL naming it otherwise */
static int count_flag(struct sb_diag *d, const char *key, const char *val, uint64_t max,
		      unsigned *out)
{
	uint64_t n;
	if (!val || sb_parse_u64(val, &n) || n < 1 || n > max) {
		snprintf(d->msg, sizeof(d->msg), "--%s: '%s' is not an integer from 1 to %" PRIu64,
			 key, val ? val : "", max);
		return -EINVAL;
	}
	*out = (unsigned)n;
	return 0;
}

/* A string flag that needs a non-empty value */
static int text_flag(struct sb_diag *d, const char *key, const char *val, const char **out)
{
	if (!val || !*val)
		return need_value(d, key);
	*out = val;
	return 0;
}

/*
 * Our own flags (not fio's job options): 0 when key is one and val is
 * applied, 1 when it is not ours, -EINVAL (d->msg set) for a bad value.
 * arg is the whole argument, as given.
 */
static int own_flag(struct sb_cli *cli, const char *key, const char *val, const char *arg,
		    struct sb_diag *d)
{
	if (!strcmp(key, "output-format")) {
		if (!val)
			return need_value(d, key);
		return set_format(cli, val, d) ? -EINVAL : 0;
	}
	if (!strcmp(key, "output"))
		return text_flag(d, key, val, &cli->output);
	if (!strcmp(key, "parse-only")) {
		cli->parse_only = true;
		return 0;
	}
	if (!strcmp(key, "profile"))
		return text_flag(d, key, val, &cli->profile);
	if (!strcmp(key, "iterations"))
		return count_flag(d, key, val, 100000, &cli->iterations);
	if (!strcmp(key, "clients"))
		return count_flag(d, key, val, SB_CLIENTS_MAX, &cli->clients);
	if (!strcmp(key, "barrier-timeout")) {
		if (!val || sb_parse_duration_us(val, 1000000, &cli->barrier_timeout_us) ||
		    !cli->barrier_timeout_us) {
			snprintf(d->msg, sizeof(d->msg),
				 "--barrier-timeout: '%s' is not a duration above 0 (e.g. 30s, 5m)",
				 val ? val : "");
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(key, "label"))
		return text_flag(d, key, val, &cli->label);
	if (!strcmp(key, "report"))
		return text_flag(d, key, val, &cli->report_file);
	if (!strcmp(key, "report-format")) {
		if (!val || (strcmp(val, "txt") && strcmp(val, "md") && strcmp(val, "csv") &&
			     strcmp(val, "json") && strcmp(val, "svg"))) {
			snprintf(d->msg, sizeof(d->msg),
				 "--report-format: '%s' is not one of txt, md, csv, json, "
				 "svg",
				 val ? val : "");
			return -EINVAL;
		}
		cli->report_format = val;
		return 0;
	}
	if (!strcmp(key, "log-level")) {
		if (!val)
			return need_value(d, key);
		cli->log_level = val;
		return 0;
	}
	if (!strcmp(key, "version")) {
		cli->version = true;
		return 0;
	}
	if (!strcmp(key, "help") || !strcmp(key, "h")) {
		cli->help = true;
		return 0;
	}
	if (!strcmp(key, "cmdhelp")) {
		cli->cmdhelp = val ? val : "";
		return 0;
	}
	if (!strcmp(key, "minimal") || !strcmp(key, "append-terse")) {
		snprintf(d->msg, sizeof(d->msg),
			 "%s: terse output is not implemented; use --output-format=json", arg);
		return -EINVAL;
	}
	return 1;
}

int sb_cli_parse(int argc, char **argv, struct sb_cli *cli, struct sb_diag *d)
{
	struct sb_job *cur = &cli->global;
	struct sb_job job;
	bool in_job = false;
	int ret = 0;

	memset(cli, 0, sizeof(*cli));
	memset(&job, 0, sizeof(job));
	sb_job_opts_init(&cli->global.o);
	snprintf(cli->global.origin, sizeof(cli->global.origin), "command line");
	cli->iterations = 1;
	cli->clients = 1;
	cli->jobfiles = calloc((size_t)argc + 1, sizeof(*cli->jobfiles));
	if (!cli->jobfiles)
		return -ENOMEM;

	for (int i = 1; i < argc && !ret; i++) {
		const char *a = argv[i];
		if (a[0] != '-' || a[1] == '\0') {
			cli->jobfiles[cli->njobfiles++] = a;
			continue;
		}
		const char *k = a + (a[1] == '-' ? 2 : 1);
		char key[128];
		const char *eq = strchr(k, '=');
		const char *val = eq ? eq + 1 : NULL;
		size_t kl = eq ? (size_t)(eq - k) : strlen(k);
		if (kl == 0 || kl >= sizeof(key)) {
			snprintf(d->msg, sizeof(d->msg), "'%s': not an option", a);
			ret = -EINVAL;
			break;
		}
		memcpy(key, k, kl);
		key[kl] = '\0';
		char where[160];
		snprintf(where, sizeof(where), "--%s", key);

		ret = own_flag(cli, key, val, a, d);
		if (ret <= 0)
			continue;
		/* job options: --name starts a job */
		if (!strcmp(key, "name")) {
			if (!val || !*val) {
				ret = need_value(d, key);
				break;
			}
			if (in_job && (ret = sb_joblist_push(&cli->jobs, &job)))
				break;
			if ((ret = sb_job_copy(&job, &cli->global)))
				break;
			in_job = true;
			cur = &job;
			snprintf(job.origin, sizeof(job.origin), "command line (--name=%s)", val);
		}
		ret = sb_job_apply(cur, key, val, where, d);
	}
	if (!ret && in_job) {
		ret = sb_joblist_push(&cli->jobs, &job);
		in_job = false;
	}
	if (in_job)
		sb_job_release(&job);
	return ret;
}

void sb_cli_release(struct sb_cli *cli)
{
	sb_job_release(&cli->global);
	sb_joblist_release(&cli->jobs);
	free(cli->jobfiles);
	cli->jobfiles = NULL;
}

int sb_cli_load_jobfile(const char *path, const char *want, const struct sb_job *base,
			struct sb_joblist *out, struct sb_diag *d)
{
	if (!want)
		return sb_jobfile_load(path, base, out, d);
	char *text = NULL, got[SB_SIGN_HEX_LEN + 1];
	size_t len = 0;
	int ret = sb_jobfile_read(path, &text, &len, d);
	if (ret)
		return ret;
	if (!text)
		return -ENOMEM;
	if (sb_sha256_hex(text, len, got)) {
		ret = -EIO;
		snprintf(d->msg, sizeof(d->msg), "%s: cannot compute its SHA-256", path);
	} else if (strlen(want) != SB_SIGN_HEX_LEN || strncasecmp(got, want, SB_SIGN_HEX_LEN)) {
		ret = -EBADMSG;
		snprintf(
			d->msg, sizeof(d->msg),
			"%s: SHA-256 %s, not %.64s as the pod's creator wrote it (the job file was "
			"changed or planted since)",
			path, got, want);
	} else {
		ret = sb_jobfile_parse(text, path, base, out, d);
	}
	free(text);
	return ret;
}

int sb_cli_jobs(const struct sb_cli *cli, struct sb_joblist *jobs, struct sb_diag *d)
{
	if (cli->profile) {
		const struct sb_profile *p = sb_profile_find(cli->profile);
		if (!p) {
			snprintf(d->msg, sizeof(d->msg),
				 "--profile: no profile '%s' (--profile=list shows them)",
				 cli->profile);
			return -EINVAL;
		}
		if (cli->njobfiles || cli->jobs.n) {
			snprintf(d->msg, sizeof(d->msg),
				 "--profile: cannot be combined with job files or --name jobs");
			return -EINVAL;
		}
		int r = sb_profile_expand(p, &cli->global, jobs, d);
		if (r)
			return r;
	} else {
		for (size_t i = 0; i < cli->njobfiles; i++) {
			int r = sb_cli_load_jobfile(cli->jobfiles[i], cli->jobfile_sha256,
						    &cli->global, jobs, d);
			if (r)
				return r == -ENOMEM ? r : -EINVAL;
		}
		for (size_t i = 0; i < cli->jobs.n; i++) {
			struct sb_job j;
			if (sb_job_copy(&j, &cli->jobs.jobs[i]) || sb_joblist_push(jobs, &j))
				return -ENOMEM;
		}
	}
	if (jobs->n == 0) {
		snprintf(d->msg, sizeof(d->msg),
			 "no jobs defined (give --name=..., a job file or --profile=...; --help "
			 "for usage)");
		return -EINVAL;
	}
	for (size_t i = 0; i < jobs->n; i++) {
		char err[512];
		if (sb_job_opts_validate(&jobs->jobs[i].o, err, sizeof(err))) {
			snprintf(d->msg, sizeof(d->msg), "%s: job '%s': %s", jobs->jobs[i].origin,
				 jobs->jobs[i].o.name, err);
			return -EINVAL;
		}
	}
	sb_joblist_assign_groups(jobs);
	return 0;
}
