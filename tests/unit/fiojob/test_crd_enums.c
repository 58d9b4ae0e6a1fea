/* SPDX-License-Identifier: MIT */
/*
 * The BenchmarkRun CRD's enums equal the tables of the fio job language
 * (lib/fiojob) that the runner and the controller's validation use:
 * spec.profile = the runner's profiles, workloads[].rw = what rw= accepts,
 * workloads[].ioengine = the engines ioengine= runs, objectWorkloads[]
 * .benchmark = the S3 benchmarks. Read from every copy of the CRD (the
 * chart's crds/, manifests/crd/, the rendered manifests/install.yaml), so
 * a value added on one side only fails here.
 */
#include "tests/unit/harness.h"
#include "fiojob/opts.h"
#include "fiojob/profiles.h"
#include "s3opts/opts.h"

#include <yaml.h>

#define CRD_NAME "benchmarkruns.storagebench.io"

static const char *const crd_files[] = {
	"charts/storagebench/crds/storagebench.io_benchmarkruns.yaml",
	"manifests/crd/storagebench.io_benchmarkruns.yaml",
	"manifests/install.yaml",
};

/* the value of key in mapping node n, NULL when n is not a mapping or has no key */
static yaml_node_t *map_get(yaml_document_t *doc, yaml_node_t *n, const char *key)
{
	if (!n || n->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		if (k && k->type == YAML_SCALAR_NODE && !strcmp((char *)k->data.scalar.value, key))
			return yaml_document_get_node(doc, p->value);
	}
	return NULL;
}

/* the node at a '/'-separated path of mapping keys ("0" indexes a sequence) */
static yaml_node_t *path_get(yaml_document_t *doc, yaml_node_t *n, const char *path)
{
	char buf[512], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, "/", &save); k && n; k = strtok_r(NULL, "/", &save)) {
		if (n->type == YAML_SEQUENCE_NODE && !strcmp(k, "0"))
			n = n->data.sequence.items.start < n->data.sequence.items.top
				    ? yaml_document_get_node(doc, n->data.sequence.items.start[0])
				    : NULL;
		else
			n = map_get(doc, n, k);
	}
	return n;
}

struct names {
	char v[64][64];
	size_t n;
};

static bool names_has(const struct names *s, const char *v)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], v))
			return true;
	return false;
}

static void names_add(struct names *s, const char *v)
{
	if (!names_has(s, v) && s->n < 64)
		snprintf(s->v[s->n++], sizeof(s->v[0]), "%s", v);
}

/* a equals b as sets; each difference printed with what */
static bool names_equal(const struct names *crd, const struct names *ours, const char *file,
			const char *what)
{
	bool ok = true;
	for (size_t i = 0; i < crd->n; i++)
		if (!names_has(ours, crd->v[i])) {
			fprintf(stderr,
				"    %s: %s: '%s' is in the CRD, not in the runner's table\n", file,
				what, crd->v[i]);
			ok = false;
		}
	for (size_t i = 0; i < ours->n; i++)
		if (!names_has(crd, ours->v[i])) {
			fprintf(stderr,
				"    %s: %s: '%s' is in the runner's table, not in the CRD\n", file,
				what, ours->v[i]);
			ok = false;
		}
	return ok;
}

/* the CRD's spec schema from file (a multi-document file: the BenchmarkRun CRD in it) */
struct crd {
	yaml_document_t doc;
	yaml_node_t *spec; /* .spec.versions[0].schema.openAPIV3Schema.properties.spec.properties */
	bool loaded;
};

static int crd_load(struct crd *c, const char *file)
{
	FILE *f = fopen(file, "r");
	yaml_parser_t parser;
	memset(c, 0, sizeof(*c));
	if (!f)
		return -1;
	if (!yaml_parser_initialize(&parser)) {
		fclose(f);
		return -1;
	}
	yaml_parser_set_input_file(&parser, f);
	for (;;) {
		if (!yaml_parser_load(&parser, &c->doc))
			break;
		yaml_node_t *root = yaml_document_get_root_node(&c->doc);
		if (!root) { /* the end of the stream */
			yaml_document_delete(&c->doc);
			break;
		}
		yaml_node_t *kind = map_get(&c->doc, root, "kind");
		yaml_node_t *name = path_get(&c->doc, root, "metadata/name");
		if (kind && name && kind->type == YAML_SCALAR_NODE &&
		    name->type == YAML_SCALAR_NODE &&
		    !strcmp((char *)kind->data.scalar.value, "CustomResourceDefinition") &&
		    !strcmp((char *)name->data.scalar.value, CRD_NAME)) {
			c->spec = path_get(&c->doc, root,
					   "spec/versions/0/schema/openAPIV3Schema/properties/"
					   "spec/properties");
			c->loaded = true;
			break;
		}
		yaml_document_delete(&c->doc);
	}
	yaml_parser_delete(&parser);
	fclose(f);
	return c->loaded && c->spec ? 0 : -1;
}

