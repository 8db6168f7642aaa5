// FindValueAliases on hand-made graphs, and on the ViT fixture: an alias's histogram and shape equal
// those taken directly from the run.
#include "calibrate/tensor_aliases.h"

#include <gtest/gtest.h>

#include <memory>

#include "calibrate/calibrator.h"
#include "calibrate/stats_worker.h"
#include "runtime/session.h"
#include "calibrate/sample_reader.h"

namespace ptq {
namespace {

Node MakeNode(const std::string& op, std::vector<std::string> in, std::vector<std::string> out) {
  Node n;
  n.name = op + "_" + out[0];
  n.op_type = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

TEST(TensorAliases, FollowsValuePreservingChainsToTheNearestObservedTensor) {
  Graph g;
  g.nodes = {MakeNode("MatMul", {"x", "w"}, {"a"}),   MakeNode("Transpose", {"a"}, {"b"}),
             MakeNode("Reshape", {"b", "shape"}, {"c"}), MakeNode("Squeeze", {"c"}, {"d"}),
             MakeNode("Relu", {"d"}, {"e"}),          MakeNode("Gather", {"a", "idx"}, {"f"}),
             MakeNode("Flatten", {"f"}, {"g"}),       MakeNode("Identity", {"x"}, {"h"})};
  // observed: a, c, d (alias of c, itself an alias of a), e (Relu changes values), g (its source f is
  // a Gather: a subset), h (graph input x is observed).
  const auto aliases = FindValueAliases(g, {"x", "a", "c", "d", "e", "g", "h"});
  const std::map<std::string, std::string> want = {{"c", "a"}, {"d", "a"}, {"h", "x"}};
  EXPECT_EQ(aliases, want);
}

TEST(TensorAliases, OtherDomainsAndUnobservedSourcesAreNotAliases) {
  Graph g;
  g.nodes = {MakeNode("Relu", {"x"}, {"a"}), MakeNode("Transpose", {"a"}, {"b"}), MakeNode("Reshape", {"x", "s"}, {"c"})};
  g.nodes[1].domain = "com.example";
  EXPECT_TRUE(FindValueAliases(g, {"a", "b"}).empty());  // b's Transpose is not the ONNX one
  EXPECT_TRUE(FindValueAliases(g, {"c"}).empty());       // x is not observed
}

// The ViT has Reshape outputs of attention MatMuls among its calibrated tensors: their copied
// histograms equal histograms built from their own observed values.
TEST(TensorAliases, AliasHistogramsOfTheVitEqualDirectOnes) {
  const Graph g = LoadGraph(std::string(PTQ_SOURCE_DIR) + "/tests/data/digits_vit/digits_vit_opset13.onnx");
  const std::string calib = std::string(PTQ_SOURCE_DIR) + "/tests/data/digits_vit/calib";
  CalibrationOptions o;
  std::set<std::string> observed;
  for (const auto& kv : SelectTensors(g, o)) {
    if (kv.second != TensorRole::kWeight) observed.insert(kv.first);
  }
  const auto aliases = FindValueAliases(g, observed);
  ASSERT_FALSE(aliases.empty());
  SampleOptions so;
  so.batch_size = 8;
  for (bool background : {false, true}) {
    SampleReader reader = SampleReader::Open(g, calib, so);
    CollectOptions co;
    co.background = background;
    const CalibrationResult r = CollectStatistics(g, reader, o, nullptr, co);
    std::map<std::string, CalibratedTensor> direct;
    Session session(std::make_shared<const Graph>(g), SessionOptions::ObservingEveryTensor());
    SampleReader again = SampleReader::Open(g, calib, so);
    std::map<std::string, Tensor> batch;
    int64_t n = 0;
    while (again.Next(&batch, &n)) {
      session.Run(batch, [&](const Observation& ob) {
        if (aliases.count(ob.name)) FoldObservation(&direct[ob.name], ob.value);
      });
    }
    for (const auto& kv : aliases) {
      const CalibratedTensor& got = r.tensors.at(kv.first);
      EXPECT_TRUE(got.histogram == direct[kv.first].histogram) << kv.first;
      EXPECT_EQ(got.histogram.ToJson().dump(), direct[kv.first].histogram.ToJson().dump()) << kv.first;
      EXPECT_EQ(got.shape, direct[kv.first].shape) << kv.first;
      EXPECT_NE(got.shape, r.tensors.at(kv.second).shape) << kv.first;  // its own shape
    }
  }
}

}  // namespace
}  // namespace ptq
