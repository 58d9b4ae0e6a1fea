/* SPDX-License-Identifier: MIT */
#include "runner/mode/clients.h"

#include "core/labels.h"
#include "core/log.h"
#include "stats/merge.h"
#include "result/resultdoc.h"
#include "runner/mode/cmdline.h"
#include "runner/out/json.h"
#include "runner/io/run.h"
#include "runner/mode/stop.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What the parent knows of one client. */
struct client {
	pid_t pid;
	int up;	   /* read end of the client's pipe; -1 once at its end */
	int down;  /* write end of the barrier pipe; -1 once closed */
	char *buf; /* everything read from up; owned */
	size_t len, cap;
	size_t parsed;	/* bytes of "R<group>\n" lines consumed */
	unsigned ready; /* barriers reached: groups 0..ready-1 */
	int status;	/* exit status (SB_EXIT_INTERRUPTED(sig) when a signal ended it) */
	char why[160];	/* how it ended, when not with 0 */
	bool timed_out; /* it missed a barrier: killed, why says so */
};

/* The parent's memory for one iteration; a client frees its copy first thing. */
struct parent_mem {
	struct client *cl;
	pid_t *pids;
	struct pollfd *pf;
	unsigned *map;
	json_t **docs;
	unsigned n;
};

static void parent_mem_free(struct parent_mem *m)
{
	for (unsigned k = 0; m->cl && k < m->n; k++)
		free(m->cl[k].buf);
	for (unsigned k = 0; m->docs && k < m->n; k++)
		json_decref(m->docs[k]);
	free(m->cl);
	free(m->pids);
	free(m->pf);
	free(m->map);
	free(m->docs);
	memset(m, 0, sizeof(*m));
}

static int64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* ------------------------------------------------------------ a client */

struct child_ctx {
	int up, down;
	int64_t start_ns; /* CLOCK_REALTIME when group 0 started */
	char err[256];
};

/* The start hook of a client: ready, then wait for the parent's 'G'. */
static int child_barrier(void *arg, unsigned group)
{
	struct child_ctx *c = arg;
	char msg[32];
	int len = snprintf(msg, sizeof(msg), "R%u\n", group);
	int r = write_all(c->up, msg, (size_t)len);
	if (r) {
		snprintf(c->err, sizeof(c->err), "cannot reach the parent process: %s",
			 strerror(-r));
		return r;
	}
	for (;;) {
		if (sb_stop_requested())
			return 0; /* the run sees the stop: the group does not start */
		struct pollfd p = {.fd = c->down, .events = POLLIN};
		int pr = poll(&p, 1, 50);
		if (pr < 0 && errno != EINTR) {
			r = -errno;
			snprintf(c->err, sizeof(c->err), "waiting at the start barrier: %s",
				 strerror(-r));
			return r;
		}
		if (pr <= 0)
			continue;
		char g = 0;
		ssize_t got = read(c->down, &g, 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got == 1 && g == 'G')
			break;
		snprintf(c->err, sizeof(c->err),
			 "the start of job group %u was called off (another client failed)", group);
		return -ECANCELED;
	}
	if (group == 0)
		c->start_ns = realtime_ns();
	return 0;
}

/* Client k of n: runs the jobs, writes its document to up, exits with its status. */
static void __attribute__((noreturn))
child_main(const struct sb_joblist *jobs, unsigned k, unsigned n, bool plus, int up, int down,
	   struct parent_mem *pm)
{
	struct child_ctx c = {.up = up, .down = down};
	struct sb_results res = SB_RESULTS_INIT;
	int status = SB_EXIT_OK;

	parent_mem_free(pm); /* the parent's, copied by fork */
	sb_run_set_client(k, n);
	sb_run_set_start_hook(child_barrier, &c);
	int r = sb_run_jobs(jobs, &res);
	sb_run_set_start_hook(NULL, NULL);
	if (res.usage_error)
		status = SB_EXIT_USAGE;
	else if (r || res.io_error || c.err[0])
		status = SB_EXIT_FAIL;
	int sig = res.interrupted ? res.interrupted : sb_stop_signal();
	if (sig)
		status = SB_EXIT_INTERRUPTED(sig);

