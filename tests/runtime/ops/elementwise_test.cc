// Tests of the element-wise kernels: broadcasting, types, rounding and the per-op conventions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "runtime/float16.h"
#include "runtime/shape_util.h"
#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::FloatAttr;
using testing::IntAttr;
using testing::RunOp;
using testing::StringAttr;
using testing::ToVector;

constexpr float kFloatTol = 1e-6f;  // relative, for float32 transcendental results

Tensor Floats(Shape shape, std::vector<float> v) { return Tensor::FromVector<float>(std::move(shape), v); }

std::vector<float> Iota(int64_t n, float start = 0.0f, float step = 1.0f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + step * static_cast<float>(i);
  return v;
}

Tensor RunOne(const std::string& op, int opset, const std::vector<Tensor>& inputs, const Attributes& attrs = {}) {
  return RunOp(op, opset, attrs, inputs)[0];
}

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

TEST(ElementwiseClipTest, Opset6UsesAttributes) {
  Attributes attrs;
  attrs.Set("min", FloatAttr(-1.0f));
  attrs.Set("max", FloatAttr(2.0f));
  const Tensor y = RunOne("Clip", 6, {Floats({4}, {-5, 0.5f, 2, 7})}, attrs);
  EXPECT_EQ(ToVector<float>(y), (std::vector<float>{-1, 0.5f, 2, 2}));
}

TEST(ElementwiseClipTest, Opset11UsesOptionalInputs) {
  const Tensor x = Floats({4}, {-5, 0.5f, 2, 7});
  EXPECT_EQ(ToVector<float>(RunOne("Clip", 11, {x, Tensor::Scalar<float>(0.0f), Tensor::Scalar<float>(1.0f)})),
            (std::vector<float>{0, 0.5f, 1, 1}));
  // min omitted: only the upper bound applies.
  EXPECT_EQ(ToVector<float>(RunOne("Clip", 11, {x, Tensor(), Tensor::Scalar<float>(1.0f)})),
            (std::vector<float>{-5, 0.5f, 1, 1}));
  // no bounds: unchanged, infinities included.
  const Tensor inf = Floats({2}, {-INFINITY, INFINITY});
  EXPECT_EQ(ToVector<float>(RunOne("Clip", 11, {inf})), ToVector<float>(inf));
  // min > max: every element becomes max.
  EXPECT_EQ(ToVector<float>(RunOne("Clip", 13, {x, Tensor::Scalar<float>(3.0f), Tensor::Scalar<float>(1.0f)})),
            (std::vector<float>{1, 1, 1, 1}));
}

TEST(ElementwiseClipTest, Opset12ClipsIntegers) {
  const Tensor x = Tensor::FromVector<int8_t>({4}, {-128, -3, 4, 127});
  const Tensor y = RunOne("Clip", 12, {x, Tensor::Scalar<int8_t>(-2), Tensor::Scalar<int8_t>(5)});
  ASSERT_EQ(y.dtype(), DataType::kInt8);
  EXPECT_EQ(ToVector<int8_t>(y), (std::vector<int8_t>{-2, -2, 4, 5}));
  EXPECT_EQ(ToVector<int8_t>(RunOne("Clip", 12, {x})), ToVector<int8_t>(x));
}

TEST(ElementwiseWhereTest, BroadcastsAllThreeInputs) {
  // condition [2,1], X [1,3], Y scalar -> [2,3]
  const Tensor cond = Tensor::FromVector<bool>({2, 1}, {true, false});
  const Tensor x = Tensor::FromVector<int64_t>({1, 3}, {1, 2, 3});
  const Tensor y = Tensor::Scalar<int64_t>(-9);
  const Tensor out = RunOne("Where", 16, {cond, x, y});
  ASSERT_EQ(out.shape(), (Shape{2, 3}));
  EXPECT_EQ(ToVector<int64_t>(out), (std::vector<int64_t>{1, 2, 3, -9, -9, -9}));
  const Tensor cond2 = Tensor::FromVector<bool>({3}, {false, true, false});
  const Tensor f = RunOne("Where", 9, {cond2, Floats({2, 1}, {1, 2}), Floats({2, 3}, Iota(6, 10))});
  EXPECT_EQ(ToVector<float>(f), (std::vector<float>{10, 1, 12, 13, 2, 15}));
}

