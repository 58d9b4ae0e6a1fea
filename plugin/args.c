/* SPDX-License-Identifier: MIT */
/* The plugin's command line (see args.h). */
#include "plugin/args.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum opt_id {
	OPT_KUBECONFIG,
	OPT_CONTEXT,
	OPT_NAMESPACE,
	OPT_ALL_NS,
	OPT_FORMAT,
	OPT_OUTPUT,
	OPT_CLASS,
	OPT_ITERATION,
	OPT_FOLLOW,
	OPT_METRIC,
	OPT_HELP,
	OPT_VERSION,
};
#define OPT_COUNT (OPT_VERSION + 1)

struct opt {
	const char *lng; /* without the leading "--" */
	char shrt;	 /* 0 when none */
	bool value;	 /* takes a value */
	enum opt_id id;
	unsigned cmds; /* bit mask of the commands that accept it; 0: all */
};

#define CMD_BIT(c) (1u << (c))

static const struct opt opts[] = {
	{"kubeconfig", 0, true, OPT_KUBECONFIG, 0},
	{"context", 0, true, OPT_CONTEXT, 0},
	{"namespace", 'n', true, OPT_NAMESPACE, 0},
	{"all-namespaces", 'A', false, OPT_ALL_NS, CMD_BIT(SBP_CMD_LIST)},
	{"format", 0, true, OPT_FORMAT, CMD_BIT(SBP_CMD_REPORT) | CMD_BIT(SBP_CMD_COMPARE)},
	{"output", 'o', true, OPT_OUTPUT, CMD_BIT(SBP_CMD_REPORT) | CMD_BIT(SBP_CMD_COMPARE)},
	{"class", 0, true, OPT_CLASS, CMD_BIT(SBP_CMD_LOGS)},
	{"iteration", 0, true, OPT_ITERATION, CMD_BIT(SBP_CMD_LOGS)},
	{"follow", 'f', false, OPT_FOLLOW, CMD_BIT(SBP_CMD_LOGS)},
	{"metric", 0, true, OPT_METRIC, CMD_BIT(SBP_CMD_HISTORY)},
	{"help", 'h', false, OPT_HELP, 0},
	{"version", 0, false, OPT_VERSION, 0},
};
#define NOPTS (sizeof(opts) / sizeof(opts[0]))

static const char *const cmd_names[] = {
	[SBP_CMD_NONE] = "",	 [SBP_CMD_HELP] = "help",	[SBP_CMD_VERSION] = "version",
	[SBP_CMD_LIST] = "list", [SBP_CMD_REPORT] = "report",	[SBP_CMD_COMPARE] = "compare",
	[SBP_CMD_LOGS] = "logs", [SBP_CMD_HISTORY] = "history",
};

const char *sbp_cmd_name(enum sbp_cmd cmd)
{
	if ((size_t)cmd >= sizeof(cmd_names) / sizeof(cmd_names[0]))
		return "";
	return cmd_names[cmd];
}

static enum sbp_cmd cmd_lookup(const char *s)
{
	for (size_t i = SBP_CMD_HELP; i < sizeof(cmd_names) / sizeof(cmd_names[0]); i++)
		if (!strcmp(s, cmd_names[i]))
			return (enum sbp_cmd)i;
	if (!strcmp(s, "ls"))
		return SBP_CMD_LIST;
	return SBP_CMD_NONE;
}

static bool lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

bool sbp_valid_ns(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n == 0 || n > SBP_NS_MAX || !lower_alnum(s[0]) || !lower_alnum(s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!lower_alnum(s[i]) && s[i] != '-')
			return false;
	return true;
}

bool sbp_valid_name(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n == 0 || n > SBP_NAME_MAX)
		return false;
	/* dot-separated DNS labels */
	size_t start = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '.') {
			if (!lower_alnum(s[i]) && s[i] != '-')
				return false;
			continue;
		}
		if (i == start || !lower_alnum(s[start]) || !lower_alnum(s[i - 1]))
			return false;
		start = i + 1;
	}
	return true;
}

