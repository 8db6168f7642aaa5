// Element-wise chain fusion: Add / Sub / Mul / Div / Clip / Relu nodes with scalar constants (PP-OCR's hardswish
// and learnable scale and bias, opset 9 and 11 forms) become one ElementwiseChain, with a trailing QuantizeLinear,
// or join the convolution (int8 or float) writing their input, and give the bits of the nodes run one by one on
// any thread count; chains whose values are read elsewhere fuse only up to there, other constants and inputs stay
// as written.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>

#include "runtime/activation_fusion.h"
#include "runtime/cpu_features.h"
#include "runtime/error.h"
#include "runtime/graph.h"
#include "runtime/model_io.h"
#include "runtime/ops/math/elementwise_chain.h"
#include "runtime/ops/nn/conv_activation.h"
#include "runtime/session.h"
#include "tests/runtime/float_fusion_test_util.h"
#include "tests/runtime/model_builder.h"
#include "tests/runtime/ops/nn_test_util.h"
#include "tests/runtime/qdq_test_models.h"

namespace ptq {
namespace {

using testing::ExpectSameBits;
using testing::ModelBuilder;
using testing::Values;

Tensor Scalar(float v, bool rank1) {
  return rank1 ? Tensor::FromVector<float>({1}, {v}) : Tensor::Scalar<float>(v);
}

// PP-LCNetV3's block after a convolution, as Paddle2ONNX writes it at opset 11: t = x * s + b (learnable scale and
// bias of shape [1]); hardswish h = t * Clip(t + 3, 0, 6) / 6 (scalars); then h * s2 + b2.
void LcnetBlock(ModelBuilder& b, const std::string& x, const std::string& y) {
  b.Initializer(y + "/s", Scalar(1.25f, true)).Initializer(y + "/b", Scalar(-0.5f, true));
  b.Initializer(y + "/three", Scalar(3.0f, false)).Initializer(y + "/zero", Scalar(0.0f, false));
  b.Initializer(y + "/six", Scalar(6.0f, false)).Initializer(y + "/s2", Scalar(0.75f, true));
  b.Initializer(y + "/b2", Scalar(0.1f, true));
  b.Node("Mul", {y + "/s", x}, {y + "/scaled"});
  b.Node("Add", {y + "/scaled", y + "/b"}, {y + "/t"});
  b.Node("Add", {y + "/t", y + "/three"}, {y + "/t3"});
  b.Node("Clip", {y + "/t3", y + "/zero", y + "/six"}, {y + "/relu6"});
  b.Node("Mul", {y + "/t", y + "/relu6"}, {y + "/prod"});
  b.Node("Div", {y + "/prod", y + "/six"}, {y + "/hswish"});
  b.Node("Mul", {y + "/s2", y + "/hswish"}, {y + "/scaled2"});
  b.Node("Add", {y + "/scaled2", y + "/b2"}, {y});
}

onnx::NodeProto& Quantize(ModelBuilder& b, const std::string& x, const std::string& y, float scale, Tensor zp) {
  b.Initializer(y + "/scale", Tensor::Scalar<float>(scale)).Initializer(y + "/zp", zp);
  return b.Node("QuantizeLinear", {x, y + "/scale", y + "/zp"}, {y});
}

TEST(ElementwiseChainFusion, PaddleBlocksBecomeOneNodeEachWithTheSameBits) {
  std::mt19937 rng(11);
  ModelBuilder b(11);
  const Shape shape = {2, 8, 70, 70};  // 78400 values: threads share them, the last block is partial
  b.Input("x", DataType::kFloat, shape);
  LcnetBlock(b, "x", "float_out");
  LcnetBlock(b, "x", "u8");
  Quantize(b, "u8", "u8_q", 0.05f, Tensor::Scalar<uint8_t>(128));
  LcnetBlock(b, "x", "s8");
  Quantize(b, "s8", "s8_q", 0.02f, Tensor::Scalar<int8_t>(-3));
  // Clip with only a maximum (the minimum omitted, ""), and with only a minimum: the infinities pass the other side.
  b.Initializer("two", Scalar(2.0f, false)).Initializer("max", Scalar(6.0f, false));
  b.Initializer("min", Scalar(-1.0f, true));
  b.Node("Mul", {"x", "two"}, {"doubled"});
  b.Node("Clip", {"doubled", "", "max"}, {"below"});
  b.Node("Mul", {"two", "x"}, {"doubled_too"});
  b.Node("Clip", {"doubled_too", "min"}, {"above"});
  b.Output("float_out", DataType::kFloat).Output("u8_q", DataType::kUint8).Output("s8_q", DataType::kInt8);
  b.Output("below", DataType::kFloat).Output("above", DataType::kFloat);
  const auto g = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "lcnet.onnx"));
  Session s(g);
  EXPECT_EQ(s.fused_float().elementwise_chains, 5);
  ASSERT_EQ(s.graph().nodes.size(), 5u);  // the quantized ones take their QuantizeLinear
  for (const Node& n : s.graph().nodes) EXPECT_EQ(n.op_type, "ElementwiseChain");
  ExpectSameBits(g, {{"x", Values(rng, shape)}});
}

