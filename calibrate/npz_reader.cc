// .npz reading: the zip central directory (zip64 included), stored and deflate entries, CRC-32 checks.
#include "calibrate/npz_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>

#include "runtime/file_util.h"
#include "runtime/npy.h"

namespace ptq {

namespace {

constexpr int64_t kNpyHeaderRoom = int64_t{1} << 20;  // allowed beyond MaxTensorBytes() for the .npy header
constexpr size_t kChunk = size_t{1} << 20;              // compressed bytes read per step

uint64_t Le(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

// Reads n bytes at offset; the caller has checked offset + n <= file size.
std::string ReadAt(std::ifstream& in, const std::string& path, uint64_t offset, uint64_t n) {
  std::string bytes(static_cast<size_t>(n), '\0');
  in.clear();
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(bytes.data(), static_cast<std::streamsize>(n));
  if (static_cast<uint64_t>(in.gcount()) != n) ThrowInputError(path, ": short read at offset ", offset);
  return bytes;
}

std::ifstream OpenFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) ThrowInputError(path, ": cannot open for reading");
  return in;
}

uint32_t Crc32(const std::string& bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  for (size_t done = 0; done < bytes.size();) {
    const size_t n = std::min(bytes.size() - done, size_t{1} << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + done), static_cast<uInt>(n));
    done += n;
  }
  return static_cast<uint32_t>(crc);
}

// The zip64 extended-information extra field replaces each 32-bit field that is 0xFFFFFFFF, in order.
void ApplyZip64Extra(const std::string& extra, uint64_t* uncompressed, uint64_t* compressed, uint64_t* offset,
                     const std::string& what) {
  for (size_t p = 0; p + 4 <= extra.size();) {
    const uint64_t id = Le(&extra[p], 2), size = Le(&extra[p + 2], 2);
    if (p + 4 + size > extra.size()) ThrowInputError(what, ": malformed extra field in the central directory");
    if (id == 1) {
      size_t q = p + 4;
      for (uint64_t* field : {uncompressed, compressed, offset}) {
        if (*field != 0xFFFFFFFFu) continue;
        if (q + 8 > p + 4 + size) ThrowInputError(what, ": zip64 extra field is too short");
        *field = Le(&extra[q], 8);
        q += 8;
      }
    }
    p += 4 + size;
  }
}

// The text after `'key':` in a .npy header dict, up to the end of the header.
std::string AfterKey(const std::string& header, const std::string& key, const std::string& what) {
  const size_t k = header.find("'" + key + "'");
  const size_t colon = k == std::string::npos ? k : header.find(':', k);
  if (colon == std::string::npos) ThrowInputError(what, ": .npy header has no '", key, "' entry");
  const size_t value = header.find_first_not_of(' ', colon + 1);
  return value == std::string::npos ? std::string() : header.substr(value);
}

}  // namespace

int64_t NpyHeaderSize(const std::string& first, const std::string& what) {
  if (first.size() < 10 || first.compare(0, 6, "\x93NUMPY") != 0) ThrowInputError(what, ": not a .npy file");
  const int major = static_cast<unsigned char>(first[6]);
  if (major == 1) return 10 + static_cast<int64_t>(Le(&first[8], 2));
  if (major != 2 && major != 3) ThrowInputError(what, ": unsupported .npy format version ", major);
  if (first.size() < 12) ThrowInputError(what, ": truncated .npy header");
  const int64_t header = static_cast<int64_t>(Le(&first[8], 4));
  // numpy writes headers of a few hundred bytes: a larger claim is refused before it is read.
  if (header > kNpyHeaderRoom) ThrowInputError(what, ": .npy header of ", header, " bytes is larger than the limit of ", kNpyHeaderRoom);
  return 12 + header;
}

