#!/usr/bin/env bash
# make demo: the whole flow on the test cluster built here.
#
#  1. starts the test cluster (a real three-node Kubernetes v1.20.2 with a
#     pod network and kube-proxy, sealed in network namespaces of its own;
#     the first run builds it, ~6-15 minutes) with its two storage classes:
#     fast (/dev/shm) and disk (/var/tmp), node-local volumes
#     (SB_NODES=3 for a fresh start; a cluster already up is used as it is)
#  2. builds the project image from bin/ and imports it into the node
#  3. installs storagebench: the Helm chart when there is one and helm is
#     installed, else manifests/install.yaml (with the one setting the
#     sealed cluster needs: never pulling images)
#  4. applies manifests/examples/demo.yaml (profile quick, 3 iterations,
#     2 s per workload) with kubectl, waits for it, prints `kubectl get br`
#     and the report
#  5. stops everything (SB_KEEP_CLUSTER=1 keeps the cluster up)
#
# make demo-ceph (SB_DEMO=ceph): the same with the test cluster's real Ceph
# (SB_CEPH=1, tests/cluster/ceph) and manifests/examples/ceph.yaml: profile
# storage-cluster on the classes ssd, bulk (RBD) and cephfs, as on the
# reference page.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
t0=$(date +%s)
say() { printf '\n=== [%4ds] %s\n' $(($(date +%s) - t0)) "$*"; }
run=${SB_DEMO:-demo}
case "$run" in
demo) what="3 iterations x 6 workloads x 2 classes" out=build/demo ;;
ceph)
	export SB_CEPH=1
	what="3 iterations x 10 workloads x 3 classes, one class at a time" out=build/demo-ceph
	;;
*) echo "demo: SB_DEMO=$run: must be demo or ceph" >&2 && exit 2 ;;
esac

say "starting the test cluster (make cluster-up)"
SB_NODES=3 make --no-print-directory cluster-up
# (build/cluster-$SB_PREFIX/env for a second instance, see docs/testing.md)
envf=build/cluster/env
[ "${SB_PREFIX:-storagebench}" = storagebench ] || envf=build/cluster-$SB_PREFIX/env
# shellcheck disable=SC1090
. "$envf"
k() { tests/cluster/in-netns.sh kubectl "$@"; }
if [ "$run" = ceph ] && [ ! -f "$(dirname "$envf")/ceph.env" ]; then
	echo "demo: the test cluster is up without Ceph: make cluster-down, then make demo-ceph" >&2
	exit 1
fi

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
		--set image.pullPolicy=Never --wait --timeout 120s >/dev/null
	echo "helm release storagebench installed in storagebench-system"
else
	k apply -f manifests/install.yaml >/dev/null
	k -n storagebench-system patch deployment storagebench-controller --type=json -p '[
	  {"op": "replace", "path": "/spec/template/spec/containers/0/imagePullPolicy", "value": "Never"}]' >/dev/null
	echo "manifests/install.yaml applied (imagePullPolicy Never)"
fi
k -n storagebench-system rollout status deployment -l app.kubernetes.io/name=storagebench --timeout=120s 2>/dev/null ||
	k -n storagebench-system wait --for=condition=Available deployment --all --timeout=120s
k -n storagebench-system get pods -o wide | cut -c1-100

say "kubectl apply -f manifests/examples/$run.yaml"
k -n default delete benchmarkrun "$run" --ignore-not-found --wait=true >/dev/null
k -n default apply -f "manifests/examples/$run.yaml"
say "kubectl wait --for=condition=Succeeded br/$run ($what)"
if ! k -n default wait --for=condition=Succeeded br/"$run" --timeout=1800s; then
	k -n default describe br "$run" | tail -40
	echo "demo: the run $run did not succeed" >&2
	exit 1
fi

say "kubectl get br"
k -n default get br "$run"
say "kubectl get cm $run-report -o jsonpath='{.data.report\\.txt}'"
k -n default get cm "$run-report" -o jsonpath='{.data.report\.txt}'
echo
mkdir -p "$out"
k -n default get cm "$run-report" -o jsonpath='{.data.report\.svg}' >"$out"/report.svg
k -n default get cm "$run-report" -o jsonpath='{.data.report\.md}' >"$out"/report.md
say "done: charts in $root/$out/report.svg, Markdown in $out/report.md"
