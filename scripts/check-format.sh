#!/usr/bin/env bash
# Checks that every tracked C++ source is formatted as the repository's .clang-format says (clang-format 14, as Debian
# 12 ships it). Prints each file and line that differs and exits 1; `clang-format -i FILE` fixes one.
set -euo pipefail
cd "$(dirname "$0")/.."
if git ls-files -z '*.cpp' '*.hpp' | xargs -0 clang-format --dry-run --Werror; then
  echo "clang-format: every tracked C++ source is formatted"
else
  echo "clang-format: the files above are not formatted; run clang-format -i on them" >&2
  exit 1
fi
