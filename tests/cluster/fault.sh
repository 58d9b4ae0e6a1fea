#!/usr/bin/env bash
# fault.sh: faults the tests inject into the running test cluster, each
# one command that returns when the fault is in place (or, for start, when
# the component answers again). Needs root; works from inside or outside
# the namespaces. Python: sbcluster.fault(...).
#
#   fault.sh stop NAME            SIGTERM the component, wait until it is gone
#   fault.sh kill NAME            SIGKILL it (containerd-X: its containers
#                                 keep running under their shims)
#   fault.sh start NAME           start it again as cluster-up did; wait
#                                 until it answers (kubelet-X: until its
#                                 node is Ready again)
#   fault.sh restart-node X       node X's kube-proxy, kubelet, every
#                                 container and containerd stopped, then
#                                 containerd, kubelet and kube-proxy started
#                                 again (its pods are recreated by the kubelet)
#   fault.sh stop-node X          node X lost: its kube-proxy, kubelet, every
#                                 container and containerd stopped, and left
#                                 so (the API keeps its pods until the node
#                                 controller or a test acts)
#   fault.sh start-node X         the second half of restart-node: containerd,
#                                 kubelet (node Ready again), kube-proxy
#   fault.sh stop-control-plane   kube-apiserver, then etcd
#   fault.sh start-control-plane  etcd, then kube-apiserver (ready)
#   fault.sh state NAME           prints running or stopped
#   fault.sh clock X OFFSET       node X's (a letter or storagebench-X) clock
#                                 off by OFFSET ([+-]N with ms, s, m, h or d;
#                                 e.g. +30s, -250ms): the dynamically linked
#                                 programs of every container created on X
#                                 from now on read CLOCK_REALTIME shifted
#                                 (libfaketime, preloaded by the node's
#                                 runtime wrapper, runtime/runc-wrap.sh): the
#                                 test-only runner image
#                                 localhost/storagebench-dyn:VERSION, not the
#                                 product image, whose runner is static and
#                                 loads no preload; CLOCK_MONOTONIC, the
#                                 kubelet's and containerd's own clocks, and
#                                 containers already running are not shifted
#   fault.sh clock X reset        no offset for the containers created next
#   fault.sh netem X [delay D] [loss P%]
#                                 node X's link (its eth0, outgoing) delays
#                                 every packet by D (e.g. 2ms, 500us) and
#                                 drops P% at random (e.g. 0.1%): tc netem
#                                 when the kernel has it, else iptables in
#                                 the node's namespace (statistic match for
#                                 the loss, NFQUEUE to netem.py for the delay)
#   fault.sh netem X reset        the link as before
#   fault.sh netem X state        prints the link's fault ("none" when none)
#
# NAME: etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
# provisioner, faultproxy, or per node X (a, b, c): containerd-X,
# kubelet-X, kube-proxy-X; with the cluster's Ceph (SB_CEPH=1,
# tests/cluster/ceph): ceph-mon, ceph-mgr, ceph-osd-ssd, ceph-osd-bulk
# (stop: the OSD is down in the OSD map when it returns; start: up again),
# ceph-mds (start: the file system has an active MDS again), radosgw
# (start: S3 answers again).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/cluster/lib.sh
. "$here/lib.sh"
# shellcheck source=tests/cluster/ceph/lib.sh
. "$here/ceph/lib.sh"

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
	exit 2
}
[ "$(id -u)" -eq 0 ] || sb_die "fault.sh needs root"
[ $# -ge 1 ] || usage
[ -f "$SB_STATE/run/up" ] || sb_die "the cluster ($SB_STATE) is not up"

known() {
	local c more=()
	[ -f "$SB_CEPH_STATE/up" ] && more=("${SB_CEPH_COMPONENTS[@]}")
	for c in "${SB_COMPONENTS[@]}" "${more[@]}"; do
		[ "$c" = "$1" ] && case "$1" in node-?) return 1 ;; *) return 0 ;; esac
	done
	return 1
}
need_name() {
	[ -n "${1:-}" ] || usage
	known "$1" || sb_die "unknown component '$1' (one of: $(printf '%s ' "${SB_COMPONENTS[@]}" | sed 's/node-[a-c] //g')$([ -f "$SB_CEPH_STATE/up" ] && printf '%s ' "${SB_CEPH_COMPONENTS[@]}"))"
}
need_node() {
	[ -n "${1:-}" ] || usage
	if ! sb_node_index "$1" >/dev/null || ! sb_alive "node-$1"; then
		sb_die "no node '$1' in this cluster (nodes: ${SB_LETTERS[*]})"
	fi
}

