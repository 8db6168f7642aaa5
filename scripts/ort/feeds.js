// Reads one run's inputs for ONNX Runtime from a folder of <input_name>.npy files, named as ptq names them.
'use strict';
const path = require('path');
const ort = require('onnxruntime-node');
const { readNpy } = require('./npy');

// The same file-name rule as ptq's SanitizeFileName.
function sanitize(name) {
  if (name === '.') return '_';
  if (name === '..') return '__';
  const s = name.replace(/[\x00-\x1f/\\:*?"<>|]/g, '_');
  return s === '' ? '_' : s;
}

function readFeeds(session, dir) {
  const feeds = {};
  for (const name of session.inputNames) {
    const a = readNpy(path.join(dir, sanitize(name) + '.npy'));
    feeds[name] = new ort.Tensor(a.type, a.data, a.shape);
  }
  return feeds;
}

module.exports = { readFeeds, sanitize };
