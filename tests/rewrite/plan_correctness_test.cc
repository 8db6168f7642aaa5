// Regression tests of the quantization plan: a weight shared by differently oriented consumers gets the
// scales each consumer needs, overrides follow reduce_range, int32 biases never saturate, and the
// rewrite names its integer tensors' float twins.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>

#include "report/error_metrics.h"
#include "rewrite/rewriter.h"
#include "runtime/graph.h"
#include "runtime/quant_math.h"
#include "runtime/session.h"
#include "runtime/weight_params.h"
#include "tests/rewrite/tensor_quant_builder.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

using testing::ModelBuilder;
using testing::Param;

onnx::AttributeProto IntAttr(const std::string& name, int64_t v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INT);
  a.set_i(v);
  return a;
}

Tensor RandomMatrix(int64_t rows, int64_t cols, float lo, float hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(static_cast<size_t>(rows * cols));
  for (float& x : v) x = u(rng);
  return Tensor::FromVector<float>({rows, cols}, v);
}

// The outputs of `model` run by ptq's runtime on x.
std::vector<Tensor> RunModel(const onnx::ModelProto& model, const Tensor& x) {
  Session s(std::make_shared<const Graph>(GraphFromModel(model, ".", "test model")));
  return s.Run({{"x", x}});
}

// SQNR of `got` against `ref` (float tensors of one size), as the report measures it.
double SqnrDb(const Tensor& ref, const Tensor& got) {
  ErrorMetrics m;
  m.Add(ref.data<float>(), got.data<float>(), ref.size());
  return m.sqnr_db();
}

const onnx::TensorProto* FindInitializer(const onnx::ModelProto& m, const std::string& name) {
  for (const auto& t : m.graph().initializer()) {
    if (t.name() == name) return &t;
  }
  return nullptr;
}

// A square weight W read by MatMul(x, W) (output channels: W's columns, axis 1) and by
// Gemm(x, W, transB = 1) (output channels: W's rows). Calibration gives W the axis of its first
// consumer, the MatMul. W's columns differ in magnitude by 10x each, so the MatMul's column scales
// applied to the Gemm's rows would clip most of each row.
TEST(PlanCorrectness, AWeightSharedByMatMulAndTransposedGemmGetsEachConsumersChannelAxis) {
  const float magnitude[4] = {0.01f, 0.1f, 1.0f, 10.0f};
  Tensor w = RandomMatrix(4, 4, -1.0f, 1.0f, 7);
  for (int64_t i = 0; i < 16; ++i) w.data<float>()[i] *= magnitude[i % 4];
  ModelBuilder m;
  m.Input("x", DataType::kFloat, {-1, 4}).Output("a", DataType::kFloat, {-1, 4}).Output("b", DataType::kFloat, {-1, 4});
  m.Initializer("W", w);
  m.Node("MatMul", {"x", "W"}, {"a"}, "matmul");
  m.Node("Gemm", {"x", "W"}, {"b"}, "gemm").add_attribute()->CopyFrom(IntAttr("transB", 1));
  const Tensor x = RandomMatrix(64, 4, -1.0f, 1.0f, 8);
  QuantTable table;
  table.tensors["x"] = Param(TensorRole::kActivation, {ChooseQuantParams(-1, 1, DataType::kUint8, false).scale}, DataType::kUint8);
  table.tensors["x"].zero_points = {ChooseQuantParams(-1, 1, DataType::kUint8, false).zero_point};
  table.tensors["W"] = ChooseWeightQuant(w, /*axis=*/1, DataType::kInt8, true);  // what calibration writes
  for (auto format : {QuantFormat::kQdq, QuantFormat::kQOperator}) {
    QuantizationOptions o;
    o.format = format;
    const onnx::ModelProto q = RewriteModel(m.model(), ".", table, o, {}, nullptr);
    const std::vector<Tensor> ref = RunModel(m.model(), x), got = RunModel(q, x);
    EXPECT_GT(SqnrDb(ref[0], got[0]), 35.0) << "MatMul output";
    EXPECT_GT(SqnrDb(ref[1], got[1]), 35.0) << "Gemm output";
  }
}

