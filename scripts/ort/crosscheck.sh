#!/usr/bin/env bash
# Cross-checks ptq's quantized models against ONNX Runtime: the tiny QLinearMatMul model and the
# quantized CNN (QLinearConv, MatMulInteger) must match exactly, also written with external data; every
# fixture, quantized in both
# formats, must agree with ONNX Runtime to at least 45 dB SQNR. Usage: crosscheck.sh PTQ_BINARY
# Exits 77 (ctest: skipped) when node or onnxruntime-node is missing.
set -euo pipefail
ptq="$(realpath "$1")"
here="$(cd "$(dirname "$0")" && pwd)"
data="$here/../../tests/data"
if ! command -v node > /dev/null || ! (cd "$here" && node -e "require('onnxruntime-node')" 2> /dev/null); then
  echo "skipped: node or onnxruntime-node not installed (cd scripts/ort && npm install --ignore-scripts)"
  exit 77
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# ONNX Runtime's uint8 x int8 kernels give the spec's exact sums only with VNNI (AVX512-VNNI or AVX-VNNI): its
# AVX2 kernels add byte pairs with vpmaddubsw, which saturates at 32767 (the tiny model's pairs reach 34895;
# ONNX Runtime's documentation names this), while ptq sums exactly on every CPU (its own tests check that
# against the reference). Without VNNI ONNX Runtime's own error bounds the comparison (on a Zen 3 CPU its int8
# digits ViT is 26 dB from the float model where ptq's is 39 dB, its int8 digits CNN 19.9 dB where ptq's is
# 46 dB), so every check becomes 15 dB: the models still load and run in ONNX Runtime and agree that far.
exact=(--exact)
fixtures=(--min-sqnr 45)
if ! grep -qwE 'avx512_vnni|avx_vnni' /proc/cpuinfo 2> /dev/null; then
  echo "note: no VNNI on this CPU: ONNX Runtime's AVX2 uint8 x int8 sums saturate; every check becomes 15 dB"
  exact=(--min-sqnr 15)
  fixtures=(--min-sqnr 15)
fi
tiny="$data/tiny_qlinear_matmul"
node "$here/compare_ort.js" "$ptq" "$tiny/model.onnx" "$tiny/inputs" "${exact[@]}"
for spec in digits_vit/digits_vit_opset13 digits_vit/digits_vit_opset17 digits_cnn/digits_cnn bert_encoder/bert_encoder; do
  folder="${spec%%/*}"
  name="${spec##*/}"
  for format in qoperator qdq; do
    cat > "$work/$name.$format.json" << EOC
{"model": "$data/$spec.onnx", "output": "$work/$name.$format.onnx",
 "calibration": {"data": "$data/$folder/calib", "batch_size": 8, "method": "percentile", "table": "$work/$name.table.json"},
 "quantization": {"format": "$format"}}
EOC
    [ -f "$work/$name.table.json" ] || "$ptq" calibrate --config "$work/$name.$format.json" --quiet
    "$ptq" rewrite --config "$work/$name.$format.json" --quiet
    check=("${fixtures[@]}")
    if [ "$name.$format" = digits_cnn.qoperator ]; then check=("${exact[@]}"); fi
    node "$here/compare_ort.js" "$ptq" "$work/$name.$format.onnx" "$data/$folder/eval" "${check[@]}"
  done
done
# The int8 model with its tensors in an external data file (output_external_data): ONNX Runtime loads
# the pair and computes the bits of the inline model.
cat > "$work/cnn_external.json" << EOC
{"model": "$data/digits_cnn/digits_cnn.onnx", "output": "$work/external/cnn.onnx", "output_external_data": "always",
 "calibration": {"data": "$data/digits_cnn/calib", "batch_size": 8, "method": "percentile", "table": "$work/digits_cnn.table.json"},
 "quantization": {"format": "qoperator"}}
EOC
"$ptq" rewrite --config "$work/cnn_external.json" --quiet
ls "$work"/external/cnn.*.data > /dev/null
node "$here/compare_ort.js" "$ptq" "$work/external/cnn.onnx" "$data/digits_cnn/eval" "${exact[@]}"
