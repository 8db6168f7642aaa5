// Tests of QuantizeLinear's vectorised loops (portable, AVX2 and, for 8 bits, AVX-512 compilations) and of the op's
// per-tensor / per-axis fast paths, bit for bit against QuantizeValue (quant_math.h): rounding ties,
// saturation, NaN, +-Inf, -0, denormals, and sizes around the vector width.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "runtime/cpu_features.h"
#include "runtime/ops/quantization/quantize_linear_rows.h"
#include "runtime/quant_math.h"
#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::IntAttr;
using testing::RunOp;
using testing::ToVector;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// The compilations to test: portable always, AVX2 when this CPU (and PTQ_CPU) allows it.
std::vector<bool> Paths() {
  std::vector<bool> paths{false};
  if (GetCpuFeatures().avx2_fma) paths.push_back(true);
  return paths;
}

// Sizes of 0 and 1, around multiples of the vector widths, and a long run.
const std::vector<int64_t> kSizes = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 1031};

// Values that stress x / scale: exact ties (k + 0.5) * scale, values near the bounds and far
// beyond them, NaN, +-Inf, +-0, denormals, FLT_MAX, and random values around the range.
std::vector<float> EdgeAndRandom(float scale, int32_t zero_point, int32_t qmin, int32_t qmax, size_t n,
                                 std::mt19937& rng) {
  std::vector<float> special = {0.0f, -0.0f, kNaN, -kNaN, kInf, -kInf, std::numeric_limits<float>::max(),
                                -std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min(),
                                -std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::min(),
                                1e30f, -1e30f, 4194304.0f, -4194304.0f, 8388608.5f, 16777216.0f, -16777217.0f};
  for (int k = -6; k <= 6; ++k) special.push_back((static_cast<float>(k) + 0.5f) * scale);  // ties
  for (int32_t b : {qmin - zero_point, qmax - zero_point}) {
    for (float d : {-1.5f, -1.0f, -0.5f, -0.49f, 0.0f, 0.49f, 0.5f, 1.0f, 1.5f}) {
      special.push_back((static_cast<float>(b) + d) * scale);
    }
  }
  const float range = static_cast<float>(qmax - qmin) * std::fabs(scale);
  std::uniform_real_distribution<float> wide(-1.5f * range, 1.5f * range);
  std::uniform_int_distribution<int> tie(-2 * (qmax - qmin), 2 * (qmax - qmin));
  std::uniform_int_distribution<size_t> pick(0, special.size() - 1);
  std::uniform_int_distribution<int> kind(0, 3);
  std::vector<float> x(n);
  for (float& v : x) {
    switch (kind(rng)) {
      case 0: v = special[pick(rng)]; break;
      case 1: v = (static_cast<float>(tie(rng)) + 0.5f) * scale; break;
      default: v = wide(rng); break;
    }
  }
  return x;
}

struct OutType {
  int32_t qmin;
  int32_t qmax;
};

template <class Q>
void ExpectRunMatchesQuantizeValue(const OutType& t) {
  std::mt19937 rng(7);
  const std::vector<float> scales = {1.0f, 2.0f, 0.5f, 0.25f, 0.1f, 0.0123f, 3.7f, 1e-30f, kMinScale, -0.5f, 0.0f};
  std::vector<int32_t> zero_points = {t.qmin, t.qmax, 0, (t.qmin + t.qmax) / 2, t.qmin + 1};
  for (float scale : scales) {
    for (int32_t zp : zero_points) {
      if (zp < t.qmin || zp > t.qmax) continue;
      const QuantizeRunParams p = MakeQuantizeRunParams(scale, zp, t.qmin, t.qmax);
      for (int64_t n : kSizes) {
        // One element of slack in front, so that runs also start unaligned.
        const std::vector<float> buf = EdgeAndRandom(scale, zp, t.qmin, t.qmax, static_cast<size_t>(n) + 1, rng);
        const float* x = buf.data() + 1;
        for (bool avx2 : Paths()) {
          std::vector<Q> y(static_cast<size_t>(n) + 1, Q(0x5a));
          QuantizeRun(x, n, p, y.data() + 1, avx2);
          EXPECT_EQ(y[0], Q(0x5a)) << "wrote before the run";
          for (int64_t i = 0; i < n; ++i) {
            const int32_t want = QuantizeValue(x[i], scale, zp, t.qmin, t.qmax);
            ASSERT_EQ(static_cast<int32_t>(y[static_cast<size_t>(i) + 1]), want)
                << "x=" << x[i] << " scale=" << scale << " zp=" << zp << " n=" << n << " avx2=" << avx2;
          }
        }
      }
    }
  }
}

TEST(QuantizeLinearRows, RunMatchesQuantizeValueInt8) { ExpectRunMatchesQuantizeValue<int8_t>({-128, 127}); }
TEST(QuantizeLinearRows, RunMatchesQuantizeValueUint8) { ExpectRunMatchesQuantizeValue<uint8_t>({0, 255}); }
TEST(QuantizeLinearRows, RunMatchesQuantizeValueInt16) { ExpectRunMatchesQuantizeValue<int16_t>({-32768, 32767}); }
TEST(QuantizeLinearRows, RunMatchesQuantizeValueUint16) { ExpectRunMatchesQuantizeValue<uint16_t>({0, 65535}); }
TEST(QuantizeLinearRows, RunMatchesQuantizeValueInt4) { ExpectRunMatchesQuantizeValue<int8_t>({-8, 7}); }
TEST(QuantizeLinearRows, RunMatchesQuantizeValueUint4) { ExpectRunMatchesQuantizeValue<uint8_t>({0, 15}); }

