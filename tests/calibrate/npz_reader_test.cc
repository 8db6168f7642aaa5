// Tests of .npz reading: numpy's savez, savez_compressed and zip64 archives, and damaged archives.
#include "calibrate/npz_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "runtime/file_util.h"
#include "runtime/npy.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;

std::string Fixture(const std::string& name) { return std::string(PTQ_SOURCE_DIR) + "/tests/data/npz/" + name; }

// Writes `bytes` to a temporary .npz and returns its path (removed by the destructor).
class TempNpz {
 public:
  explicit TempNpz(const std::string& bytes)
      : path_((fs::temp_directory_path() / ("ptq_npz_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++) + ".npz")).string()) {
    std::ofstream(path_, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));  // no fsync: fast
  }
  ~TempNpz() { fs::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::string path_;
};

std::string ErrorOf(const std::string& bytes) {
  TempNpz f(bytes);
  try {
    ReadNpz(f.path());
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInput) << e.what();
    EXPECT_NE(std::string(e.what()).find(f.path()), std::string::npos) << e.what();
    return e.what();
  }
  return "(no error)";
}

void PutLe(std::string* bytes, size_t at, uint64_t value, int n) {
  for (int i = 0; i < n; ++i) (*bytes)[at + static_cast<size_t>(i)] = static_cast<char>((value >> (8 * i)) & 0xff);
}

TEST(NpzReader, ReadsSavezSavezCompressedAndZip64Archives) {
  for (const char* name : {"savez.npz", "savez_compressed.npz", "zip64.npz"}) {
    const std::map<std::string, Tensor> a = ReadNpz(Fixture(name));
    ASSERT_EQ(a.size(), 3u) << name;
    const Tensor& images = a.at("images");
    EXPECT_EQ(images.dtype(), DataType::kFloat);
    EXPECT_EQ(images.shape(), (Shape{5, 2, 3}));
    for (int64_t i = 0; i < images.size(); ++i) EXPECT_EQ(images.data<float>()[i], 100 * (i / 6) + 10 * (i / 3 % 2) + i % 3);
    const Tensor& ids = a.at("ids");
    EXPECT_EQ(ids.dtype(), DataType::kInt64);
    EXPECT_EQ(ids.data<int64_t>()[4 * 4 + 3], 4003) << name;
    EXPECT_EQ(a.at("a/b:c.d").shape(), (Shape{5, 2}));
  }
}

TEST(NpzReader, ListsKeysInArchiveOrderAndReadsHeadersAlone) {
  const NpzArchive a = NpzArchive::Open(Fixture("savez_compressed.npz"));
  EXPECT_EQ(a.keys(), (std::vector<std::string>{"images", "ids", "a/b:c.d"}));
  EXPECT_TRUE(a.Has("ids"));
  EXPECT_FALSE(a.Has("ids.npy"));
  const NpyHeader h = a.ReadHeader("ids");
  EXPECT_EQ(h.dtype, DataType::kInt64);
  EXPECT_EQ(h.shape, (Shape{5, 4}));
  EXPECT_EQ(h.data_bytes, 160);
}

TEST(NpzReader, NpyHeaderParsingAgreesWithParseNpy) {
  for (const Tensor& t : {Tensor(DataType::kFloat, {2, 3}), Tensor(DataType::kUint8, {7}), Tensor(DataType::kBool, {}),
                          Tensor(DataType::kFloat16, {1, 1, 4})}) {
    const std::string bytes = EncodeNpy(t);
    const NpyHeader h = ParseNpyHeader(bytes, "mem");
    const Tensor back = ParseNpy(bytes, "mem");
    EXPECT_EQ(h.dtype, back.dtype());
    EXPECT_EQ(h.shape, back.shape());
    EXPECT_EQ(h.data_offset + h.data_bytes, static_cast<int64_t>(bytes.size()));
  }
  std::string fortran = EncodeNpy(Tensor(DataType::kFloat, {2}));
  fortran.replace(fortran.find("False"), 5, "True ");
  EXPECT_THROW(ParseNpyHeader(fortran, "mem"), Error);
  std::string big = EncodeNpy(Tensor(DataType::kFloat, {2}));
  big[big.find("<f4")] = '>';
  EXPECT_THROW(ParseNpyHeader(big, "mem"), Error);
}

TEST(NpzReader, EveryTruncationIsAnErrorNamingTheArchive) {
  for (const char* name : {"savez.npz", "savez_compressed.npz", "zip64.npz"}) {
    const std::string bytes = ReadFileToString(Fixture(name), 1 << 20);
    for (size_t n = 0; n < bytes.size(); ++n) EXPECT_NE(ErrorOf(bytes.substr(0, n)), "(no error)") << name << " cut at " << n;
  }
}

TEST(NpzReader, CorruptedDataFailsTheCrcCheck) {
  std::string bytes = ReadFileToString(Fixture("savez.npz"), 1 << 20);
  const size_t data = bytes.find("\x93NUMPY", bytes.find("ids.npy")) + 128 + 5;  // inside ids' array data
  bytes[data] ^= 0x10;
  const std::string err = ErrorOf(bytes);
  EXPECT_NE(err.find(":ids: CRC-32 mismatch"), std::string::npos) << err;
}

TEST(NpzReader, DamagedDeflateDataIsAnErrorNeverACrash) {
  const std::string bytes = ReadFileToString(Fixture("savez_compressed.npz"), 1 << 20);
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] ^= 0x5a;
    TempNpz f(damaged);
    try {
      ReadNpz(f.path());  // some bytes (timestamps, versions) do not matter
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kInput) << i << ": " << e.what();
    }
  }
}

