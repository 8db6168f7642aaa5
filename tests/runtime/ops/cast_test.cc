// Tests of the Cast and CastLike kernels: conversions between float, float16, integer and bool types.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "tests/runtime/ops/elementwise_test_util.h"

namespace ptq {
namespace {

using testing::Floats;
using testing::IntAttr;
using testing::RunOne;
using testing::StringAttr;
using testing::ToVector;

TEST(ElementwiseCastTest, FloatToFloat16AndBackRoundTrips) {
  // Values exactly representable in float16 survive; others round to nearest even.
  const Tensor x = Floats({5}, {1.0f, -0.5f, 65504.0f, 1.0f + 1.0f / 4096.0f, 1e-8f});
  Attributes to16;
  to16.Set("to", IntAttr(static_cast<int64_t>(DataType::kFloat16)));
  const Tensor h = RunOne("Cast", 13, {x}, to16);
  ASSERT_EQ(h.dtype(), DataType::kFloat16);
  Attributes to32;
  to32.Set("to", IntAttr(static_cast<int64_t>(DataType::kFloat)));
  const Tensor y = RunOne("Cast", 13, {h}, to32);
  ASSERT_EQ(y.dtype(), DataType::kFloat);
  // float16 has a 2^-10 ulp at 1: 1 + 2^-12 is below half an ulp and rounds to 1; 1e-8 is below
  // half the smallest subnormal (2^-25) and rounds to 0.
  EXPECT_EQ(ToVector<float>(y), (std::vector<float>{1.0f, -0.5f, 65504.0f, 1.0f, 0.0f}));
}

TEST(ElementwiseCastTest, FloatToIntTruncatesAndSaturates) {
  Attributes attrs;
  attrs.Set("to", IntAttr(static_cast<int64_t>(DataType::kInt8)));
  const Tensor y = RunOne("Cast", 13, {Floats({6}, {2.7f, -2.7f, 300.0f, -300.0f, NAN, -0.5f})}, attrs);
  EXPECT_EQ(ToVector<int8_t>(y), (std::vector<int8_t>{2, -2, 127, -128, 0, 0}));
}

TEST(ElementwiseCastTest, BoolInt64DoubleConversions) {
  Attributes to_bool;
  to_bool.Set("to", IntAttr(static_cast<int64_t>(DataType::kBool)));
  EXPECT_EQ(ToVector<bool>(RunOne("Cast", 13, {Floats({3}, {0.0f, -0.1f, NAN})}, to_bool)),
            (std::vector<bool>{false, true, true}));
  Attributes to_double;
  to_double.Set("to", IntAttr(static_cast<int64_t>(DataType::kDouble)));
  EXPECT_EQ(ToVector<double>(RunOne("Cast", 13, {Tensor::FromVector<int64_t>({2}, {-3, int64_t{1} << 40})}, to_double)),
            (std::vector<double>{-3.0, 1099511627776.0}));
  Attributes to_int32;
  to_int32.Set("to", IntAttr(static_cast<int64_t>(DataType::kInt32)));
  // int64 -> int32 wraps (two's complement), as static_cast.
  EXPECT_EQ(ToVector<int32_t>(RunOne("Cast", 13, {Tensor::FromVector<int64_t>({2}, {(int64_t{1} << 32) + 5, -1})}, to_int32)),
            (std::vector<int32_t>{5, -1}));
}

TEST(ElementwiseCastTest, Opset1TakesTypeName) {
  Attributes attrs;
  attrs.Set("to", StringAttr("INT32"));
  const Tensor y = RunOne("Cast", 1, {Floats({2}, {3.9f, -1.2f})}, attrs);
  ASSERT_EQ(y.dtype(), DataType::kInt32);
  EXPECT_EQ(ToVector<int32_t>(y), (std::vector<int32_t>{3, -1}));
}

TEST(ElementwiseCastTest, ToInt4Saturates) {
  Attributes attrs;
  attrs.Set("to", IntAttr(static_cast<int64_t>(DataType::kInt4)));
  const Tensor y = RunOne("Cast", 21, {Floats({4}, {-9.0f, -8.0f, 7.5f, 20.0f})}, attrs);
  ASSERT_EQ(y.dtype(), DataType::kInt4);
  EXPECT_EQ(ToVector<int8_t>(y), (std::vector<int8_t>{-8, -8, 7, 7}));
}

TEST(ElementwiseCastTest, CastLikeTakesTheTypeOfTargetType) {
  const Tensor y = RunOne("CastLike", 15, {Floats({2}, {1.5f, -7.9f}), Tensor::FromVector<int64_t>({0}, {})});
  ASSERT_EQ(y.dtype(), DataType::kInt64);
  EXPECT_EQ(ToVector<int64_t>(y), (std::vector<int64_t>{1, -7}));
}

}  // namespace
}  // namespace ptq
