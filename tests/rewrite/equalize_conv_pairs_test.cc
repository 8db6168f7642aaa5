// Cross-layer equalization: pairs found only where the rescaling is exact, both ranges of every channel
// made equal, and the model's outputs unchanged up to float rounding.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

#include "rewrite/equalize_conv_pairs.h"
#include "runtime/graph.h"
#include "runtime/session.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

using testing::ModelBuilder;

// Values uniform in [-1, 1] scaled per slice of `inner` values by a factor 2^(k mod 7 - 3): channels
// whose ranges differ by up to 64x, as trained convolutions have.
Tensor Spread(const Shape& shape, int64_t inner, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Tensor t(DataType::kFloat, shape);
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = u(rng) * std::ldexp(1.0f, static_cast<int>((i / inner) % 7) - 3);
  return t;
}

Tensor Input(uint32_t seed) { return Spread({1, 4, 6, 6}, 1000000, seed); }

// x [1, 4, 6, 6] -> Conv1 (w1 [C, 4/g1, 3, 3], b1) -> `act` -> Conv2 (w2 [6 or C when depthwise, C/g2, 1, 1]) -> y
ModelBuilder PairModel(const std::string& act, int64_t c, int64_t g1, int64_t g2) {
  ModelBuilder m;
  m.Input("x", DataType::kFloat, {1, 4, 6, 6}).Output("y", DataType::kFloat);
  m.Initializer("w1", Spread({c, 4 / g1, 3, 3}, 9 * (4 / g1), 1));
  m.Initializer("b1", Spread({c}, 1, 2));
  m.Initializer("w2", Spread({g2 == c ? c : 6, c / g2, 1, 1}, 1, 3));
  auto& c1 = m.Node("Conv", {"x", "w1", "b1"}, {"h"}, "conv1");
  auto* pads = c1.add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i) pads->add_ints(1);
  auto group = [](onnx::NodeProto& n, int64_t g) {
    auto* a = n.add_attribute();
    a->set_name("group");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(g);
  };
  group(c1, g1);
  std::string feed = "h";
  if (act == "Relu") {
    m.Node("Relu", {"h"}, {"r"}, "relu");
    feed = "r";
  } else if (act == "Clip") {
    m.Initializer("lo", Tensor::Scalar<float>(0.0f)).Initializer("hi", Tensor::Scalar<float>(6.0f));
    m.Node("Clip", {"h", "lo", "hi"}, {"r"}, "clip");
    feed = "r";
  }
  group(m.Node("Conv", {feed, "w2"}, {"y"}, "conv2"), g2);
  return m;
}

Tensor RunModel(const onnx::ModelProto& model, const Tensor& x) {
  auto g = std::make_shared<const Graph>(GraphFromModel(model, ".", "test"));
  Session s(g);
  return s.Run({{"x", x}})[0];
}

Tensor Init(const onnx::ModelProto& m, const std::string& name) {
  for (const auto& t : m.graph().initializer()) {
    if (t.name() == name) return TensorFromProto(t, "", name);
  }
  ADD_FAILURE() << "no initializer " << name;
  return Tensor();
}

// The largest |difference| relative to the largest |value| of the reference.
double RelativeError(const Tensor& ref, const Tensor& got) {
  double d = 0, m = 0;
  for (int64_t i = 0; i < ref.size(); ++i) {
    d = std::max(d, std::fabs(static_cast<double>(ref.data<float>()[i]) - got.data<float>()[i]));
    m = std::max(m, std::fabs(static_cast<double>(ref.data<float>()[i])));
  }
  return d / m;
}

// Outputs before and after equalization agree to float rounding (1e-5 of the output's range).
constexpr double kFloatRounding = 1e-5;

