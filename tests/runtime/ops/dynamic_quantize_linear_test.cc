// Tests of the DynamicQuantizeLinear kernel on the three ONNX backend test cases (values from
// their .pb files) and on all-zero and empty inputs (ONNX Runtime's scale 1.0).
#include <gtest/gtest.h>

#include <cmath>

#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::RunOp;
using testing::ToVector;

struct Expected {
  std::vector<uint8_t> y;
  float y_scale;
  uint8_t y_zero_point;
};

void Check(const Tensor& x, const Expected& e) {
  const std::vector<Tensor> out = RunOp("DynamicQuantizeLinear", 11, {}, {x}, 3);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].dtype(), DataType::kUint8);
  EXPECT_EQ(out[0].shape(), x.shape());
  EXPECT_EQ(ToVector<uint8_t>(out[0]), e.y);
  EXPECT_EQ(out[1].dtype(), DataType::kFloat);
  EXPECT_EQ(out[1].shape(), Shape{});
  EXPECT_EQ(out[1].data<float>()[0], e.y_scale);  // bit-exact
  EXPECT_EQ(out[2].dtype(), DataType::kUint8);
  EXPECT_EQ(out[2].shape(), Shape{});
  EXPECT_EQ(out[2].data<uint8_t>()[0], e.y_zero_point);
}

TEST(DynamicQuantizeLinear, BackendTestMixedSigns) {
  // test_dynamicquantizelinear: range [-3, 2], scale 5 / 255.
  Check(Tensor::FromVector<float>({6}, {0, 2, -3, -2.5f, 1.34f, 0.5f}),
        {{153, 255, 0, 26, 221, 179}, 0.019607843831181526f, 153});
}

TEST(DynamicQuantizeLinear, BackendTestAllNegativeMaxAdjustedToZero) {
  // test_dynamicquantizelinear_max_adjusted: range [-4, 0], zero point 255.
  Check(Tensor::FromVector<float>({6}, {-1.0f, -2.1f, -1.3f, -2.5f, -3.34f, -4.0f}),
        {{191, 121, 172, 96, 42, 0}, 0.01568627543747425f, 255});
}

TEST(DynamicQuantizeLinear, BackendTestAllPositiveMinAdjustedToZero) {
  // test_dynamicquantizelinear_min_adjusted: range [0, 4], zero point 0.
  Check(Tensor::FromVector<float>({3, 4}, {1.0f, 2.1f, 1.3f, 2.5f, 3.34f, 4.0f, 1.5f, 2.6f, 3.9f, 4.0f, 3.0f, 2.345f}),
        {{64, 134, 83, 159, 213, 255, 96, 166, 249, 255, 191, 149}, 0.01568627543747425f, 0});
}

TEST(DynamicQuantizeLinear, AllZeroInputGetsScaleOneLikeOnnxRuntime) {
  // x_max == x_min == 0: the spec's formula divides 0 by 0; ONNX Runtime uses scale 1.0.
  Check(Tensor::FromVector<float>({2, 2}, {0, 0, -0.0f, 0}), {{0, 0, 0, 0}, 1.0f, 0});
}

TEST(DynamicQuantizeLinear, EmptyInputGetsScaleOne) {
  Check(Tensor(DataType::kFloat, {0, 3}), {{}, 1.0f, 0});
}

TEST(DynamicQuantizeLinear, RejectsNonFloatInput) {
  EXPECT_THROW(RunOp("DynamicQuantizeLinear", 11, {}, {Tensor::FromVector<int32_t>({1}, {1})}, 3), Error);
}

}  // namespace
}  // namespace ptq
