// Tests of Gather: negative indices on a non-zero axis, the output shape, and out-of-range errors.
#include <gtest/gtest.h>

#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::IntAttr;
using testing::RunOp;
using testing::ToVector;

Tensor Iota34() {
  std::vector<float> v(12);
  for (int i = 0; i < 12; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i);
  return Tensor::FromVector<float>({3, 4}, v);
}

// numpy: np.take(arange(12).reshape(3, 4), [[-1, 0], [1, -2]], axis=1)
TEST(GatherOp, NegativeIndicesOnAxis1) {
  Attributes attrs;
  attrs.Set("axis", IntAttr(1));
  std::vector<Tensor> y =
      RunOp("Gather", 13, attrs, {Iota34(), Tensor::FromVector<int64_t>({2, 2}, {-1, 0, 1, -2})});
  EXPECT_EQ(y[0].shape(), (Shape{3, 2, 2}));
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10}));
}

TEST(GatherOp, ScalarInt32IndexOnAxis0DropsTheAxis) {
  std::vector<Tensor> y = RunOp("Gather", 1, Attributes(), {Iota34(), Tensor::Scalar<int32_t>(2)});
  EXPECT_EQ(y[0].shape(), (Shape{4}));
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{8, 9, 10, 11}));
}

TEST(GatherOp, RejectsOutOfRangeIndex) {
  EXPECT_THROW(RunOp("Gather", 13, Attributes(), {Iota34(), Tensor::FromVector<int64_t>({1}, {3})}), Error);
  EXPECT_THROW(RunOp("Gather", 13, Attributes(), {Iota34(), Tensor::FromVector<int64_t>({1}, {-4})}), Error);
}

// ONNX spec example: data [[1, 2], [3, 4]], indices [[0, 0], [1, 0]], axis 1 -> [[1, 1], [4, 3]].
TEST(GatherElementsOp, PicksAlongAxis1) {
  Attributes attrs;
  attrs.Set("axis", IntAttr(1));
  std::vector<Tensor> y = RunOp("GatherElements", 13, attrs,
                                {Tensor::FromVector<float>({2, 2}, {1, 2, 3, 4}),
                                 Tensor::FromVector<int64_t>({2, 2}, {0, 0, 1, 0})});
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{1, 1, 4, 3}));
}

// ONNX spec example with negative indices: data 3x3 of 1..9, indices [[-1, -2, 0], [-2, 0, 0]],
// axis 0 -> [[7, 5, 3], [4, 2, 3]].
TEST(GatherElementsOp, NegativeIndicesOnAxis0) {
  std::vector<Tensor> y = RunOp("GatherElements", 13, Attributes(),
                                {Tensor::FromVector<float>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
                                 Tensor::FromVector<int32_t>({2, 3}, {-1, -2, 0, -2, 0, 0})});
  EXPECT_EQ(y[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{7, 5, 3, 4, 2, 3}));
}

}  // namespace
}  // namespace ptq
