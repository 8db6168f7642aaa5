#!/usr/bin/env bash
# Cross-checks ptq's quantized models against ONNX Runtime: the tiny QLinearMatMul model and the
# quantized CNN (QLinearConv, MatMulInteger) must match exactly, also written with external data; every fixture, quantized in both
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
node "$here/compare_ort.js" "$ptq" "$data/tiny_qlinear_matmul/model.onnx" "$data/tiny_qlinear_matmul/inputs" --exact
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
    check=(--min-sqnr 45)
    if [ "$name.$format" = digits_cnn.qoperator ]; then check=(--exact); fi
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
node "$here/compare_ort.js" "$ptq" "$work/external/cnn.onnx" "$data/digits_cnn/eval" --exact
