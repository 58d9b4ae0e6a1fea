/* SPDX-License-Identifier: MIT */
/*
 * SVG charts of fixture reports: byte-for-byte against the golden files in
 * tests/fixtures/svg/ (reviewed by eye as PNG; SB_UPDATE_GOLDEN=1 rewrites
 * them), well-formed XML (a small checker below; tests/reports/test_svg.py
 * parses the goldens with a real XML parser), the expected series, escaping,
 * panel selection, and malformed reports rejected with the field named.
 */
#include "tests/unit/harness.h"
#include "report/report.h"
#include "report/svg/svg.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>

#define REPORTS "tests/fixtures/reports/"
#define GOLDEN	"tests/fixtures/svg/"

static json_t *load(const char *name)
{
	char path[256];
	snprintf(path, sizeof(path), REPORTS "%s.json", name);
	json_t *j = json_load_file(path, 0, NULL);
	if (!j)
		fprintf(stderr, "    cannot load %s (run from the repository root)\n", path);
	return j;
}

static char *render(const char *name, unsigned panels)
{
	json_t *r = load(name);
	char *s = NULL, err[256] = "";
	if (r && sb_report_svg(r, panels, &s, err, sizeof(err)))
		fprintf(stderr, "    %s: %s\n", name, err);
	json_decref(r);
	return s;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* ---- A small XML well-formedness check: tags nest, attributes quoted, entities known ---- */

static bool entity_ok(const char *p, size_t *len)
{
	static const char *const named[] = {"&lt;", "&gt;", "&amp;", "&quot;", "&apos;"};
	for (size_t i = 0; i < 5; i++)
		if (!strncmp(p, named[i], strlen(named[i]))) {
			*len = strlen(named[i]);
			return true;
		}
	if (p[1] == '#') {
		size_t k = 2;
		while (isdigit((unsigned char)p[k]))
			k++;
		if (k > 2 && p[k] == ';') {
			*len = k + 1;
			return true;
		}
	}
	return false;
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_' || c == ':' || c == '.';
}

/* Returns NULL when well-formed, else a static description of the first problem. */
static const char *xml_check(const char *s)
{
	const char *stack[64];
	size_t slen[64], depth = 0, roots = 0;
	const char *p = s;

	if (!strncmp(p, "<?xml", 5)) {
		p = strstr(p, "?>");
		if (!p)
			return "unterminated declaration";
		p += 2;
	}
	while (*p) {
		if (*p == '&') {
			size_t l;
			if (!entity_ok(p, &l))
				return "bare & in text";
			p += l;
			continue;
		}
		if ((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t' && *p != '\r')
			return "control character";
		if (*p != '<') {
			if (depth == 0 && !isspace((unsigned char)*p))
				return "text outside the root";
			p++;
			continue;
		}
		p++;
		bool close = *p == '/';
		if (close)
			p++;
		const char *name = p;
		while (name_char(*p))
			p++;
		size_t nl = (size_t)(p - name);
		if (nl == 0)
			return "empty tag name";
		if (close) {
			if (depth == 0 || slen[depth - 1] != nl ||
			    strncmp(stack[depth - 1], name, nl))
				return "mismatched end tag";
			depth--;
			while (isspace((unsigned char)*p))
				p++;
			if (*p++ != '>')
				return "bad end tag";
			continue;
		}
		/* attributes */
		for (;;) {
			while (isspace((unsigned char)*p))
				p++;
			if (*p == '>' || (*p == '/' && p[1] == '>'))
				break;
			const char *an = p;
			while (name_char(*p))
				p++;
			if (p == an || *p++ != '=' || *p++ != '"')
				return "bad attribute";
			while (*p && *p != '"') {
				size_t l;
				if (*p == '<')
					return "< in attribute";
				if (*p == '&') {
					if (!entity_ok(p, &l))
						return "bare & in attribute";
					p += l;
					continue;
				}
				p++;
			}
			if (*p++ != '"')
				return "unterminated attribute";
		}
		if (depth == 0)
			roots++;
		if (*p == '/') {
			p += 2;
			continue;
		}
		p++;
		if (depth == 64)
			return "too deep";
		stack[depth] = name;
		slen[depth++] = nl;
	}
	if (depth)
		return "unclosed element";
	if (roots != 1)
		return "not exactly one root element";
	return NULL;
}

static int test_xml_checker(void)
{
	/* the checker itself catches what it should */
	CHECK(xml_check("<a><b x=\"1\"/>t &amp; u</a>") == NULL);
	CHECK(xml_check("<a><b></a></b>") != NULL);
	CHECK(xml_check("<a x=1/>") != NULL);
	CHECK(xml_check("<a>x & y</a>") != NULL);
	CHECK(xml_check("<a x=\"<\"/>") != NULL);
	CHECK(xml_check("<a/><b/>") != NULL);
	CHECK(xml_check("<a>") != NULL);
	return T_PASS;
}

/* ---- Golden files ---- */

static const struct {
	const char *report;
	unsigned panels;
	const char *golden;
} goldens[] = {
	{"storage-cluster-1", SB_SVG_ALL, "storage-cluster-1"},
	{"storage-cluster-2", SB_SVG_ALL, "storage-cluster-2"},
	{"storage-cluster-3", SB_SVG_ALL, "storage-cluster-3"},
	{"storage-cluster-3", SB_SVG_FSYNC, "storage-cluster-3.fsync"},
	{"quick-1", SB_SVG_ALL, "quick-1"},
	{"quick-2", SB_SVG_ALL, "quick-2"},
	{"quick-3", SB_SVG_ALL, "quick-3"},
	{"quick-3", SB_SVG_LATENCY, "quick-3.latency"},
	{"edge-one-iteration", SB_SVG_ALL, "edge-one-iteration"},
	{"edge-missing", SB_SVG_ALL, "edge-missing"},
	{"edge-escape", SB_SVG_ALL, "edge-escape"},
	{"lifecycle-2", SB_SVG_ALL, "lifecycle-2"},
	{"lifecycle-2", SB_SVG_LIFECYCLE, "lifecycle-2.lifecycle"},
};

static int test_golden(void)
{
	bool update = getenv("SB_UPDATE_GOLDEN") != NULL;
	for (size_t i = 0; i < sizeof(goldens) / sizeof(goldens[0]); i++) {
		char path[256];
		char *got = render(goldens[i].report, goldens[i].panels);
		CHECK(got);
		snprintf(path, sizeof(path), GOLDEN "%s.svg", goldens[i].golden);
		if (update) {
			FILE *f = fopen(path, "w");
			CHECK(f);
			CHECK(fputs(got, f) >= 0);
			CHECK(fclose(f) == 0);
		}
		char *want = t_slurp(path);
		if (!want || strcmp(got, want)) {
			fprintf(stderr,
				"    %s differs from the rendering of %s (look at both as PNG; "
				"SB_UPDATE_GOLDEN=1 rewrites it)\n",
				path, goldens[i].report);
			free(got);
			free(want);
			return T_FAIL;
		}
		free(want);
		free(got);
	}
	return T_PASS;
}

static int test_well_formed(void)
{
	for (size_t i = 0; i < sizeof(goldens) / sizeof(goldens[0]); i++) {
		char *s = render(goldens[i].report, goldens[i].panels);
		CHECK(s);
		const char *why = xml_check(s);
		if (why) {
			fprintf(stderr, "    %s: %s\n", goldens[i].golden, why);
			free(s);
			return T_FAIL;
		}
		CHECK(!strncmp(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44));
		free(s);
	}
	return T_PASS;
}

/* ---- What the charts contain ---- */

static int test_storage_cluster_series(void)
{
	char *s = render("storage-cluster-3", SB_SVG_ALL);
	CHECK(s);
	/* IOPS bars, bandwidth bars, two fsync charts: four series per target */
	static const char *const targets[] = {"fast", "disk", "bulk"};
	for (int t = 0; t < 3; t++) {
		char needle[64];
		snprintf(needle, sizeof(needle), "<g class=\"series\" data-target=\"%s\"",
			 targets[t]);
		CHECK_INT(count(s, needle), 4);
	}
	CHECK_INT(count(s, "data-panel=\"iops\""), 1);
	CHECK_INT(count(s, "data-panel=\"bandwidth\""), 1);
	CHECK_INT(count(s, "data-panel=\"fsync\""), 1);
	CHECK_INT(count(s, "data-panel=\"latency\""), 0); /* no latency workloads */
	/* 5 IOPS + 5 bandwidth workloads x 3 targets, each with 3 iterations */
	CHECK_INT(count(s, "<rect class=\"bar\""), 30);
	CHECK_INT(count(s, "class=\"errorbar\""), 30);
	/* two families (write-iops, write-bw) x 3 targets: a band and a line each */
	CHECK_INT(count(s, "class=\"band\""), 6);
	CHECK_INT(count(s, "class=\"line\""), 6);
	CHECK_INT(count(s, "data-family=\"write-iops\" data-metric=\"write-iops\""), 1);
	CHECK_INT(count(s, "data-family=\"write-bw\" data-metric=\"write-bw\""), 1);
	/* bulk is 1000 times slower: the line charts are logarithmic */
	CHECK_INT(count(s, "data-scale=\"log\""), 2);
	/* x axis in fsync order, "no fsync" last */
	const char *f1 = strstr(s, ">fsync=1<"), *f32 = strstr(s, ">fsync=32<");
	const char *f128 = strstr(s, ">fsync=128<"), *none = strstr(s, ">no fsync<");
	CHECK(f1 && f32 && f128 && none && f1 < f32 && f32 < f128 && f128 < none);
	/* axes with units and SI prefixes */
	CHECK(strstr(s, ">200k</text>"));
	CHECK(strstr(s, ">bandwidth (GiB/s)</text>"));
	CHECK(strstr(s, ">100 MiB/s</text>"));
	/* a bar label: mean ± stddev */
	CHECK(strstr(s, ">703k \xc2\xb1 28k</text>"));
	free(s);

	/* one class: linear line charts */
	s = render("storage-cluster-1", SB_SVG_ALL);
	CHECK(s);
	CHECK_INT(count(s, "data-scale=\"linear\""), 2);
	CHECK_INT(count(s, "<g class=\"series\" data-target=\"disk\""), 4);
	free(s);
	return T_PASS;
}

static int test_quick_latency(void)
{
	char *s = render("quick-3", SB_SVG_ALL);
	CHECK(s);
	CHECK_INT(count(s, "data-panel=\"latency\""), 1);
	CHECK_INT(count(s, "data-panel=\"fsync\""), 0);
	/* two latency workloads x 3 targets, three percentiles each */
	CHECK_INT(count(s, "<g class=\"percentiles\">"), 6);
	CHECK_INT(count(s, "<text x=\""), count(s, "</text>"));
	CHECK(strstr(s, " \xc2\xb5s</text>")); /* microseconds */
	CHECK(strstr(s, ">1 ms</text>"));
	/* the latency workloads are not in the IOPS bars */
	const char *lat = strstr(s, "data-panel=\"latency\"");
	const char *first = strstr(s, ">latency-read<");
	CHECK(lat && first && first > lat);
	free(s);
	return T_PASS;
}

/* The text between the start of needle's element in s and its end tag. */
static bool has_text(const char *s, const char *attrs, const char *text)
{
	char needle[512];
	snprintf(needle, sizeof(needle), "%s>%s</text>", attrs, text);
	return strstr(s, needle) != NULL;
}

static int test_lifecycle(void)
{
	char *s = render("lifecycle-2", SB_SVG_LIFECYCLE);
	CHECK(s);
	CHECK(xml_check(s) == NULL);
	CHECK_INT(count(s, "data-panel=\"lifecycle\""), 1);
	CHECK_INT(count(s, "class=\"panel\""), 1);
	CHECK(strstr(s, ">Volume lifecycle</text>"));
	/* a series per class, in the report's order, with the targets' colours */
	const char *fast = strstr(s, "<g class=\"series\" data-target=\"fast\" fill=\"#0072B2\">");
	const char *disk = strstr(s, "<g class=\"series\" data-target=\"disk\" fill=\"#E69F00\">");
	CHECK(fast && disk && fast < disk);
	CHECK_INT(count(s, "<g class=\"series\""), 2);
	/* the phases in order: provision, attach, resize, delete, then snapshot */
	const char *ph[] = {">provision</text>", ">attach</text>", ">resize</text>",
			    ">delete</text>", ">snapshot</text>"};
	const char *prev = s;
	for (size_t i = 0; i < 5; i++) {
		const char *p = strstr(s, ph[i]);
		CHECK(p && p > prev);
		prev = p;
	}
	CHECK(!strstr(s, ">error</text>"));
	/* seven measured phases: a bar, whiskers (n > 1) and a p95 tick each */
	CHECK_INT(count(s, "<rect class=\"bar\""), 7);
	CHECK_INT(count(s, "class=\"errorbar\""), 7);
	CHECK_INT(count(s, "<path class=\"p95\""), 7);
	/* the values: mean ± stddev and p95, computed by hand from the samples */
	static const char *const vals[] = {
		"338 \xc2\xb1 85 ms, p95 560 ms",   /* fast provision */
		"1.28 \xc2\xb1 0.14 s, p95 1.62 s", /* fast attach */
		"99.8 \xc2\xb1 16 ms, p95 140 ms",  /* fast resize */
		"429 \xc2\xb1 73 ms, p95 620 ms",   /* fast delete */
		"891 \xc2\xb1 226 ms, p95 1.45 s",  /* disk provision */
		"1.49 \xc2\xb1 0.16 s, p95 1.88 s", /* disk attach */
		"548 \xc2\xb1 87 ms, p95 760 ms",   /* disk delete */
	};
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		if (!has_text(s, "class=\"value\" fill=\"#222\"", vals[i])) {
			fprintf(stderr, "    no value \"%s\"\n", vals[i]);
			free(s);
			return T_FAIL;
		}
	}
	CHECK(strstr(s, "<title>fast, provision: 338 \xc2\xb1 85 ms, p95 560 ms (n=9)</title>"));
	CHECK(strstr(s, "<title>disk, delete: 548 \xc2\xb1 87 ms, p95 760 ms (n=8)</title>"));
	/* skipped phases say why; the failed iteration is listed */
	CHECK(strstr(s, ">skipped: storage class disk does not allow volume expansion</text>"));
	CHECK_INT(count(s, ">skipped: no snapshot.storage.k8s.io API on the cluster</text>"), 2);
	CHECK_INT(count(s, "class=\"failure\""), 1);
	CHECK(strstr(s, ">disk: iteration 2 failed: attach: pod lc-disk-2-0 not running after "
			"120s (ImagePullBackOff)</text>"));
	/* the mean bar ends left of its p95 tick: fast provision, 337.7 and 560 ms */
	const char *bar = strstr(fast, "<rect class=\"bar\" x=\"");
	const char *tick = strstr(fast, "<path class=\"p95\" d=\"M");
	CHECK(bar && tick);
	double bx, bw, tx;
	CHECK(sscanf(bar, "<rect class=\"bar\" x=\"%lf\" y=\"%*f\" width=\"%lf\"", &bx, &bw) == 2);
	CHECK(sscanf(tick, "<path class=\"p95\" d=\"M%lf", &tx) == 1);
	CHECK(bw > 0 && tx > bx + bw);
	CHECK(fabs((tx - bx) / bw - 560.0 / 337.6667) < 0.01);
	free(s);

	/* in the whole document, after the I/O panels */
	s = render("lifecycle-2", SB_SVG_ALL);
	CHECK(s);
	const char *lat = strstr(s, "data-panel=\"latency\""),
		   *lc = strstr(s, "data-panel=\"lifecycle\"");
	CHECK(lat && lc && lat < lc);
	free(s);

	/* many failed iterations: six listed, then how many more */
	json_t *r = load("lifecycle-2"), *q = load("quick-2");
	CHECK(r && q);
	for (int i = 3; i < 11; i++)
		CHECK_INT(json_array_append_new(json_object_get(r, "lifecycle"),
						json_pack("{s:s,s:s,s:i,s:s}", "target", "fast",
							  "phase", "error", "iteration", i,
							  "message", "timed out")),
			  0);
	char err[256] = "", *a = NULL, *b = NULL;
	CHECK_INT(sb_report_svg(r, SB_SVG_LIFECYCLE, &a, err, sizeof(err)), 0);
	CHECK_INT(count(a, "class=\"failure\""), 7);
	CHECK(strstr(a, ">fast: iteration 7 failed: timed out</text>"));
	CHECK(!strstr(a, ">fast: iteration 8 failed"));
	CHECK(strstr(a, ">and 3 more failed iterations (see the text report)</text>"));
	CHECK(xml_check(a) == NULL);
	free(a);
	json_decref(r);

	/* without the section, or with an empty one, the document is as before */
	r = load("lifecycle-2");
	unsigned mask = 0;
	CHECK(r);
	CHECK_INT(sb_report_svg_panels(r, &mask, err, sizeof(err)), 0);
	CHECK_INT(mask, SB_SVG_IOPS | SB_SVG_BW | SB_SVG_LATENCY | SB_SVG_LIFECYCLE);
	CHECK_STR(sb_report_svg_panel_name(SB_SVG_LIFECYCLE), "lifecycle");
	CHECK_INT(json_object_del(r, "lifecycle"), 0);
	CHECK_INT(json_object_set_new(r, "name", json_string("quick")), 0);
	CHECK_INT(sb_report_svg(r, SB_SVG_ALL, &a, err, sizeof(err)), 0);
	CHECK_INT(sb_report_svg(q, SB_SVG_ALL, &b, err, sizeof(err)), 0);
	CHECK_STR(a, b);
	CHECK(!strstr(a, "lifecycle"));
	free(a);
	CHECK_INT(sb_report_svg(r, SB_SVG_LIFECYCLE, &a, err, sizeof(err)), -ENODATA);
	CHECK_INT(json_object_set_new(r, "lifecycle", json_array()), 0);
	CHECK_INT(sb_report_svg(r, SB_SVG_ALL, &a, err, sizeof(err)), 0);
	CHECK_STR(a, b);
	free(a);
	/* only reasons, nothing measured: no panel either */
	CHECK_INT(json_array_append_new(json_object_get(r, "lifecycle"),
					json_pack("{s:s,s:s,s:s}", "target", "fast", "phase",
						  "resize", "skipped", "no expansion")),
		  0);
	CHECK_INT(sb_report_svg(r, SB_SVG_ALL, &a, err, sizeof(err)), 0);
	CHECK_STR(a, b);
	free(a);
	CHECK_INT(sb_report_svg_panels(r, &mask, err, sizeof(err)), 0);
	CHECK_INT(mask, SB_SVG_IOPS | SB_SVG_BW | SB_SVG_LATENCY);
	free(b);
	json_decref(r);
	json_decref(q);
	return T_PASS;
}

static int test_panels(void)
{
	char err[256];
	unsigned mask = 0;
	json_t *sc = load("storage-cluster-2"), *q = load("quick-2");
	CHECK(sc && q);
	CHECK_INT(sb_report_svg_panels(sc, &mask, err, sizeof(err)), 0);
	CHECK_INT(mask, SB_SVG_IOPS | SB_SVG_BW | SB_SVG_FSYNC);
	CHECK_INT(sb_report_svg_panels(q, &mask, err, sizeof(err)), 0);
	CHECK_INT(mask, SB_SVG_IOPS | SB_SVG_BW | SB_SVG_LATENCY);
	CHECK_STR(sb_report_svg_panel_name(SB_SVG_BW), "bandwidth");
	CHECK_STR(sb_report_svg_panel_name(SB_SVG_LATENCY), "latency");
	CHECK(sb_report_svg_panel_name(SB_SVG_ALL) == NULL);

	/* one panel alone */
	char *s = NULL;
	CHECK_INT(sb_report_svg(sc, SB_SVG_BW, &s, err, sizeof(err)), 0);
	CHECK(strstr(s, "data-panel=\"bandwidth\"") && !strstr(s, "data-panel=\"iops\""));
	CHECK(xml_check(s) == NULL);
	free(s);
	/* a panel without data */
	s = (char *)1;
	CHECK_INT(sb_report_svg(q, SB_SVG_FSYNC, &s, err, sizeof(err)), -ENODATA);
	CHECK(s == NULL);
	CHECK_STR(err, "report has no results for the requested charts");
	CHECK_INT(sb_report_svg(q, 0, &s, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "panels: 0x0 is not a set of SB_SVG_* bits");
	CHECK_INT(sb_report_svg(q, 1u << 9, &s, err, sizeof(err)), -EINVAL);

	/* sb_report_render(.., "svg") is the whole document */
	char *a = sb_report_render(q, "svg", err, sizeof(err)), *b = NULL;
	CHECK(a);
	CHECK_INT(sb_report_svg(q, SB_SVG_ALL, &b, err, sizeof(err)), 0);
	CHECK_STR(a, b);
	free(a);
	free(b);
	json_decref(sc);
	json_decref(q);
	return T_PASS;
}

static int test_escaping(void)
{
	char *s = render("edge-escape", SB_SVG_ALL);
	CHECK(s);
	CHECK(xml_check(s) == NULL);
	CHECK(strstr(s, "data-target=\"&lt;script&gt;&amp;amp;\""));
	CHECK(strstr(s, "data-target=\"a&quot;b&apos;c\""));
	CHECK(strstr(s, "data-target=\"gr\xc3\xbc\xc3\x9f"
			"e-\xe6\x97\xa5\xe6\x9c\xac\""));
	CHECK(!strstr(s, "<script"));
	CHECK(strstr(s, ">r&amp;w &lt;1&gt; (read)</text>"));
	/* the long workload name is cut with an ellipsis, the full one is in the tooltip */
	CHECK(strstr(s, "\xe2\x80\xa6 (write)</text>"));
	CHECK(strstr(
		s,
		"a-workload-with-a-very-long-name-that-does-not-fit-in-the-label-column-at-all"));
	free(s);

	/* bytes that are not UTF-8, or not allowed in XML, become '?' */
	json_t *r = json_pack("{s:[{s:o,s:s,s:[s],s:{s:{s:f}}}]}", "results", "target",
			      json_stringn_nocheck("bad\xff\x01name\xef\xbf\xbe", 12), "workload",
			      "w", "headline", "read-iops", "metrics", "read-iops", "mean", 5.0);
	char err[64];
	CHECK(r);
	CHECK_INT(sb_report_svg(r, SB_SVG_ALL, &s, err, sizeof(err)), 0);
	CHECK(xml_check(s) == NULL);
	CHECK(strstr(s, "data-target=\"bad??name???\""));
	free(s);
	json_decref(r);
	return T_PASS;
}

static int test_edge_reports(void)
{
	/* one iteration: bars without error bars, a two-point fsync line without band height */
	char *s = render("edge-one-iteration", SB_SVG_ALL);
	CHECK(s);
	CHECK_INT(count(s, "class=\"errorbar\""), 0);
	CHECK_INT(count(s, "<rect class=\"bar\""), 2);
	CHECK_INT(count(s, "class=\"line\""), 1);
	CHECK(strstr(s, ">20.9k</text>"));
	CHECK(strstr(s, "over 1 iteration (no standard deviation)<"));
	free(s);

	/* missing results and metrics: "no data", percentiles from the metrics */
	s = render("edge-missing", SB_SVG_ALL);
	CHECK(s);
	CHECK_INT(count(s, "class=\"missing\""), 2); /* b/write-bw, a/latency-write */
	CHECK_INT(count(s, "<g class=\"percentiles\">"), 1);
	CHECK(strstr(s, ">250 \xc2\xb5s</text>"));
	/* a/write-bw has no stddev: a bar without error bar or "±" */
	CHECK(strstr(s, ">1 MiB/s</text>"));
	/* b has one fsync point only: a marker, no line */
	CHECK_INT(count(s, "class=\"line\""), 1);
	free(s);

	/* nothing to chart */
	json_t *e = json_loads("{\"results\": []}", 0, NULL);
	char err[64];
	CHECK_INT(sb_report_svg(e, SB_SVG_ALL, &s, err, sizeof(err)), 0);
	CHECK(strstr(s, ">No results to chart.</text>"));
	CHECK(xml_check(s) == NULL);
	free(s);
	CHECK_INT(sb_report_svg(e, SB_SVG_IOPS, &s, err, sizeof(err)), -ENODATA);
	json_decref(e);
	return T_PASS;
}

static int test_malformed(void)
{
	static const struct {
		const char *doc, *want;
	} cases[] = {
		{"[]", "report: not an object"},
		{"{}", "results: missing or not an array"},
		{"{\"results\": {}}", "results: missing or not an array"},
		{"{\"results\": [3]}", "results[0]: not an object"},
		{"{\"results\": [{\"workload\": \"w\", \"metrics\": {}}]}",
		 "results[0].target: missing or not a string"},
		{"{\"results\": [{\"target\": \"t\", \"metrics\": {}}]}",
		 "results[0].workload: missing or not a string"},
		{"{\"results\": [{\"target\": \"t\", \"workload\": \"w\"}]}",
		 "results[0].metrics: missing or not an object"},
		{"{\"results\": [{\"target\": \"t\", \"workload\": \"w\", \"metrics\": "
		 "{\"read-iops\": {\"mean\": \"many\"}}}]}",
		 "results[0].metrics.read-iops.mean: not a non-negative number"},
		{"{\"results\": [{\"target\": \"t\", \"workload\": \"w\", \"metrics\": "
		 "{\"read-iops\": {\"stddev\": 1}}}]}",
		 "results[0].metrics.read-iops.mean: missing"},
		{"{\"results\": [{\"target\": \"t\", \"workload\": \"w\", \"metrics\": "
		 "{\"read-iops\": {\"mean\": 1, \"stddev\": -2}}}]}",
		 "results[0].metrics.read-iops.stddev: not a non-negative number"},
		{"{\"results\": [{\"target\": \"t\", \"workload\": \"w\", \"metrics\": "
		 "{\"read-iops\": {\"mean\": 1, \"n\": 1.5}}}]}",
		 "results[0].metrics.read-iops.n: not a non-negative integer"},
		{"{\"results\": [{\"target\": \"t\", \"workload\": \"w\", \"metrics\": "
		 "{\"read-iops\": 7}}]}",
		 "results[0].metrics.read-iops: not an object"},
		{"{\"results\": [{\"target\": \"t\", \"workload\": \"w\", \"metrics\": {}, "
		 "\"merged\": {\"read\": {\"p99\": \"x\"}}}]}",
		 "results[0].merged.read.p99: not a non-negative number"},
		{"{\"results\": [{\"target\": \"t\", \"workload\": \"w\", \"metrics\": {}, "
		 "\"headline\": \"read-iops\"}]}",
		 "results[0].headline: not an array"},
		{"{\"results\": [{\"target\": \"t\", \"workload\": \"w\", \"metrics\": {}, "
		 "\"fsync\": -1}]}",
		 "results[0].fsync: not a non-negative integer"},
		{"{\"targets\": [\"a\", 2], \"results\": []}", "targets[1]: not a string"},
		{"{\"workloads\": 1, \"results\": []}", "workloads: not an array"},
		{"{\"name\": 1, \"results\": []}", "name: not a string"},
		{"{\"results\": [{\"target\": \"t\", \"workload\": \"w\", \"metrics\": {}},"
		 "{\"target\": \"t\", \"workload\": \"w\", \"metrics\": {}}]}",
		 "results[1]: a second result for target 't' workload 'w'"},
		{"{\"results\": [], \"lifecycle\": {}}", "lifecycle: not an array"},
		{"{\"results\": [], \"lifecycle\": [1]}", "lifecycle[0]: not an object"},
		{"{\"results\": [], \"lifecycle\": [{\"phase\": \"attach\", \"mean\": 1}]}",
		 "lifecycle[0].target: missing or not a string"},
		{"{\"results\": [], \"lifecycle\": [{\"target\": \"t\", \"mean\": 1}]}",
		 "lifecycle[0].phase: missing or not a string"},
		{"{\"results\": [], \"lifecycle\": [{\"target\": \"t\", \"phase\": \"attach\"}]}",
		 "lifecycle[0].mean: missing"},
		{"{\"results\": [], \"lifecycle\": [{\"target\": \"t\", \"phase\": \"attach\", "
		 "\"mean\": 1, \"p95\": -1}]}",
		 "lifecycle[0].p95: not a non-negative number"},
		{"{\"results\": [], \"lifecycle\": [{\"target\": \"t\", \"phase\": \"attach\", "
		 "\"mean\": 1, \"stddev\": \"x\"}]}",
		 "lifecycle[0].stddev: not a non-negative number"},
		{"{\"results\": [], \"lifecycle\": [{\"target\": \"t\", \"phase\": \"attach\", "
		 "\"mean\": 1, \"n\": 2.5}]}",
		 "lifecycle[0].n: not a non-negative integer"},
		{"{\"results\": [], \"lifecycle\": [{\"target\": \"t\", \"phase\": \"resize\", "
		 "\"skipped\": 3}]}",
		 "lifecycle[0].skipped: not a string"},
		{"{\"results\": [], \"lifecycle\": [{\"target\": \"t\", \"phase\": \"error\", "
		 "\"iteration\": -1, \"message\": \"m\"}]}",
		 "lifecycle[0].iteration: not a non-negative integer"},
		{"{\"results\": [], \"lifecycle\": [{\"target\": \"t\", \"phase\": \"error\", "
		 "\"message\": []}]}",
		 "lifecycle[0].message: not a string"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *r = json_loads(cases[i].doc, 0, NULL);
		char *s = (char *)1, err[256] = "";
		CHECK(r);
		int ret = sb_report_svg(r, SB_SVG_ALL, &s, err, sizeof(err));
		if (ret != -EINVAL || s != NULL || strcmp(err, cases[i].want)) {
			fprintf(stderr, "    case %zu: %d \"%s\", expected \"%s\"\n", i, ret, err,
				cases[i].want);
			return T_FAIL;
		}
		unsigned mask = 7;
		CHECK_INT(sb_report_svg_panels(r, &mask, err, sizeof(err)), -EINVAL);
		CHECK_INT(mask, 0);
		CHECK(sb_report_svg_render(r, err, sizeof(err)) == NULL);
		json_decref(r);
	}
	return T_PASS;
}

/* Replaces v by each wrong type and renders: an error naming a field, or good XML. */
static int mutate(json_t *doc, json_t *parent, const char *key, size_t *tried, size_t *rejected)
{
	json_t *bad[5] = {json_null(), json_string("x"), json_integer(-1), json_array(),
			  json_object()};
	json_t *keep = json_incref(json_object_get(parent, key));
	int ret = T_PASS;
	for (int k = 0; k < 5 && ret == T_PASS; k++) {
		char *s = NULL, err[256] = "";
		json_object_set(parent, key, bad[k]);
		int r = sb_report_svg(doc, SB_SVG_ALL, &s, err, sizeof(err));
		(*tried)++;
		if (r) {
			(*rejected)++;
			if (r != -EINVAL || !err[0]) {
				fprintf(stderr, "    %s as %d: %d \"%s\"\n", key, k, r, err);
				ret = T_FAIL;
			}
		} else if (xml_check(s)) {
			fprintf(stderr, "    %s as %d: %s\n", key, k, xml_check(s));
			ret = T_FAIL;
		}
		free(s);
	}
	json_object_set_new(parent, key, keep);
	for (int k = 0; k < 5; k++)
		json_decref(bad[k]);
	return ret;
}

static int test_mutations(void)
{
	static const char *const names[] = {"storage-cluster-2", "quick-2", "edge-missing",
					    "lifecycle-2"};
	size_t tried = 0, rejected = 0;
	for (size_t n = 0; n < 4; n++) {
		json_t *doc = load(names[n]);
		CHECK(doc);
		const char *key;
		json_t *v;
		json_object_foreach(doc, key, v)
		{
			CHECK(mutate(doc, doc, key, &tried, &rejected) == T_PASS);
		}
		json_t *results = json_object_get(doc, "results");
		for (size_t i = 0; i < json_array_size(results); i += 2) {
			json_t *r = json_array_get(results, i);
			json_object_foreach(r, key, v)
			{
				CHECK(mutate(doc, r, key, &tried, &rejected) == T_PASS);
			}
			json_t *ms = json_object_get(r, "metrics"),
			       *merged = json_object_get(r, "merged");
			json_object_foreach(ms, key, v)
			{
				const char *fk;
				json_t *fv;
				CHECK(mutate(doc, ms, key, &tried, &rejected) == T_PASS);
				json_object_foreach(v, fk, fv)
				{
					CHECK(mutate(doc, v, fk, &tried, &rejected) == T_PASS);
				}
			}
			json_object_foreach(merged, key, v)
			{
				const char *fk;
				json_t *fv;
				json_object_foreach(v, fk, fv)
				{
					CHECK(mutate(doc, v, fk, &tried, &rejected) == T_PASS);
				}
			}
		}
		size_t i;
		json_t *e;
		json_array_foreach(json_object_get(doc, "lifecycle"), i, e)
		{
			json_object_foreach(e, key, v)
			{
				CHECK(mutate(doc, e, key, &tried, &rejected) == T_PASS);
			}
		}
		json_decref(doc);
	}
	CHECK(tried > 500);
	CHECK(rejected > 100);
	CHECK(rejected < tried);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"report_svg/xml-checker", test_xml_checker},
	{"report_svg/golden", test_golden},
	{"report_svg/well-formed", test_well_formed},
	{"report_svg/storage-cluster-series", test_storage_cluster_series},
	{"report_svg/quick-latency", test_quick_latency},
	{"report_svg/lifecycle", test_lifecycle},
	{"report_svg/panels", test_panels},
	{"report_svg/escaping", test_escaping},
	{"report_svg/edge-reports", test_edge_reports},
	{"report_svg/malformed", test_malformed},
	{"report_svg/mutations", test_mutations},
};

TEST_MAIN(cases)