// Opset 9: Clip's bounds are attributes; Relu, a constant minuend and dividend, x read again by a later node.
TEST(ElementwiseChainFusion, Opset9ClipAttributesReluAndConstantFirstOperands) {
  std::mt19937 rng(12);
  ModelBuilder b(9);
  b.Input("x", DataType::kFloat, {3, 1000});
  b.Initializer("c1", Scalar(1.5f, false)).Initializer("c2", Scalar(2.0f, true));
  b.Node("Sub", {"c1", "x"}, {"a"});
  b.Node("Mul", {"a", "a"}, {"sq"});
  b.Node("Div", {"c2", "sq"}, {"inv"});
  auto& clip = b.Node("Clip", {"inv"}, {"clipped"});
  clip.add_attribute()->CopyFrom(qdq_test::FloatAttr("min", -3.0f));
  clip.add_attribute()->CopyFrom(qdq_test::FloatAttr("max", 0.75f));
  b.Node("Clip", {"clipped"}, {"unbounded"});  // no attributes: the lowest and largest float
  b.Node("Relu", {"unbounded"}, {"r"});
  b.Node("Sub", {"r", "x"}, {"y"});
  b.Output("y", DataType::kFloat);
  const auto g = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "opset9.onnx"));
  Session s(g);
  EXPECT_EQ(s.fused_float().elementwise_chains, 1);
  EXPECT_EQ(s.graph().nodes.size(), 1u);
  ExpectSameBits(g, {{"x", Values(rng, {3, 1000})}});
}

// A scalar input with constants of shape [1]: the output is a [1], as numpy broadcasting makes it.
TEST(ElementwiseChainFusion, ScalarInputTakesTheRankOfItsConstants) {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {});
  b.Initializer("s", Scalar(3.0f, true)).Initializer("c", Scalar(-1.0f, false));
  b.Node("Mul", {"x", "s"}, {"m"});
  b.Node("Add", {"m", "c"}, {"y"});
  b.Output("y", DataType::kFloat);
  const auto g = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "scalar.onnx"));
  Session s(g);
  EXPECT_EQ(s.fused_float().elementwise_chains, 1);
  const std::vector<Tensor> y = s.Run({{"x", Tensor::Scalar<float>(2.0f)}});
  ASSERT_EQ(y[0].shape(), Shape({1}));
  EXPECT_EQ(y[0].data<float>()[0], 5.0f);
}

