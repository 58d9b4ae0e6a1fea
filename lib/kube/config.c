/* SPDX-License-Identifier: MIT */
/* Configuration: kubeconfig files (libyaml document API), in-cluster, and the
 * client-go loading order. */
#include "kube/config.h"
#include "kube/error_internal.h"
#include "kube/util.h"
#include "core/log.h"

#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

/* --------------------------------------------------- an exec plugin's config */

void kube_exec_config_free(struct kube_exec_config *x)
{
	if (!x)
		return;
	free(x->command);
	for (size_t i = 0; i < x->nargs; i++)
		free(x->args[i]);
	free(x->args);
	for (size_t i = 0; i < x->nenv; i++)
		free(x->env[i]);
	free(x->env);
	free(x->api_version);
	free(x->install_hint);
	free(x);
}

static char **strv_dup(char *const *v, size_t n)
{
	char **out = calloc(n + 1, sizeof(*out));
	for (size_t i = 0; out && i < n; i++) {
		out[i] = strdup(v[i]);
		if (!out[i]) {
			while (i--)
				free(out[i]);
			free(out);
			return NULL;
		}
	}
	return out;
}

struct kube_exec_config *kube_exec_config_dup(const struct kube_exec_config *x)
{
	struct kube_exec_config *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->nargs = x->nargs;
	d->nenv = x->nenv;
	d->provide_cluster_info = x->provide_cluster_info;
	d->command = strdup(x->command);
	d->args = strv_dup(x->args, x->nargs);
	d->env = strv_dup(x->env, x->nenv);
	d->api_version = strdup(x->api_version);
	d->install_hint = x->install_hint ? strdup(x->install_hint) : NULL;
	if (!d->command || !d->args || !d->env || !d->api_version ||
	    (x->install_hint && !d->install_hint)) {
		if (!d->args)
			d->nargs = 0;
		if (!d->env)
			d->nenv = 0;
		kube_exec_config_free(d);
		return NULL;
	}
	return d;
}

#define SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

void kube_config_init(struct kube_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
}

static void free_secret_buf(char *p, size_t len)
{
	if (!p)
		return;
	explicit_bzero(p, len);
	free(p);
}

void kube_config_release(struct kube_config *cfg)
{
	free(cfg->server);
	free(cfg->ca_pem);
	free(cfg->cert_pem);
	free_secret_buf(cfg->key_pem, cfg->key_pem_len);
	kube_free_secret(cfg->token);
	free(cfg->token_file);
	kube_exec_config_free(cfg->exec);
	free(cfg->namespace);
	free(cfg->source);
	kube_config_init(cfg);
}

/* ------------------------------------------------------------ kubeconfig */

struct kc {
	yaml_document_t doc;
	const char *file;
	char dir[PATH_MAX]; /* directory of file, for relative names */
	struct kube_error *err;
};

/* Reports "kubeconfig '<file>': <field>: <what>" and returns ret. */
__attribute__((format(printf, 4, 5))) static int kc_fail(struct kc *k, int ret, const char *field,
							 const char *fmt, ...)
{
	char what[384];
	if (!k->err)
		return ret;
	{
		va_list ap;
		va_start(ap, fmt);
		/* The analyzer loses va_start when it inlines this static variadic
		 * function into its callers (clang 14): a false positive. */
		// NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
		vsnprintf(what, sizeof(what), fmt, ap);
		va_end(ap);
	}
	if (field && *field)
		return kube_errorf(k->err, ret, "kubeconfig '%s': %s: %s", k->file, field, what);
	return kube_errorf(k->err, ret, "kubeconfig '%s': %s", k->file, what);
}

static yaml_node_t *node(struct kc *k, int id)
{
	return yaml_document_get_node(&k->doc, id);
}

static bool is_null_scalar(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *v = (const char *)n->data.scalar.value;
	return !*v || strcmp(v, "~") == 0 || strcmp(v, "null") == 0 || strcmp(v, "Null") == 0 ||
	       strcmp(v, "NULL") == 0;
}

/* A YAML merge key: "<<" written plain (a quoted "<<" is an ordinary key). */
static bool is_merge_key(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE &&
	       n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       strcmp((const char *)n->data.scalar.value, "<<") == 0;
}

/*
 * Merge keys ("<<: *anchor", "<<: [*a, *b]") may merge mappings that merge
 * others, at most this deep (kc_check_merges refuses a deeper file, so
 * map_get's recursion is bounded; how much it can visit is bounded by the
 * prescan's alias budget).
 */
#define KC_MAX_MERGE_DEPTH 16

