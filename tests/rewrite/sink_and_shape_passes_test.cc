// Tests of sink_dequantize.cc and shape_before_dequantize.cc on small graphs: what moves, what stays, and
// that the rewritten graph gives the same bits as the original on ptq's runtime.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "rewrite/passes.h"
#include "runtime/graph.h"
#include "runtime/session.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

using testing::ModelBuilder;

// The model after the QOperator passes (`RunRewritePasses`; InsertQdq leaves a graph that already has
// Q/DQ nodes alone).
onnx::ModelProto Rewrite(const onnx::ModelProto& m, QuantFormat format = QuantFormat::kQOperator) {
  RewriteGraph g(m);
  RunRewritePasses(&g, QuantPlan{}, format);
  onnx::ModelProto out = m;
  g.WriteTo(&out);
  return out;
}

std::vector<Tensor> Run(const onnx::ModelProto& m, const Tensor& x) {
  Session s(std::make_shared<const Graph>(GraphFromModel(m, "", "test.onnx")));
  return s.Run({{"x", x}});
}

// [2, 3, 4, 4] values around the quantization grid of scale 0.1, with ties (k + 0.5) * 0.1.
Tensor Input() {
  std::vector<float> v(2 * 3 * 4 * 4);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.05f * static_cast<float>(static_cast<int>(i * 7 % 61) - 30);
  return Tensor::FromVector<float>({2, 3, 4, 4}, v);
}

void ExpectSameBits(const onnx::ModelProto& before, const onnx::ModelProto& after) {
  const Tensor x = Input();
  const auto a = Run(before, x), b = Run(after, x);
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    ASSERT_EQ(a[k].dtype(), b[k].dtype()) << k;
    ASSERT_EQ(a[k].shape(), b[k].shape()) << k;
    EXPECT_EQ(std::string(static_cast<const char*>(a[k].raw()), a[k].nbytes()),
              std::string(static_cast<const char*>(b[k].raw()), b[k].nbytes()))
        << "output " << k;
  }
}

std::map<std::string, int> Ops(const onnx::ModelProto& m) {
  std::map<std::string, int> c;
  for (const auto& n : m.graph().node()) ++c[n.op_type()];
  return c;
}

const onnx::NodeProto& Only(const onnx::ModelProto& m, const std::string& op) {
  const onnx::NodeProto* found = nullptr;
  for (const auto& n : m.graph().node()) {
    if (n.op_type() == op) {
      EXPECT_EQ(found, nullptr) << "two " << op;
      found = &n;
    }
  }
  if (!found) throw std::runtime_error("no " + op);
  return *found;
}

std::string ProducerOp(const onnx::ModelProto& m, const std::string& t) {
  for (const auto& n : m.graph().node()) {
    for (const auto& o : n.output()) {
      if (o == t) return n.op_type();
    }
  }
  return "";
}

void SetInts(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

// x -> Q(s1) -> DQ(s1) -> MaxPool 2x2 -> Flatten -> Q(s2) -> DQ(s2) -> y (uint8, zero point 128).
ModelBuilder PoolFlatten(float s1, float s2) {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {-1, 3, 4, 4}).Output("y", DataType::kFloat);
  b.Initializer("s1", Tensor::Scalar<float>(s1)).Initializer("z1", Tensor::Scalar<uint8_t>(128));
  b.Initializer("s2", Tensor::Scalar<float>(s2)).Initializer("z2", Tensor::Scalar<uint8_t>(128));
  b.Node("QuantizeLinear", {"x", "s1", "z1"}, {"xq"}, "q1");
  b.Node("DequantizeLinear", {"xq", "s1", "z1"}, {"xd"}, "dq1");
  auto& pool = b.Node("MaxPool", {"xd"}, {"p"}, "pool");
  SetInts(&pool, "kernel_shape", {2, 2});
  SetInts(&pool, "strides", {2, 2});
  b.Node("Flatten", {"p"}, {"f"}, "flatten");
  b.Node("QuantizeLinear", {"f", "s2", "z2"}, {"fq"}, "q2");
  b.Node("DequantizeLinear", {"fq", "s2", "z2"}, {"y"}, "dq2");
  return b;
}

TEST(SinkDequantize, MaxPoolThenFlattenRunOnInt8AndTheEqualQuantizeCancels) {
  ModelBuilder b = PoolFlatten(0.1f, 0.1f);
  const onnx::ModelProto after = Rewrite(b.model());
  EXPECT_EQ(Ops(after), (std::map<std::string, int>{
                            {"QuantizeLinear", 1}, {"MaxPool", 1}, {"Flatten", 1}, {"DequantizeLinear", 1}}));
  EXPECT_EQ(Only(after, "MaxPool").input(0), "xq");
  EXPECT_EQ(ProducerOp(after, Only(after, "DequantizeLinear").input(0)), "Flatten");
  ExpectSameBits(b.model(), after);
}

