#!/usr/bin/env bash
# Byte-for-byte comparison of two podsim builds (docs/performance.md, "The full path at pod scale"): runs the same
# cases with OLD_BIN and NEW_BIN and reports every output (stdout, stderr, exit code, --links CSV) that differs.
# Cases: `podsim collective --model des --json --links` for the four kinds on small tori and meshes (wrap none, all
# and 0,1; sequential and concurrent multi-axis: the mesh ones fall back to the full simulation), five algorithms on
# 4x4 and 8x4, a two-slice all-reduce over the DCN, the 8x8x8 concurrent mesh all-reduce; and `podsim run` with
# --format json and --format csv on every shipped scenario (scenarios/**.json; the plan scenarios exit 2 there, which
# is compared too). Both binaries are copied first, so rebuilding either during the run does not matter.
# Usage: scripts/compare_outputs.sh OLD_BIN NEW_BIN [WORK_DIR]
#   e.g. scripts/compare_outputs.sh /work/main/build/podsim build/podsim
# Exit code: 0 when every output is identical, 1 when some differ, 2 on bad usage.
set -uo pipefail
old=${1:?usage: compare_outputs.sh OLD_BIN NEW_BIN [WORK_DIR]}
new=${2:?usage: compare_outputs.sh OLD_BIN NEW_BIN [WORK_DIR]}
work=${3:-$(mktemp -d)}
root=$(cd "$(dirname "$0")/.." && pwd)
for bin in "$old" "$new"; do
  [[ -x $bin ]] || { echo "error: $bin: not an executable" >&2; exit 2; }
done
mkdir -p "$work/old" "$work/new" "$work/bin"
# Snapshots: a build that is relinked during the comparison would otherwise mix two versions.
cp "$old" "$work/bin/old" && cp "$new" "$work/bin/new" || exit 2
old=$work/bin/old new=$work/bin/new

cases=()  # one line per case: a name, a tab, the podsim arguments (LINKS stands for the CSV path)
add() { cases+=("$1"$'\t'"$2"); }
for op in all-reduce all-gather reduce-scatter all-to-all; do
  for slice in 4x4x4 3x5x7 2x4x3; do
    for wrap in none all 0,1; do
      for multi in sequential concurrent; do
        add "coll-$op-$slice-$wrap-$multi" "collective --hardware tpu-v5p --slice $slice --wrap $wrap --op $op \
--axes X,Y,Z --multi-axis $multi --array-bytes 64MiB --model des --json --links LINKS"
      done
    done
  done
done
for algorithm in unidirectional bidirectional bidirectional-split line direct; do
  add "alg-$algorithm-4x4" "collective --slice 4x4 --op all-reduce --axes X,Y --algorithm $algorithm \
--array-bytes 3MiB --model des --json --links LINKS"
  add "alg-$algorithm-8x4" "collective --slice 8x4 --op all-gather --axes X --algorithm $algorithm \
--array-bytes 5000001 --model des --json --links LINKS"
done
add "dcn-2-slices" "collective --hardware tpu-v5p --slice 4x4x4 --slices 2 --op all-reduce --axes DCN,X \
--array-bytes 64MiB --model des --json --links LINKS"
add "mesh-8x8x8-concurrent" "collective --hardware tpu-v5p --slice 8x8x8 --wrap none --op all-reduce --axes X,Y,Z \
--multi-axis concurrent --array-bytes 64MiB --model des --json --links LINKS"
while IFS= read -r scenario; do
  name=${scenario#"$root"/scenarios/}
  name=${name//\//-}
  add "run-json-$name" "run --format json $scenario"
  add "run-csv-$name" "run --format csv $scenario"
done < <(find "$root/scenarios" -name '*.json' | sort)

differ=0
for entry in "${cases[@]}"; do
  name=${entry%%$'\t'*}
  args=${entry#*$'\t'}
  for side in old new; do
    bin=$old
    [[ $side == new ]] && bin=$new
    out="$work/$side/$name"
    # shellcheck disable=SC2086  # the arguments are word-split on purpose (no case has spaces in a value)
    "$bin" ${args//LINKS/$out.links.csv} >"$out.stdout" 2>"$out.stderr"
    echo $? >"$out.rc"
  done
  for file in "$work/old/$name".*; do
    twin="$work/new/${file##*/}"
    if ! cmp -s "$file" "$twin"; then
      echo "DIFFERS: $name (${file##*.}): diff $file $twin"
      differ=$((differ + 1))
    fi
  done
done
echo "${#cases[@]} cases, $differ outputs differ (outputs in $work)"
[[ $differ == 0 ]]