	json_t *doc = sb_out_json_doc(&res, plus);
	json_t *ctx = json_pack("{s:I,s:I,s:I,s:{s:I}}", "client", (json_int_t)k + 1, "clients",
				(json_int_t)n, "pid", (json_int_t)getpid(), SB_RK_CTX_START,
				SB_RK_CTX_ACTUAL_NS, (json_int_t)c.start_ns);
	bool ok = doc && ctx;
	if (ok)
		ok = json_object_set_new(doc, SB_RK_CONTEXT, ctx) == 0; /* takes ctx */
	else
		json_decref(ctx);
	const char *err = c.err[0] ? c.err : r == -ENOMEM ? "out of memory" : NULL;
	if (ok && err)
		ok = json_object_set_new(doc, "error", json_string(err)) == 0;
	if (ok && sig)
		ok = json_object_set_new(doc, "interrupted", json_string(sb_stop_name(sig))) == 0;
	char *text = ok ? json_dumps(doc, JSON_COMPACT) : NULL;
	if (!text)
		status = status ? status : SB_EXIT_FAIL;
	else if (write_all(up, text, strlen(text)))
		status = status ? status : SB_EXIT_FAIL;
	free(text);
	json_decref(doc);
	sb_results_release(&res);
	close(up);
	close(down);
	fflush(NULL);
	exit(status);
}

/* ------------------------------------------------------------ the parent */

static unsigned count_groups(const struct sb_joblist *jobs)
{
	unsigned g = 0;
	for (size_t i = 0; i < jobs->n; i++)
		if (i == 0 || jobs->jobs[i].group != jobs->jobs[i - 1].group)
			g++;
	return g;
}

/* Closes every barrier pipe: clients waiting at (or reaching) a barrier give up. */
static void call_off(struct client *cl, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		if (cl[k].down >= 0)
			close(cl[k].down);
		cl[k].down = -1;
	}
}

/* Reads what client c has written; false at its end (EOF or an error). */
static bool read_client(struct client *c)
{
	if (c->cap - c->len < 4096) {
		size_t cap = c->cap ? c->cap * 2 : 65536;
		char *b = realloc(c->buf, cap);
		if (!b) {
			snprintf(c->why, sizeof(c->why), "out of memory reading its result");
			return false;
		}
		c->buf = b;
		c->cap = cap;
	}
	ssize_t got = read(c->up, c->buf + c->len, c->cap - c->len);
	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (got <= 0)
		return false;
	c->len += (size_t)got;
	/* "R<group>\n": the client reached that group's barrier */
	while (c->parsed < c->len && c->buf[c->parsed] == 'R') {
		char *nl = memchr(c->buf + c->parsed, '\n', c->len - c->parsed);
		if (!nl)
			break;
		unsigned long g = strtoul(c->buf + c->parsed + 1, NULL, 10);
		if (g + 1 > c->ready)
			c->ready = (unsigned)(g + 1);
		c->parsed = (size_t)(nl - c->buf) + 1;
	}
	return true;
}

/* Opens the next barrier while every client has reached it. */
static void release(struct client *cl, unsigned n, unsigned ngroups, unsigned *released)
{
	while (*released < ngroups) {
		for (unsigned k = 0; k < n; k++)
			if (cl[k].ready <= *released || cl[k].down < 0)
				return;
		for (unsigned k = 0; k < n; k++)
			if (write_all(cl[k].down, "G", 1))
				sb_warn("Could not start a client", "client=%u pid=%d", k + 1,
					(int)cl[k].pid);
		(*released)++;
	}
}

