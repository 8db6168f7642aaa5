// Tests of the activation family (Elu, Selu, Celu, ThresholdedRelu, Shrink, Softsign) and the unary
// math family (Tan ... Atanh) against their formulas in double, within the named float tolerance;
// Shrink on integers; float16 through the float path; attribute errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "tests/error_of.h"
#include "tests/runtime/ops/elementwise_test_util.h"

namespace ptq {
namespace {

using testing::ErrorOf;
using testing::FloatAttr;
using testing::Floats;
using testing::kFloatTol;
using testing::RunOne;
using testing::ToVector;

const std::vector<float> kX = {-3.0f, -0.5f, -0.0f, 0.25f, 0.5f, 2.0f};

void ExpectMatches(const std::string& op, int opset, const Attributes& attrs, const std::function<double(double)>& f,
                   const std::vector<float>& x = kX) {
  const std::vector<float> y = ToVector<float>(RunOne(op, opset, {Floats({static_cast<int64_t>(x.size())}, x)}, attrs));
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = f(x[i]);
    EXPECT_NEAR(y[i], want, 1e-7 + kFloatTol * std::fabs(want)) << op << " at x = " << x[i];
  }
}

TEST(ActivationOps, MatchTheirFormulas) {
  Attributes elu;
  elu.Set("alpha", FloatAttr(2.0f));
  ExpectMatches("Elu", 6, elu, [](double x) { return x < 0 ? 2.0 * (std::exp(x) - 1) : x; });
  const double a = 1.67326319217681884765625, g = 1.05070102214813232421875;
  ExpectMatches("Selu", 6, Attributes(), [&](double x) { return x > 0 ? g * x : g * (a * std::exp(x) - a); });
  Attributes celu;
  celu.Set("alpha", FloatAttr(0.5f));
  ExpectMatches("Celu", 12, celu,
                [](double x) { return std::max(0.0, x) + std::min(0.0, 0.5 * (std::exp(x / 0.5) - 1)); });
  Attributes thr;
  thr.Set("alpha", FloatAttr(0.25f));
  ExpectMatches("ThresholdedRelu", 10, thr, [](double x) { return x > 0.25 ? x : 0.0; });
  Attributes shrink;
  shrink.Set("lambd", FloatAttr(0.5f));
  shrink.Set("bias", FloatAttr(0.25f));
  ExpectMatches("Shrink", 9, shrink, [](double x) { return x < -0.5 ? x + 0.25 : (x > 0.5 ? x - 0.25 : 0.0); });
  ExpectMatches("Softsign", 1, Attributes(), [](double x) { return x / (1 + std::fabs(x)); });
}

TEST(ActivationOps, ShrinkOnIntegersTruncatesAndSaturates) {
  Attributes shrink;
  shrink.Set("lambd", FloatAttr(1.5f));
  shrink.Set("bias", FloatAttr(0.5f));
  const Tensor y = RunOne("Shrink", 9, {Tensor::FromVector<int8_t>({5}, {-128, -2, 1, 2, 127})}, shrink);
  EXPECT_EQ(ToVector<int8_t>(y), (std::vector<int8_t>{-127, -1, 0, 1, 126}));
}

TEST(ActivationOps, CeluAlphaZeroIsRefused) {
  Attributes celu;
  celu.Set("alpha", FloatAttr(0.0f));
  EXPECT_NE(ErrorOf([&] { RunOne("Celu", 12, {Floats({1}, {1})}, celu); }).find("'alpha' must not be 0"),
            std::string::npos);
}

TEST(UnaryMathOps, MatchCmathInDouble) {
  const std::vector<float> unit = {-0.9f, -0.5f, 0.0f, 0.3f, 0.75f};
  ExpectMatches("Tan", 7, Attributes(), [](double x) { return std::tan(x); });
  ExpectMatches("Atan", 7, Attributes(), [](double x) { return std::atan(x); });
  ExpectMatches(
      "Asin", 7, Attributes(), [](double x) { return std::asin(x); }, unit);
  ExpectMatches(
      "Acos", 7, Attributes(), [](double x) { return std::acos(x); }, unit);
  ExpectMatches("Sinh", 9, Attributes(), [](double x) { return std::sinh(x); });
  ExpectMatches("Cosh", 9, Attributes(), [](double x) { return std::cosh(x); });
  ExpectMatches("Asinh", 9, Attributes(), [](double x) { return std::asinh(x); });
  ExpectMatches("Acosh", 9, Attributes(), [](double x) { return std::acosh(x); }, {1.0f, 1.5f, 10.0f});
  ExpectMatches(
      "Atanh", 9, Attributes(), [](double x) { return std::atanh(x); }, unit);
}

TEST(UnaryMathOps, OutsideTheDomainIsNaNAndIntegersAreRefused) {
  const std::vector<float> y = ToVector<float>(RunOne("Asin", 7, {Floats({1}, {2.0f})}));
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_NE(
      ErrorOf([&] { RunOne("Tan", 7, {Tensor::FromVector<int32_t>({1}, {1})}); }).find("input 'X' has type int32"),
      std::string::npos);
}

TEST(UnaryMathOps, Float16ComputesInFloat) {
  const Tensor x = Tensor::FromVector<float>({1}, {0.5f});
  const Tensor h = RunOne("Cast", 13, {x}, [] {
    Attributes a;
    a.Set("to", testing::IntAttr(static_cast<int64_t>(DataType::kFloat16)));
    return a;
  }());
  const Tensor y = RunOne("Sinh", 13, {h});
  ASSERT_EQ(y.dtype(), DataType::kFloat16);
  EXPECT_NEAR(y.ToFloatVector()[0], std::sinh(0.5), 1e-3);  // float16 keeps 11 significant bits
}

}  // namespace
}  // namespace ptq
