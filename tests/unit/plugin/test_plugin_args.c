/* SPDX-License-Identifier: MIT */
/* The kubectl plugin's command line: commands, options, names, errors. */
#include "tests/unit/harness.h"
#include "plugin/args.h"

#include <errno.h>

#define ARGC(v) ((int)(sizeof(v) / sizeof((v)[0])))

static char err[512];

/* Parses a NULL-free vector of string literals. */
static int parse(struct sbp_args *a, int argc, const char *const *argv)
{
	return sbp_args_parse(argc, (char **)argv, a, err, sizeof(err));
}

static int test_list_defaults(void)
{
	struct sbp_args a;
	const char *v[] = {"kubectl-storagebench", "list"};
	CHECK_INT(parse(&a, ARGC(v), v), 0);
	CHECK_INT(a.cmd, SBP_CMD_LIST);
	CHECK(!a.help && !a.all_ns && !a.ns && !a.kubeconfig);
	CHECK_INT(a.nnames, 0);
	const char *w[] = {"x", "ls", "-A"};
	CHECK_INT(parse(&a, ARGC(w), w), 0);
	CHECK_INT(a.cmd, SBP_CMD_LIST);
	CHECK(a.all_ns);
	const char *f[] = {"x", "list", "--all-namespaces=false"};
	CHECK_INT(parse(&a, ARGC(f), f), 0);
	CHECK(!a.all_ns);
	return T_PASS;
}

static int test_kubectl_option_forms(void)
{
	struct sbp_args a;
	/* options before and after the command, = or separate value */
	const char *v[] = {"x",	     "--kubeconfig", "/k/config", "report", "run1",  "-n",
			   "team-a", "--format",     "md",	  "-o",	    "out.md"};
	CHECK_INT(parse(&a, ARGC(v), v), 0);
	CHECK_INT(a.cmd, SBP_CMD_REPORT);
	CHECK_STR(a.kubeconfig, "/k/config");
	CHECK_STR(a.ns, "team-a");
	CHECK_STR(a.format, "md");
	CHECK_STR(a.output, "out.md");
	CHECK_INT(a.nnames, 1);
	CHECK_STR(a.names[0], "run1");
	const char *w[] = {"x",	  "report",	  "--kubeconfig=/a", "--namespace=b",
			   "-nc", "--format=svg", "-oFILE",	     "r"};
	CHECK_INT(parse(&a, ARGC(w), w), 0);
	CHECK_STR(a.kubeconfig, "/a");
	CHECK_STR(a.ns, "c"); /* the last one wins */
	CHECK_STR(a.format, "svg");
	CHECK_STR(a.output, "FILE");
	CHECK_STR(a.names[0], "r");
	const char *cx[] = {"x", "list", "--context", "prod-eu"};
	CHECK_INT(parse(&a, ARGC(cx), cx), 0);
	CHECK_STR(a.context, "prod-eu");
	const char *cy[] = {"x", "--context=", "list"};
	CHECK_INT(parse(&a, ARGC(cy), cy), -EINVAL);
	CHECK_STR(err, "--context: empty context name");
	const char *e[] = {"x", "report", "-n=d", "-o=f", "r"};
	CHECK_INT(parse(&a, ARGC(e), e), 0);
	CHECK_STR(a.ns, "d");
	CHECK_STR(a.output, "f");
	/* "--" ends the options */
	const char *d[] = {"x", "logs", "--", "run"};
	CHECK_INT(parse(&a, ARGC(d), d), 0);
	CHECK_STR(a.names[0], "run");
	return T_PASS;
}

