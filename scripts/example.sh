#!/usr/bin/env bash
# Installs dependencies, builds ptq and runs it on the bundled example (configs/example.json: the
# digits ViT and its data): one run, a latency benchmark, and calibration.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh build
vit=tests/data/digits_vit
./build/ptq run $vit/digits_vit_opset13.onnx --inputs $vit/eval --outputs out/example
./build/ptq bench $vit/digits_vit_opset13.onnx --inputs $vit/eval --seconds 2
./build/ptq calibrate --config configs/example.json --out out/digits_vit.calib.json
