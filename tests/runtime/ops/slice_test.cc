// Tests of Slice: negative steps, clamping of out-of-range starts/ends, omitted axes, attribute form.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::IntsAttr;
using testing::RunOp;
using testing::ToVector;

Tensor Iota3D() {
  std::vector<int32_t> v(24);
  for (int i = 0; i < 24; ++i) v[static_cast<size_t>(i)] = i;
  return Tensor::FromVector<int32_t>({2, 3, 4}, v);
}

Tensor I64(std::vector<int64_t> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return Tensor::FromVector<int64_t>({n}, v);
}

// numpy: x[:, ::-2, 3:0:-2] with x = arange(24).reshape(2, 3, 4)
TEST(SliceOp, NegativeStepsWalkBackwards) {
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  std::vector<Tensor> y = RunOp("Slice", 13, Attributes(),
                                {Iota3D(), I64({-1, 3}), I64({-kMax, 0}), I64({1, 2}), I64({-2, -2})});
  EXPECT_EQ(y[0].shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(ToVector<int32_t>(y[0]), (std::vector<int32_t>{11, 9, 3, 1, 23, 21, 15, 13}));
}

// numpy: x[:, -100:100, 1:INT64_MAX] keeps everything from column 1; x[:, 1:, -3:-1].
TEST(SliceOp, ClampsOutOfRangeStartsAndEnds) {
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  std::vector<Tensor> y = RunOp("Slice", 13, Attributes(), {Iota3D(), I64({-100, 1}), I64({100, kMax}), I64({1, 2})});
  EXPECT_EQ(y[0].shape(), (Shape{2, 3, 3}));
  y = RunOp("Slice", 13, Attributes(), {Iota3D(), I64({1, -3}), I64({kMax, -1}), I64({1, 2})});
  EXPECT_EQ(ToVector<int32_t>(y[0]), (std::vector<int32_t>{5, 6, 9, 10, 17, 18, 21, 22}));
}

TEST(SliceOp, NegativeStepEndBelowRangeClampsToBeforeFirst) {
  std::vector<int32_t> v(10);
  for (int i = 0; i < 10; ++i) v[static_cast<size_t>(i)] = i;
  std::vector<Tensor> y = RunOp("Slice", 13, Attributes(),
                                {Tensor::FromVector<int32_t>({10}, v), I64({8}), I64({-20}), I64({0}), I64({-3})});
  EXPECT_EQ(ToVector<int32_t>(y[0]), (std::vector<int32_t>{8, 5, 2}));
}

TEST(SliceOp, OmittedAxesAndStepsMeanLeadingAxesStepOne) {
  std::vector<Tensor> y = RunOp("Slice", 13, Attributes(), {Iota3D(), I64({1, 2}), I64({2, 3})});
  EXPECT_EQ(y[0].shape(), (Shape{1, 1, 4}));
  EXPECT_EQ(ToVector<int32_t>(y[0]), (std::vector<int32_t>{20, 21, 22, 23}));
}

TEST(SliceOp, EmptyRangeGivesZeroDimension) {
  std::vector<Tensor> y = RunOp("Slice", 13, Attributes(), {Iota3D(), I64({3}), I64({1}), I64({2})});
  EXPECT_EQ(y[0].shape(), (Shape{2, 3, 0}));
}

TEST(SliceOp, Opset9TakesAttributes) {
  Attributes attrs;
  attrs.Set("starts", IntsAttr({0, 1}));
  attrs.Set("ends", IntsAttr({1, 3}));
  attrs.Set("axes", IntsAttr({0, -1}));
  std::vector<Tensor> y = RunOp("Slice", 9, attrs, {Iota3D()});
  EXPECT_EQ(y[0].shape(), (Shape{1, 3, 2}));
  EXPECT_EQ(ToVector<int32_t>(y[0]), (std::vector<int32_t>{1, 2, 5, 6, 9, 10}));
}

TEST(SliceOp, RejectsZeroStep) {
  EXPECT_THROW(RunOp("Slice", 13, Attributes(), {Iota3D(), I64({0}), I64({1}), I64({0}), I64({0})}), Error);
}

}  // namespace
}  // namespace ptq
