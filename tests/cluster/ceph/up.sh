#!/usr/bin/env bash
# ceph/up.sh: start the test cluster's Ceph (called by ../up.sh when
# SB_CEPH=1, once the Kubernetes part is up; the cluster lock is held):
# 1 mon, 1 mgr, 2 BlueStore OSDs on files (device class ssd: tmpfs, bulk:
# disk), CephFS with 1 MDS, radosgw (S3), cephx on, in the control plane's
# network namespace at 10.254.254.1 (see ceph/lib.sh). Then the Kubernetes
# side: the storage classes ssd, bulk, cephfs (provisioner
# storagebench.io/ceph, tests/cluster/provisioner.py), the CephFS client
# Secret the kubelets' cephfs plugin reads, and the S3 user's Secret
# default/ceph-s3. Writes $SB_OUT/ceph.env. Prints the time to HEALTH_OK.
#
#   ceph/up.sh daemons   the daemons, to HEALTH_OK, and the provisioner's
#                        CephFS mount: needs only the namespace, so ../up.sh
#                        runs it while Kubernetes starts
#   ceph/up.sh kube      the Kubernetes side, $SB_OUT/ceph.env (needs the
#                        API server and the daemons)
#   ceph/up.sh           both
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/cluster/lib.sh
. "$here/../lib.sh"
# shellcheck source=tests/cluster/ceph/lib.sh
. "$here/lib.sh"

[ "$(id -u)" -eq 0 ] || sb_die "ceph: needs root"
[ -e "$SB_NETNS_PATH" ] || sb_die "ceph: network namespace $SB_NETNS missing (start the cluster first)"
S=$SB_CEPH_STATE
C=$SB_CEPH_CONF
phase=${1:-all}
case "$phase" in
daemons | kube | all) ;;
*) sb_die "usage: ceph/up.sh [daemons|kube]" ;;
esac

# kube_side: the Kubernetes side (classes, Secrets, the S3 endpoint as a
# Service) and $SB_OUT/ceph.env
kube_side() {
	local fskey ak sk
	[ -f "$S/daemons-up" ] || sb_die "ceph: the daemons are not up (ceph/up.sh daemons)"
	fskey=$(sed -n 's/^[[:space:]]*key = //p' "$S/keys/ceph.client.k8sfs.keyring")
	read -r ak sk <"$S/keys/s3-bench"
	# (ceph.yaml's VolumeSnapshotClass needs the CRDs ../up.sh applied)
	sb_kubectl wait --for=condition=Established --timeout=60s \
		crd/volumesnapshotclasses.snapshot.storage.k8s.io >>"$SB_STATE/logs/bootstrap.log"
	sed -e "s|@CEPH_MON@|$SB_CEPH_MON|g" -e "s|@FSKEY@|$fskey|g" -e "s|@AK@|$ak|g" -e "s|@SK@|$sk|g" \
		-e "s|@S3@|$SB_CEPH_S3|g" -e "s|@CEPH_IP@|$SB_CEPH_IP|g" -e "s|@RGW_PORT@|$SB_CEPH_RGW_PORT|g" \
		"$here/ceph.yaml" | sb_kubectl apply -f - >>"$SB_STATE/logs/bootstrap.log"

	cat >"$SB_OUT/ceph.env" <<ENV
# The test cluster's Ceph: . $SB_OUT/ceph.env. Every Ceph command runs
# inside the namespace with the config: \$NSENTER ceph -c \$CEPH_CONF ...
export SB_CEPH=1
export CEPH_CONF=$C
export CEPH_STATE=$S
export CEPH_MON=$SB_CEPH_MON
export CEPH_OSD_SSD=$(cat "$S/osd-ssd.id")
export CEPH_OSD_BULK=$(cat "$S/osd-bulk.id")
export S3_ENDPOINT=$SB_CEPH_S3
export AWS_ACCESS_KEY_ID=$ak
export AWS_SECRET_ACCESS_KEY=$sk
ENV
	chmod 600 "$SB_OUT/ceph.env"
	date +%s >"$S/up"
	sb_step "ceph: classes ssd bulk cephfs, S3 $SB_CEPH_S3 (Secret default/ceph-s3); . $SB_OUT/ceph.env"
}
if [ "$phase" = kube ]; then
	kube_side
	exit 0