TEST(SinkDequantize, OtherOutputScaleKeepsARequantizeAfterTheMovedOps) {
  ModelBuilder b = PoolFlatten(0.1f, 0.25f);
  const onnx::ModelProto after = Rewrite(b.model());
  EXPECT_EQ(Ops(after)["DequantizeLinear"], 2);
  EXPECT_EQ(Ops(after)["QuantizeLinear"], 2);
  EXPECT_EQ(Only(after, "MaxPool").input(0), "xq");
  // Flatten -> DQ(s1) -> Q(s2): the requantization, on the pooled (4x smaller) tensor.
  const onnx::NodeProto& q2 = [&]() -> const onnx::NodeProto& {
    for (const auto& n : after.graph().node()) {
      if (n.op_type() == "QuantizeLinear" && n.input(1) == "s2") return n;
    }
    throw std::runtime_error("no q2");
  }();
  EXPECT_EQ(ProducerOp(after, q2.input(0)), "DequantizeLinear");
  ExpectSameBits(b.model(), after);
}

TEST(SinkDequantize, MaxPoolStaysFloatBehindANegativeScale) {
  ModelBuilder b = PoolFlatten(-0.1f, 0.1f);
  RewriteGraph g(b.model());
  EXPECT_FALSE(SinkDequantize(&g));
}

TEST(SinkDequantize, DequantizeWithOtherReadersStaysAndTheChainStaysFloat) {
  ModelBuilder b = PoolFlatten(0.1f, 0.1f);
  b.Node("Relu", {"xd"}, {"r"}, "relu");
  b.Output("r", DataType::kFloat);
  RewriteGraph g(b.model());
  EXPECT_FALSE(SinkDequantize(&g));  // moving it would need a second DequantizeLinear
}

// x -> Q -> DQ -> Shape(start=1) and Size: both read the int8 tensor; the DQ, now unread, is removed
// and the Q stays for them (in both formats).
TEST(ReadShapeBeforeDequantize, ShapeAndSizeReadTheInt8TensorAndTheDequantizeGoes) {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {-1, 3, 4, 4}).Output("shape", DataType::kInt64).Output("size", DataType::kInt64);
  b.Initializer("s", Tensor::Scalar<float>(0.1f)).Initializer("z", Tensor::Scalar<int8_t>(0));
  b.Node("QuantizeLinear", {"x", "s", "z"}, {"xq"}, "q");
  b.Node("DequantizeLinear", {"xq", "s", "z"}, {"xd"}, "dq");
  auto& shape = b.Node("Shape", {"xd"}, {"shape"}, "shape");
  auto* start = shape.add_attribute();
  start->set_name("start");
  start->set_type(onnx::AttributeProto::INT);
  start->set_i(1);
  b.Node("Size", {"xd"}, {"size"}, "size");
  for (QuantFormat format : {QuantFormat::kQOperator, QuantFormat::kQdq}) {
    const onnx::ModelProto after = Rewrite(b.model(), format);
    EXPECT_EQ(Ops(after), (std::map<std::string, int>{{"QuantizeLinear", 1}, {"Shape", 1}, {"Size", 1}}));
    EXPECT_EQ(Only(after, "Shape").input(0), "xq");
    ASSERT_EQ(Only(after, "Shape").attribute_size(), 1);
    EXPECT_EQ(Only(after, "Shape").attribute(0).name(), "start");
    EXPECT_EQ(Only(after, "Shape").attribute(0).i(), 1);
    EXPECT_EQ(Only(after, "Size").input(0), "xq");
    ExpectSameBits(b.model(), after);
  }
}

// A DQ whose output is a graph output stays; the Shape reads its input all the same.
TEST(ReadShapeBeforeDequantize, DequantizeThatIsAGraphOutputStays) {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {-1, 3, 4, 4}).Output("xd", DataType::kFloat).Output("shape", DataType::kInt64);
  b.Initializer("s", Tensor::Scalar<float>(0.1f)).Initializer("z", Tensor::Scalar<int8_t>(0));
  b.Node("QuantizeLinear", {"x", "s", "z"}, {"xq"}, "q");
  b.Node("DequantizeLinear", {"xq", "s", "z"}, {"xd"}, "dq");
  b.Node("Shape", {"xd"}, {"shape"}, "shape");
  const onnx::ModelProto after = Rewrite(b.model());
  EXPECT_EQ(Ops(after), (std::map<std::string, int>{{"QuantizeLinear", 1}, {"DequantizeLinear", 1}, {"Shape", 1}}));
  EXPECT_EQ(Only(after, "Shape").input(0), "xq");
  ExpectSameBits(b.model(), after);
}

// An int8 tensor from an integer op (here Identity of int8): Shape reads it, the DQ it read goes and
// the other DQ of the same tensor (a graph output) stays.
TEST(ReadShapeBeforeDequantize, ShapeReadsTheInt8TensorOfAnIntegerOp) {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {-1, 3, 4, 4}).Output("y", DataType::kFloat).Output("shape", DataType::kInt64);
  b.Initializer("s", Tensor::Scalar<float>(0.1f)).Initializer("z", Tensor::Scalar<int8_t>(0));
  b.Node("QuantizeLinear", {"x", "s", "z"}, {"xq"}, "q");
  b.Node("Identity", {"xq"}, {"xi"}, "int8_op");
  b.Node("DequantizeLinear", {"xi", "s", "z"}, {"xd"}, "dq");
  b.Node("Shape", {"xd"}, {"shape"}, "shape");
  b.Node("DequantizeLinear", {"xi", "s", "z"}, {"y"}, "dq_out");
  const onnx::ModelProto after = Rewrite(b.model());
  EXPECT_EQ(Ops(after)["DequantizeLinear"], 1);
  EXPECT_EQ(Only(after, "Shape").input(0), "xi");
  ExpectSameBits(b.model(), after);
}

}  // namespace
}  // namespace ptq
