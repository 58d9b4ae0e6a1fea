/* SPDX-License-Identifier: MIT */
#include "dist.h"

#include "format.h"
#include "core/jsonobj.h"

#include <errno.h>
#include <string.h>

/*
 * The start skew of the later workload groups (each starts at a barrier
 * of its own), when a skew entry has "groups": [{"group", "skew_ms"}].
 */
static void group_skews(FILE *f, const json_t *d, bool md)
{
	const json_t *v, *g;
	size_t i, k;
	bool any = false;
	json_array_foreach(json_object_get(d, "skew"), i, v)
	{
		bool vok = true;
		const char *t = jstr(v, "target");
		double it = jnum(v, "iteration", &vok);
		if (!t || !vok)
			continue;
		json_array_foreach(json_object_get(v, "groups"), k, g)
		{
			bool gok = true;
			double gi = jnum(g, "group", &gok), ms = jnum(g, "skew_ms", &gok);
			if (!gok)
				continue;
			if (!any)
				fprintf(f, "%s",
					md ? "\n| class | iteration | workload group | start skew "
					     "|\n|---|---|---|---|\n"
					   : "\nstart skew of the later workload groups (each "
					     "starts "
					     "at a barrier of its own):\n");
			any = true;
			if (md) {
				fputs("| ", f);
				sb_report_md_cell(f, t);
				fprintf(f, " | %.0f | %.0f | %.1f ms |\n", it, gi, ms);
			} else {
				fprintf(f, "  %s, iteration %.0f, group %.0f: %.1f ms\n", t, it, gi,
					ms);
			}
		}
	}
}

void sb_report_dist_text(FILE *f, const json_t *report, bool md)
{
	const json_t *d = json_object_get(report, "distributed");
	const json_t *v;
	size_t i;
	char b1[64], b2[64];
	bool ok = true;
	if (!json_is_object(d))
		return;
	double pods = jnum(d, "podsPerClass", &ok);
	const char *vol = jstr(d, "volume"), *spread = jstr(d, "spread");
	fprintf(f, "\n%sDistributed run: %.0f runner pods per class (volume %s, spread %s)\n\n",
		md ? "## " : "", ok ? pods : 0, vol ? vol : "?", spread ? spread : "?");

	/* start skew per iteration */
	fprintf(f, "%s",
		md ? "| class | iteration | start skew |\n|---|---|---|\n"
		   : "start skew (latest minus earliest start of the pods):\n");
	json_array_foreach(json_object_get(d, "skew"), i, v)
	{
		bool vok = true;
		const char *t = jstr(v, "target");
		double it = jnum(v, "iteration", &vok), ms = jnum(v, "skew_ms", &vok);
		if (!t || !vok)
			continue;
		if (ms < 0)
			snprintf(b1, sizeof(b1), "unknown");
		else
			snprintf(b1, sizeof(b1), "%.1f ms", ms);
		if (md) {
			fputs("| ", f);
			sb_report_md_cell(f, t);
			fprintf(f, " | %.0f | %s |\n", it, b1);
		} else {
			fprintf(f, "  %s, iteration %.0f: %s\n", t, it, b1);
		}
	}

	group_skews(f, d, md);

	/* per pod: each iteration's row */
	fprintf(f, "%s",
		md ? "\n| class | workload | iteration | pod | node | read | write | |\n"
		     "|---|---|---|---|---|---|---|---|\n"
		   : "\nper pod (each iteration; * a straggler, below half its class's "
		     "median):\n");
	json_array_foreach(json_object_get(d, "pods"), i, v)
	{
		bool vok = true;
		const char *t = jstr(v, "target"), *w = jstr(v, "workload"), *p = jstr(v, "pod");
		const char *n = jstr(v, "node");
		double it = jnum(v, "iteration", &vok), ri = jnum(v, "read-iops", &vok);
		double wi = jnum(v, "write-iops", &vok);
		bool strag = json_is_true(json_object_get(v, "straggler"));
		if (!t || !w || !p || !n || !vok)
			continue;
		sb_report_fmt_value(ri, "IOPS", b1, sizeof(b1));
		sb_report_fmt_value(wi, "IOPS", b2, sizeof(b2));
		fputs(md ? "| " : "  ", f);
		sb_report_cell(f, t, md);
		fputs(md ? " | " : " ", f);
		sb_report_cell(f, w, md);
		fprintf(f, md ? " | %.0f | " : " iteration %.0f ", it);
		sb_report_cell(f, p, md);
		fputs(md ? " | " : " on ", f);
		sb_report_cell(f, n, md);
		if (md)
			fprintf(f, " | %s | %s | %s |\n", b1, b2, strag ? "straggler" : "");
		else
			fprintf(f, ": read %s, write %s%s\n", b1, b2, strag ? " *" : "");
	}

	/* per node: the mean over iterations of its pods' sum */
	fprintf(f, "%s",
		md ? "\n| class | workload | node | pods | IOPS | bandwidth |\n"
		     "|---|---|---|---|---|---|\n"
		   : "\nper node (mean over iterations of its pods' sum):\n");
	json_array_foreach(json_object_get(d, "nodes"), i, v)
	{
		bool vok = true;
		const char *t = jstr(v, "target"), *w = jstr(v, "workload"), *n = jstr(v, "node");
		double np = jnum(v, "pods", &vok), io = jnum(v, "iops", &vok),
		       bw = jnum(v, "bw", &vok);
		if (!t || !w || !n || !vok)
			continue;
		sb_report_fmt_value(io, "IOPS", b1, sizeof(b1));
		sb_report_fmt_value(bw, "B/s", b2, sizeof(b2));
		fputs(md ? "| " : "  ", f);
		sb_report_cell(f, t, md);
		fputs(md ? " | " : " ", f);
		sb_report_cell(f, w, md);
		fputs(md ? " | " : " ", f);
		sb_report_cell(f, n, md);
		if (md)
			fprintf(f, " | %.0f | %s | %s |\n", np, b1, b2);
		else
			fprintf(f, ": %.0f pod%s, %s, %s\n", np, np == 1 ? "" : "s", b1, b2);
	}
}

int sb_report_dist_csv(FILE *f, const json_t *report)
{
	const json_t *d = json_object_get(report, "distributed");
	const json_t *v;
	size_t i;
	if (!json_is_object(d))
		return -ENOENT;
	fputs("target,workload,iteration,member,pod,node,read-iops,write-iops,read-bw,write-bw,"
	      "straggler\n",
	      f);
	json_array_foreach(json_object_get(d, "pods"), i, v)
	{
		bool ok = true;
		const char *t = jstr(v, "target"), *w = jstr(v, "workload"), *p = jstr(v, "pod");
		const char *n = jstr(v, "node");
		double it = jnum(v, "iteration", &ok), m = jnum(v, "member", &ok);
		double ri = jnum(v, "read-iops", &ok), wi = jnum(v, "write-iops", &ok);
		double rb = jnum(v, "read-bw", &ok), wb = jnum(v, "write-bw", &ok);
		if (!t || !w || !p || !n || !ok)
			continue;
		sb_report_csv_field(f, t);
		fputc(',', f);
		sb_report_csv_field(f, w);
		fprintf(f, ",%.0f,%.0f,", it, m);
		sb_report_csv_field(f, p);
		fputc(',', f);
		sb_report_csv_field(f, n);
		fprintf(f, ",%.3f,%.3f,%.0f,%.0f,%s\n", ri, wi, rb, wb,
			json_is_true(json_object_get(v, "straggler")) ? "true" : "false");
	}
	return 0;
}
