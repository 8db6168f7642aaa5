#!/usr/bin/env bash
# Installs dependencies, builds ptq and runs the whole test suite (unit tests, CLI tests, the Python
# module's tests and the ONNX backend conformance suite) with ctest. PTQ_SANITIZE=address,undefined builds into
# build-sanitize/ with those sanitizers instead.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${PTQ_SANITIZE:-}" ]; then
  scripts/install_deps.sh
  # The Python module is tested in the normal build only (a sanitized module needs a sanitized Python).
  # -O1 -g1 (line tables: the sanitizers' reports still name file and line) halves the compile time of
  # -O2 -g, which took most of CI's time on a 2-core machine.
  scripts/build.sh build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DPTQ_SANITIZE="$PTQ_SANITIZE" -DPTQ_PYTHON=OFF
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build-sanitize --output-on-failure -j"$(nproc)"
else
  scripts/install_deps.sh --python
  # ON: a missing pybind11 or Python header fails the build instead of testing nothing.
  scripts/build.sh build -DPTQ_PYTHON=ON
  ctest --test-dir build --output-on-failure -j"$(nproc)"
fi
