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
#   $SB_SHM/ceph                      both OSDs' block files (tmpfs; the
#                                    bulk one on disk with SB_CEPH_BULK_DIR)
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
SB_CEPH_BULK_SIZE=${SB_CEPH_BULK_SIZE:-4G}
# The bulk OSD's block file: on tmpfs like the ssd one, so that what makes
# `bulk` bulk is its rate limit alone (below), as on the reference page,
# and not the shared disk, whose speed varies several-fold with the
# machine's load (85 to 430 random-write IOPS in one minute, measured).
# SB_CEPH_BULK_DIR=$SB_VARTMP/ceph puts it on disk.
SB_CEPH_BULK_DIR=${SB_CEPH_BULK_DIR:-$SB_SHM/ceph}
# librbd QoS on every image of the pool rbd-bulk (the class `bulk`), as
# pool-level config that rbd-fuse's librbd applies: the reference page's
# bulk volumes are "rate-limited to < 500 IOPS" (491 read IOPS, 60.5 MiB/s).
# An I/O of the page's 1 MiB bandwidth jobs counts once against the IOPS
# limit and its bytes against the bandwidth limit.
SB_CEPH_BULK_IOPS=${SB_CEPH_BULK_IOPS:-500}
SB_CEPH_BULK_BPS=${SB_CEPH_BULK_BPS:-62914560}
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
