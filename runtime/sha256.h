// SHA-256 digests (FIPS 180-4) for the provenance of models, configs and calibration tables, and the
// names of external data files.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace ptq {

// An incremental digest: Update any number of times, then HexDigest once.
class Sha256 {
 public:
  Sha256();
  void Update(const void* data, size_t n);
  // Lower-case hex of the digest of everything given to Update. REQUIRES: called once.
  std::string HexDigest();

 private:
  std::array<uint32_t, 8> h_;
  unsigned char block_[64];
  size_t buffered_ = 0;  // bytes in block_
  uint64_t total_ = 0;   // bytes given to Update
};

// Lower-case hex SHA-256 of the bytes.
std::string Sha256Hex(const std::string& bytes);

// Lower-case hex SHA-256 of a file's bytes, read in blocks (the file is never held whole). Throws an
// input error naming the path when it cannot be read.
std::string Sha256FileHex(const std::string& path);

}  // namespace ptq
