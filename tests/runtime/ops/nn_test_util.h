// Inputs and comparisons shared by the tests of the nn kernels (MatMul, Gemm, Conv, pools, Einsum).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "runtime/float16.h"
#include "runtime/tensor.h"
#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace testing {

// Exact float values in [-1.5, 1.5] in quarter steps: ((i * 7 + salt * 5) % 13 - 6) / 4. The
// numpy scripts that computed the tests' expected values build their inputs the same way.
inline std::vector<float> Pattern(int64_t n, int salt) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>((i * 7 + salt * 5) % 13 - 6) / 4.0f;
  return v;
}

inline Tensor PatternTensor(const Shape& shape, int salt) {
  return Tensor::FromVector<float>(shape, Pattern(ShapeSize(shape), salt));
}

inline Tensor ToHalf(const Tensor& t) {
  Tensor h(DataType::kFloat16, t.shape());
  for (int64_t i = 0; i < t.size(); ++i) h.data<uint16_t>()[i] = FloatToHalf(t.data<float>()[i]);
  return h;
}

// Float sums of a few exact terms: only the order of additions differs from numpy's float64.
constexpr float kSumTolerance = 1e-5f;
// float16 outputs: one rounding of the float32 result to 11 significant bits.
constexpr float kHalfTolerance = 2e-3f;

// Expects `actual` (float32, or float16 when `expected_half`) to have `shape` and values within
// `tolerance` * max(1, |expected|) of `expected`.
inline void ExpectValues(const Tensor& actual, const Shape& shape, const std::vector<float>& expected,
                         float tolerance = kSumTolerance, bool expected_half = false) {
  ASSERT_EQ(actual.dtype(), expected_half ? DataType::kFloat16 : DataType::kFloat);
  ASSERT_EQ(actual.shape(), shape);
  ASSERT_EQ(static_cast<size_t>(actual.size()), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const float a = expected_half ? HalfToFloat(actual.data<uint16_t>()[i]) : actual.data<float>()[i];
    EXPECT_NEAR(a, expected[i], tolerance * std::fmax(1.0f, std::fabs(expected[i]))) << "element " << i;
  }
}

// The message of the input error `f` throws, or "" when none is thrown.
template <class F>
std::string InputErrorOf(F f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInput);
    return e.what();
  }
  return "";
}

}  // namespace testing
}  // namespace ptq
