// The activation after an integer convolution with float output (ConvIntegerToFloat -> SiLU, Relu or Clip),
// a residual Add before it and a QuantizeLinear after it join it: applied to each block of outputs by the thread
// that stored it, with the bits of the separate nodes.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstring>
#include <map>
#include <random>
#include <string>

#include "runtime/activation_fusion.h"
#include "runtime/graph.h"
#include "runtime/model_io.h"
#include "runtime/session.h"
#include "tests/runtime/qdq_test_models.h"

namespace ptq {
namespace {

using testing::ModelBuilder;
using namespace qdq_test;

// x quantized and dequantized as "xd": the input of the integer convolutions below.
void QuantizedInput(ModelBuilder& b, const std::string& x, Shape shape) {
  b.Input(x, DataType::kFloat, std::move(shape));
  Params(b, "q", 0.05f, Tensor::Scalar<uint8_t>(128));
  b.Node("QuantizeLinear", {x, "q/scale", "q/zp"}, {"xq"});
  b.Node("DequantizeLinear", {"xq", "q/scale", "q/zp"}, {"xd"});
}

// Conv(in, DequantizeLinear(int8 w) [, float bias]) -> out, padded to keep the size (over the stride).
void QdqConv(ModelBuilder& b, std::mt19937& rng, const std::string& in, const std::string& out, Shape w,
             int64_t group = 1, int64_t stride = 1, bool with_bias = true) {
  Weight(b, rng, out + "/w", DataType::kInt8, w, w[0], 0);
  if (with_bias) b.Initializer(out + "/b", Floats(rng, {w[0]}, -1.0f, 1.0f));
  auto& n = with_bias ? b.Node("Conv", {in, out + "/w/dq", out + "/b"}, {out})
                      : b.Node("Conv", {in, out + "/w/dq"}, {out});
  n.add_attribute()->CopyFrom(IntsAttr("pads", {w[2] / 2, w[3] / 2, w[2] / 2, w[3] / 2}));
  n.add_attribute()->CopyFrom(IntsAttr("strides", {stride, stride}));
  n.add_attribute()->CopyFrom(IntAttr("group", group));
}

// f(channels_last) on 1 and 3 threads, channels last and first.
template <class F>
void ForThreadsAndLayouts(F f) {
  const int saved = omp_get_max_threads();
  for (int threads : {1, 3}) {
    omp_set_num_threads(threads);
    for (bool channels_last : {true, false}) {
      SCOPED_TRACE(std::string(channels_last ? "channels last" : "channels first") + ", threads " +
                   std::to_string(threads));
      f(channels_last);
    }
  }
  omp_set_num_threads(saved);
}

// Every output of `got` has the bits of the same output of `want`.
void ExpectSameBits(const std::vector<Tensor>& got, const std::vector<Tensor>& want, const Graph& g) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < want.size(); ++o) {
    ASSERT_EQ(got[o].dtype(), want[o].dtype()) << g.outputs[o].name;
    ASSERT_EQ(got[o].shape(), want[o].shape()) << g.outputs[o].name;
    EXPECT_EQ(0, std::memcmp(got[o].raw(), want[o].raw(), want[o].nbytes())) << g.outputs[o].name;
  }
}

// On 1 and 3 threads, channels last and first: the session with float fusion (whose graph check(f) inspects)
// gives the bits of the session without it (ConvIntegerToFloat, then the fused nodes' own nodes).
template <class Check>
void ExpectFusedHasTheSeparateNodesBits(const std::shared_ptr<const Graph>& g,
                                        const std::map<std::string, Tensor>& feeds, Check check) {
  ForThreadsAndLayouts([&](bool channels_last) {
    SessionOptions fused, plain;
    fused.channels_last = plain.channels_last = channels_last;
    plain.fuse_float_patterns = false;
    Session f(g, fused), p(g, plain);
    check(f);
    ExpectSameBits(f.Run(feeds), p.Run(feeds), *g);
  });
}

