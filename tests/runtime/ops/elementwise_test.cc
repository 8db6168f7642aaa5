// Tests of the element-wise kernels: broadcasting, types, rounding and the per-op conventions.
#include <gtest/gtest.h>

#include <omp.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "runtime/float16.h"
#include "runtime/shape_util.h"
#include "tests/runtime/ops/elementwise_test_util.h"

namespace ptq {
namespace {

using testing::FloatAttr;
using testing::Floats;
using testing::IntAttr;
using testing::Iota;
using testing::RunOne;
using testing::StringAttr;
using testing::ToVector;
using testing::kFloatTol;

// Naive numpy broadcasting reference: every output index is mapped back to each input.
std::vector<float> ReferenceAdd(const Tensor& a, const Tensor& b) {
  const Shape out = BroadcastShapes(a.shape(), b.shape());
  const std::vector<int64_t> sa = BroadcastStrides(a.shape(), out);
  const std::vector<int64_t> sb = BroadcastStrides(b.shape(), out);
  const int64_t n = ShapeSize(out);
  std::vector<float> r(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t rem = i, ia = 0, ib = 0;
    for (size_t d = out.size(); d-- > 0;) {
      const int64_t idx = rem % out[d];
      rem /= out[d];
      ia += idx * sa[d];
      ib += idx * sb[d];
    }
    r[static_cast<size_t>(i)] = a.data<float>()[ia] + b.data<float>()[ib];
  }
  return r;
}

TEST(ElementwiseBroadcastTest, AddBroadcastsColumnVector) {
  // [2,3,4] + [3,1]: b[j] is added along the last axis.
  const Tensor a = Floats({2, 3, 4}, Iota(24));
  const Tensor b = Floats({3, 1}, {100, 200, 300});
  const Tensor c = RunOne("Add", 14, {a, b});
  ASSERT_EQ(c.shape(), (Shape{2, 3, 4}));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(c.data<float>()[i * 12 + j * 4 + k], i * 12 + j * 4 + k + 100.0f * (j + 1));
}

TEST(ElementwiseBroadcastTest, AddBroadcastsTrailingVectorScalarAndMiddleAxis) {
  const Tensor a = Floats({2, 3, 4}, Iota(24));
  const Tensor row = Floats({4}, {1000, 2000, 3000, 4000});
  const Tensor c1 = RunOne("Add", 14, {a, row});
  for (int i = 0; i < 24; ++i) EXPECT_EQ(c1.data<float>()[i], i + 1000.0f * (i % 4 + 1));

  const Tensor c2 = RunOne("Add", 14, {Tensor::Scalar<float>(0.5f), a});
  ASSERT_EQ(c2.shape(), (Shape{2, 3, 4}));
  for (int i = 0; i < 24; ++i) EXPECT_EQ(c2.data<float>()[i], i + 0.5f);

  const Tensor mid = Floats({1, 3, 1}, {10, 20, 30});
  const Tensor c3 = RunOne("Sub", 14, {a, mid});
  for (int i = 0; i < 24; ++i) EXPECT_EQ(c3.data<float>()[i], i - 10.0f * ((i / 4) % 3 + 1));
}

TEST(ElementwiseBroadcastTest, BothOperandsBroadcast) {
  // [2,1,4] * [3,1] -> [2,3,4]
  const Tensor a = Floats({2, 1, 4}, Iota(8, 1));
  const Tensor b = Floats({3, 1}, {1, 10, 100});
  const Tensor c = RunOne("Mul", 14, {a, b});
  ASSERT_EQ(c.shape(), (Shape{2, 3, 4}));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        const float expect = (i * 4 + k + 1) * std::pow(10.0f, static_cast<float>(j));
        EXPECT_EQ(c.data<float>()[i * 12 + j * 4 + k], expect);
      }
}

TEST(ElementwiseBroadcastTest, MatchesNaiveReferenceOnRandomShapes) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> rank_dist(0, 4), dim_dist(1, 3), coin(0, 2);
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = rank_dist(rng);
    Shape out(static_cast<size_t>(rank));
    for (int64_t& d : out) d = dim_dist(rng);
    auto operand = [&]() {
      const int drop = std::uniform_int_distribution<int>(0, rank)(rng);
      Shape s(out.begin() + drop, out.end());
      for (int64_t& d : s) {
        if (coin(rng) == 0) d = 1;
      }
      return Floats(s, Iota(ShapeSize(s), static_cast<float>(trial), 0.25f));
    };
    const Tensor a = operand();
    const Tensor b = operand();
    const Tensor c = RunOne("Add", 14, {a, b});
    ASSERT_EQ(c.shape(), BroadcastShapes(a.shape(), b.shape()));
    EXPECT_EQ(ToVector<float>(c), ReferenceAdd(a, b)) << ShapeToString(a.shape()) << " + " << ShapeToString(b.shape());
  }
}

