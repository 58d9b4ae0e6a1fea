/* SPDX-License-Identifier: MIT */
/* The help texts of the plugin's commands. */
#include "plugin/args.h"

static const char common[] =
	"\nOptions of every command:\n"
	"  --kubeconfig=PATH   kubeconfig file (default: the files of $KUBECONFIG, merged as\n"
	"                      kubectl merges them, the in-cluster ServiceAccount, then\n"
	"                      ~/.kube/config)\n"
	"  --context=NAME      the kubeconfig context to use (default: its current-context)\n"
	"  -n, --namespace=NS  namespace (default: the namespace of the context)\n"
	"  -h, --help          this help\n";

static const char general[] =
	"kubectl storagebench: BenchmarkRuns of the storagebench operator from kubectl.\n"
	"\n"
	"Usage: kubectl storagebench COMMAND [options]\n"
	"\n"
	"Commands:\n"
	"  list                       the BenchmarkRuns with phase, progress and report\n"
	"  report NAME                the report of a run (txt, md, csv, json or svg)\n"
	"  compare BASELINE CURRENT   the reports of two runs compared, with Welch's t-test\n"
	"  logs NAME                  the runner logs of a run, or its per-iteration results\n"
	"  history SCHEDULE           the runs of a BenchmarkSchedule: means and trend\n"
	"  version                    the plugin's version\n"
	"  help [COMMAND]             this help, or a command's\n"
	"\n"
	"A run is NAME (in the namespace of -n or of the context) or NAMESPACE/NAME.\n"
	"Exit status: 0 done, 1 failed (the reason is on stderr), 2 usage error.\n";

static const char list_help[] =
	"Usage: kubectl storagebench list [-n NS | -A]\n"
	"\n"
	"Lists the BenchmarkRuns of a namespace as a table: NAME, PHASE (Pending, Running,\n"
	"Succeeded, Failed), PROGRESS (iterations done out of the total over every storage\n"
	"class), CLASSES, REPORT (the ConfigMap holding the report) and AGE. <none> marks\n"
	"what the controller has not written yet.\n"
	"\n"
	"  -A, --all-namespaces   every namespace (adds a NAMESPACE column)\n";

static const char report_help[] =
	"Usage: kubectl storagebench report NAME [--format txt|md|csv|json|svg] [-o FILE]\n"
	"\n"
	"Prints the report of a finished run, rendered here from the report document\n"
	"(report.json in the ConfigMap of status.report), so every format works.\n"
	"A run still Pending or Running: says so with its progress and exits 1.\n"
	"A failed run: prints what was measured (the partial report, if any), the\n"
	"failure reason on stderr, and exits 1.\n"
	"\n"
	"  --format=F    txt (default: sentences and a table), md, csv, json, svg (charts)\n"
	"  -o, --output=FILE   write to FILE instead of stdout (- is stdout)\n";

static const char compare_help[] =
	"Usage: kubectl storagebench compare BASELINE CURRENT [--format txt|md|json] [-o FILE]\n"
	"\n"
	"Compares the reports of two finished runs: per storage class, workload and\n"
	"headline metric the change of the mean in percent, the p-value of Welch's\n"
	"t-test on the per-iteration samples and a verdict (significant at p < 0.05;\n"
	"a side with fewer than 2 iterations cannot be tested), e.g.\n"
	"  fast: rr: read-iops: +12.4% (p=0.003, significant, faster)\n"
	"then a table. Runs are NAME or NAMESPACE/NAME. Exits 1 when a run has no\n"
	"report, naming it.\n"
	"\n"
	"  --format=F    txt (default), md, json\n"
	"  -o, --output=FILE   write to FILE instead of stdout (- is stdout)\n";

static const char logs_help[] =
	"Usage: kubectl storagebench logs NAME [--class C] [--iteration N | -f]\n"
	"\n"
	"Prints the logs of the run's runner pods, one block per pod. When the pods are\n"
	"gone (spec.cleanup Always deletes them when the run ends), prints the\n"
	"per-iteration results recorded in the run's result ConfigMaps instead: one row\n"
	"per iteration, class, workload and direction with IOPS, bandwidth, mean and\n"
	"p99 latency.\n"
	"\n"
	"  --class=C       only the runner pods (or results) of storage class C\n"
	"  --iteration=N   only iteration N (from the log: the lines from its start to\n"
	"                  the start of the next iteration)\n"
	"  -f, --follow    stream each runner pod's log as it is written, pod after pod\n"
	"                  (waiting for the next one to start), until the run ends; then\n"
	"                  its phase and message on stderr, and exit 0 when it\n"
	"                  Succeeded, 1 when it Failed (a run that has ended: what logs\n"
	"                  prints without -f, then the same)\n";

static const char history_help[] =
	"Usage: kubectl storagebench history SCHEDULE [--metric M]\n"
	"\n"
	"The runs of a BenchmarkSchedule, newest activation first: per run, storage class\n"
	"and workload the mean and standard deviation over the iterations, the change\n"
	"against the schedule's previous successful run and its trend (better, worse,\n"
	"same; lower latency is better), and whether the run regressed against its\n"
	"baseline (the Regressed condition). SCHEDULE is NAME or NAMESPACE/NAME.\n"
	"\n"
	"  --metric=M    the metric shown (default: read-iops and write-iops), one of the\n"
	"                report's, e.g. read-bw, read-lat-mean, read-lat-p99\n";

static const char version_help[] = "Usage: kubectl storagebench version\n"
				   "\n"
				   "Prints the plugin's version.\n";

void sbp_usage(FILE *f, enum sbp_cmd cmd)
{
	const char *text = general;
	switch (cmd) {
	case SBP_CMD_LIST:
		text = list_help;
		break;
	case SBP_CMD_REPORT:
		text = report_help;
		break;
	case SBP_CMD_COMPARE:
		text = compare_help;
		break;
	case SBP_CMD_LOGS:
		text = logs_help;
		break;
	case SBP_CMD_VERSION:
		text = version_help;
		break;
	case SBP_CMD_HISTORY:
		text = history_help;
		break;
	case SBP_CMD_NONE:
	case SBP_CMD_HELP:
		break;
	}
	fputs(text, f);
	fputs(common, f);
}