// The first central directory entry: offset of its 46-byte fixed part.
size_t FirstCentralEntry(const std::string& bytes) { return bytes.find("PK\x01\x02"); }

TEST(NpzReader, EntryClaimingATerabyteIsAnErrorNotAnAllocation) {
  std::string bytes = ReadFileToString(Fixture("zip64.npz"), 1 << 20);
  const size_t c = FirstCentralEntry(bytes);
  const size_t extra = c + 46 + (static_cast<unsigned char>(bytes[c + 28]));  // zip64 extra: id, size, uncompressed, ...
  ASSERT_EQ(bytes.substr(extra, 2), std::string("\x01\x00", 2));
  PutLe(&bytes, extra + 4, uint64_t{1} << 40, 8);
  const std::string err = ErrorOf(bytes);
  EXPECT_NE(err.find(":images: entry declares 1099511627776 uncompressed bytes"), std::string::npos) << err;
}

TEST(NpzReader, DeclaredSizeMustMatchWhatInflates) {
  const std::string bytes = ReadFileToString(Fixture("savez_compressed.npz"), 1 << 20);
  const size_t c = FirstCentralEntry(bytes);
  const uint64_t real = static_cast<unsigned char>(bytes[c + 24]) | static_cast<unsigned char>(bytes[c + 25]) << 8;
  std::string smaller = bytes, larger = bytes;
  PutLe(&smaller, c + 24, real - 1, 4);  // a small declared size that inflates further: a zip bomb's shape
  PutLe(&larger, c + 24, real + 1000, 4);
  std::string err = ErrorOf(smaller);
  EXPECT_NE(err.find(":images: entry inflates to more than the"), std::string::npos) << err;
  err = ErrorOf(larger);
  EXPECT_NE(err.find(":images: entry inflates to"), std::string::npos) << err;
  std::string huge = bytes;  // 1 GiB from a few hundred bytes: refused before allocating
  PutLe(&huge, c + 24, uint64_t{1} << 30, 4);
  err = ErrorOf(huge);
  EXPECT_NE(err.find(":images: entry declares 1073741824 uncompressed bytes from"), std::string::npos) << err;
}

TEST(NpzReader, NotAZipArchive) {
  EXPECT_NE(ErrorOf(EncodeNpy(Tensor(DataType::kFloat, {64}))).find("not a .npz archive"), std::string::npos);
  EXPECT_NE(ErrorOf("").find("too short"), std::string::npos);
}

}  // namespace
}  // namespace ptq