TEST(ElementwiseCastTest, FloatToFloat16AndBackRoundTrips) {
  // Values exactly representable in float16 survive; others round to nearest even.
  const Tensor x = Floats({5}, {1.0f, -0.5f, 65504.0f, 1.0f + 1.0f / 4096.0f, 1e-8f});
  Attributes to16;
  to16.Set("to", IntAttr(static_cast<int64_t>(DataType::kFloat16)));
  const Tensor h = RunOne("Cast", 13, {x}, to16);
  ASSERT_EQ(h.dtype(), DataType::kFloat16);
  Attributes to32;
  to32.Set("to", IntAttr(static_cast<int64_t>(DataType::kFloat)));
  const Tensor y = RunOne("Cast", 13, {h}, to32);
  ASSERT_EQ(y.dtype(), DataType::kFloat);
  // float16 has a 2^-10 ulp at 1: 1 + 2^-12 is below half an ulp and rounds to 1; 1e-8 is below
  // half the smallest subnormal (2^-25) and rounds to 0.
  EXPECT_EQ(ToVector<float>(y), (std::vector<float>{1.0f, -0.5f, 65504.0f, 1.0f, 0.0f}));
}

TEST(ElementwiseCastTest, FloatToIntTruncatesAndSaturates) {
  Attributes attrs;
  attrs.Set("to", IntAttr(static_cast<int64_t>(DataType::kInt8)));
  const Tensor y = RunOne("Cast", 13, {Floats({6}, {2.7f, -2.7f, 300.0f, -300.0f, NAN, -0.5f})}, attrs);
  EXPECT_EQ(ToVector<int8_t>(y), (std::vector<int8_t>{2, -2, 127, -128, 0, 0}));
}

TEST(ElementwiseCastTest, BoolInt64DoubleConversions) {
  Attributes to_bool;
  to_bool.Set("to", IntAttr(static_cast<int64_t>(DataType::kBool)));
  EXPECT_EQ(ToVector<bool>(RunOne("Cast", 13, {Floats({3}, {0.0f, -0.1f, NAN})}, to_bool)),
            (std::vector<bool>{false, true, true}));
  Attributes to_double;
  to_double.Set("to", IntAttr(static_cast<int64_t>(DataType::kDouble)));
  EXPECT_EQ(ToVector<double>(RunOne("Cast", 13, {Tensor::FromVector<int64_t>({2}, {-3, int64_t{1} << 40})}, to_double)),
            (std::vector<double>{-3.0, 1099511627776.0}));
  Attributes to_int32;
  to_int32.Set("to", IntAttr(static_cast<int64_t>(DataType::kInt32)));
  // int64 -> int32 wraps (two's complement), as static_cast.
  EXPECT_EQ(ToVector<int32_t>(RunOne("Cast", 13, {Tensor::FromVector<int64_t>({2}, {(int64_t{1} << 32) + 5, -1})}, to_int32)),
            (std::vector<int32_t>{5, -1}));
}

TEST(ElementwiseCastTest, Opset1TakesTypeName) {
  Attributes attrs;
  attrs.Set("to", StringAttr("INT32"));
  const Tensor y = RunOne("Cast", 1, {Floats({2}, {3.9f, -1.2f})}, attrs);
  ASSERT_EQ(y.dtype(), DataType::kInt32);
  EXPECT_EQ(ToVector<int32_t>(y), (std::vector<int32_t>{3, -1}));
}

TEST(ElementwiseCastTest, ToInt4Saturates) {
  Attributes attrs;
  attrs.Set("to", IntAttr(static_cast<int64_t>(DataType::kInt4)));
  const Tensor y = RunOne("Cast", 21, {Floats({4}, {-9.0f, -8.0f, 7.5f, 20.0f})}, attrs);
  ASSERT_EQ(y.dtype(), DataType::kInt4);
  EXPECT_EQ(ToVector<int8_t>(y), (std::vector<int8_t>{-8, -8, 7, 7}));
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

TEST(ElementwisePowTest, IntegerExponentTensor) {
  const Tensor x = Floats({4}, {2.0f, -3.0f, 0.5f, 10.0f});
  const Tensor e = Tensor::FromVector<int64_t>({4}, {3, 2, -2, 0});
  const Tensor z = RunOne("Pow", 15, {x, e});
  ASSERT_EQ(z.dtype(), DataType::kFloat);
  EXPECT_EQ(ToVector<float>(z), (std::vector<float>{8.0f, 9.0f, 4.0f, 1.0f}));
}

TEST(ElementwisePowTest, IntegerBaseIsExact) {
  const Tensor x = Tensor::FromVector<int64_t>({4}, {3, -2, 2, 7});
  const Tensor e = Tensor::FromVector<int64_t>({4}, {39, 5, -1, 0});
  // 3^39 = 4052555153018976267 is exact in int64 but not in double.
  EXPECT_EQ(ToVector<int64_t>(RunOne("Pow", 15, {x, e})), (std::vector<int64_t>{4052555153018976267LL, -32, 0, 1}));
  const Tensor f = RunOne("Pow", 15, {Tensor::FromVector<int32_t>({2}, {4, 2}), Floats({2}, {0.5f, 3.0f})});
  EXPECT_EQ(ToVector<int32_t>(f), (std::vector<int32_t>{2, 8}));
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
