// Tests of Expand (numpy broadcasting in both directions) and Tile.
#include <gtest/gtest.h>

#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::RunOp;
using testing::ToVector;

// numpy: np.broadcast_to([[1], [2], [3]], (2, 3, 4))
TEST(ExpandOp, BroadcastsToLargerRank) {
  std::vector<Tensor> y = RunOp("Expand", 13, Attributes(),
                                {Tensor::FromVector<int32_t>({3, 1}, {1, 2, 3}), Tensor::FromVector<int64_t>({3}, {2, 1, 4})});
  EXPECT_EQ(y[0].shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(ToVector<int32_t>(y[0]), (std::vector<int32_t>{1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
                                                           1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}));
}

TEST(ExpandOp, ShapeSmallerThanInputKeepsInputDims) {
  std::vector<Tensor> y = RunOp("Expand", 8, Attributes(),
                                {Tensor::FromVector<float>({2, 1}, {5, 6}), Tensor::FromVector<int64_t>({1}, {3})});
  EXPECT_EQ(y[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{5, 5, 5, 6, 6, 6}));
}

TEST(ExpandOp, RejectsIncompatibleShape) {
  EXPECT_THROW(RunOp("Expand", 13, Attributes(),
                     {Tensor(DataType::kFloat, {2, 3}), Tensor::FromVector<int64_t>({1}, {4})}),
               Error);
}

// numpy: np.tile([[1, 2], [3, 4]], (2, 3))
TEST(TileOp, RepeatsEachAxis) {
  std::vector<Tensor> y = RunOp("Tile", 13, Attributes(),
                                {Tensor::FromVector<int32_t>({2, 2}, {1, 2, 3, 4}), Tensor::FromVector<int64_t>({2}, {2, 3})});
  EXPECT_EQ(y[0].shape(), (Shape{4, 6}));
  EXPECT_EQ(ToVector<int32_t>(y[0]), (std::vector<int32_t>{1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4,
                                                           1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4}));
}

}  // namespace
}  // namespace ptq
