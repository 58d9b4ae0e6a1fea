/* SPDX-License-Identifier: MIT */
/*
 * The command line of kubectl-storagebench: a command (list, report,
 * compare, logs, history, version, help) and kubectl-style options, which may come
 * before or after the command and its names:
 *
 *	--kubeconfig=PATH | --kubeconfig PATH, --context=NAME | --context NAME
 *	-n NS | -nNS | --namespace=NS | --namespace NS
 *	-A | --all-namespaces[=true|false]            (list)
 *	--format=F | --format F                       (report, compare)
 *	-o FILE | -oFILE | --output=FILE              (report, compare)
 *	--class=C, --iteration=N, -f/--follow         (logs)
 *	--metric=M                                    (history)
 *	-h | --help, --version, and "--" ending the options
 *
 * Pure: nothing is printed, nothing is allocated; the strings in struct
 * sbp_args point into argv.
 */
#ifndef SB_PLUGIN_ARGS_H
#define SB_PLUGIN_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum sbp_cmd {
	SBP_CMD_NONE = 0, /* no command: the general help */
	SBP_CMD_HELP,
	SBP_CMD_VERSION,
	SBP_CMD_LIST,
	SBP_CMD_REPORT,
	SBP_CMD_COMPARE,
	SBP_CMD_LOGS,
	SBP_CMD_HISTORY,
};

/* Namespace names are DNS labels (63), object names DNS subdomains (253). */
#define SBP_NS_MAX   63
#define SBP_NAME_MAX 253

/* A BenchmarkRun named on the command line: NAME or NAMESPACE/NAME. */
struct sbp_ref {
	char ns[SBP_NS_MAX + 1]; /* "" when not given (the default applies) */
	char name[SBP_NAME_MAX + 1];
};

struct sbp_args {
	enum sbp_cmd cmd;
	bool help;		/* -h/--help, or "help CMD": print help_cmd's help */
	enum sbp_cmd help_cmd;	/* the command whose help to print (NONE: general) */
	const char *kubeconfig; /* NULL: $KUBECONFIG, in-cluster, ~/.kube/config */
	const char *context;	/* --context, NULL: the kubeconfig's current-context */
	const char *ns;		/* NULL: the context's namespace */
	bool all_ns;
	const char *format; /* never NULL after a successful parse ("txt") */
	const char *output; /* NULL or "-": stdout */
	const char *cls;    /* logs --class, or NULL */
	unsigned iteration; /* logs --iteration, 0 for every iteration */
	bool follow;	    /* logs -f/--follow */
	const char *metric; /* history --metric, or NULL (IOPS) */
	const char *names[2];
	size_t nnames;
};

/*
 * Parses argv[1..argc-1] into a. Returns 0, or -EINVAL with err holding one
 * line naming the problem ("unknown command 'x'", "--iteration: 'x' is not
 * a number from 1 to 100000", "report needs one NAME", ...): a usage error
 * (exit status 2).
 */
int sbp_args_parse(int argc, char **argv, struct sbp_args *a, char *err, size_t errlen);

/* The command's name ("list", ...), or "" for SBP_CMD_NONE. */
const char *sbp_cmd_name(enum sbp_cmd cmd);

/* Prints the help of cmd (SBP_CMD_NONE or SBP_CMD_HELP: the general help). */
void sbp_usage(FILE *f, enum sbp_cmd cmd);

/*
 * Parses "NAME" or "NAMESPACE/NAME" into ref; default_ns (may be NULL: "")
 * is used when no namespace is given. Checks that the name is a DNS-1123
 * subdomain and the namespace a DNS-1123 label. 0 or -EINVAL with err
 * naming the problem ("'a/b/c' is not NAME or NAMESPACE/NAME").
 */
int sbp_ref_parse(const char *s, const char *default_ns, struct sbp_ref *ref, char *err,
		  size_t errlen);

/* True when s is a DNS-1123 label (namespace names). */
bool sbp_valid_ns(const char *s);
/* True when s is a DNS-1123 subdomain (object names). */
bool sbp_valid_name(const char *s);

#endif
