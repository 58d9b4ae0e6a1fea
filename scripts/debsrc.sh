# shellcheck shell=bash
# debsrc.sh: sourced by the scripts that build something from a Debian
# source package (scripts/get-kube.sh: kubernetes; scripts/get-minlibs.sh:
# curl and libmicrohttpd). The machine's apt sources have no deb-src
# entries and nothing under /etc is changed: deb-src entries are derived at
# run time from /etc/apt/sources.list{,.d/*} into a private directory and
# apt is pointed there.
#
#   debsrc_derive            print deb-src entries (one-line format) for the
#                            machine's Debian sources of this release
#   debsrc_apt_opts DIR      set the array debsrc_opts: apt-get options that
#                            use DIR's lists and caches (DIR/parts, lists, cache)
#   debsrc_update DIR LOG    derive DIR/parts/deb-src.list and apt-get update
#                            into DIR (output appended to LOG); returns 3 when
#                            no source entry could be derived
#   debsrc_download DIR LOG DEST PKG[=VERSION]
#                            apt-get source --download-only into DEST; returns 3
#                            when it failed (archive unreachable, version gone)

# Print deb-src entries (one-line format) for the machine's Debian sources
# of this release, from both the deb822 and the one-line formats.
debsrc_derive() {
	local codename files=() f
	# shellcheck source=/dev/null
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
	[ -f /etc/apt/sources.list ] && files+=(/etc/apt/sources.list)
	for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && files+=("$f")
	done
	[ ${#files[@]} -gt 0 ] || return 0
	for f in "${files[@]}"; do
		awk -v cn="$codename" -v deb822="$([[ $f == *.sources ]] && echo 1 || echo 0)" '
	function suite_ok(s) { return s == cn || index(s, cn "-") == 1 }
	function flush(   n, u, s, i, j, us, ss, opt) {
		if (types ~ /(^|[[:space:]])deb([[:space:]]|$)/ && enabled != "no" && uris != "") {
			opt = signed != "" ? "[signed-by=" signed "] " : ""
			n = split(uris, us, /[[:space:]]+/); split(suites, ss, /[[:space:]]+/)
			for (i = 1; i <= n; i++) for (j in ss) if (ss[j] != "" && suite_ok(ss[j]))
				print "deb-src " opt us[i] " " ss[j] " " comps
		}
		types = uris = suites = comps = signed = enabled = ""
	}
	deb822 == 1 {
		if ($0 ~ /^[[:space:]]*$/) { flush(); next }
		if ($0 ~ /^#/) next
		k = $1; v = $0; sub(/^[^:]*:[[:space:]]*/, "", v)
		if (k == "Types:") types = v; else if (k == "URIs:") uris = v
		else if (k == "Suites:") suites = v; else if (k == "Components:") comps = v
		else if (k == "Signed-By:") signed = v; else if (k == "Enabled:") enabled = v
		next
	}
	END { if (deb822 == 1) flush() }
	/^deb[[:space:]]/ {
		line = $0; sub(/^deb[[:space:]]+/, "", line)
		opt = ""
		if (line ~ /^\[/) { opt = substr(line, 1, index(line, "]")); line = substr(line, index(line, "]") + 1); sub(/^[[:space:]]+/, "", line); opt = opt " " }
		split(line, w, /[[:space:]]+/)
		if (suite_ok(w[2])) print "deb-src " opt line
	}' "$f"
	done | sort -u
}

debsrc_apt_opts() {
	debsrc_opts=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$1/parts"
		-o Dir::State::Lists="$1/lists" -o Dir::Cache="$1/cache" -o APT::Sandbox::User=root)
}

debsrc_update() {
	local dir=$1 log=$2
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/parts"
	debsrc_derive >"$dir/parts/deb-src.list"
	[ -s "$dir/parts/deb-src.list" ] || return 3
	debsrc_apt_opts "$dir"
	apt-get "${debsrc_opts[@]}" update -q >>"$log" 2>&1 || true
}

debsrc_download() {
	local dir=$1 log=$2 dest=$3 pkg=$4
	debsrc_apt_opts "$dir"
	mkdir -p "$dest"
	(cd "$dest" && apt-get "${debsrc_opts[@]}" source --download-only "$pkg") >>"$log" 2>&1 || return 3
}