int sbp_ref_parse(const char *s, const char *default_ns, struct sbp_ref *ref, char *err,
		  size_t errlen)
{
	memset(ref, 0, sizeof(*ref));
	const char *slash = s ? strchr(s, '/') : NULL;
	if (!s || !*s) {
		snprintf(err, errlen, "empty benchmarkrun name");
		return -EINVAL;
	}
	if (slash && (strchr(slash + 1, '/') || slash == s || !slash[1])) {
		snprintf(err, errlen, "'%s' is not NAME or NAMESPACE/NAME", s);
		return -EINVAL;
	}
	const char *name = slash ? slash + 1 : s;
	if (slash) {
		size_t nl = (size_t)(slash - s);
		if (nl > SBP_NS_MAX) {
			snprintf(err, errlen, "'%.*s...' is not a valid namespace name", 20, s);
			return -EINVAL;
		}
		memcpy(ref->ns, s, nl);
		ref->ns[nl] = '\0';
		if (!sbp_valid_ns(ref->ns)) {
			snprintf(err, errlen, "'%s' is not a valid namespace name", ref->ns);
			return -EINVAL;
		}
	} else if (default_ns) {
		snprintf(ref->ns, sizeof(ref->ns), "%s", default_ns);
	}
	if (!sbp_valid_name(name)) {
		snprintf(err, errlen,
			 "'%s' is not a valid benchmarkrun name (lowercase letters, digits, '-' "
			 "and '.')",
			 name);
		return -EINVAL;
	}
	snprintf(ref->name, sizeof(ref->name), "%s", name);
	return 0;
}

static int parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "true") || !strcmp(v, "1")) {
		*out = true;
		return 0;
	}
	if (!strcmp(v, "false") || !strcmp(v, "0")) {
		*out = false;
		return 0;
	}
	return -EINVAL;
}

/* Which options were given (by enum opt_id), to check them against the
 * command afterwards. */
struct seen {
	bool opt[OPT_COUNT];
	char spelling[OPT_COUNT][40]; /* as written, for messages */
};

static int set_opt(struct sbp_args *a, struct seen *sn, size_t k, const char *spelled,
		   const char *v, char *err, size_t errlen)
{
	const struct opt *o = &opts[k];
	/* s: the value of an option that takes one (the callers always give
	 * it); v stays NULL for a flag without "=value" */
	const char *s = v ? v : "";
	sn->opt[o->id] = true;
	snprintf(sn->spelling[o->id], sizeof(sn->spelling[o->id]), "%s", spelled);
	switch (o->id) {
	case OPT_KUBECONFIG:
		if (!*s) {
			snprintf(err, errlen, "%s: empty path", spelled);
			return -EINVAL;
		}
		a->kubeconfig = s;
		break;
	case OPT_CONTEXT:
		if (!*s) {
			snprintf(err, errlen, "%s: empty context name", spelled);
			return -EINVAL;
		}
		a->context = s;
		break;
	case OPT_NAMESPACE:
		if (!sbp_valid_ns(s)) {
			snprintf(err, errlen, "%s: '%s' is not a valid namespace name", spelled, s);
			return -EINVAL;
		}
		a->ns = s;
		break;
	case OPT_ALL_NS:
		if (v && parse_bool(v, &a->all_ns)) {
			snprintf(err, errlen, "%s: '%s' is not true or false", spelled, v);
			return -EINVAL;
		}
		if (!v)
			a->all_ns = true;
		break;
	case OPT_FORMAT:
		a->format = s;
		break;
	case OPT_OUTPUT:
		if (!*s) {
			snprintf(err, errlen, "%s: empty file name", spelled);
			return -EINVAL;
		}
		a->output = s;
		break;
	case OPT_CLASS:
		if (!*s) {
			snprintf(err, errlen, "%s: empty storage class name", spelled);
			return -EINVAL;
		}
		a->cls = s;
		break;
	case OPT_ITERATION: {
		char *end = NULL;
		errno = 0;
		unsigned long n = strtoul(s, &end, 10);
		if (!*s || *end || errno || n < 1 || n > 100000 || s[0] == '-' || s[0] == '+') {
			snprintf(err, errlen, "%s: '%s' is not a number from 1 to 100000", spelled,
				 s);
			return -EINVAL;
		}
		a->iteration = (unsigned)n;
		break;
	}
	case OPT_FOLLOW:
		a->follow = true;
		break;
	case OPT_METRIC:
		if (!*s) {
			snprintf(err, errlen, "%s: empty metric name", spelled);
			return -EINVAL;
		}
		a->metric = s;
		break;
	case OPT_HELP:
		a->help = true;
		break;
	case OPT_VERSION:
		break; /* after the loop: it replaces the command */
	}
	return 0;
}