TEST(EqualizeConvPairs, ConvReluConvRangesMatchAndOutputsAreKept) {
  ModelBuilder m = PairModel("Relu", 6, 1, 1);
  const onnx::ModelProto before = m.model();
  onnx::ModelProto after = before;
  ASSERT_EQ(EqualizeConvPairs(&after, "."), 1);
  // Channel c's range in w1 over its range in w2 (the input channel c of conv2).
  auto ratios = [](const onnx::ModelProto& model) {
    const Tensor w1 = Init(model, "w1"), w2 = Init(model, "w2");
    std::vector<double> out;
    for (int64_t c = 0; c < 6; ++c) {
      double r1 = 0, r2 = 0;
      for (int64_t k = 0; k < 36; ++k) r1 = std::max(r1, std::fabs(static_cast<double>(w1.data<float>()[c * 36 + k])));
      for (int64_t o = 0; o < 6; ++o) r2 = std::max(r2, std::fabs(static_cast<double>(w2.data<float>()[o * 6 + c])));
      out.push_back(r1 / r2);
    }
    return out;
  };
  const std::vector<double> was = ratios(before), now = ratios(after);
  double spread = 0;
  for (int64_t c = 0; c < 6; ++c) {
    spread = std::max(spread, std::fabs(std::log(was[static_cast<size_t>(c)])));
    EXPECT_NEAR(now[static_cast<size_t>(c)], 1.0, 1e-4) << "channel " << c;
  }
  EXPECT_GT(spread, std::log(4.0));  // before, some channel's ranges differed by more than 4x
  for (uint32_t seed : {7u, 8u, 9u}) {
    const Tensor x = Input(seed);
    EXPECT_LT(RelativeError(RunModel(before, x), RunModel(after, x)), kFloatRounding);
  }
}

TEST(EqualizeConvPairs, DepthwiseSeparableAndGroupedPairsAreEqualizedExactly) {
  // depthwise -> pointwise, pointwise -> depthwise, and a grouped Conv2 (2 groups of 2 inputs, 3 outputs)
  for (const auto& [g1, g2, c] : {std::tuple<int64_t, int64_t, int64_t>{4, 1, 4}, {1, 8, 8}, {1, 2, 4}}) {
    ModelBuilder m = PairModel("Relu", c, g1, g2);
    const onnx::ModelProto before = m.model();
    onnx::ModelProto after = before;
    ASSERT_EQ(EqualizeConvPairs(&after, "."), 1) << "group " << g1 << " then " << g2;
    EXPECT_NE(Init(before, "w1").data<float>()[0], Init(after, "w1").data<float>()[0]);
    EXPECT_LT(RelativeError(RunModel(before, Input(3)), RunModel(after, Input(3))), kFloatRounding) << "group " << g1 << " then " << g2;
  }
}

TEST(EqualizeConvPairs, NoActivationIsExactToo) {
  ModelBuilder m = PairModel("", 6, 1, 1);
  onnx::ModelProto after = m.model();
  ASSERT_EQ(EqualizeConvPairs(&after, "."), 1);
  EXPECT_LT(RelativeError(RunModel(m.model(), Input(4)), RunModel(after, Input(4))), kFloatRounding);
}

TEST(EqualizeConvPairs, NotAcrossClipNorSharedOrReadTwiceTensors) {
  {
    ModelBuilder m = PairModel("Clip", 6, 1, 1);  // Clip(x / s, 0, 6) is not Clip(x, 0, 6) / s
    onnx::ModelProto after = m.model();
    EXPECT_EQ(EqualizeConvPairs(&after, "."), 0);
    EXPECT_EQ(after.SerializeAsString(), m.model().SerializeAsString());
  }
  {
    ModelBuilder m = PairModel("Relu", 6, 1, 1);
    m.Output("r", DataType::kFloat);  // the Relu's output is a model output: its values must stay
    onnx::ModelProto after = m.model();
    EXPECT_EQ(EqualizeConvPairs(&after, "."), 0);
  }
  {
    ModelBuilder m = PairModel("Relu", 6, 1, 1);
    m.Node("Conv", {"r", "w2"}, {"y2"}, "conv3");  // w2 shared, and r read twice
    m.Output("y2", DataType::kFloat);
    onnx::ModelProto after = m.model();
    EXPECT_EQ(EqualizeConvPairs(&after, "."), 0);
  }
}

}  // namespace
}  // namespace ptq
