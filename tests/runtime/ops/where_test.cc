// Tests of the Where kernel: selection with three-way broadcasting.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tests/runtime/ops/elementwise_test_util.h"

namespace ptq {
namespace {

using testing::Floats;
using testing::Iota;
using testing::RunOne;
using testing::ToVector;

TEST(ElementwiseWhereTest, BroadcastsAllThreeInputs) {
  // condition [2,1], X [1,3], Y scalar -> [2,3]
  const Tensor cond = Tensor::FromVector<bool>({2, 1}, {true, false});
  const Tensor x = Tensor::FromVector<int64_t>({1, 3}, {1, 2, 3});
  const Tensor y = Tensor::Scalar<int64_t>(-9);
  const Tensor out = RunOne("Where", 16, {cond, x, y});
  ASSERT_EQ(out.shape(), (Shape{2, 3}));
  EXPECT_EQ(ToVector<int64_t>(out), (std::vector<int64_t>{1, 2, 3, -9, -9, -9}));
  const Tensor cond2 = Tensor::FromVector<bool>({3}, {false, true, false});
  const Tensor f = RunOne("Where", 9, {cond2, Floats({2, 1}, {1, 2}), Floats({2, 3}, Iota(6, 10))});
  EXPECT_EQ(ToVector<float>(f), (std::vector<float>{10, 1, 12, 13, 2, 15}));
}

}  // namespace
}  // namespace ptq
