#!/usr/bin/env bash
# One definition of each contract string between the binaries, and proof
# that a planted copy fails the check (tests/layers/test_contracts.sh).
exec bash "$(dirname "$0")/../layers/test_contracts.sh"