static int test_report_format_default_and_choices(void)
{
	struct sbp_args a;
	const char *v[] = {"x", "report", "r"};
	CHECK_INT(parse(&a, ARGC(v), v), 0);
	CHECK_STR(a.format, "txt");
	CHECK(a.output == NULL);
	static const char *const ok[] = {"txt", "md", "csv", "json", "svg"};
	for (size_t i = 0; i < 5; i++) {
		const char *w[] = {"x", "report", "r", "--format", ok[i]};
		CHECK_INT(parse(&a, ARGC(w), w), 0);
		CHECK_STR(a.format, ok[i]);
	}
	const char *bad[] = {"x", "report", "r", "--format=html"};
	CHECK_INT(parse(&a, ARGC(bad), bad), -EINVAL);
	CHECK_STR(err, "--format: 'html' is not one of txt, md, csv, json, svg");
	/* compare has no csv or svg */
	const char *c[] = {"x", "compare", "a", "b", "--format=csv"};
	CHECK_INT(parse(&a, ARGC(c), c), -EINVAL);
	CHECK_STR(err, "--format: 'csv' is not one of txt, md, json");
	const char *c2[] = {"x", "compare", "a", "ns2/b", "--format=json"};
	CHECK_INT(parse(&a, ARGC(c2), c2), 0);
	CHECK_INT(a.cmd, SBP_CMD_COMPARE);
	CHECK_INT(a.nnames, 2);
	CHECK_STR(a.names[1], "ns2/b");
	return T_PASS;
}

static int test_logs_options(void)
{
	struct sbp_args a;
	const char *v[] = {"x", "logs", "r", "--class", "fast", "--iteration=2"};
	CHECK_INT(parse(&a, ARGC(v), v), 0);
	CHECK_INT(a.cmd, SBP_CMD_LOGS);
	CHECK_STR(a.cls, "fast");
	CHECK_INT(a.iteration, 2);
	static const char *const bad[] = {"0", "-1", "x", "2x", "", "100001", "+3"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char opt[64];
		snprintf(opt, sizeof(opt), "--iteration=%s", bad[i]);
		const char *w[] = {"x", "logs", "r", opt};
		CHECK_INT(parse(&a, ARGC(w), w), -EINVAL);
		CHECK(strstr(err, "is not a number from 1 to 100000") != NULL);
	}
	const char *e[] = {"x", "logs", "r", "--class="};
	CHECK_INT(parse(&a, ARGC(e), e), -EINVAL);
	CHECK_STR(err, "--class: empty storage class name");
	/* -f/--follow: logs only, not with --iteration */
	const char *f1[] = {"x", "logs", "r", "-f"};
	CHECK_INT(parse(&a, ARGC(f1), f1), 0);
	CHECK(a.follow);
	const char *f2[] = {"x", "logs", "--follow", "--class=fast", "r"};
	CHECK_INT(parse(&a, ARGC(f2), f2), 0);
	CHECK(a.follow);
	CHECK_STR(a.cls, "fast");
	const char *f3[] = {"x", "logs", "r", "--follow=false"};
	CHECK_INT(parse(&a, ARGC(f3), f3), 0);
	CHECK(!a.follow);
	const char *f4[] = {"x", "logs", "r", "-f", "--iteration=2"};
	CHECK_INT(parse(&a, ARGC(f4), f4), -EINVAL);
	CHECK(strstr(err, "-f and --iteration cannot go together") != NULL);
	const char *f5[] = {"x", "report", "r", "-f"};
	CHECK_INT(parse(&a, ARGC(f5), f5), -EINVAL);
	CHECK_STR(err, "-f is not an option of 'report'");
	return T_PASS;
}

static int test_options_checked_against_command(void)
{
	struct sbp_args a;
	const char *v[] = {"x", "report", "r", "-A"};
	CHECK_INT(parse(&a, ARGC(v), v), -EINVAL);
	CHECK_STR(err, "-A is not an option of 'report'");
	const char *w[] = {"x", "list", "--class=fast"};
	CHECK_INT(parse(&a, ARGC(w), w), -EINVAL);
	CHECK_STR(err, "--class is not an option of 'list'");
	const char *o[] = {"x", "logs", "r", "-o", "f"};
	CHECK_INT(parse(&a, ARGC(o), o), -EINVAL);
	CHECK_STR(err, "-o is not an option of 'logs'");
	const char *n[] = {"x", "-A"};
	CHECK_INT(parse(&a, ARGC(n), n), -EINVAL);
	CHECK_STR(err, "-A needs a command");
	return T_PASS;
}

