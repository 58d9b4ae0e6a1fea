#!/usr/bin/env bash
# status.sh: is the test cluster up; its components (pid, RSS) and node.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/cluster/lib.sh
. "$here/lib.sh"
# shellcheck source=tests/cluster/ceph/lib.sh
. "$here/ceph/lib.sh"
state=$(sb_up_state)
more=()
[ -d "$SB_CEPH_STATE" ] && more=("${SB_CEPH_COMPONENTS[@]}")
echo "test cluster: $state (state $SB_STATE, netns $SB_NETNS)"
total=0
for c in "${SB_COMPONENTS[@]}" "${more[@]}"; do
	f=$SB_STATE/run/$c.pid
	if sb_alive "$c"; then
		p=$(cat "$f")
		# the traced process when run under strace
		q=$(cat /proc/"$p"/task/*/children 2>/dev/null | awk '{print $1}')
		[ "$(cat /proc/"$p"/comm 2>/dev/null)" = strace ] && [ -n "$q" ] && p=$q
		rss=$(awk '/^VmRSS:/ {print $2}' /proc/"$p"/status 2>/dev/null)
		total=$((total + ${rss:-0}))
		printf '  %-24s pid %-7s rss %6d MiB\n' "$c" "$p" $((${rss:-0} / 1024))
	else
		printf '  %-24s not running\n' "$c"
	fi
done
[ $total -gt 0 ] && printf '  %-24s             rss %6d MiB\n' "total" $((total / 1024))
if [ "$state" = up ]; then
	sb_kubectl get nodes -o wide 2>&1 | sed 's/^/  /'
fi
