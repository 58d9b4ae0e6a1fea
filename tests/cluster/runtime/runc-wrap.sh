#!/bin/bash
# runc-wrap.sh: the runtime binary of every test-cluster node's containerd
# (containerd.toml.in, BinaryName): /usr/sbin/runc, with one addition for
# the clock fault (fault.sh clock X OFFSET). When the node has a clock
# offset set (NODE_STATE/faults/clock, NODE_STATE taken from the --root
# containerd passes: NODE_STATE/containerd/runc/NAMESPACE), `runc create`
# of a pod's container (not its sandbox) first gets libfaketime preloaded
# into the container's process (tests/cluster/runtime/faketime.py edits the
# bundle's config.json): it then reads CLOCK_REALTIME (time, gettimeofday,
# clock_gettime) shifted by the offset. Without the file every call is
# runc's own. A failed edit fails the container's creation, with the
# reason in runc's log. The same for a read-IOPS limit (NODE_STATE/faults/
# read-iops, "NAMESPACE MAJOR:MINOR IOPS": runtime/blkio.py), which the
# containers of that namespace's pods get on that device.
set -u
root="" bundle="" create=0 prev=""
for a in "$@"; do
	case "$prev" in
	--root) root=$a ;;
	--bundle | -b) bundle=$a ;;
	esac
	case "$a" in
	--root=*) root=${a#--root=} ;;
	--bundle=*) bundle=${a#--bundle=} ;;
	create) create=1 ;;
	esac
	prev=$a
done
if [ $create = 1 ] && [ -n "$root" ] && [ -n "$bundle" ]; then
	fault=${root%/containerd/runc/*}/faults/clock
	if [ -f "$fault" ]; then
		/usr/bin/python3 "$(dirname "$0")/faketime.py" "$bundle/config.json" "$(cat "$fault")" ||
			exit 1
	fi
	fault=${root%/containerd/runc/*}/faults/read-iops
	if [ -f "$fault" ]; then
		/usr/bin/python3 "$(dirname "$0")/blkio.py" "$bundle/config.json" "$fault" || exit 1
	fi
fi
exec /usr/sbin/runc "$@"