/* Starts clients 0..n-1. Returns how many started (with cl[] set up). */
static unsigned start_clients(const struct sb_joblist *jobs, unsigned n, bool plus,
			      struct parent_mem *pm)
{
	struct client *cl = pm->cl;
	pid_t *pids = pm->pids;
	sigset_t block, old;
	unsigned k;

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	fflush(NULL); /* nothing buffered is written twice */
	for (k = 0; k < n && !sb_stop_requested(); k++) {
		int up[2], down[2];
		if (pipe2(up, O_CLOEXEC)) {
			sb_error("Could not start a client", "client=%u error=\"%s\"", k + 1,
				 strerror(errno));
			break;
		}
		if (pipe2(down, O_CLOEXEC)) {
			sb_error("Could not start a client", "client=%u error=\"%s\"", k + 1,
				 strerror(errno));
			close(up[0]);
			close(up[1]);
			break;
		}
		/* a signal between fork and the child's own setup waits until after it */
		pthread_sigmask(SIG_BLOCK, &block, &old);
		pid_t pid = fork();
		if (pid == 0) {
			sb_stop_forward(NULL, 0); /* the parent's list of its clients */
			(void)prctl(PR_SET_PDEATHSIG, SIGTERM);
			/* its own process group: a terminal's ^C reaches the parent only,
			 * which passes it on once */
			(void)setpgid(0, 0);
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			for (unsigned j = 0; j < k; j++) {
				close(cl[j].up);
				if (cl[j].down >= 0)
					close(cl[j].down);
			}
			close(up[0]);
			close(down[1]);
			signal(SIGPIPE, SIG_DFL);
			child_main(jobs, k, n, plus, up[1], down[0], pm);
		}
		int fe = errno;
		if (pid > 0)
			pids[k] = pid;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		close(up[1]);
		close(down[0]);
		if (pid < 0) {
			sb_error("Could not start a client", "client=%u error=\"%s\"", k + 1,
				 strerror(fe));
			close(up[0]);
			close(down[1]);
			break;
		}
		cl[k].pid = pid;
		cl[k].up = up[0];
		cl[k].down = down[1];
		sb_debug("Started a client", "client=%u pid=%d", k + 1, (int)pid);
	}
	return k;
}

/* The job entries of doc named name (borrowed), appended to v; the count added. */
static size_t jobs_named(const json_t *doc, const char *name, const json_t **v)
{
	size_t i, m = 0;
	const json_t *j;
	json_array_foreach(json_object_get(doc, SB_RK_JOBS), i, j)
	{
		const json_t *jn = json_object_get(j, SB_RK_JOBNAME);
		if (json_is_string(jn) && !strcmp(json_string_value(jn), name))
			v[m++] = j;
	}
	return m;
}

/* Direction d of a job, read by lib/result/resultdoc.h; all zero when the job does not read. */
static struct sb_result_dirv dfig(const json_t *job, enum sb_result_dir d)
{
	struct sb_result_job rj;
	char e[8];
	if (sb_result_job_parse(job, "", &rj, e, sizeof(e)))
		return (struct sb_result_dirv){0};
	return rj.dir[d];
}

/* The workload names of the documents, each once, in order of appearance. */
static json_t *workload_names(json_t *const *docs, unsigned n)
{
	json_t *names = json_array(), *seen = json_object();
	if (!names || !seen)
		goto fail;
	for (unsigned k = 0; k < n; k++) {
		size_t i;
		const json_t *j;
		json_array_foreach(json_object_get(docs[k], SB_RK_JOBS), i, j)
		{
			const json_t *jn = json_object_get(j, SB_RK_JOBNAME);
			if (!json_is_string(jn) || json_object_get(seen, json_string_value(jn)))
				continue;
			if (json_object_set_new(seen, json_string_value(jn), json_true()) ||
			    json_array_append(names, (json_t *)jn))
				goto fail;
		}
	}
	json_decref(seen);
	return names;
fail:
	json_decref(names);
	json_decref(seen);
	return NULL;
}

/*
 * Merges the clients' documents (all n present) per workload into jobs
 * and adds the per-client rows. 0, -ENOMEM, or -EINVAL (a workload could
 * not be merged; logged, the others are).
 */
