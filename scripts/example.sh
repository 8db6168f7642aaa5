#!/usr/bin/env bash
# Installs dependencies, builds ptq and runs it on the bundled example model and inputs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh build
./build/ptq run tests/data/tiny_qlinear_matmul/model.onnx --inputs tests/data/tiny_qlinear_matmul/inputs --outputs out/example
