#!/usr/bin/env bash
# Installs dependencies, builds ptq and runs the main job on the bundled example (configs/example.json:
# the digits ViT and its data): `ptq quantize` calibrates, writes out/digits_vit.int8.onnx, validates it
# against the float model and writes out/digits_vit.report.html (+ .json); then both models are timed.
# Only the ptq command is built (not the test suite: scripts/test.sh builds that).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh build --target ptq
./build/ptq quantize --config configs/example.json
vit=tests/data/digits_vit
./build/ptq bench $vit/digits_vit_opset13.onnx --inputs $vit/eval --seconds 2
./build/ptq bench out/digits_vit.int8.onnx --inputs $vit/eval --seconds 2
