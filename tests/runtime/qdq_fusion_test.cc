// QDQ execution: the session's fused groups against the literal node-by-node float evaluation of the
// same model (8-bit outputs within one unit, float outputs within float rounding, tables exactly), which
// groups fuse into which integer op, and the literal option that keeps every node.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "runtime/graph.h"
#include "runtime/session.h"
#include "tests/runtime/qdq_test_models.h"

namespace ptq {
namespace {

using testing::ModelBuilder;
using namespace qdq_test;

// Conv (per-channel weights, int32 bias at x_scale * w_scale) -> QuantizeLinear; a depthwise Conv with
// stride 2 -> QuantizeLinear; a MatMul with per-column weights -> QuantizeLinear (int8); a MatMul whose
// float output is a graph output; an attention-style MatMul of two computed quantized tensors; a Conv
// whose bias is a float constant and whose output two nodes read.
std::shared_ptr<const Graph> MixedQdqModel() {
  std::mt19937 rng(3);
  ModelBuilder b(14);  // HardSwish
  b.Input("xq", DataType::kUint8, {2, 8, 10, 10});
  b.Input("aq", DataType::kInt8, {2, 5, 24});
  Params(b, "x", 0.05f, Tensor::Scalar<uint8_t>(120));
  Params(b, "y", 0.08f, Tensor::Scalar<uint8_t>(7));
  Params(b, "z", 0.03f, Tensor::Scalar<uint8_t>(128));
  Params(b, "a", 0.04f, Tensor::Scalar<int8_t>(-3));
  Params(b, "m", 0.1f, Tensor::Scalar<int8_t>(2));
  b.Node("DequantizeLinear", {"xq", "x/scale", "x/zp"}, {"x"});
  Weight(b, rng, "w1", DataType::kInt8, {16, 8, 3, 3}, 16, 0);
  // w1's scales chosen per channel, and an int32 bias at x_scale * w_scale[m] (QLinearConv's bias).
  Tensor w1_scale(DataType::kFloat, {16}), bias_scale(DataType::kFloat, {16});
  for (int64_t m = 0; m < 16; ++m) {
    w1_scale.data<float>()[m] = 0.002f + 0.001f * static_cast<float>(m);
    bias_scale.data<float>()[m] = 0.05f * w1_scale.data<float>()[m];
  }
  for (auto& init : *b.model().mutable_graph()->mutable_initializer()) {
    if (init.name() == "w1/scale") TensorToProto(w1_scale, "w1/scale", &init);
  }
  Tensor bias(DataType::kInt32, {16});
  for (int64_t m = 0; m < 16; ++m) bias.data<int32_t>()[m] = static_cast<int32_t>(m * 37 - 300);
  b.Initializer("b1", bias).Initializer("b1/scale", bias_scale);
  b.Node("DequantizeLinear", {"b1", "b1/scale"}, {"b1/dq"}).add_attribute()->CopyFrom(IntAttr("axis", 0));
  auto& c1 = b.Node("Conv", {"x", "w1/dq", "b1/dq"}, {"c1"}, "conv1");
  c1.add_attribute()->CopyFrom(IntsAttr("pads", {1, 1, 1, 1}));
  b.Node("QuantizeLinear", {"c1", "y/scale", "y/zp"}, {"c1q"});
  // Each group reads the model's inputs, so that a one-unit difference of one group cannot reach another.
  Weight(b, rng, "w2", DataType::kUint8, {8, 1, 3, 3}, 0, 0);
  auto& c2 = b.Node("Conv", {"x", "w2/dq"}, {"c2"}, "depthwise");
  c2.add_attribute()->CopyFrom(IntAttr("group", 8));
  c2.add_attribute()->CopyFrom(IntsAttr("strides", {2, 2}));
  c2.add_attribute()->CopyFrom(IntsAttr("pads", {1, 1, 0, 0}));
  b.Node("QuantizeLinear", {"c2", "z/scale", "z/zp"}, {"c2q"});
  // A Conv with a float bias read twice: float output.
  b.Initializer("b3", Floats(rng, {4}, -1, 1));
  Weight(b, rng, "w3", DataType::kInt8, {4, 8, 1, 1}, 4, 0);
  b.Node("Conv", {"x", "w3/dq", "b3"}, {"c3"}, "conv_float_bias");
  b.Node("Relu", {"c3"}, {"c3r"});
  b.Node("Sigmoid", {"c3"}, {"c3s"});
  // MatMuls.
  b.Node("DequantizeLinear", {"aq", "a/scale", "a/zp"}, {"a"});
  Weight(b, rng, "w4", DataType::kInt8, {24, 40}, 40, 1);
  b.Node("MatMul", {"a", "w4/dq"}, {"mm"}, "matmul_q");
  b.Node("QuantizeLinear", {"mm", "m/scale", "m/zp"}, {"mmq"});
  Weight(b, rng, "w5", DataType::kInt8, {24, 6}, 0, 1);
  b.Node("MatMul", {"a", "w5/dq"}, {"mf"}, "matmul_float");
  b.Node("Transpose", {"aq"}, {"aqt"}).add_attribute()->CopyFrom(IntsAttr("perm", {0, 2, 1}));
  b.Node("DequantizeLinear", {"aqt", "a/scale", "a/zp"}, {"at"});
  b.Node("MatMul", {"a", "at"}, {"scores"}, "attention_scores");
  // Element-wise unary ops between DequantizeLinear and QuantizeLinear: tables.
  Params(b, "s", 1.0f / 255, Tensor::Scalar<uint8_t>(0));
  Params(b, "h", 0.05f, Tensor::Scalar<int8_t>(-20));
  b.Node("Sigmoid", {"a"}, {"sig"});
  b.Node("QuantizeLinear", {"sig", "s/scale", "s/zp"}, {"t_sigmoid"});
  b.Node("HardSwish", {"x"}, {"hsw"});
  b.Node("QuantizeLinear", {"hsw", "h/scale", "h/zp"}, {"t_hardswish"});
  b.Initializer("clip_lo", Tensor::Scalar<float>(-1.0f)).Initializer("clip_hi", Tensor::Scalar<float>(2.5f));
  b.Node("Clip", {"x", "clip_lo", "clip_hi"}, {"clipped"});
  b.Node("QuantizeLinear", {"clipped", "h/scale", "h/zp"}, {"t_clip"});
  b.Node("Tanh", {"a"}, {"tanh"});  // read twice: stays literal
  b.Node("QuantizeLinear", {"tanh", "s/scale", "s/zp"}, {"tanh_q"});
  for (const char* o : {"c1q", "c2q", "c3r", "c3s", "mmq", "mf", "scores", "t_sigmoid", "t_hardswish", "t_clip",
                        "tanh_q", "tanh"}) {
    b.Output(o, DataType::kUndefined);
  }
  return std::make_shared<const Graph>(GraphFromModel(b.model(), "", "qdq.onnx"));
}

std::map<std::string, Tensor> Feeds() {
  std::mt19937 rng(9);
  return {{"xq", Random8(rng, DataType::kUint8, {2, 8, 10, 10})}, {"aq", Random8(rng, DataType::kInt8, {2, 5, 24})}};
}

TEST(QdqExecution, GroupsFuseIntoTheIntegerOpTheirOutputsNeed) {
  const auto graph = MixedQdqModel();
  Session fused(graph, SessionOptions{false});
  EXPECT_EQ(fused.fused().quantized_output, 3);  // conv1, depthwise, matmul_q
  EXPECT_EQ(fused.fused().float_output, 3);      // conv_float_bias, matmul_float, attention_scores
  EXPECT_EQ(fused.fused().tables, 3);            // Sigmoid, HardSwish, Clip
  const Graph& g = fused.graph();
  EXPECT_EQ(Count(g, "QLinearConv"), 2);
  EXPECT_EQ(Count(g, "QLinearMatMul"), 1);
  EXPECT_EQ(Count(g, "ConvIntegerToFloat"), 1);
  EXPECT_EQ(Count(g, "MatMulIntegerToFloat"), 2);
  EXPECT_EQ(Count(g, "LookupTable"), 3);
  EXPECT_EQ(Count(g, "Conv") + Count(g, "MatMul"), 0);
  EXPECT_EQ(Count(g, "QuantizeLinear"), 1);  // Tanh's, whose output is also a graph output
  // Only the dequantization Tanh reads is left.
  EXPECT_EQ(Count(g, "DequantizeLinear"), 1);
  Session literal(graph, SessionOptions{true});
  EXPECT_EQ(literal.fused().total(), 0);
  EXPECT_EQ(literal.graph().nodes.size(), graph->nodes.size());
}

TEST(QdqExecution, FusedOutputsMatchTheLiteralEvaluation) {
  const auto graph = MixedQdqModel();
  Session fused(graph, SessionOptions{false}), literal(graph, SessionOptions{true});
  const auto feeds = Feeds();
  const std::vector<Tensor> got = fused.Run(feeds), want = literal.Run(feeds);
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < want.size(); ++o) {
    const std::string name = graph->outputs[o].name;
    ASSERT_EQ(got[o].dtype(), want[o].dtype()) << name;
    ASSERT_EQ(got[o].shape(), want[o].shape()) << name;
    if (name.rfind("t_", 0) == 0) {  // tables: the literal evaluation itself
      ASSERT_EQ(0, std::memcmp(got[o].raw(), want[o].raw(), static_cast<size_t>(want[o].size()))) << name;
      continue;
    }
    if (want[o].dtype() != DataType::kFloat) {
      // One unit at most: the literal path rounds a float sum, the fused one an exact integer sum times
      // the multiplier; they differ only where that lands on the other side of a .5 boundary.
      int64_t differ = 0;
      for (int64_t i = 0; i < want[o].size(); ++i) {
        const double d = std::abs(got[o].GetAsDouble(i) - want[o].GetAsDouble(i));
        ASSERT_LE(d, 1.0) << name << " element " << i;
        differ += d != 0;
      }
      EXPECT_LE(differ * 100, want[o].size()) << name << ": more than 1% of the values differ";
      continue;
    }
    // Float outputs: the literal sum of float products against the exact integer sum scaled once.
    double peak = 0;
    for (int64_t i = 0; i < want[o].size(); ++i) peak = std::max(peak, std::abs(want[o].GetAsDouble(i)));
    ASSERT_GT(peak, 0) << name;
    constexpr double kRelativeTolerance = 1e-5;
    for (int64_t i = 0; i < want[o].size(); ++i) {
      ASSERT_NEAR(got[o].GetAsDouble(i), want[o].GetAsDouble(i), kRelativeTolerance * peak) << name << " element " << i;
    }
  }
}

TEST(QdqExecution, GroupsTheIntegerOpsCannotComputeStayLiteral) {
  std::mt19937 rng(4);
  ModelBuilder b(13);
  b.Input("xq", DataType::kUint8, {1, 3, 4});
  Params(b, "x", 0.05f, Tensor::Scalar<uint8_t>(100));
  b.Node("DequantizeLinear", {"xq", "x/scale", "x/zp"}, {"x"});
  // A float weight (no DequantizeLinear), and a weight quantized per row (axis 0) of a MatMul.
  b.Initializer("wf", Floats(rng, {4, 2}, -1, 1));
  b.Node("MatMul", {"x", "wf"}, {"y1"});
  Weight(b, rng, "wr", DataType::kInt8, {4, 2}, 4, 0);
  b.Node("MatMul", {"x", "wr/dq"}, {"y2"});
  b.Output("y1", DataType::kFloat).Output("y2", DataType::kFloat);
  Session s(std::make_shared<const Graph>(GraphFromModel(b.model(), "", "m.onnx")), SessionOptions{false});
  EXPECT_EQ(s.fused().total(), 0);
  EXPECT_EQ(Count(s.graph(), "MatMul"), 2);
}

// Gemm as ONNX Runtime's quantizer writes it: a [N, K] weight per row with transB = 1 and a bias (float
// output), and a [K, N] weight without bias read only by a QuantizeLinear.
TEST(QdqExecution, GemmGroupsFuseLikeMatMul) {
  std::mt19937 rng(6);
  ModelBuilder b(13);
  b.Input("xq", DataType::kUint8, {3, 24});
  Params(b, "x", 0.05f, Tensor::Scalar<uint8_t>(130));
  Params(b, "y", 0.2f, Tensor::Scalar<uint8_t>(128));
  b.Node("DequantizeLinear", {"xq", "x/scale", "x/zp"}, {"x"});
  Weight(b, rng, "wt", DataType::kInt8, {10, 24}, 10, 0);
  b.Initializer("bias", Floats(rng, {10}, -1, 1));
  b.Node("Gemm", {"x", "wt/dq", "bias"}, {"fc"}, "fc").add_attribute()->CopyFrom(IntAttr("transB", 1));
  Weight(b, rng, "w", DataType::kInt8, {24, 7}, 7, 1);
  b.Node("Gemm", {"x", "w/dq"}, {"g"}, "gemm_q");
  b.Node("QuantizeLinear", {"g", "y/scale", "y/zp"}, {"gq"});
  b.Output("fc", DataType::kFloat).Output("gq", DataType::kUint8);
  const auto graph = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "gemm.onnx"));
  Session s(graph, SessionOptions{false});
  EXPECT_EQ(Count(s.graph(), "MatMulIntegerToFloat"), 1);
  EXPECT_EQ(Count(s.graph(), "QLinearMatMul"), 1);
  EXPECT_EQ(Count(s.graph(), "Gemm"), 0);
  std::map<std::string, Tensor> feeds = {{"xq", Random8(rng, DataType::kUint8, {3, 24})}};
  const FusedAndLiteral r = RunBoth(graph, feeds);
  ASSERT_EQ(r.fused[0].shape(), (Shape{3, 10}));
  double peak = 0;
  for (int64_t i = 0; i < r.literal[0].size(); ++i) peak = std::max(peak, std::abs(r.literal[0].GetAsDouble(i)));
  for (int64_t i = 0; i < r.literal[0].size(); ++i) {
    EXPECT_NEAR(r.fused[0].GetAsDouble(i), r.literal[0].GetAsDouble(i), 1e-5 * peak) << "element " << i;
  }
  int64_t differ = 0;
  EXPECT_LE(MaxUnitsApart(r.fused[1], r.literal[1], &differ), 1.0);
}

