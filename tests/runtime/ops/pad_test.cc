// Tests of Pad: constant, reflect, edge and wrap modes (expected values from numpy.pad), negative
// pads that crop, the attribute form before opset 11 and the axes input from 18.
#include <gtest/gtest.h>

#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::FloatAttr;
using testing::IntsAttr;
using testing::RunOp;
using testing::StringAttr;
using testing::ToVector;

Tensor X23() { return Tensor::FromVector<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6}); }
Tensor I64(std::vector<int64_t> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return Tensor::FromVector<int64_t>({n}, v);
}
Attributes Mode(const char* mode) {
  Attributes a;
  a.Set("mode", StringAttr(mode));
  return a;
}

// numpy.pad(x, ((1, 1), (2, 2)), 'reflect')
TEST(PadOp, ReflectMirrorsWithoutRepeatingTheBorder) {
  std::vector<Tensor> y = RunOp("Pad", 13, Mode("reflect"), {X23(), I64({1, 2, 1, 2})});
  EXPECT_EQ(y[0].shape(), (Shape{4, 7}));
  EXPECT_EQ(ToVector<int32_t>(y[0]), (std::vector<int32_t>{6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1,
                                                           6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1}));
}

// numpy.pad(x, ((0, 1), (1, 2)), 'edge')
TEST(PadOp, EdgeRepeatsTheBorder) {
  std::vector<Tensor> y = RunOp("Pad", 13, Mode("edge"), {X23(), I64({0, 1, 1, 2})});
  EXPECT_EQ(y[0].shape(), (Shape{3, 6}));
  EXPECT_EQ(ToVector<int32_t>(y[0]),
            (std::vector<int32_t>{1, 1, 2, 3, 3, 3, 4, 4, 5, 6, 6, 6, 4, 4, 5, 6, 6, 6}));
}

// numpy.pad(x, ((1, 0), (0, 2)), 'wrap')
TEST(PadOp, WrapRepeatsPeriodically) {
  std::vector<Tensor> y = RunOp("Pad", 19, Mode("wrap"), {X23(), I64({1, 0, 0, 2})});
  EXPECT_EQ(ToVector<int32_t>(y[0]), (std::vector<int32_t>{4, 5, 6, 4, 5, 1, 2, 3, 1, 2, 4, 5, 6, 4, 5}));
}

TEST(PadOp, ConstantUsesConstantValueInput) {
  std::vector<Tensor> y = RunOp("Pad", 13, Mode("constant"), {X23(), I64({0, 1, 1, 0}), Tensor::Scalar<int32_t>(9)});
  EXPECT_EQ(y[0].shape(), (Shape{3, 4}));
  EXPECT_EQ(ToVector<int32_t>(y[0]), (std::vector<int32_t>{9, 1, 2, 3, 9, 4, 5, 6, 9, 9, 9, 9}));
}

TEST(PadOp, NegativePadsCrop) {
  std::vector<Tensor> y = RunOp("Pad", 13, Attributes(), {X23(), I64({-1, 1, 0, -1})});
  EXPECT_EQ(y[0].shape(), (Shape{1, 3}));
  EXPECT_EQ(ToVector<int32_t>(y[0]), (std::vector<int32_t>{0, 4, 5}));
}

TEST(PadOp, Opset2TakesPadsAndValueAttributes) {
  Attributes attrs;
  attrs.Set("pads", IntsAttr({0, 1, 0, 0}));
  attrs.Set("value", FloatAttr(1.5f));
  std::vector<Tensor> y = RunOp("Pad", 2, attrs, {Tensor::FromVector<float>({1, 2}, {7, 8})});
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{1.5f, 7, 8}));
}

TEST(PadOp, Opset18AxesInputSelectsPaddedAxes) {
  std::vector<Tensor> y =
      RunOp("Pad", 18, Mode("edge"), {X23(), I64({1, 0}), Tensor(), I64({-1})});
  EXPECT_EQ(y[0].shape(), (Shape{2, 4}));
  EXPECT_EQ(ToVector<int32_t>(y[0]), (std::vector<int32_t>{1, 1, 2, 3, 4, 4, 5, 6}));
}

TEST(PadOp, RejectsPadsOfWrongLength) {
  EXPECT_THROW(RunOp("Pad", 13, Attributes(), {X23(), I64({1, 1})}), Error);
}

}  // namespace
}  // namespace ptq
