// Tests of MaxPool: ceil_mode, pads with dilations, 3-D, Indices in row- and column-major order,
// integers, float16 and errors. Expected values: an independent numpy loop over each window's taps
// on Distinct() inputs (every value distinct, so the argmax is unique).
#include "runtime/ops/nn/max_pool.h"

#include <gtest/gtest.h>

#include <random>

#include "tests/runtime/ops/nn_test_util.h"

namespace ptq {
namespace {

using testing::ExpectValues;
using testing::IntAttr;
using testing::IntsAttr;

// x[i] = ((i * 37 + salt) % 101 - 50) / 8, as the numpy script builds it.
Tensor Distinct(const Shape& shape, int salt) {
  std::vector<float> v(static_cast<size_t>(ShapeSize(shape)));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>(static_cast<int64_t>(i * 37 + salt) % 101 - 50) / 8.0f;
  return Tensor::FromVector<float>(shape, v);
}

Attributes PoolAttrs(std::vector<int64_t> kernel, std::vector<int64_t> strides, std::vector<int64_t> pads,
                     std::vector<int64_t> dilations = {}, bool ceil_mode = false, int storage_order = 0) {
  Attributes a;
  a.Set("kernel_shape", IntsAttr(kernel));
  a.Set("strides", IntsAttr(strides));
  a.Set("pads", IntsAttr(pads));
  if (!dilations.empty()) a.Set("dilations", IntsAttr(dilations));
  a.Set("ceil_mode", IntAttr(ceil_mode ? 1 : 0));
  a.Set("storage_order", IntAttr(storage_order));
  return a;
}

TEST(MaxPoolTest, CeilModeAddsAPartialWindowAndIndicesAreFlat) {
  const auto out =
      testing::RunOp("MaxPool", 12, PoolAttrs({2, 2}, {2, 2}, {0, 0, 0, 0}, {}, true), {Distinct({1, 2, 5, 5}, 0)}, 2);
  ExpectValues(out[0], {1, 2, 3, 3},
               {4.25f, 5.5f, -0.375f, 4.625f, 3.375f, 5.875f, 2.5f, -0.875f, 3.75f, 6.25f, 5.0f, 1.625f, 4.125f, 5.375f,
                -2.625f, 4.5f, 1.125f, 5.75f});
  EXPECT_EQ(testing::ToVector<int64_t>(out[1]),
            (std::vector<int64_t>{5, 8, 4, 16, 13, 19, 21, 23, 24, 30, 27, 29, 35, 38, 39, 46, 48, 49}));
}

TEST(MaxPoolTest, PadsAndDilationsNeverPickPadding) {
  const auto out =
      testing::RunOp("MaxPool", 12, PoolAttrs({3, 2}, {2, 1}, {1, 0, 1, 1}, {1, 2}), {Distinct({2, 1, 4, 5}, 1)}, 2);
  ExpectValues(out[0], {2, 1, 2, 4},
               {4.375f, 5.625f, 3.125f, 5.625f, 4.375f, 5.625f, 6.0f, 5.625f, 5.125f, 2.625f, 5.125f, -0.75f, 5.125f,
                5.5f, 5.125f, 5.5f});
  EXPECT_EQ(testing::ToVector<int64_t>(out[1]),
            (std::vector<int64_t>{5, 8, 2, 8, 5, 8, 19, 8, 27, 21, 27, 23, 27, 38, 27, 38}));
}

TEST(MaxPoolTest, StorageOrderOneGivesColumnMajorIndices) {
  const auto out = testing::RunOp("MaxPool", 12, PoolAttrs({3, 2}, {2, 1}, {1, 0, 1, 1}, {1, 2}, false, 1),
                                  {Distinct({2, 1, 4, 5}, 1)}, 2);
  ExpectValues(out[0], {2, 1, 2, 4},
               {4.375f, 5.625f, 3.125f, 5.625f, 4.375f, 5.625f, 6.0f, 5.625f, 5.125f, 2.625f, 5.125f, -0.75f, 5.125f,
                5.5f, 5.125f, 5.5f});
  EXPECT_EQ(testing::ToVector<int64_t>(out[1]),
            (std::vector<int64_t>{1, 13, 8, 13, 1, 13, 19, 13, 29, 24, 29, 32, 29, 35, 29, 35}));
}

TEST(MaxPoolTest, ThreeDimensionalCeilModeWithPads) {
  const Attributes a = PoolAttrs({2, 2, 3}, {1, 2, 2}, {0, 1, 1, 1, 0, 1}, {}, true);
  const auto out = testing::RunOp("MaxPool", 12, a, {Distinct({1, 2, 3, 4, 5}, 2)}, 2);
  ExpectValues(
      out[0], {1, 2, 3, 3, 3},
      {2.75f,  3.25f,  4.0f,   4.5f,   5.75f, 5.75f,  4.875f, 5.625f, 6.125f, 2.75f, 3.5f,   4.0f,   4.75f, 5.25f,
       6.0f,   4.375f, 5.625f, 5.625f, 2.25f, 3.5f,   3.5f,   4.75f,  4.75f,  6.0f,  0.5f,   5.125f, 1.75f, 2.5f,
       3.0f,   3.75f,  6.25f,  5.5f,   5.5f,  4.625f, 5.375f, 5.875f, 2.5f,   3.25f, 3.75f,  6.25f,  5.0f,  5.75f,
       4.125f, 5.375f, 5.375f, 2.0f,   3.25f, 3.25f,  4.5f,   4.5f,   5.75f,  0.25f, 4.875f, 1.5f});
  EXPECT_EQ(testing::ToVector<int64_t>(out[1]),
            (std::vector<int64_t>{21, 2,   24, 5,  8,  8,   16, 38, 19, 21,  43,  24,  46,  27,  49,  35,  38,  38,
                                  40, 43,  43, 46, 46, 49,  56, 57, 59, 81,  62,  84,  90,  68,  68,  76,  98,  79,
                                  81, 103, 84, 90, 87, 109, 95, 98, 98, 100, 103, 103, 106, 106, 109, 116, 117, 119}));
  const Attributes cm = PoolAttrs({2, 2, 3}, {1, 2, 2}, {0, 1, 1, 1, 0, 1}, {}, true, 1);
  EXPECT_EQ(testing::ToVector<int64_t>(testing::RunOp("MaxPool", 12, cm, {Distinct({1, 2, 3, 4, 5}, 2)}, 2)[1]),
            (std::vector<int64_t>{13, 24, 49,  3,  39, 39,  21, 46,  57,  13, 38, 49,  17, 28, 53,  10, 46,  46,
                                  2,  38, 38,  17, 17, 53,  23, 35,  59,  73, 84, 109, 67, 99, 99,  81, 106, 117,
                                  73, 98, 109, 67, 88, 113, 70, 106, 106, 62, 98, 98,  77, 77, 113, 83, 95,  119}));
}

TEST(MaxPoolTest, Int8AndFloat16) {
  // 1-D, kernel 2, stride 1: max of neighbours.
  const Tensor x8 = Tensor::FromVector<int8_t>({1, 1, 4}, {-128, -5, 7, 127});
  const Tensor y8 = testing::RunOp("MaxPool", 12, PoolAttrs({2}, {1}, {0, 0}), {x8})[0];
  EXPECT_EQ(testing::ToVector<int8_t>(y8), (std::vector<int8_t>{-5, 7, 127}));
  const Tensor xh = testing::ToHalf(Distinct({1, 2, 5, 5}, 0));
  ExpectValues(testing::RunOp("MaxPool", 12, PoolAttrs({2, 2}, {2, 2}, {0, 0, 0, 0}, {}, true), {xh})[0], {1, 2, 3, 3},
               {4.25f, 5.5f, -0.375f, 4.625f, 3.375f, 5.875f, 2.5f, -0.875f, 3.75f, 6.25f, 5.0f, 1.625f, 4.125f, 5.375f,
                -2.625f, 4.5f, 1.125f, 5.75f},
               0.0f, true);
}

// The 2 x 2, stride 2 fast path of 8-bit MaxPool (taken without the Indices output) against the
// general path (taken with it), for even and odd plane sizes.
TEST(MaxPoolTest, Int8TwoByTwoFastPathMatchesTheGeneralPath) {
  std::mt19937 rng(9);
  std::uniform_int_distribution<int> byte(0, 255);
  for (DataType t : {DataType::kUint8, DataType::kInt8}) {
    for (const Shape& shape : {Shape{2, 3, 8, 8}, Shape{1, 2, 7, 9}, Shape{3, 1, 2, 2}, Shape{1, 1, 5, 3}}) {
      Tensor x(t, shape);
      for (int64_t i = 0; i < x.size(); ++i) static_cast<uint8_t*>(x.raw())[i] = static_cast<uint8_t>(byte(rng));
      Attributes attrs;
      attrs.Set("kernel_shape", testing::IntsAttr({2, 2}));
      attrs.Set("strides", testing::IntsAttr({2, 2}));
      const Tensor fast = testing::RunOp("MaxPool", 12, attrs, {x}, 1)[0];
      const Tensor general = testing::RunOp("MaxPool", 12, attrs, {x}, 2)[0];
      ASSERT_EQ(fast.shape(), general.shape()) << ShapeToString(shape);
      for (int64_t i = 0; i < fast.size(); ++i) {
        ASSERT_EQ(fast.GetAsDouble(i), general.GetAsDouble(i)) << ShapeToString(shape) << " element " << i;
      }
    }
  }
}

TEST(MaxPoolTest, MissingKernelShapeIsAnInputError) {
  const std::string message = testing::InputErrorOf([] {
    testing::RunOp("MaxPool", 12, Attributes(), {Distinct({1, 1, 4, 4}, 0)});
  });
  EXPECT_NE(message.find("kernel_shape"), std::string::npos) << message;
}

}  // namespace
}  // namespace ptq
