// Tests of .npy reading and writing: round trips, numpy-written files, and malformed headers.
#include "runtime/npy.h"

#include <gtest/gtest.h>

#include <string>

#include "runtime/error.h"

namespace ptq {
namespace {

std::string ErrorOf(const std::string& bytes) {
  try {
    ParseNpy(bytes, "x.npy");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInput);
    return e.what();
  }
  return "";
}

std::string Header(const std::string& dict, size_t data_bytes) {
  std::string h = dict;
  h += std::string((64 - (10 + h.size() + 1) % 64) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>(h.size() >> 8);
  return out + h + std::string(data_bytes, '\0');
}

TEST(Npy, RoundTripsEveryType) {
  for (DataType t : {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kInt8, DataType::kUint8,
                     DataType::kInt16, DataType::kUint16, DataType::kInt32, DataType::kUint32, DataType::kInt64,
                     DataType::kUint64, DataType::kBool}) {
    Tensor a(t, {2, 3});
    auto* bytes = static_cast<uint8_t*>(a.raw());
    for (size_t i = 0; i < a.nbytes(); ++i) bytes[i] = static_cast<uint8_t>(t == DataType::kBool ? i % 2 : i * 7 + 1);
    const Tensor b = ParseNpy(EncodeNpy(a), "mem");
    EXPECT_EQ(b.dtype(), t);
    EXPECT_EQ(b.shape(), a.shape());
    EXPECT_EQ(std::string(static_cast<const char*>(b.raw()), b.nbytes()),
              std::string(static_cast<const char*>(a.raw()), a.nbytes()));
  }
}

TEST(Npy, ReadsScalarsAndOneDimensionalShapes) {
  Tensor s = ParseNpy(Header("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 4), "s");
  EXPECT_EQ(s.shape(), Shape{});
  Tensor v = ParseNpy(Header("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", 24), "v");
  EXPECT_EQ(v.shape(), Shape{3});
  EXPECT_EQ(v.dtype(), DataType::kInt64);
}

TEST(Npy, HeaderClaimingTerabytesIsAnErrorNotAnAllocation) {
  const std::string err = ErrorOf(Header("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000, 1000), }", 16));
  EXPECT_NE(err.find("x.npy"), std::string::npos) << err;
  EXPECT_NE(err.find("holds 16 data bytes"), std::string::npos) << err;
}

TEST(Npy, MalformedFilesAreNamedErrors) {
  EXPECT_NE(ErrorOf("hello").find("not a .npy file"), std::string::npos);
  EXPECT_NE(ErrorOf(Header("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", 8)).find("Fortran"), std::string::npos);
  EXPECT_NE(ErrorOf(Header("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8)).find("big-endian"), std::string::npos);
  EXPECT_NE(ErrorOf(Header("{'descr': '<U8', 'fortran_order': False, 'shape': (2,), }", 64)).find("unsupported .npy dtype"), std::string::npos);
  EXPECT_NE(ErrorOf(Header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 20)).find("shape [2, 3]"), std::string::npos);
  EXPECT_NE(ErrorOf(Header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,x), }", 8)).find("malformed shape"), std::string::npos);
  EXPECT_NE(ErrorOf(Header("{'fortran_order': False, 'shape': (2,), }", 8)).find("'descr'"), std::string::npos);
  std::string truncated = Header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 8);
  EXPECT_NE(ErrorOf(truncated.substr(0, 30)).find("truncated"), std::string::npos);
}

}  // namespace
}  // namespace ptq