TEST(QuantizeLinearRows, RoundsExactTiesToEven) {
  // x / 2 = -3.5 .. 3.5 in steps of 1: ties go to the even neighbour, before the zero point is added.
  const std::vector<float> x = {-7, -5, -3, -1, 1, 3, 5, 7, 9};
  for (bool avx2 : Paths()) {
    std::vector<int8_t> y(x.size());
    QuantizeRun(x.data(), static_cast<int64_t>(x.size()), MakeQuantizeRunParams(2.0f, 1, -128, 127), y.data(), avx2);
    EXPECT_EQ(y, (std::vector<int8_t>{-3, -1, -1, 1, 1, 3, 3, 5, 5})) << "avx2=" << avx2;
  }
}

TEST(QuantizeLinearRows, RowMatchesQuantizeValueWithPerElementParameters) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> scale_dist(0.001f, 4.0f);
  std::uniform_int_distribution<int32_t> zp_dist(-128, 127);
  for (int64_t n : kSizes) {
    const size_t sn = static_cast<size_t>(n);
    std::vector<float> scale(sn), lo(sn), hi(sn), zpf(sn);
    std::vector<int32_t> zp(sn);
    for (size_t i = 0; i < sn; ++i) {
      scale[i] = i % 5 == 4 ? 0.5f : scale_dist(rng);
      zp[i] = zp_dist(rng);
      const QuantizeRunParams p = MakeQuantizeRunParams(scale[i], zp[i], -128, 127);
      lo[i] = p.lo;
      hi[i] = p.hi;
      zpf[i] = p.zero_point;
    }
    std::vector<float> x(sn);
    for (size_t i = 0; i < sn; ++i) x[i] = EdgeAndRandom(scale[i], zp[i], -128, 127, 1, rng)[0];
    for (bool avx2 : Paths()) {
      std::vector<int8_t> y(sn);
      QuantizeRow(x.data(), n, QuantizeRowParams{scale.data(), lo.data(), hi.data(), zpf.data()}, y.data(), avx2);
      for (size_t i = 0; i < sn; ++i) {
        ASSERT_EQ(y[i], QuantizeValue(x[i], scale[i], zp[i], -128, 127))
            << "x=" << x[i] << " scale=" << scale[i] << " zp=" << zp[i] << " n=" << n << " avx2=" << avx2;
      }
    }
  }
}

// The op on a [2, 5, inner] tensor with per-axis parameters along axis 1 (inner 1, 3, 17) or
// along the last axis, against QuantizeValue element by element.
TEST(QuantizeLinearRows, OpPerAxisMatchesQuantizeValue) {
  std::mt19937 rng(3);
  for (int64_t inner : {1, 3, 17}) {
    for (int64_t axis : {1, 2}) {
      const Shape shape{2, 5, inner};
      const int64_t dim = shape[static_cast<size_t>(axis)];
      const int64_t outer_size = axis == 1 ? 2 : 10;
      const int64_t inner_size = axis == 1 ? inner : 1;
      std::vector<float> scale(static_cast<size_t>(dim));
      std::vector<uint8_t> zp(static_cast<size_t>(dim));
      for (int64_t a = 0; a < dim; ++a) {
        scale[static_cast<size_t>(a)] = 0.05f * static_cast<float>(a + 1);
        zp[static_cast<size_t>(a)] = static_cast<uint8_t>(a * 50 % 256);
      }
      std::vector<float> x(static_cast<size_t>(2 * 5 * inner));
      for (size_t k = 0; k < x.size(); ++k) {
        const size_t a = k / static_cast<size_t>(inner_size) % static_cast<size_t>(dim);
        x[k] = EdgeAndRandom(scale[a], zp[a], 0, 255, 1, rng)[0];
      }
      Attributes attrs;
      attrs.Set("axis", IntAttr(axis));
      const Tensor y = RunOp("QuantizeLinear", 13, attrs,
                             {Tensor::FromVector<float>(shape, x), Tensor::FromVector<float>({dim}, scale),
                              Tensor::FromVector<uint8_t>({dim}, zp)})[0];
      const std::vector<uint8_t> got = ToVector<uint8_t>(y);
      ASSERT_EQ(got.size(), x.size());
      for (int64_t k = 0; k < static_cast<int64_t>(x.size()); ++k) {
        const size_t a = static_cast<size_t>(k / inner_size % dim);
        EXPECT_EQ(got[static_cast<size_t>(k)], QuantizeValue(x[static_cast<size_t>(k)], scale[a], zp[a], 0, 255))
            << "k=" << k << " inner=" << inner << " axis=" << axis << " outer=" << outer_size;
      }
    }
  }
}

TEST(QuantizeLinearRows, OpPerTensorEmptyAndScalar) {
  const Tensor empty = RunOp("QuantizeLinear", 13, {},
                             {Tensor::FromVector<float>({0, 3}, {}), Tensor::Scalar<float>(0.5f),
                              Tensor::Scalar<int8_t>(1)})[0];
  EXPECT_EQ(empty.shape(), Shape({0, 3}));
  const Tensor one = RunOp("QuantizeLinear", 13, {},
                           {Tensor::Scalar<float>(-1.25f), Tensor::Scalar<float>(0.5f), Tensor::Scalar<int8_t>(1)})[0];
  EXPECT_EQ(ToVector<int8_t>(one), (std::vector<int8_t>{-1}));  // -2.5 -> -2, + 1
}

}  // namespace
}  // namespace ptq