static yaml_node_t *map_get_at(struct kc *k, yaml_node_t *m, const char *key, bool *present,
			       unsigned level)
{
	yaml_node_t *found = NULL, *merged = NULL;
	bool explicit = false, in_merge = false;
	if (!m || m->type != YAML_MAPPING_NODE || level > KC_MAX_MERGE_DEPTH)
		return NULL;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *kn = node(k, p->key), *v = node(k, p->value);
		if (is_merge_key(kn) && v) {
			/* a later "<<" wins over an earlier one, like any key; in a
			 * list of mappings the first that has the key wins */
			bool here = false;
			yaml_node_t *got = NULL;
			if (v->type == YAML_MAPPING_NODE) {
				got = map_get_at(k, v, key, &here, level + 1);
			} else if (v->type == YAML_SEQUENCE_NODE) {
				for (yaml_node_item_t *it = v->data.sequence.items.start;
				     it < v->data.sequence.items.top && !here; it++)
					got = map_get_at(k, node(k, *it), key, &here, level + 1);
			}
			if (here) {
				merged = got;
				in_merge = true;
			}
		} else if (kn && kn->type == YAML_SCALAR_NODE &&
			   strcmp((const char *)kn->data.scalar.value, key) == 0) {
			found = v && !is_null_scalar(v) ? v : NULL;
			explicit = true;
		}
	}
	if (present)
		*present = explicit || in_merge;
	return explicit ? found : merged;
}

/*
 * The value of key in mapping m, or NULL (also for an explicit null). A key
 * given twice: the last one wins, as kubectl (its YAML decoder) reads it.
 * Merge keys are honoured as kubectl does: "<<: *anchor" (or a list of
 * anchors) brings in the keys of those mappings; a key the mapping writes
 * itself wins over a merged one, wherever the "<<" stands.
 */
static yaml_node_t *map_get(struct kc *k, yaml_node_t *m, const char *key)
{
	return map_get_at(k, m, key, NULL, 0);
}

/*
 * After loading: every merge key's value is a mapping or a list of
 * mappings, and merges nest at most KC_MAX_MERGE_DEPTH deep. The merge
 * depth of mapping id (0: it merges nothing) is memoised in depth[] (plus
 * one; 0: not known yet), so each node is looked at once.
 */
static int merge_depth(struct kc *k, int id, unsigned *depth, unsigned level,
		       struct kube_error *err)
{
	yaml_node_t *m = node(k, id);
	if (!m || m->type != YAML_MAPPING_NODE)
		return 0;
	if (depth[id - 1])
		return (int)depth[id - 1] - 1;
	unsigned deepest = 0;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
	     p++) {
		if (!is_merge_key(node(k, p->key)))
			continue;
		yaml_node_t *v = node(k, p->value);
		bool seq = v && v->type == YAML_SEQUENCE_NODE;
		size_t n = seq ? (size_t)(v->data.sequence.items.top - v->data.sequence.items.start)
			       : 1;
		for (size_t j = 0; j < n; j++) {
			int mid = seq ? v->data.sequence.items.start[j] : p->value;
			yaml_node_t *mn = node(k, mid);
			if (!mn || mn->type != YAML_MAPPING_NODE)
				return kube_errorf(err, -EINVAL,
						   "kubeconfig '%s': line %zu: <<: a merge key "
						   "needs a mapping or a list of mappings",
						   k->file, (mn ? mn : m)->start_mark.line + 1);
			/* the recursion stops where the depth is already too much */
			int d = level < KC_MAX_MERGE_DEPTH
					? merge_depth(k, mid, depth, level + 1, err)
					: KC_MAX_MERGE_DEPTH;
			if (d < 0)
				return d;
			if ((unsigned)d + 1 > deepest)
				deepest = (unsigned)d + 1;
		}
	}
	if (deepest > KC_MAX_MERGE_DEPTH)
		return kube_errorf(err, -EINVAL,
				   "kubeconfig '%s': line %zu: merge keys (<<) nested deeper than "
				   "%d levels",
				   k->file, m->start_mark.line + 1, KC_MAX_MERGE_DEPTH);
	depth[id - 1] = deepest + 1;
	return (int)deepest;
}

static int kc_check_merges(struct kc *k, struct kube_error *err)
{
	size_t n = (size_t)(k->doc.nodes.top - k->doc.nodes.start);
	unsigned *depth = calloc(n ? n : 1, sizeof(*depth));
	int ret = 0;
	if (!depth)
		return -ENOMEM;
	for (size_t i = 0; i < n && ret >= 0; i++)
		ret = merge_depth(k, (int)i + 1, depth, 0, err);
	free(depth);
	return ret < 0 ? ret : 0;
}

/* *out = the string at key (borrowed from the document) or NULL if absent. */
static int get_str(struct kc *k, yaml_node_t *m, const char *prefix, const char *key,
		   const char **out)
{
	*out = NULL;
	yaml_node_t *v = map_get(k, m, key);
	if (!v)
		return 0;
	if (v->type != YAML_SCALAR_NODE)
		return kc_fail(k, -EINVAL, NULL, "%s%s: expected a string", prefix, key);
	/* "\0" in a quoted scalar: refused rather than cut there */
	if (strlen((const char *)v->data.scalar.value) != v->data.scalar.length)
		return kc_fail(k, -EINVAL, NULL, "%s%s: contains a NUL character", prefix, key);
	*out = (const char *)v->data.scalar.value;
	return 0;
}

/*
 * Finds the entry named name in the sequence at key of the root ("clusters",
 * "contexts", "users") and returns its inner mapping (at key inner) in *out,
 * its index in *idx. Returns 1 when this file has no such entry (the next
 * file of a merged KUBECONFIG may have it), 0 when found, or an error.
 */