static int test_usage_errors(void)
{
	struct sbp_args a;
	const char *u[] = {"x", "lst"};
	CHECK_INT(parse(&a, ARGC(u), u), -EINVAL);
	CHECK(strstr(err, "unknown command 'lst'") != NULL);
	const char *f[] = {"x", "list", "--frobnicate"};
	CHECK_INT(parse(&a, ARGC(f), f), -EINVAL);
	CHECK_STR(err, "unknown flag: --frobnicate");
	const char *s[] = {"x", "list", "-z"};
	CHECK_INT(parse(&a, ARGC(s), s), -EINVAL);
	CHECK_STR(err, "unknown shorthand flag: '-z'");
	const char *m[] = {"x", "list", "-n"};
	CHECK_INT(parse(&a, ARGC(m), m), -EINVAL);
	CHECK_STR(err, "flag needs an argument: -n");
	const char *k[] = {"x", "list", "--kubeconfig"};
	CHECK_INT(parse(&a, ARGC(k), k), -EINVAL);
	CHECK_STR(err, "flag needs an argument: --kubeconfig");
	const char *r0[] = {"x", "report"};
	CHECK_INT(parse(&a, ARGC(r0), r0), -EINVAL);
	CHECK_STR(err, "report needs one NAME");
	CHECK_INT(a.cmd, SBP_CMD_REPORT); /* main names the command in its hint */
	const char *r2[] = {"x", "report", "a", "b"};
	CHECK_INT(parse(&a, ARGC(r2), r2), -EINVAL);
	CHECK_STR(err, "report needs one NAME");
	const char *c1[] = {"x", "compare", "a"};
	CHECK_INT(parse(&a, ARGC(c1), c1), -EINVAL);
	CHECK_STR(err, "compare needs two runs, BASELINE and CURRENT");
	const char *c3[] = {"x", "compare", "a", "b", "c"};
	CHECK_INT(parse(&a, ARGC(c3), c3), -EINVAL);
	CHECK_STR(err, "compare: unexpected argument 'c'");
	const char *l1[] = {"x", "list", "extra"};
	CHECK_INT(parse(&a, ARGC(l1), l1), -EINVAL);
	CHECK_STR(err, "list: unexpected argument 'extra'");
	const char *ns[] = {"x", "list", "-n", "Bad_NS"};
	CHECK_INT(parse(&a, ARGC(ns), ns), -EINVAL);
	CHECK_STR(err, "-n: 'Bad_NS' is not a valid namespace name");
	const char *nm[] = {"x", "report", "Run_1"};
	CHECK_INT(parse(&a, ARGC(nm), nm), -EINVAL);
	CHECK(strstr(err, "'Run_1' is not a valid benchmarkrun name") != NULL);
	const char *b[] = {"x", "list", "-A=maybe"};
	CHECK_INT(parse(&a, ARGC(b), b), -EINVAL);
	const char *b2[] = {"x", "list", "--all-namespaces=maybe"};
	CHECK_INT(parse(&a, ARGC(b2), b2), -EINVAL);
	CHECK_STR(err, "--all-namespaces: 'maybe' is not true or false");
	return T_PASS;
}

static int test_help_and_version(void)
{
	struct sbp_args a;
	const char *none[] = {"x"};
	CHECK_INT(parse(&a, ARGC(none), none), 0);
	CHECK(a.help);
	CHECK_INT(a.help_cmd, SBP_CMD_NONE);
	const char *h[] = {"x", "--help"};
	CHECK_INT(parse(&a, ARGC(h), h), 0);
	CHECK(a.help);
	CHECK_INT(a.help_cmd, SBP_CMD_NONE);
	/* CMD --help needs no names */
	const char *rh[] = {"x", "report", "-h"};
	CHECK_INT(parse(&a, ARGC(rh), rh), 0);
	CHECK(a.help);
	CHECK_INT(a.help_cmd, SBP_CMD_REPORT);
	const char *hc[] = {"x", "help", "compare"};
	CHECK_INT(parse(&a, ARGC(hc), hc), 0);
	CHECK(a.help);
	CHECK_INT(a.help_cmd, SBP_CMD_COMPARE);
	const char *hx[] = {"x", "help", "nope"};
	CHECK_INT(parse(&a, ARGC(hx), hx), -EINVAL);
	CHECK_STR(err, "help: unknown command 'nope'");
	const char *v[] = {"x", "version"};
	CHECK_INT(parse(&a, ARGC(v), v), 0);
	CHECK_INT(a.cmd, SBP_CMD_VERSION);
	const char *vv[] = {"x", "--version"};
	CHECK_INT(parse(&a, ARGC(vv), vv), 0);
	CHECK_INT(a.cmd, SBP_CMD_VERSION);
	CHECK(!a.help);
	/* every command has a help text */
	for (int c = SBP_CMD_NONE; c <= SBP_CMD_LOGS; c++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		CHECK(f != NULL);
		sbp_usage(f, (enum sbp_cmd)c);
		CHECK_INT(fclose(f), 0);
		CHECK(strstr(buf, "Usage: kubectl storagebench") != NULL);
		CHECK(strstr(buf, "--kubeconfig") != NULL);
		if (c >= SBP_CMD_LIST)
			CHECK(strstr(buf, sbp_cmd_name((enum sbp_cmd)c)) != NULL);
		free(buf);
	}
	return T_PASS;
}

