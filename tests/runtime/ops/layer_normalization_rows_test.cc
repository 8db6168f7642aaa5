// Tests of LayerNormalization's float32 row loop: the AVX2 compilation gives the same bits as the
// portable one, both stay close to a double-precision reference, and the op (float32, float16)
// writes every output element.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "runtime/cpu_features.h"
#include "runtime/float16.h"
#include "runtime/ops/nn/layer_normalization.h"
#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::RunOp;
using testing::ToVector;

struct Rows {
  std::vector<float> y, mean, inv;
};

Rows RunRows(const std::vector<float>& x, int64_t rows, int64_t n, const std::vector<float>& g,
             const std::vector<float>& b, bool avx2) {
  Rows r{std::vector<float>(x.size()), std::vector<float>(static_cast<size_t>(rows)),
         std::vector<float>(static_cast<size_t>(rows))};
  LayerNormalizationRows(x.data(), rows, n, g.data(), b.data(), 1e-5f, r.y.data(), r.mean.data(), r.inv.data(), avx2);
  return r;
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

TEST(LayerNormalizationRows, Avx2AndPortableGiveTheSameBits) {
  if (!GetCpuFeatures().avx2_fma) GTEST_SKIP() << "the CPU lacks AVX2/FMA (or PTQ_CPU=baseline)";
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> d(-30.0f, 30.0f);
  for (int64_t n : {1, 2, 7, 8, 9, 15, 16, 17, 33, 64, 100, 768}) {
    const int64_t rows = 5;
    std::vector<float> x(static_cast<size_t>(rows * n)), g(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    for (float& v : x) v = d(rng);
    for (float& v : g) v = d(rng) / 10.0f;
    for (float& v : b) v = d(rng) / 10.0f;
    x[0] = 1e20f;  // a row with a huge value, and one with constant values
    for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(n + i)] = 3.25f;
    const Rows portable = RunRows(x, rows, n, g, b, false);
    const Rows avx2 = RunRows(x, rows, n, g, b, true);
    EXPECT_TRUE(SameBits(portable.y, avx2.y)) << "n=" << n;
    EXPECT_TRUE(SameBits(portable.mean, avx2.mean)) << "n=" << n;
    EXPECT_TRUE(SameBits(portable.inv, avx2.inv)) << "n=" << n;
  }
}

TEST(LayerNormalizationRows, CloseToDoubleReference) {
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> d(-4.0f, 4.0f);
  const int64_t rows = 3, n = 37;
  std::vector<float> x(static_cast<size_t>(rows * n)), g(static_cast<size_t>(n)), b(static_cast<size_t>(n));
  for (float& v : x) v = d(rng);
  for (float& v : g) v = d(rng);
  for (float& v : b) v = d(rng);
  const Rows r = RunRows(x, rows, n, g, b, GetCpuFeatures().avx2_fma);
  for (int64_t row = 0; row < rows; ++row) {
    const float* xr = x.data() + row * n;
    double mean = 0, var = 0;
    for (int64_t i = 0; i < n; ++i) mean += xr[i];
    mean /= static_cast<double>(n);
    for (int64_t i = 0; i < n; ++i) var += (xr[i] - mean) * (xr[i] - mean);
    const double inv = 1.0 / std::sqrt(var / static_cast<double>(n) + 1e-5);
    EXPECT_NEAR(r.mean[static_cast<size_t>(row)], mean, 1e-5);
    EXPECT_NEAR(r.inv[static_cast<size_t>(row)], inv, 1e-5 * inv);
    for (int64_t i = 0; i < n; ++i) {
      const double want = (xr[i] - mean) * inv * g[static_cast<size_t>(i)] + b[static_cast<size_t>(i)];
      EXPECT_NEAR(r.y[static_cast<size_t>(row * n + i)], want, 1e-5 * (1.0 + std::fabs(want)));
    }
  }
}

// The output is allocated without a zero fill: every element must be written, for float32 and
// float16 (computed in float32, then rounded), with the statistics as float32.
TEST(LayerNormalizationRows, OpWritesEveryElementForFloatAndFloat16) {
  const std::vector<float> xv = {1, 2, 3, 4, 5, -1, 0, 1, 2, 8, 8, 8, 8, 8, 8};
  const Tensor scale = Tensor::FromVector<float>({5}, {1, 1, 1, 1, 1});
  const std::vector<Tensor> y = RunOp("LayerNormalization", 17, {}, {Tensor::FromVector<float>({3, 5}, xv), scale}, 3);
  const std::vector<float> yf = ToVector<float>(y[0]);
  ASSERT_EQ(yf.size(), xv.size());
  for (float v : yf) EXPECT_TRUE(std::isfinite(v));
  for (int i = 10; i < 15; ++i) EXPECT_EQ(yf[static_cast<size_t>(i)], 0.0f);  // a constant row
  EXPECT_EQ(ToVector<float>(y[1]), (std::vector<float>{3, 2, 8}));

  std::vector<uint16_t> xh;
  for (float v : xv) xh.push_back(FloatToHalf(v));
  std::vector<uint16_t> sh(5, FloatToHalf(1.0f));
  const Tensor xh_t = Tensor::FromVector<uint16_t>({3, 5}, xh, DataType::kFloat16);
  const Tensor sh_t = Tensor::FromVector<uint16_t>({5}, sh, DataType::kFloat16);
  const std::vector<Tensor> h = RunOp("LayerNormalization", 17, {}, {xh_t, sh_t}, 2);
  EXPECT_EQ(h[0].dtype(), DataType::kFloat16);
  const std::vector<uint16_t> yh = ToVector<uint16_t>(h[0]);
  for (size_t i = 0; i < yh.size(); ++i) EXPECT_EQ(yh[i], FloatToHalf(yf[i])) << i;
}

}  // namespace
}  // namespace ptq
