// Tests of DequantizeLinear's vectorised loops (portable and AVX2 compilations) and of the op's
// per-tensor / per-axis fast paths, bit for bit against DequantizeValue (quant_math.h), including
// -0, Inf and NaN scales and sizes around the vector width.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "runtime/cpu_features.h"
#include "runtime/ops/quantization/dequantize_linear_rows.h"
#include "runtime/quant_math.h"
#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::IntAttr;
using testing::RunOp;
using testing::ToVector;

std::vector<bool> Paths() {
  std::vector<bool> paths{false};
  if (GetCpuFeatures().avx2_fma) paths.push_back(true);
  return paths;
}

const std::vector<int64_t> kSizes = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 1031};

uint32_t Bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}

// x values: the type's extremes, 0 and the zero point, then uniform over [lo, hi].
template <class Q>
std::vector<Q> Values(size_t n, int64_t lo, int64_t hi, int32_t zero_point, std::mt19937& rng) {
  std::uniform_int_distribution<int64_t> d(lo, hi);
  const std::vector<int64_t> special = {lo, hi, 0, zero_point, lo + 1, hi - 1};
  std::vector<Q> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<Q>(i < special.size() ? special[i] : d(rng));
  std::shuffle(x.begin(), x.end(), rng);
  return x;
}

template <class Q>
void ExpectRunMatchesDequantizeValue(int64_t lo, int64_t hi, const std::vector<int32_t>& zero_points) {
  std::mt19937 rng(5);
  const float kInf = std::numeric_limits<float>::infinity();
  const std::vector<float> scales = {1.0f, 0.5f, 0.0123f, 3.7f, -0.25f, 0.0f, -0.0f,
                                     std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min(),
                                     kInf, std::numeric_limits<float>::quiet_NaN()};
  for (float scale : scales) {
    for (int32_t zp : zero_points) {
      for (int64_t n : kSizes) {
        const std::vector<Q> buf = Values<Q>(static_cast<size_t>(n) + 1, lo, hi, zp, rng);
        const Q* x = buf.data() + 1;  // unaligned start
        for (bool avx2 : Paths()) {
          std::vector<float> y(static_cast<size_t>(n));
          DequantizeRun(x, n, scale, zp, y.data(), avx2);
          for (int64_t i = 0; i < n; ++i) {
            const float want = DequantizeValue(static_cast<int32_t>(x[i]), scale, zp);
            ASSERT_EQ(Bits(y[static_cast<size_t>(i)]), Bits(want))
                << "x=" << static_cast<int64_t>(x[i]) << " scale=" << scale << " zp=" << zp << " n=" << n
                << " avx2=" << avx2;
          }
        }
      }
    }
  }
}

TEST(DequantizeLinearRows, RunMatchesDequantizeValueInt8) {
  ExpectRunMatchesDequantizeValue<int8_t>(-128, 127, {0, -128, 127, 5});
}
TEST(DequantizeLinearRows, RunMatchesDequantizeValueUint8) {
  ExpectRunMatchesDequantizeValue<uint8_t>(0, 255, {0, 128, 255, 3});
}
TEST(DequantizeLinearRows, RunMatchesDequantizeValueInt16) {
  ExpectRunMatchesDequantizeValue<int16_t>(-32768, 32767, {0, -32768, 32767});
}
TEST(DequantizeLinearRows, RunMatchesDequantizeValueUint16) {
  ExpectRunMatchesDequantizeValue<uint16_t>(0, 65535, {0, 65535, 32768});
}
TEST(DequantizeLinearRows, RunMatchesDequantizeValueInt32) {
  // Full int32 range (zero point 0, as the spec requires): conversions beyond 2^24 round to nearest even.
  ExpectRunMatchesDequantizeValue<int32_t>(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(),
                                           {0});
}
TEST(DequantizeLinearRows, RunMatchesDequantizeValueInt4) { ExpectRunMatchesDequantizeValue<int8_t>(-8, 7, {0, -8, 7}); }

