// Tests of MatMul: numpy.matmul shapes (1-D operands, batch broadcasting), float16, integers,
// constant B and shape errors. Expected values: numpy.matmul on the same Pattern() inputs.
#include "runtime/ops/math/matmul.h"

#include <gtest/gtest.h>

#include <cstring>

#include "tests/runtime/ops/nn_test_util.h"

namespace ptq {
namespace {

using testing::ExpectValues;
using testing::PatternTensor;

Tensor RunMatMul(const Tensor& a, const Tensor& b, int opset = 13, bool constant_b = false) {
  return testing::RunOp("MatMul", opset, Attributes(), {a, b}, 1, constant_b)[0];
}

TEST(MatMulTest, OneDimensionalTimesMatrixDropsTheRowAxis) {
  ExpectValues(RunMatMul(PatternTensor({3}, 0), PatternTensor({3, 4}, 1)), {4}, {-0.5f, -1.625f, -1.125f, 2.625f});
}

TEST(MatMulTest, MatrixTimesOneDimensionalDropsTheColumnAxis) {
  ExpectValues(RunMatMul(PatternTensor({2, 3}, 0), PatternTensor({3}, 1)), {2}, {0.75f, -1.625f});
}

TEST(MatMulTest, VectorTimesVectorIsAScalar) {
  ExpectValues(RunMatMul(PatternTensor({5}, 0), PatternTensor({5}, 1)), {}, {-0.25f});
}

TEST(MatMulTest, BatchAxesBroadcast) {
  ExpectValues(
      RunMatMul(PatternTensor({2, 1, 4, 3}, 0), PatternTensor({3, 3, 5}, 1)), {2, 3, 4, 5},
      {-1.1875f, -1.5f,    -1.8125f, 2.75f,    -2.4375f, 1.875f,   -0.125f,  1.9375f,  -1.6875f, 2.0f,     -1.5625f,
       -0.375f,  -1.625f,  2.0f,     -1.6875f, 1.5f,     1.0f,     2.125f,   -2.4375f, 2.75f,    -1.8125f, 2.75f,
       -2.4375f, 2.125f,   1.0f,     1.9375f,  -1.6875f, 2.0f,     -1.625f,  -0.375f,  -1.625f,  2.0f,     -1.6875f,
       1.9375f,  -0.125f,  2.125f,   -2.4375f, 2.75f,    -1.8125f, -1.5f,    -2.4375f, 2.125f,   1.0f,     1.5f,
       0.375f,   2.0f,     -1.625f,  -0.375f,  -1.5625f, -0.3125f, -1.6875f, 1.9375f,  -0.125f,  1.875f,   -0.1875f,
       2.75f,    -1.8125f, -1.5f,    -1.1875f, -0.875f,  2.125f,   -0.875f,  1.8125f,  -1.1875f, 1.5f,     -1.3125f,
       -1.125f,  -1.75f,   2.5f,     -2.1875f, 1.75f,    0.25f,    2.0f,     -1.9375f, 2.25f,    -1.6875f, 0.0f,
       -1.5625f, 1.75f,    -1.4375f, 1.8125f,  -1.1875f, 1.5f,     -1.5f,    0.375f,   -1.75f,   2.5f,     -2.1875f,
       2.0625f,  0.625f,   2.0f,     -1.9375f, 2.25f,    -1.6875f, -0.75f,   -1.5625f, 1.75f,    -1.4375f, 1.875f,
       -0.5f,    1.5f,     -1.5f,    0.375f,   -1.8125f, 0.0625f,  -2.1875f, 2.0625f,  0.625f,   1.625f,   0.1875f,
       2.25f,    -1.6875f, -0.75f,   -1.4375f, -0.5f,    -1.4375f, 1.875f,   -0.5f,    2.0f,     -0.375f});
}

TEST(MatMulTest, MatrixTimesBatchOfMatrices) {
  ExpectValues(RunMatMul(PatternTensor({4, 3}, 0), PatternTensor({2, 3, 5}, 1)), {2, 4, 5},
               {-1.1875f, -1.5f,   -1.8125f, 2.75f,   -2.4375f, 1.875f,  -0.125f,  1.9375f, -1.6875f, 2.0f,
                -1.5625f, -0.375f, -1.625f,  2.0f,    -1.6875f, 1.5f,    1.0f,     2.125f,  -2.4375f, 2.75f,
                -1.8125f, 2.75f,   -2.4375f, 2.125f,  1.0f,     1.9375f, -1.6875f, 2.0f,    -1.625f,  -0.375f,
                -1.625f,  2.0f,    -1.6875f, 1.9375f, -0.125f,  2.125f,  -2.4375f, 2.75f,   -1.8125f, -1.5f});
}

TEST(MatMulTest, BatchTimesSharedMatrixAsConstant) {
  for (bool constant : {false, true}) {
    ExpectValues(RunMatMul(PatternTensor({2, 4, 3}, 0), PatternTensor({3, 5}, 1), 13, constant), {2, 4, 5},
                 {-1.1875f, -1.5f,   -1.8125f, 2.75f,    -2.4375f, 1.875f,   -0.125f, 1.9375f,  -1.6875f, 2.0f,
                  -1.5625f, -0.375f, -1.625f,  2.0f,     -1.6875f, 1.5f,     1.0f,    2.125f,   -2.4375f, 2.75f,
                  2.125f,   -0.875f, 1.8125f,  -1.1875f, 1.5f,     -1.3125f, -1.125f, -1.75f,   2.5f,     -2.1875f,
                  1.75f,    0.25f,   2.0f,     -1.9375f, 2.25f,    -1.6875f, 0.0f,    -1.5625f, 1.75f,    -1.4375f});
  }
}

TEST(MatMulTest, ConstantWeightsPackedOnceGiveTheBitsOfPackingOnEveryRun) {
  // A batch of activations times a constant weight matrix: packed when the kernel is made, or per run.
  const Tensor a = PatternTensor({3, 40, 300}, 6), w = PatternTensor({300, 530}, 7);
  const Tensor per_run = RunMatMul(a, w);
  const Tensor packed = RunMatMul(a, w, 13, true);
  ASSERT_EQ(packed.shape(), (Shape{3, 40, 530}));
  EXPECT_EQ(0, std::memcmp(per_run.raw(), packed.raw(), packed.nbytes()));
}

TEST(MatMulTest, Float16ComputesInFloat32) {
  for (bool constant : {false, true}) {
    const Tensor y = RunMatMul(testing::ToHalf(PatternTensor({2, 1, 4, 3}, 0)),
                               testing::ToHalf(PatternTensor({3, 3, 5}, 1)), 13, constant);
    ExpectValues(
        y, {2, 3, 4, 5},
        {-1.1875f, -1.5f,    -1.8125f, 2.75f,    -2.4375f, 1.875f,   -0.125f,  1.9375f,  -1.6875f, 2.0f,     -1.5625f,
         -0.375f,  -1.625f,  2.0f,     -1.6875f, 1.5f,     1.0f,     2.125f,   -2.4375f, 2.75f,    -1.8125f, 2.75f,
         -2.4375f, 2.125f,   1.0f,     1.9375f,  -1.6875f, 2.0f,     -1.625f,  -0.375f,  -1.625f,  2.0f,     -1.6875f,
         1.9375f,  -0.125f,  2.125f,   -2.4375f, 2.75f,    -1.8125f, -1.5f,    -2.4375f, 2.125f,   1.0f,     1.5f,
         0.375f,   2.0f,     -1.625f,  -0.375f,  -1.5625f, -0.3125f, -1.6875f, 1.9375f,  -0.125f,  1.875f,   -0.1875f,
         2.75f,    -1.8125f, -1.5f,    -1.1875f, -0.875f,  2.125f,   -0.875f,  1.8125f,  -1.1875f, 1.5f,     -1.3125f,
         -1.125f,  -1.75f,   2.5f,     -2.1875f, 1.75f,    0.25f,    2.0f,     -1.9375f, 2.25f,    -1.6875f, 0.0f,
         -1.5625f, 1.75f,    -1.4375f, 1.8125f,  -1.1875f, 1.5f,     -1.5f,    0.375f,   -1.75f,   2.5f,     -2.1875f,
         2.0625f,  0.625f,   2.0f,     -1.9375f, 2.25f,    -1.6875f, -0.75f,   -1.5625f, 1.75f,    -1.4375f, 1.875f,
         -0.5f,    1.5f,     -1.5f,    0.375f,   -1.8125f, 0.0625f,  -2.1875f, 2.0625f,  0.625f,   1.625f,   0.1875f,
         2.25f,    -1.6875f, -0.75f,   -1.4375f, -0.5f,    -1.4375f, 1.875f,   -0.5f,    2.0f,     -0.375f},
        testing::kHalfTolerance, true);
  }
}

TEST(MatMulTest, DoubleAndOldOpsets) {
  const Tensor a = Tensor::FromVector<double>({2, 2}, {1.0, 2.0, 3.0, 4.0});
  const Tensor b = Tensor::FromVector<double>({2, 1}, {0.5, -1.0});
  for (int opset : {1, 9, 21}) {
    const Tensor y = RunMatMul(a, b, opset);
    ASSERT_EQ(y.shape(), (Shape{2, 1}));
    EXPECT_EQ(testing::ToVector<double>(y), (std::vector<double>{-1.5, -2.5}));  // 0.5 - 2, 1.5 - 4
  }
}

TEST(MatMulTest, IntegersWrapAround) {
  const Tensor a = Tensor::FromVector<int32_t>({1, 2}, {2147483647, 2});
  const Tensor b = Tensor::FromVector<int32_t>({2, 2}, {1, 3, 1, -1});
  const Tensor y = RunMatMul(a, b);
  // [2^31 - 1 + 2, 3 * (2^31 - 1) - 2] = [2^31 + 1, 3 * 2^31 - 5], modulo 2^32 as int32.
  EXPECT_EQ(testing::ToVector<int32_t>(y), (std::vector<int32_t>{-2147483647, 2147483643}));
  const Tensor y64 = RunMatMul(Tensor::FromVector<int64_t>({2}, {3, 4}), Tensor::FromVector<int64_t>({2}, {5, 6}));
  EXPECT_EQ(testing::ToVector<int64_t>(y64), (std::vector<int64_t>{39}));
}

TEST(MatMulTest, MismatchedInnerDimensionsAreAnInputError) {
  const std::string message = testing::InputErrorOf([] {
    RunMatMul(PatternTensor({2, 3}, 0), PatternTensor({4, 5}, 1));
  });
  EXPECT_NE(message.find("inner dimensions"), std::string::npos) << message;
  EXPECT_NE(testing::InputErrorOf([] { RunMatMul(PatternTensor({2, 2, 3}, 0), PatternTensor({3, 3, 5}, 1)); }), "");
  EXPECT_NE(testing::InputErrorOf([] {
              RunMatMul(PatternTensor({2, 3}, 0), Tensor::FromVector<double>({3}, {1, 2, 3}));
            }),
            "");
}

TEST(MatMulTest, EmptyInnerDimensionGivesZeros) {
  ExpectValues(RunMatMul(Tensor(DataType::kFloat, {2, 0}), Tensor(DataType::kFloat, {0, 3})), {2, 3},
               {0, 0, 0, 0, 0, 0});
}

}  // namespace
}  // namespace ptq
