// Tests of Range: float and integer sequences, negative delta, empty results.
#include <gtest/gtest.h>

#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::RunOp;
using testing::ToVector;

// numpy: np.arange(1.0, 2.0, 0.3, dtype=np.float32) -> 4 values
TEST(RangeOp, FloatSequenceExcludesLimit) {
  std::vector<Tensor> y = RunOp("Range", 11, Attributes(),
                                {Tensor::Scalar<float>(1.0f), Tensor::Scalar<float>(2.0f), Tensor::Scalar<float>(0.3f)});
  ASSERT_EQ(y[0].shape(), (Shape{4}));
  const std::vector<float> expected = {1.0f, 1.3f, 1.6f, 1.9f};
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(y[0].data<float>()[i], expected[i], 1e-6f);
}

// numpy: np.arange(10, 2, -3) -> [10, 7, 4]
TEST(RangeOp, IntegerNegativeDelta) {
  std::vector<Tensor> y = RunOp("Range", 11, Attributes(),
                                {Tensor::Scalar<int32_t>(10), Tensor::Scalar<int32_t>(2), Tensor::Scalar<int32_t>(-3)});
  EXPECT_EQ(ToVector<int32_t>(y[0]), (std::vector<int32_t>{10, 7, 4}));
}

TEST(RangeOp, Int64ExactCountAndEmptyWhenDeltaPointsAway) {
  std::vector<Tensor> y = RunOp("Range", 11, Attributes(),
                                {Tensor::Scalar<int64_t>(0), Tensor::Scalar<int64_t>(6), Tensor::Scalar<int64_t>(2)});
  EXPECT_EQ(ToVector<int64_t>(y[0]), (std::vector<int64_t>{0, 2, 4}));
  y = RunOp("Range", 11, Attributes(),
            {Tensor::Scalar<int64_t>(0), Tensor::Scalar<int64_t>(6), Tensor::Scalar<int64_t>(-1)});
  EXPECT_EQ(y[0].shape(), (Shape{0}));
}

TEST(RangeOp, RejectsZeroDelta) {
  EXPECT_THROW(RunOp("Range", 11, Attributes(),
                     {Tensor::Scalar<float>(0), Tensor::Scalar<float>(1), Tensor::Scalar<float>(0)}),
               Error);
}

}  // namespace
}  // namespace ptq