static int find_named(struct kc *k, yaml_node_t *root, const char *key, const char *inner,
		      const char *name, yaml_node_t **out, size_t *idx)
{
	yaml_node_t *seq = map_get(k, root, key);
	*out = NULL;
	if (!seq)
		return 1;
	if (seq->type != YAML_SEQUENCE_NODE)
		return kc_fail(k, -EINVAL, key, "expected a list");
	size_t i = 0;
	for (yaml_node_item_t *it = seq->data.sequence.items.start;
	     it < seq->data.sequence.items.top; it++, i++) {
		yaml_node_t *e = node(k, *it);
		char field[64];
		(void)snprintf(field, sizeof(field), "%s[%zu]", key, i);
		if (!e || e->type != YAML_MAPPING_NODE)
			return kc_fail(k, -EINVAL, field, "expected a mapping");
		const char *n;
		char prefix[80];
		(void)snprintf(prefix, sizeof(prefix), "%s.", field);
		int ret = get_str(k, e, prefix, "name", &n);
		if (ret)
			return ret;
		if (!n || strcmp(n, name) != 0)
			continue;
		yaml_node_t *in = map_get(k, e, inner);
		if (in && in->type != YAML_MAPPING_NODE)
			return kc_fail(k, -EINVAL, field, "%s: expected a mapping", inner);
		*out = in;
		*idx = i;
		return 0;
	}
	return 1;
}

/*
 * The entry named name at key in the first of the n files that has one, as
 * client-go merges a KUBECONFIG list: *which is that file. When none has
 * it, the error names the field in the first file (or the only one).
 */
static int find_merged(struct kc *ks, size_t n, const char *key, const char *inner,
		       const char *name, struct kc **which, yaml_node_t **out, size_t *idx)
{
	bool any_list = false;
	*which = &ks[0];
	*out = NULL;
	*idx = 0;
	for (size_t f = 0; f < n; f++) {
		yaml_node_t *root = yaml_document_get_root_node(&ks[f].doc);
		any_list = any_list || map_get(&ks[f], root, key) != NULL;
		int ret = find_named(&ks[f], root, key, inner, name, out, idx);
		if (ret <= 0) {
			*which = &ks[f];
			return ret;
		}
	}
	if (!any_list)
		return kc_fail(&ks[0], -EINVAL, key, "missing (looking for '%s')%s", name,
			       n > 1 ? " in every file of KUBECONFIG" : "");
	return kc_fail(&ks[0], -EINVAL, key, "no entry named '%s'%s", name,
		       n > 1 ? " in any file of KUBECONFIG" : "");
}

/* Resolves name against the kubeconfig's directory into buf. */
static const char *resolve(struct kc *k, const char *name, char *buf, size_t size)
{
	if (name[0] == '/' || !k->dir[0])
		return name;
	int n = snprintf(buf, size, "%s/%s", k->dir, name);
	return n > 0 && (size_t)n < size ? buf : name;
}

static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
	(void)buf;
	(void)size;
	(void)rwflag;
	(void)u;
	return -1;
}

enum pem_kind { PEM_CERT, PEM_KEY };

/* Checks that data holds a PEM certificate or private key OpenSSL accepts. */
static bool pem_ok(const char *data, size_t len, enum pem_kind kind)
{
	BIO *b = BIO_new_mem_buf(data, (int)len);
	bool ok = false;
	if (!b)
		return false;
	if (kind == PEM_CERT) {
		X509 *x = PEM_read_bio_X509(b, NULL, no_passphrase, NULL);
		ok = x != NULL;
		X509_free(x);
	} else {
		EVP_PKEY *p = PEM_read_bio_PrivateKey(b, NULL, no_passphrase, NULL);
		ok = p != NULL;
		EVP_PKEY_free(p);
	}
	BIO_free(b);
	ERR_clear_error();
	return ok;
}

/*
 * Loads one PEM item given either inline (key_data, base64) or as a file
 * (key_file), e.g. "certificate-authority-data" / "certificate-authority".
 * Inline wins, as in client-go.
 */
static int load_pem(struct kc *k, yaml_node_t *m, const char *prefix, const char *key_data,
		    const char *key_file, enum pem_kind kind, char **out, size_t *out_len)
{
	const char *data, *file;
	char field[128];
	int ret;

	*out = NULL;
	*out_len = 0;
	if ((ret = get_str(k, m, prefix, key_data, &data)) ||
	    (ret = get_str(k, m, prefix, key_file, &file)))
		return ret;
	if (data) {
		(void)snprintf(field, sizeof(field), "%s%s", prefix, key_data);
		ret = kube_base64_decode(data, strlen(data), out, out_len);
		if (ret == -ENOMEM)
			return kc_fail(k, ret, field, "out of memory");
		if (ret)
			return kc_fail(k, -EINVAL, field, "not valid base64");
	} else if (file) {
		char buf[PATH_MAX];
		const char *path = resolve(k, file, buf, sizeof(buf));
		(void)snprintf(field, sizeof(field), "%s%s", prefix, key_file);
		ret = kube_read_file(path, out, out_len);
		if (ret)
			return kc_fail(k, ret == -ENOMEM ? ret : -EINVAL, field,
				       "cannot read '%s': %s", path, strerror(-ret));
	} else {
		return 0;
	}
	if (!pem_ok(*out, *out_len, kind)) {
		free_secret_buf(*out, *out_len);
		*out = NULL;
		*out_len = 0;
		return kc_fail(k, -EINVAL, field, "not a PEM %s",
			       kind == PEM_CERT ? "certificate" : "private key");
	}
	return 0;
}