NpyHeader ParseNpyHeader(const std::string& prefix, const std::string& what) {
  const int64_t end = NpyHeaderSize(prefix, what);
  if (end > static_cast<int64_t>(prefix.size())) ThrowInputError(what, ": truncated .npy header");
  const size_t start = prefix[6] == 1 ? 10 : 12;
  const std::string header = prefix.substr(start, static_cast<size_t>(end) - start);
  NpyHeader h;
  h.data_offset = end;
  // descr: a quoted string such as '<f4', '|u1' or '>i8'.
  const std::string descr = AfterKey(header, "descr", what);
  const size_t close = descr.find('\'', 1);
  if (descr.empty() || descr[0] != '\'' || close == std::string::npos || close < 3) ThrowInputError(what, ": malformed dtype in .npy header");
  const char order = descr[1];
  const std::string code = descr.substr(2, close - 2);
  static const std::pair<const char*, DataType> kTypes[] = {
      {"f2", DataType::kFloat16}, {"f4", DataType::kFloat},  {"f8", DataType::kDouble}, {"i1", DataType::kInt8},
      {"i2", DataType::kInt16},   {"i4", DataType::kInt32},  {"i8", DataType::kInt64},  {"u1", DataType::kUint8},
      {"u2", DataType::kUint16},  {"u4", DataType::kUint32}, {"u8", DataType::kUint64}, {"b1", DataType::kBool}};
  for (const auto& t : kTypes) {
    if (code == t.first) h.dtype = t.second;
  }
  if (h.dtype == DataType::kUndefined) ThrowInputError(what, ": unsupported .npy dtype '", descr.substr(1, close - 1), "'");
  if (order == '>' && ElementSize(h.dtype) > 1) ThrowInputError(what, ": big-endian .npy data is not supported");
  if (AfterKey(header, "fortran_order", what).compare(0, 4, "True") == 0) {
    ThrowInputError(what, ": Fortran-order .npy arrays are not supported");
  }
  const std::string shape = AfterKey(header, "shape", what);
  const size_t shape_end = shape.find(')');
  if (shape.empty() || shape[0] != '(' || shape_end == std::string::npos) ThrowInputError(what, ": malformed shape in .npy header");
  for (size_t i = 1; i < shape_end;) {
    if (shape[i] == ' ' || shape[i] == ',') {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < shape_end && shape[j] >= '0' && shape[j] <= '9') ++j;
    if (j == i || j - i > 18) ThrowInputError(what, ": malformed shape ", shape.substr(0, shape_end + 1), " in .npy header");
    h.shape.push_back(std::stoll(shape.substr(i, j - i)));
    i = j;
  }
  const int64_t n = ShapeSize(h.shape);
  const int64_t es = static_cast<int64_t>(ElementSize(h.dtype));
  if (n > std::numeric_limits<int64_t>::max() / es) ThrowInputError(what, ": .npy shape ", ShapeToString(h.shape), " is too large");
  h.data_bytes = n * es;
  return h;
}

