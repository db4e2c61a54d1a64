#!/usr/bin/env bash
# Runs one libFuzzer harness of tools/fuzz (or `all` of them, two at a time) for SECONDS each, with its
# seed corpus, and prints the executions and coverage reached. Builds the harnesses with clang into
# build-fuzz (-DPODSIM_FUZZ=ON) first when needed. New inputs go to build-fuzz/corpus/TARGET (the seeds in
# tools/fuzz/corpus/TARGET are only read); a crash leaves its input in build-fuzz/artifacts/TARGET/ and
# makes the script exit 1. Extra arguments go to libFuzzer (e.g. -jobs=2, -max_len=64).
# Usage: scripts/fuzz.sh TARGET|all SECONDS [LIBFUZZER_ARGS...]
# For long runs beside other work: do not edit sources while this builds (a harness linked from objects built against
# two versions of a header reports nonsense), and give -timeout=300 when the machine is loaded (a starved process hits
# the 10 s limit on inputs that take milliseconds).
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(shardy book pspec mesh_spec einsum units scenario hardware collective stablehlo hlo sweep hf_config measurement_csv serving_trace)
if [ $# -lt 2 ]; then
  echo "usage: scripts/fuzz.sh TARGET|all SECONDS [LIBFUZZER_ARGS...]; targets: ${targets[*]}" >&2
  exit 2
fi
target=$1 seconds=$2
shift 2
build=build-fuzz
configure() {
  if [ ! -f $build/CMakeCache.txt ]; then
    CC=clang CXX=clang++ cmake -S . -B $build -DPODSIM_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  fi
}
if [ "$target" = all ]; then
  # Every harness built in one go, then run PODSIM_FUZZ_JOBS at a time (default 2, one per core of a 2-core machine:
  # libFuzzer runs one process per harness). Each prints its one-line summary when it ends; exit 1 if any failed.
  configure
  cmake --build $build -j"${PODSIM_FUZZ_BUILD_JOBS:-2}" --target "${targets[@]/#/fuzz_}" >/dev/null
  printf '%s\n' "${targets[@]}" | PODSIM_FUZZ_BUILT=1 xargs -P "${PODSIM_FUZZ_JOBS:-2}" -I{} "$0" {} "$seconds" "$@" &&
    exit 0
  exit 1
fi
if [[ ! " ${targets[*]} " =~ " $target " ]]; then
  echo "error: unknown fuzz target \"$target\" (known: ${targets[*]})" >&2
  exit 2
fi

if [ -z "${PODSIM_FUZZ_BUILT:-}" ]; then  # `all` built every harness already
  configure
  cmake --build $build -j"${PODSIM_FUZZ_BUILD_JOBS:-2}" --target "fuzz_$target" >/dev/null
fi

mkdir -p "$build/corpus/$target" "$build/artifacts/$target"
log="$build/fuzz_$target.log"
# Hangs count as findings after 10 s; ASan's leak check is off (a parser's leak is not worth a CI failure).
status=0
ASAN_OPTIONS=detect_leaks=0 "$build/tools/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
  -artifact_prefix="$build/artifacts/$target/" "$@" "$build/corpus/$target" "tools/fuzz/corpus/$target" \
  >"$log" 2>&1 || status=$?

runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
edges=$(sed -n 's/.*Loaded 1 modules *(\([0-9]*\) inline 8-bit counters).*/\1/p' "$log" | head -1)
cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
echo "fuzz_$target: ${runs:-?} executions in ${took:-$seconds} s, coverage ${cov:-?} of ${edges:-?} edges (${ft:-?} features)"
if [ $status -ne 0 ]; then
  echo "fuzz_$target: FAILED (exit $status); the report, from $log:" >&2
  grep -E -A40 '^==[0-9]+==ERROR|round trip failed|deadly signal|runtime error|uncaught exception|terminate called' \
    "$log" | head -80 >&2 || tail -40 "$log" >&2
  ls "$build/artifacts/$target/" >&2
  exit 1
fi
