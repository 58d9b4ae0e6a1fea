/* SPDX-License-Identifier: MIT */
/*
 * Where to reach the API server and how to authenticate: a kubeconfig
 * file, in-cluster configuration, the loading order of client-go
 * (lib/kube, conventions in kube/kube.h).
 */
#ifndef SB_LIB_KUBE_CONFIG_H
#define SB_LIB_KUBE_CONFIG_H

#include "kube/error.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Where to reach the API server and how to authenticate. Filled by one of the
 * kube_config_load* functions; all strings and buffers are owned by the
 * struct and freed by kube_config_release(). Binary fields (PEM) are
 * NUL-terminated as well, for convenience.
 */
/*
 * An exec credential plugin (users[].user.exec): run to get a bearer token,
 * as kubectl does for EKS, GKE, AKS and OIDC helpers. Owned by struct
 * kube_config; every string is owned by this struct.
 */
struct kube_exec_config {
	char *command; /* a path, or a name looked up in PATH */
	char **args;   /* nargs arguments after the command */
	size_t nargs;
	char **env; /* nenv "NAME=VALUE" added to the plugin's environment */
	size_t nenv;
	char *api_version;	   /* client.authentication.k8s.io/v1 or v1beta1 */
	char *install_hint;	   /* shown when the command is not found, or NULL */
	bool provide_cluster_info; /* put the cluster in KUBERNETES_EXEC_INFO */
};

struct kube_config {
	char *server;	   /* "https://host:port[/prefix]", no trailing '/' */
	char *ca_pem;	   /* CA bundle (PEM) from -data or the file, or NULL */
	size_t ca_pem_len; /* (NULL: the system's trust store) */
	char *cert_pem;	   /* client certificate (PEM) or NULL */
	size_t cert_pem_len;
	char *key_pem; /* client private key (PEM) or NULL */
	size_t key_pem_len;
	char *token;		       /* static bearer token or NULL */
	char *token_file;	       /* bearer token file, re-read when it changes, or NULL */
	struct kube_exec_config *exec; /* exec credential plugin, or NULL */
	bool insecure;		       /* insecure-skip-tls-verify: true was set explicitly */
	char *namespace;	       /* context namespace, "default" when not set */
	char *source;		       /* where it came from: a file path or "in-cluster" */
};

#define KUBE_CONFIG_INIT \
	{                \
		0        \
	}

void kube_config_init(struct kube_config *cfg);
/* Frees what cfg holds (clearing the key and token first) and re-inits it. */
void kube_config_release(struct kube_config *cfg);

/*
 * Parses the kubeconfig file at path (its current-context; relative file
 * names inside are resolved against the file's directory). A malformed file
 * is -EINVAL with err->message naming the file and the field, e.g.
 * "kubeconfig 'x': users[0].user.client-certificate-data: not valid base64".
 * A missing file is -ENOENT. auth-provider users are -ENOTSUP; an exec
 * user gets its token from the plugin when the client needs one (and again
 * before it expires, and after a 401).
 */
int kube_config_load_file(struct kube_config *cfg, const char *path, struct kube_error *err);

/*
 * In-cluster configuration: KUBERNETES_SERVICE_HOST and _PORT (an IPv6
 * host is put in brackets), and the ServiceAccount files
 * <root>/var/run/secrets/kubernetes.io/serviceaccount/{token,ca.crt,namespace}.
 * root is "" or NULL for the real root; tests pass a fake one. The token is
 * used as a token file (re-read when it rotates). -ENOENT when the
 * variables or the token file are absent.
 */
int kube_config_load_in_cluster(struct kube_config *cfg, const char *root, struct kube_error *err);

/*
 * The loading order of client-go / controller-runtime: path when not NULL,
 * else the files of $KUBECONFIG merged as client-go merges them (a ':'
 * list: the first file that sets current-context names it; each context,
 * cluster and user comes from the first file that defines its name; files
 * that do not exist are passed over, unless none does), else in-cluster
 * (root as above), else $HOME/.kube/config. -ENOENT when none exists.
 */
int kube_config_load(struct kube_config *cfg, const char *path, const char *root,
		     struct kube_error *err);

/*
 * kube_config_load with the context named context (NULL: the current one)
 * instead of current-context, as kubectl --context: a kubeconfig is then
 * needed (in-cluster configuration has no contexts); a context no file
 * defines is -EINVAL naming it.
 */
int kube_config_load_context(struct kube_config *cfg, const char *path, const char *context,
			     const char *root, struct kube_error *err);

/* Frees x and what it holds (accepts NULL). */
void kube_exec_config_free(struct kube_exec_config *x);
/* A deep copy of x, or NULL on ENOMEM. */
struct kube_exec_config *kube_exec_config_dup(const struct kube_exec_config *x);

#endif
