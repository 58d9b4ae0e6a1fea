#!/usr/bin/env bash
# The layers' link and include rule, and proof that breaking it fails the
# build (tests/layers/test_layers.sh).
exec bash "$(dirname "$0")/../layers/test_layers.sh"
