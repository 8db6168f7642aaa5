// Channels-last layout: a chain of integer convolutions with a residual add, an activation and a float
// reader runs channels last between Transposes at its borders, with the same bits as the channels-first
// session; graphs without integer convolutions are left alone.
#include "runtime/channels_last_layout.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "tests/runtime/qdq_test_models.h"

namespace ptq {
namespace {

using namespace qdq_test;

// xq -> QLinearConv 1x1 -> QLinearConv depthwise 3x3 -> + the 1x1 output (DequantizeLinear, Add,
// QuantizeLinear: fused into QLinearAdd) -> float Conv of the dequantized sum (ConvIntegerToFloat, which
// takes the Relu) -> GlobalAveragePool; and the integer average of the sum. Outputs: the quantized sum,
// the Relu output and both pools.
std::shared_ptr<const Graph> ConvChain() {
  std::mt19937 rng(11);
  ModelBuilder b(13);
  b.Input("xq", DataType::kUint8, {2, 8, 10, 10});
  Params(b, "x", 0.05f, Tensor::Scalar<uint8_t>(120));
  Params(b, "a", 0.04f, Tensor::Scalar<uint8_t>(10));
  Params(b, "d", 0.03f, Tensor::Scalar<uint8_t>(128));
  Params(b, "s", 0.06f, Tensor::Scalar<uint8_t>(100));
  b.Initializer("w1", Random8(rng, DataType::kInt8, {16, 8, 1, 1}))
      .Initializer("w1/scale", Floats(rng, {16}, 0.002f, 0.02f))
      .Initializer("w1/zp", Tensor(DataType::kInt8, {16}));
  b.Node("QLinearConv", {"xq", "x/scale", "x/zp", "w1", "w1/scale", "w1/zp", "a/scale", "a/zp"}, {"aq"}, "expand");
  b.Initializer("w2", Random8(rng, DataType::kInt8, {16, 1, 3, 3}))
      .Initializer("w2/scale", Floats(rng, {16}, 0.002f, 0.02f))
      .Initializer("w2/zp", Tensor(DataType::kInt8, {16}));
  auto& dw = b.Node("QLinearConv", {"aq", "a/scale", "a/zp", "w2", "w2/scale", "w2/zp", "d/scale", "d/zp"}, {"dq"},
                    "depthwise");
  dw.add_attribute()->CopyFrom(IntAttr("group", 16));
  dw.add_attribute()->CopyFrom(IntsAttr("pads", {1, 1, 1, 1}));
  b.Node("DequantizeLinear", {"aq", "a/scale", "a/zp"}, {"a"});
  b.Node("DequantizeLinear", {"dq", "d/scale", "d/zp"}, {"d"});
  b.Node("Add", {"a", "d"}, {"sum"}, "residual");
  b.Node("QuantizeLinear", {"sum", "s/scale", "s/zp"}, {"sq"});
  b.Node("DequantizeLinear", {"sq", "s/scale", "s/zp"}, {"s"});
  Weight(b, rng, "w3", DataType::kInt8, {4, 16, 3, 3}, 4, 0);
  auto& c3 = b.Node("Conv", {"s", "w3/dq"}, {"c3"}, "project");
  c3.add_attribute()->CopyFrom(IntsAttr("strides", {2, 2}));
  b.Node("Relu", {"c3"}, {"r"});
  b.Node("GlobalAveragePool", {"r"}, {"pooled"});
  // The integer pool of the sum (DequantizeLinear, GlobalAveragePool, QuantizeLinear: fused).
  b.Node("GlobalAveragePool", {"s"}, {"s_pooled"});
  b.Node("QuantizeLinear", {"s_pooled", "s/scale", "s/zp"}, {"s_pooled_q"});
  b.Output("sq", DataType::kUint8).Output("r", DataType::kFloat).Output("pooled", DataType::kFloat);
  b.Output("s_pooled_q", DataType::kUint8);
  return std::make_shared<const Graph>(GraphFromModel(b.model(), "", "chain.onnx"));
}

TEST(ChannelsLastLayout, ConvChainsRunChannelsLastWithTheSameValues) {
  const auto graph = ConvChain();
  SessionOptions first;
  first.channels_last = false;
  Session last(graph), plain(graph, first);
  EXPECT_EQ(last.channels_last().convs, 3);      // expand, depthwise, project
  EXPECT_EQ(last.channels_last().followers, 3);  // QLinearAdd, both pools (the Relu joined the project conv)
  // Into channels last: xq. Back: sq and r (graph outputs) and both pools (views: [N, 1, 1, C]).
  EXPECT_EQ(last.channels_last().transposes, 5);
  EXPECT_EQ(plain.channels_last().total(), 0);
  std::mt19937 rng(5);
  const std::map<std::string, Tensor> feeds = {{"xq", Random8(rng, DataType::kUint8, {2, 8, 10, 10})}};
  const std::vector<Tensor> got = last.Run(feeds), want = plain.Run(feeds);
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < want.size(); ++o) {
    ASSERT_EQ(got[o].dtype(), want[o].dtype()) << graph->outputs[o].name;
    ASSERT_EQ(got[o].shape(), want[o].shape()) << graph->outputs[o].name;
    if (graph->outputs[o].name == "pooled") {  // float sums over positions in another order
      for (int64_t i = 0; i < want[o].size(); ++i) {
        EXPECT_NEAR(got[o].data<float>()[i], want[o].data<float>()[i], 1e-6 * std::abs(want[o].data<float>()[i]))
            << "pooled " << i;
      }
      continue;
    }
    EXPECT_EQ(0, std::memcmp(got[o].raw(), want[o].raw(), want[o].nbytes())) << graph->outputs[o].name;
  }
}

// Runs `graph` channels last and channels first on `feeds`, expects output 0 to have the same shape and bits in
// both, and returns what the channels-last session converted.
ChannelsLastCount ExpectTheBitsOfChannelsFirst(const std::shared_ptr<const Graph>& graph,
                                               const std::map<std::string, Tensor>& feeds) {
  SessionOptions first;
  first.channels_last = false;
  Session last(graph), plain(graph, first);
  EXPECT_EQ(plain.channels_last().total(), 0);
  const Tensor got = last.Run(feeds)[0], want = plain.Run(feeds)[0];
  EXPECT_EQ(got.shape(), want.shape());
  if (got.shape() == want.shape()) {
    EXPECT_EQ(0, std::memcmp(got.raw(), want.raw(), want.nbytes()));
  }
  return last.channels_last();
}

TEST(ChannelsLastLayout, ConstantsOfFollowersAreTransposedOnce) {
  // A per-channel constant [C, 1, 1] added after a convolution follows it as [1, 1, 1, C].
  std::mt19937 rng(12);
  ModelBuilder b(13);
  b.Input("xq", DataType::kUint8, {1, 3, 6, 7});
  Params(b, "x", 0.05f, Tensor::Scalar<uint8_t>(120));
  Weight(b, rng, "w", DataType::kInt8, {5, 3, 3, 3}, 5, 0);
  b.Node("DequantizeLinear", {"xq", "x/scale", "x/zp"}, {"x"});
  b.Node("Conv", {"x", "w/dq"}, {"c"}, "conv");
  b.Initializer("shift", Floats(rng, {5, 1, 1}, -1, 1));
  b.Node("Add", {"c", "shift"}, {"y"});
  b.Output("y", DataType::kFloat);
  const auto graph = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "shift.onnx"));
  const ChannelsLastCount count =
      ExpectTheBitsOfChannelsFirst(graph, {{"xq", Random8(rng, DataType::kUint8, {1, 3, 6, 7})}});
  EXPECT_EQ(count.convs, 1);
  EXPECT_EQ(count.followers, 1);
}