# answers NAME: the component serves again
answers() {
	local n=$1 l
	case "$n" in
	etcd) sb_ns bash -c 'exec 3<>/dev/tcp/127.0.0.1/2379' 2>/dev/null ;;
	kube-apiserver) sb_kubectl get --raw /readyz >/dev/null 2>&1 ;;
	faultproxy) sb_ns bash -c 'exec 3<>/dev/tcp/127.0.0.1/16445' 2>/dev/null ;;
	containerd-?)
		l=${n: -1}
		ctr -a "$(sb_node_sock "$l")" version >/dev/null 2>&1
		;;
	kubelet-?)
		l=${n: -1}
		sb_ns bash -c "exec 3<>/dev/tcp/$(sb_node_ip "$l")/10248" 2>/dev/null
		;;
	kube-proxy-?)
		l=${n: -1}
		sb_ns bash -c "exec 3<>/dev/tcp/$(sb_node_ip "$l")/10256" 2>/dev/null
		;;
	ceph-mon) sb_ceph ceph --connect-timeout 5 mon stat >/dev/null 2>&1 ;;
	ceph-osd-ssd | ceph-osd-bulk) [ "$(osd_state "$(cat "$SB_CEPH_STATE/osd-${n#ceph-osd-}.id")")" = up ] ;;
	ceph-mds) sb_ceph ceph --connect-timeout 5 mds stat 2>/dev/null | grep -q "up:active" ;;
	radosgw) [ "$(sb_ns curl -s -m 5 -o /dev/null -w '%{http_code}' "$SB_CEPH_S3/")" = 200 ] ;;
	*) sb_alive "$n" ;;
	esac
}
# osd_state ID: up or down, as the OSD map has it
osd_state() {
	sb_ceph ceph --connect-timeout 5 osd dump -f json 2>/dev/null |
		python3 -c 'import json,sys; o=[o for o in json.load(sys.stdin)["osds"] if o["osd"]==int(sys.argv[1])]; print("up" if o and o[0]["up"] else "down")' "$1"
}
# stopped NAME: after sb_stop, wait until Ceph sees it (an OSD down in the map)
stopped() {
	local n=$1 i
	case "$n" in
	ceph-osd-ssd | ceph-osd-bulk)
		for ((i = 0; i < 300; i++)); do
			[ "$(osd_state "$(cat "$SB_CEPH_STATE/osd-${n#ceph-osd-}.id")")" = down ] && return 0
			sleep 0.2
		done
		sb_die "$n stopped but still up in the OSD map after 60 s"
		;;
	esac
}
# ready_beat X: the lastHeartbeatTime and status of node X's Ready condition
ready_beat() {
	sb_kubectl get node "$(sb_node_name "$1")" \
		-o 'jsonpath={.status.conditions[?(@.type=="Ready")].lastHeartbeatTime} {.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null
}
start() {
	local n=$1 i before="" now
	# a restarted kubelet first posts Ready=False (its runtime check has
	# not run yet), so the Ready=True left by the previous kubelet is no
	# answer: wait for a Ready=True that the new kubelet posted
	case "$n" in kubelet-?) before=$(ready_beat "${n: -1}" | cut -d' ' -f1) ;; esac
	sb_relaunch "$n"
	for ((i = 0; i < 300; i++)); do
		sb_alive "$n" || sb_die "$n exited after its start; last lines of its log:
$(tail -n 20 "$SB_STATE/logs/$n.log")"
		answers "$n" && break
		sleep 0.2
	done
	[ "$i" -lt 300 ] || sb_die "$n does not answer 60 s after its start"
	case "$n" in
	kubelet-?)
		for ((i = 0; i < 300; i++)); do
			now=$(ready_beat "${n: -1}")
			[ "${now#* }" = True ] && [ "${now%% *}" != "$before" ] && return 0
			sleep 0.2
		done
		sb_die "node $(sb_node_name "${n: -1}") not Ready 60 s after its kubelet started"
		;;
	esac
}

