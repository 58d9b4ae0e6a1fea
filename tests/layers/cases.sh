# Sourced by the tests/layers/ scripts: a scratch directory ($tmp, removed
# at exit with anything added to $cleanup), the case counters and their
# report lines. A case runs its command with output in "$tmp/out", then
# calls ok or bad with its name; bad shows the tail of that output (passes
# does both for a command that must succeed).
# Each script ends with `cases_done`.
p=0 f=0
repo=$PWD # the checkout (the scripts cd there first)
tmp=$(mktemp -d)
cleanup=()
trap 'rm -rf "$tmp" "${cleanup[@]}"' EXIT
ok() { echo "PASS $1"; p=$((p + 1)); }
bad() {
	echo "FAIL $1"
	sed 's/^/    /' "$tmp/out" | tail -n 20
	f=$((f + 1))
}
# passes NAME CMD...: the case passes when CMD succeeds (its output in "$tmp/out")
passes() {
	local name=$1
	shift
	if "$@" >"$tmp/out" 2>&1; then ok "$name"; else bad "$name"; fi
}
# exits_with NAME RC PATTERN CMD...: the case passes when CMD exits with RC
# and its output (in "$tmp/out") matches the grep pattern PATTERN
exits_with() {
	local name=$1 want=$2 pattern=$3 rc
	shift 3
	"$@" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -eq "$want" ] && grep -q -- "$pattern" "$tmp/out"; then
		ok "$name"
	else
		bad "$name (exit $rc)"
	fi
}
cases_done() {
	echo "$p passed, $f failed, 0 skipped"
	[ "$f" -eq 0 ]
}
