// Conv -> Relu / Clip fusion: which pairs fuse, and that the fused convolutions give the same bits as
// the Conv and the activation run one after the other (NaN and the clamp bounds included).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "runtime/graph.h"
#include "runtime/session.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

using testing::ModelBuilder;

onnx::AttributeProto Ints(const std::string& name, std::initializer_list<int64_t> v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a.add_ints(x);
  return a;
}
onnx::AttributeProto Number(const std::string& name, float f, int64_t i, bool is_float) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(is_float ? onnx::AttributeProto::FLOAT : onnx::AttributeProto::INT);
  if (is_float) a.set_f(f);
  else a.set_i(i);
  return a;
}

Tensor Random(std::mt19937& rng, Shape shape) {
  Tensor t(DataType::kFloat, std::move(shape));
  std::normal_distribution<float> d(0.0f, 1.0f);
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = d(rng);
  return t;
}

// 3x3 (wide im2col) -> Relu; 3x3 stride 2 (im2col) -> Clip(-0.5, 0.7); pointwise -> Clip with only a max;
// depthwise -> Clip(0, 6); a Conv whose output Relu and Sigmoid both read (not fused); a Conv -> Clip
// with a computed bound (not fused).
std::shared_ptr<const Graph> Model(int opset) {
  std::mt19937 rng(2);
  ModelBuilder b(opset);
  b.Input("x", DataType::kFloat, {2, 4, 9, 9});
  const char* names[] = {"w1", "w2", "w5", "w6"};
  for (const char* w : names) b.Initializer(w, Random(rng, {6, 4, 3, 3}));
  b.Initializer("w3", Random(rng, {6, 4, 1, 1})).Initializer("w4", Random(rng, {4, 1, 3, 3}));
  for (const char* bias : {"b1", "b2", "b3", "b4"}) b.Initializer(bias, Random(rng, {bias[1] == '4' ? 4 : 6}));
  b.Node("Conv", {"x", "w1", "b1"}, {"c1"}).add_attribute()->CopyFrom(Ints("pads", {1, 1, 1, 1}));
  b.Node("Relu", {"c1"}, {"y1"});
  auto& c2 = b.Node("Conv", {"x", "w2", "b2"}, {"c2"});
  c2.add_attribute()->CopyFrom(Ints("strides", {2, 2}));
  b.Node("Conv", {"x", "w3", "b3"}, {"c3"});
  auto& c4 = b.Node("Conv", {"x", "w4", "b4"}, {"c4"});
  c4.add_attribute()->CopyFrom(Number("group", 0, 4, false));
  c4.add_attribute()->CopyFrom(Ints("pads", {1, 1, 1, 1}));
  if (opset >= 11) {
    b.Initializer("lo", Tensor::Scalar<float>(-0.5f)).Initializer("hi", Tensor::Scalar<float>(0.7f));
    b.Initializer("zero", Tensor::Scalar<float>(0.0f)).Initializer("six", Tensor::Scalar<float>(6.0f));
    b.Node("Clip", {"c2", "lo", "hi"}, {"y2"});
    b.Node("Clip", {"c3", "", "hi"}, {"y3"});
    b.Node("Clip", {"c4", "zero", "six"}, {"y4"});
  } else {
    auto& k2 = b.Node("Clip", {"c2"}, {"y2"});
    k2.add_attribute()->CopyFrom(Number("min", -0.5f, 0, true));
    k2.add_attribute()->CopyFrom(Number("max", 0.7f, 0, true));
    b.Node("Clip", {"c3"}, {"y3"}).add_attribute()->CopyFrom(Number("max", 0.7f, 0, true));
    auto& k4 = b.Node("Clip", {"c4"}, {"y4"});
    k4.add_attribute()->CopyFrom(Number("min", 0.0f, 0, true));
    k4.add_attribute()->CopyFrom(Number("max", 6.0f, 0, true));
  }
  b.Node("Conv", {"x", "w5"}, {"c5"});
  b.Node("Relu", {"c5"}, {"y5"});
  b.Node("Sigmoid", {"c5"}, {"s5"});
  b.Node("Conv", {"x", "w6"}, {"c6"});
  b.Node("ReduceMax", {"x"}, {"bound"}).add_attribute()->CopyFrom(Number("keepdims", 0, 0, false));
  if (opset >= 11) b.Node("Clip", {"c6", "", "bound"}, {"y6"});
  else b.Node("Relu", {"c6"}, {"y6"});  // opset 9 has no computed bound: one more fused pair
  for (const char* o : {"y1", "y2", "y3", "y4", "y5", "s5", "y6"}) b.Output(o, DataType::kFloat);
  return std::make_shared<const Graph>(GraphFromModel(b.model(), "", "m.onnx"));
}

TEST(ActivationFusion, FusedConvolutionsGiveTheBitsOfConvThenActivation) {
  for (int opset : {9, 13}) {
    const auto graph = Model(opset);
    SessionOptions fuse, separate;
    separate.fuse_float_patterns = false;
    Session fused(graph, fuse), plain(graph, separate);
    EXPECT_EQ(fused.fused_float().conv_activations, opset >= 11 ? 4 : 5) << "opset " << opset;
    EXPECT_EQ(plain.fused_float().total(), 0);
    std::mt19937 rng(8);
    Tensor x = Random(rng, {2, 4, 9, 9});
    x.data<float>()[40] = std::numeric_limits<float>::quiet_NaN();  // NaN stays NaN through the clamp
    x.data<float>()[200] = 1e30f;
    const auto got = fused.Run({{"x", x}}), want = plain.Run({{"x", x}});
    ASSERT_EQ(got.size(), want.size());
    for (size_t o = 0; o < want.size(); ++o) {
      ASSERT_EQ(got[o].shape(), want[o].shape()) << graph->outputs[o].name;
      EXPECT_EQ(0, std::memcmp(got[o].raw(), want[o].raw(), static_cast<size_t>(want[o].size()) * sizeof(float)))
          << graph->outputs[o].name << " at opset " << opset;
    }
    int nans = 0;
    for (int64_t i = 0; i < want[0].size(); ++i) nans += std::isnan(got[0].data<float>()[i]);
    EXPECT_GT(nans, 0) << "the NaN input reaches y1";
  }
}

}  // namespace
}  // namespace ptq