// Outputs of 64 Ki elements and more are shared between two threads in chunks that cut runs anywhere:
// the same values as the naive reference, for broadcasts of every kind and for a unary op.
TEST(ElementwiseBroadcastTest, ThreadedLargeOutputsMatchTheReference) {
  omp_set_num_threads(2);  // the threaded path runs even on a one-core machine
  std::mt19937 rng(12);
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{3, 70, 1, 333}, {1, 70, 5, 1}},  // both broadcast, odd run length
      {{2, 96, 28, 28}, {1, 96, 1, 1}},  // squeeze-excitation scale
      {{4, 30, 30, 40}, {4, 1, 1, 40}},  // the same channels last, a scale per image: runs of 40 cut by chunks
      {{1, 56, 56, 40}, {1, 1, 1, 40}},  // one image: runs of 40 along one outer axis, whole runs per chunk
      {{2, 4, 50, 9, 24}, {2, 1, 50, 1, 24}},  // runs of 24 under four outer axes, spans of 9 runs
      {{200000}, {}},                    // one scalar
      {{131073}, {131073}},              // same shape: one run cut between threads
      {{7, 1}, {1, 20011}},              // outer product
  };
  for (const auto& [sa, sb] : cases) {
    const Tensor a = Floats(sa, Iota(ShapeSize(sa), 0.5f, 0.125f));
    const Tensor b = Floats(sb, Iota(ShapeSize(sb), -3.0f, 0.25f));
    const Tensor c = RunOne("Add", 14, {a, b});
    EXPECT_EQ(ToVector<float>(c), ReferenceAdd(a, b)) << ShapeToString(sa) << " + " << ShapeToString(sb);
  }
  std::vector<float> v(100003);
  std::normal_distribution<float> d(0.0f, 3.0f);
  for (float& x : v) x = d(rng);
  const Tensor x = Floats({100003}, v);
  const std::vector<float> got = ToVector<float>(RunOne("Neg", 13, {x}));
  for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(got[i], -v[i]) << i;
  omp_set_num_threads(omp_get_num_procs());
}

TEST(ElementwiseBroadcastTest, IncompatibleShapesAreAnInputError) {
  EXPECT_THROW(RunOne("Add", 14, {Floats({2, 3}, Iota(6)), Floats({4}, Iota(4))}), Error);
}

TEST(ElementwiseBroadcastTest, EmptyTensorGivesEmptyResult) {
  const Tensor c = RunOne("Add", 14, {Floats({0, 3}, {}), Floats({3}, Iota(3))});
  EXPECT_EQ(c.shape(), (Shape{0, 3}));
}

TEST(ElementwiseBroadcastTest, Opset6AxisAttributeAlignsB) {
  // Add-6 with broadcast=1, axis=1: B of shape [3] is aligned with A's axis 1 of [2,3,4].
  Attributes attrs;
  attrs.Set("broadcast", IntAttr(1));
  attrs.Set("axis", IntAttr(1));
  const Tensor c = RunOne("Add", 6, {Floats({2, 3, 4}, std::vector<float>(24, 0.0f)), Floats({3}, {1, 2, 3})}, attrs);
  ASSERT_EQ(c.shape(), (Shape{2, 3, 4}));
  for (int i = 0; i < 24; ++i) EXPECT_EQ(c.data<float>()[i], (i / 4) % 3 + 1.0f);
}

