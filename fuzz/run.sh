#!/usr/bin/env bash
# Runs the libFuzzer harnesses built by `make fuzz-bins` (build/fuzz/bin/).
#
#   fuzz/run.sh short [NAME...]  the test suite (tests/suites/35-fuzz.sh): each
#                                harness first replays fuzz/regressions/NAME/
#                                (the inputs of bugs found, each must pass), then
#                                fuzzes FUZZ_RUNS (2000) inputs from a fresh copy of
#                                its seeds with a fixed seed: the same inputs on
#                                every machine, however fast.
#   fuzz/run.sh long [NAME...]   `make fuzz`: each harness for FUZZ_SECONDS (60),
#                                growing build/fuzz/corpus/NAME/ across runs;
#                                crashes land in build/fuzz/findings/NAME/.
#
# Seeds: fuzz/seeds/NAME/, plus the repository's fixtures and, for job
# files, fio's example job files (/usr/share/doc/fio/examples, package
# fio-examples). Prints "ok"/"FAIL" per harness and ends with
# "N passed, N failed, N skipped"; exits 1 when any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-short}
shift || true
bindir=build/fuzz/bin
all=$(ls fuzz/fuzz_*.c | sed -e 's|fuzz/fuzz_||' -e 's|\.c$||')
names=${*:-$all}
passed=0 failed=0 skipped=0

# seeds NAME DIR: copies every seed of harness NAME into DIR
seeds() {
	local name=$1 dir=$2 f
	mkdir -p "$dir"
	[ -d "fuzz/seeds/$name" ] && cp fuzz/seeds/"$name"/* "$dir"/ 2>/dev/null
	case $name in
	jobfile)
		for f in /usr/share/doc/fio/examples/*.fio; do
			[ -e "$f" ] && cp "$f" "$dir/fio-$(basename "$f")"
		done
		;;
	report)
		cp tests/fixtures/reports/*.json "$dir"/
		;;
	tzif)
		# zone files of tzdata (scripts/deps/test.list): DST both ways, fixed, UTC
		for f in Europe/Berlin America/New_York Australia/Lord_Howe Asia/Kolkata Etc/UTC; do
			[ -e "/usr/share/zoneinfo/$f" ] && cp "/usr/share/zoneinfo/$f" "$dir/zone-${f//\//-}"
		done
		;;
	spec)
		# the spec of every example BenchmarkRun, as the controller gets it (JSON)
		for f in manifests/examples/*.yaml; do
			/usr/bin/python3 -c 'import json,sys,yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d and d.get("kind") == "BenchmarkRun":
        print(json.dumps(d["spec"]))
        break' "$f" >"$dir/example-$(basename "$f" .yaml).json" || return 1
		done
		;;
	esac
	return 0
}

for name in $names; do
	bin=$bindir/fuzz_$name
	if [ ! -x "$bin" ]; then
		echo "FAIL fuzz/$name: $bin not built (make fuzz-bins; clang-14 from scripts/install-deps.sh)"
		failed=$((failed + 1))
		continue
	fi
	log=$(mktemp)
	ok=1
	why=""
	# 1. every input that once broke something
	regs=(fuzz/regressions/"$name"/*)
	if [ -e "${regs[0]}" ]; then
		if ! "$bin" -rss_limit_mb=2048 -timeout=30 "${regs[@]}" >"$log" 2>&1; then
			ok=0 why="a regression input fails again"
		fi
	fi
	# 2. fuzzing from the seeds
	if [ $ok = 1 ]; then
		if [ "$mode" = long ]; then
			corpus=build/fuzz/corpus/$name
			findings=build/fuzz/findings/$name
			mkdir -p "$corpus" "$findings"
			seeddir=$(mktemp -d)
			seeds "$name" "$seeddir"
			"$bin" -max_total_time="${FUZZ_SECONDS:-60}" -rss_limit_mb=2048 -timeout=30 \
				-artifact_prefix="$findings/" -print_final_stats=1 \
				"$corpus" "$seeddir" >"$log" 2>&1 || { ok=0 why="a finding: see $findings/"; }
			rm -rf "$seeddir"
		else
			work=$(mktemp -d)
			seeds "$name" "$work/seeds"
			mkdir -p "$work/corpus" "$work/findings"
			"$bin" -seed=1 -runs="${FUZZ_RUNS:-2000}" -rss_limit_mb=2048 -timeout=30 \
				-artifact_prefix="$work/findings/" \
				"$work/corpus" "$work/seeds" >"$log" 2>&1 || {
				ok=0
				mkdir -p build/fuzz/findings/"$name"
				cp "$work"/findings/* build/fuzz/findings/"$name"/ 2>/dev/null
				why="a finding (kept in build/fuzz/findings/$name/)"
			}
			rm -rf "$work"
		fi
	fi
	if [ $ok = 1 ]; then
		stats=$(grep -Eo '#[0-9]+[[:space:]]+DONE.*' "$log" | tail -n 1)
		echo "ok   fuzz/$name ${stats:+($stats)}"
		passed=$((passed + 1))
	else
		echo "FAIL fuzz/$name: $why"
		grep -E 'ERROR|SUMMARY|Test unit written|^    #[0-9]' "$log" | head -n 30 | sed 's/^/    /'
		failed=$((failed + 1))
	fi
	rm -f "$log"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
