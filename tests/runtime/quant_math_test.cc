// Tests of runtime/quant_math.h: rounding ties, saturation at every type's bounds, zero-width
// ranges, tiny and huge scales, NaN and Inf.
#include "runtime/quant_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ptq {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(QuantizeValue, RoundsTiesToEven) {
  // x / scale lands exactly on .5: ties go to the even integer.
  EXPECT_EQ(QuantizeValue(0.5f, 1.0f, 0, -128, 127), 0);
  EXPECT_EQ(QuantizeValue(-0.5f, 1.0f, 0, -128, 127), 0);
  EXPECT_EQ(QuantizeValue(1.5f, 1.0f, 0, -128, 127), 2);
  EXPECT_EQ(QuantizeValue(2.5f, 1.0f, 0, -128, 127), 2);
  EXPECT_EQ(QuantizeValue(-2.5f, 1.0f, 0, -128, 127), -2);
  EXPECT_EQ(QuantizeValue(-1.5f, 1.0f, 0, -128, 127), -2);
  EXPECT_EQ(QuantizeValue(3.5f, 1.0f, 0, -128, 127), 4);
  // The zero point is added after rounding: 2.5 -> 2, + 3 = 5 (not round(5.5) = 6).
  EXPECT_EQ(QuantizeValue(2.5f, 1.0f, 3, 0, 255), 5);
  EXPECT_EQ(QuantizeValue(5.0f, 2.0f, 0, 0, 255), 2);  // 2.5 -> 2
}

TEST(QuantizeValue, DividesRatherThanMultipliesByReciprocal) {
  // 0.3 / 0.1 in float32 is 3.0 exactly after division but 2.9999998 via 0.3 * (1 / 0.1)... the
  // point is that the result equals round(x / scale) computed by division.
  for (float x : {0.3f, 0.7f, 1.1f, 12.35f, -7.45f}) {
    for (float s : {0.1f, 0.05f, 0.0123f, 3.3f}) {
      const int32_t expected = static_cast<int32_t>(std::nearbyint(x / s));
      EXPECT_EQ(QuantizeValue(x, s, 0, -32768, 32767), expected) << x << " / " << s;
    }
  }
}

struct TypeBounds {
  DataType type;
  int32_t lo, hi;
};

TEST(QuantizeValue, SaturatesAtEveryTypesBounds) {
  const TypeBounds cases[] = {{DataType::kInt4, -8, 7},       {DataType::kUint4, 0, 15},
                              {DataType::kInt8, -128, 127},   {DataType::kUint8, 0, 255},
                              {DataType::kInt16, -32768, 32767}, {DataType::kUint16, 0, 65535}};
  for (const TypeBounds& c : cases) {
    const int32_t qmin = QuantMin(c.type), qmax = QuantMax(c.type);
    EXPECT_EQ(qmin, c.lo) << DataTypeName(c.type);
    EXPECT_EQ(qmax, c.hi) << DataTypeName(c.type);
    EXPECT_EQ(QuantizeValue(static_cast<float>(c.hi), 1.0f, 0, qmin, qmax), c.hi);
    EXPECT_EQ(QuantizeValue(static_cast<float>(c.hi) + 1.0f, 1.0f, 0, qmin, qmax), c.hi);
    EXPECT_EQ(QuantizeValue(static_cast<float>(c.lo), 1.0f, 0, qmin, qmax), c.lo);
    EXPECT_EQ(QuantizeValue(static_cast<float>(c.lo) - 1.0f, 1.0f, 0, qmin, qmax), c.lo);
    EXPECT_EQ(QuantizeValue(1e30f, 1.0f, 0, qmin, qmax), c.hi);
    EXPECT_EQ(QuantizeValue(-1e30f, 1.0f, 0, qmin, qmax), c.lo);
    // A zero point pushes values past the bound: saturate after adding it.
    EXPECT_EQ(QuantizeValue(static_cast<float>(c.hi), 1.0f, 1, qmin, qmax), c.hi);
  }
}

