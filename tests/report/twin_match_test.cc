// Tests of MatchTwins: 8-bit tensors matched to float tensors by QuantizeLinear inputs and by the names
// ptq and ONNX Runtime give them, and agreement with the rewrite's own record (RewriteInfo::twins).
#include <gtest/gtest.h>

#include "report/twin_match.h"
#include "rewrite/rewriter.h"
#include "tests/rewrite/tensor_quant_builder.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

using testing::ModelBuilder;
using testing::Param;

// x -> MatMul(W) -> y -> Relu -> z.
ModelBuilder FloatModel() {
  ModelBuilder m;
  m.Input("x", DataType::kFloat, {-1, 4}).Output("z", DataType::kFloat, {-1, 3});
  m.Initializer("W", Tensor::FromVector<float>({4, 3}, std::vector<float>(12, 0.5f)));
  m.Node("MatMul", {"x", "W"}, {"y"}, "mm");
  m.Node("Relu", {"y"}, {"z"}, "relu");
  return m;
}

Graph ToGraph(ModelBuilder& m, const std::string& name) { return GraphFromModel(m.model(), ".", name); }

// ONNX Runtime's QDQ names: a QuantizeLinear output of any name whose input is a float tensor, and
// `<x>_QuantizeLinear_Output`; DequantizeLinear outputs and tensors of no known form stay unmatched.
TEST(MatchTwins, QuantizeLinearInputsAndOrtQdqNames) {
  ModelBuilder f = FloatModel();
  ModelBuilder q;
  q.Input("x", DataType::kFloat, {-1, 4}).Output("z", DataType::kFloat, {-1, 3});
  q.Initializer("s", Tensor::Scalar<float>(0.1f)).Initializer("zp", Tensor::Scalar<uint8_t>(0));
  q.Initializer("W_quantized", Tensor::FromVector<int8_t>({4, 3}, std::vector<int8_t>(12, 5)));
  q.Initializer("ws", Tensor::Scalar<float>(0.1f)).Initializer("wzp", Tensor::Scalar<int8_t>(0));
  q.Node("QuantizeLinear", {"x", "s", "zp"}, {"any_name_17"});
  q.Node("DequantizeLinear", {"any_name_17", "s", "zp"}, {"x_DequantizeLinear_Output"});
  q.Node("DequantizeLinear", {"W_quantized", "ws", "wzp"}, {"W_DequantizeLinear_Output"});
  q.Node("MatMul", {"x_DequantizeLinear_Output", "W_DequantizeLinear_Output"}, {"y"});
  q.Node("QuantizeLinear", {"y", "s", "zp"}, {"y_QuantizeLinear_Output"});
  q.Node("DequantizeLinear", {"y_QuantizeLinear_Output", "s", "zp"}, {"y_DequantizeLinear_Output"});
  q.Node("Relu", {"y_DequantizeLinear_Output"}, {"unrelated"});
  q.Node("Identity", {"unrelated"}, {"z"});
  const auto twins = MatchTwins(ToGraph(f, "float"), ToGraph(q, "int8"));
  EXPECT_EQ(twins.at("any_name_17"), "x");
  EXPECT_EQ(twins.at("y_QuantizeLinear_Output"), "y");
  EXPECT_EQ(twins.at("y"), "y");  // rule 3 (a float tensor: Validate finds no scale for it and skips it)
  EXPECT_EQ(twins.count("x_DequantizeLinear_Output"), 0u);
  EXPECT_EQ(twins.count("W_DequantizeLinear_Output"), 0u);  // weights are not node outputs of the float model
  EXPECT_EQ(twins.count("unrelated"), 0u);
  EXPECT_EQ(twins.count("W_quantized"), 0u);  // an initializer, not a node output
}

// QOperator names: ONNX Runtime's `<y>_quantized`, ptq's `<y>/quantized` and, when that was taken,
// `<y>/quantized_2`; a suffix on a name the float model does not have matches nothing.
TEST(MatchTwins, QOperatorOutputNamesOfPtqAndOrt) {
  ModelBuilder f = FloatModel();
  ModelBuilder q;
  q.Input("x", DataType::kFloat, {-1, 4}).Output("z", DataType::kFloat, {-1, 3});
  for (const char* out : {"y_quantized", "y/quantized", "y/quantized_2", "w/quantized", "z_2"}) {
    q.Node("QLinearMatMul", {"a", "as", "az", "b", "bs", "bz", "ys", "yz"}, {out});
  }
  q.Node("Identity", {"y_quantized"}, {"z"});
  const auto twins = MatchTwins(ToGraph(f, "float"), ToGraph(q, "int8"));
  EXPECT_EQ(twins.at("y_quantized"), "y");
  EXPECT_EQ(twins.at("y/quantized"), "y");
  EXPECT_EQ(twins.at("y/quantized_2"), "y");
  EXPECT_EQ(twins.count("w/quantized"), 0u);
  EXPECT_EQ(twins.count("z_2"), 0u);
}

// Every 8-bit tensor the rewrite records with its twin is matched to the same twin from the graphs
// alone, in both formats (QOperator: QuantizeLinear outputs, a QLinearMatMul output and a Flatten run
// on 8 bits, named `<twin>/quantized`).
TEST(MatchTwins, AgreesWithTheRewritesRecord) {
  for (QuantFormat format : {QuantFormat::kQOperator, QuantFormat::kQdq}) {
    ModelBuilder m;
    m.Input("x", DataType::kFloat, {-1, 2}).Output("z", DataType::kFloat, {-1, 2});
    m.Initializer("W1", Tensor::FromVector<float>({2, 2}, {1, 2, 3, 4}));
    m.Initializer("B1", Tensor::FromVector<float>({2}, {0.5f, -0.5f}));
    m.Initializer("W2", Tensor::FromVector<float>({2, 2}, {1, -1, 1, 1}));
    m.Initializer("W3", Tensor::FromVector<float>({2, 2}, {2, 1, -1, 1}));
    m.Node("MatMul", {"x", "W1"}, {"p"}, "mm1");
    m.Node("Add", {"p", "B1"}, {"y1"}, "bias1");
    m.Node("Relu", {"y1"}, {"r"}, "relu");
    m.Node("MatMul", {"r", "W2"}, {"m2"}, "mm2");
    m.Node("Flatten", {"m2"}, {"f"}, "flatten");
    m.Node("MatMul", {"f", "W3"}, {"z"}, "mm3");
    QuantTable table;
    for (const char* t : {"x", "y1", "r", "m2", "f", "z"}) {
      table.tensors[t] = Param(TensorRole::kActivation, {0.05f}, DataType::kUint8);
    }
    QuantizationOptions options;
    options.format = format;
    RewriteInfo info;
    onnx::ModelProto q = RewriteModel(m.model(), ".", table, options, {}, &info);
    const Graph fg = GraphFromModel(m.model(), ".", "float");
    const Graph qg = GraphFromModel(q, ".", "int8");
    ASSERT_FALSE(info.twins.empty());
    const auto twins = MatchTwins(fg, qg);
    for (const auto& [int8, twin] : info.twins) {
      ASSERT_TRUE(twins.count(int8)) << int8 << (format == QuantFormat::kQdq ? " (QDQ)" : " (QOperator)");
      EXPECT_EQ(twins.at(int8), twin) << int8;
    }
  }
}

}  // namespace
}  // namespace ptq
