#!/usr/bin/env bash
# The controller's resident memory before it has done anything, per mapping
# (docs/benchmarks.md "The libraries' floor"): the controller is started
# against a kubeconfig whose server (127.0.0.1:1) refuses connections, gdb
# stops it in exit() after its first request failed, and its smaps are
# summed per mapping (resident KiB, of which anonymous). Nothing leaves the
# machine. Needs gdb.  usage: scripts/rss-floor.sh [CONTROLLER]
set -euo pipefail
bin=${1:-bin/storagebench-controller}
command -v gdb >/dev/null || { echo "rss-floor: gdb is not installed (scripts/deps/optional/bench.list)" >&2; exit 2; }
[ -x "$bin" ] || { echo "rss-floor: $bin is not built (make all)" >&2; exit 2; }
kubeconfig=$(cd "$(dirname "$0")/.." && pwd)/tests/fixtures/kubeconfig-refused.yaml
bin=$(readlink -f "$bin") # gdb runs exactly this file, whatever its cwd and PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/gdb" <<GDB
set pagination off
break exit
run
python import shutil; p = gdb.selected_inferior().pid; shutil.copy("/proc/%d/smaps" % p, "$tmp/smaps"); shutil.copy("/proc/%d/status" % p, "$tmp/status")
kill
quit
GDB
gdb -q -batch -x "$tmp/gdb" --args "$bin" --kubeconfig="$kubeconfig" --metrics-bind-address=0 >"$tmp/log" 2>&1 || true
[ -s "$tmp/smaps" ] || { echo "rss-floor: the controller did not stop in exit():" >&2; tail -5 "$tmp/log" >&2; exit 1; }
echo "resident_kib anonymous_kib mapping"
awk '/^[0-9a-f]+-[0-9a-f]+ /{name = (NF >= 6 ? $6 : "[anonymous]")}
     /^Rss:/{r[name] += $2} /^Anonymous:/{a[name] += $2}
     END {for (n in r) if (r[n]) printf "%d %d %s\n", r[n], a[n], n}' "$tmp/smaps" | sort -n
grep -E '^(VmRSS|RssAnon|RssFile):' "$tmp/status"
