// Tests of Trilu (numpy.triu / numpy.tril with offset k) and EyeLike.
#include <gtest/gtest.h>

#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::IntAttr;
using testing::RunOp;
using testing::ToVector;

Tensor X34() {
  std::vector<int64_t> v(12);
  for (int i = 0; i < 12; ++i) v[static_cast<size_t>(i)] = i + 1;
  return Tensor::FromVector<int64_t>({3, 4}, v);
}

// numpy: np.triu(arange(1, 13).reshape(3, 4), 1)
TEST(TriluOp, UpperWithPositiveK) {
  std::vector<Tensor> y = RunOp("Trilu", 14, Attributes(), {X34(), Tensor::Scalar<int64_t>(1)});
  EXPECT_EQ(ToVector<int64_t>(y[0]), (std::vector<int64_t>{0, 2, 3, 4, 0, 0, 7, 8, 0, 0, 0, 12}));
}

// numpy: np.tril(arange(1, 13).reshape(3, 4), -1)
TEST(TriluOp, LowerWithNegativeK) {
  Attributes attrs;
  attrs.Set("upper", IntAttr(0));
  std::vector<Tensor> y = RunOp("Trilu", 14, attrs, {X34(), Tensor::Scalar<int64_t>(-1)});
  EXPECT_EQ(ToVector<int64_t>(y[0]), (std::vector<int64_t>{0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0}));
}

TEST(TriluOp, DefaultKIsZeroAndAppliesPerMatrix) {
  Tensor x = Tensor::FromVector<float>({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  std::vector<Tensor> y = RunOp("Trilu", 14, Attributes(), {x});
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{1, 2, 0, 4, 5, 6, 0, 8}));
}

TEST(EyeLikeOp, OnesOnShiftedDiagonalInRequestedType) {
  Attributes attrs;
  attrs.Set("k", IntAttr(1));
  attrs.Set("dtype", IntAttr(static_cast<int64_t>(DataType::kInt32)));
  std::vector<Tensor> y = RunOp("EyeLike", 9, attrs, {Tensor(DataType::kFloat, {3, 3})});
  EXPECT_EQ(y[0].dtype(), DataType::kInt32);
  EXPECT_EQ(ToVector<int32_t>(y[0]), (std::vector<int32_t>{0, 1, 0, 0, 0, 1, 0, 0, 0}));
}

}  // namespace
}  // namespace ptq