// The QDQ form of a MatMul with a bias: Add(DequantizeLinear(int32 bias), MatMul) (either order, or a
// float bias) joins the MatMulIntegerToFloat; an Add of a computed tensor (a residual) stays.
TEST(QdqExecution, AMatMulsBiasAddJoinsItsFusedNode) {
  std::mt19937 rng(9);
  ModelBuilder b(13);
  b.Input("xq", DataType::kUint8, {2, 4, 24});
  Params(b, "x", 0.05f, Tensor::Scalar<uint8_t>(120));
  b.Node("DequantizeLinear", {"xq", "x/scale", "x/zp"}, {"x"});
  Weight(b, rng, "w", DataType::kInt8, {24, 6}, 6, 1);
  Tensor bias(DataType::kInt32, {6});
  for (int64_t n = 0; n < 6; ++n) bias.data<int32_t>()[n] = static_cast<int32_t>(n * 700 - 2000);
  b.Initializer("bias", bias).Initializer("bias/scale", Floats(rng, {6}, 1e-4f, 1e-3f));
  b.Node("DequantizeLinear", {"bias", "bias/scale"}, {"bias/dq"}).add_attribute()->CopyFrom(IntAttr("axis", 0));
  b.Node("MatMul", {"x", "w/dq"}, {"mm1"});
  b.Node("Add", {"bias/dq", "mm1"}, {"y1"});
  b.Initializer("fbias", Floats(rng, {6}, -1, 1));
  b.Node("MatMul", {"x", "w/dq"}, {"mm2"});
  b.Node("Add", {"mm2", "fbias"}, {"y2"});
  b.Node("MatMul", {"x", "w/dq"}, {"mm3"});
  b.Node("Add", {"mm3", "y2"}, {"y3"});  // a residual, not a bias
  b.Output("y1", DataType::kFloat).Output("y2", DataType::kFloat).Output("y3", DataType::kFloat);
  const auto graph = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "bias.onnx"));
  Session s(graph, SessionOptions{false});
  EXPECT_EQ(Count(s.graph(), "MatMulIntegerToFloat"), 3);
  EXPECT_EQ(Count(s.graph(), "Add"), 1);
  const FusedAndLiteral r = RunBoth(graph, {{"xq", Random8(rng, DataType::kUint8, {2, 4, 24})}});
  for (size_t o = 0; o < 3; ++o) {
    ASSERT_EQ(r.fused[o].shape(), (Shape{2, 4, 6}));
    double peak = 0;
    for (int64_t i = 0; i < r.literal[o].size(); ++i) peak = std::max(peak, std::abs(r.literal[o].GetAsDouble(i)));
    for (int64_t i = 0; i < r.literal[o].size(); ++i) {
      EXPECT_NEAR(r.fused[o].GetAsDouble(i), r.literal[o].GetAsDouble(i), 1e-5 * peak) << "output " << o << " element " << i;
    }
  }
}