TEST(QuantizeValue, InfSaturatesAndNaNBecomesTypeMinimum) {
  EXPECT_EQ(QuantizeValue(kInf, 0.1f, 0, -128, 127), 127);
  EXPECT_EQ(QuantizeValue(-kInf, 0.1f, 0, -128, 127), -128);
  EXPECT_EQ(QuantizeValue(kNaN, 0.1f, 0, -128, 127), -128);
  EXPECT_EQ(QuantizeValue(kNaN, 0.1f, 128, 0, 255), 0);
  EXPECT_EQ(QuantizeValue(1.0f, 0.0f, 0, 0, 255), 255);  // x / 0 = +Inf
  EXPECT_EQ(QuantizeValue(0.0f, 0.0f, 7, 0, 255), 0);    // 0 / 0 = NaN
}

TEST(QuantizeValue, TinyAndHugeScales) {
  EXPECT_EQ(QuantizeValue(1.0f, kMinScale, 0, -128, 127), 127);
  EXPECT_EQ(QuantizeValue(-1e-30f, kMinScale, 0, -128, 127), -128);
  EXPECT_EQ(QuantizeValue(1e30f, std::numeric_limits<float>::max(), 5, 0, 255), 5);
  EXPECT_EQ(QuantizeValue(std::numeric_limits<float>::max(), std::numeric_limits<float>::max(), 5, 0, 255), 6);
}

TEST(DequantizeValue, SubtractsZeroPointThenScales) {
  EXPECT_FLOAT_EQ(DequantizeValue(130, 0.5f, 128), 1.0f);
  EXPECT_FLOAT_EQ(DequantizeValue(-128, 0.25f, 0), -32.0f);
  EXPECT_FLOAT_EQ(DequantizeValue(0, 2.0f, 255), -510.0f);
}

TEST(RequantizeValue, RoundsHalfEvenThenAddsZeroPoint) {
  // acc * multiplier exactly .5: round half even, then add the zero point.
  EXPECT_EQ(RequantizeValue(5, 0.5f, 0, -128, 127), 2);    // 2.5 -> 2
  EXPECT_EQ(RequantizeValue(3, 0.5f, 0, -128, 127), 2);    // 1.5 -> 2
  EXPECT_EQ(RequantizeValue(-5, 0.5f, 0, -128, 127), -2);  // -2.5 -> -2
  EXPECT_EQ(RequantizeValue(1, 0.5f, 0, -128, 127), 0);    // 0.5 -> 0
  EXPECT_EQ(RequantizeValue(-1, 0.5f, 0, -128, 127), 0);   // -0.5 -> 0
  EXPECT_EQ(RequantizeValue(5, 0.5f, 1, 0, 255), 3);       // 2 + 1, not round(3.5) = 4
  EXPECT_EQ(RequantizeValue(1000, 1.0f, 0, 0, 255), 255);
  EXPECT_EQ(RequantizeValue(-1000, 1.0f, 10, 0, 255), 0);
  EXPECT_EQ(RequantizeValue(std::numeric_limits<int32_t>::max(), 1e10f, 0, -128, 127), 127);
  EXPECT_EQ(RequantizeValue(std::numeric_limits<int32_t>::min(), 1e10f, 0, -128, 127), -128);
}

TEST(RequantMultiplier, IsFloat32ProductOverYScale) {
  const float a = 0.0123f, b = 0.0457f, y = 0.0891f;
  const float ab = a * b;
  EXPECT_EQ(RequantMultiplier(a, b, y), ab / y);
  EXPECT_NE(static_cast<float>(static_cast<double>(a) * b / y), 0.0f);
}

