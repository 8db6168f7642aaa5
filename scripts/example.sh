#!/usr/bin/env bash
# Installs dependencies, builds ptq and runs it on the bundled example (configs/example.json: the
# digits ViT and its data): calibration, the int8 rewrite, the float and int8 models run and timed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh build
vit=tests/data/digits_vit
./build/ptq calibrate --config configs/example.json --out out/digits_vit.calib.json
./build/ptq rewrite --config configs/example.json --table out/digits_vit.calib.json
./build/ptq run $vit/digits_vit_opset13.onnx --inputs $vit/eval --outputs out/example_float
./build/ptq run out/digits_vit.int8.onnx --inputs $vit/eval --outputs out/example_int8
./build/ptq bench $vit/digits_vit_opset13.onnx --inputs $vit/eval --seconds 2
./build/ptq bench out/digits_vit.int8.onnx --inputs $vit/eval --seconds 2