// BatchNormalization, Resize (nearest and linear, by scales and by sizes) and Concat along channels
// follow a float convolution, as in the PP-OCR detector's neck.
TEST(ChannelsLastLayout, NormalizationResizeAndConcatFollow) {
  std::mt19937 rng(13);
  ModelBuilder b(11);
  b.Input("x", DataType::kFloat, {1, 3, 7, 9});
  b.Initializer("w", Floats(rng, {6, 3, 3, 3}, -1, 1));
  auto& conv = b.Node("Conv", {"x", "w"}, {"c"}, "conv");
  conv.add_attribute()->CopyFrom(IntsAttr("pads", {1, 1, 1, 1}));
  b.Initializer("bn_scale", Floats(rng, {6}, 0.5f, 2)).Initializer("bn_b", Floats(rng, {6}, -1, 1));
  b.Initializer("bn_mean", Floats(rng, {6}, -1, 1)).Initializer("bn_var", Floats(rng, {6}, 0.5f, 2));
  b.Node("BatchNormalization", {"c", "bn_scale", "bn_b", "bn_mean", "bn_var"}, {"bn"});
  b.Initializer("roi", Tensor(DataType::kFloat, {0})).Initializer("scales", Tensor::FromVector<float>({4}, {1, 1, 2, 2}));
  b.Node("Resize", {"bn", "roi", "scales"}, {"up_nearest"}).add_attribute()->CopyFrom([] {
    onnx::AttributeProto a;
    a.set_name("mode");
    a.set_type(onnx::AttributeProto::STRING);
    a.set_s("nearest");
    return a;
  }());
  b.Initializer("no_scales", Tensor(DataType::kFloat, {0}));
  b.Initializer("sizes", Tensor::FromVector<int64_t>({4}, {1, 6, 14, 18}));
  b.Node("Resize", {"bn", "roi", "no_scales", "sizes"}, {"up_linear"}).add_attribute()->CopyFrom([] {
    onnx::AttributeProto a;
    a.set_name("mode");
    a.set_type(onnx::AttributeProto::STRING);
    a.set_s("linear");
    return a;
  }());
  b.Node("Concat", {"up_nearest", "up_linear"}, {"cat"}).add_attribute()->CopyFrom(IntAttr("axis", 1));
  b.Output("cat", DataType::kFloat);
  const auto graph = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "neck.onnx"));
  SessionOptions first;
  first.channels_last = false;
  Session last(graph), plain(graph, first);
  EXPECT_EQ(last.channels_last().convs, 1);
  EXPECT_EQ(last.channels_last().followers, 4);   // BatchNormalization, 2 Resizes, Concat
  EXPECT_EQ(last.channels_last().transposes, 2);  // x in, cat out
  const std::map<std::string, Tensor> feeds = {{"x", Floats(rng, {1, 3, 7, 9}, -2, 2)}};
  const Tensor got = last.Run(feeds)[0], want = plain.Run(feeds)[0];
  ASSERT_EQ(got.shape(), (Shape{1, 12, 14, 18}));
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < want.size(); ++i) {  // the convolution sums in another order channels last
    ASSERT_NEAR(got.data<float>()[i], want.data<float>()[i], 1e-5) << i;
  }
}

