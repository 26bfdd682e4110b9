#!/usr/bin/env bash
# Profiles a program for CI: archives its call graphs and gates on changes
# that are real. Used by call-graphs.yml (GitHub Actions) and
# gitlab-ci.yml; runs as well on your machine:
#
#   examples/ci/profile.sh [PROGRAM] [OUTPUT_DIR] [BASE_PROFILE_JSON]
#
# Runs PROGRAM $RUNS times (tracegraph --runs, each method's median and
# the noise between the runs) with the $CLOCK clock, and writes
# OUTPUT_DIR/call_graph.{json,dot,pdf,svg,html} (the .html is the report to
# explore in a browser, offline). The JSON is what a later build
# compares against: given BASE_PROFILE_JSON (the last good build's
# call_graph.json), it also writes OUTPUT_DIR/diff.{dot,svg,html,txt} (the
# .html to explore in a browser, with the gate's verdict) and fails
# (status 3) when the gate does, or with status 4 when it cannot tell (the
# noise between the runs wider than FAIL_ON_TIME: more RUNS, or a quieter runner):
#   FAIL_ON_CALLS=PCT  a method's call count changed by more than PCT% (0: any change)
#   FAIL_ON_TIME=PCT   a method's self time grew by more than PCT% and the noise
#   FAIL_ABOVE=PCT     the total time grew by more than PCT% and the noise
#   GATE_OPTIONS="..." more tracegraph diff options: --exempt 'Kernel#require*',
#                      --fail-on-calls 'Foo#bar=50', --min-share 2
# Unset or empty, a gate is off. RUNS defaults to 10, CLOCK to cpu.
# GROUP_BY=gem (or class, file; default method) draws a box per gem, and
# compares and gates gems: for a run that is mostly libraries, a dozen
# boxes that hold all of its time (docs/real-programs.md).
# OK_STATUS=0,1 lets the runs go on after the exit statuses PROGRAM ends
# with by design (a linter that found offenses, a test suite with known
# failures); the script then goes on to the diff. Default 0.
# Needs `tracegraph` on PATH and Graphviz's `dot`.
set -euo pipefail

program=${1:-examples/demo.rb}
out=${2:-graphs}
base=${3:-}
mkdir -p "$out"

ok_status=${OK_STATUS:-0}
run_status=0
tracegraph --runs "${RUNS:-10}" --ok-status "$ok_status" --clock "${CLOCK:-cpu}" --group-by "${GROUP_BY:-method}" --flat \
  -o "$out/call_graph.json" -o "$out/call_graph.pdf" -o "$out/call_graph.svg" -o "$out/call_graph.html" \
  "$program" || run_status=$?
# tracegraph ends as the last run did: go on only after a status of OK_STATUS.
if [ "$run_status" -ne 0 ] && [[ ",$ok_status," != *",$run_status,"* ]]; then
  exit "$run_status"
fi

status=0
if [ -n "$base" ] && [ -f "$base" ]; then
  gate=()
  [ -n "${FAIL_ON_CALLS:-}" ] && gate+=(--fail-on-calls "$FAIL_ON_CALLS")
  [ -n "${FAIL_ON_TIME:-}" ] && gate+=(--fail-on-time "$FAIL_ON_TIME")
  [ -n "${FAIL_ABOVE:-}" ] && gate+=(--fail-above "$FAIL_ABOVE")
  read -r -a extra <<< "${GATE_OPTIONS:-}"
  # The table and the gate's verdict go to the log and to diff.txt (with
  # pipefail, the status is tracegraph's: 3 when the gate fails).
  tracegraph diff --text --group-by "${GROUP_BY:-method}" -o "$out/diff.svg" -o "$out/diff.html" "${gate[@]}" "${extra[@]}" \
    "$base" "$out/call_graph.json" 2>&1 |
    tee "$out/diff.txt" || status=$?
elif [ -n "$base" ]; then
  echo "profile.sh: no base profile at $base yet; skipping the diff"
fi
ls -l "$out"
exit "$status"
