// FusePointwiseDepthwise: which 1x1 -> depthwise pairs of a channels-last graph become one node, and that the
// session then gives the bits of the graph without that fusion.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "runtime/channels_last_layout.h"
#include "runtime/cpu_features.h"
#include "runtime/float_fusion.h"
#include "tests/runtime/qdq_test_models.h"

namespace ptq {
namespace {

using namespace qdq_test;

// Three expansions: 1x1 -> Clip(0, 6) -> depthwise 3x3 -> Clip(0, 6) -> 1x1 + x (MobileNetV2's block);
// 1x1 -> SiLU -> depthwise 5x5 stride 2, where a GlobalAveragePool reads the SiLU's output as well (not
// fused: the expanded tensor is needed whole); 1x1 without activation -> depthwise 3x3 of dilation 2.
std::shared_ptr<const Graph> Expansions() {
  std::mt19937 rng(31);
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {2, 8, 14, 14});
  auto conv = [&](const std::string& in, const std::string& out, Shape w, int64_t group, int64_t stride,
                  int64_t dilation) -> onnx::NodeProto& {
    const int64_t pad = (w[2] - 1) / 2 * dilation;
    b.Initializer(out + "/w", Floats(rng, w, -0.5f, 0.5f)).Initializer(out + "/b", Floats(rng, {w[0]}, -0.2f, 0.2f));
    auto& n = b.Node("Conv", {in, out + "/w", out + "/b"}, {out}, out);
    n.add_attribute()->CopyFrom(IntAttr("group", group));
    n.add_attribute()->CopyFrom(IntsAttr("strides", {stride, stride}));
    n.add_attribute()->CopyFrom(IntsAttr("dilations", {dilation, dilation}));
    n.add_attribute()->CopyFrom(IntsAttr("pads", {pad, pad, pad, pad}));
    return n;
  };
  b.Initializer("zero", Tensor::Scalar<float>(0.0f)).Initializer("six", Tensor::Scalar<float>(6.0f));
  conv("x", "e1", {32, 8, 1, 1}, 1, 1, 1);
  b.Node("Clip", {"e1", "zero", "six"}, {"e1r"});
  conv("e1r", "d1", {32, 1, 3, 3}, 32, 1, 1);
  b.Node("Clip", {"d1", "zero", "six"}, {"d1r"});
  conv("d1r", "p1", {8, 32, 1, 1}, 1, 1, 1);
  b.Node("Add", {"p1", "x"}, {"y1"});
  conv("y1", "e2", {24, 8, 1, 1}, 1, 1, 1);
  b.Node("Sigmoid", {"e2"}, {"e2s"});
  b.Node("Mul", {"e2", "e2s"}, {"e2m"});
  conv("e2m", "d2", {24, 1, 5, 5}, 24, 2, 1);
  b.Node("GlobalAveragePool", {"e2m"}, {"pool"});
  conv("d2", "e3", {48, 24, 1, 1}, 1, 1, 1);
  conv("e3", "d3", {48, 1, 3, 3}, 48, 1, 2);
  b.Output("d3", DataType::kFloat).Output("pool", DataType::kFloat);
  return std::make_shared<const Graph>(GraphFromModel(b.model(), "", "expansions.onnx"));
}

TEST(ChannelsLastPointwiseDepthwise, ExpansionsReadOnlyByTheirDepthwiseRunAsOneNodeWithTheSameBits) {
  const auto graph = Expansions();
  Session session(graph);
  // Without AVX2 (PTQ_CPU=baseline) nothing fuses: the fused kernel is AVX2 only.
  const int fusable = GetCpuFeatures().avx2_fma ? 2 : 0;
  EXPECT_EQ(session.channels_last().pointwise_depthwise, fusable);
  EXPECT_EQ(session.channels_last().convs, 7);
  // The same graph as the session builds it, without this fusion, run as it is.
  ChannelsLastCount count;
  const auto unfused = std::make_shared<const Graph>(ToChannelsLast(FuseFloatPatterns(*graph), &count));
  EXPECT_EQ(count.pointwise_depthwise, 0);
  SessionOptions as_is;
  as_is.fuse_float_patterns = false;
  as_is.channels_last = false;
  Session reference(unfused, as_is);
  std::mt19937 rng(37);
  const std::map<std::string, Tensor> feeds = {{"x", Floats(rng, {2, 8, 14, 14}, -1.0f, 1.0f)}};
  const std::vector<Tensor> got = session.Run(feeds), want = reference.Run(feeds);
  ASSERT_EQ(got.size(), 2u);
  for (size_t o = 0; o < got.size(); ++o) {
    ASSERT_EQ(got[o].shape(), want[o].shape()) << graph->outputs[o].name;
    EXPECT_EQ(0, std::memcmp(got[o].raw(), want[o].raw(), want[o].nbytes())) << graph->outputs[o].name;
  }
  // The pass on that graph: the two pairs become PointwiseDepthwiseConv; the SiLU's readers keep theirs.
  if (fusable == 0) return;
  ChannelsLastCount fused_count;
  const Graph fused = FusePointwiseDepthwise(*unfused, &fused_count);
  EXPECT_EQ(fused_count.pointwise_depthwise, 2);
  EXPECT_EQ(Count(fused, "PointwiseDepthwiseConv"), 2);
  EXPECT_EQ(Count(fused, "FusedConv"), 3);  // the projection, the expansion the pool reads, the 5x5 of stride 2
  EXPECT_EQ(fused.nodes.size() + 2, unfused->nodes.size());
}

}  // namespace
}  // namespace ptq