// Three MaxPools of tensor `in` (3x3 stride 2 padded; 2x2 dilated with ceil_mode; 3x3 with the Indices
// output), writing p1, p2, p3 and idx.
void AddMaxPools(ModelBuilder& b, const std::string& in) {
  auto& p1 = b.Node("MaxPool", {in}, {"p1"}, "pool_strided");
  p1.add_attribute()->CopyFrom(IntsAttr("kernel_shape", {3, 3}));
  p1.add_attribute()->CopyFrom(IntsAttr("strides", {2, 2}));
  p1.add_attribute()->CopyFrom(IntsAttr("pads", {1, 1, 1, 1}));
  auto& p2 = b.Node("MaxPool", {in}, {"p2"}, "pool_dilated");
  p2.add_attribute()->CopyFrom(IntsAttr("kernel_shape", {2, 2}));
  p2.add_attribute()->CopyFrom(IntsAttr("dilations", {2, 2}));
  p2.add_attribute()->CopyFrom(IntsAttr("strides", {2, 2}));
  p2.add_attribute()->CopyFrom(IntAttr("ceil_mode", 1));
  b.Node("MaxPool", {in}, {"p3", "idx"}, "pool_indices").add_attribute()->CopyFrom(IntsAttr("kernel_shape", {3, 3}));
  b.Output("p1", DataType::kFloat).Output("p2", DataType::kFloat).Output("p3", DataType::kFloat);
  b.Output("idx", DataType::kInt64);
}