/* A long option "--name[=value]" at argv[*i]. */
static int long_opt(int argc, char **argv, int *i, struct sbp_args *a, struct seen *sn, char *err,
		    size_t errlen)
{
	const char *arg = argv[*i] + 2;
	const char *eq = strchr(arg, '=');
	size_t kl = eq ? (size_t)(eq - arg) : strlen(arg);
	for (size_t k = 0; k < NOPTS; k++) {
		if (strlen(opts[k].lng) != kl || strncmp(opts[k].lng, arg, kl))
			continue;
		char spelled[40];
		snprintf(spelled, sizeof(spelled), "--%s", opts[k].lng);
		const char *v = eq ? eq + 1 : NULL;
		if (opts[k].value && !v) {
			if (*i + 1 >= argc) {
				snprintf(err, errlen, "flag needs an argument: %s", spelled);
				return -EINVAL;
			}
			v = argv[++*i];
		} else if (!opts[k].value && v && opts[k].id != OPT_ALL_NS) {
			bool on;
			if (parse_bool(v, &on)) {
				snprintf(err, errlen, "%s: '%s' is not true or false", spelled, v);
				return -EINVAL;
			}
			if (!on)
				return 0;
			v = NULL;
		}
		return set_opt(a, sn, k, spelled, v, err, errlen);
	}
	snprintf(err, errlen, "unknown flag: --%.*s", (int)(kl > 60 ? 60 : kl), arg);
	return -EINVAL;
}

/* A short option "-x", "-xVALUE" or "-x VALUE" at argv[*i]. */
static int short_opt(int argc, char **argv, int *i, struct sbp_args *a, struct seen *sn, char *err,
		     size_t errlen)
{
	const char *arg = argv[*i];
	for (size_t k = 0; k < NOPTS; k++) {
		if (!opts[k].shrt || arg[1] != opts[k].shrt)
			continue;
		char spelled[4] = {'-', opts[k].shrt, '\0', '\0'};
		const char *v = NULL;
		if (opts[k].value) {
			if (arg[2]) {
				v = arg[2] == '=' ? arg + 3 : arg + 2;
			} else if (*i + 1 < argc) {
				v = argv[++*i];
			} else {
				snprintf(err, errlen, "flag needs an argument: %s", spelled);
				return -EINVAL;
			}
		} else if (arg[2]) {
			break; /* "-Ax": not combined */
		}
		return set_opt(a, sn, k, spelled, v, err, errlen);
	}
	snprintf(err, errlen, "unknown shorthand flag: '%.60s'", arg);
	return -EINVAL;
}

static int check_formats(struct sbp_args *a, char *err, size_t errlen)
{
	static const char *const report_fmts[] = {"txt", "md", "csv", "json", "svg"};
	static const char *const compare_fmts[] = {"txt", "md", "json"};
	const char *const *list = a->cmd == SBP_CMD_COMPARE ? compare_fmts : report_fmts;
	size_t n = a->cmd == SBP_CMD_COMPARE ? 3 : 5;
	if (!a->format) {
		a->format = "txt";
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(a->format, list[i]))
			return 0;
	snprintf(err, errlen, "--format: '%s' is not one of %s", a->format,
		 a->cmd == SBP_CMD_COMPARE ? "txt, md, json" : "txt, md, csv, json, svg");
	return -EINVAL;
}

