// A Conv whose bias does not hold one float per output channel stays float (with the reason) instead of
// having its bias quantized with scales it does not have; a well-formed bias is quantized.
#include <gtest/gtest.h>

#include <string>

#include "rewrite/rewriter.h"
#include "tests/rewrite/tensor_quant_builder.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

using testing::ModelBuilder;

Tensor Filled(const Shape& shape, float v) {
  Tensor t(DataType::kFloat, shape);
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = v * static_cast<float>(i + 1);
  return t;
}

using testing::Param;

// x [1, 1, 4, 4] -> Conv(w [2, 1, 1, 1], b [bias_len]) -> y -> Conv(v) -> z, with a per-channel table
// for w.
RewriteInfo RewriteConv(int64_t bias_len) {
  ModelBuilder m;
  m.Input("x", DataType::kFloat, {1, 1, 4, 4}).Initializer("w", Filled({2, 1, 1, 1}, 0.5f));
  m.Initializer("b", Filled({bias_len}, 0.1f));
  m.Initializer("v", Filled({1, 2, 1, 1}, 0.25f));
  m.Node("Conv", {"x", "w", "b"}, {"y"}, "conv");
  m.Node("Conv", {"y", "v"}, {"z"}, "next");  // y is read by an integer node only: QLinearConv can write it
  m.Output("z", DataType::kFloat, {1, 1, 4, 4});
  QuantTable table;
  table.tensors["x"] = Param(TensorRole::kActivation, {0.01f}, DataType::kUint8);
  table.tensors["y"] = Param(TensorRole::kActivation, {0.02f}, DataType::kUint8);
  table.tensors["w"] = Param(TensorRole::kWeight, {0.004f, 0.008f}, DataType::kInt8, 0);
  RewriteInfo info;
  RewriteModel(m.model(), ".", table, QuantizationOptions(), {}, &info);
  return info;
}

TEST(ConvBiasPlan, BiasLongerThanTheOutputChannelsKeepsTheConvFloat) {
  const RewriteInfo info = RewriteConv(5);
  ASSERT_EQ(info.skipped.size(), 1u);
  EXPECT_NE(info.skipped[0].find("its bias is not a float vector with one value per output channel"), std::string::npos)
      << info.skipped[0];
  EXPECT_EQ(info.op_counts.count("QLinearConv"), 0u);
  EXPECT_EQ(info.op_counts.at("Conv"), 2);  // the second reads a float input: its producer stays float
}

TEST(ConvBiasPlan, BiasWithOneValuePerChannelIsQuantized) {
  const RewriteInfo info = RewriteConv(2);
  EXPECT_TRUE(info.skipped.empty());
  ASSERT_EQ(info.op_counts.count("QLinearConv"), 1u);
  EXPECT_EQ(info.op_counts.at("QLinearConv"), 1);
}

}  // namespace
}  // namespace ptq