static int merge_docs(json_t *const *docs, unsigned n, json_t *jobs, json_t *rows)
{
	json_t *names = workload_names(docs, n);
	const json_t **v = NULL;
	double *iops = calloc(n, sizeof(*iops)), *tmp = calloc(n, sizeof(*tmp));
	size_t total = 0,
	       *of = calloc(n + 1, sizeof(*of)); /* client k's entries: v[of[k]..of[k+1]) */
	struct sb_merge_pod *mp = NULL;
	int ret = -ENOMEM;

	for (unsigned k = 0; k < n; k++)
		total += json_array_size(json_object_get(docs[k], SB_RK_JOBS));
	v = calloc(total ? total : 1, sizeof(*v));
	mp = calloc(total ? total : 1, sizeof(*mp));
	if (!names || !v || !iops || !tmp || !of || !mp)
		goto out;
	ret = 0;
	size_t w;
	json_t *nm;
	json_array_foreach(names, w, nm)
	{
		const char *name = json_string_value(nm);
		size_t m = 0;
		for (unsigned k = 0; k < n; k++) {
			of[k] = m;
			m += jobs_named(docs[k], name, v + m);
		}
		of[n] = m;
		json_t *merged = NULL;
		char err[512];
		memset(mp, 0, total * sizeof(*mp));
		int r = sb_merge_pods(v, mp, m, &merged, err, sizeof(err));
		if (r == -ENOMEM) {
			ret = r;
			goto out;
		}
		if (r) {
			sb_error("Could not merge the clients' results", "workload=%s error=\"%s\"",
				 name, err);
			ret = r;
			continue;
		}
		if (json_array_append_new(jobs, merged)) {
			ret = -ENOMEM;
			goto out;
		}
		/* per client: the sum over its entries of this workload (clones), over
		 * the merge's window, so that the rows add up to the aggregate */
		double riops[SB_CLIENTS_MAX], wiops[SB_CLIENTS_MAX], rbw[SB_CLIENTS_MAX],
			wbw[SB_CLIENTS_MAX];
		for (unsigned k = 0; k < n; k++) {
			riops[k] = wiops[k] = rbw[k] = wbw[k] = 0;
			for (size_t e = of[k]; e < of[k + 1]; e++) {
				riops[k] += mp[e].iops[0];
				wiops[k] += mp[e].iops[1];
				rbw[k] += mp[e].bw_bytes[0];
				wbw[k] += mp[e].bw_bytes[1];
			}
			iops[k] = riops[k] + wiops[k];
			tmp[k] = iops[k];
		}
		double med = sb_merge_median(tmp, n);
		for (unsigned k = 0; k < n; k++) {
			json_t *row = json_pack("{s:I,s:s,s:f,s:f,s:f,s:f,s:b}", "client",
						(json_int_t)k + 1, "workload", name, "read-iops",
						riops[k], "write-iops", wiops[k], "read-bw", rbw[k],
						"write-bw", wbw[k], "straggler",
						sb_merge_straggler(iops[k], med));
			if (!row || json_array_append_new(rows, row)) {
				ret = -ENOMEM;
				goto out;
			}
		}
	}
out:
	json_decref(names);
	free(v);
	free(iops);
	free(tmp);
	free(of);
	free(mp);
	return ret;
}

/* How client c ended, from its wait status (and its document, when there is one). */
static void describe_end(struct client *c, int ws, const json_t *doc)
{
	if (WIFEXITED(ws)) {
		c->status = WEXITSTATUS(ws);
	} else if (WIFSIGNALED(ws)) {
		c->status = SB_EXIT_INTERRUPTED(WTERMSIG(ws));
		if (c->timed_out)
			return;
		snprintf(c->why, sizeof(c->why), "killed by signal %d (%s)", WTERMSIG(ws),
			 strsignal(WTERMSIG(ws)));
		return;
	}
	if (c->why[0])
		return;
	const json_t *e = json_object_get(doc, "error");
	const json_t *in = json_object_get(doc, "interrupted");
	if (json_is_string(in)) {
		snprintf(c->why, sizeof(c->why), "interrupted by %s", json_string_value(in));
		return;
	}
	if (json_is_string(e)) {
		snprintf(c->why, sizeof(c->why), "%s", json_string_value(e));
		return;
	}
	size_t i;
	const json_t *j;
	json_array_foreach(json_object_get(doc, SB_RK_JOBS), i, j)
	{
		const json_t *m = json_object_get(
			json_object_get(json_object_get(j, SB_RK_SB), SB_RK_SB_ERRORS),
			SB_RK_SB_ERRORS_MSG);
		if (json_is_string(m) && json_string_length(m)) {
			snprintf(c->why, sizeof(c->why), "job %s: %s",
				 json_string_value(json_object_get(j, SB_RK_JOBNAME)),
				 json_string_value(m));
			return;
		}
	}
	if (!doc)
		snprintf(c->why, sizeof(c->why), "no result");
	else if (c->status)
		snprintf(c->why, sizeof(c->why), "exit status %d", c->status);
}

