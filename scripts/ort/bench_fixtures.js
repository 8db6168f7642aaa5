// Benchmarks ptq against ONNX Runtime on the float fixtures of tests/data (batch 1 and batch 8 of the
// eval split), at the given thread counts, by running bench_vs_ort.js. Usage:
//   node bench_fixtures.js PTQ_BINARY [SECONDS] [THREADS_LIST] [MODEL_SUFFIX]
// MODEL_SUFFIX picks other models beside the fixtures (e.g. ".int8.onnx" for quantized ones).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { readNpy, writeNpy } = require('./npy');

const [ptq, seconds = '4', threads = '1,2'] = process.argv.slice(2);
const data = path.join(__dirname, '..', '..', 'tests', 'data');
const fixtures = [
  ['digits_vit/digits_vit_opset13.onnx', 'digits_vit/eval'],
  ['digits_vit/digits_vit_opset17.onnx', 'digits_vit/eval'],
  ['digits_cnn/digits_cnn.onnx', 'digits_cnn/eval'],
  ['bert_encoder/bert_encoder.onnx', 'bert_encoder/eval'],
];

// Writes the first `n` samples of every .npy in `src` to a new temporary folder.
function slice(src, n) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptq_bench_'));
  for (const f of fs.readdirSync(src).filter((x) => x.endsWith('.npy'))) {
    const a = readNpy(path.join(src, f));
    const row = a.data.length / a.shape[0];
    writeNpy(path.join(dir, f), a.type, [n, ...a.shape.slice(1)], a.data.slice(0, n * row));
  }
  return dir;
}

const pairs = [];
for (const [model, evalDir] of fixtures) {
  for (const batch of [1, 8]) pairs.push(`${path.join(data, model)}:${slice(path.join(data, evalDir), batch)}`);
}
process.stdout.write(execFileSync('node', [path.join(__dirname, 'bench_vs_ort.js'), ptq, seconds, threads, ...pairs],
  { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