# seconds NAME VALUE UNITS...: VALUE ([+-]N[.N] and one of UNITS: ms, us,
# s, m, h, d) as signed decimal seconds; dies naming NAME when malformed
seconds() {
	local what=$1 v=$2 num unit
	shift 2
	[[ $v =~ ^([+-]?[0-9]+(\.[0-9]+)?)([a-z]*)$ ]] || sb_die "$what '$v': not a number with a unit ($*)"
	num=${BASH_REMATCH[1]} unit=${BASH_REMATCH[3]}
	[[ " $* " == *" $unit "* ]] || sb_die "$what '$v': unit '$unit' is not one of: $*"
	python3 -c 'import sys; f={"us":1e-6,"ms":1e-3,"s":1,"m":60,"h":3600,"d":86400}[sys.argv[2]]; print("%+.6f" % (float(sys.argv[1]) * f))' "$num" "$unit"
}
# clock X OFFSET|reset
clock() {
	local l=$1 f
	f=$(sb_node_state "$l")/faults/clock
	case "${2:-}" in
	"") usage ;;
	reset) rm -f "$f" ;;
	*)
		mkdir -p "$(dirname "$f")"
		seconds "clock offset" "$2" ms s m h d >"$f.new"
		mv "$f.new" "$f"
		;;
	esac
}
NETEM_QUEUE=7
# netem_ipt X ARGS...: iptables in node X's namespace
netem_ipt() {
	local l=$1
	shift
	nsenter --net="/var/run/netns/$(sb_node_netns "$l")" -- iptables -w 5 "$@"
}
netem_reset() {
	local l=$1
	# (each may find nothing to undo)
	nsenter --net="/var/run/netns/$(sb_node_netns "$l")" -- tc qdisc del dev eth0 root 2>/dev/null || true
	while netem_ipt "$l" -t mangle -D POSTROUTING -o eth0 -j SB-NETEM 2>/dev/null; do :; done
	netem_ipt "$l" -t mangle -F SB-NETEM 2>/dev/null || true
	netem_ipt "$l" -t mangle -X SB-NETEM 2>/dev/null || true
	sb_stop "netem-$l"
	rm -f "$(sb_node_state "$l")/faults/netem"
}
# netem X [delay D] [loss P%] | reset | state
netem() {
	local l=$1 delay="" loss="" us=0 prob="" st
	shift
	st=$(sb_node_state "$l")/faults/netem
	case "${1:-}" in
	reset)
		netem_reset "$l"
		return
		;;
	state)
		if [ -f "$st" ]; then cat "$st"; else echo none; fi
		return
		;;
	esac
	while [ $# -gt 0 ]; do
		case "$1" in
		delay) delay=${2:-} && shift 2 || usage ;;
		loss) loss=${2:-} && shift 2 || usage ;;
		*) sb_die "netem: '$1': expected delay D or loss P%" ;;
		esac
	done
	[ -n "$delay$loss" ] || usage
	if [ -n "$delay" ]; then
		us=$(seconds "netem delay" "$delay" us ms s | python3 -c 'import sys; v=float(sys.stdin.read()); print(int(round(v*1e6)) if v >= 0 else -1)')
		[ "$us" -ge 0 ] || sb_die "netem delay '$delay': must not be negative"
	fi
	if [ -n "$loss" ]; then
		[[ $loss =~ ^([0-9]+(\.[0-9]+)?)%$ ]] || sb_die "netem loss '$loss': a percentage such as 0.1%"
		prob=$(python3 -c 'import sys; p=float(sys.argv[1])/100; print("%.6f" % p if 0 <= p <= 1 else "")' "${BASH_REMATCH[1]}")
		[ -n "$prob" ] || sb_die "netem loss '$loss': must be from 0% to 100%"
	fi
	netem_reset "$l"
	mkdir -p "$(dirname "$st")"
	local tcargs=(netem)
	[ -n "$delay" ] && tcargs+=(delay "${us}us")
	[ -n "$loss" ] && tcargs+=(loss "$loss")
	if nsenter --net="/var/run/netns/$(sb_node_netns "$l")" -- tc qdisc add dev eth0 root "${tcargs[@]}" 2>/dev/null; then
		echo "tc ${tcargs[*]}" >"$st"
		return
	fi
	# no netem qdisc: the packets leaving eth0 queued to netem.py in the
	# node's namespace, which drops and delays them
	printf '%s\0' python3 -u "$here/netem.py" --queue "$NETEM_QUEUE" --delay-us "$us" --loss "${prob:-0}" \
		>"$SB_STATE/run/netem-$l.cmd"
	: >"$SB_STATE/logs/netem-$l.log"
	_sb_start "netem-$l"
	local i
	for ((i = 0; i < 100; i++)); do
		grep -q 'bound' "$SB_STATE/logs/netem-$l.log" 2>/dev/null && break
		sb_alive "netem-$l" || sb_die "netem.py exited: $(tail -n 5 "$SB_STATE/logs/netem-$l.log")"
		sleep 0.1
	done
	[ "$i" -lt 100 ] || sb_die "netem.py did not bind its queue within 10 s"
	netem_ipt "$l" -t mangle -N SB-NETEM
	netem_ipt "$l" -t mangle -A SB-NETEM -j NFQUEUE --queue-num "$NETEM_QUEUE" --queue-bypass
	netem_ipt "$l" -t mangle -A POSTROUTING -o eth0 -j SB-NETEM
	echo "iptables ${tcargs[*]}" >"$st"
}

cmd=$1
shift
case "$cmd" in
stop)
	need_name "${1:-}"
	sb_stop "$1"
	stopped "$1"
	;;
kill)
	need_name "${1:-}"
	sb_stop "$1" KILL
	;;
start)
	need_name "${1:-}"
	start "$1"
	;;
state)
	need_name "${1:-}"
	if sb_alive "$1"; then echo running; else echo stopped; fi
	;;
restart-node | stop-node | start-node)
	need_node "${1:-}"
	l=$1
	if [ "$cmd" != start-node ]; then
		sb_stop "kube-proxy-$l"
		sb_stop "kubelet-$l"
		sb_kill_containers "$l"
		sb_stop "containerd-$l"
	fi
	if [ "$cmd" != stop-node ]; then
		start "containerd-$l"
		start "kubelet-$l"
		start "kube-proxy-$l"
	fi
	;;
clock | netem)
	# X: a node's letter or its name (storagebench-X)
	l=${1:-}
	[[ $l == storagebench-? ]] && l=${l#storagebench-}
	need_node "$l"
	shift
	"$cmd" "$l" "$@"
	;;
stop-control-plane)
	sb_stop kube-apiserver
	sb_stop etcd
	;;
start-control-plane)
	start etcd
	start kube-apiserver
	;;
*) usage ;;
esac