TEST(DequantizeLinearRows, RowMatchesDequantizeValueWithPerElementParameters) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> scale_dist(-2.0f, 2.0f);
  std::uniform_int_distribution<int32_t> zp_dist(0, 255);
  for (int64_t n : kSizes) {
    const size_t sn = static_cast<size_t>(n);
    std::vector<float> scale(sn);
    std::vector<int32_t> zp(sn);
    for (size_t i = 0; i < sn; ++i) {
      scale[i] = i % 7 == 3 ? -0.0f : scale_dist(rng);
      zp[i] = zp_dist(rng);
    }
    const std::vector<uint8_t> x = Values<uint8_t>(sn, 0, 255, 128, rng);
    for (bool avx2 : Paths()) {
      std::vector<float> y(sn);
      DequantizeRow(x.data(), n, scale.data(), zp.data(), y.data(), avx2);
      for (size_t i = 0; i < sn; ++i) {
        ASSERT_EQ(Bits(y[i]), Bits(DequantizeValue(x[i], scale[i], zp[i]))) << "i=" << i << " n=" << n;
      }
    }
  }
  const std::vector<int32_t> xi = {std::numeric_limits<int32_t>::min(), -1, 0, 16777217,
                                   std::numeric_limits<int32_t>::max()};
  const std::vector<float> scale = {0.5f, 3.0f, -0.0f, 1.0f, 0.1f};
  const std::vector<int32_t> zp(xi.size(), 0);
  for (bool avx2 : Paths()) {
    std::vector<float> y(xi.size());
    DequantizeRow(xi.data(), static_cast<int64_t>(xi.size()), scale.data(), zp.data(), y.data(), avx2);
    for (size_t i = 0; i < xi.size(); ++i) EXPECT_EQ(Bits(y[i]), Bits(DequantizeValue(xi[i], scale[i], 0)));
  }
}

// The op on [2, 5, inner] int8 tensors with per-axis parameters along axis 1 (inner 1, 3, 17) or
// along the last axis, against DequantizeValue element by element.
TEST(DequantizeLinearRows, OpPerAxisMatchesDequantizeValue) {
  std::mt19937 rng(4);
  for (int64_t inner : {1, 3, 17}) {
    for (int64_t axis : {1, -1}) {
      const Shape shape{2, 5, inner};
      const int64_t dim = axis == 1 ? 5 : inner;
      const int64_t inner_size = axis == 1 ? inner : 1;
      std::vector<float> scale(static_cast<size_t>(dim));
      std::vector<int8_t> zp(static_cast<size_t>(dim));
      for (int64_t a = 0; a < dim; ++a) {
        scale[static_cast<size_t>(a)] = 0.03f * static_cast<float>(a + 1);
        zp[static_cast<size_t>(a)] = static_cast<int8_t>(a * 37 % 256 - 128);
      }
      const std::vector<int8_t> x = Values<int8_t>(static_cast<size_t>(2 * 5 * inner), -128, 127, 0, rng);
      Attributes attrs;
      attrs.Set("axis", IntAttr(axis));
      const Tensor y = RunOp("DequantizeLinear", 13, attrs,
                             {Tensor::FromVector<int8_t>(shape, x), Tensor::FromVector<float>({dim}, scale),
                              Tensor::FromVector<int8_t>({dim}, zp)})[0];
      const std::vector<float> got = ToVector<float>(y);
      ASSERT_EQ(got.size(), x.size());
      for (int64_t k = 0; k < static_cast<int64_t>(x.size()); ++k) {
        const size_t a = static_cast<size_t>(k / inner_size % dim);
        EXPECT_EQ(Bits(got[static_cast<size_t>(k)]), Bits(DequantizeValue(x[static_cast<size_t>(k)], scale[a], zp[a])))
            << "k=" << k << " inner=" << inner << " axis=" << axis;
      }
    }
  }
}

TEST(DequantizeLinearRows, OpPerTensorEmptyAndScalar) {
  const Tensor empty = RunOp("DequantizeLinear", 13, {},
                             {Tensor::FromVector<uint8_t>({3, 0}, {}), Tensor::Scalar<float>(0.5f),
                              Tensor::Scalar<uint8_t>(1)})[0];
  EXPECT_EQ(empty.shape(), Shape({3, 0}));
  const Tensor one = RunOp("DequantizeLinear", 13, {},
                           {Tensor::Scalar<uint8_t>(0), Tensor::Scalar<float>(0.5f), Tensor::Scalar<uint8_t>(3)})[0];
  EXPECT_EQ(ToVector<float>(one), (std::vector<float>{-1.5f}));
}

}  // namespace
}  // namespace ptq
