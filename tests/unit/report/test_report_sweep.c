/* SPDX-License-Identifier: MIT */
/*
 * The saturation sweep's section of a report (lib/report/sweep.h): built
 * from the step reports in tests/fixtures/sweep/steps.json (runner pods 1,
 * 2, 3), the curve's values recomputed here from the samples, and the
 * section as JSON, txt, md, sweep.csv and its SVG panel byte for byte against the golden
 * files in tests/fixtures/sweep/ (SB_UPDATE_GOLDEN=1 rewrites them). A
 * report without the section renders exactly as before.
 */
#include "tests/unit/harness.h"
#include "report/report.h"
#include "report/svg/svg.h"
#include "report/sweep.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#define DIR "tests/fixtures/sweep/"

static const unsigned PODS[] = {1, 2, 3};

/* The three step reports (borrowed from *all, which the caller decrefs). */
static int load_steps(json_t **all, const json_t *steps[3])
{
	*all = json_load_file(DIR "steps.json", 0, NULL);
	if (!json_is_array(*all) || json_array_size(*all) != 3) {
		fprintf(stderr,
			"    cannot load " DIR "steps.json (run from the repository root)\n");
		return -1;
	}
	for (size_t k = 0; k < 3; k++)
		steps[k] = json_array_get(*all, k);
	return 0;
}

static const json_t *find_point(const json_t *sec, const char *wl, unsigned value)
{
	size_t i;
	const json_t *p;
	json_array_foreach(json_object_get(sec, "curve"), i, p)
	{
		if (!strcmp(json_string_value(json_object_get(p, "workload")), wl) &&
		    json_integer_value(json_object_get(p, "value")) == (json_int_t)value)
			return p;
	}
	return NULL;
}

