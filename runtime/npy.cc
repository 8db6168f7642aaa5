// .npy decoding and encoding.
#include "runtime/npy.h"

#include <cstring>

#include "runtime/file_util.h"

namespace ptq {

namespace {

struct NpyType {
  const char* descr;
  DataType dtype;
};
constexpr NpyType kTypes[] = {
    {"f2", DataType::kFloat16}, {"f4", DataType::kFloat}, {"f8", DataType::kDouble}, {"i1", DataType::kInt8},
    {"i2", DataType::kInt16},   {"i4", DataType::kInt32}, {"i8", DataType::kInt64},  {"u1", DataType::kUint8},
    {"u2", DataType::kUint16},  {"u4", DataType::kUint32}, {"u8", DataType::kUint64}, {"b1", DataType::kBool},
};

// The value of `key` in the header dict, as the raw text up to the next top-level ',' or '}'.
std::string DictValue(const std::string& header, const std::string& key, const std::string& what) {
  const std::string pat = "'" + key + "'";
  const size_t k = header.find(pat);
  if (k == std::string::npos) ThrowDataError(what, ": .npy header has no '", key, "' entry");
  size_t p = header.find(':', k + pat.size());
  if (p == std::string::npos) ThrowDataError(what, ": malformed .npy header");
  ++p;
  while (p < header.size() && header[p] == ' ') ++p;
  if (p < header.size() && header[p] == '(') {
    const size_t e = header.find(')', p);
    if (e == std::string::npos) ThrowDataError(what, ": malformed shape in .npy header");
    return header.substr(p, e - p + 1);
  }
  size_t e = p;
  while (e < header.size() && header[e] != ',' && header[e] != '}') ++e;
  return header.substr(p, e - p);
}

Shape ParseShape(const std::string& text, const std::string& what) {
  Shape shape;
  size_t i = 1;  // after '('
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ',')) ++i;
    if (i >= text.size() || text[i] == ')') break;
    size_t j = i;
    while (j < text.size() && text[j] >= '0' && text[j] <= '9') ++j;
    if (j == i || j - i > 18) ThrowDataError(what, ": malformed shape ", text, " in .npy header");
    shape.push_back(std::stoll(text.substr(i, j - i)));
    i = j;
  }
  return shape;
}

}  // namespace

Tensor ParseNpy(const std::string& bytes, const std::string& what) {
  static const char kMagic[] = "\x93NUMPY";
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, 6) != 0) ThrowDataError(what, ": not a .npy file");
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len, header_start;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) ThrowDataError(what, ": truncated .npy header");
    header_len = 0;
    for (int i = 3; i >= 0; --i) header_len = (header_len << 8) | static_cast<unsigned char>(bytes[8 + static_cast<size_t>(i)]);
    header_start = 12;
  } else {
    ThrowDataError(what, ": unsupported .npy format version ", major);
  }
  if (header_len > bytes.size() - header_start) ThrowDataError(what, ": truncated .npy header");
  const std::string header = bytes.substr(header_start, header_len);
  std::string descr = DictValue(header, "descr", what);
  const std::string fortran = DictValue(header, "fortran_order", what);
  const Shape shape = ParseShape(DictValue(header, "shape", what), what);
  if (fortran.find("True") != std::string::npos) ThrowDataError(what, ": Fortran-order .npy arrays are not supported");
  // descr looks like '<f4', '|u1' or '>i8'.
  if (descr.size() < 5 || descr.front() != '\'' || descr.back() != '\'') ThrowDataError(what, ": malformed dtype ", descr);
  descr = descr.substr(1, descr.size() - 2);
  const char order = descr[0];
  const std::string code = descr.substr(1);
  DataType dtype = DataType::kUndefined;
  for (const NpyType& t : kTypes) {
    if (code == t.descr) dtype = t.dtype;
  }
  if (dtype == DataType::kUndefined) ThrowDataError(what, ": unsupported .npy dtype '", descr, "'");
  if (order == '>' && ElementSize(dtype) > 1) ThrowDataError(what, ": big-endian .npy data is not supported");
  const int64_t n = ShapeSize(shape);
  const size_t data_start = header_start + header_len;
  const size_t have = bytes.size() - data_start;
  if (n > static_cast<int64_t>(have / ElementSize(dtype)) || static_cast<size_t>(n) * ElementSize(dtype) != have) {
    ThrowDataError(what, ": .npy header says shape ", ShapeToString(shape), " of ", DataTypeName(dtype), " but the file holds ",
                    have, " data bytes");
  }
  Tensor t(dtype, shape);
  std::memcpy(t.raw(), bytes.data() + data_start, t.nbytes());
  return t;
}

Tensor ReadNpy(const std::string& path) {
  return ParseNpy(ReadFileToString(path, MaxTensorBytes() + (1 << 20)), path);
}

std::string EncodeNpy(const Tensor& t) {
  DataType dtype = t.dtype();
  if (dtype == DataType::kInt4) dtype = DataType::kInt8;
  if (dtype == DataType::kUint4) dtype = DataType::kUint8;
  const char* code = nullptr;
  for (const NpyType& nt : kTypes) {
    if (nt.dtype == dtype) code = nt.descr;
  }
  if (!code) ThrowDataError("cannot write a tensor of type ", DataTypeName(t.dtype()), " as .npy");
  const char order = ElementSize(dtype) == 1 ? '|' : '<';
  std::string shape = "(";
  for (size_t i = 0; i < t.shape().size(); ++i) shape += std::to_string(t.shape()[i]) + (t.shape().size() == 1 ? "," : (i + 1 < t.shape().size() ? ", " : ""));
  shape += ")";
  std::string header = std::string("{'descr': '") + order + code + "', 'fortran_order': False, 'shape': " + shape + ", }";
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(static_cast<const char*>(t.raw()), t.nbytes());
  return out;
}

void WriteNpy(const std::string& path, const Tensor& t) { WriteFileAtomic(path, EncodeNpy(t)); }

}  // namespace ptq
