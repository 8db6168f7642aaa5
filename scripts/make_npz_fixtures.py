#!/usr/bin/env python3
"""Writes the small .npz fixtures of tests/calibrate/npz_reader_test.cc and sample_reader_test.cc.

Run from anywhere with Debian's python3-numpy: `python3 scripts/make_npz_fixtures.py`.
Every array is deterministic so the tests can check values:
  images  float32 [5, 2, 3]  images[i, j, k] = 100*i + 10*j + k
  ids     int64   [5, 4]     ids[i, j] = 1000*i + j
  a/b:c.d float32 [5, 2]     a name with '/', ':' and '.' (stored as the zip entry "a/b:c.d.npy")
Files:
  savez.npz             numpy.savez (stored entries)
  savez_compressed.npz  numpy.savez_compressed (deflate entries)
  zip64.npz             numpy.savez_compressed with zipfile's zip64 limit lowered to 16 bytes, so
                        zipfile writes what it writes for archives over 4 GiB: zip64 extra fields in the
                        central directory and a zip64 end-of-central-directory record and locator.
"""
import os
import zipfile

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "npz")


def arrays():
    i, j, k = np.meshgrid(np.arange(5), np.arange(2), np.arange(3), indexing="ij")
    images = (100 * i + 10 * j + k).astype(np.float32)
    ids = (1000 * np.arange(5)[:, None] + np.arange(4)[None, :]).astype(np.int64)
    odd = np.arange(10, dtype=np.float32).reshape(5, 2)
    return {"images": images, "ids": ids, "a/b:c.d": odd}


def main():
    os.makedirs(OUT, exist_ok=True)
    data = arrays()
    np.savez(os.path.join(OUT, "savez.npz"), **data)
    np.savez_compressed(os.path.join(OUT, "savez_compressed.npz"), **data)
    saved = zipfile.ZIP64_LIMIT
    zipfile.ZIP64_LIMIT = 16
    try:
        np.savez_compressed(os.path.join(OUT, "zip64.npz"), **data)
    finally:
        zipfile.ZIP64_LIMIT = saved
    for name in ("savez.npz", "savez_compressed.npz", "zip64.npz"):
        with np.load(os.path.join(OUT, name)) as back:
            for key, value in data.items():
                assert np.array_equal(back[key], value), (name, key)


if __name__ == "__main__":
    main()