TEST(ElementwiseTypesTest, Float16AddAndExp) {
  const Tensor a = Tensor::FromVector<uint16_t>({3}, {FloatToHalf(1.5f), FloatToHalf(-2.0f), FloatToHalf(0.25f)},
                                                DataType::kFloat16);
  const Tensor b = Tensor::FromVector<uint16_t>({1}, {FloatToHalf(0.5f)}, DataType::kFloat16);
  const Tensor c = RunOne("Add", 14, {a, b});
  ASSERT_EQ(c.dtype(), DataType::kFloat16);
  EXPECT_EQ(c.ToFloatVector(), (std::vector<float>{2.0f, -1.5f, 0.75f}));

  const Tensor e = RunOne("Exp", 13, {Tensor::FromVector<uint16_t>({2}, {FloatToHalf(0.0f), FloatToHalf(1.0f)},
                                                                     DataType::kFloat16)});
  ASSERT_EQ(e.dtype(), DataType::kFloat16);
  EXPECT_EQ(e.ToFloatVector()[0], 1.0f);
  EXPECT_NEAR(e.ToFloatVector()[1], 2.71828f, 2e-3);  // float16 has 11 significant bits
}

TEST(ElementwiseTypesTest, DoubleSqrt) {
  const Tensor y = RunOne("Sqrt", 13, {Tensor::FromVector<double>({2}, {2.0, 9.0})});
  ASSERT_EQ(y.dtype(), DataType::kDouble);
  EXPECT_EQ(ToVector<double>(y), (std::vector<double>{std::sqrt(2.0), 3.0}));
}

TEST(ElementwiseTypesTest, UnsupportedTypeNamesOpAndInput) {
  try {
    RunOne("Sqrt", 13, {Tensor::FromVector<int32_t>({1}, {4})});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInput);
    EXPECT_NE(std::string(e.what()).find("Sqrt"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("int32"), std::string::npos);
  }
}

TEST(ElementwiseTypesTest, MismatchedInputTypesAreAnInputError) {
  EXPECT_THROW(RunOne("Add", 14, {Floats({1}, {1}), Tensor::FromVector<double>({1}, {1})}), Error);
}

TEST(ElementwiseIntegerTest, DivTruncatesTowardZero) {
  const Tensor a = Tensor::FromVector<int32_t>({4}, {7, -7, 7, -7});
  const Tensor b = Tensor::FromVector<int32_t>({4}, {2, 2, -2, -2});
  EXPECT_EQ(ToVector<int32_t>(RunOne("Div", 14, {a, b})), (std::vector<int32_t>{3, -3, -3, 3}));
  const Tensor c = Tensor::FromVector<int64_t>({2}, {std::numeric_limits<int64_t>::min(), 9});
  EXPECT_EQ(ToVector<int64_t>(RunOne("Div", 14, {c, Tensor::Scalar<int64_t>(-1)})),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::min(), -9}));
}

TEST(ElementwiseIntegerTest, DivByZeroIsAnInputError) {
  EXPECT_THROW(RunOne("Div", 14, {Tensor::FromVector<int32_t>({2}, {1, 2}), Tensor::FromVector<int32_t>({2}, {1, 0})}),
               Error);
}

TEST(ElementwiseIntegerTest, AddWrapsUint8) {
  const Tensor c = RunOne("Add", 14, {Tensor::FromVector<uint8_t>({2}, {250, 3}), Tensor::Scalar<uint8_t>(10)});
  EXPECT_EQ(ToVector<uint8_t>(c), (std::vector<uint8_t>{4, 13}));
}

TEST(ElementwiseIntegerTest, ModSignConventions) {
  const Tensor a = Tensor::FromVector<int32_t>({4}, {7, -7, 7, -7});
  const Tensor b = Tensor::FromVector<int32_t>({4}, {3, 3, -3, -3});
  // fmod=0: sign of the divisor (numpy.mod); fmod=1: sign of the dividend (numpy.fmod).
  EXPECT_EQ(ToVector<int32_t>(RunOne("Mod", 13, {a, b})), (std::vector<int32_t>{1, 2, -2, -1}));
  Attributes fmod;
  fmod.Set("fmod", IntAttr(1));
  EXPECT_EQ(ToVector<int32_t>(RunOne("Mod", 13, {a, b}, fmod)), (std::vector<int32_t>{1, -1, 1, -1}));
  const Tensor f = RunOne("Mod", 13, {Floats({2}, {5.5f, -5.5f}), Floats({1}, {2.0f})}, fmod);
  EXPECT_EQ(ToVector<float>(f), (std::vector<float>{1.5f, -1.5f}));
  EXPECT_THROW(RunOne("Mod", 13, {Floats({1}, {1}), Floats({1}, {2})}), Error);
}

