// Times a model in ONNX Runtime on one run's inputs and prints a JSON line like `ptq bench`.
// Usage: node ort_bench.js MODEL INPUT_DIR [THREADS] [SECONDS]
'use strict';
const ort = require('onnxruntime-node');
const { readFeeds } = require('./feeds');

(async () => {
  const [model, inputs, threadsArg, secondsArg] = process.argv.slice(2);
  const threads = Number(threadsArg || 1);
  const seconds = Number(secondsArg || 3);
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all',
  });
  const feeds = readFeeds(session, inputs);
  for (let i = 0; i < 3; ++i) await session.run(feeds);  // warm-up
  const times = [];
  const end = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  while (times.length < 5 || process.hrtime.bigint() < end) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (times.length >= 100000) break;
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  console.log(JSON.stringify({ runtime: 'onnxruntime', version: require('onnxruntime-node/package.json').version,
    median_ms: median, min_ms: times[0], runs: times.length, threads }));
})().catch((e) => { console.error(`ort_bench: ${e.message}`); process.exit(2); });
