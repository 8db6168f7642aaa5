// Reading NumPy .npz archives (zip with stored or deflate entries, zip64) one entry at a time.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/tensor.h"

namespace ptq {

// What the header of a .npy file says. Parsed by the same rules as ParseNpy (runtime/npy.h):
// supported dtypes only, no Fortran order, no big-endian multi-byte data.
struct NpyHeader {
  DataType dtype = DataType::kUndefined;
  Shape shape;
  int64_t data_offset = 0;  // bytes from the start of the .npy data to the first element
  int64_t data_bytes = 0;   // ShapeSize(shape) * element size, checked for overflow
};

// Bytes from the start of a .npy file to the end of its header, from the file's first 12 bytes (or all
// of it when shorter). Throws an input error when `first` is not the start of a .npy file.
int64_t NpyHeaderSize(const std::string& first, const std::string& what);

// Parses the header at the start of `prefix`, which holds the first bytes of a .npy file (at least
// NpyHeaderSize of them; the data may be absent). `what` names the file in errors.
NpyHeader ParseNpyHeader(const std::string& prefix, const std::string& what);

// A .npz archive whose central directory has been read and checked: every entry's offsets and sizes
// lie inside the file, declared uncompressed sizes are below MaxTensorBytes() (plus room for the
// .npy header), entries are stored or deflated and not encrypted. Entry data is read on demand.
class NpzArchive {
 public:
  static NpzArchive Open(const std::string& path);

  const std::string& path() const { return path_; }
  // Keys in archive order: entry names with ".npy" removed. Entries not ending in ".npy" are errors.
  const std::vector<std::string>& keys() const { return keys_; }
  bool Has(const std::string& key) const { return entries_.count(key) != 0; }

  // The .npy header of an entry, inflating only its first bytes.
  NpyHeader ReadHeader(const std::string& key) const;
  // The whole entry: inflated, its size and CRC-32 checked, parsed with ParseNpy(bytes, "archive.npz:key").
  Tensor Read(const std::string& key) const;

 private:
  struct Entry {
    uint16_t method = 0;  // 0 stored, 8 deflate
    uint32_t crc = 0;
    uint64_t compressed = 0;
    uint64_t uncompressed = 0;
    uint64_t local_offset = 0;  // of the local file header
  };
  // Uncompressed bytes of an entry; at most `limit` of them (then no size or CRC check) when limit >= 0.
  std::string Inflate(const std::string& key, int64_t limit) const;
  std::string What(const std::string& key) const { return path_ + ":" + key; }

  std::string path_;
  int64_t file_size_ = 0;
  std::vector<std::string> keys_;
  std::map<std::string, Entry> entries_;
};

// Every array of a .npz archive, by key.
std::map<std::string, Tensor> ReadNpz(const std::string& path);

}  // namespace ptq
