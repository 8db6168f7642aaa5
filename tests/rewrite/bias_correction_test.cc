// Bias correction: the per-channel shift by its formula for MatMul and grouped Conv (hand-computed
// from exactly representable weights), and the rewrite subtracting it from the bias, adding a bias to
// a Conv without one, and naming the nodes it cannot correct.
#include <gtest/gtest.h>

#include <memory>

#include "rewrite/bias_correction.h"
#include "rewrite/rewrite_graph.h"
#include "rewrite/rewriter.h"
#include "runtime/graph.h"
#include "runtime/session.h"
#include "tests/rewrite/tensor_quant_builder.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

using testing::ModelBuilder;
using testing::Param;

TensorQuant WithMeans(TensorQuant q, Shape shape, int64_t axis, std::vector<float> fmean, std::vector<float> qmean) {
  q.shape = std::move(shape);
  q.mean_axis = axis;
  q.float_mean = std::move(fmean);
  q.quantized_mean = std::move(qmean);
  return q;
}

const onnx::NodeProto& NodeNamed(const onnx::ModelProto& m, const std::string& name) {
  for (const auto& n : m.graph().node()) {
    if (n.name() == name) return n;
  }
  throw std::runtime_error("no node " + name);
}

TEST(BiasCorrection, MatMulShiftIsTheInputsMeanErrorThroughTheWeight) {
  ModelBuilder m;
  m.Input("x", DataType::kFloat, {-1, 2}).Output("y", DataType::kFloat);
  // Multiples of 0.25: quantizing with scale 0.25 is exact, so only the input's error shifts y.
  m.Initializer("w", Tensor::FromVector<float>({2, 2}, {0.5f, -1, 0.25f, 2}));
  m.Node("MatMul", {"x", "w"}, {"y"}, "mm");
  const RewriteGraph g(m.model());
  const TensorQuant x = WithMeans(Param(TensorRole::kActivation, {0.1f}, DataType::kUint8), {8, 2}, 1, {1, 2}, {1.1f, 1.9f});
  const TensorQuant w = Param(TensorRole::kWeight, {0.25f, 0.25f}, DataType::kInt8, 1);
  // shift[o] = sum_k W[k, o] (E[Q(x)_k] - E[x_k]): 0.5 * 0.1 + 0.25 * -0.1 and -1 * 0.1 + 2 * -0.1
  const std::vector<float> s = BiasShift(g, NodeNamed(m.model(), "mm"), x, w);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_NEAR(s[0], 0.025, 1e-6);
  EXPECT_NEAR(s[1], -0.3, 1e-6);
}

TEST(BiasCorrection, TheWeightsRoundingErrorCountsToo) {
  ModelBuilder m;
  m.Input("x", DataType::kFloat, {-1, 2}).Output("y", DataType::kFloat);
  m.Initializer("w", Tensor::FromVector<float>({2, 1}, {0.3f, 0}));  // 0.3 quantizes to 0.25 with scale 0.25
  m.Node("MatMul", {"x", "w"}, {"y"}, "mm");
  const RewriteGraph g(m.model());
  const TensorQuant x = WithMeans(Param(TensorRole::kActivation, {0.1f}, DataType::kUint8), {8, 2}, 1, {2, 5}, {2, 5});
  const std::vector<float> s = BiasShift(g, NodeNamed(m.model(), "mm"), x, Param(TensorRole::kWeight, {0.25f}, DataType::kInt8, 1));
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NEAR(s[0], (0.25 - 0.3) * 2, 1e-6);
}

TEST(BiasCorrection, GroupedConvSumsItsGroupsChannelsOverTheWindow) {
  ModelBuilder m;
  m.Input("x", DataType::kFloat, {1, 2, 4, 4}).Output("y", DataType::kFloat);
  m.Initializer("w", Tensor::FromVector<float>({2, 1, 1, 2}, {0.5f, 0.25f, 1, -0.5f}));  // depthwise, window 1x2
  auto& conv = m.Node("Conv", {"x", "w"}, {"y"}, "dw");
  auto* a = conv.add_attribute();
  a->set_name("group");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(2);
  const RewriteGraph g(m.model());
  const TensorQuant x = WithMeans(Param(TensorRole::kActivation, {0.1f}, DataType::kUint8), {1, 2, 4, 4}, 1, {1, 3}, {1.5f, 2});
  const std::vector<float> s =
      BiasShift(g, NodeNamed(m.model(), "dw"), x, Param(TensorRole::kWeight, {0.25f, 0.25f}, DataType::kInt8, 0));
  ASSERT_EQ(s.size(), 2u);
  EXPECT_NEAR(s[0], (0.5 + 0.25) * (1.5 - 1), 1e-6);   // output 0 reads channel 0 only
  EXPECT_NEAR(s[1], (1 - 0.5) * (2 - 3), 1e-6);        // output 1 reads channel 1 only
  // Means along another axis than the channels the Conv reads: no correction.
  EXPECT_TRUE(BiasShift(g, NodeNamed(m.model(), "dw"), WithMeans(x, {1, 2, 4, 4}, 3, {1, 1, 1, 1}, {1, 1, 1, 1}),
                        Param(TensorRole::kWeight, {0.25f, 0.25f}, DataType::kInt8, 0))
                  .empty());
}

