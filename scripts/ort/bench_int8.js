// Quantizes the fixtures with ptq and benchmarks the int8 models in ptq and ONNX Runtime, interleaved.
// Usage: node bench_int8.js PTQ_BINARY [REPEATS=3] [THREADS=1,2] [BATCHES=1,8]
//          [--seconds S (per measurement, default 1)] [--formats qoperator[,qdq]] [--json FILE]
// Each repeat runs `ptq bench` then ort_bench.js (each for S seconds) on the same model and inputs; the
// table shows the median over repeats of each tool's median latency, and ptq/ORT (below 1: ptq faster).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { readNpy, writeNpy } = require('./npy');

const args = process.argv.slice(2);
function option(name, fallback) {
  const i = args.indexOf(name);
  return i < 0 ? fallback : args.splice(i, 2)[1];
}
const seconds = option('--seconds', '1');
const formats = option('--formats', 'qoperator').split(',');
const jsonFile = option('--json', null);
const [ptqArg, repeatsArg = '3', threadsArg = '1,2', batchesArg = '1,8'] = args;
if (!ptqArg) throw new Error('usage: node bench_int8.js PTQ_BINARY [REPEATS] [THREADS] [BATCHES] [--seconds S] [--formats F] [--json FILE]');
const ptq = path.resolve(ptqArg);
const repeats = Number(repeatsArg);
const data = path.join(__dirname, '..', '..', 'tests', 'data');
const fixtures = ['digits_vit/digits_vit_opset13', 'digits_vit/digits_vit_opset17', 'bert_encoder/bert_encoder',
  'digits_cnn/digits_cnn'].filter((f) => fs.existsSync(path.join(data, f + '.onnx')));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ptq_bench_int8_'));

// Runs a command; returns its stdout, or throws an Error carrying the last line of its stderr.
function run(cmd, cmdArgs) {
  try {
    return execFileSync(cmd, cmdArgs, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    const lines = String(e.stderr || e.message).trim().split('\n');
    throw new Error(lines[lines.length - 1]);
  }
}

// Quantizes a fixture (calibrate once, rewrite per format) into `work`; returns {format: model path or Error}.
function quantize(spec) {
  const [folder, name] = spec.split('/');
  const models = {};
  for (const format of formats) {
    const config = path.join(work, `${name}.${format}.json`);
    const table = path.join(work, `${name}.table.json`);
    fs.writeFileSync(config, JSON.stringify({
      model: path.join(data, spec + '.onnx'), output: path.join(work, `${name}.${format}.onnx`),
      calibration: { data: path.join(data, folder, 'calib'), batch_size: 8, method: 'percentile', table },
      quantization: { format },
    }));
    try {
      if (!fs.existsSync(table)) run(ptq, ['calibrate', '--config', config, '--quiet']);
      run(ptq, ['rewrite', '--config', config, '--quiet']);
      models[format] = path.join(work, `${name}.${format}.onnx`);
    } catch (e) {
      models[format] = e;
    }
  }
  return models;
}

// Writes the first `n` samples of every .npy in `src` to a folder under `work` (as bench_fixtures.js does).
function slice(src, n) {
  const dir = path.join(work, `${path.basename(path.dirname(src))}_batch${n}`);
  if (fs.existsSync(dir)) return dir;
  fs.mkdirSync(dir);
  for (const f of fs.readdirSync(src).filter((x) => x.endsWith('.npy'))) {
    const a = readNpy(path.join(src, f));
    const row = a.data.length / a.shape[0];
    writeNpy(path.join(dir, f), a.type, [n, ...a.shape.slice(1)], a.data.slice(0, n * row));
  }
  return dir;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const lastJson = (out) => JSON.parse(out.trim().split('\n').pop());

// Times `model` on `inputs` in both runtimes, alternating them `repeats` times; returns one table row.
function bench(label, model, batch, threads, inputs) {
  const row = { model: label, batch, threads, ptq_median_ms: null, ort_median_ms: null, ratio_ptq_over_ort: null };
  const p = [], o = [];
  for (let r = 0; r < repeats; ++r) {
    if (row.ptq_error === undefined) {
      try {
        p.push(lastJson(run(ptq, ['bench', model, '--inputs', inputs, '--threads', String(threads), '--seconds', seconds])).median_ms);
      } catch (e) { row.ptq_error = e.message; }
    }
    if (row.ort_error === undefined) {
      try {
        o.push(lastJson(run('node', [path.join(__dirname, 'ort_bench.js'), model, inputs, String(threads), seconds])).median_ms);
      } catch (e) { row.ort_error = e.message; }
    }
  }
  if (p.length) row.ptq_median_ms = +median(p).toFixed(4);
  if (o.length) row.ort_median_ms = +median(o).toFixed(4);
  if (p.length && o.length) row.ratio_ptq_over_ort = +(row.ptq_median_ms / row.ort_median_ms).toFixed(3);
  return row;
}

const cell = (v, err) => (v !== null ? v.toFixed(3) : err ? `ERROR: ${err}` : '-');
const rows = [];
console.log(['model', 'batch', 'threads', 'ptq_ms', 'ort_ms', 'ptq/ort'].join('\t'));
for (const spec of fixtures) {
  const models = quantize(spec);
  for (const format of formats) {
    const label = `${path.basename(spec)}.${format}`;
    for (const batch of batchesArg.split(',').map(Number)) {
      for (const threads of threadsArg.split(',').map(Number)) {
        const model = models[format];
        const row = model instanceof Error
          ? { model: label, batch, threads, ptq_median_ms: null, ort_median_ms: null, ratio_ptq_over_ort: null, quantize_error: model.message }
          : bench(label, model, batch, threads, slice(path.join(data, spec.split('/')[0], 'eval'), batch));
        rows.push(row);
        const qerr = row.quantize_error && `quantizing: ${row.quantize_error}`;
        console.log([label, batch, threads, cell(row.ptq_median_ms, qerr || row.ptq_error), cell(row.ort_median_ms, row.ort_error), row.ratio_ptq_over_ort === null ? '-' : row.ratio_ptq_over_ort.toFixed(3)].join('\t'));
      }
    }
  }
}
if (jsonFile) fs.writeFileSync(jsonFile, JSON.stringify({ ptq, repeats, seconds: Number(seconds), rows }, null, 2) + '\n');
fs.rmSync(work, { recursive: true, force: true });