int sbp_args_parse(int argc, char **argv, struct sbp_args *a, char *err, size_t errlen)
{
	struct seen sn;
	bool dashdash = false;
	int ret;

	memset(a, 0, sizeof(*a));
	memset(&sn, 0, sizeof(sn));
	err[0] = '\0';
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (!dashdash && !strcmp(arg, "--")) {
			dashdash = true;
		} else if (!dashdash && !strncmp(arg, "--", 2)) {
			if ((ret = long_opt(argc, argv, &i, a, &sn, err, errlen)))
				return ret;
		} else if (!dashdash && arg[0] == '-' && arg[1]) {
			if ((ret = short_opt(argc, argv, &i, a, &sn, err, errlen)))
				return ret;
		} else if (a->cmd == SBP_CMD_NONE) {
			a->cmd = cmd_lookup(arg);
			if (a->cmd == SBP_CMD_NONE) {
				snprintf(err, errlen,
					 "unknown command '%.100s' (commands: list, report, "
					 "compare, logs, history, version, help)",
					 arg);
				return -EINVAL;
			}
		} else if (a->cmd == SBP_CMD_HELP && a->nnames == 0) {
			enum sbp_cmd c = cmd_lookup(arg);
			if (c == SBP_CMD_NONE) {
				snprintf(err, errlen, "help: unknown command '%.100s'", arg);
				return -EINVAL;
			}
			a->help_cmd = c;
			a->nnames = 1;
		} else if (a->nnames < 2) {
			a->names[a->nnames++] = arg;
		} else {
			snprintf(err, errlen, "%s: unexpected argument '%.100s'",
				 sbp_cmd_name(a->cmd), arg);
			return -EINVAL;
		}
	}
	if (a->cmd == SBP_CMD_HELP) {
		a->help = true;
		a->nnames = 0;
		return 0;
	}
	if (a->help) {
		a->help_cmd = a->cmd;
		return 0;
	}
	if (sn.opt[OPT_VERSION]) {
		a->cmd = SBP_CMD_VERSION;
		a->nnames = 0;
		return 0;
	}
	for (size_t k = 0; k < NOPTS; k++) {
		enum opt_id id = opts[k].id;
		if (sn.opt[id] && opts[k].cmds && !(opts[k].cmds & CMD_BIT(a->cmd))) {
			if (a->cmd == SBP_CMD_NONE)
				snprintf(err, errlen, "%s needs a command", sn.spelling[id]);
			else
				snprintf(err, errlen, "%s is not an option of '%s'",
					 sn.spelling[id], sbp_cmd_name(a->cmd));
			return -EINVAL;
		}
	}
	size_t want = 0;
	const char *what = NULL;
	switch (a->cmd) {
	case SBP_CMD_NONE:
		a->help = true;
		return 0;
	case SBP_CMD_REPORT:
	case SBP_CMD_LOGS:
		want = 1;
		what = "one NAME";
		break;
	case SBP_CMD_HISTORY:
		want = 1;
		what = "one SCHEDULE";
		break;
	case SBP_CMD_COMPARE:
		want = 2;
		what = "two runs, BASELINE and CURRENT";
		break;
	default:
		break;
	}
	if (a->nnames != want) {
		if (want == 0)
			snprintf(err, errlen, "%s: unexpected argument '%.100s'",
				 sbp_cmd_name(a->cmd), a->names[0]);
		else
			snprintf(err, errlen, "%s needs %s", sbp_cmd_name(a->cmd), what);
		return -EINVAL;
	}
	if (a->follow && a->iteration) {
		snprintf(err, errlen,
			 "%s and --iteration cannot go together (one iteration is "
			 "cut from a whole log)",
			 sn.spelling[OPT_FOLLOW]);
		return -EINVAL;
	}
	for (size_t i = 0; i < a->nnames; i++) {
		struct sbp_ref ref;
		if ((ret = sbp_ref_parse(a->names[i], NULL, &ref, err, errlen)))
			return ret;
	}
	if (a->cmd == SBP_CMD_REPORT || a->cmd == SBP_CMD_COMPARE)
		return check_formats(a, err, errlen);
	return 0;
}
