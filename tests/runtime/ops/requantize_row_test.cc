// RequantizeRow (int32 and exact-float accumulators) against RequantizeValue element by element: ties,
// saturation, int32 extremes with wrapping bias, NaN and infinite multipliers, every tail length.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "runtime/kernels/vector/requantize_row.h"
#include "runtime/quant_math.h"

namespace ptq {
namespace {

void Check(const std::vector<int32_t>& acc, int32_t bias, float multiplier, int32_t zp, Int8Output type) {
  const int64_t n = static_cast<int64_t>(acc.size());
  std::vector<int32_t> out32(acc.size());
  std::vector<uint8_t> out8(acc.size());
  void* out = type == Int8Output::kInt32 ? static_cast<void*>(out32.data()) : static_cast<void*>(out8.data());
  RequantizeRow(acc.data(), n, bias, multiplier, zp, type, out);
  const bool is_signed = type == Int8Output::kInt8;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t a = static_cast<int32_t>(static_cast<uint32_t>(acc[i]) + static_cast<uint32_t>(bias));
    if (type == Int8Output::kInt32) {
      ASSERT_EQ(out32[i], a) << "element " << i;
      continue;
    }
    const int32_t want = RequantizeValue(a, multiplier, zp, is_signed ? -128 : 0, is_signed ? 127 : 255);
    const int32_t got = is_signed ? static_cast<int8_t>(out8[i]) : out8[i];
    ASSERT_EQ(got, want) << "element " << i << " of " << n << ", acc " << a << ", multiplier " << multiplier;
  }
}

TEST(RequantizeRow, MatchesRequantizeValueOnEveryLengthAndEdge) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int32_t> small(-3000, 3000);
  std::uniform_int_distribution<int32_t> any(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (int64_t n = 0; n <= 40; ++n) {
    std::vector<int32_t> acc(static_cast<size_t>(n));
    for (auto& a : acc) a = n % 3 == 0 ? any(rng) : small(rng);
    if (n > 2) acc[1] = std::numeric_limits<int32_t>::max();
    for (Int8Output type : {Int8Output::kInt32, Int8Output::kUint8, Int8Output::kInt8}) {
      Check(acc, 7, 0.5f, 3, type);                              // ties of .5 round to even
      Check(acc, std::numeric_limits<int32_t>::max(), 0.01f, -5, type);  // the bias wraps
      Check(acc, -11, 1e-6f, 128, type);
      Check(acc, 0, nan, 10, type);
      Check(acc, 0, inf, 10, type);
      Check(acc, 0, -inf, 0, type);
    }
  }
}

TEST(RequantizeRow, FloatAccumulatorsGiveTheSameBytesAsTheirIntegers) {
  std::mt19937 rng(6);
  std::uniform_int_distribution<int32_t> exact(-(1 << 24) + 1, (1 << 24) - 1);
  for (int64_t n : {1, 15, 16, 17, 63}) {
    std::vector<int32_t> acc(static_cast<size_t>(n));
    std::vector<float> accf(acc.size());
    for (size_t i = 0; i < acc.size(); ++i) accf[i] = static_cast<float>(acc[i] = exact(rng));
    for (Int8Output type : {Int8Output::kInt32, Int8Output::kUint8, Int8Output::kInt8}) {
      std::vector<int32_t> a(acc.size()), b(acc.size());
      RequantizeRow(acc.data(), n, -77, 3e-5f, 4, type, a.data());
      RequantizeRow(accf.data(), n, -77, 3e-5f, 4, type, b.data());
      const size_t bytes = type == Int8Output::kInt32 ? acc.size() * 4 : acc.size();
      EXPECT_EQ(0, std::memcmp(a.data(), b.data(), bytes)) << "n " << n;
    }
  }
}

}  // namespace
}  // namespace ptq