// With reduce_range, an override's min/max map onto 128 levels (uint8 [0, 127]), like calibrated ranges.
TEST(PlanCorrectness, OverrideRangesFollowReduceRange) {
  ModelBuilder m;
  m.Input("x", DataType::kFloat, {-1, 2}).Output("y", DataType::kFloat, {-1, 2});
  m.Initializer("W", RandomMatrix(2, 2, -1.0f, 1.0f, 3));
  m.Node("MatMul", {"x", "W"}, {"y"}, "mm");
  QuantTable table;
  table.tensors["x"] = Param(TensorRole::kActivation, {0.5f}, DataType::kUint8);
  QuantizationOptions o;
  o.format = QuantFormat::kQdq;
  o.reduce_range = true;
  TensorOverride ov;
  ov.has_range = true;
  ov.min = 0.0f;
  ov.max = 127.0f;
  o.overrides["x"] = ov;
  const onnx::ModelProto q = RewriteModel(m.model(), ".", table, o, {}, nullptr);
  const onnx::TensorProto* scale = FindInitializer(q, "x/scale");
  ASSERT_NE(scale, nullptr);
  Tensor s = TensorFromProto(*scale, ".", "x/scale");
  EXPECT_EQ(s.data<float>()[0], 1.0f);  // 127 / (127 - 0); the full range would give 127 / 255
  // A scale override's zero point must fit the tensor's type.
  TensorOverride bad;
  bad.dtype = DataType::kInt8;
  bad.has_scale = true;
  bad.scale = 0.1f;
  bad.zero_point = 200;
  o.overrides["x"] = bad;
  EXPECT_THROW(RewriteModel(m.model(), ".", table, o, {}, nullptr), Error);
}

// MatMul(x, W) + b with a near-dead column (weights ~1e-7) and a bias of 5: the int32 bias would be
// ~2e10 at the calibrated scales; the plan raises that column's weight scale so that it fits.
TEST(PlanCorrectness, IntegerBiasesAreNeverSaturated) {
  ModelBuilder m;
  m.Input("x", DataType::kFloat, {-1, 2}).Output("y", DataType::kFloat, {-1, 2});
  m.Initializer("W", Tensor::FromVector<float>({2, 2}, {0.5f, 1e-7f, 0.25f, -1e-7f}));
  m.Initializer("B", Tensor::FromVector<float>({2}, {0.5f, 5.0f}));
  m.Node("MatMul", {"x", "W"}, {"p"}, "mm");
  m.Node("Add", {"p", "B"}, {"y"}, "add");
  QuantTable table;
  table.tensors["x"] = Param(TensorRole::kActivation, {100.0f / 255}, DataType::kUint8);
  table.tensors["W"] = ChooseWeightQuant(TensorFromProto(m.model().graph().initializer(0), ".", "W"), 1, DataType::kInt8, true);
  RewriteInfo info;
  QuantizationOptions o;
  o.format = QuantFormat::kQdq;
  const onnx::ModelProto q = RewriteModel(m.model(), ".", table, o, {}, &info);
  ASSERT_EQ(info.warnings.size(), 1u);
  EXPECT_NE(info.warnings[0].find("1 of 2 channel scale(s) of weight 'W' raised"), std::string::npos) << info.warnings[0];
  const Tensor bias = TensorFromProto(*FindInitializer(q, "B/quantized"), ".", "B/quantized");
  for (int64_t c = 0; c < 2; ++c) EXPECT_LE(std::abs(bias.data<int32_t>()[c]), kMaxQuantizedBias) << c;
  const Tensor x = Tensor::FromVector<float>({1, 2}, {50.0f, 20.0f});
  EXPECT_NEAR(RunModel(q, x)[0].data<float>()[1], 5.0f, 0.01f);
}

