// Tests of the Clip kernel: attribute bounds (opset 6), optional input bounds (11), integers (12).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "tests/runtime/ops/elementwise_test_util.h"

namespace ptq {
namespace {

using testing::FloatAttr;
using testing::Floats;
using testing::RunOne;
using testing::ToVector;

TEST(ElementwiseClipTest, Opset6UsesAttributes) {
  Attributes attrs;
  attrs.Set("min", FloatAttr(-1.0f));
  attrs.Set("max", FloatAttr(2.0f));
  const Tensor y = RunOne("Clip", 6, {Floats({4}, {-5, 0.5f, 2, 7})}, attrs);
  EXPECT_EQ(ToVector<float>(y), (std::vector<float>{-1, 0.5f, 2, 2}));
}

TEST(ElementwiseClipTest, Opset11UsesOptionalInputs) {
  const Tensor x = Floats({4}, {-5, 0.5f, 2, 7});
  EXPECT_EQ(ToVector<float>(RunOne("Clip", 11, {x, Tensor::Scalar<float>(0.0f), Tensor::Scalar<float>(1.0f)})),
            (std::vector<float>{0, 0.5f, 1, 1}));
  // min omitted: only the upper bound applies.
  EXPECT_EQ(ToVector<float>(RunOne("Clip", 11, {x, Tensor(), Tensor::Scalar<float>(1.0f)})),
            (std::vector<float>{-5, 0.5f, 1, 1}));
  // no bounds: unchanged, infinities included.
  const Tensor inf = Floats({2}, {-INFINITY, INFINITY});
  EXPECT_EQ(ToVector<float>(RunOne("Clip", 11, {inf})), ToVector<float>(inf));
  // min > max: every element becomes max.
  EXPECT_EQ(ToVector<float>(RunOne("Clip", 13, {x, Tensor::Scalar<float>(3.0f), Tensor::Scalar<float>(1.0f)})),
            (std::vector<float>{1, 1, 1, 1}));
}

TEST(ElementwiseClipTest, Opset12ClipsIntegers) {
  const Tensor x = Tensor::FromVector<int8_t>({4}, {-128, -3, 4, 127});
  const Tensor y = RunOne("Clip", 12, {x, Tensor::Scalar<int8_t>(-2), Tensor::Scalar<int8_t>(5)});
  ASSERT_EQ(y.dtype(), DataType::kInt8);
  EXPECT_EQ(ToVector<int8_t>(y), (std::vector<int8_t>{-2, -2, 4, 5}));
  EXPECT_EQ(ToVector<int8_t>(RunOne("Clip", 12, {x})), ToVector<int8_t>(x));
}

}  // namespace
}  // namespace ptq