// What stays: a value that is a graph output or that another node reads ends the fused part there; a constant of
// several values, two computed inputs, chains with no float32 constant (Relu only; int32) are left as written.
TEST(ElementwiseChainFusion, ValuesReadElsewhereAndOtherOperandsStopTheChain) {
  std::mt19937 rng(13);
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {2, 8, 5, 5}).Input("z", DataType::kFloat, {2, 8, 5, 5});
  b.Input("i", DataType::kInt32, {4});
  b.Initializer("one", Scalar(1.0f, false)).Initializer("two", Scalar(2.0f, false));
  b.Initializer("three", Scalar(3.0f, true)).Initializer("per_channel", Values(rng, {8, 1, 1}));
  b.Initializer("int_one", Tensor::Scalar<int32_t>(1));
  // p2 is a graph output: Add, Mul fuse, the last Add stays.
  b.Node("Add", {"x", "one"}, {"p1"});
  b.Node("Mul", {"p1", "two"}, {"p2"});
  b.Node("Add", {"p2", "three"}, {"p3"});
  // q1 is also read by a Sigmoid: the Mul stays, Add and Mul after it fuse.
  b.Node("Mul", {"x", "two"}, {"q1"});
  b.Node("Sigmoid", {"q1"}, {"q_sig"});
  b.Node("Add", {"q1", "one"}, {"q2"});
  b.Node("Mul", {"q2", "three"}, {"q3"});
  // Left as written.
  b.Node("Mul", {"x", "per_channel"}, {"c1"});
  b.Node("Add", {"c1", "one"}, {"c2"});
  b.Node("Add", {"x", "z"}, {"z1"});
  b.Node("Mul", {"z1", "two"}, {"z2"});
  b.Node("Relu", {"x"}, {"r1"});
  b.Node("Relu", {"r1"}, {"r2"});
  b.Node("Add", {"i", "int_one"}, {"i1"});
  b.Node("Mul", {"i1", "int_one"}, {"i2"});
  for (const char* o : {"p2", "p3", "q_sig", "q3", "c2", "z2", "r2"}) b.Output(o, DataType::kFloat);
  b.Output("i2", DataType::kInt32);
  const auto g = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "kept.onnx"));
  Session s(g);
  EXPECT_EQ(s.fused_float().elementwise_chains, 2);
  int chains = 0;
  for (const Node& n : s.graph().nodes) {
    if (n.op_type != "ElementwiseChain") continue;
    ++chains;
    EXPECT_TRUE(n.outputs[0] == "p2" || n.outputs[0] == "q3") << n.outputs[0];
  }
  EXPECT_EQ(chains, 2);
  EXPECT_EQ(s.graph().nodes.size(), 15u - 2u);  // two pairs became one node each
  ExpectSameBits(g, {{"x", Values(rng, {2, 8, 5, 5})},
                     {"z", Values(rng, {2, 8, 5, 5})},
                     {"i", Tensor::FromVector<int32_t>({4}, {1, -7, 2147483647, 0})}});
}

// A float PP-LCNet stage: each convolution kind stores the block's values as it writes its outputs (a 3 x 3 by the
// direct kernel, a strided 3 x 3 by im2row, a depthwise 5 x 5, a pointwise one and the depthwise one after it as
// one PointwiseDepthwiseConv, a grouped one, a 3 x 3 with a Relu already joined), with the bits of the separate
// nodes, channels last and first, on one and two threads; the graph stays channels last between them. A block
// ending in a QuantizeLinear stays a node.
TEST(ElementwiseChainFusion, ChainJoinsTheFloatConvolutionWritingItsInput) {
  std::mt19937 rng(14);
  ModelBuilder b(11);
  b.Input("x", DataType::kFloat, {2, 8, 30, 26});
  auto conv = [&](const std::string& in, const std::string& out, Shape w, int64_t group, int64_t stride) {
    std::normal_distribution<float> d(0.0f, 1.0f / std::sqrt(static_cast<float>(w[1] * w[2] * w[3])));
    Tensor wt(DataType::kFloat, w);
    for (int64_t i = 0; i < wt.size(); ++i) wt.data<float>()[i] = d(rng);
    b.Initializer(out + "/w", wt).Initializer(out + "/b", qdq_test::Floats(rng, {w[0]}, -0.5f, 0.5f));
    auto& n = b.Node("Conv", {in, out + "/w", out + "/b"}, {out});
    n.add_attribute()->CopyFrom(qdq_test::IntsAttr("pads", {w[2] / 2, w[3] / 2, w[2] / 2, w[3] / 2}));
    n.add_attribute()->CopyFrom(qdq_test::IntsAttr("strides", {stride, stride}));
    n.add_attribute()->CopyFrom(qdq_test::IntAttr("group", group));
  };
  conv("x", "c1", {16, 8, 3, 3}, 1, 1);
  LcnetBlock(b, "c1", "b1");
  conv("b1", "c2", {16, 16, 3, 3}, 1, 2);  // [2, 16, 15, 13]
  LcnetBlock(b, "c2", "b2");
  conv("b2", "c3", {16, 1, 5, 5}, 16, 1);
  LcnetBlock(b, "c3", "b3");
  conv("b3", "c4", {32, 16, 1, 1}, 1, 1);
  LcnetBlock(b, "c4", "b4");
  conv("b4", "c5", {32, 1, 3, 3}, 32, 1);  // depthwise after the pointwise one
  LcnetBlock(b, "c5", "b5");
  conv("b5", "c6", {32, 8, 3, 3}, 4, 1);  // four groups
  LcnetBlock(b, "c6", "b6");
  conv("b6", "c7", {16, 32, 3, 3}, 1, 1);
  b.Node("Relu", {"c7"}, {"c7_relu"});
  LcnetBlock(b, "c7_relu", "b7");
  conv("b7", "c8", {16, 16, 1, 1}, 1, 1);
  LcnetBlock(b, "c8", "b8");
  Quantize(b, "b8", "b8_q", 0.05f, Tensor::Scalar<uint8_t>(128));
  b.Output("b7", DataType::kFloat).Output("b8_q", DataType::kUint8);
  const auto g = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "lcnet.onnx"));
  Tensor x(DataType::kFloat, {2, 8, 30, 26});  // finite: a NaN would spread through the convolutions to every output
  std::normal_distribution<float> d(0.0f, 1.0f);
  for (int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = d(rng);
  ExpectSameBits(g, {{"x", x}}, [](const Session& f, bool channels_last, const std::vector<Tensor>& want) {
    EXPECT_EQ(f.fused_float().conv_chains, 7);
    EXPECT_EQ(f.fused_float().elementwise_chains, 1);  // the quantized one
    EXPECT_EQ(qdq_test::Count(f.graph(), "Transpose"), channels_last ? 3 : 0);  // in; out to b7 and to c8's block
    // The pointwise convolution and the depthwise one after it, each with its chain, run as one node.
    const bool pair = channels_last && GetCpuFeatures().avx2_fma;
    EXPECT_EQ(qdq_test::Count(f.graph(), "PointwiseDepthwiseConv"), pair ? 1 : 0);
    int64_t distinct = 0;  // the float output carries the values (finite, varied), not a NaN or a constant
    for (int64_t i = 1; i < want[0].size(); ++i) {
      ASSERT_TRUE(std::isfinite(want[0].data<float>()[i]));
      distinct += want[0].data<float>()[i] != want[0].data<float>()[i - 1];
    }
    EXPECT_GT(distinct, want[0].size() / 2);
  });
}

