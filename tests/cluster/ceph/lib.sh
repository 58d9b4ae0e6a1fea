#!/usr/bin/env bash
# ceph/lib.sh: settings of the test cluster's Ceph (SB_CEPH=1), sourced after
# ../lib.sh by ceph/up.sh, ceph/down.sh and the fault helpers. Not run.
#
# Ceph runs in the control plane's network namespace ($SB_NETNS) on the
# bridge address 10.254.254.1, which every node namespace reaches and
# nothing outside does. Its daemons are components like the others
# (sb_launch in the foreground, pid files in $SB_STATE/run, logs in
# $SB_STATE/logs, SB_TRACE_CONNECT traces them), so sb_stop/sb_relaunch work
# on them. State (all removed by cluster-down):
#   $SB_CEPH_STATE  $SB_STATE/ceph   ceph.conf, keys/, mon/, mgr/, osd/, mds/,
#                                    log/, run/ (admin sockets), mnt/ (the
#                                    provisioner's CephFS mount, rbd-fuse dirs)
#   $SB_SHM/ceph                      the ssd OSD's block file (tmpfs)
#   $SB_VARTMP/ceph                   the bulk OSD's block file (disk)
# Never run a Ceph binary outside the namespace or without -c: a client
# with no config looks its monitors up in DNS.
# shellcheck disable=SC2034  # used by the scripts sourcing this

SB_CEPH_STATE=$SB_STATE/ceph
SB_CEPH_CONF=$SB_CEPH_STATE/ceph.conf
SB_CEPH_IP=$SB_API_IP
SB_CEPH_MON=$SB_CEPH_IP:6789
SB_CEPH_RGW_PORT=7480
SB_CEPH_S3=http://$SB_CEPH_IP:$SB_CEPH_RGW_PORT
SB_CEPH_SSD_SIZE=${SB_CEPH_SSD_SIZE:-3G}
SB_CEPH_BULK_SIZE=${SB_CEPH_BULK_SIZE:-10G}
# start order; stopped in reverse (the OSDs' clients before the OSDs)
SB_CEPH_COMPONENTS=(ceph-mon ceph-mgr ceph-osd-ssd ceph-osd-bulk ceph-mds radosgw)
# the package list (not read by scripts/install-deps.sh)
SB_CEPH_DEPS=$SB_ROOT/scripts/deps/optional/ceph.list

# sb_ceph CMD ARGS...: a Ceph client command in the namespace, from /, with
# the cluster's config (CMD: ceph, rbd, rados, radosgw-admin).
sb_ceph() {
	local c=$1
	shift
	(cd / && sb_ns "$c" -c "$SB_CEPH_CONF" "$@")
}
# sb_ceph_up: the Ceph daemons are all running
sb_ceph_up() {
	local c
	[ -f "$SB_CEPH_STATE/up" ] || return 1
	for c in "${SB_CEPH_COMPONENTS[@]}"; do sb_alive "$c" || return 1; done
}