// MaxPool windows of a float convolution's output follow it channels last (those with an Indices output
// stay channels first) and give the bits a channels-first MaxPool gives on the same convolution output.
TEST(ChannelsLastLayout, MaxPoolFollowsWithTheBitsOfTheChannelsFirstPool) {
  std::mt19937 rng(14);
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {2, 3, 11, 13});
  b.Initializer("w", Floats(rng, {6, 3, 3, 3}, -1, 1));
  b.Node("Conv", {"x", "w"}, {"c"}, "conv").add_attribute()->CopyFrom(IntsAttr("pads", {1, 1, 1, 1}));
  b.Output("c", DataType::kFloat);
  AddMaxPools(b, "c");
  const auto graph = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "pools.onnx"));
  Session last(graph);
  EXPECT_EQ(last.channels_last().convs, 1);
  EXPECT_EQ(last.channels_last().followers, 2);  // p1, p2
  const std::vector<Tensor> got = last.Run({{"x", Floats(rng, {2, 3, 11, 13}, -2, 2)}});
  // The same pools, channels first, on the channels-last session's convolution output.
  ModelBuilder pb(13);
  pb.Input("c", DataType::kFloat, {2, 6, 11, 13});
  AddMaxPools(pb, "c");
  Session pools(std::make_shared<const Graph>(GraphFromModel(pb.model(), "", "pools_only.onnx")));
  const std::vector<Tensor> want = pools.Run({{"c", got[0]}});
  ASSERT_EQ(want.size() + 1, got.size());
  EXPECT_EQ(got[1].shape(), (Shape{2, 6, 6, 7}));
  EXPECT_EQ(got[2].shape(), (Shape{2, 6, 5, 6}));
  for (size_t o = 0; o < want.size(); ++o) {
    ASSERT_EQ(got[o + 1].shape(), want[o].shape()) << o;
    EXPECT_EQ(0, std::memcmp(got[o + 1].raw(), want[o].raw(), want[o].nbytes())) << graph->outputs[o + 1].name;
  }
}

// An 8-bit MaxPool between integer convolutions runs channels last with the channels-first session's bits.
TEST(ChannelsLastLayout, IntegerMaxPoolBetweenConvolutionsFollows) {
  std::mt19937 rng(15);
  ModelBuilder b(13);
  b.Input("xq", DataType::kUint8, {1, 4, 9, 9});
  Params(b, "x", 0.05f, Tensor::Scalar<uint8_t>(120));
  Params(b, "a", 0.04f, Tensor::Scalar<uint8_t>(10));
  b.Initializer("w", Random8(rng, DataType::kInt8, {8, 4, 3, 3}))
      .Initializer("w/scale", Floats(rng, {8}, 0.002f, 0.02f))
      .Initializer("w/zp", Tensor(DataType::kInt8, {8}));
  b.Node("QLinearConv", {"xq", "x/scale", "x/zp", "w", "w/scale", "w/zp", "a/scale", "a/zp"}, {"aq"}, "conv1");
  auto& pool = b.Node("MaxPool", {"aq"}, {"pq"}, "pool");
  pool.add_attribute()->CopyFrom(IntsAttr("kernel_shape", {3, 3}));
  pool.add_attribute()->CopyFrom(IntsAttr("strides", {2, 2}));
  b.Node("QLinearConv", {"pq", "a/scale", "a/zp", "w2", "w/scale", "w/zp", "x/scale", "x/zp"}, {"yq"}, "conv2");
  b.Initializer("w2", Random8(rng, DataType::kInt8, {8, 8, 1, 1}));
  b.Output("yq", DataType::kUint8);
  const auto graph = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "int_pool.onnx"));
  const ChannelsLastCount count =
      ExpectTheBitsOfChannelsFirst(graph, {{"xq", Random8(rng, DataType::kUint8, {1, 4, 9, 9})}});
  EXPECT_EQ(count.convs, 2);
  EXPECT_EQ(count.followers, 1);
  EXPECT_EQ(count.transposes, 2);  // xq in, yq out: none around the pool
}

TEST(ChannelsLastLayout, GraphsWithoutConvolutionsAreUnchanged) {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {1, 2, 3, 3});
  b.Node("Relu", {"x"}, {"y"});
  b.Output("y", DataType::kFloat);
  const Graph g = GraphFromModel(b.model(), "", "relu.onnx");
  ChannelsLastCount count;
  const Graph out = ToChannelsLast(g, &count);
  EXPECT_EQ(count.total(), 0);
  EXPECT_EQ(out.nodes.size(), 1u);
}

}  // namespace
}  // namespace ptq