static double field(const json_t *p, const char *a, const char *b)
{
	const json_t *v = b ? json_object_get(json_object_get(p, a), b) : json_object_get(p, a);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static int test_curve_values(void)
{
	json_t *all;
	const json_t *steps[3];
	if (load_steps(&all, steps))
		return T_FAIL;
	json_t *sec = sb_sweep_section("pods", PODS, steps, 3);
	CHECK(sec != NULL);
	const json_t *rr2 = find_point(sec, "randread-4k", 2);
	const json_t *mx3 = find_point(sec, "mixed-4k", 3);
	const json_t *mx1 = find_point(sec, "mixed-4k", 1);
	double rr2_iops = field(rr2, "iops", "mean"), rr2_sd = field(rr2, "iops", "stddev");
	double mx3_iops = field(mx3, "iops", "mean"), mx3_sd = field(mx3, "iops", "stddev");
	double mx1_bw = field(mx1, "bw", "mean"), rr2_p99 = field(rr2, "lat-p99", NULL);
	double mx1_p50 = field(mx1, "lat-p50", NULL);
	size_t n = json_array_size(json_object_get(sec, "curve"));
	const char *order[6] = {0};
	for (size_t i = 0; i < 6 && i < n; i++)
		order[i] = json_string_value(json_object_get(
			json_array_get(json_object_get(sec, "curve"), i), "workload"));
	/* rows: the first workload's steps, then the second's */
	bool in_order = n == 6 && !strcmp(order[0], "randread-4k") &&
			!strcmp(order[2], "randread-4k") && !strcmp(order[3], "mixed-4k");
	json_decref(sec);
	json_decref(all);
	CHECK_INT(n, 6);
	CHECK(in_order);
	/* randread at 2 pods: samples 19000, 19500, 18500 */
	CHECK(fabs(rr2_iops - 19000) < 1e-9 && fabs(rr2_sd - 500) < 1e-9);
	CHECK(rr2_p99 == 1200000);
	/* mixed at 3 pods: read + write per iteration 7200, 7100, 7300 (not the sum of the
	 * two directions' deviations) */
	CHECK(fabs(mx3_iops - 7200) < 1e-9 && fabs(mx3_sd - 100) < 1e-9);
	/* mixed at 1 pod: bandwidth (3000+1000)*4096; latency from the direction with more I/Os
	 * (reads: the merged read p50) */
	CHECK(fabs(mx1_bw - 4000.0 * 4096) < 1e-6);
	CHECK(mx1_p50 == 400000);
	return T_PASS;
}

/* A step that failed (no report) has no points; the others still do. */
static int test_failed_step(void)
{
	json_t *all;
	const json_t *steps[3];
	if (load_steps(&all, steps))
		return T_FAIL;
	steps[1] = NULL;
	json_t *sec = sb_sweep_section("pods", PODS, steps, 3);
	bool none2 = sec && !find_point(sec, "randread-4k", 2) && find_point(sec, "randread-4k", 3);
	size_t n = json_array_size(json_object_get(sec, "curve"));
	size_t nv = json_array_size(json_object_get(sec, "values"));
	json_decref(sec);
	json_decref(all);
	CHECK(none2);
	CHECK_INT(n, 4);
	CHECK_INT(nv, 3);
	return T_PASS;
}

static int golden(const char *name, const char *got)
{
	char path[256];
	snprintf(path, sizeof(path), DIR "%s", name);
	if (getenv("SB_UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "w");
		if (!f || fputs(got, f) < 0 || fclose(f)) {
			fprintf(stderr, "    cannot write %s\n", path);
			return -1;
		}
		return 0;
	}
	char *want = t_slurp(path);
	int bad = !want || strcmp(want, got);
	if (bad)
		fprintf(stderr, "    %s differs (SB_UPDATE_GOLDEN=1 rewrites it):\n%s\n", path,
			got);
	free(want);
	return bad ? -1 : 0;
}

static int test_golden(void)
{
	json_t *all;
	const json_t *steps[3];
	char err[256] = "";
	int bad = 0;
	if (load_steps(&all, steps))
		return T_FAIL;
	/* the report of the last step, with the sweep section */
	json_t *rep = json_deep_copy(steps[2]);
	char *before = rep ? sb_report_render(rep, "txt", err, sizeof(err)) : NULL;
	char *no_csv = rep ? sb_report_render(rep, "sweep.csv", err, sizeof(err)) : NULL;
	bool no_section = !no_csv && strstr(err, "no sweep section");
	json_t *sec = sb_sweep_section("pods", PODS, steps, 3);
	if (!rep || !sec || json_object_set_new(rep, "sweep", sec)) {
		json_decref(rep);
		json_decref(all);
		free(before);
		return T_FAIL;
	}
	static const char *const fmts[][2] = {
		{"txt", "report.txt"}, {"md", "report.md"}, {"sweep.csv", "report-sweep.csv"}};
	char *txt = NULL;
	for (size_t i = 0; i < 3; i++) {
		char *got = sb_report_render(rep, fmts[i][0], err, sizeof(err));
		if (!got) {
			fprintf(stderr, "    %s: %s\n", fmts[i][0], err);
			bad++;
			continue;
		}
		bad += golden(fmts[i][1], got) != 0;
		if (i == 0)
			txt = got;
		else
			free(got);
	}
	char *js = json_dumps(json_object_get(rep, "sweep"), JSON_INDENT(1) | JSON_SORT_KEYS);
	if (js) {
		size_t l = strlen(js);
		char *nl = malloc(l + 2);
		if (nl) {
			memcpy(nl, js, l);
			memcpy(nl + l, "\n", 2);
			bad += golden("sweep.json", nl) != 0;
		}
		free(nl);
	}
	/* the report before the section is unchanged, byte for byte */
	bool prefix = before && txt && !strncmp(txt, before, strlen(before)) &&
		      !strncmp(txt + strlen(before), "\nSaturation sweep over pods: 1, 2, 3\n", 37);
	free(js);
	free(txt);
	free(before);
	json_decref(rep);
	json_decref(all);
	CHECK(no_section);
	CHECK(prefix);
	CHECK_INT(bad, 0);
	return T_PASS;
}

/* The SVG panel: byte for byte against its golden, one series per class and workload with
 * a point per step, an error bar where the iterations varied; no panel without the section. */
static int test_svg_panel(void)
{
	json_t *all;
	const json_t *steps[3];
	char err[256] = "";
	if (load_steps(&all, steps))
		return T_FAIL;
	json_t *rep = json_deep_copy(steps[2]);
	unsigned before = 0, after = 0;
	int rb = rep ? sb_report_svg_panels(rep, &before, err, sizeof(err)) : -ENOMEM;
	json_t *sec = sb_sweep_section("pods", PODS, steps, 3);
	char *svg = NULL, *all_svg = NULL;
	int r = -ENOMEM;
	if (rep && sec && !json_object_set_new(rep, "sweep", sec)) {
		r = sb_report_svg(rep, SB_SVG_SWEEP, &svg, err, sizeof(err));
		(void)sb_report_svg_panels(rep, &after, err, sizeof(err));
		all_svg = sb_report_render(rep, "svg", err, sizeof(err));
	}
	json_decref(rep);
	json_decref(all);
	int g = svg ? golden("sweep.svg", svg) : -1;
	size_t series = 0, points = 0, bars = 0;
	for (const char *p = svg; p && (p = strstr(p, "<g class=\"series\"")); p++)
		series++;
	for (const char *p = svg; p && (p = strstr(p, "<g class=\"point\">")); p++)
		points++;
	for (const char *p = svg; p && (p = strstr(p, "class=\"errorbar\"")); p++)
		bars++;
	bool in_all = all_svg && strstr(all_svg, "data-panel=\"sweep\"");
	free(svg);
	free(all_svg);
	CHECK_INT(rb, 0);
	CHECK_INT(r, 0);
	CHECK_INT(g, 0);
	CHECK(!(before & SB_SVG_SWEEP) && (after & SB_SVG_SWEEP));
	CHECK_INT(series, 4); /* 2 workloads, in the IOPS chart and in the latency chart */
	CHECK_INT(points, 12);
	CHECK_INT(bars, 6); /* every step's iterations varied */
	CHECK(in_all);
	return T_PASS;
}

/* Malformed points are skipped, never trusted. */
static int test_malformed_points_skipped(void)
{
	json_t *rep = json_loads(
		"{\"sweep\":{\"parameter\":\"pods\",\"values\":[1,\"x\"],\"curve\":[{\"target\":"
		"\"f\",\"workload\":\"w\",\"value\":1,\"iterations\":3,\"iops\":{\"mean\":\"many\","
		"\"stddev\":1},\"bw\":{\"mean\":1,\"stddev\":0}},{\"target\":\"f\",\"workload\":"
		"\"w\",\"value\":2,\"iterations\":3,\"iops\":{\"mean\":2000,\"stddev\":10},\"bw\":"
		"{\"mean\":8192000,\"stddev\":0},\"lat-p50\":null,\"lat-p99\":\"x\"}]}}",
		0, NULL);
	CHECK(rep != NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(f != NULL);
	int r = sb_report_sweep_csv(f, rep);
	fclose(f);
	json_decref(rep);
	static char keep[1024];
	snprintf(keep, sizeof(keep), "%s", buf ? buf : "");
	free(buf);
	CHECK_INT(r, 0);
	CHECK(!strstr(keep, "many") && !strstr(keep, "f,w,pods,1,"));
	CHECK(strstr(keep, "f,w,pods,2,3,2000.000,10.000,8192000,0,,\n"));
	return T_PASS;
}

static const struct test_case cases[] = {
	{"report_sweep/the curve from the samples of each step", test_curve_values},
	{"report_sweep/a failed step has no points", test_failed_step},
	{"report_sweep/golden json, txt, md, csv; the report before it unchanged", test_golden},
	{"report_sweep/malformed points skipped", test_malformed_points_skipped},
	{"report_sweep/svg panel: golden, series, points, error bars", test_svg_panel},
};

TEST_MAIN(cases)
