#!/usr/bin/env bash
# Whole-process figures of one collective_bench case (docs/performance.md): runs the bench binary RUNS times with
# FILTER, each a fresh process, and prints the median wall time and the median peak resident memory (the largest
# of the process and its simulation children) above that of a process that runs no benchmark.
# Usage: tools/bench/whole_process.sh BUILD_DIR FILTER [RUNS]
#   e.g. tools/bench/whole_process.sh build 'all_reduce/x:16/y:16/z:16/fast:1' 5
set -euo pipefail
build=${1:?usage: whole_process.sh BUILD_DIR FILTER [RUNS]}
filter=${2:?usage: whole_process.sh BUILD_DIR FILTER [RUNS]}
runs=${3:-5}
bench="$build/collective_bench"
[[ -x $bench ]] || { echo "error: $bench: not built (configure with -DPODSIM_BUILD_BENCH=ON)" >&2; exit 2; }

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
measure() {  # prints "wall_s peak_KiB" of one process running $1
  /usr/bin/time -f '%e %M' "$bench" --benchmark_filter="$1" 2>&1 >/dev/null | tail -1
}

base_kib=$(for _ in 1 2 3; do measure '^$' | cut -d' ' -f2; done | median)
walls=() peaks=()
for ((i = 0; i < runs; ++i)); do
  read -r wall kib < <(measure "$filter")
  walls+=("$wall") peaks+=("$kib")
done
wall=$(printf '%s\n' "${walls[@]}" | median)
peak=$(printf '%s\n' "${peaks[@]}" | median)
awk -v f="$filter" -v r="$runs" -v w="$wall" -v p="$peak" -v b="$base_kib" 'BEGIN {
  printf "%s: %d runs, median wall %.3f s, median peak RSS %.1f MiB above an idle process (%.1f MiB)\n", f, r, w, (p - b) / 1024, b / 1024 }'
