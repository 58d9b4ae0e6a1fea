# Sourced by the tests/layers/ scripts: a scratch directory ($tmp, removed
# at exit with anything added to $cleanup), the case counters and their
# report lines. A case runs its command with output in "$tmp/out", then
# calls ok or bad with its name; bad shows the tail of that output.
# Each script ends with `cases_done`.
p=0 f=0
tmp=$(mktemp -d)
cleanup=()
trap 'rm -rf "$tmp" "${cleanup[@]}"' EXIT
ok() { echo "PASS $1"; p=$((p + 1)); }
bad() {
	echo "FAIL $1"
	sed 's/^/    /' "$tmp/out" | tail -n 20
	f=$((f + 1))
}
cases_done() {
	echo "$p passed, $f failed, 0 skipped"
	[ "$f" -eq 0 ]
}
