// Tests of the element-wise ops IsNaN, IsInf, Mean and BitShift: the IsInf sign flags, Mean with
// broadcasting and one input, shifts by the type's width or more, and type errors.
#include <gtest/gtest.h>

#include <limits>

#include "tests/error_of.h"
#include "tests/runtime/ops/elementwise_test_util.h"

namespace ptq {
namespace {

using testing::ErrorOf;
using testing::Floats;
using testing::IntAttr;
using testing::RunOne;
using testing::StringAttr;
using testing::ToVector;

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(FloatClassOps, IsNaNAndIsInfWithSignFlags) {
  const Tensor x = Floats({4}, {-kInf, kInf, kNaN, 1});
  EXPECT_EQ(ToVector<bool>(RunOne("IsNaN", 13, {x})), (std::vector<bool>{false, false, true, false}));
  EXPECT_EQ(ToVector<bool>(RunOne("IsInf", 10, {x})), (std::vector<bool>{true, true, false, false}));
  Attributes only_negative;
  only_negative.Set("detect_positive", IntAttr(0));
  EXPECT_EQ(ToVector<bool>(RunOne("IsInf", 10, {x}, only_negative)), (std::vector<bool>{true, false, false, false}));
  EXPECT_NE(ErrorOf([&] { RunOne("IsNaN", 13, {Tensor::FromVector<int32_t>({1}, {1})}); }), "");
}

TEST(MeanOp, BroadcastsAndPassesOneInputThrough) {
  const Tensor y = RunOne("Mean", 13, {Floats({2, 1}, {1, 2}), Floats({3}, {3, 4, 5}), Floats({1}, {0})});
  EXPECT_EQ(y.shape(), (Shape{2, 3}));
  EXPECT_EQ(ToVector<float>(y), (std::vector<float>{4.0f / 3, 5.0f / 3, 2, 5.0f / 3, 2, 7.0f / 3}));
  EXPECT_EQ(ToVector<float>(RunOne("Mean", 13, {Floats({2}, {1, 2})})), (std::vector<float>{1, 2}));
  EXPECT_NE(ErrorOf([&] { RunOne("Mean", 13, {Floats({2}, {1, 2}), Floats({3}, {1, 2, 3})}); }), "");
}

Attributes Direction(const std::string& d) {
  Attributes a;
  a.Set("direction", StringAttr(d));
  return a;
}

TEST(BitShiftOp, ShiftsByTheWidthOrMoreGiveZero) {
  const Tensor x = Tensor::FromVector<uint8_t>({4}, {0xff, 0x81, 3, 16});
  const Tensor s = Tensor::FromVector<uint8_t>({4}, {1, 7, 8, 200});
  EXPECT_EQ(ToVector<uint8_t>(RunOne("BitShift", 11, {x, s}, Direction("LEFT"))),
            (std::vector<uint8_t>{0xfe, 0x80, 0, 0}));
  EXPECT_EQ(ToVector<uint8_t>(RunOne("BitShift", 11, {x, s}, Direction("RIGHT"))),
            (std::vector<uint8_t>{0x7f, 1, 0, 0}));
  const Tensor big = Tensor::FromVector<uint64_t>({2}, {1, 1});
  EXPECT_EQ(
      ToVector<uint64_t>(RunOne("BitShift", 11, {big, Tensor::FromVector<uint64_t>({2}, {63, 64})}, Direction("LEFT"))),
      (std::vector<uint64_t>{uint64_t{1} << 63, 0}));
}

TEST(BitShiftOp, DirectionAndTypeErrors) {
  const Tensor x = Tensor::FromVector<uint8_t>({1}, {1});
  EXPECT_NE(ErrorOf([&] { RunOne("BitShift", 11, {x, x}, Direction("left")); }).find("'direction'"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { RunOne("BitShift", 11, {x, x}); }), "");
  const Tensor i = Tensor::FromVector<int32_t>({1}, {1});
  EXPECT_NE(ErrorOf([&] { RunOne("BitShift", 11, {i, i}, Direction("LEFT")); }), "");
}

}  // namespace
}  // namespace ptq
