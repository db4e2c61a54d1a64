#!/usr/bin/env bash
# Installs a build into a scratch prefix and runs what was installed as a user of the package would, with the source
# tree's presets out of view (renamed for the duration, put back on exit): `podsim hardware`, `podsim plan` on a shipped
# example, and the Python module (docs/install.md). usage: scripts/check-install.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=$(cd "${1:-build}" && pwd)
prefix=$(mktemp -d)
cmake --install "$build" --prefix "$prefix" >/dev/null
mv configs configs.out-of-view
restore() {
  mv "$root/configs.out-of-view" "$root/configs"
  rm -rf "$prefix"
}
trap restore EXIT
cd "$prefix"
unset PODSIM_CONFIG_DIR
presets=$(bin/podsim hardware)
grep -q "^tpu-v5e " <<<"$presets" || { echo "installed podsim lists no tpu-v5e preset: $presets" >&2; exit 1; }
bin/podsim plan share/podsim/scenarios/examples/llama3-8b-v5e-plan.json --model book --rows 3 >/dev/null
if [ -d "$prefix/lib/python3/dist-packages/podsim" ]; then
  PYTHONPATH="$prefix/lib/python3/dist-packages" python3 -c '
import podsim
result = podsim.plan("share/podsim/scenarios/examples/llama3-8b-v5e-plan.json", model="book", top=0)
assert any(c["rank"] == 1 for c in result["candidates"])
' 2>/dev/null
fi
echo "installed podsim (program, presets, scenarios, Python module) runs from a scratch prefix"
