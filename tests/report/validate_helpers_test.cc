// Regression tests of the report's helpers: histogram bins of values far outside the span, and which
// node the recovery experiment keeps in float for a quantized tensor.
#include <gtest/gtest.h>

#include <limits>

#include "report/keep_float.h"
#include "report/validate.h"
#include "rewrite/rewriter.h"
#include "tests/rewrite/tensor_quant_builder.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

using testing::ModelBuilder;
using testing::Param;

// A value 1e30 above a span of width 1 belongs in the last bin; converting its bin position (6.4e31)
// to int directly is undefined and gave bin 0 on x86.
TEST(ValueBin, ValuesFarOutsideTheSpanFallIntoTheEndBins) {
  EXPECT_EQ(ValueBin(0.5f, 0.0f, 1.0f, 64), 32);
  EXPECT_EQ(ValueBin(0.0f, 0.0f, 1.0f, 64), 0);
  EXPECT_EQ(ValueBin(1.0f, 0.0f, 1.0f, 64), 63);
  EXPECT_EQ(ValueBin(1e30f, 0.0f, 1.0f, 64), 63);
  EXPECT_EQ(ValueBin(-1e30f, 0.0f, 1.0f, 64), 0);
  EXPECT_EQ(ValueBin(std::numeric_limits<float>::max(), -1.0f, 1.0f, 64), 63);
  EXPECT_EQ(ValueBin(std::numeric_limits<float>::infinity(), -1.0f, 1.0f, 64), 63);
  EXPECT_EQ(ValueBin(-std::numeric_limits<float>::infinity(), -1.0f, 1.0f, 64), 0);
}

// x -> MatMul mm1 -> Add (bias) -> y1 -> MatMul mm2 -> z. y1's quantized form is computed by mm1 (with
// its bias folded) and read by mm2: keeping y1 float means keeping both float, the producer first
// (keeping only mm2 float, as the code before did, leaves y1 quantized by mm1).
TEST(KeepFloat, KeepingATensorFloatKeepsItsProducerAndItsIntegerReaders) {
  ModelBuilder m;
  m.Input("x", DataType::kFloat, {-1, 2}).Output("z", DataType::kFloat, {-1, 2});
  m.Initializer("W1", Tensor::FromVector<float>({2, 2}, {1, 2, 3, 4})).Initializer("B1", Tensor::FromVector<float>({2}, {0.5f, -0.5f}));
  m.Initializer("W2", Tensor::FromVector<float>({2, 2}, {1, -1, 1, 1}));
  m.Node("MatMul", {"x", "W1"}, {"p"}, "mm1");
  m.Node("Add", {"p", "B1"}, {"y1"}, "bias1");
  m.Node("MatMul", {"y1", "W2"}, {"z"}, "mm2");
  QuantTable table;
  for (const char* t : {"x", "y1"}) table.tensors[t] = Param(TensorRole::kActivation, {0.05f}, DataType::kUint8);
  RewriteInfo info;
  RewriteModel(m.model(), ".", table, QuantizationOptions(), {}, &info);
  const Graph g = GraphFromModel(m.model(), ".", "float model");
  EXPECT_EQ(info.quantized_by.at("y1"), "mm1");
  EXPECT_EQ(NodesToUnquantize(g, info.quantized_by, "y1"), (std::vector<std::string>{"mm1", "mm2"}));
  // x is quantized for its reader: keeping it float means keeping that reader float.
  EXPECT_EQ(NodesToUnquantize(g, info.quantized_by, "x"), std::vector<std::string>{"mm1"});
}

}  // namespace
}  // namespace ptq
