#!/usr/bin/env bash
# Profiles a program for CI: archives its call graphs and gates on changes
# that are real. Used by call-graphs.yml (GitHub Actions) and
# gitlab-ci.yml; runs as well on your machine:
#
#   examples/ci/profile.sh [PROGRAM] [OUTPUT_DIR] [BASE_PROFILE_JSON]
#
# Runs PROGRAM $RUNS times (tracegraph --runs, each method's median and
# the noise between the runs) with the $CLOCK clock, and writes
# OUTPUT_DIR/call_graph.{json,dot,pdf,svg}. The JSON is what a later build
# compares against: given BASE_PROFILE_JSON (the last good build's
# call_graph.json), it also writes OUTPUT_DIR/diff.{dot,svg,txt} and fails
# (status 3) when the gate does:
#   FAIL_ON_CALLS=PCT  a method's call count changed by more than PCT% (0: any change)
#   FAIL_ON_TIME=PCT   a method's self time grew by more than PCT% and the noise
#   FAIL_ABOVE=PCT     the total time grew by more than PCT% and the noise
#   GATE_OPTIONS="..." more tracegraph diff options: --ignore 'Kernel#require*',
#                      --fail-on-calls 'Foo#bar=50', --min-share 2
# Unset or empty, a gate is off. RUNS defaults to 10, CLOCK to cpu.
# Needs `tracegraph` on PATH and Graphviz's `dot`.
set -euo pipefail

program=${1:-examples/demo.rb}
out=${2:-graphs}
base=${3:-}
mkdir -p "$out"

tracegraph --runs "${RUNS:-10}" --clock "${CLOCK:-cpu}" --flat \
  -o "$out/call_graph.json" -o "$out/call_graph.pdf" -o "$out/call_graph.svg" "$program"

status=0
if [ -n "$base" ] && [ -f "$base" ]; then
  gate=()
  [ -n "${FAIL_ON_CALLS:-}" ] && gate+=(--fail-on-calls "$FAIL_ON_CALLS")
  [ -n "${FAIL_ON_TIME:-}" ] && gate+=(--fail-on-time "$FAIL_ON_TIME")
  [ -n "${FAIL_ABOVE:-}" ] && gate+=(--fail-above "$FAIL_ABOVE")
  read -r -a extra <<< "${GATE_OPTIONS:-}"
  # The table and the gate's verdict go to the log and to diff.txt (with
  # pipefail, the status is tracegraph's: 3 when the gate fails).
  tracegraph diff --text -o "$out/diff.svg" "${gate[@]}" "${extra[@]}" "$base" "$out/call_graph.json" 2>&1 |
    tee "$out/diff.txt" || status=$?
elif [ -n "$base" ]; then
  echo "profile.sh: no base profile at $base yet; skipping the diff"
fi
ls -l "$out"
exit "$status"