static int dup_to(char **dst, const char *s)
{
	if (!s)
		return 0;
	*dst = strdup(s);
	return *dst ? 0 : -ENOMEM;
}

static int parse_cluster(struct kc *k, yaml_node_t *c, size_t idx, struct kube_config *cfg)
{
	char prefix[64];
	const char *server, *insecure;
	int ret;

	(void)snprintf(prefix, sizeof(prefix), "clusters[%zu].cluster.", idx);
	if (!c)
		return kc_fail(k, -EINVAL, NULL, "clusters[%zu].cluster: missing", idx);
	if ((ret = get_str(k, c, prefix, "server", &server)))
		return ret;
	if (!server)
		return kc_fail(k, -EINVAL, NULL, "%sserver: missing", prefix);
	CURLU *u = curl_url();
	char *scheme = NULL;
	if (!u)
		return -ENOMEM;
	CURLUcode uc = curl_url_set(u, CURLUPART_URL, server, 0);
	if (uc == CURLUE_OK)
		uc = curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
	bool ok = uc == CURLUE_OK && scheme &&
		  (strcmp(scheme, "https") == 0 || strcmp(scheme, "http") == 0);
	curl_free(scheme);
	curl_url_cleanup(u);
	if (!ok)
		return kc_fail(k, -EINVAL, NULL, "%sserver: '%s' is not an http(s) URL", prefix,
			       server);
	if ((ret = dup_to(&cfg->server, server)))
		return ret;
	size_t sl = strlen(cfg->server);
	while (sl && cfg->server[sl - 1] == '/')
		cfg->server[--sl] = '\0';

	if ((ret = get_str(k, c, prefix, "insecure-skip-tls-verify", &insecure)))
		return ret;
	if (insecure) {
		if (strcmp(insecure, "true") == 0)
			cfg->insecure = true;
		else if (strcmp(insecure, "false") != 0)
			return kc_fail(k, -EINVAL, NULL,
				       "%sinsecure-skip-tls-verify: '%s' is not a boolean", prefix,
				       insecure);
	}
	return load_pem(k, c, prefix, "certificate-authority-data", "certificate-authority",
			PEM_CERT, &cfg->ca_pem, &cfg->ca_pem_len);
}