// EfficientNet's and RegNet's integer layers with float outputs: a strided 3x3 convolution then SiLU, a
// depthwise one then Relu, a grouped one (4 groups of 8 channels, shared between threads by groups) then
// Clip(0, 6), a pointwise one large enough for threads and for several blocks of rows on one thread
// (560 positions x 400 channels) then SiLU, and one whose output another node also reads (stays apart).
TEST(QdqFuseActivation, IntegerConvolutionsTakeTheirActivationWithTheSameBits) {
  std::mt19937 rng(11);
  ModelBuilder b(13);
  QuantizedInput(b, "x", {1, 8, 56, 40});
  auto silu = [&b](const std::string& in, const std::string& out) {
    b.Node("Sigmoid", {in}, {out + "/sigmoid"});
    b.Node("Mul", {in, out + "/sigmoid"}, {out});
  };
  QdqConv(b, rng, "xd", "stem/conv", {32, 8, 3, 3}, 1, 2);  // [1, 32, 28, 20]
  silu("stem/conv", "stem");
  b.Node("QuantizeLinear", {"stem", "q/scale", "q/zp"}, {"sq"});
  b.Node("DequantizeLinear", {"sq", "q/scale", "q/zp"}, {"sd"});
  QdqConv(b, rng, "sd", "dw/conv", {32, 1, 3, 3}, 32);
  b.Node("Relu", {"dw/conv"}, {"dw"});
  QdqConv(b, rng, "sd", "grouped/conv", {32, 8, 3, 3}, 4);
  b.Initializer("zero", Tensor::Scalar<float>(0.0f)).Initializer("six", Tensor::Scalar<float>(6.0f));
  b.Node("Clip", {"grouped/conv", "zero", "six"}, {"grouped"});
  QdqConv(b, rng, "sd", "wide/conv", {400, 32, 1, 1});
  silu("wide/conv", "wide");
  QdqConv(b, rng, "sd", "shared/conv", {16, 32, 1, 1});
  b.Node("Relu", {"shared/conv"}, {"shared"});
  b.Node("Neg", {"shared/conv"}, {"other_reader"});
  for (const char* o : {"stem", "dw", "grouped", "wide", "shared", "other_reader"}) b.Output(o, DataType::kFloat);
  const auto g = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "qdq_activations.onnx"));
  ExpectFusedHasTheSeparateNodesBits(g, {{"x", Floats(rng, {1, 8, 56, 40}, -6.0f, 6.0f)}}, [](const Session& f) {
    EXPECT_EQ(f.fused().float_output, 5);
    EXPECT_EQ(f.fused_float().conv_activations, 4);  // stem, dw, grouped, wide; shared's output is read twice
    int with_activation = 0;
    for (const Node& n : f.graph().nodes) with_activation += IsConvIntegerToFloat(n) && HasActivation(n);
    EXPECT_EQ(with_activation, 4);
    EXPECT_EQ(Count(f.graph(), "Relu"), 1);
    EXPECT_EQ(Count(f.graph(), "Clip") + Count(f.graph(), "Sigmoid"), 0);
  });
}

// ResNet's int8 residual block ends: ConvIntegerToFloat -> Add(conv, z) -> Relu, where z is another
// convolution's float output (the downsample); also Add(z, conv) with a Clip after it (a convolution without
// bias), an Add with no activation after it, and a z that broadcasts ([1, C, 1, 1]: added in a pass of its own).
TEST(QdqFuseActivation, ResidualAddsJoinTheIntegerConvolutionWithTheSameBits) {
  std::mt19937 rng(17);
  ModelBuilder b(13);
  QuantizedInput(b, "x", {1, 16, 36, 30});
  b.Input("s", DataType::kFloat, {1, 32, 1, 1});
  QdqConv(b, rng, "xd", "down", {32, 16, 1, 1});  // the block's skip: a float output read by the Add
  QdqConv(b, rng, "xd", "c3", {32, 16, 3, 3});
  b.Node("Add", {"c3", "down"}, {"sum1"});
  b.Node("Relu", {"sum1"}, {"out1"});
  QdqConv(b, rng, "xd", "c4", {32, 16, 1, 1}, 1, 1, false);  // no bias: the fused node's input 6 is empty
  b.Node("Add", {"out1", "c4"}, {"sum2"});                     // the residual first, a Clip after
  b.Initializer("zero", Tensor::Scalar<float>(0.0f)).Initializer("six", Tensor::Scalar<float>(6.0f));
  b.Node("Clip", {"sum2", "zero", "six"}, {"out2"});
  QdqConv(b, rng, "xd", "c5", {32, 16, 3, 3});
  b.Node("Add", {"c5", "out2"}, {"out3"});  // no activation
  QdqConv(b, rng, "xd", "c6", {32, 16, 1, 1});
  b.Node("Add", {"c6", "s"}, {"sum4"});  // z broadcasts
  b.Node("Relu", {"sum4"}, {"out4"});
  for (const char* o : {"out1", "out3", "out4"}) b.Output(o, DataType::kFloat);
  const auto g = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "qdq_residuals.onnx"));
  const std::map<std::string, Tensor> feeds = {{"x", Floats(rng, {1, 16, 36, 30}, -6.0f, 6.0f)},
                                               {"s", Floats(rng, {1, 32, 1, 1}, -2.0f, 2.0f)}};
  ExpectFusedHasTheSeparateNodesBits(g, feeds, [](const Session& f) {
    EXPECT_EQ(f.fused_float().conv_sums, 4);
    EXPECT_EQ(Count(f.graph(), "Add") + Count(f.graph(), "Relu") + Count(f.graph(), "Clip"), 0);
  });
}