// DequantizeLinear -> Transpose / Reshape -> QuantizeLinear with the same parameters runs the op on the
// 8-bit tensor, with the literal bits; a QuantizeLinear with another scale keeps the group literal.
TEST(QdqExecution, DataMovementBetweenEqualQuantizationsRunsOnEightBits) {
  std::mt19937 rng(10);
  ModelBuilder b(13);
  b.Input("xq", DataType::kInt8, {2, 3, 4});
  Params(b, "x", 0.037f, Tensor::Scalar<int8_t>(-3));
  Params(b, "other", 0.05f, Tensor::Scalar<int8_t>(-3));
  b.Node("DequantizeLinear", {"xq", "x/scale", "x/zp"}, {"x"});
  b.Node("Transpose", {"x"}, {"t"}).add_attribute()->CopyFrom(IntsAttr("perm", {0, 2, 1}));
  b.Node("QuantizeLinear", {"t", "x/scale", "x/zp"}, {"tq"});
  b.Initializer("shape", Tensor::FromVector<int64_t>({2}, {6, 4}));
  b.Node("Reshape", {"x", "shape"}, {"r"});
  b.Node("QuantizeLinear", {"r", "x/scale", "x/zp"}, {"rq"});
  b.Node("Transpose", {"x"}, {"t2"}).add_attribute()->CopyFrom(IntsAttr("perm", {2, 1, 0}));
  b.Node("QuantizeLinear", {"t2", "other/scale", "other/zp"}, {"t2q"});
  b.Output("tq", DataType::kInt8).Output("rq", DataType::kInt8).Output("t2q", DataType::kInt8);
  const auto graph = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "movement.onnx"));
  const FusedAndLiteral r = RunBoth(graph, {{"xq", Random8(rng, DataType::kInt8, {2, 3, 4})}});
  EXPECT_EQ(r.count.movement, 2);
  Session s(graph, SessionOptions{false});
  EXPECT_EQ(Count(s.graph(), "QuantizeLinear"), 1);  // the other scale's
  for (size_t o = 0; o < 3; ++o) {
    ASSERT_EQ(r.fused[o].shape(), r.literal[o].shape()) << o;
    EXPECT_EQ(0, std::memcmp(r.fused[o].raw(), r.literal[o].raw(), r.literal[o].nbytes())) << "output " << o;
  }
}