/* A list of strings at key of m into a new array *out of *n (caller frees). */
static int get_str_list(struct kc *k, yaml_node_t *m, const char *prefix, const char *key,
			char ***out, size_t *n)
{
	yaml_node_t *seq = map_get(k, m, key);
	*out = NULL;
	*n = 0;
	if (!seq)
		return 0;
	if (seq->type != YAML_SEQUENCE_NODE)
		return kc_fail(k, -EINVAL, NULL, "%s%s: expected a list", prefix, key);
	size_t cap = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
	*out = calloc(cap + 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (yaml_node_item_t *it = seq->data.sequence.items.start;
	     it < seq->data.sequence.items.top; it++) {
		yaml_node_t *e = node(k, *it);
		if (!e || e->type != YAML_SCALAR_NODE)
			return kc_fail(k, -EINVAL, NULL, "%s%s[%zu]: expected a string", prefix,
				       key, *n);
		if (!((*out)[*n] = strdup((const char *)e->data.scalar.value)))
			return -ENOMEM;
		(*n)++;
	}
	return 0;
}

/* users[i].user.exec: the credential plugin (see struct kube_exec_config). */
static int parse_exec(struct kc *k, yaml_node_t *ex, const char *user_prefix,
		      struct kube_config *cfg)
{
	char prefix[96];
	const char *command, *api, *hint, *pci, *mode;
	int ret;

	(void)snprintf(prefix, sizeof(prefix), "%sexec.", user_prefix);
	if (ex->type != YAML_MAPPING_NODE)
		return kc_fail(k, -EINVAL, NULL, "%sexec: expected a mapping", user_prefix);
	struct kube_exec_config *x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	cfg->exec = x; /* freed with cfg, also on the errors below */
	if ((ret = get_str(k, ex, prefix, "command", &command)) ||
	    (ret = get_str(k, ex, prefix, "apiVersion", &api)) ||
	    (ret = get_str(k, ex, prefix, "installHint", &hint)) ||
	    (ret = get_str(k, ex, prefix, "provideClusterInfo", &pci)) ||
	    (ret = get_str(k, ex, prefix, "interactiveMode", &mode)))
		return ret;
	if (!command || !*command)
		return kc_fail(k, -EINVAL, NULL, "%scommand: missing", prefix);
	if (!api)
		return kc_fail(k, -EINVAL, NULL, "%sapiVersion: missing", prefix);
	if (strcmp(api, "client.authentication.k8s.io/v1") &&
	    strcmp(api, "client.authentication.k8s.io/v1beta1"))
		return kc_fail(k, -EINVAL, NULL,
			       "%sapiVersion: '%s' is not client.authentication.k8s.io/v1 or "
			       "v1beta1",
			       prefix, api);
	if (mode && strcmp(mode, "Never") && strcmp(mode, "IfAvailable"))
		return kc_fail(k, -ENOTSUP, NULL,
			       "%sinteractiveMode: '%s' is not supported (plugins run without a "
			       "terminal: Never or IfAvailable)",
			       prefix, mode);
	if (pci && strcmp(pci, "true") && strcmp(pci, "false"))
		return kc_fail(k, -EINVAL, NULL, "%sprovideClusterInfo: '%s' is not a boolean",
			       prefix, pci);
	x->provide_cluster_info = pci && !strcmp(pci, "true");
	if ((ret = dup_to(&x->command, command)) || (ret = dup_to(&x->api_version, api)) ||
	    (ret = dup_to(&x->install_hint, hint)) ||
	    (ret = get_str_list(k, ex, prefix, "args", &x->args, &x->nargs)))
		return ret;
	if (!x->args && !(x->args = calloc(1, sizeof(*x->args))))
		return -ENOMEM;

	yaml_node_t *env = map_get(k, ex, "env");
	if (env && env->type != YAML_SEQUENCE_NODE)
		return kc_fail(k, -EINVAL, NULL, "%senv: expected a list", prefix);
	size_t cap =
		env ? (size_t)(env->data.sequence.items.top - env->data.sequence.items.start) : 0;
	if (!(x->env = calloc(cap + 1, sizeof(*x->env))))
		return -ENOMEM;
	for (size_t i = 0; i < cap; i++) {
		yaml_node_t *e = node(k, env->data.sequence.items.start[i]);
		char ep[128];
		const char *name, *value;
		(void)snprintf(ep, sizeof(ep), "%senv[%zu].", prefix, i);
		if (!e || e->type != YAML_MAPPING_NODE)
			return kc_fail(k, -EINVAL, NULL, "%senv[%zu]: expected a mapping", prefix,
				       i);
		if ((ret = get_str(k, e, ep, "name", &name)) ||
		    (ret = get_str(k, e, ep, "value", &value)))
			return ret;
		if (!name || !*name || strchr(name, '='))
			return kc_fail(k, -EINVAL, NULL, "%sname: missing or not a variable name",
				       ep);
		if (asprintf(&x->env[i], "%s=%s", name, value ? value : "") < 0) {
			x->env[i] = NULL;
			return -ENOMEM;
		}
		x->nenv++;
	}
	return 0;
}

static int parse_user(struct kc *k, yaml_node_t *u, size_t idx, struct kube_config *cfg)
{
	char prefix[64];
	const char *token, *token_file;
	int ret;

	if (!u)
		return 0; /* a user with no credentials */
	(void)snprintf(prefix, sizeof(prefix), "users[%zu].user.", idx);
	static const char *const unsupported[] = {"auth-provider", "username", "password"};
	for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++)
		if (map_get(k, u, unsupported[i]))
			return kc_fail(k, -ENOTSUP, NULL,
				       "%s%s: not supported (use a token or a "
				       "client certificate)",
				       prefix, unsupported[i]);
	if ((ret = load_pem(k, u, prefix, "client-certificate-data", "client-certificate", PEM_CERT,
			    &cfg->cert_pem, &cfg->cert_pem_len)) ||
	    (ret = load_pem(k, u, prefix, "client-key-data", "client-key", PEM_KEY, &cfg->key_pem,
			    &cfg->key_pem_len)))
		return ret;
	if (!cfg->cert_pem != !cfg->key_pem)
		return kc_fail(k, -EINVAL, NULL, "%s%s: missing (the %s is set)", prefix,
			       cfg->cert_pem ? "client-key" : "client-certificate",
			       cfg->cert_pem ? "client certificate" : "client key");
	if ((ret = get_str(k, u, prefix, "token", &token)) ||
	    (ret = get_str(k, u, prefix, "tokenFile", &token_file)))
		return ret;
	yaml_node_t *ex = map_get(k, u, "exec");
	if (ex && token)
		return kc_fail(k, -EINVAL, NULL, "%sexec: a token is set too: use one of them",
			       prefix);
	if (ex)
		return parse_exec(k, ex, prefix, cfg);
	if (token) /* token wins over tokenFile, as in client-go */
		return dup_to(&cfg->token, token);
	if (token_file) {
		char buf[PATH_MAX], *tok = NULL;
		const char *path = resolve(k, token_file, buf, sizeof(buf));
		ret = kube_read_file(path, &tok, NULL);
		kube_free_secret(tok);
		if (ret)
			return kc_fail(k, ret == -ENOMEM ? ret : -EINVAL, NULL,
				       "%stokenFile: cannot read '%s': %s", prefix, path,
				       strerror(-ret));
		return dup_to(&cfg->token_file, path);
	}
	return 0;
}

/*
 * The configuration of the current context over the files ks[0..n) merged
 * as client-go does: the first file that sets current-context names it; a
 * context, cluster or user comes from the first file that defines that
 * name, and relative file names in it are resolved against its directory.
 */
