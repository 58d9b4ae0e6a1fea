#!/usr/bin/env bash
# Installs every Debian package the build and the tests need, and nothing
# else. Idempotent: when everything is present it does nothing and says so.
# As root on Debian 12 it runs `apt-get update` once, then one
# `apt-get install -y`. Not root: it prints the exact command to run.
#
# Package lists live in scripts/deps/*.list (one package per line, # for
# comments), one file per area, so each area declares what it needs.
# Tools that are not Debian packages (helm) are fetched by their own
# scripts (scripts/get-helm.sh), called from here when their list says so.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

mapfile -t wanted < <(cat "$here"/deps/*.list | sed -e 's/#.*//' -e 's/[[:space:]]//g' | grep -v '^$' | sort -u)

missing=()
for p in "${wanted[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#wanted[@]} packages present"
else
	cmd="apt-get install -y --no-install-recommends ${missing[*]}"
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps: missing packages: ${missing[*]}" >&2
		echo "install-deps: run as root: apt-get update && $cmd" >&2
		exit 1
	fi
	echo "install-deps: installing ${#missing[@]} packages: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# no package may start a service on this machine (prometheus, ceph's
	# daemons: the tests start their own, inside the cluster's namespaces)
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\n# install-deps.sh: no service starts\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		trap 'rm -f /usr/sbin/policy-rc.d' EXIT
	fi
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Non-Debian tools, each from its own script (idempotent, cached).
for s in "$here"/deps/*.sh; do
	[ -e "$s" ] || continue
	bash "$s"
done
