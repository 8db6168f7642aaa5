// Tests of the vectorised float32 Exp, Tanh, Sigmoid and Erf kernels against the C library.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "runtime/kernels/vector/vector_math.h"
#include "tests/runtime/ops/elementwise_test_util.h"

namespace ptq {
namespace {

using testing::Floats;
using testing::Iota;
using testing::RunOne;
using testing::ToVector;
using testing::kFloatTol;

// Checks a vectorised float32 kernel against the double-precision C library on a dense grid.
void ExpectCloseToLibm(const std::string& op, double (*ref)(double), float lo, float hi) {
  const int n = 20001;
  const std::vector<float> xs = Iota(n, lo, (hi - lo) / (n - 1));
  const std::vector<float> ys = ToVector<float>(RunOne(op, 13, {Floats({n}, xs)}));
  for (int i = 0; i < n; ++i) {
    const double r = ref(xs[static_cast<size_t>(i)]);
    ASSERT_NEAR(ys[static_cast<size_t>(i)], r, 1e-30 + kFloatTol * std::fabs(r)) << op << "(" << xs[static_cast<size_t>(i)] << ")";
  }
}

TEST(ElementwiseVectorMathTest, ExpTanhSigmoidErfMatchLibm) {
  ExpectCloseToLibm("Exp", [](double v) { return std::exp(v); }, -87.0f, 88.0f);
  ExpectCloseToLibm("Tanh", [](double v) { return std::tanh(v); }, -10.0f, 10.0f);
  ExpectCloseToLibm("Sigmoid", [](double v) { return 1.0 / (1.0 + std::exp(-v)); }, -80.0f, 80.0f);
  ExpectCloseToLibm("Erf", [](double v) { return std::erf(v); }, -5.0f, 5.0f);
}

// Every vector width of the maps (AVX-512, AVX2, this file's baseline scalar code) computes the same
// operations, so the kernels give the bits of VecExp & co. evaluated one value at a time here.
TEST(ElementwiseVectorMathTest, VectorClonesGiveTheScalarBits) {
  const int n = 4099;  // vector blocks and a tail
  const std::vector<float> xs = Iota(n, -9.0f, 18.0f / n);
  const Tensor x = Floats({n}, xs);
  const std::vector<float> exp = ToVector<float>(RunOne("Exp", 13, {x}));
  const std::vector<float> sigmoid = ToVector<float>(RunOne("Sigmoid", 13, {x}));
  const std::vector<float> tanh = ToVector<float>(RunOne("Tanh", 13, {x}));
  const std::vector<float> silu = ToVector<float>(testing::RunOp("Silu", 1, {}, {x}, 1, false, "ptq.fused")[0]);
  for (int i = 0; i < n; ++i) {
    const float v = xs[static_cast<size_t>(i)];
    ASSERT_EQ(exp[static_cast<size_t>(i)], VecExp(v)) << v;
    ASSERT_EQ(sigmoid[static_cast<size_t>(i)], VecSigmoid(v)) << v;
    ASSERT_EQ(tanh[static_cast<size_t>(i)], VecTanh(v)) << v;
    ASSERT_EQ(silu[static_cast<size_t>(i)], v * VecSigmoid(v)) << v;
  }
}

TEST(ElementwiseVectorMathTest, SpecialValues) {
  const Tensor x = Floats({4}, {-INFINITY, INFINITY, NAN, 0.0f});
  const std::vector<float> e = ToVector<float>(RunOne("Exp", 13, {x}));
  EXPECT_EQ(e[0], 0.0f);
  EXPECT_EQ(e[1], INFINITY);
  EXPECT_TRUE(std::isnan(e[2]));
  EXPECT_EQ(e[3], 1.0f);
  const std::vector<float> t = ToVector<float>(RunOne("Tanh", 13, {x}));
  EXPECT_EQ(t[0], -1.0f);
  EXPECT_EQ(t[1], 1.0f);
  EXPECT_TRUE(std::isnan(t[2]));
  const std::vector<float> s = ToVector<float>(RunOne("Sigmoid", 13, {x}));
  EXPECT_EQ(s[0], 0.0f);
  EXPECT_EQ(s[1], 1.0f);
  EXPECT_EQ(s[3], 0.5f);
  const std::vector<float> r = ToVector<float>(RunOne("Erf", 13, {x}));
  EXPECT_EQ(r[0], -1.0f);
  EXPECT_EQ(r[1], 1.0f);
  EXPECT_TRUE(std::isnan(r[2]));
  EXPECT_EQ(r[3], 0.0f);
}

}  // namespace
}  // namespace ptq