static int parse_kubeconfig(struct kc *ks, size_t n, const char *source, const char *context,
			    struct kube_config *cfg)
{
	const char *cur = NULL, *cluster, *user, *ns;
	yaml_node_t *ctx = NULL, *cl = NULL, *us = NULL;
	struct kc *kx = ks, *kcl = ks, *ku = ks;
	size_t ci = 0, ui = 0, xi = 0;
	int ret;

	for (size_t f = 0; f < n; f++) {
		yaml_node_t *root = yaml_document_get_root_node(&ks[f].doc);
		if (!root)
			return kc_fail(&ks[f], -EINVAL, NULL, "empty file");
		if (root->type != YAML_MAPPING_NODE)
			return kc_fail(&ks[f], -EINVAL, NULL, "not a mapping at the top level");
		if (!cur && (ret = get_str(&ks[f], root, "", "current-context", &cur)))
			return ret;
		if (cur && !*cur)
			cur = NULL;
	}
	if (context && *context)
		cur = context; /* --context: instead of current-context */
	if (!cur)
		return kc_fail(&ks[0], -EINVAL, "current-context",
			       n > 1 ? "not set in any file of KUBECONFIG" : "not set");
	if ((ret = find_merged(ks, n, "contexts", "context", cur, &kx, &ctx, &xi)))
		return ret;
	if (!ctx)
		return kc_fail(kx, -EINVAL, NULL, "contexts[%zu].context: missing", xi);
	char prefix[64];
	(void)snprintf(prefix, sizeof(prefix), "contexts[%zu].context.", xi);
	if ((ret = get_str(kx, ctx, prefix, "cluster", &cluster)) ||
	    (ret = get_str(kx, ctx, prefix, "user", &user)) ||
	    (ret = get_str(kx, ctx, prefix, "namespace", &ns)))
		return ret;
	if (!cluster)
		return kc_fail(kx, -EINVAL, NULL, "%scluster: missing", prefix);
	if ((ret = find_merged(ks, n, "clusters", "cluster", cluster, &kcl, &cl, &ci)) ||
	    (ret = parse_cluster(kcl, cl, ci, cfg)))
		return ret;
	if (user && *user &&
	    ((ret = find_merged(ks, n, "users", "user", user, &ku, &us, &ui)) ||
	     (ret = parse_user(ku, us, ui, cfg))))
		return ret;
	if ((ret = dup_to(&cfg->namespace, ns && *ns ? ns : "default")) ||
	    (ret = dup_to(&cfg->source, source)))
		return ret;
	return 0;
}

/*
 * A first pass over the YAML events, before the document is built: at most
 * KC_MAX_DEPTH nested collections, KC_MAX_ALIASES aliases, and no more than
 * KC_MAX_ALIAS_BYTES of content re-used through them in all (an alias counts
 * the bytes of scalars its anchor holds once expanded, aliases in it
 * included: the "billion laughs" grow exponentially there and stop at the
 * budget), so a hostile file costs little.
 */
#define KC_MAX_DEPTH	   64
#define KC_MAX_ALIASES	   1024
#define KC_MAX_ANCHORS	   1024
#define KC_MAX_ALIAS_BYTES (1u << 20)

static int kc_prescan(struct kc *k, const char *text, size_t len, struct kube_error *err)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct {
		char *name;
		size_t size; /* expanded bytes; SIZE_MAX while the anchor is still open */
	} anchors[KC_MAX_ANCHORS];
	size_t nanchors = 0, depth = 0, naliases = 0, alias_bytes = 0;
	size_t acc[KC_MAX_DEPTH + 1] = {0}; /* expanded bytes of each open collection */
	int open_anchor[KC_MAX_DEPTH + 1];
	int ret = 0;
	bool done = false;

	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (!done && !ret) {
		if (!yaml_parser_parse(&parser, &ev)) {
			ret = kube_errorf(err, -EINVAL, "kubeconfig '%s': line %zu column %zu: %s",
					  k->file, parser.problem_mark.line + 1,
					  parser.problem_mark.column + 1,
					  parser.problem ? parser.problem : "YAML error");
			break;
		}
		const char *anchor = NULL;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			anchor = (const char *)(ev.type == YAML_SEQUENCE_START_EVENT
							? ev.data.sequence_start.anchor
							: ev.data.mapping_start.anchor);
			if (depth == KC_MAX_DEPTH) {
				ret = kube_errorf(
					err, -EINVAL,
					"kubeconfig '%s': line %zu: nested deeper than %d "
					"levels",
					k->file, ev.start_mark.line + 1, KC_MAX_DEPTH);
				break;
			}
			open_anchor[depth] = -1;
			depth++;
			acc[depth] = 0;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (depth) {
				depth--;
				if (open_anchor[depth] >= 0)
					anchors[open_anchor[depth]].size = acc[depth + 1];
				acc[depth] += acc[depth + 1] + 1;
			}
			break;
		case YAML_SCALAR_EVENT:
			anchor = (const char *)ev.data.scalar.anchor;
			acc[depth] += ev.data.scalar.length + 1;
			break;
		case YAML_ALIAS_EVENT: {
			const char *a = (const char *)ev.data.alias.anchor;
			size_t size = 0;
			for (size_t i = nanchors; i-- > 0;)
				if (!strcmp(anchors[i].name, a)) {
					size = anchors[i].size;
					break;
				}
			if (size == SIZE_MAX)
				ret = kube_errorf(err, -EINVAL,
						  "kubeconfig '%s': line %zu: alias *%s inside its "
						  "own anchor",
						  k->file, ev.start_mark.line + 1, a);
			else if (++naliases > KC_MAX_ALIASES)
				ret = kube_errorf(err, -EINVAL,
						  "kubeconfig '%s': line %zu: more than %d aliases",
						  k->file, ev.start_mark.line + 1, KC_MAX_ALIASES);
			else if (size > KC_MAX_ALIAS_BYTES ||
				 (alias_bytes += size + 1) > KC_MAX_ALIAS_BYTES)
				ret = kube_errorf(
					err, -EINVAL,
					"kubeconfig '%s': line %zu: aliases expand to more "
					"than %u bytes",
					k->file, ev.start_mark.line + 1, KC_MAX_ALIAS_BYTES);
			acc[depth] += size + 1;
			break;
		}
		default:
			break;
		}
		if (anchor && !ret) {
			if (nanchors == KC_MAX_ANCHORS) {
				ret = kube_errorf(err, -EINVAL,
						  "kubeconfig '%s': line %zu: more than %d anchors",
						  k->file, ev.start_mark.line + 1, KC_MAX_ANCHORS);
			} else if (!(anchors[nanchors].name = strdup(anchor))) {
				ret = -ENOMEM;
			} else {
				anchors[nanchors].size = ev.type == YAML_SCALAR_EVENT
								 ? ev.data.scalar.length
								 : SIZE_MAX;
				if (ev.type != YAML_SCALAR_EVENT)
					open_anchor[depth - 1] = (int)nanchors;
				nanchors++;
			}
		}
		yaml_event_delete(&ev);
	}
	for (size_t i = 0; i < nanchors; i++)
		free(anchors[i].name);
	yaml_parser_delete(&parser);
	return ret;
}

