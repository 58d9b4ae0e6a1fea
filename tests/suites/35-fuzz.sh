#!/usr/bin/env bash
# The libFuzzer harnesses (fuzz/, built by make fuzz-bins): the inputs of
# every bug found (fuzz/regressions/) and a short fuzzing run from the
# seeds with a fixed seed and input count (FUZZ_RUNS, default 2000), so a
# regression fails here. Long runs: make fuzz FUZZ_SECONDS=N.
set -uo pipefail
cd "$(dirname "$0")/../.."
exec bash fuzz/run.sh short
