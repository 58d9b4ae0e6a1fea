#!/usr/bin/env bash
# make demo: the whole flow on the test cluster built here.
#
#  1. starts the test cluster (a real single-node Kubernetes v1.20.2, sealed
#     in its own network namespace; the first run builds it, ~15 minutes)
#     with its two storage classes: fast (/dev/shm) and disk (/var/tmp)
#  2. builds the project image from bin/ and imports it into the node
#  3. installs storagebench: the Helm chart when there is one and helm is
#     installed, else manifests/install.yaml (with the two settings the
#     sealed cluster needs: host network, and never pulling images)
#  4. applies manifests/examples/demo.yaml (profile quick, 3 iterations,
#     2 s per workload) with kubectl, waits for it, prints `kubectl get br`
#     and the report
#  5. stops everything (SB_KEEP_CLUSTER=1 keeps the cluster up)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
t0=$(date +%s)
say() { printf '\n=== [%4ds] %s\n' $(($(date +%s) - t0)) "$*"; }

say "starting the test cluster (make cluster-up)"
make --no-print-directory cluster-up
# shellcheck disable=SC1091
. build/cluster/env
k() { tests/cluster/in-netns.sh kubectl "$@"; }

cleanup() {
	local rc=$?
	if [ "${SB_KEEP_CLUSTER:-0}" = 1 ]; then
		say "SB_KEEP_CLUSTER=1: the cluster stays up (make cluster-down stops it)"
	else
		say "stopping everything (make cluster-down)"
		make --no-print-directory cluster-down >/dev/null 2>&1 || true
	fi
	exit $rc
}
trap cleanup EXIT

say "building the project image from bin/ (make cluster-image)"
make --no-print-directory cluster-image

say "installing storagebench"
k apply -f manifests/crd/storagebench.io_benchmarkruns.yaml >/dev/null
k wait --for=condition=Established crd/benchmarkruns.storagebench.io --timeout=60s >/dev/null
if [ -f charts/storagebench/Chart.yaml ] && command -v helm >/dev/null; then
	tests/cluster/in-netns.sh helm --kubeconfig "$KUBECONFIG" upgrade --install storagebench \
		charts/storagebench --namespace storagebench-system --create-namespace \
		--set hostNetwork=true --set image.pullPolicy=Never \
		--set runnerPolicy.allowHostNetwork=true --wait --timeout 120s >/dev/null
	# (runnerPolicy.allowHostNetwork: the demo's runner pods use the node's network, the
	# test cluster having no pod network; it goes when the three-node cluster of issue 12 lands)
	echo "helm release storagebench installed in storagebench-system"
else
	k apply -f manifests/install.yaml >/dev/null
	k -n storagebench-system patch deployment storagebench-controller --type=json -p '[
	  {"op": "add", "path": "/spec/template/spec/hostNetwork", "value": true},
	  {"op": "add", "path": "/spec/template/spec/containers/0/args/-", "value": "--runner-allow-host-network"},
	  {"op": "replace", "path": "/spec/template/spec/containers/0/imagePullPolicy", "value": "Never"}]' >/dev/null
	echo "manifests/install.yaml applied (host network for the controller and the runners, imagePullPolicy Never)"
fi
k -n storagebench-system rollout status deployment -l app.kubernetes.io/name=storagebench --timeout=120s 2>/dev/null ||
	k -n storagebench-system wait --for=condition=Available deployment --all --timeout=120s
k -n storagebench-system get pods -o wide | cut -c1-100

say "kubectl apply -f manifests/examples/demo.yaml"
k -n default delete benchmarkrun demo --ignore-not-found --wait=true >/dev/null
k -n default apply -f manifests/examples/demo.yaml
say "kubectl wait --for=condition=Succeeded br/demo (3 iterations x 6 workloads x 2 classes)"
if ! k -n default wait --for=condition=Succeeded br/demo --timeout=900s; then
	k -n default describe br demo | tail -40
	echo "demo: the run did not succeed" >&2
	exit 1
fi

say "kubectl get br"
k -n default get br demo
say "kubectl get cm demo-report -o jsonpath='{.data.report\\.txt}'"
k -n default get cm demo-report -o jsonpath='{.data.report\.txt}'
echo
mkdir -p build/demo
k -n default get cm demo-report -o jsonpath='{.data.report\.svg}' >build/demo/report.svg
k -n default get cm demo-report -o jsonpath='{.data.report\.md}' >build/demo/report.md
say "done: charts in $root/build/demo/report.svg, Markdown in build/demo/report.md"
