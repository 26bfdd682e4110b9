#!/usr/bin/env bash
# Profiles a program and renders its call graph for CI artifacts:
#
#   examples/ci/profile.sh [PROGRAM] [OUTPUT_DIR]
#
# Writes OUTPUT_DIR/call_graph.{json,dot,pdf,svg}. The JSON is the archive
# a later build can compare against. Needs `tracegraph` on PATH (gem
# install tracegraph) and Graphviz.
set -euo pipefail

program=${1:-examples/demo.rb}
out=${2:-graphs}
mkdir -p "$out"

tracegraph --flat -o "$out/call_graph.json" -o "$out/call_graph.pdf" -o "$out/call_graph.svg" "$program"
ls -l "$out"
