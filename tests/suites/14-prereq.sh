#!/usr/bin/env bash
# The background preparations of the image and cluster suites
# (tests/prereq.sh, started by tests/run-suites.sh): exit status and log tail
# passed on to the suite that waits, stop, and the image and cluster suites
# failing when their preparation failed (tests/prereq/test_prereq.sh).
exec bash "$(dirname "$0")/../prereq/test_prereq.sh"