TEST(QuantizeBias, RoundsBiasOverScaleProduct) {
  EXPECT_EQ(QuantizeBias(1.0f, 0.5f, 0.25f), 8);
  EXPECT_EQ(QuantizeBias(0.25f, 0.5f, 0.2f), 2);     // 2.5 -> 2
  EXPECT_EQ(QuantizeBias(-0.75f, 0.5f, 1.0f), -2);   // -1.5 -> -2
  EXPECT_EQ(QuantizeBias(1e30f, 1e-10f, 1e-10f), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(QuantizeBias(-1e30f, 1e-10f, 1e-10f), std::numeric_limits<int32_t>::min());
}

TEST(ChooseQuantParams, AsymmetricUint8ContainsZero) {
  QuantParams p = ChooseQuantParams(-1.0f, 3.0f, DataType::kUint8, false);
  EXPECT_FLOAT_EQ(p.scale, 4.0f / 255.0f);
  EXPECT_EQ(p.zero_point, 64);  // round(0 - (-1) / (4/255)) = round(63.75)
  EXPECT_EQ(QuantizeValue(0.0f, p.scale, p.zero_point, 0, 255), p.zero_point);
  // A positive-only range is widened to contain 0.
  p = ChooseQuantParams(2.0f, 6.0f, DataType::kUint8, false);
  EXPECT_FLOAT_EQ(p.scale, 6.0f / 255.0f);
  EXPECT_EQ(p.zero_point, 0);
  // A negative-only range: zero point at the top.
  p = ChooseQuantParams(-6.0f, -2.0f, DataType::kUint8, false);
  EXPECT_EQ(p.zero_point, 255);
  p = ChooseQuantParams(-6.0f, -2.0f, DataType::kInt8, false);
  EXPECT_EQ(p.zero_point, 127);
}

TEST(ChooseQuantParams, SymmetricInt8UsesPlusMinus127AndZeroPointZero) {
  QuantParams p = ChooseQuantParams(-2.0f, 5.08f, DataType::kInt8, true);
  EXPECT_FLOAT_EQ(p.scale, 5.08f / 127.0f);
  EXPECT_EQ(p.zero_point, 0);
  EXPECT_EQ(QuantizeValue(5.08f, p.scale, 0, -128, 127), 127);
  EXPECT_EQ(QuantizeValue(-5.08f, p.scale, 0, -128, 127), -127);
}

TEST(ChooseQuantParams, SymmetricUint8UsesZeroPoint128) {
  QuantParams p = ChooseQuantParams(-1.0f, 2.0f, DataType::kUint8, true);
  EXPECT_EQ(p.zero_point, 128);
  EXPECT_FLOAT_EQ(p.scale, 2.0f / 127.5f);
}

TEST(ChooseQuantParams, ZeroWidthRangeGetsFiniteDocumentedScale) {
  for (bool sym : {false, true}) {
    QuantParams p = ChooseQuantParams(0.0f, 0.0f, DataType::kUint8, sym);
    EXPECT_EQ(p.scale, kZeroWidthScale);
    EXPECT_EQ(QuantizeValue(0.0f, p.scale, p.zero_point, 0, 255), p.zero_point);
  }
  // A constant non-zero tensor is widened to contain 0, so its width is not zero.
  QuantParams p = ChooseQuantParams(3.0f, 3.0f, DataType::kInt8, true);
  EXPECT_FLOAT_EQ(p.scale, 3.0f / 127.0f);
}

TEST(ChooseQuantParams, TinyHugeAndNonFiniteRangesGiveFiniteScales) {
  QuantParams p = ChooseQuantParams(-1e-42f, 1e-42f, DataType::kInt8, true);
  EXPECT_EQ(p.scale, kMinScale);
  p = ChooseQuantParams(-std::numeric_limits<float>::max(), std::numeric_limits<float>::max(), DataType::kUint8, false);
  EXPECT_TRUE(std::isfinite(p.scale));
  EXPECT_GT(p.scale, 0.0f);
  p = ChooseQuantParams(-kInf, kInf, DataType::kInt8, true);
  EXPECT_TRUE(std::isfinite(p.scale));
  p = ChooseQuantParams(kNaN, kNaN, DataType::kUint8, false);
  EXPECT_EQ(p.scale, kZeroWidthScale);
  EXPECT_EQ(p.zero_point, 0);
}

TEST(ChooseQuantParams, ReduceRangeDropsOneBit) {
  QuantParams p = ChooseQuantParams(-1.0f, 1.0f, DataType::kInt8, true, /*reduce_range=*/true);
  EXPECT_FLOAT_EQ(p.scale, 1.0f / 63.0f);
  p = ChooseQuantParams(0.0f, 1.0f, DataType::kUint8, false, true);
  EXPECT_FLOAT_EQ(p.scale, 1.0f / 127.0f);
}

}  // namespace
}  // namespace ptq