// The float model already has a tensor named "h/quantized": the rewrite's int8 form of h is then
// "h/quantized_2", and the twins name it (a suffix match would take the float "h/quantized" instead).
TEST(PlanCorrectness, TwinsNameTheIntegerTensorsWhateverTheirNames) {
  ModelBuilder m;
  m.Input("x", DataType::kFloat, {-1, 2}).Output("h/quantized", DataType::kFloat, {-1, 2}).Output("z", DataType::kFloat, {-1, 2});
  m.Initializer("W1", RandomMatrix(2, 2, -1.0f, 1.0f, 1)).Initializer("W2", RandomMatrix(2, 2, -1.0f, 1.0f, 2));
  m.Node("MatMul", {"x", "W1"}, {"h"}, "mm1");
  m.Node("Identity", {"h"}, {"h/quantized"}, "copy");
  m.Node("MatMul", {"h", "W2"}, {"z"}, "mm2");
  QuantTable table;
  for (const char* t : {"x", "h"}) table.tensors[t] = Param(TensorRole::kActivation, {0.01f}, DataType::kUint8);
  RewriteInfo info;
  RewriteModel(m.model(), ".", table, QuantizationOptions(), {}, &info);
  ASSERT_TRUE(info.twins.count("h/quantized_2")) << ::testing::PrintToString(info.twins);
  EXPECT_EQ(info.twins.at("h/quantized_2"), "h");
  EXPECT_FALSE(info.twins.count("h/quantized"));  // the float model's own tensor
  EXPECT_EQ(info.twins.at("x/quantized"), "x");
  EXPECT_EQ(info.quantized_by.at("h"), "mm1");
}

// A post-LN block: the LayerNorm output feeds the next MatMul (integer) and the residual Add (float).
// Edges, not tensors: the Add reads the LayerNorm's float output, not a DequantizeLinear of its 8-bit
// form, in both formats; the MatMul reads the quantized form.
TEST(PlanCorrectness, FloatReadersOfAQuantizedTensorKeepItsFloatValues) {
  ModelBuilder m(17);
  m.Input("x", DataType::kFloat, {-1, 4}).Output("y", DataType::kFloat, {-1, 4});
  m.Initializer("gamma", Tensor::FromVector<float>({4}, {1, 1, 1, 1})).Initializer("beta", Tensor::FromVector<float>({4}, {0, 0, 0, 0}));
  m.Initializer("W", RandomMatrix(4, 4, -1.0f, 1.0f, 11));
  m.Node("LayerNormalization", {"x", "gamma", "beta"}, {"ln"}, "ln");
  m.Node("MatMul", {"ln", "W"}, {"h"}, "mm");
  m.Node("Add", {"ln", "h"}, {"y"}, "residual");
  QuantTable table;
  table.tensors["ln"] = Param(TensorRole::kActivation, {4.0f / 255}, DataType::kUint8);
  table.tensors["ln"].zero_points = {128};
  const Tensor x = RandomMatrix(16, 4, -3.0f, 3.0f, 12);
  for (auto format : {QuantFormat::kQdq, QuantFormat::kQOperator}) {
    QuantizationOptions o;
    o.format = format;
    const onnx::ModelProto q = RewriteModel(m.model(), ".", table, o, {}, nullptr);
    int checked = 0;
    for (const auto& n : q.graph().node()) {
      if (n.op_type() == "Add" && n.output(0) == "y") {
        EXPECT_TRUE(n.input(0) == "ln" || n.input(1) == "ln") << n.input(0) << " + " << n.input(1);
        ++checked;
      }
      if (n.op_type() == "MatMul" || n.op_type() == "MatMulInteger") {
        EXPECT_NE(n.input(0), "ln") << n.op_type() << " reads the float LayerNorm output";
        ++checked;
      }
    }
    EXPECT_EQ(checked, 2);
    RewriteInfo info;
    RewriteModel(m.model(), ".", table, o, {}, &info);
    ASSERT_TRUE(info.readers.count("ln"));
    EXPECT_EQ(info.readers.at("ln").int8, std::vector<std::string>{"mm"});
    EXPECT_EQ(info.readers.at("ln").float_values, std::vector<std::string>{"residual"});
    EXPECT_TRUE(info.readers.at("ln").dequantized.empty());
  }
}

