// Tests of Gemm: every transA/transB combination with C absent, scalar, row, column and full, alpha
// and beta; float16; old-opset broadcast; errors. Expected values: numpy 0.5 * A' @ B' - 1.5 * C on
// Pattern() inputs (A salt 0, B salt 1, C salt 2; M = 3, K = 4, N = 5).
#include "runtime/ops/math/gemm.h"

#include <gtest/gtest.h>

#include <cstring>

#include "tests/runtime/ops/nn_test_util.h"

namespace ptq {
namespace {

using testing::ExpectValues;
using testing::FloatAttr;
using testing::IntAttr;
using testing::PatternTensor;

struct GemmCase {
  int trans_a;
  int trans_b;
  Shape c_shape;  // {-1} for no C
  std::vector<float> expected;
};

Attributes GemmAttrs(int trans_a, int trans_b) {
  Attributes a;
  a.Set("transA", IntAttr(trans_a));
  a.Set("transB", IntAttr(trans_b));
  a.Set("alpha", FloatAttr(0.5f));
  a.Set("beta", FloatAttr(-1.5f));
  return a;
}

std::vector<Tensor> GemmInputs(const GemmCase& c) {
  std::vector<Tensor> in{PatternTensor(c.trans_a ? Shape{4, 3} : Shape{3, 4}, 0),
                         PatternTensor(c.trans_b ? Shape{5, 4} : Shape{4, 5}, 1)};
  if (c.c_shape != Shape{-1}) in.push_back(PatternTensor(c.c_shape, 2));
  return in;
}

const std::vector<GemmCase>& Cases() {
  static const std::vector<GemmCase> cases{
      {0,
       0,
       {-1},
       {-0.59375f, -1.125f, -0.84375f, 1.0625f, -1.09375f, -0.71875f, -1.125f, -0.71875f, 0.5f, -0.71875f, -0.84375f,
        -1.125f, -0.59375f, -0.0625f, -0.34375f}},
      {0,
       0,
       {},
       {-2.09375f, -2.625f, -2.34375f, -0.4375f, -2.59375f, -2.21875f, -2.625f, -2.21875f, -1.0f, -2.21875f, -2.34375f,
        -2.625f, -2.09375f, -1.5625f, -1.84375f}},
      {0,
       0,
       {5},
       {-2.09375f, -0.375f, -2.71875f, 1.4375f, -3.34375f, -2.21875f, -0.375f, -2.59375f, 0.875f, -2.96875f, -2.34375f,
        -0.375f, -2.46875f, 0.3125f, -2.59375f}},
      {0,
       0,
       {3, 1},
       {-2.09375f, -2.625f, -2.34375f, -0.4375f, -2.59375f, 0.03125f, -0.375f, 0.03125f, 1.25f, 0.03125f, -2.71875f,
        -3.0f, -2.46875f, -1.9375f, -2.21875f}},
      {0,
       0,
       {3, 5},
       {-2.09375f, -0.375f, -2.71875f, 1.4375f, -3.34375f, -0.71875f, 1.125f, -1.09375f, 2.375f, -1.46875f, 0.65625f,
        -2.25f, 0.53125f, -1.5625f, 0.40625f}},
      {0,
       1,
       {-1},
       {0.0f, -0.90625f, -1.40625f, -1.90625f, 2.0625f, -0.0625f, -1.28125f, -1.28125f, -1.28125f, 1.5625f, -0.125f,
        -1.65625f, -1.15625f, -0.65625f, 1.0625f}},
      {0,
       1,
       {},
       {-1.5f, -2.40625f, -2.90625f, -3.40625f, 0.5625f, -1.5625f, -2.78125f, -2.78125f, -2.78125f, 0.0625f, -1.625f,
        -3.15625f, -2.65625f, -2.15625f, -0.4375f}},
      {0,
       1,
       {1, 5},
       {-1.5f, -0.15625f, -3.28125f, -1.53125f, -0.1875f, -1.5625f, -0.53125f, -3.15625f, -0.90625f, -0.6875f, -1.625f,
        -0.90625f, -3.03125f, -0.28125f, -1.1875f}},
      {0,
       1,
       {3, 1},
       {-1.5f, -2.40625f, -2.90625f, -3.40625f, 0.5625f, 0.6875f, -0.53125f, -0.53125f, -0.53125f, 2.3125f, -2.0f,
        -3.53125f, -3.03125f, -2.53125f, -0.8125f}},
      {0,
       1,
       {3, 5},
       {-1.5f, -0.15625f, -3.28125f, -1.53125f, -0.1875f, -0.0625f, 0.96875f, -1.65625f, 0.59375f, 0.8125f, 1.375f,
        -2.78125f, -0.03125f, -2.15625f, 1.8125f}},
      {1,
       0,
       {-1},
       {-0.5f, -1.75f, -0.5625f, 0.625f, -0.625f, 1.09375f, -0.125f, 1.09375f, -0.53125f, 1.09375f, -0.5625f, -1.75f,
        -0.5f, 0.34375f, -0.4375f}},
      {1,
       0,
       {},
       {-2.0f, -3.25f, -2.0625f, -0.875f, -2.125f, -0.40625f, -1.625f, -0.40625f, -2.03125f, -0.40625f, -2.0625f,
        -3.25f, -2.0f, -1.15625f, -1.9375f}},
      {1,
       0,
       {5},
       {-2.0f, -1.0f, -2.4375f, 1.0f, -2.875f, -0.40625f, 0.625f, -0.78125f, -0.15625f, -1.15625f, -2.0625f, -1.0f,
        -2.375f, 0.71875f, -2.6875f}},
      {1,
       0,
       {3, 1},
       {-2.0f, -3.25f, -2.0625f, -0.875f, -2.125f, 1.84375f, 0.625f, 1.84375f, 0.21875f, 1.84375f, -2.4375f, -3.625f,
        -2.375f, -1.53125f, -2.3125f}},
      {1,
       0,
       {3, 5},
       {-2.0f, -1.0f, -2.4375f, 1.0f, -2.875f, 1.09375f, 2.125f, 0.71875f, 1.34375f, 0.34375f, 0.9375f, -2.875f, 0.625f,
        -1.15625f, 0.3125f}},
      {1,
       1,
       {-1},
       {-0.375f, -1.3125f, -1.4375f, -1.5625f, 1.96875f, -0.59375f, 1.03125f, 1.03125f, 1.03125f, -1.0f, -0.40625f,
        -1.5f, -1.375f, -1.25f, 1.71875f}},
      {1,
       1,
       {},
       {-1.875f, -2.8125f, -2.9375f, -3.0625f, 0.46875f, -2.09375f, -0.46875f, -0.46875f, -0.46875f, -2.5f, -1.90625f,
        -3.0f, -2.875f, -2.75f, 0.21875f}},
      {1,
       1,
       {5},
       {-1.875f, -0.5625f, -3.3125f, -1.1875f, -0.28125f, -2.09375f, 1.78125f, -0.84375f, 1.40625f, -3.25f, -1.90625f,
        -0.75f, -3.25f, -0.875f, -0.53125f}},
      {1,
       1,
       {3, 1},
       {-1.875f, -2.8125f, -2.9375f, -3.0625f, 0.46875f, 0.15625f, 1.78125f, 1.78125f, 1.78125f, -0.25f, -2.28125f,
        -3.375f, -3.25f, -3.125f, -0.15625f}},
      {1,
       1,
       {3, 5},
       {-1.875f, -0.5625f, -3.3125f, -1.1875f, -0.28125f, -0.59375f, 3.28125f, 0.65625f, 2.90625f, -1.75f, 1.09375f,
        -2.625f, -0.25f, -2.75f, 2.46875f}},
  };
  return cases;
}

TEST(GemmTest, EveryTransposeAndBiasShapeWithAlphaBeta) {
  for (const GemmCase& c : Cases()) {
    SCOPED_TRACE(StrCat("transA ", c.trans_a, " transB ", c.trans_b, " C ", ShapeToString(c.c_shape)));
    for (bool constant : {false, true}) {
      const Tensor y = testing::RunOp("Gemm", 13, GemmAttrs(c.trans_a, c.trans_b), GemmInputs(c), 1, constant)[0];
      ExpectValues(y, {3, 5}, c.expected);
    }
  }
}

TEST(GemmTest, ConstantWeightsPackedOnceGiveTheBitsOfPackingOnEveryRun) {
  // A classifier head: B [N, K] with transB, constant (packed once when the kernel is made) or not.
  Attributes attrs;
  attrs.Set("transB", IntAttr(1));
  for (int64_t M : {1, 3, 9}) {
    const std::vector<Tensor> in{PatternTensor({M, 300}, 3), PatternTensor({70, 300}, 4), PatternTensor({70}, 5)};
    const Tensor packed = testing::RunOp("Gemm", 13, attrs, in, 1, false)[0];
    const Tensor transposed = testing::RunOp("Gemm", 13, attrs, in, 1, true)[0];
    ASSERT_EQ(transposed.shape(), (Shape{M, 70}));
    EXPECT_EQ(0, std::memcmp(packed.raw(), transposed.raw(), packed.nbytes())) << "M = " << M;
  }
}

TEST(GemmTest, Float16ComputesInFloat32) {
  for (const GemmCase& c : Cases()) {
    std::vector<Tensor> in = GemmInputs(c);
    for (Tensor& t : in) t = testing::ToHalf(t);
    const Tensor y = testing::RunOp("Gemm", 13, GemmAttrs(c.trans_a, c.trans_b), in, 1, true)[0];
    ExpectValues(y, {3, 5}, c.expected, testing::kHalfTolerance, true);
  }
}

TEST(GemmTest, OldOpsetBroadcastAttributeIsAccepted) {
  const GemmCase& c = Cases()[2];  // row C
  Attributes a = GemmAttrs(0, 0);
  a.Set("broadcast", IntAttr(1));
  ExpectValues(testing::RunOp("Gemm", 6, a, GemmInputs(c))[0], {3, 5}, c.expected);
}

TEST(GemmTest, DefaultsAreAlphaOneBetaOne) {
  const Tensor a = Tensor::FromVector<float>({1, 2}, {1, 2});
  const Tensor b = Tensor::FromVector<float>({2, 2}, {3, 4, 5, 6});
  const Tensor c = Tensor::FromVector<float>({2}, {10, 20});
  ExpectValues(testing::RunOp("Gemm", 11, Attributes(), {a, b, c})[0], {1, 2}, {23, 36});  // 3+10+10, 4+12+20
}

TEST(GemmTest, BadShapesAreInputErrors) {
  const Tensor a = PatternTensor({3, 4}, 0);
  EXPECT_NE(testing::InputErrorOf([&] {
              testing::RunOp("Gemm", 13, Attributes(), {a, PatternTensor({5, 4}, 1)});
            }),
            "");
  EXPECT_NE(testing::InputErrorOf([&] {
              testing::RunOp("Gemm", 13, Attributes(), {a, PatternTensor({4, 5}, 1), PatternTensor({2, 5}, 2)});
            }),
            "");
  EXPECT_NE(testing::InputErrorOf([&] { testing::RunOp("Gemm", 13, Attributes(), {PatternTensor({3}, 0), a}); }), "");
}

}  // namespace
}  // namespace ptq