fi
[ -e "$C" ] && sb_die "ceph: $S already holds a cluster (cluster-down first)"

# --- packages (scripts/deps/optional/ceph.list)
mapfile -t wanted < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$SB_CEPH_DEPS" | grep -v '^$')
missing=()
for p in "${wanted[@]}"; do
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)" = installed ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	sb_step "ceph: installing from Debian: ${missing[*]}"
	mkdir -p "$SB_STATE/logs"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" \
		>>"$SB_STATE/logs/ceph-apt.log" 2>&1 || {
		DEBIAN_FRONTEND=noninteractive apt-get update -q >>"$SB_STATE/logs/ceph-apt.log" 2>&1 || true
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" \
			>>"$SB_STATE/logs/ceph-apt.log" 2>&1
	} || sb_die "ceph: apt-get install ${missing[*]} failed (see $SB_STATE/logs/ceph-apt.log)"
fi

t0=$(date +%s%N)
mkdir -p "$S"/{keys,mon,mgr,osd,mds,log,run,crash,mnt/cephfs,mnt/rbd} "$SB_SHM/ceph" "$SB_CEPH_BULK_DIR"
fsid=$(cat /proc/sys/kernel/random/uuid)
sb_step "ceph: starting mon, mgr, 2 OSDs (ssd, bulk), mds, radosgw at $SB_CEPH_IP (state $S)"

# The config: every path under $S, size-1 pools of 8 PGs, memory trimmed
# from the server defaults, Paxos rounds of 0.1 s (1 s makes start-up 3x
# slower). No pid_file in [client]: two ceph-fuse of one user would share it.
cat >"$C" <<CONF
[global]
fsid = $fsid
mon_host = [v2:$SB_CEPH_IP:3300,v1:$SB_CEPH_IP:6789]
public_network = 10.254.254.0/24
auth_cluster_required = cephx
auth_service_required = cephx
auth_client_required = cephx
auth_allow_insecure_global_id_reclaim = false
run_dir = $S/run
crash_dir = $S/crash
log_file = $S/log/\$cluster-\$name.log
mon_data = $S/mon/\$cluster-\$id
osd_data = $S/osd/\$cluster-\$id
mgr_data = $S/mgr/\$cluster-\$id
mds_data = $S/mds/\$cluster-\$id
ms_bind_ipv6 = false
osd_pool_default_size = 1
osd_pool_default_min_size = 1
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
osd_pool_default_pg_autoscale_mode = off
osd_crush_chooseleaf_type = 0
mon_allow_pool_size_one = true
mon_allow_pool_delete = true
mon_warn_on_pool_no_redundancy = false
mon_data_avail_warn = 5
paxos_propose_interval = 0.1

[mon]
mon_cluster_log_file = $S/log/\$cluster.log
mgr_initial_modules = iostat
mon_memory_target = 268435456

[osd]
osd_objectstore = bluestore
osd_memory_target = 805306368
osd_memory_base = 268435456
osd_op_num_shards = 2
osd_op_num_threads_per_shard = 1
bluestore_rocksdb_options_annex = write_buffer_size=67108864,max_write_buffer_number=2,max_total_wal_size=268435456

[mds]
mds_cache_memory_limit = 134217728

[client]
keyring = $S/keys/\$cluster.\$name.keyring
client_oc_size = 67108864
client_oc_max_dirty = 33554432

[client.rgw.a]
rgw_data = $S/rgw
rgw_frontends = beast endpoint=$SB_CEPH_IP:$SB_CEPH_RGW_PORT
rgw_thread_pool_size = 32
CONF

