// QDQ execution of DequantizeLinear -> AveragePool / GlobalAveragePool -> QuantizeLinear: the fused
// integer pools round the exact average, within one unit of the literal float evaluation.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/runtime/qdq_test_models.h"

namespace ptq {
namespace {

using namespace qdq_test;

constexpr float kXScale = 0.043f, kYScale = 0.021f;
constexpr int kXZero = 117, kYZero = 9;

// GlobalAveragePool (uint8), AveragePool 3x3 stride 2 with padding, without and with count_include_pad
// (int8), and a GlobalAveragePool whose QuantizeLinear changes the type (stays literal).
std::shared_ptr<const Graph> PoolModel() {
  ModelBuilder b(13);
  b.Input("xq", DataType::kUint8, {2, 5, 11, 13});
  b.Input("sq", DataType::kInt8, {1, 3, 8, 8});
  Params(b, "x", kXScale, Tensor::Scalar<uint8_t>(kXZero));
  Params(b, "y", kYScale, Tensor::Scalar<uint8_t>(kYZero));
  Params(b, "s", 0.05f, Tensor::Scalar<int8_t>(-7));
  Params(b, "t", 0.04f, Tensor::Scalar<int8_t>(3));
  b.Node("DequantizeLinear", {"xq", "x/scale", "x/zp"}, {"x"});
  b.Node("DequantizeLinear", {"sq", "s/scale", "s/zp"}, {"s"});
  b.Node("GlobalAveragePool", {"x"}, {"gap"}, "gap");
  b.Node("QuantizeLinear", {"gap", "y/scale", "y/zp"}, {"gap_q"});
  for (int include : {0, 1}) {
    const std::string o = "avg" + std::to_string(include);
    auto& n = b.Node("AveragePool", {"s"}, {o}, o);
    n.add_attribute()->CopyFrom(IntsAttr("kernel_shape", {3, 3}));
    n.add_attribute()->CopyFrom(IntsAttr("strides", {2, 2}));
    n.add_attribute()->CopyFrom(IntsAttr("pads", {1, 1, 1, 1}));
    n.add_attribute()->CopyFrom(IntAttr("count_include_pad", include));
    b.Node("QuantizeLinear", {o, "t/scale", "t/zp"}, {o + "_q"});
  }
  b.Node("GlobalAveragePool", {"s"}, {"gap_s"}, "gap_changes_type");
  b.Node("QuantizeLinear", {"gap_s", "y/scale", "y/zp"}, {"gap_s_q"});
  for (const char* o : {"gap_q", "avg0_q", "avg1_q", "gap_s_q"}) b.Output(o, DataType::kUndefined);
  return std::make_shared<const Graph>(GraphFromModel(b.model(), "", "pool.onnx"));
}

std::map<std::string, Tensor> PoolFeeds(unsigned seed) {
  std::mt19937 rng(seed);
  return {{"xq", Random8(rng, DataType::kUint8, {2, 5, 11, 13})}, {"sq", Random8(rng, DataType::kInt8, {1, 3, 8, 8})}};
}

TEST(QdqPoolFusion, IntegerPoolsAreWithinOneUnitOfTheLiteralEvaluation) {
  const auto graph = PoolModel();
  int64_t differ_total = 0, values = 0;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const FusedAndLiteral r = RunBoth(graph, PoolFeeds(seed));
    EXPECT_EQ(r.count.pools, 3);
    for (size_t o = 0; o < r.literal.size(); ++o) {
      int64_t differ = 0;
      EXPECT_LE(MaxUnitsApart(r.fused[o], r.literal[o], &differ), 1.0) << graph->outputs[o].name;
      differ_total += differ;
      values += r.literal[o].size();
    }
  }
  EXPECT_LE(differ_total * 100, values) << "more than 1% of the pooled values differ from the literal ones";
}

TEST(QdqPoolFusion, GlobalAverageRoundsTheExactMean) {
  // Where the exact mean is not within 1e-3 of a rounding tie, the fused value is exactly its rounding.
  const auto graph = PoolModel();
  const auto feeds = PoolFeeds(4);
  Session fused(graph, SessionOptions{false});
  const Tensor gap = fused.Run(feeds)[0];
  const Tensor& x = feeds.at("xq");
  const int64_t plane = 11 * 13;
  int checked = 0;
  for (int64_t i = 0; i < 10; ++i) {
    int64_t sum = 0;
    for (int64_t s = 0; s < plane; ++s) sum += static_cast<int64_t>(x.GetAsDouble(i * plane + s)) - kXZero;
    const double exact = static_cast<double>(sum) * kXScale / plane / kYScale;
    if (std::abs(exact - std::floor(exact) - 0.5) < 1e-3) continue;
    const double want = std::min(255.0, std::max(0.0, std::nearbyint(exact) + kYZero));
    EXPECT_EQ(gap.GetAsDouble(i), want) << "plane " << i;
    ++checked;
  }
  EXPECT_GE(checked, 8);
}

TEST(QdqPoolFusion, PoolsWhoseQuantizeChangesTheTypeStayLiteral) {
  Session s(PoolModel(), SessionOptions{false});
  EXPECT_EQ(Count(s.graph(), "QLinearGlobalAveragePool"), 1);
  EXPECT_EQ(Count(s.graph(), "QLinearAveragePool"), 2);
  EXPECT_EQ(Count(s.graph(), "GlobalAveragePool"), 1);
}

}  // namespace
}  // namespace ptq
