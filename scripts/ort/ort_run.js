// Runs a model once in ONNX Runtime on a folder of <input_name>.npy files and writes <output_name>.npy,
// like `ptq run`. Usage: node ort_run.js MODEL INPUT_DIR OUTPUT_DIR
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');
const { writeNpy } = require('./npy');
const { readFeeds, sanitize } = require('./feeds');

(async () => {
  const [model, inputs, outputs] = process.argv.slice(2);
  const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const result = await session.run(readFeeds(session, inputs));
  fs.mkdirSync(outputs, { recursive: true });
  for (const name of session.outputNames) {
    const t = result[name];
    writeNpy(path.join(outputs, sanitize(name) + '.npy'), t.type, t.dims, t.data);
  }
})().catch((e) => { console.error(`ort_run: ${e.message}`); process.exit(2); });
