// Tests of Einsum: the matmul-like forms exporters emit, transposes, sums, diagonals, ellipses,
// implicit outputs, three operands, float16, double and errors. Expected values: numpy.einsum on
// Pattern() inputs (input k gets salt k).
#include "runtime/ops/math/einsum.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "tests/runtime/ops/nn_test_util.h"

namespace ptq {
namespace {

using testing::ExpectValues;
using testing::PatternTensor;
using testing::StringAttr;

Tensor RunEinsum(const std::string& equation, const std::vector<Tensor>& inputs) {
  Attributes a;
  a.Set("equation", StringAttr(equation));
  return testing::RunOp("Einsum", 12, a, inputs)[0];
}

std::vector<Tensor> Inputs(const std::vector<Shape>& shapes) {
  std::vector<Tensor> in;
  for (size_t k = 0; k < shapes.size(); ++k) in.push_back(PatternTensor(shapes[k], static_cast<int>(k)));
  return in;
}

struct EinsumCase {
  std::string equation;
  std::vector<Shape> shapes;
  Shape out_shape;
  std::vector<float> expected;
};

const std::vector<EinsumCase>& Cases() {
  static const std::vector<EinsumCase> cases{
      {"bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}, {2, 3, 5}, {-1.1875f, -2.25f,   -1.6875f, 2.125f,   -2.1875f, -1.4375f,
                                                           -2.25f,   -1.4375f, 1.0f,     -1.4375f, -1.6875f, -2.25f,
                                                           -1.1875f, -0.125f,  -0.6875f, -0.875f,  -1.1875f, -1.5f,
                                                           -1.8125f, 2.75f,    -1.0f,    -1.0625f, -1.125f,  -1.1875f,
                                                           2.0f,     -1.125f,  -0.9375f, -0.75f,   -0.5625f, 1.25f}},
      {"bhqd,bhkd->bhqk",
       {{2, 3, 4, 5}, {2, 3, 6, 5}},
       {2, 3, 4, 6},
       {-0.25f,  4.375f,   -4.8125f, -1.8125f, 3.625f,   -2.3125f, -0.25f,   -3.625f,  4.375f,   2.625f,   -3.1875f,
        0.75f,   4.625f,   -0.25f,   -0.25f,   -0.25f,   -0.25f,   -1.0625f, -0.25f,   3.9375f,  -4.0625f, -2.3125f,
        3.5f,    -2.0625f, 2.875f,   -2.5625f, -2.3125f, 3.625f,   -1.8125f, -4.8125f, 3.625f,   -3.3125f, -1.3125f,
        3.125f,  -3.8125f, -1.8125f, -2.9375f, 3.25f,    0.5f,     -3.0625f, 3.125f,   3.625f,   0.25f,    -1.5625f,
        1.5f,    0.5f,     -1.3125f, -2.3125f, 3.0625f,  -0.25f,   -2.75f,   2.875f,   3.625f,   -2.9375f, -2.75f,
        -0.25f,  3.0625f,  -2.5625f, -3.3125f, 3.25f,    -2.0625f, -1.0625f, 0.75f,    -2.3125f, -1.3125f, 0.5f,
        3.5f,    -0.25f,   -3.1875f, 3.625f,   3.125f,   -3.0625f, -1.3125f, -3.3125f, 3.625f,   0.0f,     -2.8125f,
        4.125f,  -2.3125f, -2.5625f, 2.875f,   1.0f,     -3.3125f, 2.125f,   0.75f,    3.0625f,  -2.75f,   -2.0625f,
        3.5f,    -2.3125f, -1.0625f, -0.25f,   -0.25f,   -1.0625f, -0.25f,   -0.25f,   4.375f,   -3.625f,  -0.25f,
        3.9375f, -4.0625f, -2.3125f, -4.8125f, 4.375f,   -0.25f,   -4.0625f, 5.125f,   2.125f,   -1.8125f, 2.625f,
        -0.25f,  -2.3125f, 2.125f,   4.125f,   3.625f,   -3.1875f, -0.25f,   3.5f,     -3.3125f, -2.8125f, -1.8125f,
        6.125f,  0.25f,    -1.5625f, 1.5f,     0.5f,     -2.9375f, 0.25f,    3.4375f,  -3.125f,  -1.5625f, 3.25f,
        3.25f,   -1.5625f, -3.125f,  3.4375f,  0.25f,    -2.9375f, 0.5f,     1.5f,     -1.5625f, 0.25f,    6.125f,
        -1.8125f}},
      {"ij,jk->ik",
       {{3, 4}, {4, 5}},
       {3, 5},
       {-1.1875f, -2.25f, -1.6875f, 2.125f, -2.1875f, -1.4375f, -2.25f, -1.4375f, 1.0f, -1.4375f, -1.6875f, -2.25f,
        -1.1875f, -0.125f, -0.6875f}},
      {"bid,jd->bij", {{2, 3, 4}, {5, 4}}, {2, 3, 5}, {0.0f,     -1.8125f, -2.8125f, -3.8125f, 4.125f, -0.125f,
                                                       -2.5625f, -2.5625f, -2.5625f, 3.125f,   -0.25f, -3.3125f,
                                                       -2.3125f, -1.3125f, 2.125f,   -0.375f,  3.25f,  2.0f,
                                                       0.75f,    -1.3125f, -0.5f,    2.5f,     2.25f,  2.0f,
                                                       -2.3125f, -0.625f,  1.75f,    2.5f,     3.25f,  -3.3125f}},
      {"ij->ji",
       {{3, 4}},
       {4, 3},
       {-1.5f, -1.0f, -0.5f, 0.25f, 0.75f, 1.25f, -1.25f, -0.75f, -0.25f, 0.5f, 1.0f, 1.5f}},
      {"bhqk,bhkd->bhqd",
       {{2, 2, 3, 4}, {2, 2, 4, 5}},
       {2, 2, 3, 5},
       {-1.1875f, -2.25f,   -1.6875f, 2.125f,   -2.1875f, -1.4375f, -2.25f,   -1.4375f, 1.0f,     -1.4375f,
        -1.6875f, -2.25f,   -1.1875f, -0.125f,  -0.6875f, -0.875f,  -1.1875f, -1.5f,    -1.8125f, 2.75f,
        -1.0f,    -1.0625f, -1.125f,  -1.1875f, 2.0f,     -1.125f,  -0.9375f, -0.75f,   -0.5625f, 1.25f,
        2.625f,   -1.8125f, -2.1875f, -1.75f,   -2.125f,  -2.25f,   -1.5625f, 1.5625f,  -1.8125f, 1.3125f,
        -2.25f,   -1.3125f, 0.4375f,  -1.0625f, 0.6875f,  -2.0625f, 3.1875f,  -2.125f,  -1.75f,   -2.1875f,
        -1.125f,  -1.3125f, -1.5f,    2.375f,   -1.875f,  -1.0f,    -0.9375f, -0.875f,  1.625f,   -0.75f}},
      {"ij->i", {{3, 4}}, {3}, {-2.0f, 0.0f, 2.0f}},
      {"i,i", {{5}, {5}}, {}, {-0.25f}},
      {"ii->i", {{4, 4}}, {4}, {-1.5f, 0.75f, -0.25f, -1.25f}},
      {"...ii->...i", {{2, 3, 4, 4}}, {2, 3, 4}, {-1.5f,  0.75f, -0.25f, -1.25f, 0.5f,   -0.5f, -1.5f,  0.75f,
                                                  -0.75f, 1.5f,  0.5f,   -0.5f,  1.25f,  0.25f, -0.75f, 1.5f,
                                                  0.0f,   -1.0f, 1.25f,  0.25f,  -1.25f, 1.0f,  0.0f,   -1.0f}},
      {"ij,jk",
       {{3, 4}, {4, 5}},
       {3, 5},
       {-1.1875f, -2.25f, -1.6875f, 2.125f, -2.1875f, -1.4375f, -2.25f, -1.4375f, 1.0f, -1.4375f, -1.6875f, -2.25f,
        -1.1875f, -0.125f, -0.6875f}},
      {"ij,jk,kl->il",
       {{2, 3}, {3, 4}, {4, 5}},
       {2, 5},
       {3.90625f, 1.1875f, 3.75f, 1.03125f, -4.9375f, -0.21875f, -2.03125f, 0.21875f, -1.59375f, 1.0625f}},
      {"bij,bkj->bik", {{2, 3, 4}, {2, 5, 4}}, {2, 3, 5}, {0.0f,     -1.8125f, -2.8125f, -3.8125f, 4.125f,   -0.125f,
                                                           -2.5625f, -2.5625f, -2.5625f, 3.125f,   -0.25f,   -3.3125f,
                                                           -2.3125f, -1.3125f, 2.125f,   -2.5625f, -3.8125f, 3.875f,
                                                           2.625f,   1.375f,   -2.5625f, -2.8125f, 2.625f,   2.375f,
                                                           2.125f,   -2.5625f, -1.8125f, 1.375f,   2.125f,   2.875f}},
      {"ibj,jk->bik", {{3, 2, 4}, {4, 5}}, {2, 3, 5}, {-1.1875f, -2.25f,   -1.6875f, 2.125f,   -2.1875f, -1.6875f,
                                                       -2.25f,   -1.1875f, -0.125f,  -0.6875f, 1.875f,   1.0f,
                                                       1.75f,    -0.75f,   1.625f,   -1.4375f, -2.25f,   -1.4375f,
                                                       1.0f,     -1.4375f, 2.125f,   1.0f,     1.5f,     0.375f,
                                                       0.875f,   1.625f,   1.0f,     2.0f,     -1.875f,  2.375f}},
      {"i,j->ij",
       {{3}, {4}},
       {3, 4},
       {0.375f, -2.25f, 0.0f, 2.25f, -0.0625f, 0.375f, 0.0f, -0.375f, 0.3125f, -1.875f, 0.0f, 1.875f}},
      {"...ij,...jk->...ik",
       {{2, 1, 3, 4}, {3, 4, 5}},
       {2, 3, 3, 5},
       {-1.1875f, -2.25f,   -1.6875f, 2.125f,   -2.1875f, -1.4375f, -2.25f,   -1.4375f, 1.0f,     -1.4375f,
        -1.6875f, -2.25f,   -1.1875f, -0.125f,  -0.6875f, 1.125f,   0.875f,   0.625f,   0.375f,   -0.6875f,
        1.0f,     1.0f,     1.0f,     1.0f,     -1.4375f, 0.875f,   1.125f,   1.375f,   1.625f,   -2.1875f,
        -2.25f,   -1.6875f, 2.125f,   -2.1875f, 1.625f,   -2.25f,   -1.4375f, 1.0f,     -1.4375f, 1.0f,
        -2.25f,   -1.1875f, -0.125f,  -0.6875f, 0.375f,   2.125f,   1.0f,     1.5f,     0.375f,   0.875f,
        1.875f,   1.0f,     1.75f,    -0.75f,   1.625f,   1.625f,   1.0f,     2.0f,     -1.875f,  2.375f,
        -0.875f,  -1.1875f, -1.5f,    -1.8125f, 2.75f,    -1.0f,    -1.0625f, -1.125f,  -1.1875f, 2.0f,
        -1.125f,  -0.9375f, -0.75f,   -0.5625f, 1.25f,    1.0f,     1.5f,     0.375f,   0.875f,   -0.25f,
        1.0f,     1.75f,    -0.75f,   1.625f,   -0.875f,  1.0f,     2.0f,     -1.875f,  2.375f,   -1.5f}},
      {"ijk->", {{2, 3, 4}}, {}, {-1.5f}},
      {"iij->j", {{3, 3, 2}}, {2}, {-1.5f, 0.5f}},
      {" bij , bjk -> ik ",
       {{2, 3, 4}, {2, 4, 5}},
       {3, 5},
       {-2.0625f, -3.4375f, -3.1875f, 0.3125f, 0.5625f, -2.4375f, -3.3125f, -2.5625f, -0.1875f, 0.5625f, -2.8125f,
        -3.1875f, -1.9375f, -0.6875f, 0.5625f}},
  };
  return cases;
}

TEST(EinsumTest, MatchesNumpyEinsum) {
  for (const EinsumCase& c : Cases()) {
    SCOPED_TRACE(c.equation);
    ExpectValues(RunEinsum(c.equation, Inputs(c.shapes)), c.out_shape, c.expected);
  }
}

TEST(EinsumTest, Float16ComputesInFloat32) {
  for (const EinsumCase& c : Cases()) {
    SCOPED_TRACE(c.equation);
    std::vector<Tensor> in = Inputs(c.shapes);
    for (Tensor& t : in) t = testing::ToHalf(t);
    ExpectValues(RunEinsum(c.equation, in), c.out_shape, c.expected, testing::kHalfTolerance, true);
  }
}

TEST(EinsumTest, DoubleAndInt64) {
  const Tensor a = Tensor::FromVector<double>({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(testing::ToVector<double>(RunEinsum("ij->j", {a})), (std::vector<double>{4, 6}));
  const Tensor b = Tensor::FromVector<int64_t>({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(testing::ToVector<int64_t>(RunEinsum("ij,jk->ik", {b, b})), (std::vector<int64_t>{7, 10, 15, 22}));
}

// out[output labels] = sum over every assignment of the other labels of the product of the inputs.
std::vector<double> ReferenceEinsum(const std::vector<std::string>& terms, const std::string& output,
                                    const std::map<char, int64_t>& sizes, const std::vector<Tensor>& inputs) {
  std::vector<char> labels;  // every label of the inputs, once
  for (const std::string& t : terms) {
    for (char c : t) {
      if (std::find(labels.begin(), labels.end(), c) == labels.end()) labels.push_back(c);
    }
  }
  int64_t out_size = 1;
  for (char c : output) out_size *= sizes.at(c);
  std::vector<double> out(static_cast<size_t>(out_size), 0.0);
  std::map<char, int64_t> value;
  for (char c : labels) value[c] = 0;
  for (;;) {
    double product = 1.0;
    for (size_t t = 0; t < terms.size(); ++t) {
      int64_t flat = 0;
      for (char c : terms[t]) flat = flat * sizes.at(c) + value[c];
      product *= inputs[t].data<float>()[flat];
    }
    int64_t flat = 0;
    for (char c : output) flat = flat * sizes.at(c) + value[c];
    out[static_cast<size_t>(flat)] += product;
    size_t d = labels.size();
    while (d-- > 0) {
      if (++value[labels[d]] < sizes.at(labels[d])) break;
      value[labels[d]] = 0;
    }
    if (d == static_cast<size_t>(-1)) return out;
  }
}

TEST(EinsumTest, RandomEquationsMatchTheSumOfProductsReference) {
  std::mt19937 rng(5);
  const auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 300; ++trial) {
    std::map<char, int64_t> sizes;
    for (char c : std::string("abcde")) sizes[c] = pick(1, 3);
    std::vector<std::string> terms(static_cast<size_t>(pick(1, 3)));
    std::string used;
    for (std::string& t : terms) {
      for (int i = pick(0, 3); i > 0; --i) t.push_back(static_cast<char>('a' + pick(0, 4)));
      used += t;
    }
    std::string output;
    for (char c : std::string("edcba")) {
      if (used.find(c) != std::string::npos && pick(0, 1) == 1) output.push_back(c);
    }
    std::shuffle(output.begin(), output.end(), rng);
    std::string equation;
    std::vector<Tensor> inputs;
    Shape out_shape;
    for (char c : output) out_shape.push_back(sizes[c]);
    for (size_t t = 0; t < terms.size(); ++t) {
      equation += (t ? "," : "") + terms[t];
      Shape shape;
      for (char c : terms[t]) shape.push_back(sizes[c]);
      inputs.push_back(PatternTensor(shape, static_cast<int>(t) + trial));
    }
    equation += "->" + output;
    SCOPED_TRACE(equation);
    const std::vector<double> expected = ReferenceEinsum(terms, output, sizes, inputs);
    ExpectValues(RunEinsum(equation, inputs), out_shape, std::vector<float>(expected.begin(), expected.end()));
  }
}

TEST(EinsumTest, BadEquationsAreInputErrors) {
  const std::vector<Tensor> two = Inputs({{3, 4}, {4, 5}});
  EXPECT_NE(testing::InputErrorOf([&] { RunEinsum("ij->ik", {two[0]}); }), "");  // k not in the inputs
  EXPECT_NE(testing::InputErrorOf([&] { RunEinsum("ijk->i", {two[0]}); }), "");  // rank mismatch
  EXPECT_NE(testing::InputErrorOf([&] { RunEinsum("ij,kj->ik", two); }), "");    // j: 4 vs 5
  EXPECT_NE(testing::InputErrorOf([&] { RunEinsum("ij", two); }), "");           // one term, two inputs
  EXPECT_NE(testing::InputErrorOf([&] { RunEinsum("i1->i", {two[0]}); }), "");   // bad character
  EXPECT_NE(testing::InputErrorOf([&] { RunEinsum("ij->ii", {two[0]}); }), "");  // repeated output label
  EXPECT_NE(testing::InputErrorOf([&] { RunEinsum("ii->i", {two[0]}); }), "");   // diagonal of 3x4
}

}  // namespace
}  // namespace ptq
