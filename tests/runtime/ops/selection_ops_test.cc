// Tests of the ops that pick or move elements: Hardmax (ties, NaN, old-opset 2-D coercion), Compress
// (short conditions, no axis, errors) and ReverseSequence (both axis layouts, length errors).
#include <gtest/gtest.h>

#include <limits>

#include "tests/error_of.h"
#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::ErrorOf;
using testing::IntAttr;
using testing::RunOp;
using testing::ToVector;

TEST(HardmaxOp, FirstMaximumWinsAndNaNCountsAsMaximum) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto y =
      RunOp("Hardmax", 13, Attributes(), {Tensor::FromVector<float>({3, 3}, {1, 3, 3, 2, nan, 5, -1, -1, -1})});
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{0, 1, 0, 0, 1, 0, 1, 0, 0}));
}

// Opset 11, axis 1 on [2, 2, 2]: each row is the 4 trailing elements.
TEST(HardmaxOp, BeforeOpset13TheInputIsFlattenedAtAxis) {
  const Tensor x = Tensor::FromVector<float>({2, 2, 2}, {1, 2, 3, 4, 8, 7, 6, 5});
  EXPECT_EQ(ToVector<float>(RunOp("Hardmax", 11, Attributes(), {x})[0]), (std::vector<float>{0, 0, 0, 1, 1, 0, 0, 0}));
  EXPECT_EQ(ToVector<float>(RunOp("Hardmax", 13, Attributes(), {x})[0]), (std::vector<float>{0, 1, 0, 1, 1, 0, 1, 0}));
}

TEST(HardmaxOp, EmptyAxisAndIntegerInputs) {
  EXPECT_EQ(RunOp("Hardmax", 13, Attributes(), {Tensor(DataType::kFloat, {2, 0})})[0].shape(), (Shape{2, 0}));
  EXPECT_NE(ErrorOf([&] { RunOp("Hardmax", 13, Attributes(), {Tensor(DataType::kInt32, {2})}); }), "");
}

TEST(CompressOp, ShortConditionOnAxisAndFlattenedWithoutAxis) {
  const Tensor x = Tensor::FromVector<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  Attributes axis1;
  axis1.Set("axis", IntAttr(-1));
  const auto y = RunOp("Compress", 11, axis1, {x, Tensor::FromVector<bool>({2}, {false, true})});
  EXPECT_EQ(y[0].shape(), (Shape{2, 1}));
  EXPECT_EQ(ToVector<int32_t>(y[0]), (std::vector<int32_t>{2, 5}));
  const auto flat =
      RunOp("Compress", 11, Attributes(), {x, Tensor::FromVector<bool>({5}, {true, false, false, true, true})});
  EXPECT_EQ(ToVector<int32_t>(flat[0]), (std::vector<int32_t>{1, 4, 5}));
}

TEST(CompressOp, InputErrors) {
  const Tensor x = Tensor::FromVector<int32_t>({2}, {1, 2});
  EXPECT_NE(ErrorOf([&] {
              RunOp("Compress", 11, Attributes(), {x, Tensor::FromVector<bool>({3}, {false, false, true})});
            }).find("past the end of axis 0"),
            std::string::npos);
  // A longer condition is fine while its extra entries are false.
  EXPECT_EQ(ToVector<int32_t>(
                RunOp("Compress", 11, Attributes(), {x, Tensor::FromVector<bool>({3}, {false, true, false})})[0]),
            (std::vector<int32_t>{2}));
  EXPECT_NE(ErrorOf([&] { RunOp("Compress", 11, Attributes(), {x, Tensor::FromVector<int64_t>({1}, {1})}); }), "");
  Attributes axis3;
  axis3.Set("axis", IntAttr(3));
  EXPECT_NE(ErrorOf([&] { RunOp("Compress", 11, axis3, {x, Tensor::FromVector<bool>({1}, {true})}); }), "");
}

// [time 3, batch 2] with lengths [3, 1]; then the same data as [batch 2, time 3].
TEST(ReverseSequenceOp, BothAxisLayouts) {
  const Tensor lens = Tensor::FromVector<int64_t>({2}, {3, 1});
  const auto tb =
      RunOp("ReverseSequence", 10, Attributes(), {Tensor::FromVector<float>({3, 2}, {0, 10, 1, 11, 2, 12}), lens});
  EXPECT_EQ(ToVector<float>(tb[0]), (std::vector<float>{2, 10, 1, 11, 0, 12}));
  Attributes bt;
  bt.Set("batch_axis", IntAttr(0));
  bt.Set("time_axis", IntAttr(1));
  const auto y = RunOp("ReverseSequence", 10, bt, {Tensor::FromVector<float>({2, 3}, {0, 1, 2, 10, 11, 12}), lens});
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{2, 1, 0, 10, 11, 12}));
}

TEST(ReverseSequenceOp, InputErrors) {
  const Tensor x = Tensor(DataType::kFloat, {3, 2});
  EXPECT_NE(ErrorOf([&] {
              RunOp("ReverseSequence", 10, Attributes(), {x, Tensor::FromVector<int64_t>({2}, {4, 1})});
            }).find("sequence_lens[0] is 4"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              RunOp("ReverseSequence", 10, Attributes(), {x, Tensor::FromVector<int64_t>({3}, {1, 1, 1})});
            }),
            "");
  Attributes same;
  same.Set("batch_axis", IntAttr(0));
  EXPECT_NE(ErrorOf([&] { RunOp("ReverseSequence", 10, same, {x, Tensor::FromVector<int64_t>({2}, {1, 1})}); }), "");
}

}  // namespace
}  // namespace ptq
