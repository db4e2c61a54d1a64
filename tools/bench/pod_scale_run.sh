#!/usr/bin/env bash
# Whole-process figures of the pod-scale program cases (docs/performance.md, "Whole programs"): `podsim run` of
# tools/bench/scenarios/fsdp-mlp-v5p-16x16x16.json and the simulated step of
# tools/bench/scenarios/transformer-64l-v5p-16x16x16.json (`podsim plan --model des --top 1`, and issue 14's target,
# `podsim run` of the same scenario: its one plan's whole training step), and the plan search of
# tools/bench/scenarios/llama3-70b-search-v5p-16x16x16.json (top 10 by the des), each RUNS times as a fresh process;
# prints the median wall time and the median peak resident memory (the largest of the process and its simulation
# children), and the load average before and after.
# Usage: tools/bench/pod_scale_run.sh BUILD_DIR [RUNS]
set -euo pipefail
build=${1:?usage: pod_scale_run.sh BUILD_DIR [RUNS]}
runs=${2:-3}
podsim="$build/podsim"
[[ -x $podsim ]] || { echo "error: $podsim: not built" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
case_figures() {  # NAME COMMAND...: prints "NAME: median wall, median peak RSS"
  local name=$1
  shift
  local walls=() peaks=()
  for ((i = 0; i < runs; ++i)); do
    read -r wall kib < <(/usr/bin/time -f '%e %M' "$@" 2>&1 >/dev/null | tail -1)
    walls+=("$wall") peaks+=("$kib")
  done
  local wall peak
  wall=$(printf '%s\n' "${walls[@]}" | median)
  peak=$(printf '%s\n' "${peaks[@]}" | median)
  awk -v n="$name" -v r="$runs" -v w="$wall" -v p="$peak" 'BEGIN {
    printf "%s: %d runs, median wall %.2f s, median peak RSS %.1f MiB\n", n, r, w, p / 1024 }'
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
case_figures "podsim run fsdp-mlp-v5p-16x16x16" "$podsim" run "$here/scenarios/fsdp-mlp-v5p-16x16x16.json" --format json
case_figures "podsim plan --model des transformer-64l-v5p-16x16x16" \
  "$podsim" plan "$here/scenarios/transformer-64l-v5p-16x16x16.json" --model des --top 1
case_figures "podsim run transformer-64l-v5p-16x16x16" \
  "$podsim" run "$here/scenarios/transformer-64l-v5p-16x16x16.json" --format json
case_figures "podsim plan --model des --top 10 llama3-70b-search-v5p-16x16x16" \
  "$podsim" plan "$here/scenarios/llama3-70b-search-v5p-16x16x16.json" --model des --top 10
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
