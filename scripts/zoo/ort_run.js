// Runs a model once in ONNX Runtime (onnxruntime-node, found through NODE_PATH or ORT_NODE) on a folder of
// <input_name>.npy files and writes <output_name>.npy with ptq's file-name rule, like `ptq run`.
// Usage: node ort_run.js MODEL INPUT_DIR OUTPUT_DIR [--threads N]
// Prints one JSON line: {"seconds": session run time, "outputs": [names]}.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require(process.env.ORT_NODE || 'onnxruntime-node');
const { readNpy, writeNpy } = require('../ort/npy');

function sanitize(name) {
  if (name === '.') return '_';
  if (name === '..') return '__';
  const s = name.replace(/[\x00-\x1f/\\:*?"<>|]/g, '_');
  return s === '' ? '_' : s;
}

(async () => {
  const a = process.argv.slice(2);
  const ti = a.indexOf('--threads');
  const threads = ti >= 0 ? Number(a.splice(ti, 2)[1]) : 1;
  const [model, inputs, outputs] = a;
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' });
  const feeds = {};
  for (const name of session.inputNames) {
    const t = readNpy(path.join(inputs, sanitize(name) + '.npy'));
    feeds[name] = new ort.Tensor(t.type, t.data, t.shape);
  }
  const t0 = process.hrtime.bigint();
  const result = await session.run(feeds);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  fs.mkdirSync(outputs, { recursive: true });
  for (const name of session.outputNames) {
    const t = result[name];
    writeNpy(path.join(outputs, sanitize(name) + '.npy'), t.type, t.dims, t.data);
  }
  console.log(JSON.stringify({ seconds, outputs: session.outputNames }));
})().catch((e) => { console.error(`ort_run: ${e && e.message || e}`); process.exit(2); });
