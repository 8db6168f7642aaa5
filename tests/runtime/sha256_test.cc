// Tests of SHA-256 against the FIPS 180-4 / NIST example digests.
#include "runtime/sha256.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "runtime/error.h"

namespace ptq {
namespace {

TEST(Sha256, MatchesNistExamples) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, PaddingBoundaries) {
  // 55, 56, 64, 119 and 120 bytes straddle the one- and two-block padding boundaries; the digests
  // were computed with Python's hashlib.
  EXPECT_EQ(Sha256Hex(std::string(55, 'x')), "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072");
  EXPECT_EQ(Sha256Hex(std::string(56, 'x')), "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e");
  EXPECT_EQ(Sha256Hex(std::string(64, 'x')), "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c");
  EXPECT_EQ(Sha256Hex(std::string(119, 'x')), "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c");
  EXPECT_EQ(Sha256Hex(std::string(120, 'x')), "13f05a0b594787f5ecd315edc96141bd3243203d1b7d4f0836f37308b276ba98");
}

TEST(Sha256, PiecesGiveTheDigestOfTheWhole) {
  std::string bytes;
  for (int i = 0; i < 1000; ++i) bytes += static_cast<char>(i * 7 + i / 13);
  for (size_t piece : {1, 3, 63, 64, 65, 200}) {
    Sha256 h;
    for (size_t at = 0; at < bytes.size(); at += piece) h.Update(bytes.data() + at, std::min(piece, bytes.size() - at));
    EXPECT_EQ(h.HexDigest(), Sha256Hex(bytes)) << "pieces of " << piece;
  }
}

TEST(Sha256, FileDigestIsTheDigestOfItsBytes) {
  const std::string path = (std::filesystem::temp_directory_path() / ("ptq_sha_" + std::to_string(::getpid()))).string();
  const std::string bytes(3 << 20, 'q');  // more than the 1 MiB read block
  std::ofstream(path, std::ios::binary) << bytes;
  EXPECT_EQ(Sha256FileHex(path), Sha256Hex(bytes));
  std::filesystem::remove(path);
  EXPECT_THROW(Sha256FileHex(path), Error);
}

}  // namespace
}  // namespace ptq