ceph_() { sb_ceph ceph --connect-timeout 20 "$@"; }
quiet() {
	local out
	out=$("$@" 2>&1) || sb_die "ceph: failed: $*
$out"
}
wait_for() { # wait_for WHAT SECONDS CMD...
	local what=$1 secs=$2 i c
	shift 2
	for ((i = 0; i < secs * 5; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		for c in ${WAIT_ALIVE:-}; do
			sb_alive "$c" || sb_die "ceph: $c exited while waiting for $what:
$(tail -n 20 "$SB_STATE/logs/$c.log")"
		done
		sleep 0.2
	done
	sb_die "ceph: $what not ready after ${secs}s"
}
# daemon NAME CMD...: a Ceph daemon in the foreground, niced, as a component
daemon() {
	local n=$1
	shift
	sb_launch "$n" nice -n 10 "$@" -f -c "$C"
}

# --- keys and the monitor
cd /
sb_ns ceph-authtool --create-keyring "$S/mon.keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
sb_ns ceph-authtool --create-keyring "$S/keys/ceph.client.admin.keyring" --gen-key -n client.admin \
	--cap mon 'allow *' --cap osd 'allow *' --cap mds 'allow *' --cap mgr 'allow *' >/dev/null
sb_ns ceph-authtool "$S/mon.keyring" --import-keyring "$S/keys/ceph.client.admin.keyring" >/dev/null
sb_ns monmaptool --create --fsid "$fsid" --addv a "[v2:$SB_CEPH_IP:3300,v1:$SB_CEPH_IP:6789]" "$S/monmap" >/dev/null
quiet sb_ns ceph-mon -c "$C" --mkfs -i a --monmap "$S/monmap" --keyring "$S/mon.keyring"
daemon ceph-mon ceph-mon -i a
WAIT_ALIVE=ceph-mon wait_for "mon a in quorum" 60 ceph_ mon stat

# --- manager
mkdir -p "$S/mgr/ceph-x"
ceph_ auth get-or-create mgr.x mon 'allow profile mgr' osd 'allow *' mds 'allow *' -o "$S/mgr/ceph-x/keyring"
daemon ceph-mgr ceph-mgr -i x

# --- two OSDs on sparse files; the device class is given at `osd new`
mkosd() { # mkosd CLASS BLOCKFILE SIZE
	local class=$1 blk=$2 size=$3 uuid key id d
	uuid=$(cat /proc/sys/kernel/random/uuid)
	key=$(sb_ns ceph-authtool --gen-print-key)
	id=$(echo "{\"cephx_secret\": \"$key\", \"crush_device_class\": \"$class\"}" | ceph_ osd new "$uuid" -i -)
	d=$S/osd/ceph-$id
	mkdir -p "$d"
	truncate -s "$size" "$blk"
	ln -s "$blk" "$d/block"
	sb_ns ceph-authtool --create-keyring "$d/keyring" --name "osd.$id" --add-key "$key" >/dev/null
	quiet sb_ns ceph-osd -c "$C" -i "$id" --mkfs --osd-uuid "$uuid"
	echo "$id" >"$S/osd-$class.id"
	daemon "ceph-osd-$class" ceph-osd -i "$id"
}
mkosd ssd "$SB_SHM/ceph/osd-ssd.block" "$SB_CEPH_SSD_SIZE"
mkosd bulk "$SB_CEPH_BULK_DIR/osd-bulk.block" "$SB_CEPH_BULK_SIZE"
osds_up() { [ "$(ceph_ osd stat -f json | python3 -c 'import json,sys; print(json.load(sys.stdin)["num_up_osds"])')" = 2 ]; }
WAIT_ALIVE="ceph-mon ceph-osd-ssd ceph-osd-bulk" wait_for "2 OSDs up" 120 osds_up
sb_step "ceph: mon, mgr, osd.$(cat "$S/osd-ssd.id") (ssd), osd.$(cat "$S/osd-bulk.id") (bulk) up"

# --- CRUSH rules per class and the pools on them
ceph_ osd crush rule create-replicated ssd default osd ssd >/dev/null
ceph_ osd crush rule create-replicated bulk default osd bulk >/dev/null
pool() { # pool NAME RULE APPLICATION
	quiet ceph_ osd pool create "$1" --pg_num 8 --pgp_num 8 --pool_type replicated --rule "$2"
	quiet ceph_ osd pool application enable "$1" "$3"
}
pool rbd-ssd ssd rbd
pool rbd-bulk bulk rbd
pool cephfs.meta ssd cephfs
pool cephfs.data bulk cephfs
for p in .rgw.root default.rgw.log default.rgw.control default.rgw.meta default.rgw.buckets.index \
	default.rgw.buckets.non-ec; do
	pool "$p" ssd rgw
done
pool default.rgw.buckets.data bulk rgw
quiet sb_ceph rbd pool init rbd-ssd
quiet sb_ceph rbd pool init rbd-bulk
# bulk is rate-limited (ceph/lib.sh): every image of the pool, read at open
quiet sb_ceph rbd config pool set rbd-bulk rbd_qos_iops_limit "$SB_CEPH_BULK_IOPS"
quiet sb_ceph rbd config pool set rbd-bulk rbd_qos_bps_limit "$SB_CEPH_BULK_BPS"

# --- CephFS and its MDS
quiet ceph_ fs new cephfs cephfs.meta cephfs.data
quiet ceph_ fs set cephfs standby_count_wanted 0
mkdir -p "$S/mds/ceph-a"
ceph_ auth get-or-create mds.a mon 'allow profile mds' osd 'allow rwx' mds 'allow' mgr 'allow profile mds' \
	-o "$S/mds/ceph-a/keyring"
daemon ceph-mds ceph-mds -i a

# --- radosgw
mkdir -p "$S/rgw"
ceph_ auth get-or-create client.rgw.a mon 'allow rw' osd 'allow rwx' mgr 'allow rw' -o "$S/keys/ceph.client.rgw.a.keyring"
daemon radosgw radosgw -n client.rgw.a

mds_active() { ceph_ fs status cephfs | grep -q active; }
WAIT_ALIVE=ceph-mds wait_for "mds.a active" 60 mds_active
rgw_up() { [ "$(sb_ns curl -s -o /dev/null -w '%{http_code}' "$SB_CEPH_S3/")" = 200 ]; }
WAIT_ALIVE=radosgw wait_for "radosgw on $SB_CEPH_S3" 90 rgw_up

# --- client identities: the kubelets' CephFS user, the provisioner's RBD
# user, the S3 user
ceph_ fs authorize cephfs client.k8sfs / rw >"$S/keys/ceph.client.k8sfs.keyring"
ceph_ auth get-or-create client.k8srbd mon 'profile rbd' osd 'profile rbd pool=rbd-ssd, profile rbd pool=rbd-bulk' \
	mgr 'profile rbd' -o "$S/keys/ceph.client.k8srbd.keyring"
ak=$(head -c 10 /dev/urandom | od -An -tx1 | tr -d ' \n' | tr a-f A-F)
sk=$(head -c 20 /dev/urandom | od -An -tx1 | tr -d ' \n')
quiet sb_ceph radosgw-admin user create --uid=bench --display-name=bench --access-key="$ak" --secret-key="$sk"
printf '%s %s\n' "$ak" "$sk" >"$S/keys/s3-bench"
chmod 600 "$S/keys/s3-bench"

healthy() { [ "$(ceph_ health)" = HEALTH_OK ]; }
if ! WAIT_ALIVE="${SB_CEPH_COMPONENTS[*]}" wait_for HEALTH_OK 120 healthy; then
	ceph_ health detail >&2 || true
	exit 1
fi
t1=$(date +%s%N)

# --- the provisioner's CephFS mount (subdirectories per PV, quotas); ceph-fuse
# stays behind as a daemon: fd 8 (the cluster lock) must not go with it
mountpoint -q "$S/mnt/cephfs" ||
	(cd / && sb_ns ceph-fuse -c "$C" --id admin -r / "$S/mnt/cephfs" >>"$SB_STATE/logs/ceph-fuse-admin.log" 2>&1 8>&-) ||
	sb_die "ceph: ceph-fuse admin mount failed (see $SB_STATE/logs/ceph-fuse-admin.log)"
mkdir -p "$S/mnt/cephfs/volumes"
rss=0
for c in "${SB_CEPH_COMPONENTS[@]}"; do
	p=$(cat "$SB_STATE/run/$c.pid")
	# (the traced process when run under strace)
	if [ "$(cat /proc/"$p"/comm 2>/dev/null)" = strace ]; then
		p=$(cat /proc/"$p"/task/*/children 2>/dev/null | awk '{print $1}')
	fi
	r=$(awk '/^VmRSS:/ {print $2}' /proc/"$p"/status 2>/dev/null || echo 0)
	rss=$((rss + ${r:-0}))
done
sb_step "ceph: HEALTH_OK in $(((t1 - t0) / 1000000)) ms; daemons $((rss / 1024)) MiB resident"
touch "$S/daemons-up"
[ "$phase" = daemons ] && exit 0
kube_side
