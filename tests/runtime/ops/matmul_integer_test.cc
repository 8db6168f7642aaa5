// Tests of the MatMulInteger kernel and the shared integer matmul reference: ONNX's example,
// per-row and per-column zero points, 1-D operands, omitted zero points, int32 wraparound, errors.
// Expected values come from the ONNX backend test data, from hand computation, or from numpy
// (matmul(a - a_zp, b - b_zp) in int64, which does not overflow for these inputs).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/kernels/int8_gemm/int_matmul_reference.h"
#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::RunOp;
using testing::ToVector;

Tensor U8(Shape shape, const std::vector<uint8_t>& v) { return Tensor::FromVector<uint8_t>(std::move(shape), v); }
Tensor I8(Shape shape, const std::vector<int8_t>& v) { return Tensor::FromVector<int8_t>(std::move(shape), v); }

Tensor MatMulInteger(const std::vector<Tensor>& inputs) { return RunOp("MatMulInteger", 10, {}, inputs)[0]; }

template <class F>
void ExpectInputError(F f, const std::string& needle) {
  try {
    f();
    FAIL() << "expected an input error containing \"" << needle << "\"";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInput);
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// test_matmulinteger of the ONNX backend tests.
TEST(MatMulInteger, OnnxExample) {
  const Tensor y = MatMulInteger({U8({4, 3}, {11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0}), U8({3, 2}, {1, 4, 2, 5, 3, 6}),
                                  U8({1}, {12}), U8({1}, {0})});
  EXPECT_EQ(y.dtype(), DataType::kInt32);
  EXPECT_EQ(y.shape(), (Shape{4, 2}));
  EXPECT_EQ(ToVector<int32_t>(y), (std::vector<int32_t>{-38, -83, -44, -98, -50, -113, -56, -128}));
}

TEST(MatMulInteger, PerRowAZeroPointAndPerColumnBZeroPoint) {
  const Tensor y = MatMulInteger({U8({3, 4}, {96, 226, 248, 164, 149, 145, 15, 96, 251, 105, 54, 61}),
                                  I8({4, 2}, {54, -119, 120, 96, 17, -9, 66, 12}), U8({3}, {10, 200, 128}),
                                  I8({2}, {-3, 4})});
  EXPECT_EQ(ToVector<int32_t>(y), (std::vector<int32_t>{46856, 7432, -20548, 2786, -1921, -16819}));
}

TEST(MatMulInteger, ZeroPointsVaryPerBatchMatrix) {
  const Tensor y = MatMulInteger({I8({2, 2, 3}, {-6, -46, -14, 64, -114, -122, 56, -33, 77, -121, 104, -97}),
                                  I8({2, 3, 2}, {-22, 119, -101, 40, 58, -19, -108, 6, -18, 95, 46, -40}),
                                  I8({2, 2, 1}, {1, -1, 5, 0}), I8({2, 1, 2}, {2, -2, 0, 9})});
  EXPECT_EQ(y.shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(ToVector<int32_t>(y), (std::vector<int32_t>{4169, -2566, 3303, 5176, -1512, -6949, 6734, 14060}));
}

TEST(MatMulInteger, Int8TimesUint8WithoutZeroPointsAnd1DB) {
  const Tensor y = MatMulInteger({I8({2, 3}, {-114, 23, -57, 47, 93, -38}), U8({3}, {231, 132, 135})});
  EXPECT_EQ(y.shape(), (Shape{2}));
  EXPECT_EQ(ToVector<int32_t>(y), (std::vector<int32_t>{-30993, 18003}));
}

TEST(MatMulInteger, OmittedAZeroPointWithBZeroPointGiven) {
  // a = [[1, 2]], b = [[3], [4]] - 5 = [[-2], [-1]]: 1 * -2 + 2 * -1 = -4.
  const Tensor y = MatMulInteger({U8({1, 2}, {1, 2}), U8({2, 1}, {3, 4}), Tensor(), U8({}, {5})});
  EXPECT_EQ(ToVector<int32_t>(y), (std::vector<int32_t>{-4}));
}

TEST(MatMulInteger, OneDimensionalTimesOneDimensionalIsAScalar) {
  // (1 - 1) * 4 + (2 - 1) * 5 + (3 - 1) * 6 = 17
  const Tensor y = MatMulInteger({U8({3}, {1, 2, 3}), U8({3}, {4, 5, 6}), U8({}, {1})});
  EXPECT_EQ(y.shape(), Shape{});
  EXPECT_EQ(ToVector<int32_t>(y), (std::vector<int32_t>{17}));
}

TEST(MatMulInteger, AccumulationWrapsAt32Bits) {
  // 33100 products of 255 * 255 = 65025 sum to 2152327500 > 2^31 - 1; int32 wraps to -2142639796.
  const int64_t k = 33100;
  const Tensor y = MatMulInteger({U8({1, k}, std::vector<uint8_t>(k, 255)), U8({k, 1}, std::vector<uint8_t>(k, 255))});
  EXPECT_EQ(ToVector<int32_t>(y), (std::vector<int32_t>{-2142639796}));
}

TEST(MatMulInteger, EmptyInnerDimensionGivesZeros) {
  const Tensor y = MatMulInteger({U8({2, 0}, {}), U8({0, 3}, {})});
  EXPECT_EQ(y.shape(), (Shape{2, 3}));
  EXPECT_EQ(ToVector<int32_t>(y), (std::vector<int32_t>(6, 0)));
}

TEST(MatMulInteger, RejectsMismatchedInnerDimension) {
  ExpectInputError([] { MatMulInteger({U8({2, 3}, {1, 2, 3, 4, 5, 6}), U8({2, 1}, {1, 2})}); },
                   "inner dimensions differ: A has shape [2, 3] (K = 3) but B has shape [2, 1] (K = 2)");
}

TEST(MatMulInteger, RejectsZeroPointOfOtherType) {
  ExpectInputError([] { MatMulInteger({U8({1, 1}, {1}), I8({1, 1}, {1}), Tensor(), U8({}, {0})}); },
                   "b_zero_point has type uint8 but B has type int8");
}

TEST(MatMulInteger, RejectsPerRowZeroPointOfWrongLength) {
  ExpectInputError([] { MatMulInteger({U8({2, 1}, {1, 2}), U8({1, 1}, {1}), U8({3}, {0, 0, 0})}); },
                   "a_zero_point has shape [3]");
}

TEST(MatMulInteger, RejectsZeroPointOfHigherRankThanItsMatrix) {
  ExpectInputError([] { MatMulInteger({U8({1, 1}, {1}), U8({1, 2}, {1, 2}), Tensor(), U8({1, 1, 2}, {0, 0})}); },
                   "b_zero_point has shape [1, 1, 2]");
}

TEST(MatMulInteger, RejectsScalarOperand) {
  ExpectInputError([] { MatMulInteger({U8({}, {1}), U8({1}, {1})}); }, "A must have rank >= 1");
}

TEST(MatMulInteger, RejectsNonQuantizedType) {
  ExpectInputError([] { MatMulInteger({Tensor::FromVector<float>({1, 1}, {1.0f}), U8({1, 1}, {1})}); },
                   "A must be uint8 or int8");
}

// The reference kernel on its own: zero points given per row / per column as plain arrays.
TEST(IntGemmReference, SubtractsPerRowAndPerColumnZeroPoints) {
  // a - a_zp = [[1 - 1, 2 - 1], [3 - 2, 4 - 2]] = [[0, 1], [1, 2]]
  // b - b_zp = [[5 - 5, 6 - 0], [7 - 5, 8 - 0]] = [[0, 6], [2, 8]]
  // product = [[2, 8], [4, 22]]
  const uint8_t a[] = {1, 2, 3, 4};
  const int8_t b[] = {5, 6, 7, 8};
  const int32_t a_zp[] = {1, 2};
  const int32_t b_zp[] = {5, 0};
  int32_t c[4] = {};
  IntGemmReference<uint8_t, int8_t>(2, 2, 2, a, a_zp, b, b_zp, c);
  EXPECT_EQ(std::vector<int32_t>(c, c + 4), (std::vector<int32_t>{2, 8, 4, 22}));
}

TEST(ComputeMatMulShape, BroadcastsBatchAxesAndMapsOutputMatricesToInputs) {
  const MatMulShape s = ComputeMatMulShape({2, 1, 4, 5}, {3, 5, 6}, "a", "b");
  EXPECT_EQ(s.output, (Shape{2, 3, 4, 6}));
  EXPECT_EQ(s.M, 4);
  EXPECT_EQ(s.K, 5);
  EXPECT_EQ(s.N, 6);
  EXPECT_EQ(s.a_matrices, 2);
  EXPECT_EQ(s.b_matrices, 3);
  EXPECT_EQ(s.a_of, (std::vector<int64_t>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(s.b_of, (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
}

}  // namespace
}  // namespace ptq