NpzArchive NpzArchive::Open(const std::string& path) {
  NpzArchive a;
  a.path_ = path;
  a.file_size_ = FileSize(path);
  const uint64_t size = static_cast<uint64_t>(a.file_size_);
  std::ifstream in = OpenFile(path);
  // End of central directory: 22 bytes plus a comment of up to 65535 bytes, at the very end.
  if (size < 22) ThrowInputError(path, ": not a .npz archive (", size, " bytes, too short for a zip file)");
  const uint64_t tail_start = size - std::min<uint64_t>(size, 22 + 65535);
  const std::string tail = ReadAt(in, path, tail_start, size - tail_start);
  int64_t e = -1;
  for (int64_t p = static_cast<int64_t>(tail.size()) - 22; p >= 0 && e < 0; --p) {
    if (tail.compare(static_cast<size_t>(p), 4, "PK\x05\x06") == 0 &&
        static_cast<uint64_t>(p) + 22 + Le(&tail[static_cast<size_t>(p) + 20], 2) == tail.size()) {
      e = p;
    }
  }
  if (e < 0) ThrowInputError(path, ": not a .npz archive or truncated (no zip end-of-central-directory record)");
  const char* eocd = &tail[static_cast<size_t>(e)];
  const uint64_t eocd_pos = tail_start + static_cast<uint64_t>(e);
  if (Le(eocd + 4, 2) != 0 || Le(eocd + 6, 2) != 0) ThrowInputError(path, ": multi-volume zip archives are not supported");
  uint64_t count = Le(eocd + 10, 2), cd_size = Le(eocd + 12, 4), cd_offset = Le(eocd + 16, 4), cd_end = eocd_pos;
  // A zip64 locator right before the record points at the zip64 end-of-central-directory record.
  if (eocd_pos >= 20 && ReadAt(in, path, eocd_pos - 20, 4) == "PK\x06\x07") {
    const std::string loc = ReadAt(in, path, eocd_pos - 20, 20);
    const uint64_t z = Le(&loc[8], 8);
    if (z > eocd_pos - 20 || eocd_pos - 20 - z < 56) ThrowInputError(path, ": zip64 end-of-central-directory locator points outside the file");
    const std::string rec = ReadAt(in, path, z, 56);
    if (rec.compare(0, 4, "PK\x06\x06") != 0) ThrowInputError(path, ": zip64 end-of-central-directory record is missing");
    count = Le(&rec[32], 8);
    cd_size = Le(&rec[40], 8);
    cd_offset = Le(&rec[48], 8);
    cd_end = z;
  }
  if (cd_offset > cd_end || cd_size > cd_end - cd_offset || count > cd_size / 46) {
    ThrowInputError(path, ": corrupt zip central directory (", count, " entries, ", cd_size, " bytes at offset ", cd_offset,
                    " in a file of ", size, " bytes)");
  }
  const std::string cd = ReadAt(in, path, cd_offset, cd_size);
  const uint64_t limit = static_cast<uint64_t>(MaxTensorBytes() + kNpyHeaderRoom);
  for (size_t p = 0, i = 0; i < count; ++i) {
    if (p + 46 > cd.size() || cd.compare(p, 4, "PK\x01\x02") != 0) ThrowInputError(path, ": corrupt zip central directory entry ", i);
    const char* h = &cd[p];
    const size_t name_len = Le(h + 28, 2), extra_len = Le(h + 30, 2), comment_len = Le(h + 32, 2);
    if (p + 46 + name_len + extra_len + comment_len > cd.size()) ThrowInputError(path, ": corrupt zip central directory entry ", i);
    const std::string name = cd.substr(p + 46, name_len);
    Entry en;
    en.method = static_cast<uint16_t>(Le(h + 10, 2));
    en.crc = static_cast<uint32_t>(Le(h + 16, 4));
    en.compressed = Le(h + 20, 4);
    en.uncompressed = Le(h + 24, 4);
    en.local_offset = Le(h + 42, 4);
    const bool npy = name.size() >= 4 && name.compare(name.size() - 4, 4, ".npy") == 0;
    const std::string key = npy ? name.substr(0, name.size() - 4) : name;
    const std::string what = path + ":" + key;
    ApplyZip64Extra(cd.substr(p + 46 + name_len, extra_len), &en.uncompressed, &en.compressed, &en.local_offset, what);
    p += 46 + name_len + extra_len + comment_len;
    if (Le(h + 8, 2) & 1) ThrowInputError(what, ": encrypted zip entries are not supported");
    if (en.method != 0 && en.method != 8) ThrowInputError(what, ": zip compression method ", en.method, " is not supported (only stored and deflate)");
    if (!npy) ThrowInputError(what, ": entry is not a .npy array");
    if (a.entries_.count(key)) ThrowInputError(what, ": duplicate entry in the archive");
    if (en.uncompressed > limit) {
      ThrowInputError(what, ": entry declares ", en.uncompressed, " uncompressed bytes, more than the limit of ", limit);
    }
    // Deflate expands at most 1032:1, so a larger declared size is corrupt; checked before allocating.
    if (en.method == 8 && en.uncompressed / 1032 > en.compressed + 16) {
      ThrowInputError(what, ": entry declares ", en.uncompressed, " uncompressed bytes from ", en.compressed,
                      " compressed bytes, more than deflate can produce");
    }
    if (en.method == 0 && en.compressed != en.uncompressed) {
      ThrowInputError(what, ": stored entry has ", en.compressed, " bytes but declares ", en.uncompressed, " uncompressed");
    }
    // The local header repeats the name; its extra field may differ from the central one.
    if (en.local_offset > cd_offset || cd_offset - en.local_offset < 30) ThrowInputError(what, ": local header offset outside the archive");
    const std::string local = ReadAt(in, path, en.local_offset, 30);
    const uint64_t data = en.local_offset + 30 + Le(&local[26], 2) + Le(&local[28], 2);
    if (local.compare(0, 4, "PK\x03\x04") != 0 || data > cd_offset ||
        ReadAt(in, path, en.local_offset + 30, name_len) != name) {
      ThrowInputError(what, ": corrupt local file header");
    }
    if (en.compressed > cd_offset - data) {
      ThrowInputError(what, ": entry of ", en.compressed, " bytes at offset ", data, " runs past the end of the data (truncated archive?)");
    }
    en.local_offset = data;  // from now on: where the entry's bytes start
    a.keys_.push_back(key);
    a.entries_[key] = en;
  }
  return a;
}

