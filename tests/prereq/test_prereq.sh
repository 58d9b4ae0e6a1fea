#!/usr/bin/env bash
# tests/prereq.sh, the background preparations of the image and cluster
# suites: a job's exit status reaches the suite that waits for it, a failure
# shows the log's tail, a job stopped or killed is a failure, the lock is held
# from the moment start returns, stop ends the job's whole process group; and
# the image and cluster suites fail (never skip or pass) when their
# background preparation failed. The jobs are stand-ins (SB_PREREQ_TEST_CMD)
# driven through a FIFO, not timed. Prints ok/FAIL lines and a count line.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
P=tests/prereq.sh
p=0 f=0 s=0
tmp=$(mktemp -d)
export SB_PREREQ_DIR=$tmp/state
cleanup() {
	SB_PREREQ_DIR=$tmp/state bash $P stop >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
ok() { echo "ok   prereq/$1"; p=$((p + 1)); }
fail() { echo "FAIL prereq/$1: $2"; f=$((f + 1)); }
# check NAME COND-EXIT-STATUS MESSAGE
check() { if [ "$2" -eq 0 ]; then ok "$1"; else fail "$1" "$3"; fi; }

# 1. a job that ends well: wait returns 0 and says so
out=$(SB_PREREQ_TEST_CMD='echo "built $JOB"' bash $P start kube 2>&1) &&
	w=$(bash $P wait kube 2>&1)
rc=$?
[ $rc -eq 0 ] && grep -q "kube done in the background" <<<"$w" && grep -q "built kube" "$SB_PREREQ_DIR/kube.log"
check wait-ok $? "rc $rc, start: $out, wait: $w"

# 2. a job that fails: its exit status (3 is get-kube.sh's "cannot build
#    here", which the cluster suite tells apart) and the log's tail
SB_PREREQ_TEST_CMD='for i in $(seq 1 50); do echo "line $i"; done; echo "the real error"; exit 3' \
	bash $P start kube >/dev/null 2>&1
w=$(bash $P wait kube 2>&1)
rc=$?
[ $rc -eq 3 ] && grep -q "kube failed (exit status 3)" <<<"$w" && grep -q "  | the real error" <<<"$w" &&
	! grep -q "  | line 1$" <<<"$w"
check wait-failure-status-and-tail $? "rc $rc, wait said: $w"

# 3. the lock is held as soon as start returns: a job blocked on a FIFO
#    cannot have ended, and a second start of it is refused; wait blocks
#    until the FIFO lets it go
mkfifo "$tmp/go"
SB_PREREQ_TEST_CMD="read -r x <'$tmp/go'; echo \"got \$x\"; exit 0" bash $P start arm64-libs >/dev/null 2>&1
held=1
flock -n "$SB_PREREQ_DIR/arm64-libs.lock" true || held=0
again=0
SB_PREREQ_TEST_CMD=true bash $P start arm64-libs >/dev/null 2>&1 || again=1
bash $P wait arm64-libs >"$tmp/w3" 2>&1 &
wpid=$!
# the job is let go only once the waiter blocks on the lock (its flock
# child), or has returned already (which is the failure this case catches)
while kill -0 $wpid 2>/dev/null && ! pgrep -P $wpid -x flock >/dev/null; do sleep 0.05; done
echo go >"$tmp/go"
wait $wpid
rc=$?
[ $held = 0 ] && [ $again = 1 ] && [ $rc -eq 0 ] && grep -q "got go" "$SB_PREREQ_DIR/arm64-libs.log"
check lock-held-while-running $? "lock free while running: $held (0 = held), second start refused: $again, wait rc $rc: $(cat "$tmp/w3")"

# 4. stop: the job's process group ends (a grandchild included), and a
#    stopped job is a failure for its waiter, not a pass
mkfifo "$tmp/go4" "$tmp/gc"
# the job never gets past opening go4 (nobody writes it)
SB_PREREQ_TEST_CMD="sleep 1000 & echo \$! >'$tmp/gc'; read -r x <'$tmp/go4'" \
	bash $P start ceph-packages >/dev/null 2>&1
gc=$(cat "$tmp/gc") # blocks until the grandchild exists
bash $P stop >/dev/null 2>&1
w=$(bash $P wait ceph-packages 2>&1) # returns once every holder of the lock is gone
rc=$?
gone=1 # gone, or a zombie not reaped yet
if [ -e "/proc/$gc" ] && ! grep -qE '^[0-9]+ \(.*\) Z' "/proc/$gc/stat" 2>/dev/null; then gone=0; fi
[ $rc -ne 0 ] && grep -q "ended without an exit status" <<<"$w" && [ $gone = 1 ]
check stop-ends-the-group $? "rc $rc, grandchild gone: $gone, wait said: $w"

# 5. a job never started: wait returns 0 at once (the suite does the work itself)
bash $P wait nothing-started >/dev/null 2>&1
check wait-unstarted-is-noop $? "wait on an unstarted job failed"

# 6. the image suite fails, with the log's tail, when its arm64 libraries
#    failed in the background, and does not go on to build the image
SB_PREREQ_TEST_CMD='echo "get-minlibs: error: configure of curl failed"; exit 1' bash $P start arm64-libs >/dev/null 2>&1
out=$(bash tests/suites/45-image.sh 2>&1)
rc=$?
[ $rc -ne 0 ] && grep -q "^FAIL image/build: the arm64 libraries, built in the background, failed" <<<"$out" &&
	grep -q "  | get-minlibs: error: configure of curl failed" <<<"$out" && grep -q "^0 passed, 1 failed, 0 skipped$" <<<"$out"
check image-suite-fails-on-background-failure $? "rc $rc: $out"

# 7. the cluster suite, the same with the Kubernetes build (as root only:
#    not root, the suite skips before it looks; nothing of a cluster is touched
#    before this check)
if [ "$(id -u)" -eq 0 ]; then
	SB_PREREQ_TEST_CMD='echo "go build kubelet failed"; exit 1' bash $P start kube >/dev/null 2>&1
	out=$(bash tests/suites/50-cluster.sh 2>&1)
	rc=$?
	[ $rc -ne 0 ] && grep -q "^FAIL cluster/get-kube: scripts/get-kube.sh exited 1" <<<"$out" &&
		grep -q "  | go build kubelet failed" <<<"$out" && ! grep -q "^--- cluster-up" <<<"$out"
	check cluster-suite-fails-on-background-failure $? "rc $rc: $(tail -n 20 <<<"$out")"
else
	echo "skip prereq/cluster-suite-fails-on-background-failure: needs root (the cluster suite skips without it)"
	s=$((s + 1))
fi

echo "$p passed, $f failed, $s skipped"
[ $f -eq 0 ]
