// BatchNormalization fusion: the Add of a per-channel bias before it, the Relu or Clip after it and the
// QuantizeLinear of its result join it in one ptq.fused BatchNormalization (PP-OCRv4's stem and detector head, as
// Paddle2ONNX writes them), with the bits of the nodes run one by one, channels first and last, on any thread
// count; what the pattern does not allow stays as written.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "runtime/graph.h"
#include "runtime/session.h"
#include "tests/runtime/float_fusion_test_util.h"
#include "tests/runtime/model_builder.h"
#include "tests/runtime/qdq_test_models.h"

namespace ptq {
namespace {

using testing::ExpectSameBits;
using testing::ModelBuilder;
using testing::Values;
using qdq_test::Count;

constexpr int64_t kC = 8;

Tensor Uniform(std::mt19937& rng, Shape shape, float lo, float hi) {
  Tensor t(DataType::kFloat, std::move(shape));
  std::uniform_real_distribution<float> d(lo, hi);
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = d(rng);
  return t;
}

// y = BatchNormalization(x) with random statistics of kC channels.
void BatchNorm(ModelBuilder& b, std::mt19937& rng, const std::string& x, const std::string& y) {
  b.Initializer(y + "/scale", Uniform(rng, {kC}, -2.0f, 2.0f)).Initializer(y + "/B", Uniform(rng, {kC}, -1.0f, 1.0f));
  b.Initializer(y + "/mean", Uniform(rng, {kC}, -1.0f, 1.0f)).Initializer(y + "/var", Uniform(rng, {kC}, 0.1f, 3.0f));
  b.Node("BatchNormalization", {x, y + "/scale", y + "/B", y + "/mean", y + "/var"}, {y});
}

void Quantize(ModelBuilder& b, const std::string& x, const std::string& y, float scale, const Tensor& zp) {
  b.Initializer(y + "/scale", Tensor::Scalar<float>(scale)).Initializer(y + "/zp", zp);
  b.Node("QuantizeLinear", {x, y + "/scale", y + "/zp"}, {y});
}

// A float convolution (so that the session's channels-last layout takes the rest), then three branches: Add of a
// [C, 1, 1] bias -> BatchNormalization -> Relu (the detector's head); BatchNormalization -> QuantizeLinear (its
// stem); Add of a [1, C, 1, 1] bias as the first operand -> BatchNormalization -> Clip(0, 6) -> QuantizeLinear.
TEST(BatchNormFusion, BiasBatchNormActivationAndQuantizeBecomeOneNodeWithTheSameBits) {
  std::mt19937 rng(5);
  ModelBuilder b(11);
  const Shape shape = {2, 3, 70, 70};  // 78400 outputs a branch: threads share them
  b.Input("x", DataType::kFloat, shape);
  b.Initializer("w", Uniform(rng, {kC, 3, 3, 3}, -0.5f, 0.5f));
  auto& conv = b.Node("Conv", {"x", "w"}, {"c"});
  auto* pads = conv.add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i) pads->add_ints(1);
  b.Initializer("bias_a", Uniform(rng, {kC, 1, 1}, -1.0f, 1.0f));
  b.Node("Add", {"c", "bias_a"}, {"ca"});
  BatchNorm(b, rng, "ca", "bn_a");
  b.Node("Relu", {"bn_a"}, {"a"});
  BatchNorm(b, rng, "c", "bn_b");
  Quantize(b, "bn_b", "b_q", 0.05f, Tensor::Scalar<uint8_t>(120));
  b.Initializer("bias_c", Uniform(rng, {1, kC, 1, 1}, -1.0f, 1.0f));
  b.Node("Add", {"bias_c", "c"}, {"cc"});
  BatchNorm(b, rng, "cc", "bn_c");
  b.Initializer("zero", Tensor::Scalar<float>(0.0f)).Initializer("six", Tensor::Scalar<float>(6.0f));
  b.Node("Clip", {"bn_c", "zero", "six"}, {"clipped"});
  Quantize(b, "clipped", "c_q", 0.03f, Tensor::Scalar<int8_t>(-5));
  b.Output("a", DataType::kFloat).Output("b_q", DataType::kUint8).Output("c_q", DataType::kInt8);
  const auto g = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "bn.onnx"));
  ExpectSameBits(g, {{"x", Values(rng, shape)}}, [](const Session& s, bool channels_last, const std::vector<Tensor>&) {
    EXPECT_EQ(s.fused_float().batch_norms, 3);
    EXPECT_EQ(Count(s.graph(), "BatchNormalization"), 3);
    for (const char* op : {"Add", "Relu", "Clip", "QuantizeLinear"}) EXPECT_EQ(Count(s.graph(), op), 0) << op;
    if (channels_last) {
      EXPECT_GT(s.channels_last().convs, 0);
    }
  });
}

