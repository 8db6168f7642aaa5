// TransposeBytes against the definition over sizes around the 16 x 16 block (including 0 and 1).
#include "runtime/kernels/conv/transpose_bytes.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace ptq {
namespace {

TEST(TransposeBytes, MatchesTheDefinitionForBlockedAndBorderSizes) {
  std::mt19937 rng(4);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int64_t rows : {0, 1, 15, 16, 17, 33, 64}) {
    for (int64_t cols : {0, 1, 7, 16, 31, 32, 48}) {
      std::vector<uint8_t> src(static_cast<size_t>(rows * cols)), dst(src.size() + 1, 0xEE);
      for (auto& v : src) v = static_cast<uint8_t>(byte(rng));
      TransposeBytes(src.data(), rows, cols, dst.data());
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) {
          ASSERT_EQ(dst[static_cast<size_t>(c * rows + r)], src[static_cast<size_t>(r * cols + c)])
              << rows << "x" << cols << " at " << r << "," << c;
        }
      }
      EXPECT_EQ(dst.back(), 0xEE) << "wrote past the end";
    }
  }
}

}  // namespace
}  // namespace ptq