/* The start skew in ms: the latest minus the earliest group-0 start; -1 when unknown. */
static double skew_ms(json_t *const *docs, unsigned n)
{
	int64_t lo = 0, hi = 0;
	for (unsigned k = 0; k < n; k++) {
		const json_t *a = json_object_get(
			json_object_get(json_object_get(docs[k], SB_RK_CONTEXT), SB_RK_CTX_START),
			SB_RK_CTX_ACTUAL_NS);
		if (!json_is_integer(a) || json_integer_value(a) <= 0)
			return -1;
		int64_t v = json_integer_value(a);
		if (!k || v < lo)
			lo = v;
		if (!k || v > hi)
			hi = v;
	}
	return (double)(hi - lo) / 1e6;
}

/* One iteration as the parent sees it. */
struct iteration {
	struct client *cl;
	pid_t *pids;
	struct pollfd *pf;
	unsigned *map;
	json_t **docs;
	unsigned n, started, ngroups, released;
	uint64_t barrier_us;   /* the barrier timeout */
	int64_t waiting_since; /* CLOCK_MONOTONIC ns: the first client reached barrier
				* `released`; 0 while none waits there */
	int status;
};

static int64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* "2s", "1500ms": a barrier timeout for a message. */
static void duration_text(char *buf, size_t len, uint64_t us)
{
	if (us % 1000000 == 0)
		snprintf(buf, len, "%llus", (unsigned long long)(us / 1000000));
	else
		snprintf(buf, len, "%llums", (unsigned long long)(us / 1000));
}

/*
 * The barrier timeout: when a client has waited at the pending barrier
 * for barrier_us and another has not reached it, that one fails the
 * iteration (named, SIGKILL: a stopped process gets it too) and the
 * barriers are called off for the rest.
 */
static void check_barrier(struct iteration *it)
{
	unsigned waiting = 0;
	if (it->started < it->n || it->released >= it->ngroups || it->cl[0].down < 0) {
		/* (call_off closes every barrier pipe at once) */
		it->waiting_since = 0;
		return;
	}
	for (unsigned k = 0; k < it->n; k++)
		waiting += it->cl[k].ready > it->released;
	if (!waiting) {
		it->waiting_since = 0;
		return;
	}
	int64_t now = monotonic_ns();
	if (!it->waiting_since)
		it->waiting_since = now;
	if ((uint64_t)(now - it->waiting_since) < it->barrier_us * 1000)
		return;
	char within[32];
	duration_text(within, sizeof(within), it->barrier_us);
	for (unsigned k = 0; k < it->n; k++) {
		struct client *c = &it->cl[k];
		if (c->ready > it->released || c->up < 0 || c->timed_out)
			continue;
		snprintf(c->why, sizeof(c->why),
			 "did not reach the start barrier of job group %u of %u within %s (%u of "
			 "%u clients ready)",
			 it->released + 1, it->ngroups, within, waiting, it->n);
		c->timed_out = true;
		sb_error("Client missed the start barrier", "client=%u pid=%d group=%u timeout=%s",
			 k + 1, (int)c->pid, it->released + 1, within);
		if (c->pid > 0)
			(void)kill(c->pid, SIGKILL);
	}
	call_off(it->cl, it->started);
	it->waiting_since = 0;
	it->status = SB_EXIT_FAIL;
}

