// Reads and writes NumPy .npy files (version 1-3, little-endian, C order) for the ONNX Runtime scripts.
'use strict';
const fs = require('fs');

const TYPES = {
  f4: ['float32', Float32Array], f8: ['float64', Float64Array], i1: ['int8', Int8Array], u1: ['uint8', Uint8Array],
  i2: ['int16', Int16Array], u2: ['uint16', Uint16Array], i4: ['int32', Int32Array], u4: ['uint32', Uint32Array],
  i8: ['int64', BigInt64Array], u8: ['uint64', BigUint64Array], b1: ['bool', Uint8Array],
};

function readNpy(path) {
  const buf = fs.readFileSync(path);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${path}: not a .npy file`);
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + hlen);
  const descr = /'descr':\s*'([<|>])(\w\d)'/.exec(header)[2];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const [type, Ctor] = TYPES[descr];
  const data = buf.subarray(start + hlen);
  const copy = new Uint8Array(data.length);
  copy.set(data);
  return { type, shape, data: new Ctor(copy.buffer, 0, data.length / Ctor.BYTES_PER_ELEMENT) };
}

function writeNpy(path, type, shape, data) {
  const code = Object.keys(TYPES).find((k) => TYPES[k][0] === type);
  const order = code.endsWith('1') ? '|' : '<';
  const shp = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '${order}${code}', 'fortran_order': False, 'shape': ${shp}, }`;
  header += ' '.repeat((64 - ((10 + header.length + 1) % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1; pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  fs.writeFileSync(path, Buffer.concat([pre, Buffer.from(header, 'latin1'), bytes]));
}

module.exports = { readNpy, writeNpy };