// The record of who reads what, where the float reader of a quantized tensor gets its 8-bit values:
// in QOperator form the first MatMul writes only 8 bits (QLinearMatMul) and the Tanh reads their
// DequantizeLinear; in QDQ form the float MatMul output stays and the Tanh reads it.
TEST(PlanCorrectness, TheRecordOfReadersSaysWhichFormEachReaderGets) {
  ModelBuilder m(17);
  m.Input("x", DataType::kFloat, {-1, 4}).Output("y", DataType::kFloat, {-1, 4}).Output("t", DataType::kFloat, {-1, 4});
  m.Initializer("W1", RandomMatrix(4, 4, -1.0f, 1.0f, 31)).Initializer("W2", RandomMatrix(4, 4, -1.0f, 1.0f, 32));
  m.Node("MatMul", {"x", "W1"}, {"h"}, "mm1");
  m.Node("MatMul", {"h", "W2"}, {"y"}, "mm2");
  m.Node("Tanh", {"h"}, {"t"}, "tanh");
  QuantTable table;
  table.tensors["x"] = Param(TensorRole::kActivation, {0.03f}, DataType::kUint8);
  table.tensors["x"].zero_points = {128};
  table.tensors["h"] = Param(TensorRole::kActivation, {0.05f}, DataType::kUint8);
  table.tensors["h"].zero_points = {128};
  for (auto format : {QuantFormat::kQdq, QuantFormat::kQOperator}) {
    QuantizationOptions o;
    o.format = format;
    RewriteInfo info;
    RewriteModel(m.model(), ".", table, o, {}, &info);
    ASSERT_TRUE(info.readers.count("h"));
    const TensorReaders& r = info.readers.at("h");
    EXPECT_EQ(r.int8, std::vector<std::string>{"mm2"});
    const std::vector<std::string> tanh = {"tanh"};
    EXPECT_EQ(r.dequantized, format == QuantFormat::kQOperator ? tanh : std::vector<std::string>{});
    EXPECT_EQ(r.float_values, format == QuantFormat::kQdq ? tanh : std::vector<std::string>{});
    EXPECT_EQ(info.readers.at("x").int8, std::vector<std::string>{"mm1"});
  }
}

// Conv -> Clip(0, 6) -> Conv (MobileNet's ReLU6): when the Clip output's quantization saturates at 0
// and 6 itself, quantizing does what the Clip does and the Clip folds into the first QLinearConv; when
// its range reaches past 6 it must stay (and the first Conv, read by the float Clip, stays float).
TEST(PlanCorrectness, AClipThatQuantizationDoesExactlyFolds) {
  for (float top : {6.0f, 8.0f}) {
    ModelBuilder m;
    m.Input("x", DataType::kFloat, {-1, 2, 4, 4}).Output("y", DataType::kFloat, {-1, 2, 4, 4});
    m.Initializer("w1", RandomMatrix(2, 2, -1.0f, 1.0f, 21).Reshaped({2, 2, 1, 1}));
    m.Initializer("w2", RandomMatrix(2, 2, -1.0f, 1.0f, 22).Reshaped({2, 2, 1, 1}));
    m.Initializer("lo", Tensor::Scalar<float>(0.0f)).Initializer("hi", Tensor::Scalar<float>(6.0f));
    m.Node("Conv", {"x", "w1"}, {"c1"}, "conv1");
    m.Node("Clip", {"c1", "lo", "hi"}, {"r"}, "relu6");
    m.Node("Conv", {"r", "w2"}, {"y"}, "conv2");
    QuantTable table;
    table.tensors["x"] = Param(TensorRole::kActivation, {0.02f}, DataType::kUint8);
    table.tensors["x"].zero_points = {128};
    table.tensors["c1"] = Param(TensorRole::kActivation, {0.05f}, DataType::kUint8);
    table.tensors["c1"].zero_points = {100};
    table.tensors["r"] = Param(TensorRole::kActivation, {top / 255}, DataType::kUint8);
    table.tensors["y"] = Param(TensorRole::kActivation, {0.05f}, DataType::kUint8);
    table.tensors["y"].zero_points = {128};
    RewriteInfo info;
    RewriteModel(m.model(), ".", table, QuantizationOptions(), {}, &info);
    EXPECT_EQ(info.op_counts["QLinearConv"], top == 6.0f ? 1 : 0) << top;  // the second Conv writes a graph output
    EXPECT_EQ(info.op_counts.count("Clip"), top == 6.0f ? 0u : 1u) << top;
  }
}

}  // namespace
}  // namespace ptq