// An int8 PP-LCNet stage in QDQ form: DequantizeLinear -> Conv -> the block -> QuantizeLinear twice (a 3 x 3 and a
// depthwise one), then a pointwise convolution whose block is an output, and one whose output another node also
// reads. The integer convolutions store the chain's values (quantized when a QuantizeLinear follows) with the bits
// of the separate nodes, channels last and first, on one and two threads; the last one keeps its own chain node.
TEST(ElementwiseChainFusion, ChainJoinsTheIntegerConvolutionWritingItsInput) {
  std::mt19937 rng(15);
  ModelBuilder b(13);
  b.Input("x", DataType::kUint8, {2, 16, 23, 21});
  qdq_test::Params(b, "x", 0.03f, Tensor::Scalar<uint8_t>(120));
  b.Node("DequantizeLinear", {"x", "x/scale", "x/zp"}, {"x/dq"});
  auto conv = [&](const std::string& in, const std::string& out, Shape w, int64_t group) {
    qdq_test::Weight(b, rng, out + "/w", DataType::kInt8, w, w[0], 0);
    b.Initializer(out + "/bias", qdq_test::Floats(rng, {w[0]}, -0.5f, 0.5f));
    auto& n = b.Node("Conv", {in, out + "/w/dq", out + "/bias"}, {out});
    n.add_attribute()->CopyFrom(qdq_test::IntsAttr("pads", {w[2] / 2, w[3] / 2, w[2] / 2, w[3] / 2}));
    n.add_attribute()->CopyFrom(qdq_test::IntAttr("group", group));
  };
  auto requantize = [&](const std::string& in, const std::string& out, float scale) {
    Quantize(b, in, out + "/q", scale, Tensor::Scalar<uint8_t>(110));
    b.Node("DequantizeLinear", {out + "/q", out + "/q/scale", out + "/q/zp"}, {out});
  };
  conv("x/dq", "c1", {16, 16, 3, 3}, 1);
  LcnetBlock(b, "c1", "b1");
  requantize("b1", "a1", 0.04f);
  conv("a1", "c2", {16, 1, 5, 5}, 16);
  LcnetBlock(b, "c2", "b2");
  requantize("b2", "a2", 0.05f);
  conv("a2", "c3", {24, 16, 1, 1}, 1);
  LcnetBlock(b, "c3", "b3");  // float output: the chain without a QuantizeLinear
  conv("a2", "c4", {8, 16, 1, 1}, 1);
  b.Node("Relu", {"c4"}, {"c4_relu"});  // a second reader of c4: its chain stays a node
  LcnetBlock(b, "c4", "b4");
  for (const char* o : {"b3", "b4", "c4_relu"}) b.Output(o, DataType::kFloat);
  const auto g = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "lcnet_int8.onnx"));
  std::mt19937 data_rng(16);
  ExpectSameBits(g, {{"x", qdq_test::Random8(data_rng, DataType::kUint8, {2, 16, 23, 21})}},
                 [](const Session& f, bool, const std::vector<Tensor>&) {
                   EXPECT_EQ(f.fused_float().conv_chains, 3);
                   EXPECT_EQ(f.fused_float().elementwise_chains, 1);
                   EXPECT_EQ(qdq_test::Count(f.graph(), "ElementwiseChain"), 1);
                   EXPECT_EQ(qdq_test::Count(f.graph(), "QuantizeLinear"), 0);
                   EXPECT_EQ(qdq_test::Count(f.graph(), "ConvIntegerToFloat"), 4);
                 });
}