// ConvIntegerToFloat (with its activation or residual) -> QuantizeLinear: the convolution quantizes each block it
// stores. `expose` lists every convolution's float output as a graph output too, which keeps the QuantizeLinears
// apart: the reference. A strided 3x3 with SiLU, a grouped 3x3 with Relu, a pointwise one of 560 positions x 400
// channels (several blocks and threads), a residual block (Add, Relu) and a convolution without activation.
std::shared_ptr<const Graph> QuantizedOutputModel(bool expose) {
  std::mt19937 rng(23);
  ModelBuilder b(13);
  QuantizedInput(b, "x", {1, 8, 56, 40});
  Params(b, "u8", 0.04f, Tensor::Scalar<uint8_t>(20));
  Params(b, "i8", 0.03f, Tensor::Scalar<int8_t>(-4));
  QdqConv(b, rng, "xd", "stem/conv", {32, 8, 3, 3}, 1, 2);  // [1, 32, 28, 20]
  b.Node("Sigmoid", {"stem/conv"}, {"stem/sigmoid"});
  b.Node("Mul", {"stem/conv", "stem/sigmoid"}, {"stem"});
  b.Node("QuantizeLinear", {"stem", "u8/scale", "u8/zp"}, {"stem_q"});
  b.Node("DequantizeLinear", {"stem_q", "u8/scale", "u8/zp"}, {"sd"});
  QdqConv(b, rng, "sd", "grouped/conv", {32, 8, 3, 3}, 4);
  b.Node("Relu", {"grouped/conv"}, {"grouped"});
  b.Node("QuantizeLinear", {"grouped", "i8/scale", "i8/zp"}, {"grouped_q"});
  QdqConv(b, rng, "sd", "wide", {400, 32, 1, 1});
  b.Node("QuantizeLinear", {"wide", "i8/scale", "i8/zp"}, {"wide_q"});
  QdqConv(b, rng, "sd", "skip", {32, 32, 1, 1});
  QdqConv(b, rng, "sd", "c3", {32, 32, 3, 3});
  b.Node("Add", {"c3", "skip"}, {"sum"});
  b.Node("Relu", {"sum"}, {"block"});
  b.Node("QuantizeLinear", {"block", "u8/scale", "u8/zp"}, {"block_q"});
  for (const char* o : {"stem_q", "grouped_q", "wide_q", "block_q"}) b.Output(o, DataType::kUndefined);
  if (expose) {
    for (const char* o : {"stem", "grouped", "wide", "block"}) b.Output(o, DataType::kFloat);
  }
  return std::make_shared<const Graph>(GraphFromModel(b.model(), "", "qdq_quantized_outputs.onnx"));
}

TEST(QdqFuseActivation, IntegerConvolutionsQuantizeTheirOutputsWithTheSameBits) {
  std::mt19937 rng(29);
  const auto fused_graph = QuantizedOutputModel(false), apart_graph = QuantizedOutputModel(true);
  const std::map<std::string, Tensor> feeds = {{"x", Floats(rng, {1, 8, 56, 40}, -6.0f, 6.0f)}};
  ForThreadsAndLayouts([&](bool channels_last) {
    SessionOptions options;
    options.channels_last = channels_last;
    Session fused(fused_graph, options), apart(apart_graph, options);
    EXPECT_EQ(fused.fused().conv_outputs, 4);
    EXPECT_EQ(apart.fused().conv_outputs, 0);
    EXPECT_EQ(Count(fused.graph(), "QuantizeLinear"), 1);  // the input's
    const std::vector<Tensor> got = fused.Run(feeds);
    std::vector<Tensor> want = apart.Run(feeds);
    want.resize(got.size());  // the exposed float outputs come after the quantized ones
    ExpectSameBits(got, want, *fused_graph);
    int64_t low = 0, high = 0;  // both ends of the 8-bit ranges are reached
    for (const Tensor& t : got) {
      const double lo = t.dtype() == DataType::kInt8 ? -128 : 0, hi = t.dtype() == DataType::kInt8 ? 127 : 255;
      for (int64_t i = 0; i < t.size(); ++i) {
        low += t.GetAsDouble(i) == lo;
        high += t.GetAsDouble(i) == hi;
      }
    }
    EXPECT_GT(low, 0);
    EXPECT_GT(high, 0);
  });
}

}  // namespace
}  // namespace ptq
