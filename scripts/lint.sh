#!/usr/bin/env bash
# Lint: the commit subjects since scripts/subjects.base, the banned-function
# grep, the function-length rule, cppcheck and clang-tidy over the C sources.
set -uo pipefail
cd "$(dirname "$0")/.."
rc=0
srcs=$(git ls-files 'lib/*.c' 'lib/**/*.c' 'runner/*.c' 'controller/*.c' 'plugin/*.c' 2>/dev/null)
hdrs=$(git ls-files 'lib/*.h' 'lib/**/*.h' 'runner/*.h' 'controller/*.h' 'plugin/*.h' 2>/dev/null)

# 0. Commit subjects of at most 72 characters, on the commits after the
# exempt history (scripts/subjects.py names each offender with its hash).
if ! /usr/bin/python3 scripts/subjects.py; then
	rc=1
fi

# 1. Banned functions (as curl and git ban them).
banned='\b(sprintf|vsprintf|strcpy|strcat|strncat|strtok|atoi|atol|gets|strncpy)[[:space:]]*\('
if out=$(grep -nE "$banned" $srcs $hdrs); then
	echo "lint: banned functions (use snprintf, strtol, bounded copies):"
	echo "$out"
	rc=1
else
	echo "lint: banned-function grep clean"
fi

# 1b. No product function over 120 lines (scripts/funclen.py names each one).
if ! /usr/bin/python3 scripts/funclen.py; then
	rc=1
fi

cflags=$(pkg-config --cflags liburing jansson yaml-0.1 libcurl openssl libmicrohttpd)
# 2. cppcheck
if command -v cppcheck >/dev/null; then
	if ! cppcheck -j "$(nproc)" --quiet --error-exitcode=1 --std=c11 --enable=warning,portability,performance \
		--inline-suppr --suppress=missingIncludeSystem -D_GNU_SOURCE -Ilib -I. $srcs; then
		rc=1
	else
		echo "lint: cppcheck clean"
	fi
fi
# 3. clang-tidy
if command -v clang-tidy >/dev/null; then
	# one clang-tidy per few files, as many at once as there are CPUs: one
	# process over every file took most of CI's lint time on a loaded machine
	if ! printf '%s\n' $srcs | xargs -P "$(nproc)" -n 6 sh -c 'clang-tidy --quiet "$@" -- \
		-std=c11 -D_GNU_SOURCE -DSB_VERSION="\"lint\"" -Ilib -I. '"$cflags"' 2>/dev/null' sh; then
		rc=1
	else
		echo "lint: clang-tidy clean"
	fi
fi
exit $rc