/* The barriers, and each client's document, until every client's pipe is at its end. */
static void wait_clients(struct iteration *it)
{
	struct client *cl = it->cl;
	for (;;) {
		unsigned np = 0;
		for (unsigned k = 0; k < it->started; k++) {
			if (cl[k].up < 0)
				continue;
			it->pf[np] = (struct pollfd){.fd = cl[k].up, .events = POLLIN};
			it->map[np++] = k;
		}
		if (!np)
			break;
		int pr = poll(it->pf, np, 200);
		if (pr < 0 && errno != EINTR) {
			sb_error("Could not wait for the clients", "error=\"%s\"", strerror(errno));
			call_off(cl, it->started);
			for (unsigned k = 0; k < it->started; k++)
				if (cl[k].pid > 0)
					(void)kill(cl[k].pid, SIGTERM);
			it->status = SB_EXIT_FAIL;
			break;
		}
		for (unsigned i = 0; pr > 0 && i < np; i++) {
			struct client *c = &cl[it->map[i]];
			if (!(it->pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (read_client(c))
				continue;
			close(c->up);
			c->up = -1;
			if (it->released < it->ngroups)
				call_off(cl, it->started); /* it will not reach the next barrier */
		}
		if (it->started == it->n) {
			unsigned before = it->released;
			release(cl, it->n, it->ngroups, &it->released);
			if (it->released != before)
				it->waiting_since = 0;
			check_barrier(it);
		}
	}
}

/* Waits for each client's exit and reads its document. */
static void reap_clients(struct iteration *it)
{
	struct client *cl = it->cl;
	for (unsigned k = 0; k < it->started; k++) {
		int ws = 0;
		while (waitpid(cl[k].pid, &ws, 0) < 0 && errno == EINTR)
			;
		if (cl[k].len > cl[k].parsed) {
			json_error_t jerr;
			it->docs[k] = json_loadb(cl[k].buf + cl[k].parsed, cl[k].len - cl[k].parsed,
						 0, &jerr);
			if (!it->docs[k] && !cl[k].why[0])
				snprintf(cl[k].why, sizeof(cl[k].why), "unreadable result: %s",
					 jerr.text);
		}
		describe_end(&cl[k], ws, it->docs[k]);
	}
	sb_stop_forward(NULL, 0);
	for (unsigned k = 0; k < it->started; k++) {
		if (cl[k].up >= 0)
			close(cl[k].up);
		cl[k].up = -1;
	}
	call_off(cl, it->started);
}

/* The iteration's status: a refusal first, then a stop, then any failure. */
static int end_status(const struct iteration *it, int sig)
{
	bool usage = false, failed = false;
	for (unsigned k = 0; k < it->started; k++) {
		const struct client *c = &it->cl[k];
		if (c->status == SB_EXIT_USAGE)
			usage = true;
		else if (c->status > SB_EXIT_INTERRUPTED_BASE && !sig)
			failed = true; /* a client killed by a signal the runner did not get */
		else if (c->status && c->status <= SB_EXIT_INTERRUPTED_BASE)
			failed = true;
		if (!it->docs[k])
			failed = true;
	}
	if (usage)
		return SB_EXIT_USAGE;
	if (sig)
		return SB_EXIT_INTERRUPTED(sig);
	return failed || it->status ? SB_EXIT_FAIL : SB_EXIT_OK;
}

/*
 * Appends each client's own document to results and each client that
 * failed (named on stderr) to failures. false on ENOMEM.
 */
static bool add_clients(const struct iteration *it, int sig, json_t *results, json_t *failures)
{
	const struct client *cl = it->cl;
	unsigned started = it->started;
	bool ok = true;
	for (unsigned k = 0; ok && k < it->n; k++) {
		if (k < started && it->docs[k])
			ok = json_array_append(results, it->docs[k]) == 0;
		if (!ok || (k < started && !cl[k].status && it->docs[k]))
			continue; /* it ran */
		if (sig && (k >= started || cl[k].status > SB_EXIT_INTERRUPTED_BASE))
			continue; /* stopped with the rest: not a failure of its own */
		const char *why = k >= started ? "not started" : cl[k].why;
		sb_error("Client failed", "client=%u pid=%d status=%d reason=\"%s\"", k + 1,
			 k < started ? (int)cl[k].pid : 0, k < started ? cl[k].status : -1, why);
		fprintf(stderr, "storagebench-runner: client %u (pid %d) failed: %s\n", k + 1,
			k < started ? (int)cl[k].pid : 0, why);
		ok = json_array_append_new(
			     failures,
			     json_pack("{s:I,s:I,s:I,s:s}", "client", (json_int_t)k + 1, "pid",
				       (json_int_t)(k < started ? cl[k].pid : 0), "status",
				       (json_int_t)(k < started ? cl[k].status : -1), "reason",
				       why)) == 0;
	}
	return ok;
}

/*
 * The document: the first client's header, merged jobs, the clients.
 * NULL on ENOMEM (said on stderr). *status may become SB_EXIT_FAIL.
 */
static json_t *build_doc(const struct iteration *it, int sig, int *status)
{
	unsigned first = 0, started = it->started, n = it->n;
	while (first < started && !it->docs[first])
		first++;
	json_t *mjobs = json_array(), *rows = json_array(), *failures = json_array(),
	       *results = json_array();
	json_t *doc = json_object();
	bool ok = mjobs && rows && failures && results && doc;
	static const char *const head[] = {"fio version", "storagebench version", "timestamp",
					   "timestamp_ms", "time"};
	for (size_t i = 0; ok && first < started && i < sizeof(head) / sizeof(head[0]); i++) {
		json_t *v = json_object_get(it->docs[first], head[i]);
		ok = !v || json_object_set(doc, head[i], v) == 0;
	}
	bool all = started == n;
	for (unsigned k = 0; k < started; k++)
		all = all && it->docs[k];
	if (ok && all) {
		int r = merge_docs(it->docs, n, mjobs, rows);
		if (r == -ENOMEM)
			ok = false;
		else if (r && *status == SB_EXIT_OK)
			*status = SB_EXIT_FAIL;
	}
	ok = ok && add_clients(it, sig, results, failures);
	double skew = all ? skew_ms(it->docs, n) : -1;
	ok = ok && json_object_set(doc, SB_RK_JOBS, mjobs) == 0;
	ok = ok && json_object_set_new(
			   doc, "clients",
			   json_pack("{s:I,s:o,s:O,s:O,s:O}", "count", (json_int_t)n, "skew_ms",
				     skew >= 0 ? json_real(skew) : json_null(), "failed", failures,
				     "rows", rows, "results", results)) == 0;
	if (ok && sig)
		ok = json_object_set_new(doc, "interrupted", json_string(sb_stop_name(sig))) == 0;
	json_decref(mjobs);
	json_decref(rows);
	json_decref(failures);
	json_decref(results);
	if (!ok) {
		json_decref(doc);
		fprintf(stderr,
			"storagebench-runner: --clients: out of memory building the result\n");
		*status = *status ? *status : SB_EXIT_FAIL;
		return NULL;
	}
	return doc;
}

int sb_clients_iteration(const struct sb_joblist *jobs, unsigned n, bool plus, uint64_t barrier_us,
			 json_t **out)
{
	struct iteration it = {
		.cl = calloc(n, sizeof(*it.cl)),
		.pids = calloc(n, sizeof(*it.pids)),
		.pf = calloc(n, sizeof(*it.pf)),
		.map = calloc(n, sizeof(*it.map)),
		.docs = calloc(n, sizeof(*it.docs)),
		.n = n,
		.ngroups = count_groups(jobs),
		.barrier_us = barrier_us ? barrier_us : SB_CLIENTS_BARRIER_US,
	};
	struct sigaction ign, old_pipe;

	*out = NULL;
	if (n < 2 || n > SB_CLIENTS_MAX)
		it.status = SB_EXIT_USAGE;
	if (!it.cl || !it.pids || !it.pf || !it.map || !it.docs)
		it.status = SB_EXIT_FAIL;
	if (it.status)
		goto free_all;
	for (unsigned k = 0; k < n; k++)
		it.cl[k].up = it.cl[k].down = -1;
	/* a client that died must not take the parent with it (a write on its pipe) */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old_pipe);
	sb_stop_forward(it.pids, n); /* SIGTERM/SIGINT reach the clients through the parent */

	struct parent_mem pm = {it.cl, it.pids, it.pf, it.map, it.docs, n};
	it.started = start_clients(jobs, n, plus, &pm);
	if (it.started < n) {
		call_off(it.cl, it.started);
		if (!sb_stop_requested())
			it.status = SB_EXIT_FAIL;
	}
	wait_clients(&it);
	reap_clients(&it);
	sigaction(SIGPIPE, &old_pipe, NULL);

	int sig = sb_stop_signal();
	int status = end_status(&it, sig);
	*out = build_doc(&it, sig, &status);
	it.status = status;
free_all:
	for (unsigned k = 0; it.cl && k < n; k++)
		free(it.cl[k].buf);
	for (unsigned k = 0; it.docs && k < n; k++)
		json_decref(it.docs[k]);
	free(it.cl);
	free(it.pids);
	free(it.pf);
	free(it.map);
	free(it.docs);
	return it.status;
}

/* ------------------------------------------------------------ text */

void sb_clients_text(FILE *f, const json_t *doc)
{
	const json_t *c = json_object_get(doc, "clients");
	const json_t *sk = json_object_get(c, "skew_ms");
	const json_t *in = json_object_get(doc, "interrupted");
	size_t i, k;
	const json_t *j, *row;

	fprintf(f, "=== %lld clients (processes)",
		(long long)json_integer_value(json_object_get(c, "count")));
	if (json_is_number(sk))
		fprintf(f, ", start skew %.3f ms", json_number_value(sk));
	fprintf(f, "\n");
	if (json_is_string(in))
		fprintf(f, "=== interrupted by %s: partial results of an incomplete iteration\n",
			json_string_value(in));
	json_array_foreach(json_object_get(c, "failed"), i, row)
	{
		fprintf(f, "client %lld (pid %lld) FAILED: %s\n",
			(long long)json_integer_value(json_object_get(row, "client")),
			(long long)json_integer_value(json_object_get(row, "pid")),
			json_string_value(json_object_get(row, "reason")));
	}
	json_array_foreach(json_object_get(doc, SB_RK_JOBS), i, j)
	{
		const char *name = json_string_value(json_object_get(j, SB_RK_JOBNAME));
		const json_t *mi = json_object_get(json_object_get(j, SB_RK_SB), SB_RK_SB_MERGE);
		struct sb_result_dirv rd = dfig(j, SB_RDIR_READ), wd = dfig(j, SB_RDIR_WRITE);
		bool reads = rd.total_ios >= wd.total_ios;
		const struct sb_result_dirv *main_dir = reads ? &rd : &wd;
		const char *dn = sb_result_dir_keys[reads ? SB_RDIR_READ : SB_RDIR_WRITE];
		const json_t *sec = json_object_get(json_object_get(mi, dn), "seconds");
		const json_t *win = json_object_get(json_object_get(mi, dn), "window");
		fprintf(f, "\n%s: ", name ? name : "?");
		if (json_is_number(sec))
			fprintf(f, "aggregate over the %.0f s every client measured\n",
				json_number_value(sec));
		else
			fprintf(f, "aggregate: the sum of the clients' rates (%s)\n",
				json_is_string(win) && !strcmp(json_string_value(win), "rates")
					? "no second that every client measured whole"
					: "no per-second series");
		fprintf(f, "  %-10s %12s %12s %12s %12s %12s %12s\n", "", "read IOPS", "read MiB/s",
			"write IOPS", "write MiB/s", "clat p50 us", "clat p99 us");
		fprintf(f, "  %-10s %12.1f %12.2f %12.1f %12.2f %12.1f %12.1f\n", "all", rd.iops,
			rd.bw_bytes / 1048576.0, wd.iops, wd.bw_bytes / 1048576.0,
			main_dir->clat.pct[SB_RPCT_50] / 1000.0,
			main_dir->clat.pct[SB_RPCT_99] / 1000.0);
		json_array_foreach(json_object_get(c, "rows"), k, row)
		{
			const char *w = json_string_value(json_object_get(row, "workload"));
			char label[32];
			if (!w || !name || strcmp(w, name))
				continue;
			snprintf(label, sizeof(label), "client %lld",
				 (long long)json_integer_value(json_object_get(row, "client")));
			fprintf(f, "  %-10s %12.1f %12.2f %12.1f %12.2f %12s %12s%s\n", label,
				json_number_value(json_object_get(row, "read-iops")),
				json_number_value(json_object_get(row, "read-bw")) / 1048576.0,
				json_number_value(json_object_get(row, "write-iops")),
				json_number_value(json_object_get(row, "write-bw")) / 1048576.0, "",
				"",
				json_is_true(json_object_get(row, "straggler")) ? "  straggler"
										: "");
		}
	}
}
