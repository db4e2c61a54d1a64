#!/usr/bin/env bash
# Byte-for-byte comparison of two podsim builds (docs/performance.md, "The full path at pod scale"): runs the same
# cases with OLD_BIN and NEW_BIN and reports every output (stdout, stderr, exit code, and every file a case writes)
# that differs. Cases:
# - `podsim collective --model des --json --links` for the four kinds on small tori and meshes (wrap none, all and 0,1;
#   sequential and concurrent multi-axis: the mesh ones fall back to the full simulation), five algorithms on 4x4 and
#   8x4, a two-slice all-reduce over the DCN, the 8x8x8 concurrent mesh all-reduce;
# - `podsim run` with --format json, --format csv, and as text with --report and --trace on every shipped scenario
#   (scenarios/**.json; the plan and serving scenarios exit 2 there, which is compared too); a model-level scenario of
#   three plans written to WORK_DIR (as JSON, CSV, text, HTML, each plan's trace) and with another scenario; `podsim
#   check` (text and --json) of model-level and op-level scenarios together;
# - `podsim plan` as a text table, --json and --csv on every shipped scenario with a search section, each with its
#   default --model both (the closed form, then the des of the best 10) except the ones in `book_plans` below, whose
#   des of 10 candidates takes more than about 20 s (up to minutes: mixtral-8x7b, llama3.1-405b), given --model book,
#   and the serving search (scenarios/serving), whose search is a minute of serving runs, as a text table only; and
#   `podsim plan --top 1 --trace` of the pipeline example (the pipeline trace) and of one candidate without pipeline
#   stages (the candidate trace);
# - `podsim serve` as text, --json and --csv on every serving scenario (scenarios/serving; a searched one exits 2);
# - `podsim import` of every import test input (tests/import/data/*.mlir, *.hlo: the good ones and the bad ones, whose
#   errors are compared) with its defaults and with --hardware tpu-v5p --slice 4x2x1, the written scenario compared,
#   and `podsim run --format json` of each scenario it wrote.
# Each side runs in its own folder (WORK_DIR/old, WORK_DIR/new) with the same relative output names, so that an
# output path a command prints is the same on both sides. Both binaries are copied first, so rebuilding either during
# the run does not matter. 409 cases: about 8 minutes on 2 cores shared with other builds, 15 beside the test suite.
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
work=$(cd "$work" && pwd)
old=$work/bin/old new=$work/bin/new

# One line per case: a name, a tab, the podsim arguments. @OUT@ stands for the case's name in the name of a file it
# writes (@OUT@.links.csv is NAME.links.csv, in the side's folder).
cases=()
add() { cases+=("$1"$'\t'"$2"); }
for op in all-reduce all-gather reduce-scatter all-to-all; do
  for slice in 4x4x4 3x5x7 2x4x3; do
    for wrap in none all 0,1; do
      for multi in sequential concurrent; do
        add "coll-$op-$slice-$wrap-$multi" "collective --hardware tpu-v5p --slice $slice --wrap $wrap --op $op \
--axes X,Y,Z --multi-axis $multi --array-bytes 64MiB --model des --json --links @OUT@.links.csv"
      done
    done
  done
