#!/usr/bin/env bash
# Installs podsim's build and test dependencies from Debian 12 packages. Runs as root or through sudo.
set -euo pipefail
packages=(
  cmake g++ make pkg-config git
  libsimgrid-dev          # the discrete-event engine (pkg-config simgrid)
  libboost-graph-dev      # Boost.Graph, header-only parts
  nlohmann-json3-dev      # scenario and report JSON
  libcli11-dev libfmt-dev # command line and formatting
  libgtest-dev libbenchmark-dev
  python3 python3-jsonschema  # the tests validate docs/*.schema.json (in CI a missing tool fails them)
  python3-dev pybind11-dev    # the Python module podsim (PODSIM_WITH_PYTHON, docs/python.md)
  libopenmpi-dev openmpi-bin  # podsim sweep across MPI ranks (PODSIM_WITH_MPI) and its mpirun tests
  clang libclang-rt-14-dev # the fuzz build (scripts/fuzz.sh): clang, libFuzzer and the sanitizer runtimes
  clang-format            # scripts/check-format.sh, which CI runs over every tracked C++ source
  chromium                # headless, the sweep report's browser test (tests/report/sweep_report_browser_test.cpp)
)
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
echo "podsim dependencies installed"
