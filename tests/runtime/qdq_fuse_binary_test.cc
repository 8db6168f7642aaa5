// QDQ execution of DequantizeLinear(a), DequantizeLinear(b) -> Add / Mul -> QuantizeLinear: the fused
// QLinearAdd / QLinearMul gives the literal evaluation's bits, with broadcasting and mixed 8-bit types.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "tests/runtime/qdq_test_models.h"

namespace ptq {
namespace {

using namespace qdq_test;

// A residual Add of two uint8 tensors (same shape), a squeeze-excitation Mul of an int8 tensor by a
// uint8 gate per channel ([N, C, H, W] * [N, C, 1, 1]) into uint8, an Add of a quantized constant
// scalar, and an Add whose output a float node also reads (stays literal).
std::shared_ptr<const Graph> BinaryModel() {
  std::mt19937 rng(5);
  ModelBuilder b(13);
  b.Input("xq", DataType::kUint8, {2, 6, 7, 9});
  b.Input("rq", DataType::kUint8, {2, 6, 7, 9});
  b.Input("sq", DataType::kInt8, {2, 6, 7, 9});
  b.Input("gq", DataType::kUint8, {2, 6, 1, 1});
  Params(b, "x", 0.05f, Tensor::Scalar<uint8_t>(120));
  Params(b, "r", 0.031f, Tensor::Scalar<uint8_t>(3));
  Params(b, "s", 0.02f, Tensor::Scalar<int8_t>(-5));
  Params(b, "g", 1.0f / 255, Tensor::Scalar<uint8_t>(0));
  Params(b, "y", 0.07f, Tensor::Scalar<uint8_t>(100));
  Params(b, "k", 0.5f, Tensor::Scalar<int8_t>(0));
  for (const char* t : {"x", "r", "s", "g"}) {
    b.Node("DequantizeLinear", {std::string(t) + "q", std::string(t) + "/scale", std::string(t) + "/zp"}, {t});
  }
  b.Node("Add", {"x", "r"}, {"sum"}, "residual");
  b.Node("QuantizeLinear", {"sum", "y/scale", "y/zp"}, {"sum_q"});
  b.Node("Mul", {"s", "g"}, {"gated"}, "excite");
  b.Node("QuantizeLinear", {"gated", "y/scale", "y/zp"}, {"gated_q"});
  b.Initializer("kq", Tensor::Scalar<int8_t>(7));
  b.Node("DequantizeLinear", {"kq", "k/scale", "k/zp"}, {"k"});
  b.Node("Add", {"k", "x"}, {"shifted"}, "constant_first");
  b.Node("QuantizeLinear", {"shifted", "y/scale", "y/zp"}, {"shifted_q"});
  b.Node("Add", {"x", "s"}, {"both"}, "read_twice");
  b.Node("QuantizeLinear", {"both", "y/scale", "y/zp"}, {"both_q"});
  b.Node("Relu", {"both"}, {"both_relu"});
  for (const char* o : {"sum_q", "gated_q", "shifted_q", "both_q", "both_relu"}) b.Output(o, DataType::kUndefined);
  return std::make_shared<const Graph>(GraphFromModel(b.model(), "", "binary.onnx"));
}

TEST(QdqBinaryFusion, AddAndMulOfQuantizedTensorsGiveTheLiteralBits) {
  std::mt19937 rng(8);
  const auto graph = BinaryModel();
  const std::map<std::string, Tensor> feeds = {{"xq", Random8(rng, DataType::kUint8, {2, 6, 7, 9})},
                                               {"rq", Random8(rng, DataType::kUint8, {2, 6, 7, 9})},
                                               {"sq", Random8(rng, DataType::kInt8, {2, 6, 7, 9})},
                                               {"gq", Random8(rng, DataType::kUint8, {2, 6, 1, 1})}};
  const FusedAndLiteral r = RunBoth(graph, feeds);
  EXPECT_EQ(r.count.binary, 3);  // residual, excite, constant_first
  EXPECT_EQ(r.count.total(), 3);
  for (size_t o = 0; o < r.literal.size(); ++o) {
    const Tensor& want = r.literal[o];
    ASSERT_EQ(r.fused[o].dtype(), want.dtype()) << graph->outputs[o].name;
    ASSERT_EQ(r.fused[o].shape(), want.shape()) << graph->outputs[o].name;
    EXPECT_EQ(0, std::memcmp(r.fused[o].raw(), want.raw(), want.nbytes())) << graph->outputs[o].name;
  }
  // The values saturate somewhere, so the clamp is exercised too.
  int64_t at_top = 0;
  for (int64_t i = 0; i < r.fused[0].size(); ++i) at_top += r.fused[0].GetAsDouble(i) == 255;
  EXPECT_GT(at_top, 0);
}

TEST(QdqBinaryFusion, FusedGraphHoldsQLinearOpsAndNoFloatAdd) {
  Session s(BinaryModel(), SessionOptions{false});
  EXPECT_EQ(Count(s.graph(), "QLinearAdd"), 2);
  EXPECT_EQ(Count(s.graph(), "QLinearMul"), 1);
  EXPECT_EQ(Count(s.graph(), "Add"), 1);  // read_twice
  EXPECT_EQ(Count(s.graph(), "Mul"), 0);
}

}  // namespace
}  // namespace ptq
