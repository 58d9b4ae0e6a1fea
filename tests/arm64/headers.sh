#!/usr/bin/env bash
# headers.sh OUT: OUT becomes a directory of symbolic links to the headers
# of the libraries the project builds against (the -dev packages named in
# scripts/deps/build.list, C library excluded), laid out as the compiler
# sees them (/usr/include/X and /usr/include/<host triplet>/X both as X).
# The arm64 compile check (tests/arm64/arm64.mk) searches it after the
# cross compiler's own arm64 C library headers, so a header of the host's
# C library or kernel can never stand in for the arm64 one. These headers
# are the same upstream files on arm64; the few under the host triplet
# (OpenSSL's configuration, curl's) describe an LP64 little-endian target,
# as arm64 is.
set -euo pipefail
out=${1:?usage: headers.sh OUT}
root=$(cd "$(dirname "$0")/../.." && pwd)
triplet=$(gcc -dumpmachine)

mapfile -t pkgs < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$root/scripts/deps/build.list" |
	grep -E -- '-dev$' | grep -vx 'libc6-dev')
tmp=$out.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
n=0
for p in "${pkgs[@]}"; do
	if ! files=$(dpkg -L "$p" 2>/dev/null); then
		echo "headers.sh: $p is not installed (make deps installs it)" >&2
		exit 1
	fi
	while IFS= read -r f; do
		case "$f" in
		/usr/include/"$triplet"/*) rel=${f#/usr/include/"$triplet"/} ;;
		/usr/include/*) rel=${f#/usr/include/} ;;
		*) continue ;;
		esac
		[ -f "$f" ] || continue # directories
		mkdir -p "$tmp/$(dirname "$rel")"
		ln -sfn "$f" "$tmp/$rel"
		n=$((n + 1))
	done <<<"$files"
done
rm -rf "$out"
mv "$tmp" "$out"
echo "  headers of ${pkgs[*]}: $n files linked into $out"
