// Tests of the index ops GatherND, NonZero, CumSum and OneHot: batch_dims, negative indices and
// axes, empty and scalar inputs, exclusive/reverse sums and input errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/error_of.h"
#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::ErrorOf;
using testing::IntAttr;
using testing::RunOp;
using testing::ToVector;

// data [2, 2, 2] = 0..7, batch_dims 1, indices [[1], [-2]]: batch 0 row 1, batch 1 row 0.
TEST(GatherNDOp, BatchDimsWithNegativeIndex) {
  Attributes a;
  a.Set("batch_dims", IntAttr(1));
  const auto y = RunOp(
      "GatherND", 12, a,
      {Tensor::FromVector<int32_t>({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}), Tensor::FromVector<int64_t>({2, 1}, {1, -2})});
  EXPECT_EQ(y[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(ToVector<int32_t>(y[0]), (std::vector<int32_t>{2, 3, 4, 5}));
}

TEST(GatherNDOp, FullIndexTuplesPickElements) {
  const auto y =
      RunOp("GatherND", 13, Attributes(),
            {Tensor::FromVector<float>({2, 2}, {0, 1, 2, 3}), Tensor::FromVector<int64_t>({2, 2}, {0, 0, 1, 1})});
  EXPECT_EQ(y[0].shape(), (Shape{2}));
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{0, 3}));
}

TEST(GatherNDOp, EmptyIndices) {
  const auto y =
      RunOp("GatherND", 13, Attributes(), {Tensor(DataType::kFloat, {2, 3}), Tensor(DataType::kInt64, {0, 1})});
  EXPECT_EQ(y[0].shape(), (Shape{0, 3}));
}

TEST(GatherNDOp, InputErrors) {
  const Tensor data = Tensor(DataType::kFloat, {2, 3});
  EXPECT_NE(ErrorOf([&] {
              RunOp("GatherND", 13, Attributes(), {data, Tensor::FromVector<int64_t>({1, 2}, {1, 3})});
            }).find("index 3 in input 'indices' is out of range for axis 1"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              RunOp("GatherND", 13, Attributes(), {data, Tensor::FromVector<int64_t>({1, 3}, {0, 0, 0})});
            }),
            "");
  Attributes a;
  a.Set("batch_dims", IntAttr(2));
  EXPECT_NE(ErrorOf([&] { RunOp("GatherND", 13, a, {data, Tensor::FromVector<int64_t>({1, 1}, {0})}); }), "");
  a.Set("batch_dims", IntAttr(1));
  EXPECT_NE(ErrorOf([&] {
              RunOp("GatherND", 13, a, {data, Tensor::FromVector<int64_t>({3, 1}, {0, 0, 0})});
            }).find("batch axis 0 differs"),
            std::string::npos);
}

TEST(NonZeroOp, CoordinatesInRowMajorOrderNaNCounts) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto y = RunOp("NonZero", 13, Attributes(), {Tensor::FromVector<float>({2, 2}, {0, nan, -0.0f, 3})});
  EXPECT_EQ(y[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(ToVector<int64_t>(y[0]), (std::vector<int64_t>{0, 1, 1, 1}));
}

TEST(NonZeroOp, ScalarAndEmptyInputs) {
  EXPECT_EQ(RunOp("NonZero", 13, Attributes(), {Tensor::Scalar<int32_t>(5)})[0].shape(), (Shape{1, 1}));
  EXPECT_EQ(RunOp("NonZero", 13, Attributes(), {Tensor::Scalar<bool>(false)})[0].shape(), (Shape{1, 0}));
  EXPECT_EQ(RunOp("NonZero", 13, Attributes(), {Tensor(DataType::kUint8, {3, 0, 2})})[0].shape(), (Shape{3, 0}));
}

Tensor Cum23() { return Tensor::FromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6}); }

TEST(CumSumOp, ExclusiveReverseOnAxis1WithInt32Axis) {
  Attributes a;
  a.Set("exclusive", IntAttr(1));
  a.Set("reverse", IntAttr(1));
  const auto y = RunOp("CumSum", 14, a, {Cum23(), Tensor::FromVector<int32_t>({1}, {1})});
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{5, 3, 0, 11, 6, 0}));
}

TEST(CumSumOp, NegativeScalarAxisAndIntegers) {
  const auto y = RunOp("CumSum", 14, Attributes(),
                       {Tensor::FromVector<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6}), Tensor::Scalar<int64_t>(-2)});
  EXPECT_EQ(ToVector<int64_t>(y[0]), (std::vector<int64_t>{1, 2, 3, 5, 7, 9}));
}

TEST(CumSumOp, InputErrors) {
  EXPECT_NE(ErrorOf([&] {
              RunOp("CumSum", 14, Attributes(), {Cum23(), Tensor::Scalar<int64_t>(2)});
            }).find("out of range"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { RunOp("CumSum", 14, Attributes(), {Cum23(), Tensor::Scalar<float>(0)}); }), "");
  EXPECT_NE(ErrorOf([&] {
              RunOp("CumSum", 14, Attributes(), {Cum23(), Tensor::FromVector<int64_t>({2}, {0, 1})});
            }),
            "");
  EXPECT_NE(ErrorOf([&] {
              RunOp("CumSum", 14, Attributes(), {Tensor::Scalar<float>(1), Tensor::Scalar<int64_t>(0)});
            }),
            "");
}

// indices [1, -1, 5, 0.7] with depth 3: -1 is index 2, 5 is out of range (all off), 0.7 truncates to 0.
TEST(OneHotOp, NegativeOutOfRangeAndFractionalIndices) {
  const auto y = RunOp("OneHot", 11, Attributes(),
                       {Tensor::FromVector<float>({4}, {1, -1, 5, 0.7f}), Tensor::Scalar<float>(3),
                        Tensor::FromVector<int64_t>({2}, {0, 9})});
  EXPECT_EQ(y[0].shape(), (Shape{4, 3}));
  EXPECT_EQ(ToVector<int64_t>(y[0]), (std::vector<int64_t>{0, 9, 0, 0, 0, 9, 0, 0, 0, 9, 0, 0}));
}

TEST(OneHotOp, Axis0) {
  Attributes a;
  a.Set("axis", IntAttr(0));
  const auto y = RunOp("OneHot", 11, a,
                       {Tensor::FromVector<int32_t>({2}, {0, 2}), Tensor::FromVector<int64_t>({1}, {3}),
                        Tensor::FromVector<float>({2}, {-1, 1})});
  EXPECT_EQ(y[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{1, -1, -1, -1, -1, 1}));
}

TEST(OneHotOp, InputErrors) {
  const Tensor idx = Tensor::FromVector<int64_t>({1}, {0});
  const Tensor values = Tensor::FromVector<float>({2}, {0, 1});
  EXPECT_NE(ErrorOf([&] {
              RunOp("OneHot", 11, Attributes(), {idx, Tensor::Scalar<int64_t>(-1), values});
            }).find("depth"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf([&] {
        RunOp("OneHot", 11, Attributes(), {idx, Tensor::Scalar<float>(std::numeric_limits<float>::infinity()), values});
      }),
      "");
  EXPECT_NE(ErrorOf([&] {
              RunOp("OneHot", 11, Attributes(), {idx, Tensor::Scalar<int64_t>(2), Tensor::Scalar<float>(1)});
            }),
            "");
  Attributes a;
  a.Set("axis", IntAttr(2));
  EXPECT_NE(ErrorOf([&] {
              RunOp("OneHot", 11, a, {idx, Tensor::Scalar<int64_t>(2), values});
            }).find("axis"),
            std::string::npos);
}

}  // namespace
}  // namespace ptq
