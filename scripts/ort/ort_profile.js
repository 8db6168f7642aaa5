// Per-node time of a model in ONNX Runtime (its own profiler), the peer of `ptq bench --profile`.
// Usage: node ort_profile.js MODEL INPUT_DIR [THREADS] [RUNS] [TOP]
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const ort = require('onnxruntime-node');
const { readFeeds } = require('./feeds');

(async () => {
  const [model, inputs, threadsArg, runsArg, topArg] = process.argv.slice(2);
  const runs = Number(runsArg || 10);
  const prefix = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ort-prof-')), 'prof');
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threadsArg || 1), interOpNumThreads: 1, executionMode: 'sequential',
    graphOptimizationLevel: 'all', enableProfiling: true, profileFilePrefix: prefix,
  });
  const feeds = readFeeds(session, inputs);
  for (let i = 0; i < runs; ++i) await session.run(feeds);
  session.endProfiling();  // returns nothing in onnxruntime-node: the file is the one under `prefix`
  const dir = path.dirname(prefix);
  const file = path.join(dir, fs.readdirSync(dir).find((f) => f.endsWith('.json')));
  const events = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byType = new Map(), byNode = new Map();
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
    const op = e.args.op_name, node = e.name.slice(0, -'_kernel_time'.length);
    byType.set(op, (byType.get(op) || 0) + e.dur / 1000 / runs);
    const shape = JSON.stringify((e.args.output_type_shape || []).map((o) => Object.values(o)[0]));
    const k = `${op} ${node} ${shape}`;
    byNode.set(k, (byNode.get(k) || 0) + e.dur / 1000 / runs);
  }
  const total = [...byType.values()].reduce((a, b) => a + b, 0);
  console.log('per op type:');
  for (const [op, ms] of [...byType].sort((a, b) => b[1] - a[1])) {
    console.log(`${ms.toFixed(4).padStart(12)} ms/run ${(100 * ms / total).toFixed(1).padStart(6)}%  ${op}`);
  }
  console.log('slowest nodes:');
  for (const [k, ms] of [...byNode].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg || 20))) {
    console.log(`${ms.toFixed(4).padStart(12)} ms/run ${(100 * ms / total).toFixed(1).padStart(6)}%  ${k}`);
  }
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
})().catch((e) => { console.error(`ort_profile: ${e.message}`); process.exit(2); });