done
for algorithm in unidirectional bidirectional bidirectional-split line direct; do
  add "alg-$algorithm-4x4" "collective --slice 4x4 --op all-reduce --axes X,Y --algorithm $algorithm \
--array-bytes 3MiB --model des --json --links @OUT@.links.csv"
  add "alg-$algorithm-8x4" "collective --slice 8x4 --op all-gather --axes X --algorithm $algorithm \
--array-bytes 5000001 --model des --json --links @OUT@.links.csv"
done
add "dcn-2-slices" "collective --hardware tpu-v5p --slice 4x4x4 --slices 2 --op all-reduce --axes DCN,X \
--array-bytes 64MiB --model des --json --links @OUT@.links.csv"
add "mesh-8x8x8-concurrent" "collective --hardware tpu-v5p --slice 8x8x8 --wrap none --op all-reduce --axes X,Y,Z \
--multi-axis concurrent --array-bytes 64MiB --model des --json --links @OUT@.links.csv"
while IFS= read -r scenario; do
  name=${scenario#"$root"/scenarios/}
  name=${name//\//-}
  add "run-json-$name" "run --format json $scenario"
  add "run-csv-$name" "run --format csv $scenario"
  add "run-text-$name" "run --report @OUT@.report.html --trace @OUT@.trace.json $scenario"
done < <(find "$root/scenarios" -name '*.json' | sort)
# A model-level scenario of three plans (no shipped one has several): two that fit and one that does not, so that the
# comparison, the verdict and a plan without des figures show in every format; its traces, one per plan.
three=$work/model-three-plans.json
python3 - "$root/scenarios/capacity/llama3-70b-fsdp-v5p-compute-bound.json" "$three" <<'PY' || exit 2
import json, sys
scenario = json.load(open(sys.argv[1]))
scenario["name"] = "model-three-plans"
del scenario["expect"]
scenario["plans"] = [
    {"name": "fsdp", "parallelism": {"fsdp": ["X", "Y", "Z"]}},
    {"name": "fsdp-tp", "description": "tensor over Y and Z", "parallelism": {"fsdp": ["X"], "tensor": ["Y", "Z"]}},
    {"name": "dp", "parallelism": {"data": ["X", "Y", "Z"]}},
]
json.dump(scenario, open(sys.argv[2], "w"), indent=2)
PY
add "model-three-json" "run --format json $three"
add "model-three-csv" "run --format csv $three"
add "model-three-text" "run --report @OUT@.report.html $three"
add "model-three-trace-all" "run --trace @OUT@.trace.json $three"
add "model-three-trace-fsdp-tp" "run --plan fsdp-tp --trace @OUT@.trace.json --format json $three"
add "model-three-trace-dp" "run --plan dp --trace @OUT@.trace.json $three"
add "model-mixed" "run $three $root/scenarios/examples/mlp-v5e-4x4.json"
add "model-two-runs" "run --format json --report @OUT@.report.html $three $root/scenarios/capacity/pipeline-1f1b-bubble.json"
add "model-two-runs-csv" "run --format csv $three $root/scenarios/dcn/pipeline-2-slices.json"
add "check-json" "check --json $root/scenarios/capacity/llama3-70b-fsdp-v5p-compute-bound.json \
$root/scenarios/examples/mlp-v5e-4x4.json $root/scenarios/dcn/pipeline-2-slices.json"
add "check-text" "check $root/scenarios/capacity/moe-skewed-experts.json $root/scenarios/examples/two-rank-matmul.json"
# The plan scenarios whose des of the best 10 candidates takes more than about 20 s: the closed form only.
book_plans=" capacity/llama3-70b-training.json capacity/llama3.1-405b.json capacity/mixtral-8x7b.json \
examples/llama3-8b-v5e-plan.json examples/mixtral-8x7b-skewed-routing-plan.json goals/llama3-70b-15t-tpu7x.json \
goals/llama3-70b-15t-v5p.json goals/llama3-70b-15t-v6e.json "
while IFS= read -r scenario; do
  relative=${scenario#"$root"/scenarios/}
  name=${relative//\//-}
  model=""
  [[ $book_plans == *" $relative "* ]] && model="--model book "
  add "plan-text-$name" "plan $model$scenario"
  [[ $relative == serving/* ]] && continue  # a serving search: a minute of serving runs each time, as text only
  add "plan-json-$name" "plan --json $model$scenario"
  add "plan-csv-$name" "plan --csv $model$scenario"
done < <(grep -rl '"search"' "$root/scenarios" --include='*.json' | sort)
add "plan-trace-pipeline" "plan --top 1 --trace @OUT@.trace.json $root/scenarios/examples/llama3-8b-v5p-pipeline-plan.json"
add "plan-trace-candidate" "plan --top 1 --trace @OUT@.trace.json $root/scenarios/capacity/transformers-question-1.json"
while IFS= read -r scenario; do
  name=${scenario##*/}
  add "serve-text-$name" "serve $scenario"
  add "serve-json-$name" "serve --json $scenario"
  add "serve-csv-$name" "serve --csv $scenario"
done < <(find "$root/scenarios/serving" -name '*.json' | sort)
while IFS= read -r module; do
  name=${module##*/}
  add "import-$name" "import $module -o @OUT@.scenario.json"
  add "import-run-$name" "run --format json import-$name.scenario.json"
  add "import-v5p-$name" "import $module --hardware tpu-v5p --slice 4x2x1 -o @OUT@.scenario.json"
  add "import-v5p-run-$name" "run --format json import-v5p-$name.scenario.json"
done < <(find "$root/tests/import" -name '*.mlir' -o -name '*.hlo' | sort)

# The plan search's wall-clock times (its stderr line and the text table's "screened N candidates ... in T", the JSON's
# screen_seconds and simulate_seconds, a serving search's "built N deployments in T; ran N simulations in T") differ
# from run to run: they are written as T before the outputs are compared.
normalize() {
  sed -E -i 's/(screened [0-9]+ candidates by the closed form in )[^;]*(; simulated [0-9]+ in ).*$/\1T\2T/;
s/("(screen|simulate)_seconds": )[-+.0-9eE]+/\1T/;
s/(built [0-9]+ deployments in )[^;]*(; ran [0-9]+ simulations in )[^ ]+ [^ ]+/\1T\2T/' "$@"
}

differ=0
for entry in "${cases[@]}"; do
  name=${entry%%$'\t'*}
  args=${entry#*$'\t'}
  for side in old new; do
    bin=$old
    [[ $side == new ]] && bin=$new
    out="$work/$side/$name"
    # shellcheck disable=SC2086  # the arguments are word-split on purpose (no case has spaces in a value)
    (cd "$work/$side" && exec "$bin" ${args//@OUT@/$name}) >"$out.stdout" 2>"$out.stderr"
    echo $? >"$out.rc"
    normalize "$out.stdout" "$out.stderr"
  done
  # Every file either side wrote (one written by a single side differs too).
  for file in $( (cd "$work/old" && ls -d "$name".*; cd "$work/new" && ls -d "$name".*) 2>/dev/null | sort -u); do
    if ! cmp -s "$work/old/$file" "$work/new/$file"; then
      echo "DIFFERS: $name (${file#"$name".}): diff $work/old/$file $work/new/$file"
      differ=$((differ + 1))
    fi
  done
done
echo "${#cases[@]} cases, $differ outputs differ (outputs in $work)"
[[ $differ == 0 ]]