TEST(BiasCorrection, GroupedConvMapsEachOutputToItsGroupsInputs) {
  ModelBuilder m;
  m.Input("x", DataType::kFloat, {1, 4, 4, 4}).Output("y", DataType::kFloat);
  // group 2: outputs 0-2 read channels 0-1, outputs 3-5 read channels 2-3 (3 outputs, 2 inputs per group)
  m.Initializer("w", Tensor::FromVector<float>({6, 2, 1, 1}, {1, 2, 0.5f, 1, 0, 1, 1, 1, 2, 0.5f, 0, 0.25f}));
  auto& conv = m.Node("Conv", {"x", "w"}, {"y"}, "grouped");
  auto* a = conv.add_attribute();
  a->set_name("group");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(2);
  const RewriteGraph g(m.model());
  // E[Q(x)] - E[x] per channel: 0.5, 0, 0, 1
  const TensorQuant x =
      WithMeans(Param(TensorRole::kActivation, {0.1f}, DataType::kUint8), {1, 4, 4, 4}, 1, {1, 1, 1, 1}, {1.5f, 1, 1, 2});
  const std::vector<float> s = BiasShift(g, NodeNamed(m.model(), "grouped"), x,
                                         Param(TensorRole::kWeight, std::vector<float>(6, 0.25f), DataType::kInt8, 0));
  EXPECT_EQ(s, (std::vector<float>{0.5f, 0.25f, 0, 1, 0.5f, 0.25f}));
}

// x [1, 2, 2, 2] -> Conv(w [2, 2, 1, 1], no bias) -> y. The table's means say Q(x) is 0.5 too high in
// channel 0: the rewritten Conv gets a bias of -(w[o, 0] * 0.5) and its output drops by that.
TEST(BiasCorrection, AConvWithoutBiasGetsTheCorrectionAsItsBias) {
  for (QuantFormat format : {QuantFormat::kQOperator, QuantFormat::kQdq}) {
    ModelBuilder m;
    m.Input("x", DataType::kFloat, {1, 2, 2, 2}).Output("y", DataType::kFloat, {1, 2, 2, 2});
    m.Initializer("w", Tensor::FromVector<float>({2, 2, 1, 1}, {1, 0, 0.5f, 0.5f}));
    m.Node("Conv", {"x", "w"}, {"y"}, "conv");
    QuantTable table;
    table.tensors["x"] = WithMeans(Param(TensorRole::kActivation, {0.5f}, DataType::kUint8), {1, 2, 2, 2}, 1, {1, 1}, {1.5f, 1});
    table.tensors["y"] = Param(TensorRole::kActivation, {0.25f}, DataType::kUint8);
    table.tensors["w"] = Param(TensorRole::kWeight, {0.5f, 0.5f}, DataType::kInt8, 0);
    QuantizationOptions o;
    o.format = format;
    o.bias_correction = true;
    RewriteInfo info;
    const onnx::ModelProto q = RewriteModel(m.model(), ".", table, o, {}, &info);
    EXPECT_EQ(info.bias_corrected, (std::vector<std::string>{"conv"}));
    o.bias_correction = false;
    const onnx::ModelProto plain = RewriteModel(m.model(), ".", table, o, {}, nullptr);
    auto run = [](const onnx::ModelProto& model) {
      Session s(std::make_shared<const Graph>(GraphFromModel(model, ".", "test")));
      const Tensor x = Tensor::FromVector<float>({1, 2, 2, 2}, {1, 1, 2, 2, 1, 1, 1, 1});  // multiples of the scale
      return s.Run({{"x", x}})[0];
    };
    const Tensor yc = run(q), yp = run(plain);
    for (int64_t i = 0; i < 4; ++i) {  // channel 0: 1.0 * x0 - 0.5; channel 1: 0.5 x0 + 0.5 x1 - 0.25
      EXPECT_FLOAT_EQ(yp.data<float>()[i] - yc.data<float>()[i], 0.5f) << "channel 0, element " << i;
      EXPECT_FLOAT_EQ(yp.data<float>()[4 + i] - yc.data<float>()[4 + i], 0.25f) << "channel 1, element " << i;
    }
  }
}

TEST(BiasCorrection, NodesItCannotCorrectAreNamedWithTheReason) {
  ModelBuilder m;
  m.Input("x", DataType::kFloat, {-1, 2}).Output("y", DataType::kFloat, {-1, 2});
  m.Initializer("w", Tensor::FromVector<float>({2, 2}, {0.5f, -1, 0.25f, 2}));
  m.Node("MatMul", {"x", "w"}, {"y"}, "mm");  // no bias Add to correct
  QuantTable table;
  table.tensors["x"] = WithMeans(Param(TensorRole::kActivation, {0.1f}, DataType::kUint8), {8, 2}, 1, {1, 2}, {1.1f, 1.9f});
  table.tensors["y"] = Param(TensorRole::kActivation, {0.1f}, DataType::kUint8);
  QuantizationOptions o;
  o.bias_correction = true;
  RewriteInfo info;
  RewriteModel(m.model(), ".", table, o, {}, &info);
  EXPECT_TRUE(info.bias_corrected.empty());
  ASSERT_EQ(info.bias_not_corrected.size(), 1u);
  EXPECT_NE(info.bias_not_corrected[0].find("no bias"), std::string::npos) << info.bias_not_corrected[0];
  table.tensors["x"].float_mean.clear();  // a merged table: no means
  table.tensors["x"].quantized_mean.clear();
  RewriteModel(m.model(), ".", table, o, {}, &info);
  EXPECT_NE(info.bias_not_corrected[0].find("no channel means"), std::string::npos) << info.bias_not_corrected[0];
}

}  // namespace
}  // namespace ptq
