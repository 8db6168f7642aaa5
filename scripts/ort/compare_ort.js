// Runs a model in ptq (`ptq run`) and in ONNX Runtime on the same .npy inputs and compares every
// output. Usage: node compare_ort.js PTQ_BINARY MODEL INPUT_DIR [--exact | --min-sqnr DB]
// Prints one JSON line per output (largest |difference|, fraction of differing elements, SQNR of ptq
// against ONNX Runtime in dB); exits 1 when --exact and an element differs, or an SQNR is below DB.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { readNpy } = require('./npy');

const args = process.argv.slice(2);
const [ptq, model, inputs] = args;
const exact = args.includes('--exact');
const minSqnr = args.includes('--min-sqnr') ? Number(args[args.indexOf('--min-sqnr') + 1]) : -Infinity;
if (!inputs) throw new Error('usage: node compare_ort.js PTQ_BINARY MODEL INPUT_DIR [--exact | --min-sqnr DB]');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ptq_vs_ort_'));
const ptqOut = path.join(tmp, 'ptq');
const ortOut = path.join(tmp, 'ort');
execFileSync(ptq, ['run', model, '--inputs', inputs, '--outputs', ptqOut], { stdio: ['ignore', 'ignore', 'inherit'] });
execFileSync('node', [path.join(__dirname, 'ort_run.js'), model, inputs, ortOut], { stdio: ['ignore', 'ignore', 'inherit'] });
let ok = true;
for (const f of fs.readdirSync(ortOut).sort()) {
  const o = readNpy(path.join(ortOut, f));
  const p = readNpy(path.join(ptqOut, f));
  if (o.data.length !== p.data.length) throw new Error(`${f}: ${p.data.length} elements from ptq, ${o.data.length} from ONNX Runtime`);
  let maxDiff = 0, differing = 0, signal = 0, noise = 0;
  for (let i = 0; i < o.data.length; ++i) {
    const a = Number(o.data[i]), b = Number(p.data[i]);
    const d = Math.abs(a - b);
    if (a !== b) ++differing;
    maxDiff = Math.max(maxDiff, d);
    signal += a * a;
    noise += d * d;
  }
  const sqnr = noise === 0 ? Infinity : 10 * Math.log10(signal / noise);
  const pass = exact ? differing === 0 : sqnr >= minSqnr;
  ok = ok && pass;
  console.log(JSON.stringify({ model: path.basename(model), output: f.replace(/\.npy$/, ''), max_abs_diff: maxDiff,
    fraction_differing: +(differing / o.data.length).toFixed(6), sqnr_db: sqnr === Infinity ? 'inf' : +sqnr.toFixed(1), pass }));
}
fs.rmSync(tmp, { recursive: true, force: true });
process.exit(ok ? 0 : 1);
