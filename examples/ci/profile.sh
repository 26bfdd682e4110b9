#!/usr/bin/env bash
# Profiles a program and renders its call graph for CI artifacts:
#
#   examples/ci/profile.sh [PROGRAM] [OUTPUT_DIR] [BASE_PROFILE_JSON]
#
# Writes OUTPUT_DIR/call_graph.{json,dot,pdf,svg}. The JSON is the archive
# a later build compares against: given BASE_PROFILE_JSON (the last good
# build's call_graph.json), it also writes OUTPUT_DIR/diff.{dot,svg} and
# prints the top regressions. Set FAIL_ABOVE=PCT to fail the build when
# total time grew by more than PCT percent. Needs `tracegraph` on PATH
# (gem install tracegraph) and Graphviz.
set -euo pipefail

program=${1:-examples/demo.rb}
out=${2:-graphs}
base=${3:-}
mkdir -p "$out"

tracegraph --flat -o "$out/call_graph.json" -o "$out/call_graph.pdf" -o "$out/call_graph.svg" "$program"

if [ -n "$base" ] && [ -f "$base" ]; then
  gate=()
  [ -n "${FAIL_ABOVE:-}" ] && gate=(--fail-above "$FAIL_ABOVE")
  tracegraph diff --text -o "$out/diff.svg" "${gate[@]}" "$base" "$out/call_graph.json"
elif [ -n "$base" ]; then
  echo "profile.sh: no base profile at $base yet; skipping the diff"
fi
ls -l "$out"