Attributes BadChain(std::vector<std::string> ops, std::vector<int64_t> operands) {
  std::vector<ChainStep> steps(ops.size());
  Attributes attrs = ElementwiseChainAttributes(steps, 0);
  AttributeValue o, r;
  o.kind = AttributeValue::Kind::kStrings;
  o.strings = std::move(ops);
  r.kind = AttributeValue::Kind::kInts;
  r.ints = std::move(operands);
  attrs.Set("ops", o);
  attrs.Set("operands", r);
  return attrs;
}

// A ptq.fused node in a user's model is checked: registers not yet computed, unknown ops, unused operands.
TEST(ElementwiseChainFusion, InconsistentAttributesAreInputErrorsNamingTheStep) {
  auto message = [](const Attributes& attrs) {
    try {
      ElementwiseChainSteps(attrs, "n");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(BadChain({"Add", "Mul"}, {0, -1, 2, -1})).find("step 1 (Mul) has operand 2"), std::string::npos);
  EXPECT_NE(message(BadChain({"Pow"}, {0, -1})).find("unknown op 'Pow'"), std::string::npos);
  EXPECT_NE(message(BadChain({"Relu"}, {0, 0})).find("step 0 (Relu) has operand 0"), std::string::npos);
  EXPECT_NE(message(BadChain({"Add"}, {-1, -1})).find("two constant operands"), std::string::npos);
  EXPECT_NE(message(BadChain({"Add"}, {0})).find("two values a step"), std::string::npos);
  EXPECT_EQ(message(BadChain({"Add", "Clip"}, {0, -1, 1, -1})), "no error");
}

// The two fused convolutions take a chain; other ops do not, nor a float64 FusedConv (the chain is float32).
TEST(ElementwiseChainFusion, ChainsGoWithFloat32Convolutions) {
  const Attributes chain = ElementwiseChainAttributes({ChainStep{}}, 0, kActivationChainPrefix);
  EXPECT_EQ(ReadConvActivation(chain, "ConvIntegerToFloat").chain.size(), 1u);
  EXPECT_EQ(ReadConvActivation(chain, "FusedConv").chain.size(), 1u);
  EXPECT_THROW(ReadConvActivation(chain, "PointwiseDepthwiseConv"), Error);
  Attributes attrs = chain;
  AttributeValue one;
  one.kind = AttributeValue::Kind::kInts;
  one.ints = {1, 1};
  attrs.Set("kernel_shape", one);
  const Tensor x(DataType::kDouble, {1, 1, 2, 2}), w(DataType::kDouble, {1, 1, 1, 1});
  EXPECT_NE(testing::InputErrorOf([&] { testing::RunOp("FusedConv", 1, attrs, {x, w}, 1, false, "ptq.fused"); })
                .find("needs float32 input 'X'"),
            std::string::npos);
}

}  // namespace
}  // namespace ptq
