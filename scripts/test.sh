#!/usr/bin/env bash
# Installs dependencies, builds ptq and runs the whole test suite (unit tests, CLI tests and the
# ONNX backend conformance suite) with ctest. PTQ_SANITIZE=address,undefined builds into
# build-sanitize/ with those sanitizers instead.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
if [ -n "${PTQ_SANITIZE:-}" ]; then
  scripts/build.sh build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTQ_SANITIZE="$PTQ_SANITIZE"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build-sanitize --output-on-failure -j"$(nproc)"
else
  scripts/build.sh build
  ctest --test-dir build --output-on-failure -j"$(nproc)"
fi