// The QOperator form of a MatMul with a bias and float readers: MatMulInteger -> Add(int32 bias) ->
// DequantizeLinear(scale per column); one without a bias, scale per tensor; and attention's scores of two
// computed tensors. Each becomes one MatMulIntegerToFloat with the nodes' bits.
TEST(QdqExecution, MatMulIntegerWithBiasAndDequantizeFusesWithTheSameBits) {
  std::mt19937 rng(8);
  ModelBuilder b(13);
  b.Input("aq", DataType::kUint8, {2, 5, 24});
  b.Initializer("a/zp", Tensor::Scalar<uint8_t>(131));
  b.Initializer("w", Random8(rng, DataType::kInt8, {24, 7})).Initializer("w/zp", Tensor::Scalar<int8_t>(0));
  Tensor bias(DataType::kInt32, {7});
  for (int64_t n = 0; n < 7; ++n) bias.data<int32_t>()[n] = static_cast<int32_t>(n * 911 - 3000);
  b.Initializer("bias", bias).Initializer("scale", Floats(rng, {7}, 1e-4f, 1e-3f));
  b.Initializer("scale1", Tensor::Scalar<float>(3e-4f));
  b.Node("MatMulInteger", {"aq", "w", "a/zp", "w/zp"}, {"acc"});
  b.Node("Add", {"acc", "bias"}, {"acc_b"});
  b.Node("DequantizeLinear", {"acc_b", "scale"}, {"y"}).add_attribute()->CopyFrom(IntAttr("axis", -1));
  b.Node("Shape", {"acc_b"}, {"acc_shape"});  // exporters' reshape logic: then reads y's shape
  b.Node("MatMulInteger", {"aq", "w", "a/zp", "w/zp"}, {"acc2"});
  b.Node("DequantizeLinear", {"acc2", "scale1"}, {"y2"});
  // Attention's scores: both operands computed.
  b.Node("Transpose", {"aq"}, {"aqt"}).add_attribute()->CopyFrom(IntsAttr("perm", {0, 2, 1}));
  b.Node("MatMulInteger", {"aq", "aqt", "a/zp", "a/zp"}, {"acc3"});
  b.Node("DequantizeLinear", {"acc3", "scale1"}, {"y3"});
  b.Output("y", DataType::kFloat).Output("y2", DataType::kFloat).Output("y3", DataType::kFloat);
  b.Output("acc_shape", DataType::kInt64);
  const auto graph = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "qop.onnx"));
  const FusedAndLiteral r = RunBoth(graph, {{"aq", Random8(rng, DataType::kUint8, {2, 5, 24})}});
  EXPECT_EQ(r.count.integer_outputs, 3);
  for (size_t o = 0; o < 4; ++o) {
    ASSERT_EQ(r.fused[o].shape(), r.literal[o].shape());
    EXPECT_EQ(0, std::memcmp(r.fused[o].raw(), r.literal[o].raw(), r.literal[o].nbytes())) << graph->outputs[o].name;
  }
}

}  // namespace
}  // namespace ptq