TEST(ElementwiseCompareTest, ComparisonsProduceBool) {
  const Tensor a = Floats({3}, {1, 2, 3});
  const Tensor b = Tensor::Scalar<float>(2.0f);
  const std::vector<std::pair<std::string, std::vector<bool>>> cases = {
      {"Equal", {false, true, false}},         {"Greater", {false, false, true}},
      {"GreaterOrEqual", {false, true, true}}, {"Less", {true, false, false}},
      {"LessOrEqual", {true, true, false}}};
  for (const auto& c : cases) {
    const Tensor r = RunOne(c.first, 13, {a, b});
    ASSERT_EQ(r.dtype(), DataType::kBool) << c.first;
    EXPECT_EQ(ToVector<bool>(r), c.second) << c.first;
  }
  const Tensor ints = RunOne("Equal", 13, {Tensor::FromVector<int64_t>({2}, {5, 6}), Tensor::Scalar<int64_t>(6)});
  EXPECT_EQ(ToVector<bool>(ints), (std::vector<bool>{false, true}));
}

TEST(ElementwiseLogicTest, AndOrXorNot) {
  const Tensor a = Tensor::FromVector<bool>({4}, {false, false, true, true});
  const Tensor b = Tensor::FromVector<bool>({4}, {false, true, false, true});
  EXPECT_EQ(ToVector<bool>(RunOne("And", 7, {a, b})), (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(ToVector<bool>(RunOne("Or", 7, {a, b})), (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(ToVector<bool>(RunOne("Xor", 7, {a, b})), (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(ToVector<bool>(RunOne("Not", 1, {a})), (std::vector<bool>{true, true, false, false}));
}

TEST(ElementwiseRoundingTest, RoundTiesToEven) {
  const Tensor y = RunOne("Round", 11, {Floats({8}, {0.5f, 1.5f, 2.5f, -2.5f, -0.5f, 2.4f, -2.6f, 3.5f})});
  EXPECT_EQ(ToVector<float>(y), (std::vector<float>{0.0f, 2.0f, 2.0f, -2.0f, -0.0f, 2.0f, -3.0f, 4.0f}));
}

TEST(ElementwiseRoundingTest, CeilFloorSign) {
  const Tensor x = Floats({4}, {-1.5f, -0.0f, 0.2f, 3.0f});
  EXPECT_EQ(ToVector<float>(RunOne("Ceil", 13, {x})), (std::vector<float>{-1.0f, 0.0f, 1.0f, 3.0f}));
  EXPECT_EQ(ToVector<float>(RunOne("Floor", 13, {x})), (std::vector<float>{-2.0f, -0.0f, 0.0f, 3.0f}));
  EXPECT_EQ(ToVector<float>(RunOne("Sign", 13, {x})), (std::vector<float>{-1.0f, 0.0f, 1.0f, 1.0f}));
  EXPECT_EQ(ToVector<int32_t>(RunOne("Sign", 13, {Tensor::FromVector<int32_t>({3}, {-7, 0, 9})})),
            (std::vector<int32_t>{-1, 0, 1}));
}

TEST(ElementwiseVariadicTest, SumMaxMinBroadcastManyInputs) {
  const Tensor a = Floats({2, 1}, {1, 5});
  const Tensor b = Floats({3}, {2, 4, 6});
  const Tensor c = Tensor::Scalar<float>(3.0f);
  const Tensor s = RunOne("Sum", 13, {a, b, c});
  ASSERT_EQ(s.shape(), (Shape{2, 3}));
  EXPECT_EQ(ToVector<float>(s), (std::vector<float>{6, 8, 10, 10, 12, 14}));
  EXPECT_EQ(ToVector<float>(RunOne("Max", 13, {a, b, c})), (std::vector<float>{3, 4, 6, 5, 5, 6}));
  EXPECT_EQ(ToVector<float>(RunOne("Min", 13, {a, b, c})), (std::vector<float>{1, 1, 1, 2, 3, 3}));
  EXPECT_EQ(ToVector<float>(RunOne("Sum", 13, {b})), ToVector<float>(b));
}

TEST(ElementwiseVariadicTest, MaxAndMinPropagateNaN) {
  const Tensor a = Floats({2}, {NAN, 1.0f});
  const Tensor b = Floats({2}, {1.0f, NAN});
  for (const char* op : {"Max", "Min"}) {
    const std::vector<float> r = ToVector<float>(RunOne(op, 13, {a, b}));
    EXPECT_TRUE(std::isnan(r[0]) && std::isnan(r[1])) << op;
  }
}

TEST(ElementwiseActivationTest, ReluLeakyReluHardSigmoidHardSwishPRelu) {
  const Tensor x = Floats({4}, {-3.0f, -1.0f, 0.0f, 2.0f});
  EXPECT_EQ(ToVector<float>(RunOne("Relu", 14, {x})), (std::vector<float>{0, 0, 0, 2}));
  Attributes alpha;
  alpha.Set("alpha", FloatAttr(0.5f));
  EXPECT_EQ(ToVector<float>(RunOne("LeakyRelu", 16, {x}, alpha)), (std::vector<float>{-1.5f, -0.5f, 0, 2}));
  // HardSigmoid defaults alpha 0.2, beta 0.5: clamp(0.2x + 0.5, 0, 1).
  const std::vector<float> hs = ToVector<float>(RunOne("HardSigmoid", 6, {x}));
  const std::vector<float> hs_expect = {0.0f, 0.3f, 0.5f, 0.9f};
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(hs[i], hs_expect[i], kFloatTol);
  // HardSwish: x * clamp(x/6 + 1/2, 0, 1)
  const std::vector<float> hw = ToVector<float>(RunOne("HardSwish", 14, {x}));
  const std::vector<float> hw_expect = {0.0f, -1.0f / 3.0f, 0.0f, 2.0f * 5.0f / 6.0f};
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(hw[i], hw_expect[i], kFloatTol);
  // PRelu with a per-channel slope [C,1,1] on [1,2,1,2].
  const Tensor px = Floats({1, 2, 1, 2}, {-1, 1, -2, 2});
  const Tensor slope = Floats({2, 1, 1}, {0.1f, 0.5f});
  EXPECT_EQ(ToVector<float>(RunOne("PRelu", 16, {px, slope})), (std::vector<float>{-0.1f, 1, -1, 2}));
  EXPECT_THROW(RunOne("PRelu", 16, {Floats({2}, {1, 2}), Floats({2, 2}, Iota(4))}), Error);
}

TEST(ElementwiseActivationTest, GeluExactAndTanh) {
  const std::vector<float> xs = {-3.0f, -1.0f, 0.0f, 0.5f, 2.0f};
  const Tensor x = Floats({5}, xs);
  const std::vector<float> exact = ToVector<float>(RunOne("Gelu", 20, {x}));
  Attributes tanh_attr;
  tanh_attr.Set("approximate", StringAttr("tanh"));
  const std::vector<float> approx = ToVector<float>(RunOne("Gelu", 20, {x}, tanh_attr));
  for (size_t i = 0; i < xs.size(); ++i) {
    const double v = xs[i];
    const double e = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    const double t = 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
    EXPECT_NEAR(exact[i], e, 1e-6 + kFloatTol * std::fabs(e));
    EXPECT_NEAR(approx[i], t, 1e-6 + kFloatTol * std::fabs(t));
  }
}

TEST(ElementwiseUnaryTest, SimpleMaps) {
  const Tensor x = Floats({3}, {0.25f, 1.0f, 4.0f});
  EXPECT_EQ(ToVector<float>(RunOne("Reciprocal", 13, {x})), (std::vector<float>{4.0f, 1.0f, 0.25f}));
  EXPECT_EQ(ToVector<float>(RunOne("Neg", 13, {x})), (std::vector<float>{-0.25f, -1.0f, -4.0f}));
  EXPECT_EQ(ToVector<float>(RunOne("Log", 13, {Floats({2}, {1.0f, 0.0f})})), (std::vector<float>{0.0f, -INFINITY}));
  EXPECT_EQ(ToVector<int16_t>(RunOne("Abs", 13, {Tensor::FromVector<int16_t>({3}, {-5, 0, 7})})),
            (std::vector<int16_t>{5, 0, 7}));
  const std::vector<float> sp = ToVector<float>(RunOne("Softplus", 1, {Floats({3}, {-100.0f, 0.0f, 100.0f})}));
  EXPECT_NEAR(sp[0], std::exp(-100.0), 1e-44);  // float denormal
  EXPECT_NEAR(sp[1], std::log(2.0), kFloatTol);
  EXPECT_EQ(sp[2], 100.0f);
}

}  // namespace
}  // namespace ptq