static void crd_release(struct crd *c)
{
	if (c->loaded)
		yaml_document_delete(&c->doc);
	c->loaded = false;
}

/* the enum at path under the spec's properties into out; false when there is none */
static bool crd_enum(struct crd *c, const char *path, struct names *out)
{
	char full[512];
	snprintf(full, sizeof(full), "%s/enum", path);
	yaml_node_t *e = path_get(&c->doc, c->spec, full);
	memset(out, 0, sizeof(*out));
	if (!e || e->type != YAML_SEQUENCE_NODE)
		return false;
	for (yaml_node_item_t *i = e->data.sequence.items.start; i < e->data.sequence.items.top;
	     i++) {
		yaml_node_t *v = yaml_document_get_node(&c->doc, *i);
		if (v && v->type == YAML_SCALAR_NODE)
			names_add(out, (char *)v->data.scalar.value);
	}
	return out->n > 0;
}

static void runner_profiles(struct names *out)
{
	const struct sb_profile *p;
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; (p = sb_profile_at(i)); i++)
		names_add(out, p->name);
}

static void runner_rw(struct names *out)
{
	const char *n;
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; (n = sb_rw_accepted(i)); i++)
		names_add(out, n);
}

static void runner_engines(struct names *out)
{
	const char *n, *refused;
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; (n = sb_engine_known(i, &refused)); i++)
		if (!refused)
			names_add(out, n);
}

static void runner_s3_benchmarks(struct names *out)
{
	memset(out, 0, sizeof(*out));
	for (int b = 0; b < SB_S3_B_NONE; b++)
		names_add(out, sb_s3_bench_name((enum sb_s3_bench)b));
}

static const struct {
	const char *what;
	const char *path;
	void (*ours)(struct names *out);
} checks[] = {
	{"spec.profile", "profile", runner_profiles},
	{"spec.workloads[].rw", "workloads/items/properties/rw", runner_rw},
	{"spec.workloads[].ioengine", "workloads/items/properties/ioengine", runner_engines},
	{"spec.objectWorkloads[].benchmark", "objectWorkloads/items/properties/benchmark",
	 runner_s3_benchmarks},
};

static struct crd crd; /* file-static: a failing case leaves it reachable */

static int check_file(const char *file)
{
	bool ok = true;
	if (crd_load(&crd, file)) {
		crd_release(&crd);
		fprintf(stderr, "    %s: no BenchmarkRun CRD with a spec schema\n", file);
		return T_FAIL;
	}
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		struct names theirs, ours;
		if (!crd_enum(&crd, checks[i].path, &theirs)) {
			fprintf(stderr, "    %s: %s has no enum\n", file, checks[i].what);
			ok = false;
			continue;
		}
		checks[i].ours(&ours);
		CHECK(ours.n > 0);
		if (!names_equal(&theirs, &ours, file, checks[i].what))
			ok = false;
	}
	crd_release(&crd);
	return ok ? T_PASS : T_FAIL;
}

static int test_chart_crd(void)
{
	return check_file(crd_files[0]);
}

static int test_manifests_crd(void)
{
	return check_file(crd_files[1]);
}

static int test_install_yaml(void)
{
	return check_file(crd_files[2]);
}

/* the comparison itself can fail: a value the runner does not know is found */
static int test_difference_found(void)
{
	struct names crd_side = {0}, ours;
	runner_rw(&ours);
	for (size_t i = 0; i < ours.n; i++)
		names_add(&crd_side, ours.v[i]);
	CHECK(names_equal(&crd_side, &ours, "self", "rw"));
	names_add(&crd_side, "randrw:8");
	fprintf(stderr, "    (a difference is expected on the next line)\n");
	CHECK(!names_equal(&crd_side, &ours, "self", "rw"));
	return T_PASS;
}

static const struct test_case cases[] = {
	{"crd_enums/chart_crd", test_chart_crd},
	{"crd_enums/manifests_crd", test_manifests_crd},
	{"crd_enums/install_yaml", test_install_yaml},
	{"crd_enums/difference_found", test_difference_found},
};

TEST_MAIN(cases)
