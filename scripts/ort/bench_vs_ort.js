// Benchmarks ptq against ONNX Runtime on the same model and inputs, in the same run, alternating the two
// so that machine noise hits both, and prints one JSON line per (model, threads) with the latency ratio.
// Usage: node bench_vs_ort.js PTQ_BINARY SECONDS THREADS_LIST MODEL:INPUT_DIR [MODEL:INPUT_DIR ...]
//   e.g. node bench_vs_ort.js build/ptq 3 1,2 tests/data/digits_cnn/digits_cnn.onnx:/tmp/one_sample
'use strict';
const { execFileSync } = require('child_process');
const path = require('path');

const [ptq, secondsArg, threadsArg, ...pairs] = process.argv.slice(2);
const seconds = Number(secondsArg);
const ortBench = path.join(__dirname, 'ort_bench.js');

function bench(cmd, args) {
  const out = execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(out.trim().split('\n').pop());
}

for (const pair of pairs) {
  const sep = pair.lastIndexOf(':');
  const model = pair.slice(0, sep);
  const inputs = pair.slice(sep + 1);
  for (const threads of threadsArg.split(',').map(Number)) {
    const p = [], o = [];
    for (let round = 0; round < 2; ++round) {  // alternate: ptq, ort, ptq, ort
      p.push(bench(ptq, ['bench', model, '--inputs', inputs, '--threads', String(threads), '--seconds', String(seconds / 2)]));
      o.push(bench('node', [ortBench, model, inputs, String(threads), String(seconds / 2)]));
    }
    const pm = Math.min(...p.map((r) => r.median_ms));
    const om = Math.min(...o.map((r) => r.median_ms));
    console.log(JSON.stringify({ model: path.basename(model), threads, ptq_median_ms: +pm.toFixed(4),
      ort_median_ms: +om.toFixed(4), ratio_ptq_over_ort: +(pm / om).toFixed(3),
      ptq_runs: p.reduce((a, r) => a + r.runs, 0), ort_runs: o.reduce((a, r) => a + r.runs, 0) }));
  }
}
