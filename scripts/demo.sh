#!/usr/bin/env bash
# Placeholder until the runner exists.
echo "demo: not built yet" >&2
exit 1