static int test_ref_parse(void)
{
	struct sbp_ref r;
	CHECK_INT(sbp_ref_parse("run-1", "team", &r, err, sizeof(err)), 0);
	CHECK_STR(r.ns, "team");
	CHECK_STR(r.name, "run-1");
	CHECK_INT(sbp_ref_parse("other/run.v2", "team", &r, err, sizeof(err)), 0);
	CHECK_STR(r.ns, "other");
	CHECK_STR(r.name, "run.v2");
	CHECK_INT(sbp_ref_parse("run", NULL, &r, err, sizeof(err)), 0);
	CHECK_STR(r.ns, "");
	static const char *const bad[] = {"a/b/c", "/b", "a/", "/"};
	for (size_t i = 0; i < 4; i++) {
		CHECK_INT(sbp_ref_parse(bad[i], "d", &r, err, sizeof(err)), -EINVAL);
		CHECK(strstr(err, "is not NAME or NAMESPACE/NAME") != NULL);
	}
	CHECK_INT(sbp_ref_parse("", "d", &r, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "empty benchmarkrun name");
	CHECK_INT(sbp_ref_parse("my.ns/x", "d", &r, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "'my.ns' is not a valid namespace name");
	CHECK_INT(sbp_ref_parse("ns/-x", "d", &r, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "'-x' is not a valid benchmarkrun name") != NULL);
	return T_PASS;
}

static int test_name_rules(void)
{
	char long_label[70], long_name[300];
	memset(long_label, 'a', 64);
	long_label[64] = '\0';
	memset(long_name, 'a', 254);
	long_name[254] = '\0';
	CHECK(sbp_valid_ns("default"));
	CHECK(sbp_valid_ns("a-1"));
	CHECK(!sbp_valid_ns("a."));
	CHECK(!sbp_valid_ns("-a"));
	CHECK(!sbp_valid_ns("A"));
	CHECK(!sbp_valid_ns(""));
	CHECK(!sbp_valid_ns(long_label));
	long_label[63] = '\0';
	CHECK(sbp_valid_ns(long_label));
	CHECK(sbp_valid_name("a.b-c.d"));
	CHECK(!sbp_valid_name("a..b"));
	CHECK(!sbp_valid_name("a.-b"));
	CHECK(!sbp_valid_name(".a"));
	CHECK(!sbp_valid_name("a_b"));
	CHECK(!sbp_valid_name(long_name));
	long_name[253] = '\0';
	CHECK(sbp_valid_name(long_name));
	return T_PASS;
}

static const struct test_case cases[] = {
	{"plugin-args/list defaults, ls, -A", test_list_defaults},
	{"plugin-args/kubectl option forms anywhere", test_kubectl_option_forms},
	{"plugin-args/report formats", test_report_format_default_and_choices},
	{"plugin-args/logs --class --iteration", test_logs_options},
	{"plugin-args/options checked against the command", test_options_checked_against_command},
	{"plugin-args/usage errors name the problem", test_usage_errors},
	{"plugin-args/help and version", test_help_and_version},
	{"plugin-args/NAME and NAMESPACE/NAME", test_ref_parse},
	{"plugin-args/DNS name rules", test_name_rules},
};

TEST_MAIN(cases)