std::string NpzArchive::Inflate(const std::string& key, int64_t limit) const {
  const auto it = entries_.find(key);
  if (it == entries_.end()) ThrowInputError(path_, ": no entry '", key, ".npy' in the archive");
  const Entry& en = it->second;
  const std::string what = What(key);
  const bool partial = limit >= 0 && static_cast<uint64_t>(limit) < en.uncompressed;
  const uint64_t want = partial ? static_cast<uint64_t>(limit) : en.uncompressed;
  std::ifstream in = OpenFile(path_);
  std::string out;
  if (en.method == 0) {
    out = ReadAt(in, path_, en.local_offset, want);
  } else {
    out.assign(static_cast<size_t>(want), '\0');
    z_stream zs{};
    if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) throw Error(ErrorKind::kInternal, "zlib inflateInit2 failed");
    std::string chunk;
    uint64_t read = 0, produced = 0;
    char spill;  // receives output past the declared size, which is an error
    int ret = Z_OK;
    while (ret != Z_STREAM_END && !(partial && produced == want)) {
      if (zs.avail_in == 0 && read < en.compressed) {
        chunk = ReadAt(in, path_, en.local_offset + read, std::min<uint64_t>(kChunk, en.compressed - read));
        read += chunk.size();
        zs.next_in = reinterpret_cast<Bytef*>(chunk.data());
        zs.avail_in = static_cast<uInt>(chunk.size());
      }
      const bool over = produced == want;
      zs.next_out = reinterpret_cast<Bytef*>(over ? &spill : &out[static_cast<size_t>(produced)]);
      zs.avail_out = over ? 1u : static_cast<uInt>(std::min<uint64_t>(want - produced, uint64_t{1} << 30));
      const uInt before = zs.avail_out, in_before = zs.avail_in;
      ret = inflate(&zs, Z_NO_FLUSH);
      produced += before - zs.avail_out;
      const bool stuck = (ret == Z_BUF_ERROR || (ret == Z_OK && zs.avail_in == in_before && zs.avail_out == before)) &&
                         zs.avail_in == 0 && read == en.compressed;
      if (produced > want || (ret != Z_OK && ret != Z_STREAM_END && ret != Z_BUF_ERROR) || stuck) {
        inflateEnd(&zs);
        if (produced > want) ThrowInputError(what, ": entry inflates to more than the ", want, " bytes it declares");
        if (stuck) ThrowInputError(what, ": compressed data ends early (truncated or corrupt entry)");
        ThrowInputError(what, ": corrupt deflate data: ", zs.msg ? zs.msg : "zlib error");
      }
    }
    inflateEnd(&zs);
    if (produced != want) ThrowInputError(what, ": entry inflates to ", produced, " bytes but declares ", want);
  }
  if (!partial && Crc32(out) != en.crc) ThrowInputError(what, ": CRC-32 mismatch (corrupt archive)");
  return out;
}

NpyHeader NpzArchive::ReadHeader(const std::string& key) const {
  const std::string first = Inflate(key, 12);
  return ParseNpyHeader(Inflate(key, NpyHeaderSize(first, What(key))), What(key));
}

Tensor NpzArchive::Read(const std::string& key) const { return ParseNpy(Inflate(key, -1), What(key)); }

std::map<std::string, Tensor> ReadNpz(const std::string& path) {
  const NpzArchive a = NpzArchive::Open(path);
  std::map<std::string, Tensor> out;
  for (const std::string& key : a.keys()) out[key] = a.Read(key);
  return out;
}

}  // namespace ptq