/* Reads and parses the YAML of the file k->file into k->doc. */
static int kc_open(struct kc *k, struct kube_error *err)
{
	yaml_parser_t parser;
	char *text = NULL;
	size_t len = 0;
	int ret = kube_read_file(k->file, &text, &len);
	if (ret)
		return kube_errorf(err, ret, "kubeconfig '%s': cannot read: %s", k->file,
				   strerror(-ret));
	char tmp[PATH_MAX];
	(void)snprintf(tmp, sizeof(tmp), "%s", k->file);
	if (strchr(tmp, '/'))
		(void)snprintf(k->dir, sizeof(k->dir), "%s", dirname(tmp));
	if ((ret = kc_prescan(k, text, len, err))) {
		free_secret_buf(text, len);
		return ret;
	}
	if (!yaml_parser_initialize(&parser)) {
		free_secret_buf(text, len);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &k->doc))
		ret = kube_errorf(err, -EINVAL, "kubeconfig '%s': line %zu column %zu: %s", k->file,
				  parser.problem_mark.line + 1, parser.problem_mark.column + 1,
				  parser.problem ? parser.problem : "YAML error");
	else if ((ret = kc_check_merges(k, err)))
		yaml_document_delete(&k->doc);
	yaml_parser_delete(&parser);
	free_secret_buf(text, len); /* the document holds copies of what it needs */
	return ret;
}

/*
 * Loads the n files (n >= 1) merged into cfg. With several files (a
 * KUBECONFIG list), those that do not exist are passed over, as client-go
 * does, unless none exists.
 */
static int load_files(struct kube_config *cfg, const char *const *paths, size_t n,
		      const char *source, const char *context, struct kube_error *err)
{
	struct kc *ks = calloc(n, sizeof(*ks));
	size_t nopen = 0;
	int ret = 0;

	kube_error_clear(err);
	kube_config_init(cfg);
	if (!ks)
		return -ENOMEM;
	for (size_t f = 0; f < n && !ret; f++) {
		if (n > 1 && access(paths[f], F_OK) != 0 && errno == ENOENT) {
			sb_debug("Skipped a KUBECONFIG file that does not exist", "file=%s",
				 paths[f]);
			continue;
		}
		ks[nopen].file = paths[f];
		ks[nopen].err = err;
		ret = kc_open(&ks[nopen], err);
		if (!ret)
			nopen++;
	}
	if (!ret && !nopen)
		ret = kube_errorf(err, -ENOENT, "KUBECONFIG '%s': none of its files exists",
				  source);
	if (!ret)
		ret = parse_kubeconfig(ks, nopen, source, context, cfg);
	for (size_t f = 0; f < nopen; f++)
		yaml_document_delete(&ks[f].doc);
	free(ks);
	if (ret) {
		kube_config_release(cfg);
		if (ret == -ENOMEM)
			kube_errorf(err, ret, "kubeconfig '%s': out of memory", source);
		return ret;
	}
	if (cfg->insecure)
		sb_warn("Disabled TLS verification", "kubeconfig=%s server=%s reason=%s", source,
			cfg->server, "insecure-skip-tls-verify");
	return 0;
}

int kube_config_load_file(struct kube_config *cfg, const char *path, struct kube_error *err)
{
	return load_files(cfg, &path, 1, path, NULL, err);
}

