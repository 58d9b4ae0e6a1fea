/* SPDX-License-Identifier: MIT */
/*
 * The report's optional sections in text, Markdown and CSV: "lifecycle"
 * (volume lifecycle timings, controller/lifecycle/lifecycle.h) and "warnings" (the
 * validity checks, lib/report/validity.h). A report may have been edited: every
 * value is type-checked here and an entry of the wrong shape is left out.
 */
#include "sections.h"

#include "core/units.h"

#include <string.h>

static const char *str(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static bool num(const json_t *o, const char *k, double *out)
{
	const json_t *v = json_object_get(o, k);
	if (!json_is_number(v))
		return false;
	*out = json_number_value(v);
	return true;
}

/* A lifecycle entry with statistics: every number there. */
static bool lc_stats(const json_t *e, double v[8])
{
	static const char *const keys[] = {"mean", "stddev", "p50", "p95",
					   "p99",  "min",    "max", "n"};
	for (int i = 0; i < 8; i++)
		if (!num(e, keys[i], &v[i]))
			return false;
	return true;
}

size_t sb_report_warning_count(const json_t *report)
{
	size_t n = 0, i;
	const json_t *w;
	json_array_foreach(json_object_get(report, "warnings"), i, w)
	{
		if (str(w, "check") && str(w, "target") && str(w, "workload") && str(w, "message"))
			n++;
	}
	return n;
}

void sb_report_warnings_note(FILE *f, const json_t *report, bool md)
{
	size_t n = sb_report_warning_count(report);
	if (n)
		fprintf(f,
			"%s%zu validity warning%s: some figures should not be trusted as they "
			"are (see Warnings below)%s\n\n",
			md ? "**" : "", n, n == 1 ? "" : "s", md ? "**" : "");
}

static void lifecycle_text(FILE *f, const json_t *report, bool md)
{
	const json_t *lc = json_object_get(report, "lifecycle");
	size_t i;
	const json_t *e;
	if (!json_array_size(lc))
		return;
	if (md)
		fprintf(f, "\n## Volume lifecycle\n\n"
			   "| class | phase | mean | stddev | p50 | p95 | p99 | min | max | n |\n"
			   "|---|---|---|---|---|---|---|---|---|---|\n");
	else
		fprintf(f, "\n=== volume lifecycle (from watch events)\n");
	json_array_foreach(lc, i, e)
	{
		const char *t = str(e, "target"), *p = str(e, "phase");
		double v[8];
		char b[7][32];
		if (!t || !p)
			continue;
		if (lc_stats(e, v)) {
			for (int k = 0; k < 7; k++)
				sb_fmt_ns(v[k], b[k], sizeof(b[k]));
			if (md)
				fprintf(f,
					"| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.0f |\n",
					t, p, b[0], b[1], b[2], b[3], b[4], b[5], b[6], v[7]);
			else
				fprintf(f,
					"%s %s: mean %s ± %s, p50 %s, p95 %s, p99 %s, min %s, max "
					"%s "
					"(n %.0f)\n",
					t, p, b[0], b[1], b[2], b[3], b[4], b[5], b[6], v[7]);
		} else if (str(e, "skipped")) {
			if (md)
				fprintf(f, "| %s | %s | skipped: %s | | | | | | | 0 |\n", t, p,
					str(e, "skipped"));
			else
				fprintf(f, "%s %s: skipped: %s\n", t, p, str(e, "skipped"));
		} else if (str(e, "message")) {
			double it = 0;
			(void)num(e, "iteration", &it);
			if (md)
				fprintf(f, "| %s | failed (iteration %.0f): %s | | | | | | | | |\n",
					t, it, str(e, "message"));
			else
				fprintf(f, "%s: iteration %.0f failed: %s\n", t, it,
					str(e, "message"));
		}
	}
}

static void warnings_text(FILE *f, const json_t *report, bool md)
{
	size_t i;
	const json_t *w;
	if (!sb_report_warning_count(report))
		return;
	fprintf(f, "%s", md ? "\n## Warnings\n\n" : "\n=== warnings\n");
	json_array_foreach(json_object_get(report, "warnings"), i, w)
	{
		const char *c = str(w, "check"), *t = str(w, "target"), *wl = str(w, "workload");
		const char *m = str(w, "message"), *ev = str(w, "evidence"), *fix = str(w, "fix");
		if (!c || !t || !wl || !m)
			continue;
		if (md)
			fprintf(f, "- **%s / %s** (`%s`): %s.%s%s%s%s%s\n", t, wl, c, m,
				ev ? " Evidence: " : "", ev ? ev : "", fix ? ". Fix: " : "",
				fix ? fix : "", fix ? "." : "");
		else
			fprintf(f, "%s / %s [%s]: %s\n%s%s%s%s%s%s", t, wl, c, m,
				ev ? "  evidence: " : "", ev ? ev : "", ev ? "\n" : "",
				fix ? "  fix: " : "", fix ? fix : "", fix ? "\n" : "");
	}
}

void sb_report_sections_text(FILE *f, const json_t *report, bool md)
{
	lifecycle_text(f, report, md);
	warnings_text(f, report, md);
}

void sb_report_sections_csv(FILE *f, const json_t *report)
{
	size_t i;
	const json_t *e;
	json_array_foreach(json_object_get(report, "lifecycle"), i, e)
	{
		const char *t = str(e, "target"), *p = str(e, "phase");
		double v[8];
		if (!t || !p || !lc_stats(e, v))
			continue;
		/* median is p50; cv from mean and stddev */
		fprintf(f, "%s,lifecycle,%s,ns,%.0f,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", t, p, v[7],
			v[0], v[1], v[5], v[6], v[2], v[0] > 0 ? v[1] / v[0] : 0.0);
	}
}