// Left as written: an Add whose output is read again (only the Relu joins), an Add of a bias of shape [C] (per
// value of the last axis), an Add of two computed tensors, a Relu whose input is read again (only the Add joins).
TEST(BatchNormFusion, ValuesReadElsewhereAndOtherShapesStayAsWritten) {
  std::mt19937 rng(6);
  ModelBuilder b(13);
  const Shape shape = {2, kC, 9, 11};
  b.Input("x", DataType::kFloat, shape).Input("y", DataType::kFloat, shape);
  b.Initializer("bias", Uniform(rng, {kC, 1, 1}, -1.0f, 1.0f));
  b.Node("Add", {"x", "bias"}, {"shared"});
  BatchNorm(b, rng, "shared", "bn1");
  b.Node("Relu", {"bn1"}, {"r1"});
  b.Input("z", DataType::kFloat, {2, kC, 9, kC});
  b.Initializer("bias_w", Uniform(rng, {kC}, -1.0f, 1.0f));
  b.Node("Add", {"z", "bias_w"}, {"zw"});  // [kC]: a bias per value of the last axis, not per channel
  BatchNorm(b, rng, "zw", "bn2");
  b.Node("Add", {"x", "y"}, {"xy"});
  BatchNorm(b, rng, "xy", "bn3");
  b.Node("Add", {"y", "bias"}, {"yb"});
  BatchNorm(b, rng, "yb", "bn4");
  b.Node("Relu", {"bn4"}, {"r4"});
  b.Output("shared", DataType::kFloat).Output("r1", DataType::kFloat).Output("bn2", DataType::kFloat);
  b.Output("bn3", DataType::kFloat).Output("r4", DataType::kFloat).Output("bn4", DataType::kFloat);
  const auto g = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "bn_stays.onnx"));
  ExpectSameBits(g, {{"x", Values(rng, shape)}, {"y", Values(rng, shape)}, {"z", Values(rng, {2, kC, 9, kC})}},
                 [](const Session& s, bool, const std::vector<Tensor>&) {
                   EXPECT_EQ(s.fused_float().batch_norms, 2);  // bn1 with its Relu, bn4 with its Add
                   EXPECT_EQ(Count(s.graph(), "Add"), 3);
                   EXPECT_EQ(Count(s.graph(), "Relu"), 1);
                 });
}

// From opset 15 X may be float16 under float32 statistics: only an Add of a float32 bias (which makes X float32)
// lets the rest join.
TEST(BatchNormFusion, Opset15FusesOnlyAfterAFloat32Add) {
  std::mt19937 rng(7);
  ModelBuilder b(15);
  const Shape shape = {1, kC, 5, 6};
  b.Input("x", DataType::kFloat, shape);
  BatchNorm(b, rng, "x", "bn1");
  b.Node("Relu", {"bn1"}, {"r1"});
  b.Initializer("bias", Uniform(rng, {kC, 1, 1}, -1.0f, 1.0f));
  b.Node("Add", {"x", "bias"}, {"xb"});
  BatchNorm(b, rng, "xb", "bn2");
  b.Node("Relu", {"bn2"}, {"r2"});
  b.Output("r1", DataType::kFloat).Output("r2", DataType::kFloat);
  const auto g = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "bn15.onnx"));
  ExpectSameBits(g, {{"x", Values(rng, shape)}}, [](const Session& s, bool, const std::vector<Tensor>&) {
    EXPECT_EQ(s.fused_float().batch_norms, 1);
    EXPECT_EQ(Count(s.graph(), "Relu"), 1);
  });
}

}  // namespace
}  // namespace ptq