/* The files of a KUBECONFIG list (':' separated, empty entries skipped). */
static int load_env_list(struct kube_config *cfg, const char *list, const char *context,
			 struct kube_error *err)
{
	char *copy = strdup(list);
	const char **paths = calloc(strlen(list) / 2 + 1, sizeof(*paths));
	size_t n = 0;
	int ret;

	if (!copy || !paths) {
		ret = -ENOMEM;
		goto out;
	}
	char *save = NULL;
	for (char *p = strtok_r(copy, ":", &save); p; p = strtok_r(NULL, ":", &save)) {
		if (strlen(p) >= PATH_MAX) {
			ret = kube_errorf(err, -ENAMETOOLONG, "KUBECONFIG: path too long");
			goto out;
		}
		paths[n++] = p;
	}
	ret = n ? load_files(cfg, paths, n, list, context, err) : 1;
out:
	free(paths);
	free(copy);
	return ret;
}

/* ------------------------------------------------------------- in-cluster */

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

int kube_config_load_in_cluster(struct kube_config *cfg, const char *root, struct kube_error *err)
{
	const char *host = getenv("KUBERNETES_SERVICE_HOST");
	const char *port = getenv("KUBERNETES_SERVICE_PORT");
	char path[PATH_MAX], url[512];
	char *buf = NULL;
	size_t len = 0;
	int ret;

	kube_error_clear(err);
	kube_config_init(cfg);
	if (!root)
		root = "";
	if (!host || !*host || !port || !*port)
		return kube_errorf(err, -ENOENT,
				   "in-cluster: KUBERNETES_SERVICE_HOST and "
				   "KUBERNETES_SERVICE_PORT are not set");
	char *end;
	long p = strtol(port, &end, 10);
	if (*end || p <= 0 || p > 65535)
		return kube_errorf(err, -EINVAL,
				   "in-cluster: KUBERNETES_SERVICE_PORT: '%s' is "
				   "not a port",
				   port);
	if (strchr(host, ':') && host[0] != '[')
		(void)snprintf(url, sizeof(url), "https://[%s]:%ld", host, p);
	else
		(void)snprintf(url, sizeof(url), "https://%s:%ld", host, p);
	if ((ret = dup_to(&cfg->server, url)))
		goto out;

	(void)snprintf(path, sizeof(path), "%s" SA_DIR "/token", root);
	ret = kube_read_file(path, &buf, &len);
	free_secret_buf(buf, len);
	buf = NULL;
	if (ret) {
		kube_errorf(err, ret, "in-cluster: cannot read '%s': %s", path, strerror(-ret));
		goto out;
	}
	if ((ret = dup_to(&cfg->token_file, path)))
		goto out;

	(void)snprintf(path, sizeof(path), "%s" SA_DIR "/ca.crt", root);
	ret = kube_read_file(path, &cfg->ca_pem, &cfg->ca_pem_len);
	if (ret == -ENOMEM)
		goto out;
	if (ret || !pem_ok(cfg->ca_pem, cfg->ca_pem_len, PEM_CERT)) {
		ret = kube_errorf(err, -EINVAL, "in-cluster: '%s': %s", path,
				  ret ? strerror(-ret) : "not a PEM certificate");
		goto out;
	}

	(void)snprintf(path, sizeof(path), "%s" SA_DIR "/namespace", root);
	ret = kube_read_file(path, &buf, &len);
	if (ret == -ENOMEM)
		goto out;
	if (!ret)
		trim(buf);
	ret = dup_to(&cfg->namespace, buf && *buf ? buf : "default");
	if (!ret)
		ret = dup_to(&cfg->source, "in-cluster");
out:
	free(buf);
	if (ret)
		kube_config_release(cfg);
	return ret;
}

/* ------------------------------------------------------------ load order */

int kube_config_load(struct kube_config *cfg, const char *path, const char *root,
		     struct kube_error *err)
{
	return kube_config_load_context(cfg, path, NULL, root, err);
}

int kube_config_load_context(struct kube_config *cfg, const char *path, const char *context,
			     const char *root, struct kube_error *err)
{
	kube_config_init(cfg);
	if (path && *path)
		return load_files(cfg, &path, 1, path, context, err);

	const char *env = getenv("KUBECONFIG");
	if (env && *env) {
		int r = load_env_list(cfg, env, context, err);
		if (r <= 0)
			return r; /* 1: only empty entries, as if unset */
	}

	if (!context || !*context) {
		int ret = kube_config_load_in_cluster(cfg, root, err);
		if (ret != -ENOENT)
			return ret;
	}

	const char *home = getenv("HOME");
	if (home && *home) {
		char p[PATH_MAX];
		(void)snprintf(p, sizeof(p), "%s/.kube/config", home);
		if (access(p, F_OK) == 0)
			return load_files(cfg, (const char *const[]){p}, 1, p, context, err);
	}
	if (context && *context)
		return kube_errorf(err, -ENOENT,
				   "context '%s': no kubeconfig: not given, KUBECONFIG not set, "
				   "no ~/.kube/config",
				   context);
	return kube_errorf(err, -ENOENT,
			   "no kubeconfig: not given, KUBECONFIG not set, not "
			   "in a cluster, no ~/.kube/config");
}
