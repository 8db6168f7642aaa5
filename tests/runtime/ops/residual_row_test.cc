// AddResidualRow gives, on every length, the bits of an Add then the Relu / Clip clamp written out one value at a
// time (the plain loop, and the separate nodes' semantics: a NaN stays, of equal zeros the sum stays), with and
// without the clamp, on AVX2 and with PTQ_CPU=baseline alike.
#include "runtime/kernels/vector/residual_row.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace ptq {
namespace {

TEST(AddResidualRow, HasTheBitsOfAnAddThenTheClampAtEveryLength) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> value(-8.0f, 8.0f);
  std::vector<float> y0, z;
  // Sums at and around the bounds (0 and 6), signed zeros, infinities and NaNs, then random values.
  const float special[][2] = {{0.0f, 0.0f}, {-0.0f, 0.0f}, {-0.0f, -0.0f}, {3.0f, -3.0f}, {6.0f, 0.0f},
                              {5.0f, 1.5f}, {-1.0f, 0.5f}, {inf, 1.0f},   {-inf, 1.0f}, {nan, 1.0f},
                              {1.0f, nan},  {inf, -inf},   {1e-40f, 0.0f}, {-1e-40f, 0.0f}};
  for (const auto& p : special) {
    y0.push_back(p[0]);
    z.push_back(p[1]);
  }
  while (y0.size() < 77) {
    y0.push_back(value(rng));
    z.push_back(value(rng));
  }
  for (bool clamp : {false, true}) {
    for (const float hi : {6.0f, inf}) {
      for (int64_t n = 0; n <= static_cast<int64_t>(y0.size()); ++n) {  // steps of 8 and the rest
        std::vector<float> y(y0.begin(), y0.begin() + n);
        AddResidualRow(y.data(), z.data(), n, clamp, 0.0f, hi);
        for (int64_t i = 0; i < n; ++i) {
          float want = y0[static_cast<size_t>(i)] + z[static_cast<size_t>(i)];
          if (clamp) {
            want = want < 0.0f ? 0.0f : want;
            want = hi < want ? hi : want;
          }
          ASSERT_EQ(0, std::memcmp(&y[static_cast<size_t>(i)], &want, sizeof(float)))  // the same bits
              << "n " << n << " i " << i << ": " << y[static_cast<size_t>(i)] << " against " << want
              << (clamp ? ", clamp to " : ", no clamp ") << hi;
        }
      }
    }
  }
}

}  // namespace
}  // namespace ptq
