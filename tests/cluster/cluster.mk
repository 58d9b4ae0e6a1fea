# The test cluster (tests/cluster, issues 3 and 12): a real Kubernetes
# v1.20.2 built from Debian's source package, three nodes (SB_NODES=1 for
# one) with a pod network and kube-proxy, sealed in network namespaces of
# its own ("storagebench", "storagebench-a", ...). See docs/testing.md.
.PHONY: cluster-kube cluster-images cluster-image cluster-up cluster-down cluster-clean \
	cluster-status cluster-shell cluster-test

# The top-level help loop splits EXTRA_HELP on spaces: keep each entry one
# word by joining it with no-break spaces (they print like spaces).
sb_nbsp := $(shell printf '\302\240')
sb_space := $(subst ,, )
sb_help = $(subst $(sb_space),$(sb_nbsp),$(1))
EXTRA_HELP += $(call sb_help,cluster-kube    build (once) and cache Kubernetes v1.20.2)
EXTRA_HELP += $(call sb_help,cluster-images  build the pause + test + project + dyn images)
EXTRA_HELP += $(call sb_help,cluster-image   rebuild the project image and the test-only dyn runner image and import them into the running cluster)
EXTRA_HELP += $(call sb_help,cluster-up      start the test cluster; writes build/cluster/kubeconfig and env)
EXTRA_HELP += $(call sb_help,cluster-down    stop the test cluster and clean up after it)
EXTRA_HELP += $(call sb_help,cluster-clean   cluster-down then forget the cluster PKI and the built images)
EXTRA_HELP += $(call sb_help,cluster-status  is the test cluster up; its components and node)
EXTRA_HELP += $(call sb_help,cluster-shell   a shell inside the cluster network namespace with the env loaded)
EXTRA_HELP += $(call sb_help,cluster-test    the cluster test suite)

cluster-kube:
	bash scripts/get-kube.sh

cluster-images: cluster-kube
	bash tests/cluster/images.sh all

cluster-image:
	bash tests/cluster/images.sh project dyn --import

cluster-up: cluster-images
	bash tests/cluster/up.sh

cluster-down:
	bash tests/cluster/down.sh

cluster-clean: cluster-down
	rm -rf "$${SB_PKI:-/var/lib/$${SB_PREFIX:-storagebench}/pki}" build/cluster

cluster-status:
	@bash tests/cluster/status.sh

cluster-shell:
	bash tests/cluster/in-netns.sh

cluster-test:
	bash tests/suites/50-cluster.sh
